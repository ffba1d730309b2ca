"""Baseline search server for benchmarks/serve.py: FastAPI + FAISS IndexFlatIP, the query embedded per request,
one request at a time (a global lock) — the shape of the reference's search engine. Same wire format."""
import sys, threading
import faiss, uvicorn
from fastapi import FastAPI
from vrag_nb.retrieval.index import PageIndex

idx = PageIndex.load(sys.argv[1])
vecs, owner = idx.index.reconstruct_n(0, idx.index.ntotal), idx.owner
flat = faiss.IndexFlatIP(vecs.shape[1]); flat.add(vecs)
lock, app = threading.Lock(), FastAPI()

@app.post('/search')
def search(body: dict):
    out = []
    with lock:
        for q in body['queries']:
            s, i = flat.search(idx.embedder.embed_queries([q]), 8 * body.get('top_k', 3))
            best = {}
            for sc, v in zip(s[0], i[0]): best.setdefault(int(owner[v]), float(sc))
            top = sorted(best.items(), key=lambda x: -x[1])[:body.get('top_k', 3)]
            out.append(
                {'score': [x[1] for x in top], 'indice': [x[0] for x in top], 'data': [idx.record(x[0]) for x in top]}
            )
    return {'results': out}

if __name__ == '__main__': uvicorn.run(app, host='127.0.0.1', port=int(sys.argv[2]), log_level='warning')

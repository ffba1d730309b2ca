"""Serving benchmark: p50/p99 latency and throughput of `POST /search` under concurrent load, from this process, against
`vrag_serve` (dynamic batching, hybrid search re-ranked by the default second stage; again with `--rerank 0`) and the
baseline server (benchmarks/baseline_server.py), all on loopback, over the same 10,000-page index.

    .venv/bin/python benchmarks/serve.py --out benchmarks/results/serve.json

The index: 10,000 pages whose texts are the sample corpus's pages recycled (so BM25 does real work) and whose passage
vectors (8 per page, 80,000 in all) are synthetic embeddings (`vrag_nb.retrieval.ann.synthetic_embeddings`) — embedding
80,000 real passages would take hours on 2 cores, and search cost does not depend on what the vectors mean. Query
vectors come from the real MiniLM model, from the questions of data/qa.json. Every run is bounded: a fixed number
of requests per setting. The cost of embedding a query with each embedder tier (MiniLM, static) is measured first,
on its own."""
import argparse, asyncio, json, os, shutil, subprocess, sys, tempfile, time
from pathlib import Path
import httpx, numpy as np

def synthetic_index(out: Path, corpus: Path, n_pages=10_000, per_page=8):
    from vrag_nb.retrieval.ann import synthetic_embeddings, make_index
    from vrag_nb.retrieval.corpus import load_pages
    from vrag_nb.retrieval.index import commit_files, FUSION
    from vrag_nb.retrieval.store import index_files
    from vrag_nb.retrieval.sparse import BM25Pages
    from vrag_nb.retrieval.embed import MiniLMEmbedder
    import vrag_nb
    src = load_pages(corpus)
    (out/'pages').mkdir(parents=True, exist_ok=True)
    pages = []
    for i in range(n_pages):
        p = src[i % len(src)]
        pages.append(
            {
                **p.to_dict(),
                'doc': f'synth{i // 100:03d}',
                'page': i % 100 + 1,
                'image': str((corpus / p.image).resolve()),
                'blocks': [],
            }
        )
    vecs, _ = synthetic_embeddings(n_pages * per_page, n_queries=1)
    owner = np.repeat(np.arange(n_pages), per_page)
    meta = dict(
        embedder=MiniLMEmbedder.name,
        dim=384,
        kind='flat',
        metric='inner_product',
        count=n_pages,
        vectors=len(vecs),
        passages=True,
        method='hybrid',
        fusion=dict(FUSION),
        created='synthetic',
        version=vrag_nb.__version__,
        pages_hash='synthetic',
    )
    commit_files(
        out,
        {
            'pages.jsonl': ''.join(json.dumps(p) + '\n' for p in pages).encode(),
            **index_files(make_index(vecs, 'flat'), owner, BM25Pages.build([p['text'] for p in pages]), meta),
        },
    )

def query_embedding(queries, tiers=('minilm', 'static'), repeats=5):
    "Cost of embedding queries with each embedder tier: one query at a time (median ms) and all at once (queries/s)."
    import statistics
    from vrag_nb.retrieval.index import get_embedder
    out = {}
    for name in tiers:
        emb = get_embedder(name); emb.embed_queries(queries[:2])  # warm
        single = []
        for q in queries * repeats:
            t = time.perf_counter(); emb.embed_queries([q]); single.append(time.perf_counter() - t)
        batch = []
        for _ in range(repeats):
            t = time.perf_counter(); emb.embed_queries(queries); batch.append(time.perf_counter() - t)
        out[name] = dict(embedder=emb.name, dim=emb.dim, p50_ms=1000 * statistics.median(single),
                         batch_queries_per_s=len(queries) / statistics.median(batch))
        print(
            f"query embedding {name:7s} p50 {out[name]['p50_ms']:6.2f} ms  batch "
            f"{out[name]['batch_queries_per_s']:8.0f} queries/s",
            flush=True,
        )
    return out

async def load(url, queries, n, concurrency, top_k=3):
    lat, it = [], iter(range(n))
    async with httpx.AsyncClient(timeout=120, limits=httpx.Limits(max_connections=concurrency)) as c:
        async def worker():
            for i in it:
                t = time.perf_counter()
                r = await c.post(url, json={'queries': [queries[i % len(queries)]], 'top_k': top_k})
                r.raise_for_status(); lat.append(time.perf_counter() - t)
        t0 = time.perf_counter()
        await asyncio.gather(*[worker() for _ in range(concurrency)])
        wall = time.perf_counter() - t0
    return {'requests': n, 'concurrency': concurrency, 'p50_ms': round(1000 * float(np.percentile(lat, 50)), 1),
            'p99_ms': round(1000 * float(np.percentile(lat, 99)), 1), 'throughput_rps': round(n / wall, 1)}

def start(cmd, port):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        try:
            httpx.post(f'http://127.0.0.1:{port}/search', json={'queries': ['warm up'], 'top_k': 3},
                       timeout=60).raise_for_status()
            return p
        except Exception: time.sleep(0.2)
    p.kill(); raise RuntimeError(f'server {cmd} did not start')

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--corpus', default='demo_out/index', help='a built corpus dir whose page texts are recycled')
    ap.add_argument('--requests', type=int, default=400); ap.add_argument('--out', default=None)
    a = ap.parse_args()
    from vrag_nb.eval.retrieval import load_qa
    queries = [e['query'] for e in load_qa('data/qa.json')]
    d = Path(tempfile.mkdtemp())
    t = time.time()
    synthetic_index(d, Path(a.corpus))
    print(f'10,000-page index built in {time.time() - t:.0f} s', flush=True)
    bin_ = Path(sys.executable).parent
    servers = {
        'vrag_serve (batched, hybrid)': ([str(bin_ / 'vrag_serve'), str(d), '--port', '8811'], 8811),
        # the same server with its second stage off: what the re-ranker (23_retrieval.rerank) costs
        'vrag_serve (batched, hybrid, --rerank 0)': (
            [str(bin_ / 'vrag_serve'), str(d), '--port', '8813', '--rerank', '0'], 8813),
        'baseline (flat, per request)': (
            [sys.executable, str(Path(__file__).with_name('baseline_server.py')), str(d), '8812'],
            8812,
        ),
    }
    from vrag_nb.retrieval.index import PageIndex
    res = {'pages': 10_000, 'vectors': 80_000, 'cpu_count': os.cpu_count(), 'requests_per_setting': a.requests,
           'reranked_candidates': PageIndex.load(d).rerank_candidates()}
    res['query_embedding'] = query_embedding(queries)
    for name, (cmd, port) in servers.items():
        p = start(cmd, port)
        try:
            res[name] = {
                f'c{c}': asyncio.run(
                    load(f'http://127.0.0.1:{port}/search', queries, a.requests if c > 1 else a.requests // 4, c)
                )
                for c in (1, 16)
            }
        finally: p.terminate(); p.wait(30)
        for k, v in res[name].items():
            print(
                f'{name:30s} {k:4s} p50 {v["p50_ms"]:7.1f} ms  p99 {v["p99_ms"]:7.1f} ms  {v["throughput_rps"]:6.1f} '
                f'req/s',
                flush=True,
            )
    shutil.rmtree(d)
    if a.out: Path(a.out).parent.mkdir(parents=True, exist_ok=True); Path(a.out).write_text(json.dumps(res, indent=1))

"""Retrieval tuning: fusion settings chosen on one question set only, and reported on the other.

    .venv/bin/python benchmarks/tune_retrieval.py --out benchmarks/results/tune_retrieval.json

Tuning set: data/qa.json over data/pdfs (406 pages). Held-out set: data/qa_rdocs.json over data/pdfs_rdocs (93 pages),
written over other manuals. For each embedder tier (MiniLM, static) both indexes are built once (kept under --work).
Every setting of the grid is evaluated on both sets, but a setting is chosen by its tuning-set numbers alone
(recall@1, then recall@5, then MRR@10); the held-out numbers are reported beside it, never used to choose."""
import argparse, json, time
from pathlib import Path

SETS = {'tune': ('data/qa.json', 'data/pdfs'), 'heldout': ('data/qa_rdocs.json', 'data/pdfs_rdocs')}
KEYS = ('recall@1', 'recall@5', 'mrr@10', 'ndcg@5')

class Fused:
    """A PageIndex whose hybrid search uses other fusion settings (what `evaluate_retrieval` calls): the first stage
    alone, as these settings were chosen before any second stage (`rerank=0`)."""
    def __init__(self, index, **fusion): self.index, self.fusion = index, fusion
    def search(self, queries, top_k, method=None):
        return self.index.search(queries, top_k, method=method, rerank=0, **self.fusion)

def index_for(work: Path, name: str, pdfs: str, embedder: str):
    from vrag_nb.retrieval.corpus import build_corpus
    from vrag_nb.retrieval.index import PageIndex
    d = work/f'{name}-{embedder}'
    if (d/'meta.json').exists(): return PageIndex.load(d)
    build_corpus(sorted(Path(pdfs).glob('*.pdf')), d, progress=False)
    return PageIndex.build(d, embedder=embedder, progress=False)

def grid():
    "Every setting tried: the two retrievers alone, RRF over (k, dense weight), min-max fusion over the dense weight."
    yield 'dense', 'dense', {}
    yield 'bm25', 'bm25', {}
    for k in (10, 30, 60, 100):
        for w in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7):
            yield f'rrf k={k} w={w}', 'hybrid', dict(kind='rrf', k=k, dense_weight=w)
    for w in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7): yield f'minmax w={w}', 'hybrid', dict(kind='minmax', dense_weight=w)

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--embedders', nargs='+', default=['minilm', 'static'])
    ap.add_argument('--work', default='runs/tune_retrieval')
    ap.add_argument('--out')
    a = ap.parse_args()
    from vrag_nb.eval.retrieval import load_qa, evaluate_retrieval
    work = Path(a.work); work.mkdir(parents=True, exist_ok=True)
    qa = {s: load_qa(q) for s, (q, _) in SETS.items()}
    res = {'tuning_set': SETS['tune'][0], 'heldout_set': SETS['heldout'][0], 'tiers': {}}
    for emb in a.embedders:
        t = time.time()
        idx = {s: index_for(work, s, pdfs, emb) for s, (_, pdfs) in SETS.items()}
        rows = []
        for name, method, fusion in grid():
            r = {s: evaluate_retrieval(Fused(idx[s], **fusion), qa[s], method=method) for s in SETS}
            rows.append(dict(setting=name, method=method, fusion=fusion,
                             **{s: {k: r[s][k] for k in KEYS} for s in SETS}))
        hybrid = [r for r in rows if r['method'] == 'hybrid']
        best = max(hybrid, key=lambda r: tuple(r['tune'][k] for k in ('recall@1', 'recall@5', 'mrr@10')))
        default = next(r for r in rows if r['setting'] == 'rrf k=60 w=0.3')
        res['tiers'][emb] = dict(rows=rows, chosen_on_tuning_set=best['setting'], current_default='rrf k=60 w=0.3',
                                 seconds=time.time() - t)
        for r in [rows[0], rows[1], default, best]:
            print(f"{emb:7s} {r['setting']:18s} tune r@1 {r['tune']['recall@1']:.3f} r@5 {r['tune']['recall@5']:.3f}"
                  f"   held-out r@1 {r['heldout']['recall@1']:.3f} r@5 {r['heldout']['recall@5']:.3f}", flush=True)
    if a.out: Path(a.out).write_text(json.dumps(res, indent=1) + '\n')

if __name__ == '__main__': main()

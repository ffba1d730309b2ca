"""Ingest benchmark: PDFs → searchable index (`build_corpus`, then `PageIndex.build`), end to end on the sample PDFs,
for each embedder tier side by side (MiniLM, the default, and the static fast tier; the e5 tier when asked for, which
needs the e5 extra); median of N runs per tier, with the time of each stage and, for MiniLM, the compute limit of
embedding.

    .venv/bin/python benchmarks/ingest.py --runs 3 --out benchmarks/results/ingest.json
    .venv/bin/python benchmarks/ingest.py --pdfs DIR --embedders minilm e5 --out benchmarks/results/ingest_e5.json

The static tier's model is distilled once before the timed runs (its first use; the cache keeps it), so the runs time
what every later ingest costs.

Embedding cost is estimated from MiniLM-L6's shapes (6 layers, hidden 384, FFN 1536): about 2 × (4·384² +
2·384·1536) multiply-adds per token per layer, plus attention over the passage. The machine's limit is measured the
same way a BLAS user would: float32 matrix multiplication through numpy on all cores."""
import argparse, json, os, platform, shutil, statistics, tempfile, time
from pathlib import Path

def flops_per_token(seq, layers=6, d=384, ffn=1536):
    "Forward FLOPs per token of a BERT encoder: projections, FFN and attention scores/mixing (2 FLOPs per MAC)."
    return 2 * layers * (4 * d * d + 2 * d * ffn + 2 * seq * d)

def sgemm_gflops(n=2048, reps=5):
    "float32 matrix-multiply throughput through numpy's BLAS, GFLOP/s (best of `reps`)."
    import numpy as np
    a, b = np.random.rand(n, n).astype(np.float32), np.random.rand(n, n).astype(np.float32)
    a @ b
    best = min(_timed(lambda: a @ b) for _ in range(reps))
    return 2 * n**3 / best / 1e9

def _timed(f):
    t = time.perf_counter(); f(); return time.perf_counter() - t

def one_run(pdfs, embedder):
    from vrag_nb.retrieval.corpus import build_corpus
    from vrag_nb.retrieval.index import PageIndex
    out = Path(tempfile.mkdtemp())
    t0 = time.perf_counter()
    rep = build_corpus(pdfs, out, progress=False)
    t1 = time.perf_counter()
    PageIndex.build(out, embedder=embedder, progress=False)
    t2 = time.perf_counter()
    shutil.rmtree(out)
    return dict(pages=len(rep.pages), corpus_s=t1 - t0, index_s=t2 - t1, total_s=t2 - t0)

def tier(pdfs, embedder, runs):
    "Median stage times of `runs` end-to-end ingests with one embedder."
    rs = [one_run(pdfs, embedder) for _ in range(runs)]
    med = {k: statistics.median(r[k] for r in rs) for k in ('corpus_s', 'index_s', 'total_s')}
    pages = rs[0]['pages']
    return dict(runs=rs, median=med, pages=pages, pages_per_s=pages / med['total_s'],
                corpus_pages_per_s=pages / med['corpus_s'], index_pages_per_s=pages / med['index_s'])

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--pdfs', default='data/pdfs')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--embedders', nargs='+', default=['minilm', 'static'], choices=['minilm', 'static', 'e5'])
    ap.add_argument('--out')
    a = ap.parse_args()
    from vrag_nb.retrieval.embed import MiniLMEmbedder
    from vrag_nb.retrieval.corpus import build_corpus, load_pages
    pdfs = sorted(str(p) for p in Path(a.pdfs).glob('*.pdf'))
    res = dict(machine=platform.processor() or platform.machine(), cores=os.cpu_count(), tiers={})
    if 'static' in a.embedders:
        from vrag_nb.retrieval.static import static_model_dir
        t = time.perf_counter(); static_model_dir(); res['static_model_ready_s'] = time.perf_counter() - t
    for name in a.embedders: res['tiers'][name] = tier(pdfs, name, a.runs)
    if 'minilm' in a.embedders:  # the compute limit: tokens MiniLM reads (every passage of every page)
        tmp = Path(tempfile.mkdtemp()); build_corpus(pdfs, tmp, progress=False)
        emb = MiniLMEmbedder()
        passages = [s for p in load_pages(tmp) for s in (emb.split_passages(p.text) if p.text.strip() else [p.doc])]
        shutil.rmtree(tmp)
        tokens = sum(len(emb.tokenizer.encode(s).ids) for s in passages)
        m = res['tiers']['minilm']; med, pages = m['median'], m['pages']
        gflop = tokens * flops_per_token(emb.passage_tokens + 2) / 1e9
        m.update(
            passages=len(passages),
            tokens=tokens,
            embed_gflop=gflop,
            embed_gflops_achieved=gflop / med['index_s'],
            sgemm_gflops=sgemm_gflops(),
            gflops_needed_for_30_pages_per_s=gflop / (pages / 30 - med['corpus_s'])
            if pages / 30 > med['corpus_s']
            else None,
        )
    print(json.dumps({k: v for k, v in res.items()}, indent=1))
    if a.out: Path(a.out).write_text(json.dumps(res, indent=1) + '\n')

if __name__ == '__main__': main()

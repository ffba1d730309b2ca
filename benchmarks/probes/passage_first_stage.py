"""Passages as the first stage's unit: BM25 over windows fused with the dense passages and page BM25, re-ranked.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/probes/passage_first_stage.py \
        --results benchmarks/results/passage_first_stage.json

Issue 66 asks for passage-level retrieval (windows, not pages, as the first stage's unit, a page scored by its best
window) beside a refit ranker. The dense run already scores a page by its best passage; what is page-level is BM25.
Here the first stage fuses three runs by min-max (weights 0.4 dense passages, 0.3 page BM25, 0.3 BM25 over 120-word
windows every 60 words, a page scoring its best window: `retrieval_unseen.PassageHybrid`), and the linear ranker of
23_retrieval.rerank re-orders its top candidates: the shipped weights as they are, and weights refit on the readers'
questions (data/qa_train_natural.json over data/pdfs_train, the first stage's top 30, `train_reranker.fit`), with the
eight features or the eight and a ninth, the candidate's best window's BM25 score over the query's best (0 when no
window of it is in the passage run's top 200). Every setting (C, candidates, cloze, the features) is chosen on
data/qa_val_natural.json (best recall@1; ties recall@5, MRR@10), the tuning sets reported beside; the held-out sets are
not opened. The rule for a default, written before the run (benchmarks/README): the choice beats the shipped default's
validation recall@1 (0.885), leaves `tune` and `dev` at or above 0.857 and 0.791, and adds at most 50 ms to a query.
"""
import argparse, itertools, json, sys, time
from pathlib import Path
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmarks/
from retrieval_unseen import SETS, CHOOSE_ON, PassageHybrid, index_for  # noqa: E402
from train_reranker import TRAIN_DEPTH, GRID, fit, metrics, shipped  # noqa: E402

WEIGHTS = (0.4, 0.3, 0.3)  # dense passages, page BM25, window BM25 (as retrieval_unseen's `hybrid +passage BM25`)


def passage_rows(ph, exs, n=TRAIN_DEPTH):
    """Per question over the three-run first stage's top n: (features [n, 9], is-gold [n], gold pages needed); and the
    window run's added cost, seconds a query at p50 (one query per call)."""
    from vrag_nb.eval.retrieval import gold_pages
    from vrag_nb.retrieval.rerank import FEATURES, Reranker
    from vrag_nb.retrieval.sparse import minmax_fuse
    idx = ph.index
    feats = Reranker(dict(features=FEATURES, weights=[0.0] * len(FEATURES), candidates=n)).features(idx)
    qs = [e['query'] for e in exs]
    lat = []
    for q in qs[:100]:
        t = time.perf_counter(); ph.passages.search([q], 200); lat.append(time.perf_counter() - t)
    dense, sparse = idx.runs(qs, max(n, idx.meta['fusion']['depth']))
    wi, ws = ph.passages.search(qs, 200)
    out = []
    for e, d, b, pi, ps in zip(exs, dense, sparse, wi, ws):
        best = {}
        for j, s in zip(pi, ps):
            if s > 0: best.setdefault(ph.owner[int(j)], float(s))
        window = dict(list(best.items())[:50])
        fused = minmax_fuse([dict(d), dict(b), window], list(WEIGHTS))
        cands = sorted(fused.items(), key=lambda x: (-x[1], x[0]))[:n]
        X = feats(e['query'], cands, dict(d), dict(b))
        top = max(best.values(), default=0.0) or 1.0
        X = np.hstack([X, np.array([[best.get(p, 0.0) / top] for p, _ in cands], np.float32)])
        gold = gold_pages(e)
        out.append((X, np.array([idx.pages[p].pid in gold for p, _ in cands]), len(e['meta_info']['reference_page'])))
    return out, float(np.median(lat))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--work', default='runs/retrieval_unseen', help='indexes, built once (as retrieval_unseen)')
    ap.add_argument('--results', help='the grid and its scores, JSON')
    a = ap.parse_args()
    import torch
    torch.set_num_threads(1)
    from vrag_nb.eval.retrieval import load_qa
    t0, work = time.time(), Path(a.work)
    train = load_qa('data/qa_train_natural.json')
    rows, _ = passage_rows(PassageHybrid(index_for(work, 'train_natural', 'data/pdfs_train')), train)
    gens = [e['meta_info'].get('generator', '') for e in train]
    sets = {'val': ('data/qa_val_natural.json', 'data/pdfs_val'), **{s: SETS[s] for s in CHOOSE_ON}}
    scored, secs = {}, {}
    for s, (qa, pdfs) in sets.items():
        scored[s], secs[s] = passage_rows(PassageHybrid(index_for(work, s if s != 'val' else 'val_natural', pdfs)),
                                          load_qa(qa))
    w0, n0 = shipped()
    first = {s: metrics(r, None, 0) for s, r in scored.items()}
    as_shipped = {s: metrics(r, np.r_[w0, 0.0], n0) for s, r in scored.items()}
    print(f'{len(rows)} training questions in {time.time() - t0:.0f} s; three-run first stage {first}; the shipped '
          f'weights over it {as_shipped}', flush=True)
    grid = []
    for feats, (C, n, cloze) in itertools.product(('eight', 'nine'), itertools.product(*GRID.values())):
        keep = slice(0, 8) if feats == 'eight' else slice(None)
        w = fit([(X[:, keep], y, k) for (X, y, k), g in zip(rows, gens) if cloze or g != 'cloze'], C)
        res = {s: metrics([(X[:, keep], y, k) for X, y, k in r], w, n) for s, r in scored.items()}
        grid.append(dict(features=feats, C=C, candidates=n, cloze=cloze, weights=[round(float(x), 5) for x in w],
                         sets=res, key=[res['val'][k] for k in ('recall@1', 'recall@5', 'mrr@10')]))
        print(f'{feats} C={C} candidates={n} cloze={cloze}: {res}', flush=True)
    best = max(grid, key=lambda g: g['key'])
    out = dict(first_stage=f'min-max fusion {WEIGHTS} of dense passages, page BM25, BM25 over 120-word windows',
               trained_on=f'data/qa_train_natural.json ({len(rows)} questions), top {TRAIN_DEPTH}',
               chosen_on='data/qa_val_natural.json (best recall@1; ties recall@5, MRR@10)', three_run_first_stage=first,
               shipped_weights_over_it=as_shipped, grid=grid,
               chosen={k: best[k] for k in ('features', 'C', 'candidates', 'cloze', 'weights', 'sets')},
               window_run_ms_p50={s: round(v * 1e3, 1) for s, v in secs.items()},
               seconds=round(time.time() - t0), command=' '.join(['.venv/bin/python'] + sys.argv))
    print(f"chosen: {best['features']} C={best['C']} candidates={best['candidates']} cloze={best['cloze']}: "
          f"{best['sets']}")
    if a.results: Path(a.results).write_text(json.dumps(out, indent=1) + '\n')


if __name__ == '__main__': main()

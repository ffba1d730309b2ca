"""Which judge fits the answers the cold start imitates: the teacher's right plays re-judged, strict against lenient.

    .venv/bin/python benchmarks/probes/teacher_judges.py --demos /tmp/vrag_cold_start/demos.pt \
        --out benchmarks/results/learn_natural/judges.json

`cold_start.py --questions natural` keeps, per question, the teacher's first play judged right by the lenient stand-in
(`ANLSJudge(contains=True)`: ANLS >= 0.5, or the answer holds the whole reference), as token rows (--demos, its
--work/demos.pt). This reads the final answer back out of each kept row, as the policy will see and imitate it, and
judges it again two ways: strict (`ANLSJudge()`, ANLS >= 0.5 alone) and lenient. It also counts the rows whose last
reply never closes its `<answer>` tag: the turn's token budget cut the answer short, so the row no longer says what was
judged right. Writes --out (counts per split, answer and reference lengths in words, and a few answers of each kind).
"""
import argparse, json, random, re
from pathlib import Path
import torch
from transformers import AutoTokenizer
from vrag_nb.eval.rewards import ANLSJudge, anls
from vrag_nb.eval.retrieval import load_qa
from vrag_nb.models import smollm2_dir

ap = argparse.ArgumentParser()
ap.add_argument('--demos', default='/tmp/vrag_cold_start/demos.pt', help="cold_start.py's --work/demos.pt")
ap.add_argument('--out', default='benchmarks/results/learn_natural/judges.json')
a = ap.parse_args()
tok = AutoTokenizer.from_pretrained(smollm2_dir())
played = torch.load(a.demos, weights_only=False)['played']
qa = {e['uid']: e for f in ('data/qa_train_natural.json', 'data/qa_val_natural.json') for e in load_qa(f)}
strict, lenient = ANLSJudge(), ANLSJudge(contains=True)
median = lambda xs: sorted(xs)[len(xs) // 2] if xs else None
res = dict(demos=a.demos, strict=strict.name, lenient=lenient.name, splits={})
for split in ('train', 'val'):
    rows = []
    for r in played[split]['right']:
        last = tok.decode(r.ids).rsplit('<|im_start|>assistant', 1)[-1]  # the final reply, as the row holds it
        closed = re.search(r'<answer>(.*?)</answer>', last, re.S)
        cut = re.search(r'<answer>(.*)', last, re.S)
        answer = (closed or cut).group(1).replace('<|im_end|>', '').strip() if (closed or cut) else ''
        e = qa[r.group]
        rows.append(dict(uid=r.group, question=e['query'], reference=e['reference_answer'], answer=answer,
                         closed=bool(closed), strict=strict(e['query'], e['reference_answer'], answer),
                         lenient=lenient(e['query'], e['reference_answer'], answer),
                         anls=round(anls(answer, e['reference_answer']), 3), answer_words=len(answer.split()),
                         reference_words=len(str(e['reference_answer']).split())))
    rng = random.Random(0)
    pick = lambda xs: rng.sample(xs, min(6, len(xs)))
    res['splits'][split] = dict(
        kept=len(rows), right_lenient=sum(x['lenient'] for x in rows), right_strict=sum(x['strict'] for x in rows),
        answer_unclosed=sum(not x['closed'] for x in rows),
        right_lenient_when_closed=sum(x['lenient'] for x in rows if x['closed']),
        answer_words_median=median([x['answer_words'] for x in rows]),
        reference_words_median=median([x['reference_words'] for x in rows]),
        examples_lenient_only=pick([x for x in rows if x['lenient'] and not x['strict']]),
        examples_unclosed=pick([x for x in rows if not x['closed']]))
    s = res['splits'][split]
    print(f"{split}: {s['kept']} kept right plays; lenient {s['right_lenient']}, strict {s['right_strict']}; "
          f"answer never closed {s['answer_unclosed']}; median words: answer {s['answer_words_median']}, reference "
          f"{s['reference_words_median']}")
Path(a.out).write_text(json.dumps(res, indent=1, ensure_ascii=False) + '\n')

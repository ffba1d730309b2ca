"""What each offline judge pays: the teacher's answers, the same answers cut to the words that hold the reference, and a
reply that pastes the last view's text (81's item 3: a judge that pays for the answer, not for quoting).

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/judge_length.py     # after cold_start.py has played its teacher

The plays are the cold start's demonstrations (`cold_start.py`, `demos.pt` in its work dir: the four-variant teacher's
right plays on the natural training and validation questions, 1,065 of them), decoded with SmolLM2's tokenizer. For each
play: its answer (the sentence of the page that holds the reference), that answer cut to the shortest run of its words
that holds the reference, and the text of the last view it was shown (a zoomed crop's lines, their boxes removed) given
as the answer. Each judge's share of each paid, for strict ANLS, containment at any length, and containment within k
words more than the reference (k = 0 to 10). Writes `results/judge_length.json`.
"""
import argparse, json, re, sys
from pathlib import Path
import numpy as np

RES = Path('benchmarks/results')


def last_view(text: str) -> str:
    "The last view's text as a reply would paste it: its lines without their boxes."
    views = [u for u in re.findall(r'<\|im_start\|>user\n(.*?)<\|im_end\|>', text, re.S) if u.startswith('[')]
    if not views: return ''
    return ' '.join(re.sub(r'^\[[\d,]+\] ', '', l) for l in views[-1].splitlines()[1:] if l.startswith('['))


def shortest_span(answer: str, reference: str, contains) -> str:
    "The shortest run of the answer's words that holds the reference (the answer itself when none does)."
    ws = answer.split()
    for n in range(1, len(ws) + 1):
        for i in range(len(ws) - n + 1):
            if contains(' '.join(ws[i:i + n]), reference): return ' '.join(ws[i:i + n])
    return answer


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--demos', default=str(Path.home()/'.cache/vrag_nb/learn_fits/cold/demos.pt'))
    ap.add_argument('--out', default=str(RES/'judge_length.json'))
    a = ap.parse_args()
    if not Path(a.demos).exists(): sys.exit(f'{a.demos} not found: run benchmarks/cold_start.py (its teacher) first')
    import torch
    from transformers import AutoTokenizer
    from vrag_nb.models import smollm2_dir
    from vrag_nb.eval.retrieval import load_qa
    from vrag_nb.eval.rewards import ANLSJudge, contains_reference
    tok = AutoTokenizer.from_pretrained(smollm2_dir())
    qa = {e['uid']: e for f in ('data/qa_train_natural.json', 'data/qa_val_natural.json') for e in load_qa(f)}
    plays = []
    for split, v in torch.load(a.demos, weights_only=False)['played'].items():
        for r in v['right']:
            text = tok.decode(r.ids)
            answer = (re.findall(r'<answer>(.*?)(?:</answer>|$)', text, re.S) or [''])[-1].strip()
            plays.append(dict(split=split, uid=r.group, reference=qa[r.group]['reference_answer'], answer=answer,
                              view=last_view(text)))
    for p in plays: p['span'] = shortest_span(p['answer'], p['reference'], contains_reference)
    words = lambda k: [len(p[k].split()) for p in plays]
    judges = {'strict ANLS >= 0.5': ANLSJudge(), 'contains, any length': ANLSJudge(contains=True),
              **{f'contains, within {k} more words': ANLSJudge(contains=True, max_extra_words=k) for k in range(11)}}
    paid = {name: {k: round(float(np.mean([j('', p['reference'], p[k]) for p in plays])), 3)
                   for k in ('answer', 'span', 'view')} for name, j in judges.items()}
    res = dict(command='OMP_NUM_THREADS=1 .venv/bin/python benchmarks/judge_length.py', plays=len(plays),
               words={k: dict(median=float(np.median(words(k))), p90=float(np.percentile(words(k), 90)))
                      for k in ('reference', 'answer', 'span', 'view')},
               paid=paid, examples=plays[:3])
    Path(a.out).write_text(json.dumps(res, indent=1) + '\n')
    print(json.dumps({k: v for k, v in res.items() if k != 'examples'}, indent=1))


if __name__ == '__main__': main()

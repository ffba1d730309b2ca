"""The natural training and validation questions (`data/qa_train_natural.json`, `data/qa_val_natural.json`) from the
two readers' files in `data/natural/` (`data/README.md`, "Natural questions"):

    .venv/bin/python tools/natural_questions.py blind WORK   # the questions without answers, for the second reader
    .venv/bin/python tools/natural_questions.py build        # the two sets from both readers' files (deterministic)

`written/DOC.jsonl` holds the first reader's questions (written from the page: query, reference_answer,
reference_page, evidence, kind, query_type, also_pages?); `answers/DOC.jsonl` the second reader's answers from the
reference page(s) alone (id, answer, ambiguous, note). A question is kept when the second reader found it unambiguous
and answered it as the first did (`agree`); `build` prints what it kept and dropped per document."""
import json, re, sys, unicodedata
from collections import Counter
from pathlib import Path
from vrag_nb.eval.rewards import anls

ROOT = Path(__file__).resolve().parent.parent
NAT = ROOT/'data'/'natural'
SPLITS = {'train': ROOT/'data'/'pdfs_train', 'val': ROOT/'data'/'pdfs_val'}
RESERVED = ("gnuplot", "booktabs", "siunitx")  # kept for an outside evaluation: in no training, tuning or
# validation set

def _norm(s: str) -> str:
    "Casefolded, NFKC, quotes and punctuation at the ends dropped, whitespace collapsed."
    s = unicodedata.normalize('NFKC', s).casefold()
    s = re.sub(r'[\u2018\u2019\u201c\u201d"\'`]', '', s)
    return ' '.join(s.split()).strip(' .,;:')

def _holds(long: list, short: list) -> bool:
    "Whether the word sequence `short` occurs in `long`, word for word."
    return any(long[i:i + len(short)] == short for i in range(len(long) - len(short) + 1))

def agree(reference: str, answer: str) -> bool:
    """The two readers agree: ANLS above 0 (a normalised Levenshtein distance under 0.5; `eval.rewards.anls`) after
    normalising, or one answer holds the other (as text of ≥ 2 characters, or word for word: `9` and `at most 9
    arguments`)."""
    r, a = _norm(reference), _norm(answer)
    if not r or not a: return False
    rw, aw = re.findall(r'\w+', r), re.findall(r'\w+', a)
    return (anls(a, r) > 0 or (min(len(r), len(a)) >= 2 and (r in a or a in r))
            or (bool(rw) and bool(aw) and (_holds(rw, aw) or _holds(aw, rw))))

# documents whose text layer splits words ("lo w er", "dott y"): their answers are checked by `broken`
SPLIT_TEXT = {'leftyguide'}
COMMON = {'a', 'an', 'as', 'at', 'be', 'by', 'if', 'in', 'is', 'it', 'no', 'of', 'on', 'or', 'to', 'up', 'we', 'i'}

def broken(answer: str) -> bool:
    """An answer copied from a page whose text layer splits words ('lo w er', 'dott y'): an alphabetic piece of one or
    two letters that is no common word, in an answer of several pieces. Such an answer teaches the split."""
    words = re.findall(r'[^\W\d_]+', answer)
    return len(answer.split()) > 1 and any(len(w) <= 2 and w.lower() not in COMMON for w in words)

def _docs():
    "{(split, stem): pdf path} over both splits."
    return {(s, p.stem): p for s, d in SPLITS.items() for p in sorted(d.glob('*.pdf'))}

def _written(stem):
    return [json.loads(l) for l in (NAT/'written'/f'{stem}.jsonl').read_text().splitlines() if l.strip()]

def blind(work: Path):
    "Write WORK/blind/DOC.jsonl: each question's id, text and page(s), nothing of its answer."
    (work/'blind').mkdir(parents=True, exist_ok=True)
    for _, stem in _docs():
        if not (NAT/'written'/f'{stem}.jsonl').exists(): continue
        rows = [{'id': f'{stem}-{i:03d}', 'query': r['query'], 'pages': r['reference_page']}
                for i, r in enumerate(_written(stem), 1)]
        (work/'blind'/f'{stem}.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in rows))

def build():
    "Both sets from the readers' files; prints kept and dropped per document."
    sets = {s: [] for s in SPLITS}
    print(f'{"document":28s} {"split":5s} {"written":>7s} {"kept":>5s} {"ambiguous":>9s} {"unanswered":>10s} '
          f'{"disagree":>8s} {"broken":>6s}')
    for (split, stem), pdf in _docs().items():
        if any(r in stem.lower() for r in RESERVED): raise SystemExit(f'{pdf}: a reserved manual')
        if not (NAT/'written'/f'{stem}.jsonl').exists(): continue
        answers = {}
        if (f := NAT/'answers'/f'{stem}.jsonl').exists():
            for l in f.read_text().splitlines():
                if l.strip(): a = json.loads(l); answers[a['id']] = a
        c = Counter()
        for i, r in enumerate(_written(stem), 1):
            a = answers.get(f'{stem}-{i:03d}')
            if a is None: c['unchecked'] += 1; continue
            if a.get('ambiguous'): c['ambiguous'] += 1; continue
            if not a.get('answer'): c['unanswered'] += 1; continue
            if not agree(r['reference_answer'], a['answer']): c['disagree'] += 1; continue
            if stem in SPLIT_TEXT and broken(r['reference_answer']): c['broken'] += 1; continue
            m = {'file_name': pdf.name, 'reference_page': r['reference_page'], 'source_type': 'manual',
                 'query_type': r['query_type'], 'evidence': r['evidence']}
            if r.get('also_pages'): m['also_pages'] = r['also_pages']
            m |= {'generator': 'reader', 'kind': r['kind'], 'split': split}
            sets[split].append({'query': r['query'], 'reference_answer': r['reference_answer'], 'meta_info': m})
            c['kept'] += 1
        n = len(_written(stem))
        print(f'{stem:28s} {split:5s} {n:7d} {c["kept"]:5d} {c["ambiguous"]:9d} {c["unanswered"]:10d} '
              f'{c["disagree"]:8d} {c["broken"]:6d}'
              + (f'  ({c["unchecked"]} not yet answered)' if c['unchecked'] else ''))
    for split, examples in sets.items():
        for k, e in enumerate(examples, 1): e['uid'] = f'nat-{split}-{k:04d}'
        examples = [{'uid': e.pop('uid'), **e} for e in examples]
        out = ROOT/'data'/f'qa_{split}_natural.json'
        out.write_text(json.dumps({'examples': examples}, indent=1, ensure_ascii=False) + '\n')
        kinds = Counter(e['meta_info']['kind'] for e in examples)
        print(f'{out.relative_to(ROOT)}: {len(examples)} questions over '
              f'{len({e["meta_info"]["file_name"] for e in examples})} documents; {dict(sorted(kinds.items()))}')

if __name__ == '__main__':
    if sys.argv[1:2] == ['blind']: blind(Path(sys.argv[2]))
    elif sys.argv[1:2] == ['build']: build()
    else: raise SystemExit(__doc__)

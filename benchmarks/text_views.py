"""Is the answer inside what the text policy reads? The teacher's page and crop views, rendered as the first text game
did and as the new one does (64_rl.codec).

    .venv/bin/python benchmarks/text_views.py                       # data/qa.json over data/pdfs, a few minutes
    .venv/bin/python benchmarks/text_views.py --qa data/qa_train.json --pdfs data/pdfs data/pdfs_dev

The teacher is the offline baseline of the learning benchmark (`OfflinePolicy`, crops on: it searches with the
question, crops the lines that best match it, then answers), played over the index of the training documents. For each
question its first page view and its first crop view are rendered two ways:
- `flat`: the first text game's view, the words inside the view run together and cut to 600 characters;
- `blocks`: the new view (`rl.codec.view_text`), every text block with its box in the view's pixels; a page's blocks cut
  to 40 characters each (its low resolution), a crop's in full; 1,000 characters in all.
Reported: how often the reference answer (normalised, as whole words: `eval.rewards.contains_reference`) is inside each
rendering, beside how often it is on the page at all and inside the crop's region at all (every word of it, no budget),
and the median characters of each rendering. Writes benchmarks/results/text_views.json.
"""
import argparse, json, tempfile, time
from pathlib import Path
import numpy as np
from vrag_nb.retrieval.corpus import build_corpus
from vrag_nb.retrieval.index import PageIndex
from vrag_nb.eval.retrieval import load_qa
from vrag_nb.eval.rewards import contains_reference
from vrag_nb.agent.loop import VRAGAgent
from vrag_nb.agent.views import View
from vrag_nb.agent.offline import OfflinePolicy
from vrag_nb.rl.codec import view_text

RENDER = {'flat': dict(layout='flat', max_chars=600), 'blocks': dict(layout='blocks', max_chars=1000, block_chars=40)}


def first_views(trajectory: dict) -> tuple:
    "The first whole-page view of a trajectory and the first crop view after it (None when there is none)."
    views = [View.from_dict(c['view']) for m in trajectory['messages'] if isinstance(m['content'], list)
             for c in m['content'] if c['type'] == 'image']
    page = next((v for v in views if tuple(v.region[:2]) == (0, 0)), None)
    same_page = lambda v: page is not None and (v.doc, v.page) == (page.doc, page.page) and v != page
    crop = next((v for v in views if same_page(v)), None)
    return page, crop


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--qa', nargs='+', default=['data/qa.json'])
    ap.add_argument('--pdfs', nargs='+', default=['data/pdfs'])
    ap.add_argument('--limit', type=int, help='only the first this many questions')
    ap.add_argument('--out', default='benchmarks/results/text_views.json')
    a = ap.parse_args()
    t0, work = time.time(), Path(tempfile.mkdtemp())
    build_corpus(sorted(p for d in a.pdfs for p in Path(d).glob('*.pdf')), work, progress=True)
    idx = PageIndex.build(work, progress=True)
    pages = {(p.doc, p.page): p for p in idx.pages}
    examples = [e for q in a.qa for e in load_qa(q)][:a.limit]
    teacher = OfflinePolicy(idx.pages, idx.embedder, answerer=None, crop=True)
    agent = VRAGAgent(idx, teacher, max_steps=3)
    counts = {k: 0 for k in ('questions', 'page_view', 'crop_view', 'on_page', 'in_crop_region')}
    hits = {f'{r}_{w}': 0 for r in RENDER for w in ('page', 'crop')}
    chars = {f'{r}_{w}': [] for r in RENDER for w in ('page', 'crop')}
    for e in examples:
        for _ in agent.run(e['query']): pass
        page_v, crop_v = first_views(agent.trajectory)
        ref, counts['questions'] = e['reference_answer'], counts['questions'] + 1
        if page_v is None: continue
        p = pages[(page_v.doc, page_v.page)]
        counts['page_view'] += 1
        counts['on_page'] += contains_reference(p.text, ref)
        for w, v in (('page', page_v), ('crop', crop_v)):
            if v is None: continue
            if w == 'crop':
                counts['crop_view'] += 1
                counts['in_crop_region'] += contains_reference(view_text(v, p, 10**7, layout='flat'), ref)
            for r, kw in RENDER.items():
                text = view_text(v, p, **kw)
                hits[f'{r}_{w}'] += contains_reference(text, ref); chars[f'{r}_{w}'].append(len(text))
    res = dict(
        questions=a.qa, documents=a.pdfs, teacher='OfflinePolicy(answerer=None, crop=True), max_steps=3',
        renderings=RENDER, counts=counts,
        answer_in_view={k: dict(n=v, of=counts['page_view' if k.endswith('page') else 'crop_view'],
                                rate=round(v / max(counts['page_view' if k.endswith('page') else 'crop_view'], 1), 3))
                        for k, v in hits.items()},
        median_chars={k: int(np.median(v)) if v else None for k, v in chars.items()},
        seconds=round(time.time() - t0, 1))
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=1) + '\n')
    print(json.dumps({k: res[k] for k in ('counts', 'answer_in_view', 'median_chars')}, indent=1))


if __name__ == '__main__': main()

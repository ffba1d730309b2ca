"""Does the offline baseline crop what the question asks about? Blocks against lines, on data/qa.json
(34_agent.offline, 54_eval.agents).

    .venv/bin/python benchmarks/offline_crops.py        # a few minutes on 2 CPU cores

The crop baseline (`OfflinePolicy`: search with the question, crop, answer with SmolLM2 from the crop) played over the
index of data/pdfs twice through `evaluate_agent`: cropping the best text block (`crop_by='blocks'`) and cropping the
lines that best match the question with a line around them (`crop_by='lines'`, the default). Reported per setting:
crop_hit (a crop shows the question's evidence string; the questions that have one), accuracy (the offline stand-in
judge), ANLS, NDCG, and the crop's area as a share of the page (mean and median over the first crop of each question: a
bigger crop holds the evidence more often and zooms less). Writes benchmarks/results/offline_crops.json.
"""
import argparse, json, tempfile, time
import numpy as np
from pathlib import Path
from vrag_nb.retrieval.corpus import build_corpus
from vrag_nb.retrieval.index import PageIndex
from vrag_nb.eval.retrieval import load_qa
from vrag_nb.eval.agents import evaluate_agent
from vrag_nb.agent.offline import OfflinePolicy, SmolLM2Answerer


def crop_areas(folder: Path) -> list[float]:
    "The first crop of each trajectory in `folder` as a share of its page's area."
    out = []
    for f in sorted(folder.glob('*.json')):
        crop = next((e for e in json.loads(f.read_text())['events'] if e['event'] == 'crop'), None)
        if crop:
            (x0, y0, x1, y1), (_, _, w, h) = crop['region'], crop['source']['region']
            out.append((x1 - x0) * (y1 - y0) / (w * h))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--qa', default='data/qa.json')
    ap.add_argument('--pdfs', default='data/pdfs')
    ap.add_argument('--out', default='benchmarks/results/offline_crops.json')
    a = ap.parse_args()
    t0, work = time.time(), Path(tempfile.mkdtemp())
    build_corpus(sorted(Path(a.pdfs).glob('*.pdf')), work/'index', progress=False)
    idx, qa, answerer = PageIndex.build(work/'index', progress=False), load_qa(a.qa), SmolLM2Answerer()
    res = {}
    for by in ('blocks', 'lines'):
        pol = OfflinePolicy(idx.pages, idx.embedder, answerer, crop_by=by)
        r = evaluate_agent(idx, qa, work/by, modes=['crop'], policy_for=lambda m: pol, policy_name=f'offline-{by}',
                           progress=False)
        s = r['modes']['crop']['all']
        res[by] = {k: round(s[k], 3) for k in ('n', 'crop_hit', 'accuracy', 'anls', 'ndcg')}
        areas = crop_areas(work/by/'trajectories'/'crop')
        res[by].update(
            crop_area_mean=round(float(np.mean(areas)), 3), crop_area_median=round(float(np.median(areas)), 3)
        )
        print(by, res[by], flush=True)
    out = dict(qa=a.qa, judge=r['judge'], crop=res, seconds=round(time.time() - t0),
               command='.venv/bin/python benchmarks/offline_crops.py')
    Path(a.out).write_text(json.dumps(out, indent=1))


if __name__ == '__main__': main()

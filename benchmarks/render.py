"""Rendering benchmark: `vrag_nb.retrieval.corpus.build_corpus` against pdf2image (poppler's pdftoppm) on the same PDFs,
at the same DPI and JPEG quality, both with the same number of processes. Median of N runs; pages/s and ratio.

    apt-get install poppler-utils && .venv/bin/pip install pdf2image
    .venv/bin/python benchmarks/render.py --runs 5 --out benchmarks/results/render.json

Two pdf2image baselines: the usual call (`convert_from_path` returns every page as a PIL image, held in memory, which
is then saved as JPEG — how VRAG's corpus step used it) and the faster form where pdftoppm writes the JPEG files
itself. Our side does more than either: it also extracts each page's text layer and text blocks (OCR is off here,
as no sample page lacks a text layer). The first run of ours in a process also starts the worker pool (~0.8 s).
The __main__ guard matters: rendering workers are spawned processes."""
import argparse, json, os, platform, shutil, statistics, tempfile, time
from pathlib import Path

def ours(pdfs, dpi, quality, workers):
    from vrag_nb.retrieval.corpus import build_corpus
    out = Path(tempfile.mkdtemp())
    t = time.perf_counter()
    rep = build_corpus(pdfs, out, dpi=dpi, quality=quality, ocr=False, progress=False, workers=workers)
    dt = time.perf_counter() - t
    shutil.rmtree(out)
    return dt, len(rep.pages)

def poppler(pdfs, dpi, quality, workers):
    from pdf2image import convert_from_path
    out, n = Path(tempfile.mkdtemp()), 0
    t = time.perf_counter()
    for pdf in pdfs:
        n += len(convert_from_path(pdf, dpi=dpi, fmt='jpeg', jpegopt={'quality': quality}, thread_count=workers,
                                   output_folder=out, paths_only=True, output_file=Path(pdf).stem))
    dt = time.perf_counter() - t
    shutil.rmtree(out)
    return dt, n

def poppler_in_memory(pdfs, dpi, quality, workers):
    "pdf2image as usually called (and as VRAG's corpus step used it): PIL images in memory, then each saved as JPEG."
    from pdf2image import convert_from_path
    out, n = Path(tempfile.mkdtemp()), 0
    t = time.perf_counter()
    for pdf in pdfs:
        for i, img in enumerate(convert_from_path(pdf, dpi=dpi, thread_count=workers), start=1):
            img.save(out/f'{Path(pdf).stem}_{i}.jpg', quality=quality); n += 1
    dt = time.perf_counter() - t
    shutil.rmtree(out)
    return dt, n

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--pdfs', default='data/pdfs'); ap.add_argument('--dpi', type=int, default=150)
    ap.add_argument('--quality', type=int, default=90); ap.add_argument('--workers', type=int, default=os.cpu_count())
    ap.add_argument('--runs', type=int, default=5); ap.add_argument('--out', default=None)
    a = ap.parse_args()
    pdfs = sorted(str(p) for p in Path(a.pdfs).glob('*.pdf'))
    res = {
        'pdfs': [Path(p).name for p in pdfs],
        'dpi': a.dpi,
        'quality': a.quality,
        'workers': a.workers,
        'runs': a.runs,
        'cpu_count': os.cpu_count(),
        'machine': platform.machine(),
    }
    for name, fn in [('vrag_nb (PyMuPDF + Pillow)', ours), ('pdf2image, in memory then JPEG', poppler_in_memory),
                     ('pdf2image, pdftoppm writes JPEG', poppler)]:
        times = []
        for _ in range(a.runs):
            dt, n = fn(pdfs, a.dpi, a.quality, a.workers); times.append(dt)
        med = statistics.median(times)
        res[name] = {
            'pages': n,
            'median_s': round(med, 3),
            'pages_per_s': round(n / med, 1),
            'runs_s': [round(t, 3) for t in times],
        }
        print(f'{name:30s} {n} pages  median {med:6.2f} s  {n / med:6.1f} pages/s', flush=True)
    ours_rate = res['vrag_nb (PyMuPDF + Pillow)']['pages_per_s']
    res['speedup'] = {k: round(ours_rate / v['pages_per_s'], 2) for k, v in res.items() if k.startswith('pdf2image')}
    print('speed-up:', res['speedup'])
    if a.out: Path(a.out).parent.mkdir(parents=True, exist_ok=True); Path(a.out).write_text(json.dumps(res, indent=1))

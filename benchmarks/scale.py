"""Scale benchmark: an index of many pages built with the static tier and `kind='auto'`, then served: build time, peak
memory, index size on disk, and search latency through `vrag_serve`.

    .venv/bin/python benchmarks/scale.py --pages 100000 --out benchmarks/results/scale_100k.json

The pages are the sample corpus's pages (data/pdfs, 406 pages) recycled under new names, so every page has real text for
the static embedder and BM25 to read; their images are the sample pages' images. Unlike the serving benchmark's
synthetic vectors, every passage here is really embedded, so the build time is what an ingest of this many pages costs
after the corpus step. The latency is measured as in benchmarks/serve.py (same client, same questions)."""
import argparse, asyncio, json, os, resource, shutil, statistics, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from serve import load, start

def recycled_corpus(out: Path, n_pages: int, pdfs: str) -> int:
    "A corpus dir of `n_pages` pages recycled from the sample PDFs; returns the sample's page count."
    from vrag_nb.retrieval.corpus import build_corpus, load_pages
    src_dir = out.parent/'sample'
    build_corpus(sorted(Path(pdfs).glob('*.pdf')), src_dir, progress=False)
    src = load_pages(src_dir)
    with open(out/'pages.jsonl', 'w') as f:
        for i in range(n_pages):
            p = src[i % len(src)]
            f.write(json.dumps({**p.to_dict(), 'doc': f'scale{i // 100:05d}', 'page': i % 100 + 1,
                                'image': str((src_dir/p.image).resolve())}) + '\n')
    return len(src)

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--pages', type=int, default=100_000)
    ap.add_argument('--embedder', default='static', choices=['static', 'minilm'])
    ap.add_argument('--pdfs', default='data/pdfs')
    ap.add_argument('--requests', type=int, default=400)
    ap.add_argument('--out')
    a = ap.parse_args()
    from vrag_nb.retrieval.index import PageIndex
    from vrag_nb.eval.retrieval import load_qa
    root = Path(tempfile.mkdtemp()); d = root/'index'; d.mkdir()
    sample = recycled_corpus(d, a.pages, a.pdfs)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    idx = PageIndex.build(d, embedder=a.embedder, kind='auto', progress=False)
    build_s = time.perf_counter() - t
    res = dict(
        pages=a.pages,
        sample_pages=sample,
        embedder=idx.meta['embedder'],
        kind=idx.meta['kind'],
        vectors=int(idx.index.ntotal),
        build_s=build_s,
        peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        rss_before_build_mb=rss0 / 1024,
        index_mb={f.name: f.stat().st_size / 2**20 for f in d.iterdir() if f.is_file() and f.name != 'pages.jsonl'},
        cpu_count=os.cpu_count(),
        requests_per_setting=a.requests,
    )
    print(json.dumps(res, indent=1), flush=True)
    del idx
    queries = [e['query'] for e in load_qa('data/qa.json')]
    p = start([str(Path(sys.executable).parent/'vrag_serve'), str(d), '--port', '8813'], 8813)
    try:
        res['vrag_serve'] = {f'c{c}': asyncio.run(load('http://127.0.0.1:8813/search', queries,
                                                       a.requests if c > 1 else a.requests // 4, c)) for c in (1, 16)}
        rss = (
            Path(f'/proc/{p.pid}/status').read_text().split('VmHWM:')[1].split()[0]
            if Path(f'/proc/{p.pid}/status').exists()
            else None
        )
        res['server_peak_rss_mb'] = int(rss) / 1024 if rss else None
    finally: p.terminate(); p.wait(30)
    for k, v in res['vrag_serve'].items():
        print(
            f'vrag_serve {k:4s} p50 {v["p50_ms"]:7.1f} ms  p99 {v["p99_ms"]:7.1f} ms  {v["throughput_rps"]:6.1f} req/s'
        )
    shutil.rmtree(root)
    if a.out: Path(a.out).write_text(json.dumps(res, indent=1) + '\n')

if __name__ == '__main__': main()

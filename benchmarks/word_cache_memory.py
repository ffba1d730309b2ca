"""The server's memory under queries of ever new words: `vrag_serve`'s resident memory after 10 and after 100 requests
whose words it has never seen, with the re-ranker on (its word cache keeps at most `rerank.WORD_CACHE` words) and off
(`--rerank 0`); issue 63's item 2.

    .venv/bin/python benchmarks/word_cache_memory.py --out benchmarks/results/word_cache_memory.json

Each request holds 64 queries of 120 characters made of fresh random words (lowercase, 4 to 10 letters, seeded), about
1,300 new words a request, top_k 3, against an index of the two sample papers. Resident memory (VmRSS) is read from
/proc after the first 10 requests and after 100, and the difference reported.
"""
import argparse, json, random, socket, string, subprocess, sys, tempfile, time
from pathlib import Path
import httpx


def rss_mb(pid: int) -> float:
    for line in Path(f'/proc/{pid}/status').read_text().splitlines():
        if line.startswith('VmRSS:'): return round(int(line.split()[1]) / 1024, 1)
    return float('nan')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--out', default='benchmarks/results/word_cache_memory.json')
    a = ap.parse_args()
    from vrag_nb.retrieval.index import index_pdfs
    from vrag_nb.retrieval.rerank import WORD_CACHE
    idx = index_pdfs([f'data/pdfs/{n}.pdf' for n in ('sample-sigconf', 'sample631')], dest=Path(tempfile.mkdtemp())/'i')
    rng = random.Random(0)
    word = lambda: ''.join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 10)))
    def query():
        q = ''
        while len(q) < 114: q += word() + ' '
        return q[:120].strip()
    res = dict(command='.venv/bin/python benchmarks/word_cache_memory.py ' + ' '.join(sys.argv[1:]),
               word_cache=WORD_CACHE, runs={})
    for name, extra in (('re-ranker on (default)', []), ('--rerank 0', ['--rerank', '0'])):
        with socket.socket() as s: s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]
        p = subprocess.Popen([str(Path(sys.executable).parent/'vrag_serve'), str(idx.path), '--port', str(port),
                              '--follow', '0', *extra], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            url = f'http://127.0.0.1:{port}'
            for _ in range(600):
                try:
                    if httpx.get(f'{url}/health', timeout=1).status_code == 200: break
                except httpx.HTTPError: time.sleep(0.1)
            got = {}
            with httpx.Client(timeout=120) as c:
                for k in range(1, 101):
                    body = {'queries': [query() for _ in range(64)], 'top_k': 3}
                    c.post(f'{url}/search', json=body).raise_for_status()
                    if k in (10, 100): got[k] = rss_mb(p.pid)
            res['runs'][name] = dict(rss_mb_after_10=got[10], rss_mb_after_100=got[100],
                                     growth_mb=round(got[100] - got[10], 1))
            print(name, json.dumps(res['runs'][name]), flush=True)
        finally: p.kill()
    Path(a.out).write_text(json.dumps(res, indent=1) + '\n')


if __name__ == '__main__': main()

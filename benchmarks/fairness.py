"""Fairness under a heavy client: 16 ordinary clients' search latency, alone and while one client sends the heaviest
legal requests back to back, against a server that takes whole requests first come first served (`fair=False`) and one
that takes a slice from each connection in turn (the default, `22_retrieval.server.Batcher`); issue 63's item 3.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/fairness.py --out benchmarks/results/fairness.json

The index: the two sample papers and R-intro (data/pdfs), hybrid search re-ranked, as `vrag_serve` serves it. Each
server runs in its own process (uvicorn, one worker) on loopback; the clients are threads of this process, each with its
own connection (httpx), each sending one question of data/qa.json at a time (top_k 3) for --seconds. The heavy client
sends the heaviest request the server allows, chosen by timing each candidate alone first: 64 queries of 125 characters
at top_k 10, or 4 queries of 2,000 characters at top_k 100 (`MAX_REQUEST_CHARS`, `MAX_REQUEST_RESULTS`). The FIFO server
gets the same heavy request, so the two differ only in how requests take turns. Writes per server and load the ordinary
clients' p50, p99 and count, the heavy client's requests, and the ratios loaded / unloaded (the goal: p50 within 2x, p99
within 3x), and the heavy request's time with nobody else asking (what taking turns costs a lone client). Several
--runs, each a fresh server; their medians are reported beside each run.
"""
import argparse, json, os, socket, subprocess, sys, tempfile, threading, time
from pathlib import Path
import httpx, numpy as np

SERVER = """
import sys, uvicorn
from vrag_nb.retrieval.index import PageIndex
from vrag_nb.retrieval.server import create_app
app = create_app(PageIndex.load(sys.argv[1]), fair=sys.argv[3] == '1', follow=0)
uvicorn.run(app, host='127.0.0.1', port=int(sys.argv[2]), log_level='warning')
"""


def free_port() -> int:
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); return s.getsockname()[1]


def start(index: Path, fair: bool):
    "A server process on a free port, once it answers /health."
    port = free_port()
    p = subprocess.Popen([sys.executable, '-c', SERVER, str(index), str(port), '1' if fair else '0'],
                         env=dict(os.environ, OMP_NUM_THREADS='1'), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    url = f'http://127.0.0.1:{port}'
    for _ in range(600):
        try:
            if httpx.get(f'{url}/health', timeout=1).status_code == 200: return p, url
        except httpx.HTTPError: time.sleep(0.1)
    p.kill(); raise SystemExit('the server did not start')


def clients(url: str, questions: list, seconds: float, heavy: dict | None, n: int = 16) -> dict:
    "n ordinary clients for `seconds`, and the heavy client sending `heavy` back to back (None: none)."
    stop, lat, done_heavy = time.time() + seconds, [], []
    def ordinary(k):
        with httpx.Client(timeout=120) as c:
            i = k
            while time.time() < stop:
                t = time.perf_counter()
                r = c.post(f'{url}/search', json={'queries': [questions[i % len(questions)]], 'top_k': 3})
                if r.status_code == 200: lat.append(time.perf_counter() - t)
                i += n
    def heavy_client():
        with httpx.Client(timeout=300) as c:
            while time.time() < stop:
                t = time.perf_counter(); r = c.post(f'{url}/search', json=heavy)
                if r.status_code != 200: raise SystemExit(f'the heavy request was refused: {r.text[:300]}')
                done_heavy.append(time.perf_counter() - t)
    ts = [threading.Thread(target=ordinary, args=(k,)) for k in range(n)]
    if heavy: ts.append(threading.Thread(target=heavy_client))
    for t in ts: t.start()
    for t in ts: t.join()
    ms = np.array(lat) * 1000
    pct = lambda q: round(float(np.percentile(ms, q)), 1)
    return dict(requests=len(ms), p50_ms=pct(50), p99_ms=pct(99), heavy_requests=len(done_heavy),
                heavy_p50_s=round(float(np.median(done_heavy)), 2) if done_heavy else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--seconds', type=float, default=20)
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--out', default='benchmarks/results/fairness.json')
    a = ap.parse_args()
    from vrag_nb.eval.retrieval import load_qa
    from vrag_nb.retrieval.index import index_pdfs
    from vrag_nb.retrieval.server import MAX_REQUEST_CHARS, MAX_REQUEST_RESULTS
    work = Path(tempfile.mkdtemp())
    idx = index_pdfs([f'data/pdfs/{n}.pdf' for n in ('sample-sigconf', 'sample631', 'R-intro')], dest=work/'index')
    questions = [e['query'] for e in load_qa('data/qa.json')]
    filler = ' '.join(questions * 3)  # real words, so BM25, the embedder and the re-ranker do real work
    cut = lambda n, chars: [filler[i * chars:(i + 1) * chars] for i in range(n)]
    candidates = {'64 queries of 125 characters, top_k 10': dict(queries=cut(64, 125), top_k=10),
                  '4 queries of 2,000 characters, top_k 100': dict(queries=cut(4, 2000), top_k=100)}
    for c in candidates.values():
        assert sum(map(len, c['queries'])) <= MAX_REQUEST_CHARS
        assert len(c['queries']) * c['top_k'] <= MAX_REQUEST_RESULTS
    res = dict(command='OMP_NUM_THREADS=1 .venv/bin/python benchmarks/fairness.py ' + ' '.join(sys.argv[1:]),
               machine=f'{os.cpu_count()}-core CPU', pages=len(idx.pages), seconds=a.seconds, candidates={}, runs=[])
    p, url = start(idx.path, True)
    try:
        for name, c in candidates.items():  # each alone, three times
            ts = []
            for _ in range(3):
                t = time.perf_counter(); httpx.post(f'{url}/search', json=c, timeout=300).raise_for_status()
                ts.append(time.perf_counter() - t)
            res['candidates'][name] = round(float(np.median(ts)), 3)
    finally: p.kill()
    heavy_name = max(res['candidates'], key=res['candidates'].get)
    res['heavy'] = heavy_name; heavy = candidates[heavy_name]
    print(json.dumps(res['candidates']), 'heavy:', heavy_name, flush=True)
    for run in range(a.runs):
        row = {}
        for fair in (False, True):
            p, url = start(idx.path, fair)
            try:
                name = 'taking turns' if fair else 'first come first served'
                lone = []  # the heavy request with nobody else asking: what taking turns costs a lone client
                for _ in range(3):
                    t = time.perf_counter(); httpx.post(f'{url}/search', json=heavy, timeout=300).raise_for_status()
                    lone.append(time.perf_counter() - t)
                alone, loaded = clients(url, questions, a.seconds, None), clients(url, questions, a.seconds, heavy)
                row[name] = dict(alone=alone, loaded=loaded, p50_ratio=round(loaded['p50_ms'] / alone['p50_ms'], 2),
                                 p99_ratio=round(loaded['p99_ms'] / alone['p99_ms'], 2),
                                 heavy_alone_s=round(float(np.median(lone)), 3))
                print(run, name, json.dumps(row[name]), flush=True)
            finally: p.kill()
        res['runs'].append(row)
    res['median'] = {name: {k: float(np.median([r[name][k] for r in res['runs']]))
                            for k in ('p50_ratio', 'p99_ratio', 'heavy_alone_s')} for name in res['runs'][0]}
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=1) + '\n')
    print(json.dumps(res['median']))


if __name__ == '__main__': main()

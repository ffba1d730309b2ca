"""Fairness under a heavy client: 16 ordinary clients' search latency, alone and while one client sends the heaviest
legal requests back to back, against a server that takes whole requests first come first served (`fair=False`) and one
where clients take turns by the search time they cost (the default, `22_retrieval.server.Batcher`); issues 63 and 80.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/fairness.py --out benchmarks/results/fairness.json

The index: the two sample papers and R-intro (data/pdfs), hybrid search re-ranked, as `vrag_serve` serves it. Each
server runs in its own process (uvicorn, one worker) on loopback; the clients are threads of this process, each with its
own connection (httpx) and its own loopback address (127.0.0.10 to 127.0.0.25: a client is an address), each sending one
question of data/qa.json at a time (top_k 3) for --seconds. The heavy client, from 127.0.0.2, sends the heaviest request
the server allows, chosen by timing each candidate alone first: 64 queries of 125 characters at top_k 10, or 4 queries
of 2,000 characters at top_k 100 (`MAX_REQUEST_CHARS`, `MAX_REQUEST_RESULTS`), in three loads: `known words` (the same
request each time, words of the questions), `fresh words` (the same shape, of random words never seen before, new in
every request: the re-ranker's word cache misses every time) and `fresh words, 8 connections` (that client sends them
over 8 connections at once). The FIFO server gets the same heavy requests, so the two differ only in how requests take
turns. Writes per server and load the ordinary clients' p50, p99 and count, the heavy client's requests, and the ratios
loaded / alone (the goal: p50 within 2x, p99 within 3x), and the heavy request's time with nobody else asking (what
taking turns costs a lone client). Several --runs, each a fresh server per load; their medians are reported beside each
run.
"""
import argparse, json, os, random, socket, string, subprocess, sys, tempfile, threading, time
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


def fresh(request: dict, rng: random.Random) -> dict:
    "The same shape of request (queries of the same lengths, the same top_k) in random words never seen before."
    def words(n):
        out = ''
        while len(out) < n: out += ''.join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 10))) + ' '
        return out[:n]
    return dict(request, queries=[words(len(q)) for q in request['queries']])


def clients(url: str, questions: list, seconds: float, heavy: dict | None, n: int = 16, fresh_words: bool = False,
            connections: int = 1) -> dict:
    """n ordinary clients for `seconds`, each from its own address, and the heavy client sending `heavy` back to back
    from 127.0.0.2 (None: none), over `connections` connections, in fresh random words when `fresh_words`."""
    stop, lat, done_heavy = time.time() + seconds, [], []
    def ordinary(k):
        with httpx.Client(timeout=120, transport=httpx.HTTPTransport(local_address=f'127.0.0.{10 + k}')) as c:
            i = k
            while time.time() < stop:
                t = time.perf_counter()
                r = c.post(f'{url}/search', json={'queries': [questions[i % len(questions)]], 'top_k': 3})
                if r.status_code == 200: lat.append(time.perf_counter() - t)
                i += n
    def heavy_client(k):
        rng = random.Random(k)
        with httpx.Client(timeout=300, transport=httpx.HTTPTransport(local_address='127.0.0.2')) as c:
            while time.time() < stop:
                t = time.perf_counter(); r = c.post(f'{url}/search', json=fresh(heavy, rng) if fresh_words else heavy)
                if r.status_code != 200: raise SystemExit(f'the heavy request was refused: {r.text[:300]}')
                done_heavy.append(time.perf_counter() - t)
    ts = [threading.Thread(target=ordinary, args=(k,)) for k in range(n)]
    if heavy: ts += [threading.Thread(target=heavy_client, args=(k,)) for k in range(connections)]
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
        for name, c in candidates.items():  # each alone, three times, in the questions' words and in fresh ones
            res['candidates'][name] = {}
            for words in ('known words', 'fresh words'):
                ts = []
                for k in range(3):
                    req = fresh(c, random.Random(200 + k)) if words == 'fresh words' else c
                    t = time.perf_counter(); httpx.post(f'{url}/search', json=req, timeout=300).raise_for_status()
                    ts.append(time.perf_counter() - t)
                res['candidates'][name][words] = round(float(np.median(ts)), 3)
    finally: p.kill()
    heaviest = {w: max(res['candidates'], key=lambda n: res['candidates'][n][w])
                for w in ('known words', 'fresh words')}
    res['heavy'] = heaviest
    print(json.dumps(res['candidates']), 'heavy:', heaviest, flush=True)
    loads = {'known words': dict(), 'fresh words': dict(fresh_words=True),
             'fresh words, 8 connections': dict(fresh_words=True, connections=8)}
    for run in range(a.runs):
        row = {}
        for fair in (False, True):
            name = 'taking turns' if fair else 'first come first served'
            row[name] = {}
            for load, kw in loads.items():
                heavy = candidates[heaviest['fresh words' if kw.get('fresh_words') else 'known words']]
                p, url = start(idx.path, fair)
                try:
                    lone = []  # the heavy request with nobody else asking: what taking turns costs a lone client
                    for k in range(3):
                        req = fresh(heavy, random.Random(100 + k)) if kw.get('fresh_words') else heavy
                        t = time.perf_counter(); httpx.post(f'{url}/search', json=req, timeout=300).raise_for_status()
                        lone.append(time.perf_counter() - t)
                    alone = clients(url, questions, a.seconds, None)
                    loaded = clients(url, questions, a.seconds, heavy, **kw)
                    row[name][load] = dict(alone=alone, loaded=loaded,
                                           p50_ratio=round(loaded['p50_ms'] / alone['p50_ms'], 2),
                                           p99_ratio=round(loaded['p99_ms'] / alone['p99_ms'], 2),
                                           heavy_alone_s=round(float(np.median(lone)), 3))
                    print(run, name, load, json.dumps(row[name][load]), flush=True)
                finally: p.kill()
        res['runs'].append(row)
    res['median'] = {name: {load: {k: float(np.median([r[name][load][k] for r in res['runs']]))
                                   for k in ('p50_ratio', 'p99_ratio', 'heavy_alone_s')} for load in loads}
                     for name in res['runs'][0]}
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=1) + '\n')
    print(json.dumps(res['median']))


if __name__ == '__main__': main()

"""An idle flood from one address: how many of an ordinary client's searches are answered while another address keeps
as many idle connections open as it can, reopening each the moment the server closes it (issue 63's item 8).

    .venv/bin/python benchmarks/flood.py --out benchmarks/results/flood.json

`vrag_serve` runs with a descriptor limit of 1,024 (`ulimit -n 1024`) and its default limits (`--limit_concurrency 256`,
a request head within 10 s), over an index of the two sample papers, once with its default cap on connections from one
address (three quarters of --limit_concurrency) and once without one (`--per_address 100000`, as before the cap).
The flood comes from 127.0.0.2 and holds up to --flood connections that send nothing; the ordinary client, from
127.0.0.1, sends one search every 0.5 s for --seconds, each on a new connection with a 5 s timeout. Writes, per server,
the searches answered (200), refused (503) and failed (no answer in time), and the flood's connections opened.
"""
import argparse, json, os, resource, selectors, socket, subprocess, sys, tempfile, threading, time
from pathlib import Path
import httpx

def free_port() -> int:
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); return s.getsockname()[1]


def serve(index: Path, port: int, extra: list):
    "vrag_serve under a descriptor limit of 1,024, once it answers /health."
    limit = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))
    cmd = [str(Path(sys.executable).parent/'vrag_serve'), str(index), '--port', str(port), '--follow', '0', *extra]
    p = subprocess.Popen(cmd, preexec_fn=limit, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        try:
            if httpx.get(f'http://127.0.0.1:{port}/health', timeout=1).status_code == 200: return p
        except httpx.HTTPError: time.sleep(0.1)
    p.kill(); raise SystemExit('vrag_serve did not start')


def flood(port: int, n: int, stop: threading.Event, opened: list):
    "Keep up to n idle connections open from 127.0.0.2, reopening each as soon as the server closes it."
    sel = selectors.DefaultSelector()
    def open_one():
        try:
            s = socket.socket(); s.bind(('127.0.0.2', 0)); s.setblocking(False)
            s.connect_ex(('127.0.0.1', port)); sel.register(s, selectors.EVENT_READ); opened[0] += 1
        except OSError: pass
    for _ in range(n): open_one()
    while not stop.is_set():
        for key, _ in sel.select(timeout=0.1):
            s = key.fileobj
            try: data = s.recv(4096)
            except OSError: data = b''
            if not data:
                sel.unregister(s); s.close(); open_one()
    for key in list(sel.get_map().values()): key.fileobj.close()


def ordinary(port: int, seconds: float) -> dict:
    "One search every 0.5 s from 127.0.0.1, each on a new connection: how many were answered, refused, failed."
    got = dict(answered=0, refused=0, failed=0)
    stop = time.time() + seconds
    while time.time() < stop:
        t = time.time()
        try:
            with httpx.Client(timeout=5, transport=httpx.HTTPTransport(local_address='127.0.0.1')) as c:
                r = c.post(f'http://127.0.0.1:{port}/search', json={'queries': ['distance of M4'], 'top_k': 3})
            got['answered' if r.status_code == 200 else 'refused'] += 1
        except httpx.HTTPError: got['failed'] += 1
        time.sleep(max(0.0, 0.5 - (time.time() - t)))
    n = sum(got.values())
    return dict(got, searches=n, answered_share=round(got['answered'] / max(n, 1), 3))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--seconds', type=float, default=40)
    ap.add_argument('--flood', type=int, default=2000, help='idle connections the flood keeps open (at most)')
    ap.add_argument('--out', default='benchmarks/results/flood.json')
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this process holds the flood's sockets
    from vrag_nb.retrieval.index import index_pdfs
    idx = index_pdfs([f'data/pdfs/{n}.pdf' for n in ('sample-sigconf', 'sample631')], dest=Path(tempfile.mkdtemp())/'i')
    res = dict(command='.venv/bin/python benchmarks/flood.py ' + ' '.join(sys.argv[1:]),
               machine=f'{os.cpu_count()}-core CPU', server_descriptors=1024, flood=a.flood, seconds=a.seconds, runs={})
    for name, extra in (('cap per address (default)', []), ('no cap per address', ['--per_address', '100000'])):
        port = free_port(); p = serve(idx.path, port, extra)
        stop, opened = threading.Event(), [0]
        try:
            alone = ordinary(port, 5)
            t = threading.Thread(target=flood, args=(port, a.flood, stop, opened)); t.start(); time.sleep(2)
            res['runs'][name] = dict(alone=alone, flooded=ordinary(port, a.seconds), flood_connections_opened=opened[0])
        finally:
            stop.set(); t.join(); p.kill()
        print(name, json.dumps(res['runs'][name]), flush=True)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=1) + '\n')


if __name__ == '__main__': main()

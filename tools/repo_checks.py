"""Repository checks that `make test` runs beside the notebooks: citations of the reference notes point to sections that exist.

`python tools/repo_checks.py` prints one line per check and exits non-zero when one fails.
"""
import json, re, sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent

def texts():
    "(path, text) of every file that may cite the reference notes: notebooks (cell sources), the library, README, benchmarks, tools."
    for p in sorted(root.glob('nbs/*.ipynb')):
        yield p, '\n'.join(''.join(c['source']) for c in json.loads(p.read_text())['cells'])
    for pattern in ('vrag_nb/**/*.py', 'benchmarks/*.py', 'tools/*.py', 'README.md', 'nbs/*.md'):
        for p in sorted(root.glob(pattern)):
            if p.name != Path(__file__).name: yield p, p.read_text()

def citation_problems() -> list[str]:
    "Citations `reference.md §N` whose section N is not a `## §N` heading of nbs/reference.md, and any citation of the old name."
    sections = set(re.findall(r'^## §(\d+)\b', (root/'nbs'/'reference.md').read_text(), re.M))
    problems = []
    for p, text in texts():
        for m in re.finditer(r'reference\.md\s*§\s*(\d+)', text):
            if m[1] not in sections: problems.append(f'{p.relative_to(root)}: {m[0]!r} cites no section of nbs/reference.md')
        if 'REFERENCE' + '.md' in text: problems.append(f'{p.relative_to(root)}: cites REFERENCE' + '.md, which is not in the repository (use reference.md)')
    return problems

if __name__ == '__main__':
    problems = citation_problems()
    for line in problems: print('  ' + line)
    print(f"citations of nbs/reference.md: {'FAILED' if problems else 'ok'}")
    sys.exit(1 if problems else 0)

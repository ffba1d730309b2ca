"""Render nbs/index.ipynb to README.md with nbconvert (quarto, which `nbdev_readme` needs, is not installable
from PyPI here). `--check` only compares and exits 1 when README.md is stale."""
import sys
from pathlib import Path
root = Path(__file__).resolve().parent.parent

def setting(key: str) -> str:
    "A value of settings.ini."
    import configparser
    c = configparser.ConfigParser(); c.read(root/'settings.ini'); return c['DEFAULT'][key]

def repo() -> str:
    "owner/name of the GitHub repository (settings.ini's git_url)."
    return setting('git_url').rstrip('/').removeprefix('https://github.com/')

def render() -> str:
    import nbformat
    from nbconvert import MarkdownExporter
    nb = nbformat.read(root/'nbs'/'index.ipynb', as_version=4)
    nb.cells = [c for c in nb.cells if not c.source.lstrip().startswith(('#| hide', '#|hide'))]
    for c in nb.cells:  # drop nbdev directives from code shown in the README
        if c.cell_type == 'code': c.source = '\n'.join(l for l in c.source.splitlines() if not l.startswith('#|'))
    body, _ = MarkdownExporter().from_notebook_node(nb)
    # images beside the notebook (nbs/images/) by absolute URL, so that they show on GitHub and on PyPI alike
    body = body.replace('](images/', f'](https://raw.githubusercontent.com/{repo()}/{setting("branch")}/nbs/images/')
    note = ('<!-- generated from nbs/index.ipynb by `make readme` (tools/readme.py); edit the notebook, not this file '
            '-->\n\n')
    return note + body.strip() + '\n'

if __name__ == '__main__':
    text, readme = render(), root/'README.md'
    if '--check' in sys.argv:
        ok = readme.exists() and readme.read_text() == text
        if not ok: print('README.md differs from nbs/index.ipynb: run `make readme`')
        sys.exit(0 if ok else 1)
    readme.write_text(text); print('wrote README.md')

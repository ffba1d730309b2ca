"""Browser test for the widgets: JupyterLab (headless, 127.0.0.1) + Debian's chromium driven by Playwright.

Copies nbs/36_agent.widgets.ipynb to a scratch dir, opens it in JupyterLab, runs all cells, then on the crop widget
drags the box to a new place and presses "Zoom into the crop". Prints one JSON line with what the page showed at each
stage; saves screenshots under --artifacts: the crop widget after the drag and after the zoom, the playground and the
trajectory viewer as their cells left them, and the whole JupyterLab window. With --images DIR it also writes small
copies of the three widget screenshots there (`make notebooks` keeps them in nbs/images/ for the notebook to show).
Exit status 0 when the run itself worked (the notebook cell that calls this checks the values). Needs
/usr/bin/chromium (apt-get install chromium) and the dev install (playwright)."""
import argparse, json, os, shutil, socket, subprocess, sys, tempfile, time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
JS_STATE = """() => {
  const out = document.querySelector('svg.svelte-n5k047').closest('.jp-OutputArea-output');  // the first crop widget
  const code = out.querySelector('code.vrag-bbox');
  const imgs = out.querySelectorAll('img');
  return {bbox: code ? code.textContent : null, canvas_src: imgs[0].src.slice(-64), preview_src: imgs[1].src,
          message: out.querySelector('.widget-html-content i') ?
                   out.querySelector('.widget-html-content i').textContent : null};
}"""

def free_port():
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); return s.getsockname()[1]

def small_copies(art: Path, dest: Path) -> list[str]:
    """The widget screenshots at most 720 pixels wide, in 64 colours (a screenshot of flat widgets keeps its look), as
    PNGs in `dest`."""
    from PIL import Image
    dest.mkdir(parents=True, exist_ok=True); out = []
    for src, name in [
        ('crop_widget_moved.png', 'crop_widget.png'),
        ('playground.png', 'playground.png'),
        ('trajectory_viewer.png', 'trajectory_viewer.png'),
    ]:
        im = Image.open(art / src).convert('RGB')
        im.thumbnail((720, 10_000))
        im.quantize(64, method=Image.Quantize.MEDIANCUT).save(dest / name, optimize=True)
        out.append(str(dest / name))
    return out

def settled(page, quiet: float = 3.0, timeout: float = 60.0) -> dict:
    "The crop widget's state (`JS_STATE`) once it has not changed for `quiet` seconds (at most `timeout` seconds)."
    last, since, t0 = None, time.monotonic(), time.monotonic()
    while time.monotonic() - t0 < timeout:
        state = page.evaluate(JS_STATE)
        if state != last: last, since = state, time.monotonic()
        elif time.monotonic() - since >= quiet: break
        time.sleep(0.2)
    return last

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--artifacts', default=str(REPO/'test_artifacts'))
    ap.add_argument('--chromium', default='/usr/bin/chromium')
    ap.add_argument('--timeout', type=float, default=240, help='seconds for the notebook to run in the browser')
    ap.add_argument(
        '--images',
        default=None,
        help='also write small PNGs of the widgets in use here (crop_widget, playground, trajectory_viewer)',
    )
    a = ap.parse_args()
    import httpx
    from playwright.sync_api import sync_playwright
    art = Path(a.artifacts); art.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix='vrag_nb_browser_'))
    (work / 'nbs').mkdir()
    shutil.copy(REPO / 'nbs' / '36_agent.widgets.ipynb', work / 'nbs')
    os.symlink(REPO / 'data', work / 'data')
    port, token = free_port(), 'vrag-nb-test'
    # the notebook's own browser-test cell skips itself; Jupyter's config, data, runtime and workspace state are
    # fresh, so nothing a person's earlier JupyterLab session left behind (open tabs, dialogs) gets in the way
    env = {**os.environ, 'VRAG_NB_IN_BROWSER_TEST': '1', 'JUPYTER_CONFIG_DIR': str(work/'.jupyter'),
           'JUPYTER_RUNTIME_DIR': str(work/'.runtime'), 'JUPYTERLAB_WORKSPACES_DIR': str(work/'.workspaces'),
           'JUPYTERLAB_SETTINGS_DIR': str(work/'.settings')}
    news = work/'.settings'/'@jupyterlab'/'apputils-extension'; news.mkdir(parents=True)
    # no pop-up over the widgets
    (news/'notification.jupyterlab-settings').write_text(json.dumps({'fetchNews': 'false', 'checkForUpdates': False}))
    log = open(art/'jupyterlab.log', 'w')
    lab = subprocess.Popen(
        [
            str(Path(sys.executable).parent / 'jupyter'),
            'lab',
            '--no-browser',
            '--allow-root',
            '--ip=127.0.0.1',
            f'--port={port}',
            f'--IdentityProvider.token={token}',
            f'--ServerApp.root_dir={work}',
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    res = {}
    try:
        for _ in range(600):
            try:
                if httpx.get(f'http://127.0.0.1:{port}/api/status', params={'token': token}).status_code == 200: break
            except httpx.TransportError: pass
            time.sleep(0.1)
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=a.chromium,
                args=[
                    '--no-sandbox',
                    '--disable-gpu',
                    '--disable-background-networking',
                    '--disable-component-update',
                    '--no-first-run',
                ],
            )
            page = browser.new_page(viewport={'width': 1400, 'height': 1600})
            page.goto(f'http://127.0.0.1:{port}/lab/tree/nbs/36_agent.widgets.ipynb?token={token}')
            page.wait_for_selector('.jp-NotebookPanel .jp-Cell', timeout=60_000)
            page.wait_for_selector('.jp-Toolbar-kernelName:has-text("Python 3")', timeout=60_000)  # the kernel is up
            started = (
                "() => Array.from(document.querySelectorAll('.jp-InputPrompt')).some(e => /[*0-9]/.test(e.textContent))"
            )
            for attempt in range(3):  # a click that lands while the kernel is still connecting can be lost: try again
                page.get_by_role('menuitem', name='Run', exact=True).click()
                page.get_by_text('Run All Cells', exact=True).click()
                try: page.wait_for_function(started, timeout=30_000); break
                except Exception: page.keyboard.press('Escape')
            try: page.wait_for_selector('code.vrag-bbox', timeout=a.timeout * 1000)
            except Exception:
                page.screenshot(path=str(art/'failure.png'))
                page.keyboard.press('Control+s'); time.sleep(2)
                nb = httpx.get(
                    f'http://127.0.0.1:{port}/api/contents/nbs/36_agent.widgets.ipynb', params={'token': token}
                ).json()['content']
                errs = [o for c in nb['cells'] for o in c.get('outputs', []) if o.get('output_type') == 'error']
                prompts = page.evaluate(
                    "() => Array.from(document.querySelectorAll('.jp-InputPrompt')).map(e => e.textContent)"
                )
                raise RuntimeError(
                    f'the crop widget never appeared; prompts {prompts}; errors '
                    f'{[(e["ename"], e["evalue"]) for e in errs]}'
                )
            page.wait_for_function(
                "() => { const p = Array.from(document.querySelectorAll('.jp-InputPrompt')).map(e => e.textContent);"
                " return p.length && !p.some(t => t.includes('*')) && p.filter(t => /\\d/.test(t)).length > 5; }",
                timeout=a.timeout * 1000,
            )  # every cell has run
            # the crop widget's output
            out = page.locator('.jp-OutputArea-output', has=page.locator('svg.svelte-n5k047')).first
            out.scroll_into_view_if_needed()
            res['initial'] = page.evaluate(JS_STATE)
            svg = out.locator('svg').first
            scale = svg.bounding_box()['width'] / float(svg.get_attribute('width'))  # screen pixels per image pixel
            res['scale'] = scale
            # drag the drawn box (x 40..240, y 60..160 in image pixels) by (+100, +200) image pixels, from its middle.
            # The page can still move (JupyterLab renders the cells above late, and the scroll follows): a drag from
            # a place measured earlier once grabbed the box's top edge and resized it. Playwright's hover waits until
            # the box is visible, stays put and is what the pointer would hit, and puts the pointer on its middle.
            box = out.locator('svg rect.movable').first
            box.hover()
            bb = box.bounding_box()
            res['svg_box'] = svg.bounding_box()
            x, y = bb['x'] + bb['width'] / 2, bb['y'] + bb['height'] / 2
            page.mouse.down()
            for i in range(1, 11): page.mouse.move(x + 10 * i * scale, y + 20 * i * scale)
            page.mouse.up()
            res['svg_box_after'] = svg.bounding_box()  # differs from svg_box if the page moved during the drag
            page.wait_for_function(
                "s => { const c = document.querySelector('code.vrag-bbox'); return c && c.textContent !== s; }",
                arg=res['initial']['bbox'],
                timeout=30_000,
            )
            # the widget syncs every step of the drag to the kernel, which answers each in turn: wait for the last
            res['moved'] = settled(page)
            out.screenshot(path=str(art/'crop_widget_moved.png'))
            out.get_by_role('button', name='Zoom into the crop').click()
            page.wait_for_function(
                "s => { const o = document.querySelector('svg.svelte-n5k047').closest('.jp-OutputArea-output');"
                " return o.querySelector('img').src.slice(-64) !== s; }",
                arg=res['moved']['canvas_src'],
                timeout=30_000,
            )
            res['zoomed'] = settled(page)
            out.screenshot(path=str(art/'crop_widget_zoomed.png'))
            for name, inside in [
                ('playground', page.get_by_role('button', name='Save trajectory')),
                ('trajectory_viewer', page.locator('.widget-slider')),
            ]:
                o = page.locator('.jp-OutputArea-output', has=inside).first
                o.scroll_into_view_if_needed()
                time.sleep(0.5)
                o.screenshot(path=str(art / f'{name}.png'))
            page.screenshot(path=str(art/'jupyterlab.png'))
            browser.close()
    finally:
        lab.terminate(); lab.wait(30); log.close()
        shutil.rmtree(work, ignore_errors=True)
    res['artifacts'] = sorted(str(p) for p in art.glob('*.png'))
    if a.images: res['images'] = small_copies(art, Path(a.images))
    print(json.dumps(res))

if __name__ == '__main__': main()

"""Open an HTML file in headless Debian chromium (Playwright), evaluate JavaScript in it, save a screenshot.

    python tools/html_browser_check.py PAGE.html --js "() => ({nodes: nodes.length})" --screenshot shot.png
    python tools/html_browser_check.py PAGE.html --js "..." --screenshot shot.png \\
        --hover "() => network.canvasToDOM(network.getPositions(['a']).a)"

Prints the JSON value of the expression (after the page has loaded and settled). With --hover, the mouse rests on
the point ({x, y}, page pixels) the second expression returns before the screenshot, so that a tooltip shows, and
--after is evaluated then (where the tooltip is, say). Used
by notebook tests that check generated HTML (e.g. the memory graph's pyvis view) through the page's own data; no
network is needed."""
import argparse, json, time
from pathlib import Path

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('page'); ap.add_argument('--js', required=True); ap.add_argument('--screenshot')
    ap.add_argument('--hover', help='JavaScript returning {x, y}: where the mouse rests for the screenshot')
    ap.add_argument('--after', help='JavaScript evaluated after the hover (where the tooltip is, say)')
    ap.add_argument('--viewport', default='1100x800', help='the window and the screenshot, WIDTHxHEIGHT pixels')
    ap.add_argument('--wait', type=float, default=1.0, help='seconds to let the page settle (layout, physics)')
    ap.add_argument('--chromium', default='/usr/bin/chromium')
    a = ap.parse_args()
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=a.chromium,
            args=[
                '--no-sandbox',
                '--disable-gpu',
                '--disable-background-networking',
                '--disable-component-update',
                '--no-first-run',
            ],
        )
        w, h = map(int, a.viewport.split('x'))
        page = b.new_page(viewport={'width': w, 'height': h})
        errors = []
        page.on('pageerror', lambda e: errors.append(str(e)))
        page.goto(Path(a.page).resolve().as_uri()); page.wait_for_load_state('load'); time.sleep(a.wait)
        value = page.evaluate(a.js)
        if a.hover:
            at = page.evaluate(a.hover)
            page.mouse.move(at['x'], at['y']); time.sleep(1.0)  # a tooltip opens after a delay
        after = page.evaluate(a.after) if a.after else None
        if a.screenshot: page.screenshot(path=a.screenshot)
        b.close()
    print(json.dumps({'value': value, 'after': after, 'page_errors': errors}))

if __name__ == '__main__': main()

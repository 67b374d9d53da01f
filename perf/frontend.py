"""The page (BENCHMARKS.md, "The page"): time to the first chart painted and to everything drawn, a 4,320-point chart
while zooming and panning, and the gzipped size of everything the page ships.

  1. The page under the production WSGI server (gunicorn, 3 workers, as `make run`) on the 45-day demo store, opened
     in headless Chromium (Debian's, driven by Playwright) in a fresh browser context each time (empty HTTP cache).
     The page marks `awrlens:first-chart` when Chart.js has drawn the first chart with data, and
     `awrlens:first-chart-painted` on the next animation frame; both are milliseconds since navigation start.
     The first opening meets a cold server (no answer cached); the others reuse the server's answer cache, as a
     second visitor would.
  2. RACPROD's redo per second for each instance over 45 days, every point (4,320), on one chart: the time Chart.js
     takes to redraw it for each step of a zoom and a pan (what a drag does on every mouse move).
  3. gzip -6 of the page as served (index.html, rendered from templates/index.html with its settings) and of every
     JS and CSS file it loads as served (its links and scripts: static/vendor, static/awrlens.js, static/css...).
Usage: .venv/bin/python perf/frontend.py [--store var/awrlens.sqlite] [--runs 7]
"""

import gzip
import os
import re
import shutil
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perf import harness

CHROMIUM_ARGS = [  # the browser tests launch Chromium with these too (tests/chromium.py)
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
RAC = "demo.3120466125"
PAGES = {
    "overview, ORCL, last week (the page's default)": "/",
    "overview, RACPROD, each instance, last week": f"/?db={RAC}&inst=each&view=overview&range=7d",
    "overview, RACPROD, last 45 days": f"/?db={RAC}&view=overview&range=45d",
    "top activity, RACPROD, last day (issue 13)": f"/?db={RAC}&view=activity&range=1d",
}
MARKS = """() => Object.fromEntries(performance.getEntriesByType('mark').map(m => [m.name, m.startTime]))"""
SETTLED = "window.AWRLens && AWRLens.App && AWRLens.App.settled()"

# Redraw the chart for each step of a zoom (the window shrinks around its middle) and of a pan, as a drag does:
# scale bounds changed, then chart.update('none') -- the zoom plugin's own path. Returns milliseconds per redraw.
FRAMES = """() => {
  const chart = Chart.getChart(document.querySelector('[data-chart=explorer] canvas'));
  const x = chart.scales.x, lo = x.min, hi = x.max, times = [];
  const points = chart.data.datasets.reduce((n, d) => n + d.points.length, 0);
  const redraw = (a, b) => {
    chart.options.scales.x.min = a; chart.options.scales.x.max = b;
    const t = performance.now(); chart.update('none'); times.push(performance.now() - t);
  };
  for (let i = 0; i <= 40; i++) {            // zoom in to a tenth, step by step
    const w = (hi - lo) * (1 - 0.9 * i / 40), mid = (lo + hi) / 2; redraw(mid - w / 2, mid + w / 2);
  }
  const w = (hi - lo) / 2;
  for (let i = 0; i <= 40; i++) {            // pan a half-width window across the whole range
    const a = lo + (hi - lo - w) * i / 40; redraw(a, a + w);
  }
  times.sort((a, b) => a - b);
  return {points, frames: times.length, median_ms: times[times.length >> 1],
          p95_ms: times[Math.floor(times.length * 0.95)],
          max_ms: times[times.length - 1]};
}"""


def chromium():
    path = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(path):
        sys.exit("Debian's chromium is needed: apt-get install -y chromium (make perf installs it)")
    return path


def first_chart(browser, base, path, runs):
    out = []
    for _ in range(runs):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(base + path)
        page.wait_for_function(SETTLED, timeout=60000)
        marks = page.evaluate(MARKS)
        settled = page.evaluate("performance.now()")
        out.append(
            {
                "first_chart_ms": marks["awrlens:first-chart"],
                "painted_ms": marks["awrlens:first-chart-painted"],
                "boot_ms": marks["awrlens:boot"],
                "settled_ms": settled,
            }
        )
        context.close()
    warm = out[1:] or out
    return {
        "cold": {k: round(v) for k, v in out[0].items()},
        "warm_median": {k: round(statistics.median(r[k] for r in warm)) for k in out[0]},
        "warm_max": {k: round(max(r[k] for r in warm)) for k in out[0]},
        "runs": len(out),
    }


def big_chart(browser, base):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    # every point: the page's settings with maxPoints 0 (the API's "no downsampling"), changed as the page sets them
    page.add_init_script("""let set; Object.defineProperty(window, "AWRLENS_CONFIG", { configurable: true,
      get: () => set, set: value => { set = Object.assign(value, { maxPoints: 0 }); } });""")
    page.goto(f"{base}/?db={RAC}&inst=each&view=explorer&range=45d&series=sysstat:redo+size")
    page.wait_for_function(SETTLED, timeout=60000)
    result = page.evaluate(FRAMES)
    context.close()
    return {k: round(v, 2) if isinstance(v, float) else v for k, v in result.items()}


def sizes(port: int):
    """Bytes and gzip -6 bytes of the page and of every file its links and scripts load, as served."""

    def size(body):
        return {"bytes": len(body), "gzip": len(gzip.compress(body, compresslevel=6, mtime=0))}

    def served(path):
        status, body = harness.get(port, f"/{path}")
        assert status == 200, (path, status)
        return body

    html = served("")
    refs = sorted(set(re.findall(r'<(?:script|link)\b[^>]*\b(?:src|href)="(static/[^"]+)"', html.decode())))
    rows = {"index.html": size(html), **{ref: size(served(ref)) for ref in refs}}
    vendor = [v for k, v in rows.items() if k.startswith("static/vendor/")]
    own = [v for k, v in rows.items() if not k.startswith("static/vendor/")]
    total = lambda vs, key: sum(v[key] for v in vs)  # noqa: E731
    return {
        "files": rows,
        "vendor": {"bytes": total(vendor, "bytes"), "gzip": total(vendor, "gzip")},
        "own": {"bytes": total(own, "bytes"), "gzip": total(own, "gzip")},
        "all": {"bytes": total(rows.values(), "bytes"), "gzip": total(rows.values(), "gzip")},
    }


def main():
    parser = harness.options(__doc__)
    parser.add_argument("--runs", type=int, default=7, help="openings of each page: one cold, the others cached")
    args = harness.parse(parser, quick={"runs": 2})
    if not (harness.ROOT / "static/vendor/vendor.min.js").exists():
        sys.exit("static/vendor/ is not built: npm ci && npm run vendor (make perf does it)")
    from playwright.sync_api import sync_playwright

    results = {}
    env = harness.server_env(args.store)
    with harness.serving(harness.gunicorn(workers=3), env, "/api/v1/") as (port, _), sync_playwright() as pw:
        results["sizes"] = sizes(port)
        browser = pw.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)
        results["chromium"] = browser.version
        base = f"http://127.0.0.1:{port}"
        results["first_chart"] = {name: first_chart(browser, base, path, args.runs) for name, path in PAGES.items()}
        results["big_chart"] = big_chart(browser, base)
        browser.close()
    print(
        harness.table(
            ["page", "cold: first chart / everything", f"cached (median of {args.runs - 1}): first chart / everything"],
            [
                [
                    name,
                    f"{r['cold']['painted_ms']} / {r['cold']['settled_ms']} ms",
                    f"{r['warm_median']['painted_ms']} / {r['warm_median']['settled_ms']} ms",
                ]
                for name, r in results["first_chart"].items()
            ],
        )
    )
    b, s = results["big_chart"], results["sizes"]
    print(f"{b['points']} points: redraw per zoom/pan step median {b['median_ms']} ms, p95 {b['p95_ms']} ms")
    print(
        f"gzip -6: vendor {s['vendor']['gzip']:,} B, own {s['own']['gzip']:,} B, all {s['all']['gzip']:,} B "
        f"({s['all']['bytes']:,} B raw) in {len(s['files'])} requests"
    )
    harness.write("frontend", results, args)


if __name__ == "__main__":
    main()

"""The JupyterLite site (``jupyterlite/build.py``): its size, and its cold start in Debian's Chromium.

Run: ``.venv/bin/python benchmarks/jupyterlite_site.py [--rounds 3] [--smoke]``

Prints the site's size (all of it, and Pyodide's part), then per round, in a fresh browser context (nothing
cached): seconds from opening the REPL to the first cell's answer (Pyodide and the kernel loaded), seconds for
``import gatewaykit`` there, and for the first chunk and the whole of a streamed chat from an offline gateway
on loopback. Medians over the rounds. ``--smoke``: the sizes only (no browser), and only if the site is built.
The site is served from a thread on 127.0.0.1 (``tests/jupyterlite/lite_site.py``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests" / "jupyterlite")]

from lite_site import CHROMIUM_ARGS, SITE, LiteRepl, StaticSite, site_folder  # noqa: E402

STREAM = '''t0 = time.monotonic(); first = None
stream = await client.chat.completions.create(model="chat-mini", stream=True,
    messages=[{"role": "user", "content": "Tell me a story about a fox"}])
async for chunk in stream:
    first = first or time.monotonic() - t0
print(json.dumps([first, time.monotonic() - t0]))'''


def _megabytes(folder: Path) -> float:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()) / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="sizes only, no browser")
    args = parser.parse_args()
    if args.smoke and not (SITE / "static" / "pyodide").exists():
        print("site not built (python jupyterlite/build.py): nothing to measure in --smoke")
        return 0
    folder = site_folder()
    wheels = list((folder / "static" / "pyodide").glob("*.whl"))
    print(f"site: {_megabytes(folder):.1f} MB; Pyodide and its {len(wheels)} wheels: "
          f"{_megabytes(folder / 'static' / 'pyodide'):.1f} MB")
    if args.smoke:
        return 0
    import gatewaykit as gk
    from playwright.sync_api import sync_playwright

    site = StaticSite(folder)
    figures: dict[str, list[float]] = {"cold start": [], "import gatewaykit": [], "first chunk": [], "whole stream": []}
    with gk.emulator.start(time_scale=1.0, cors_origins=[site.origin]) as gateway, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
        for _ in range(args.rounds):
            repl = LiteRepl(browser, site.origin)
            figures["cold start"].append(repl.cold_start)
            started = time.monotonic()
            repl.run("import json\nimport gatewaykit as gk")
            figures["import gatewaykit"].append(time.monotonic() - started)
            repl.run(f'client = gk.AsyncClient(base_url="{gateway.base_url}", api_key="{gateway.api_key}")')
            first, whole = json.loads(repl.run(STREAM).strip().splitlines()[-1])
            figures["first chunk"].append(first)
            figures["whole stream"].append(whole)
            repl.close()
        browser.close()
    site.stop()
    for name, values in figures.items():
        print(f"{name:>17}: median {statistics.median(values):.2f} s over {len(values)} rounds "
              f"({', '.join(f'{v:.2f}' for v in values)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

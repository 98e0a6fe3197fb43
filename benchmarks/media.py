"""Timings of the synthetic media library (images, video, songs).

Run: ``PYTHONPATH=src python benchmarks/media.py [--smoke]``. Prints the best of a few runs
for each case so numbers are comparable between machines and changes.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from gatewaykit.emulator.media import draw_image, render_song, render_video

LYRICS = "\n".join(
    ["[Intro]", "[Verse]"] + ["walking down the empty road tonight"] * 6
    + ["[Chorus]"] + ["we are alive we are alive"] * 4 + ["[Bridge]", "hold on", "[Outro]"]
)


def best_of(runs: int, action: Callable[[], object]) -> tuple[float, object]:
    """Fastest wall time in seconds over ``runs`` calls, and the last result."""
    best, result = float("inf"), None
    for _ in range(runs):
        start = time.perf_counter()
        result = action()
        best = min(best, time.perf_counter() - start)
    return best, result


def smoke_cases() -> list[tuple[str, int, Callable[[], object]]]:
    """One small case of each kind: the same code paths in a few seconds."""
    return [
        ("image 256x256 png", 1, lambda: draw_image("a red sunset", seed=1, width=256, height=256, fmt="png")),
        ("video 1 s 320x240 + audio", 1,
         lambda: render_video("a red sunset", seed=1, seconds=1, width=320, height=240, audio=True)),
        ("song 5 s", 1, lambda: render_song("upbeat dance with drums", LYRICS, seed=1, seconds=5)),
    ]


def main() -> None:
    """Print one line per benchmark case."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a few seconds with tiny counts: checks the script still runs (tests/test_benchmarks_smoke.py); no figures to keep")
    if parser.parse_args().smoke:
        for name, runs, action in smoke_cases():
            seconds, result = best_of(runs, action)
            size = len(result[0] if isinstance(result, tuple) else result)  # type: ignore[arg-type]
            assert size > 0, name
            print(f"{name:36s} {seconds * 1000:8.0f} ms  {size / 1024:9.0f} KiB")
        return
    cases: list[tuple[str, int, Callable[[], object]]] = [
        (f"image 1024x1024 {fmt}", 5,
         lambda fmt=fmt: draw_image("a red sunset over the ocean", seed=1, width=1024, height=1024, fmt=fmt))
        for fmt in ("png", "jpeg", "webp")
    ]
    cases += [
        ("image 4096x4096 png", 1, lambda: draw_image("mountains", seed=1, width=4096, height=4096)),
        ("video 5 s 1280x720", 2,
         lambda: render_video("a red sunset over the ocean", seed=1, seconds=5, width=1280, height=720)),
        ("video 5 s 1280x720 + audio", 2,
         lambda: render_video("a red sunset over the ocean", seed=1, seconds=5, width=1280, height=720, audio=True)),
        ("video 5 s 1280x720 from image", 2,
         lambda: render_video("x", seed=1, seconds=5, width=1280, height=720,
                              reference=draw_image("forest", seed=1, width=1024, height=768, fmt="jpeg"))),
        ("video 15 s 1920x1080 + audio", 1,
         lambda: render_video("neon city", seed=1, seconds=15, width=1920, height=1080, audio=True)),
        ("song 60 s 44.1 kHz 128 kbps", 3,
         lambda: render_song("upbeat dance with drums", LYRICS, seed=1, seconds=60)),
        ("song from lyrics (natural length)", 3,
         lambda: render_song("slow sad piano ballad", LYRICS, seed=1)),
    ]
    for name, runs, action in cases:
        seconds, result = best_of(runs, action)
        size = len(result[0] if isinstance(result, tuple) else result)  # type: ignore[arg-type]
        print(f"{name:36s} {seconds * 1000:8.0f} ms  {size / 1024:9.0f} KiB")


if __name__ == "__main__":
    main()

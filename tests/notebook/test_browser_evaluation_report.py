"""``ev.to_html(path)`` opened from its file in headless Chromium: it shows its pictures and repeats and makes
no network request (the shared ``chromium`` of the browser tests)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import gatewaykit as gk

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_report_opens_with_its_media_and_sends_no_request(tmp_path: Path, chromium: Any) -> None:
    """Every picture decodes, a cell's repeats open on click, and no request leaves the page (0 counted)."""
    with gk.emulator.start(time_scale=0, seed=1) as gateway:
        with gk.Client(base_url=gateway.base_url, api_key=gateway.api_key, ledger=gk.Ledger(path=None),
                       display=False) as client:  # fmt: skip
            run = {"models": ["image-pixels"], "width": 256, "height": 256, "repeats": 2,
                   "scorers": [gk.expect.max_latency(60)]}  # fmt: skip
            baseline = client.evaluate(["a red fox", "a lighthouse at dusk"], **run)
            ev = client.evaluate(["a red fox", "a lighthouse at dusk"], **run)
    path = ev.to_html(tmp_path / "report.html", baseline=baseline)
    context = chromium.new_context()
    requests: list[str] = []
    try:
        page = context.new_page()
        page.on("request", lambda request: requests.append(request.url))
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
        pictures = page.evaluate("[...document.images].map(img => img.complete && img.naturalWidth > 0)")
        page.locator("details.gk-eval-repeats summary").first.click()
        opened = page.locator("details.gk-eval-repeats[open] .gk-eval-repeat").count()
    finally:
        context.close()
    assert len(pictures) == 6 and all(pictures)
    assert opened == 2
    assert [url for url in requests if url != path.as_uri()] == []

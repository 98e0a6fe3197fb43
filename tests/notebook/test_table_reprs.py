"""Reprs as tables: model ids that never wrap, parameter maps and specs, BatchResult with previews."""

from __future__ import annotations

from typing import Any

import pytest
from bs4 import BeautifulSoup

import gatewaykit as gk
import gatewaykit.notebook  # noqa: F401  (registers the renderer)

_CATALOG = {
    "id": "image-pixels-extra-long-name",
    "output_modalities": ["image"],
    "parameters": {
        "width": {"type": "range", "min": 256, "max": 2048, "step": 16, "default": 1024},
        "output_format": {"type": "enum", "values": ["png", "jpeg"], "default": "png"},
    },
}


def _html(obj: Any) -> BeautifulSoup:
    return BeautifulSoup(obj._repr_mimebundle_()["text/html"], "html.parser")


def test_model_id_cells_do_not_wrap() -> None:
    """The id cell of a catalog table is white-space:nowrap."""
    model = gk.Model.model_validate(_CATALOG)
    first_cell = _html(gk.ModelList(data=[model])).find("td")
    assert first_cell.get_text() == model.id and "white-space:nowrap" in first_cell["style"]


def test_parameter_map_renders_as_a_table() -> None:
    """model.parameters displays one row per parameter: name, type, values, default."""
    parameters = gk.Model.model_validate(_CATALOG).parameters
    table = _html(parameters).find("table")
    rows = [[td.get_text() for td in tr.find_all("td")] for tr in table.tbody.find_all("tr")]
    assert rows == [
        ["output_format", "enum", "png, jpeg", "png"],
        ["width", "range", "256 to 2048, step 16", "1024"],
    ]
    plain = parameters._repr_mimebundle_()["text/plain"].splitlines()
    assert plain[0].split() == ["parameter", "type", "values", "default"] and plain[2].startswith("width")


def test_parameter_map_is_still_a_dict() -> None:
    """The displayed map is a dict of ParameterSpec and serialises as before."""
    model = gk.Model.model_validate(_CATALOG)
    assert isinstance(model.parameters, dict) and model.parameters["width"].default == 1024
    assert model.to_dict()["parameters"]["width"]["max"] == 2048


def test_parameter_spec_renders_as_a_table() -> None:
    """A single ParameterSpec shows type, values and default as table rows."""
    spec = gk.Model.model_validate(_CATALOG).parameters["output_format"]
    cells = {tr.th.get_text(): tr.td.get_text() for tr in _html(spec).find_all("tr")}
    assert cells == {"type": "enum", "values": "png, jpeg", "default": "png"}


@pytest.fixture
def batch(emulator: Any, keys: Any) -> Any:
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=gk.Ledger(path=None)) as client:
        yield client.batch(
            [
                lambda: client.chat.completions.create(
                    model="chat-mini", messages=[{"role": "user", "content": "hello"}]
                ),
                lambda: client.images.generate(model="image-pixels", prompt="a cat", width=256, height=256),
                lambda: client.images.generate(model="no-such-model", prompt="a cat"),
                lambda: client.videos.create(model="video-range", prompt="waves"),
            ]
        )


def test_batch_result_shows_status_and_preview(batch: Any) -> None:
    """Each result is a row: index, ok or the error class, and a short preview."""
    rows = [[td.get_text() for td in tr.find_all("td")] for tr in _html(batch).find("tbody").find_all("tr")]
    assert [row[:2] for row in rows] == [["0", "ok"], ["1", "ok"], ["2", "ModelNotFoundError"], ["3", "ok"]]
    first_line = batch[0].content.strip().splitlines()[0].lstrip("#").strip()  # a heading reads as text
    assert rows[0][2] == (first_line if len(first_line) <= 80 else first_line[:79].rstrip() + "…")
    assert rows[1][2] == "1 image 256×256"
    assert rows[3][2] == f"{batch[3].id} {batch[3].status}"
    assert "no-such-model" in rows[2][2]


def test_batch_preview_escapes_model_output() -> None:
    """A result whose text is markup is shown as text, never as elements."""
    answer = gk.ChatCompletion.model_validate(
        {
            "id": "c",
            "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "<img src=x onerror=alert(1)>hi"}}],
        }
    )
    soup = _html(gk.BatchResult([answer]))
    assert soup.find("img") is None and soup.find("tbody").find_all("td")[2].get_text().startswith("<img")


def test_batch_result_text_lists_results() -> None:
    """text/plain lists each result with its status; one result reads "1 result"."""
    plain = gk.BatchResult([ValueError("bad input")])._repr_mimebundle_()["text/plain"]
    assert plain.splitlines() == ["BatchResult: 1 result, 1 failed", "  [0] ValueError: bad input"]

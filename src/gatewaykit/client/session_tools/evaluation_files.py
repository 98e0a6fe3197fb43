"""``ev.save(folder)``: the evaluation as ``evaluation.csv`` and ``evaluation.json`` beside its media files.

``evaluation.json`` is what ``gk.Evaluation.load(folder)`` reads
(:mod:`gatewaykit.client.session_tools.evaluation_loading`).

The CSV is ``ev.to_pandas()``. Every text cell that a spreadsheet would read
as a formula (starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return) is written with a leading ``'``, so a model's answer (or a prompt)
opened in Excel or LibreOffice cannot run anything. Media: each image, video
or song of a cell under the name its ``output`` column gives
(``<case>-<model>[-r<repeat>][-<n>].<ext>``, made of safe characters only).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from gatewaykit.client.session_tools.evaluation_loading import evaluation_record
from gatewaykit.costs.csv_cells import safe_cell

__all__ = ["media_names", "save_evaluation"]

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def _stem(cell: Any) -> str:
    parts = [cell.case_id, cell.model] + ([f"r{cell.repeat + 1}"] if cell.repeat else [])
    return "-".join(_UNSAFE_NAME.sub("_", str(part)).strip("._") or "x" for part in parts)


def media_names(cell: Any) -> list[str]:
    """The file names of a finished media cell (images by their real format, jobs as .mp4/.mp3)."""
    if cell.kind == "image":
        from gatewaykit.types.images import image_extension

        data = list(getattr(cell.result, "data", None) or [])
        names = []
        for index, item in enumerate(data):
            try:
                extension = image_extension(item.content)
            except ValueError:
                extension = "png"
            suffix = f"-{index + 1}" if len(data) > 1 else ""
            names.append(f"{_stem(cell)}{suffix}.{extension}")
        return names
    return [f"{_stem(cell)}.{'mp4' if cell.kind == 'video' else 'mp3'}"]


def _write_media(cell: Any, folder: Path) -> None:
    if cell.kind == "image":
        for item, name in zip(cell.result.data, media_names(cell)):
            try:
                (folder / name).write_bytes(item.content)
            except ValueError:
                continue  # no inline data: the CSV still names it
        return
    saved = cell.result.save(folder / media_names(cell)[0])
    if hasattr(saved, "__await__"):  # an AsyncClient's job: its download is a coroutine this cannot run
        saved.close()
        raise TypeError("save() cannot download an AsyncClient's video or music: call `await job.save(path)` for each")


def save_evaluation(evaluation: Any, folder: Path) -> Path:
    """Write ``evaluation.csv`` and the media into ``folder`` (made if missing); the CSV's path."""
    folder.mkdir(parents=True, exist_ok=True)
    frame = evaluation.to_pandas()
    for column in frame.columns:
        if not (frame[column].dtype.kind in "biufc"):  # text columns (object or pandas' string dtype)
            frame[column] = frame[column].map(safe_cell).astype(object)  # the ledger's and the gallery's rule
    for cell in evaluation.cells:
        if cell.ok and cell.kind != "chat":
            _write_media(cell, folder)
    path = folder / "evaluation.csv"
    frame.to_csv(path, index=False)
    record = evaluation_record(evaluation)
    text = json.dumps(record, ensure_ascii=False, indent=1, default=str)
    (folder / "evaluation.json").write_text(text, encoding="utf-8")
    return path

"""``gk.gallery(kind=None, tag=None)``: every image, video and song this session made, with what made it.

A :class:`Gallery` is a snapshot of :data:`~gatewaykit.client.resources.session_media.session_media`
filtered by kind and ledger tag: thumbnails and players with prompt, model,
parameters, cost and time in a notebook (click a thumbnail to enlarge), a
table in a terminal, ``.to_pandas()``, and ``.save(folder)`` writing the media
with a ``gallery.csv`` of prompts and costs. Media is fetched once per item.
"""

from __future__ import annotations

import csv
import datetime
import json
import re
from pathlib import Path
from typing import Any, Optional, Union

from gatewaykit.client.resources.session_media import MadeItem, session_media
from gatewaykit.costs.csv_cells import safe_cell
from gatewaykit.optional_packages import needs
from gatewaykit.presentation import rich_bundle

__all__ = ["Gallery", "gallery"]

KINDS = ("image", "video", "music")
_SUFFIX = {"video/mp4": ".mp4", "audio/mpeg": ".mp3"}


def _suffix(item: MadeItem) -> str:
    content_type = item.content_type
    if content_type in _SUFFIX:
        return _SUFFIX[content_type]
    return "." + content_type.split("/")[-1].replace("jpeg", "jpg")


def _file_stem(position: int, item: MadeItem) -> str:
    model = re.sub(r"[^A-Za-z0-9_.\-]", "_", item.model or "model")[:60]
    return f"{position:03d}-{item.kind}-{model}"


class Gallery:
    """This session's media, oldest first: ``.items`` (:class:`MadeItem`), ``.to_pandas()``, ``.save(folder)``."""

    def __init__(self, items: list[MadeItem], kind: Optional[str] = None, tag: Optional[str] = None) -> None:
        self.items = items
        self.kind = kind
        self.tag = tag

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Any:
        return iter(self.items)

    def __getitem__(self, index: int) -> MadeItem:
        return self.items[index]

    def _refresh_pending(self) -> None:
        for item in self.items:
            if item.kind != "image" and not item.ready and getattr(item.result, "status", None) not in ("failed", "cancelled"):
                try:
                    item.result.refresh()
                except Exception:  # noqa: BLE001 - a gallery shows what it can
                    pass

    def rows(self) -> list[dict[str, Any]]:
        """One dict per item: kind, model, prompt, params (JSON), total_cost, cost_source, time, status, job id."""
        out = []
        for item in self.items:
            cost, source = item.cost()
            out.append(
                {
                    "kind": item.kind,
                    "model": item.model,
                    "prompt": item.prompt,
                    "params": json.dumps(item.params, sort_keys=True, default=str),
                    "total_cost": cost,
                    "cost_source": source,
                    "time": datetime.datetime.fromtimestamp(item.created).isoformat(timespec="seconds"),
                    "status": "completed" if item.kind == "image" else getattr(item.result, "status", None),
                    "job_id": item.job_id,
                    "tags": ",".join(item.tags),
                }
            )
        return out

    def to_pandas(self) -> Any:
        """One row per item (imports pandas)."""
        pd = needs("pandas", "Gallery.to_pandas()", "the gallery's display and .save(folder)")

        columns = ["kind", "model", "prompt", "params", "total_cost", "cost_source", "time", "status", "job_id", "tags"]
        return pd.DataFrame(self.rows(), columns=columns)

    def save(self, folder: Union[str, Path]) -> Path:
        """Write every finished item's media into ``folder`` and ``gallery.csv`` (with a ``file`` column).

        Text a spreadsheet would run as a formula (a prompt starting with ``=``...) gets a leading ``'``.
        """
        target = Path(folder)
        target.mkdir(parents=True, exist_ok=True)
        self._refresh_pending()
        rows = self.rows()
        for position, (item, row) in enumerate(zip(self.items, rows), start=1):
            row["file"] = ""
            if not item.ready:
                continue
            name = _file_stem(position, item) + _suffix(item)
            (target / name).write_bytes(item.media())
            row["file"] = name
        with open(target / "gallery.csv", "w", newline="", encoding="utf-8") as handle:
            columns = [name for name in (rows[0] if rows else {"kind": None}) if name != "file"]
            writer = csv.DictWriter(handle, fieldnames=["file", *columns])
            writer.writeheader()
            writer.writerows({key: safe_cell(row.get(key)) for key in writer.fieldnames} for row in rows)
        return target

    def __repr__(self) -> str:
        return f"Gallery({self.summary() or 'empty'})"

    def summary(self) -> str:
        """What it holds in words: ``"3 images, 1 song"`` (empty when nothing)."""
        counts = {kind: sum(1 for item in self.items if item.kind == kind) for kind in KINDS}
        return ", ".join(f"{n} {kind if kind != 'music' else 'song'}{'s' if n != 1 else ''}"
                         for kind, n in counts.items() if n)

    def __str__(self) -> str:
        from gatewaykit.money import format_usd

        if not self.items:
            return "Gallery: nothing made yet in this session" + (f" (kind={self.kind!r})" if self.kind else "")
        lines = [repr(self)]
        for position, row in enumerate(self.rows(), start=1):
            cost = format_usd(row["total_cost"]) if row["total_cost"] is not None else "not reported"
            if row["cost_source"] == "estimated" and row["total_cost"] is not None:
                cost = f"≈ {cost} est."
            prompt = " ".join(row["prompt"].split())
            prompt = prompt if len(prompt) <= 60 else prompt[:59] + "…"
            lines.append(f"  {position:>3}. {row['kind']:<5} {row['model'] or '':<14} {cost:<14} {prompt}")
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        self._refresh_pending()
        return rich_bundle(self, str(self))


def gallery(kind: Optional[str] = None, tag: Optional[str] = None) -> Gallery:
    """This session's images, videos and songs (``kind="image"|"video"|"music"``; ``tag=`` a ledger tag)."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"gallery(kind=...) is one of {', '.join(map(repr, KINDS))} or None, not {kind!r}")
    if tag is not None and (not isinstance(tag, str) or not tag):
        raise ValueError(f"gallery(tag=...) is a ledger tag (a non-empty string), not {tag!r}")
    items = [
        item
        for item in session_media.items()
        if (kind is None or item.kind == kind) and (tag is None or tag in item.tags)
    ]
    return Gallery(items, kind=kind, tag=tag)

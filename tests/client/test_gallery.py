"""gk.gallery(): every image, video and song this session made, against the offline gateway."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any, Iterator

import pytest

import gatewaykit as gk
from gateway_accounts import ACME_KEY
from gatewaykit.client.resources.session_media import session_media

LYRICS = "[Verse]\nLights on the water\n[Chorus]\nWe sing till dawn"


@pytest.fixture(autouse=True)
def _fresh_session_media() -> Iterator[None]:
    session_media.clear()
    yield
    session_media.clear()


@pytest.fixture
def client(booked_client: gk.Client) -> gk.Client:
    return booked_client


def _quiet(job: Any) -> None:
    pass


def test_every_image_of_a_result_is_an_item_with_its_prompt(client: gk.Client) -> None:
    """n=2 gives two items, each with the prompt, model and parameters."""
    client.images.generate(model="image-pixels", prompt="a lighthouse at dusk", n=2, width=256, height=256)
    shown = gk.gallery()
    assert len(shown) == 2
    assert {item.prompt for item in shown} == {"a lighthouse at dusk"}
    assert shown[0].params["width"] == 256 and shown[0].model == "image-pixels"
    assert shown[0].media() != shown[1].media()


def test_jobs_appear_with_their_media_once_completed(client: gk.Client) -> None:
    """A finished video and song are items whose media is the job's content."""
    video = client.videos.create(model="video-range", prompt="waves at sunrise", duration=2).wait(on_update=_quiet)
    client.music.create(model="music-song", prompt="synth pop", lyrics_prompt=LYRICS).wait(on_update=_quiet)
    shown = gk.gallery()
    assert [item.kind for item in shown] == ["video", "music"]
    assert shown[0].media() == video.content()
    assert shown[1].media()[:3] == b"ID3" or shown[1].media()[:2] in (b"\xff\xfb", b"\xff\xf3")


def test_kind_and_tag_filter_the_items(client: gk.Client, book: gk.Ledger) -> None:
    """kind= keeps one kind; tag= keeps what was made inside ledger.tag(...)."""
    with book.tag("lesson"):
        client.images.generate(model="image-aspect", prompt="a red balloon")
    client.music.create(model="music-song", prompt="synth pop", lyrics_prompt=LYRICS)
    assert [item.kind for item in gk.gallery(kind="image")] == ["image"]
    assert [item.prompt for item in gk.gallery(tag="lesson")] == ["a red balloon"]
    assert len(gk.gallery(kind="video")) == 0


def test_a_bad_kind_is_a_clear_error() -> None:
    """kind='images' names the allowed kinds."""
    with pytest.raises(ValueError, match="'image', 'video', 'music'"):
        gk.gallery(kind="images")


def test_an_image_costs_its_share_of_the_reported_total(client: gk.Client) -> None:
    """Each image of an n=2 result costs half of usage.cost.total_cost, labelled reported."""
    result = client.images.generate(model="image-pixels", prompt="two kites", n=2, width=256, height=256)
    costs = [item.cost() for item in gk.gallery()]
    assert costs == [(pytest.approx(result.usage.cost.total_cost / 2), "reported")] * 2


def test_save_writes_the_media_and_a_csv_of_prompts_and_costs(client: gk.Client, tmp_path: Path) -> None:
    """save(folder) writes one file per finished item and gallery.csv naming them."""
    client.images.generate(model="image-aspect", prompt="lemonade on a table")
    client.music.create(model="music-song", prompt="synth pop", lyrics_prompt=LYRICS).wait(on_update=_quiet)
    gk.gallery().save(tmp_path)
    with open(tmp_path / "gallery.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["prompt"] for row in rows] == ["lemonade on a table", "synth pop"]
    assert rows[0]["file"].endswith(".png") and rows[1]["file"].endswith(".mp3")
    for row in rows:
        assert (tmp_path / row["file"]).stat().st_size > 1000
    assert list(rows[0]).count("file") == 1


def test_the_html_escapes_prompts_and_has_one_card_per_item(client: gk.Client) -> None:
    """The grid has a card per item, thumbnails that open, and no raw markup from a prompt."""
    import gatewaykit.notebook.html_views.rendering  # noqa: F401 - registers the renderer
    from gatewaykit.notebook.html_views.gallery_html import render_gallery_html

    client.images.generate(model="image-aspect", prompt="<img src=x onerror=alert(1)> a bicycle", n=1)
    html = render_gallery_html(gk.gallery())
    assert html.count('class="gk-gallery-card"') == 1
    assert "<img src=x" not in html and "&lt;img src=x" in html
    assert "<details" in html


def test_media_is_fetched_once(client: gk.Client) -> None:
    """Asking twice for a job's media sends one content request."""
    job = client.videos.create(model="video-range", prompt="storm", duration=2).wait(on_update=_quiet)
    item = gk.gallery()[0]
    calls = []
    original = job.content
    object.__setattr__(job, "content", lambda: calls.append(1) or original())
    item.media()
    item.media()
    assert calls == [1]


def test_a_job_answered_by_the_cache_costs_nothing_in_the_gallery(emulator: Any, tmp_path: Path) -> None:
    """The job's first run shows its estimate; the same job again from the cache shows $0, cached."""
    book = gk.Ledger(path=None)
    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, ledger=book, display=False,
                   cache=tmp_path / "cache") as client:  # fmt: skip
        for _ in range(2):
            client.videos.create(model="video-range", prompt="storm", duration=2).wait(on_update=_quiet)
    first, again = (item.cost() for item in gk.gallery())
    assert first[1] == "estimated" and first[0] > 0
    assert again == (0.0, "cached")

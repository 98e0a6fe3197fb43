"""Client(cache=...): identical paid requests answered from the response cache, against the offline gateway."""

from __future__ import annotations

import asyncio
import json
import warnings
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest

import gatewaykit as gk
from gateway_accounts import ACME_KEY, ACME_SECOND_KEY
from gatewaykit.client.transports.response_cache import CacheWarning

LYRICS = "[Verse]\nLights on the water\n[Chorus]\nWe sing till dawn"


def _user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


@pytest.fixture
def book() -> gk.Ledger:
    return gk.Ledger(path=None)


class Network(httpx.HTTPTransport):
    """The real network under the cache, counting the paid requests that reach the gateway."""

    def __init__(self) -> None:
        super().__init__()
        self.paid = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            self.paid += 1
        return super().handle_request(request)


@pytest.fixture
def network() -> Network:
    return Network()


@pytest.fixture
def make(emulator: Any, book: gk.Ledger, tmp_path: Path, network: Network) -> Iterator[Any]:
    made: list[gk.Client] = []

    def build(cache: Any = None, key: str = ACME_KEY, **options: Any) -> gk.Client:
        cache = tmp_path / "cache" if cache is None else cache
        client = gk.Client(api_key=key, base_url=emulator.base_url, ledger=book, display=False, cache=cache,
                           http_transport=network, **options)  # fmt: skip
        made.append(client)
        return client

    yield build
    for client in made:
        client.close()


def test_an_identical_chat_is_answered_from_the_cache_and_charged_nothing(make: Any, network: Network, book: gk.Ledger) -> None:
    """The second identical request sends nothing: same answer, no charge, a cached $0 row saying what it saved."""
    client = make()
    first = client.chat.completions.create(model="chat-mini", messages=_user("Name a river"))
    spent = network.paid
    second = client.chat.completions.create(model="chat-mini", messages=_user("Name a river"))
    assert network.paid == spent
    assert second.choices[0].message.content == first.choices[0].message.content
    assert second.model_extra["gatewaykit_cache"] == {"saved_cost": first.usage.cost.total_cost}
    row = book.rows[-1]
    assert (row["cost_source"], row["total_cost"], row["saved_cost"]) == ("cached", 0.0, first.usage.cost.total_cost)
    assert book.total_cost == pytest.approx(first.usage.cost.total_cost)


def test_a_different_request_is_sent(make: Any, network: Network) -> None:
    """Another prompt, or another parameter, is a miss."""
    client = make()
    client.chat.completions.create(model="chat-mini", messages=_user("Name a river"))
    spent = network.paid
    client.chat.completions.create(model="chat-mini", messages=_user("Name a river"), temperature=0.2)
    assert network.paid > spent


def test_the_cache_outlives_the_client(make: Any, network: Network) -> None:
    """A new client (a restarted kernel) on the same folder answers from what the first one kept."""
    make().chat.completions.create(model="chat-mini", messages=_user("Name a lake"))
    spent = network.paid
    make().chat.completions.create(model="chat-mini", messages=_user("Name a lake"))
    assert network.paid == spent


def test_streams_replay_as_streams(make: Any) -> None:
    """A cached stream yields chunks and assembles to the same answer."""
    client = make()
    original = client.chat.completions.create(model="chat-mini", messages=_user("Stream a poem"), stream=True).final()
    again = client.chat.completions.create(model="chat-mini", messages=_user("Stream a poem"), stream=True)
    chunks = list(again)
    assert len(chunks) > 3
    assert again.final().choices[0].message.content == original.choices[0].message.content


def test_an_image_comes_back_without_being_made_again(make: Any, network: Network) -> None:
    """An identical image request returns the same pixels for nothing."""
    client = make()
    first = client.images.generate(model="image-pixels", prompt="a kite", width=256, height=256)
    spent = network.paid
    again = client.images.generate(model="image-pixels", prompt="a kite", width=256, height=256)
    assert network.paid == spent
    assert again.data[0].content == first.data[0].content


def test_edit_inputs_match_by_content(make: Any, network: Network, tmp_path: Path) -> None:
    """An edit with the same picture (as bytes or as a path) is the same request."""
    from PIL import Image

    picture = tmp_path / "ref.png"
    Image.new("RGB", (64, 64), "teal").save(picture)
    client = make()
    client.images.edit(model="image-pixels", prompt="add a moon", image=[picture], width=256, height=256)
    spent = network.paid
    client.images.edit(model="image-pixels", prompt="add a moon", image=[picture.read_bytes()], width=256, height=256)
    assert network.paid == spent


def test_a_job_comes_back_completed_with_its_media(make: Any, network: Network) -> None:
    """A cached video job finishes at once with the same MP4, charged nothing."""
    client = make()
    job = client.videos.create(model="video-range", prompt="storm at sea", duration=2).wait(on_update=lambda _: None)
    media = job.content()
    spent = network.paid
    again = client.videos.create(model="video-range", prompt="storm at sea", duration=2)
    assert again.wait(on_update=lambda _: None).status == "completed"
    assert again.content() == media
    rows = [row for row in client.ledger.rows if row["id"] == job.id]
    assert [(row["cost_source"], row["status"]) for row in rows] == [("estimated", "completed"), ("cached", "completed")]
    assert rows[1]["total_cost"] == 0.0 and rows[1]["saved_cost"] == rows[0]["total_cost"]
    assert network.paid == spent


def test_refresh_sends_again_and_keeps_the_new_answer(make: Any, network: Network) -> None:
    """cache='refresh' always sends; what it gets answers later cached clients (both the per-user cache)."""
    make(cache=True).chat.completions.create(model="chat-mini", messages=_user("Name a sea"))
    spent = network.paid
    make(cache="refresh").chat.completions.create(model="chat-mini", messages=_user("Name a sea"))
    refreshed = network.paid
    assert refreshed > spent
    make(cache=True).chat.completions.create(model="chat-mini", messages=_user("Name a sea"))
    assert network.paid == refreshed


def test_another_key_has_its_own_cache(make: Any, network: Network) -> None:
    """The same request by another key is sent (the cache is per gateway and key)."""
    make().chat.completions.create(model="chat-mini", messages=_user("Name an ocean"))
    spent = network.paid
    make(key=ACME_SECOND_KEY).chat.completions.create(model="chat-mini", messages=_user("Name an ocean"))
    assert network.paid > spent


def test_errors_are_never_cached(make: Any) -> None:
    """A 400 is asked again next time (and fails again), never replayed."""
    client = make(validate=False)
    for _ in range(2):
        with pytest.raises(gk.GatewayError):
            client.images.generate(model="image-pixels", prompt="x", width=99999, height=64)
    assert not list((Path(client.cache.path).parent).glob("*.jsonl")) or all(
        "99999" not in path.read_text() for path in Path(client.cache.path).parent.glob("*.jsonl")
    )


def test_the_key_is_never_written(make: Any, tmp_path: Path) -> None:
    """Nothing in the cache folder contains the key."""
    client = make()
    client.chat.completions.create(model="chat-mini", messages=_user("Name a bay"))
    client.images.generate(model="image-aspect", prompt="a bay")
    for path in (tmp_path / "cache").rglob("*"):
        if path.is_file():
            assert ACME_KEY.encode() not in path.read_bytes()
            assert ACME_KEY[-12:].encode() not in path.read_bytes()


def test_a_damaged_cache_warns_then_sends_normally(make: Any, network: Network, tmp_path: Path) -> None:
    """A corrupt file: a CacheWarning, the request is sent and answered right, the file set aside."""
    client = make()
    client.chat.completions.create(model="chat-mini", messages=_user("Name a cape"))
    path = Path(client.cache.path)
    path.write_text(path.read_text()[:-40] + "\n{broken\n")
    spent = network.paid
    with pytest.warns(CacheWarning, match="damaged"):
        answer = make().chat.completions.create(model="chat-mini", messages=_user("Name a cape"))
    assert answer.choices[0].message.content and network.paid > spent
    assert path.with_name(path.name + ".unreadable").exists()


def test_a_cache_from_another_version_is_not_used(make: Any, network: Network) -> None:
    """A file whose header names another format: a warning, then a normal request."""
    client = make()
    client.chat.completions.create(model="chat-mini", messages=_user("Name a gulf"))
    path = Path(client.cache.path)
    lines = path.read_text().split("\n")
    path.write_text("\n".join([json.dumps({"gatewaykit_cache": 99})] + lines[1:]))
    spent = network.paid
    with pytest.warns(CacheWarning, match="another version"):
        make().chat.completions.create(model="chat-mini", messages=_user("Name a gulf"))
    assert network.paid > spent


def test_cache_and_cassette_together_is_a_configuration_error(tmp_path: Path, emulator: Any) -> None:
    """Both at once says to choose one."""
    with pytest.raises(gk.ConfigurationError, match="cannot be used together"):
        gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, cache=True, cassette=tmp_path / "c.jsonl")


def test_a_bad_cache_value_says_what_it_takes(emulator: Any) -> None:
    """cache=3 names the accepted values."""
    with pytest.raises(gk.ConfigurationError, match="'refresh'"):
        gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, cache=3)


def test_the_async_client_uses_the_cache_too(emulator: Any, tmp_path: Path) -> None:
    """await aclient... hits the same cache: the second answer is marked cached and its row is $0."""
    book = gk.Ledger(path=None)

    async def ask() -> Any:
        async with gk.AsyncClient(api_key=ACME_KEY, base_url=emulator.base_url, display=False,
                                  cache=tmp_path / "c", ledger=book) as aclient:  # fmt: skip
            return await aclient.chat.completions.create(model="chat-mini", messages=_user("Name a strait"))

    first = asyncio.run(ask())
    again = asyncio.run(ask())
    assert "gatewaykit_cache" not in (first.model_extra or {})
    assert again.model_extra.get("gatewaykit_cache")
    assert [row["cost_source"] for row in book.rows] == ["reported", "cached"]


def test_the_answer_footer_says_cached_and_what_it_saved(make: Any) -> None:
    """The chat HTML footer reads 'cached: not sent, not charged (saved $…)' instead of the cost."""
    from gatewaykit.notebook.html_views.html import render_chat_html

    client = make()
    client.chat.completions.create(model="chat-mini", messages=_user("Name a fjord"))
    again = client.chat.completions.create(model="chat-mini", messages=_user("Name a fjord"))
    assert "cached: not sent, not charged (saved $" in render_chat_html(again)


def test_a_pickled_client_keeps_its_cache(emulator: Any, tmp_path: Path) -> None:
    """pickle round trip: the copy answers from the same cache folder."""
    import pickle

    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, display=False, cache=tmp_path / "pickled",
                   ledger=gk.Ledger(path=None)) as client:  # fmt: skip
        copy = pickle.loads(pickle.dumps(client))
        try:
            assert copy.cache is not None and Path(copy.cache.path) == Path(client.cache.path)
        finally:
            copy.close()


def test_a_cached_jobs_row_says_cached_not_replayed(make: Any, emulator: Any, tmp_path: Path) -> None:
    """A job the cache answered keeps the cache's words in its row (with what it saved, when the ledger knows), not
    the cassette's ("replayed from a cassette"), which it never came from: in the ledger that ran it, and in a
    fresh one whose row settles when the kept job finishes."""
    from gatewaykit.money import format_usd

    def make_song(client: gk.Client) -> Any:
        return client.music.create(model="music-song", prompt="a lighthouse, kept", lyrics_prompt=LYRICS).wait(
            on_update=lambda _: None)  # fmt: skip

    client = make()
    job = make_song(client)
    make_song(client)
    first, kept = [row for row in client.ledger.rows if row["id"] == job.id]
    assert kept["cost_source"] == "cached"
    assert kept["note"] == f"cached: not sent, not charged (saved {format_usd(first['total_cost'])})"
    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, ledger=gk.Ledger(path=None), display=False,
                   cache=tmp_path / "cache") as fresh:  # fmt: skip
        make_song(fresh)
        (row,) = fresh.ledger.rows
    assert (row["cost_source"], row["status"], row["note"]) == ("cached", "completed", "cached: not sent, not charged")


def test_concurrent_first_requests_through_the_cache_leave_no_socket_open(emulator: Any, tmp_path: Path) -> None:
    """client.map with cache= sends its first requests from several threads at once, each through the cache's own
    network transport: they share one connection pool, which close() closes (two threads each made one, and the
    pool dropped in the race kept its sockets open until the garbage collector warned)."""
    import gc

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", ResourceWarning)
        for _ in range(3):
            with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, ledger=gk.Ledger(path=None), display=False,
                           cache=tmp_path / "cache") as client:  # fmt: skip
                def ask(topic: str) -> str:
                    answer = client.chat.completions.create(model="chat-mini", messages=_user(f"{topic}, at once?"))
                    return str(answer.choices[0].message.content)

                assert client.map(ask, ["rivers", "lakes", "seas", "bays"], concurrency=4).ok
            gc.collect()
    assert [str(w.message) for w in seen if issubclass(w.category, ResourceWarning)] == []

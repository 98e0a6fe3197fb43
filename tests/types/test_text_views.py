"""print() and repr() of public results in a terminal: readable, short, one-line reprs."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

import gatewaykit as gk
from gatewaykit.money import format_usd


@pytest.fixture(scope="module")
def results(emulator: Any, keys: Any) -> Iterator[dict[str, Any]]:
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, display=False) as client:
        yield {
            "models": client.models.list(),
            "answer": client.chat.ask("Say hi", model="chat-mini"),
            "image": client.images.generate(model="image-pixels", prompt="a lighthouse", width=256, height=256),
            "job": client.videos.create(model="video-tiers", prompt="waves", duration=4).wait(),
            "song": client.music.create(model="music-song", prompt="synth pop", lyrics_prompt="[Verse]\nHi").wait(),
        }


@pytest.mark.parametrize("name", ["models", "answer", "image", "job", "song"])
def test_every_repr_is_one_short_line(results: dict[str, Any], name: str) -> None:
    """repr() of each public result is one line under 300 characters."""
    text = repr(results[name])
    assert "\n" not in text and len(text) < 300


def test_a_model_list_prints_as_a_table_of_ids_and_kinds(results: dict[str, Any]) -> None:
    """print(models): a header, then one 'id  kind  price' row per model."""
    lines = str(results["models"]).splitlines()
    assert lines[0].split() == ["id", "kind", "price"] and len(lines) == len(results["models"]) + 2
    assert lines[2].split()[:2] == [results["models"][0].id, results["models"][0].kind]


def test_an_answer_prints_as_its_text_and_one_line_of_figures(results: dict[str, Any]) -> None:
    """print(answer): the text, then '— model · p + c tokens · $cost'."""
    answer = results["answer"]
    text, footer = str(answer).rsplit("\n", 1)
    assert text == answer.content
    assert footer == f"— chat-mini · {answer.usage.prompt_tokens} + {answer.usage.completion_tokens} tokens · ${answer.usage.total_cost:.6f}".rstrip("0")


def test_a_job_prints_as_one_line_and_says_where_it_was_saved(results: dict[str, Any], tmp_path: Any) -> None:
    """print(job): 'video_… completed · model · N s · 1280×720 · not saved', then the path once saved."""
    job = results["job"]
    assert str(job).startswith(f"{job.id} completed · video-tiers · ") and "1280×720" in str(job)
    assert str(job).endswith("not saved (job.save(path))")
    path = job.save(tmp_path / "waves.mp4")
    assert str(job).endswith(f"saved to {path}")


def test_model_text_in_a_repr_loses_control_characters() -> None:
    """An escape sequence in an answer never reaches the terminal through repr() or str()."""
    answer = gk.ChatCompletion(model="m", choices=[{"message": {"role": "assistant", "content": "hi\x1b[2J there"}}])
    assert "\x1b" not in repr(answer) and "\x1b" not in str(answer)


def test_a_job_prints_the_clip_length_labelled_apart_from_the_time_it_took() -> None:
    """A 4 s clip made in 2 s reads 'length 4 s' and 'took 2 s', never a bare '2 s' where the length goes."""
    job = gk.VideoJob(id="video_1", status="completed", model="video-tiers", seconds="4", size="1280x720",
                      created_at=1_700_000_000, completed_at=1_700_000_002)  # fmt: skip
    assert str(job) == "video_1 completed · video-tiers · length 4 s · 1280×720 · took 2 s · not saved (job.save(path))"
    song = gk.MusicJob(id="audio_1", status="in_progress", model="music-lyrics", seconds="30.5")
    assert str(song) == "audio_1 in_progress · music-lyrics · length 30.5 s"


def test_the_catalog_shows_each_models_price_as_read(results: dict[str, Any]) -> None:
    """Prices from the catalog's pricing: per 1M tokens (input / output), per second (a range), per image, per song."""
    models = results["models"]
    assert models["chat-mini"].price == "$0.15 / $0.60 per 1M tokens"
    assert models["video-tiers"].price == "$0.05–0.25 per second, with audio $0.08–0.40"
    assert models["image-aspect"].price == "$0.03 per image" and models["music-song"].price == "$0.06 per song"
    assert "chat-mini      chat   $0.15 / $0.60 per 1M tokens" in str(models).splitlines()
    frame = models.to_pandas()
    assert frame.columns[:3].tolist() == ["id", "kind", "price"]
    assert frame.set_index("id").loc["image-tiers", "price"] == "$0.04–0.15 per image"


def test_a_catalog_without_prices_shows_no_price_column() -> None:
    """The spec's catalog has no pricing: no empty column, no guessed price."""
    models = gk.ModelList(data=[{"id": "m", "output_modalities": ["text"]}, {"id": "v", "output_modalities": ["video"],
                                "pricing": {"usd_per_second": "cheap"}}])  # fmt: skip
    assert [model.price for model in models] == ["", ""]
    assert str(models).splitlines()[0].split() == ["id", "kind"]


def test_the_notebook_model_table_has_the_price_column_out_of_mathjax_reach(results: dict[str, Any]) -> None:
    """The HTML table: a price column after kind; amounts kept from MathJax ('$0.15 / $0.60' is not maths)."""
    html = results["models"]._repr_mimebundle_()["text/html"]
    assert "<th" in html and ">price</th>" in html and "tex2jax_ignore" in html
    assert "$0.15 / $0.60 per 1M tokens" in html


REPLAYED = "replayed from a cassette: not charged"


def test_a_replayed_answer_and_image_print_as_not_charged(emulator: Any, keys: Any, tmp_path: Any, no_key: None) -> None:
    """print() of what a cassette replays (an answer, a streamed chat.ask() answer, an image) says, where the
    recording's print showed a cost, the replayed note its ledger row has, with the recorded cost as such."""
    path = tmp_path / "printed.jsonl"
    question = [{"role": "user", "content": "Name a lake, printed."}]

    def run(client: gk.Client) -> list[Any]:
        return [client.chat.completions.create(model="chat-mini", messages=question),
                client.chat.ask("Name a river, printed.", model="chat-mini"),
                client.images.generate(model="image-pixels", prompt="a heron", width=256, height=256)]  # fmt: skip

    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, cassette=path, cassette_mode="record",
                   ledger=gk.Ledger(), display=False) as client:  # fmt: skip
        fresh = run(client)
    with gk.Client(cassette=path, cassette_mode="replay", ledger=gk.Ledger(), display=False) as client:
        replayed = run(client)
        notes = [row["note"] for row in client.ledger.rows]
    for before, after, note in zip(fresh, replayed, notes):
        paid = f"${before.usage.total_cost:.6f}".rstrip("0")
        said = f"{REPLAYED} (recorded cost {format_usd(before.usage.total_cost)})"
        assert str(before).endswith(paid) or f"· {paid}  (" in str(before)
        assert REPLAYED not in str(before) + repr(before)
        assert said == note  # the ledger row's words
        assert said in str(after) and said in repr(after) and paid not in str(after).replace(said, "")
    answer, asked, _image = replayed
    assert str(answer).splitlines()[-1] == f"— chat-mini · {answer.usage.prompt_tokens} + {answer.usage.completion_tokens} tokens · {notes[0]}"
    assert str(asked).splitlines()[-1].endswith(f"tokens · {notes[1]}")  # chat.ask() streamed it


CACHED = "cached: not sent, not charged"


def test_a_cached_answer_and_image_print_as_not_charged(emulator: Any, keys: Any, tmp_path: Any) -> None:
    """print() of what the response cache answers (an answer, a streamed chat.ask() answer, an image) says what
    its ledger row says (not sent, not charged, and what it saved) where a paid answer shows its cost; a chat
    session's cost counts such a turn as $0, as its ledger rows do."""
    question = [{"role": "user", "content": "Name a lake, cached."}]

    def run(client: gk.Client) -> list[Any]:
        return [client.chat.completions.create(model="chat-mini", messages=question),
                client.chat.ask("Name a river, cached.", model="chat-mini"),
                client.images.generate(model="image-pixels", prompt="a heron, cached", width=256, height=256)]  # fmt: skip

    def client() -> gk.Client:
        return gk.Client(api_key=keys.acme, base_url=emulator.base_url, cache=tmp_path / "cache", ledger=gk.Ledger(),
                         display=False)  # fmt: skip

    with client() as first:
        paid = run(first)
        paid_session = first.chat.session(model="chat-mini")
        paid_session("Name a sea, cached.")
    with client() as second:
        kept = run(second)
        notes = [row["note"] for row in second.ledger.rows]
        session = second.chat.session(model="chat-mini")
        session("Name a sea, cached.")
        session_rows = [row for row in second.ledger.rows[len(notes):]]
    for before, after, note in zip(paid, kept, notes):
        said = f"{CACHED} (saved {format_usd(before.usage.total_cost)})"
        assert CACHED not in str(before) + repr(before)
        assert said == note, notes  # the ledger row's words
        assert said in str(after) and said in repr(after), str(after)
    assert paid_session.cost and paid_session.cost > 0
    assert session.cost == sum(row["total_cost"] for row in session_rows) == 0.0

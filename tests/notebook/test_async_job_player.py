"""A finished job of gk.AsyncClient displays a player (its bytes need an await, so the gateway's link plays)."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import gatewaykit as gk


async def _finished_song(gateway: Any) -> Any:
    client = gk.AsyncClient(base_url=gateway.base_url, api_key=gateway.api_key, display=False)
    try:
        song = await client.music.create(model="music-song", prompt="a song", lyrics_prompt="[Verse]\nfoxes in snow")
        return await song.wait(timeout=60)
    finally:
        await client.close()


def test_an_async_clients_finished_song_shows_a_player_of_its_link() -> None:
    """The display of a completed AsyncClient job has an <audio> on the media link, no error, no warning."""
    with gk.emulator.start(time_scale=0) as gateway:
        song = asyncio.run(_finished_song(gateway))
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a never-awaited coroutine would warn
            html = song._repr_mimebundle_()["text/html"]
    assert "<audio" in html and "media not embedded" not in html
    assert f'src="{gateway.base_url}/_media/' in html

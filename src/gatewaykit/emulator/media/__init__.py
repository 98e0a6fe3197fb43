"""Deterministic synthetic media for the offline gateway: images, video and music.

Everything here is generated procedurally (numpy, Pillow, PyAV, lameenc) from the
prompt and seed: no network access and no model weights. ``av`` is imported
lazily by the video functions so image-only use stays quick to import.
"""

from .errors import MediaError
from .images import ImageFacts, draw_image, inspect_image
from .music import BITRATES, SAMPLE_RATES, Section, parse_lyrics, render_song
from .video import MediaFacts, probe_media, render_video

__all__ = [
    "BITRATES",
    "ImageFacts",
    "MediaError",
    "MediaFacts",
    "SAMPLE_RATES",
    "Section",
    "draw_image",
    "inspect_image",
    "parse_lyrics",
    "probe_media",
    "render_song",
    "render_video",
]

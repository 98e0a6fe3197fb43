"""Error type raised by the synthetic media library.

Every failure the server should turn into a client-facing 4xx message (undecodable
input, oversized images, unsupported sizes or formats) is a :class:`MediaError`.
"""

from __future__ import annotations


class MediaError(ValueError):
    """Media could not be decoded, validated or produced; the message says why."""

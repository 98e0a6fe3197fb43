"""Synthetic H.264 MP4 clips and media probing, via PyAV (imported lazily).

:func:`render_video` encodes frames from :mod:`.animation` with libx264
(``ultrafast``, CRF 28, yuv420p, two fixed encoder threads so output is
reproducible) into an MP4 with ``+faststart`` so browsers can stream it, plus an
optional stereo AAC soundtrack synthesised by :mod:`.music`. :func:`probe_media`
reports container, duration and stream facts of any audio/video bytes.

yuv420p needs even dimensions: odd widths/heights are rounded *up* to the next
even number. Cost grows with pixels x frames: 5 s of 720p takes well under a
second, 15 s of 1080p a few seconds, and 4K (3840x2160) clips several times longer.
"""

from __future__ import annotations

import io
import os
import tempfile
from dataclasses import dataclass

import numpy as np

from .animation import KenBurnsAnimation, PromptAnimation
from .errors import MediaError
from .music import synthesise

MAX_SIDE = 4096
MAX_PIXELS = 4096 * 2304  # a little over 4K UHD
MAX_SECONDS = 60
MAX_FPS = 60
AUDIO_SAMPLE_RATE = 48000
_AUDIO_CHUNK = 1024  # one AAC frame
_X264_OPTIONS = {"preset": "ultrafast", "crf": "28", "threads": "2"}


@dataclass(frozen=True)
class MediaFacts:
    """What PyAV reports about an audio or video file."""

    container: str  # "mp4", "mp3", "wav", "matroska", ...
    duration: float  # seconds
    video_codec: str | None = None  # e.g. "h264"
    width: int | None = None
    height: int | None = None
    fps: float | None = None
    audio_codec: str | None = None  # e.g. "aac", "mp3"
    sample_rate: int | None = None
    channels: int | None = None


def _even(value: int) -> int:
    return value + (value % 2)


def _check_request(seconds: float, width: int, height: int, fps: int) -> tuple[int, int]:
    if not 0 < seconds <= MAX_SECONDS:
        raise MediaError(f"seconds must be in (0, {MAX_SECONDS}], got {seconds}")
    if not isinstance(fps, int) or not 1 <= fps <= MAX_FPS:
        raise MediaError(f"fps must be an integer from 1 to {MAX_FPS}, got {fps!r}")
    for name, side in (("width", width), ("height", height)):
        if not isinstance(side, int) or not 2 <= side <= MAX_SIDE:
            raise MediaError(f"{name} must be an integer from 2 to {MAX_SIDE}, got {side!r}")
    width, height = _even(width), _even(height)
    if width * height > MAX_PIXELS:
        raise MediaError(f"{width}x{height} exceeds the {MAX_PIXELS:,} pixel limit for video")
    return width, height


def render_video(
    prompt: str,
    *,
    seed: int,
    seconds: int,
    width: int,
    height: int,
    fps: int = 24,
    audio: bool = False,
    reference: bytes | None = None,
) -> bytes:
    """Return MP4 bytes: H.264 video of ``seconds`` at ``width`` x ``height`` (odd sides rounded up).

    Without ``reference`` the prompt's scene is animated (moving sun and orbs,
    caption at the top, no timecode or progress bar); with ``reference`` (encoded image bytes) the
    image is shown with a slow Ken Burns zoom and pan. ``audio=True`` adds a stereo
    48 kHz AAC track of the same length. Raises :class:`MediaError` for bad
    arguments or an undecodable reference.
    """
    import av

    width, height = _check_request(seconds, width, height, fps)
    frames = max(1, round(seconds * fps))
    painter: KenBurnsAnimation | PromptAnimation
    if reference is not None:
        painter = KenBurnsAnimation(reference, seed=seed, width=width, height=height, frames=frames, fps=fps)
    else:
        painter = PromptAnimation(prompt, seed=seed, width=width, height=height, frames=frames, fps=fps)
    soundtrack = None
    if audio:
        soundtrack, _plan = synthesise(prompt, "", seed=seed, sample_rate=AUDIO_SAMPLE_RATE,
                                       seconds=frames / fps)
    with tempfile.TemporaryDirectory(prefix="gatewaykit-video-") as workdir:
        # The mp4 muxer re-reads its output to move the index up front (+faststart),
        # which needs a real file rather than an in-memory buffer.
        path = os.path.join(workdir, "clip.mp4")
        with av.open(path, "w", format="mp4", options={"movflags": "+faststart"}) as container:
            video = container.add_stream("libx264", rate=fps, options=dict(_X264_OPTIONS))
            video.width, video.height, video.pix_fmt = width, height, "yuv420p"
            sound = None
            if soundtrack is not None:
                sound = container.add_stream("aac", rate=AUDIO_SAMPLE_RATE, layout="stereo")
            audio_sent = 0
            for index in range(frames):
                frame = av.VideoFrame.from_numpy_buffer(painter.frame(index), format="rgb24")
                frame.pts = index
                container.mux(video.encode(frame))
                if sound is not None and soundtrack is not None:
                    due = min(soundtrack.shape[1], round((index + 1) / fps * AUDIO_SAMPLE_RATE))
                    audio_sent = _send_audio(av, container, sound, soundtrack, audio_sent, due)
            container.mux(video.encode(None))
            if sound is not None and soundtrack is not None:
                _send_audio(av, container, sound, soundtrack, audio_sent, soundtrack.shape[1])
                container.mux(sound.encode(None))
        with open(path, "rb") as handle:
            return handle.read()


def _send_audio(av, container, stream, samples: np.ndarray, sent: int, due: int) -> int:  # noqa: ANN001
    """Encode and mux whole AAC frames of ``samples`` from ``sent`` up to ``due``."""
    while sent < due:
        end = min(sent + _AUDIO_CHUNK, samples.shape[1])
        chunk = av.AudioFrame.from_ndarray(np.ascontiguousarray(samples[:, sent:end]), format="fltp",
                                           layout="stereo")
        chunk.sample_rate = AUDIO_SAMPLE_RATE
        chunk.pts = sent
        container.mux(stream.encode(chunk))
        sent = end
    return sent


def _container_name(names: str) -> str:
    options = names.split(",")
    return "mp4" if "mp4" in options else options[0]


def probe_media(data: bytes) -> MediaFacts:
    """Container, duration and first video/audio stream facts of ``data`` (any format FFmpeg reads).

    Raises :class:`MediaError` if the bytes are not a readable media file.
    """
    import av

    if not data:
        raise MediaError("media data is empty")
    try:
        with av.open(io.BytesIO(bytes(data)), "r") as container:
            facts: dict[str, object] = {"container": _container_name(container.format.name)}
            duration = container.duration / av.time_base if container.duration else 0.0
            for stream in container.streams:
                if stream.duration and stream.time_base:
                    duration = max(duration, float(stream.duration * stream.time_base))
            facts["duration"] = float(duration)
            if container.streams.video:
                stream = container.streams.video[0]
                facts.update(video_codec=stream.codec_context.codec.canonical_name, width=stream.codec_context.width,
                             height=stream.codec_context.height,
                             fps=float(stream.average_rate) if stream.average_rate else None)
            if container.streams.audio:
                stream = container.streams.audio[0]
                facts.update(audio_codec=stream.codec_context.codec.canonical_name, sample_rate=stream.codec_context.sample_rate,
                             channels=stream.codec_context.channels)
    except av.FFmpegError as exc:
        raise MediaError(f"data is not a readable media file ({exc})") from None
    return MediaFacts(**facts)  # type: ignore[arg-type]

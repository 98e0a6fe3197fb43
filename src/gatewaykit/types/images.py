"""Image generation and edit answers."""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path
from typing import Any, List, Optional, Union

from pydantic import Field, PrivateAttr

from gatewaykit.types.common import GatewayModel, Usage
from gatewaykit.types.text_views import image_result_repr, image_result_text

#: The only formats untrusted image bytes are opened as (Pillow's names): the formats the API speaks.
#: Any other format Pillow knows is refused before it is parsed; EPS, for one, would run Ghostscript.
API_IMAGE_FORMATS = ("PNG", "JPEG", "WEBP", "GIF")

#: The most pixels (width x height, read from the header) an untrusted image may declare before it is
#: decoded: the offline gateway's input limit (``emulator/media/decoding.py``'s ``MAX_INPUT_PIXELS``).
#: A few KB of PNG can declare 13000 x 13000 pixels and decode to hundreds of MB.
MAX_IMAGE_PIXELS = 40_000_000

_MAGIC = ((b"\x89PNG\r\n\x1a\n", "png"), (b"\xff\xd8\xff", "jpg"), (b"GIF87a", "gif"), (b"GIF89a", "gif"))


def image_extension(data: bytes) -> str:
    """The file extension for encoded image bytes (png, jpg, webp, gif; ``bin`` if unknown)."""
    for magic, extension in _MAGIC:
        if data.startswith(magic):
            return extension
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return "bin"


def open_api_image(data: bytes, what: str = "image data") -> Any:
    """Open untrusted ``data`` as a ``PIL.Image`` (lazily: pixels load later), only as PNG, JPEG, WebP or GIF.

    Anything else is a :class:`ValueError` naming ``what`` and the accepted formats (never a decoder's
    own message, which could show a tool's command line or temporary paths).
    """
    from gatewaykit.optional_packages import needs

    Image = needs("pillow", "PIL images (ImageResult.images, .show())", "the result's own display, .save(folder), "
                  "each item's .content (the image's bytes)", module="PIL.Image")
    try:
        return Image.open(io.BytesIO(data), formats=API_IMAGE_FORMATS)
    except Exception as exc:  # noqa: BLE001 - UnidentifiedImageError, SyntaxError, OSError... all mean 'not one'
        raise ValueError(f"{what} is not a PNG, JPEG, WebP or GIF image ({type(exc).__name__})") from None


def check_api_image(data: bytes, what: str = "image data") -> None:
    """Refuse untrusted ``data`` that is not a PNG, JPEG, WebP or GIF of at most :data:`MAX_IMAGE_PIXELS`
    (a ``ValueError`` saying which); only the header is read, no pixel is decoded."""
    image = open_api_image(data, what)
    width, height = image.size
    if width * height > MAX_IMAGE_PIXELS:
        raise ValueError(f"{what} is {width}x{height}, over the {MAX_IMAGE_PIXELS:,} pixels an image may have")


class ImageData(GatewayModel):
    """One generated image: ``b64_json``, or ``url`` (an inline ``data:`` URI, or a hosted image the client
    fetched into ``b64_json`` when the answer arrived; ``url`` keeps the link)."""

    index: int = 0
    b64_json: Optional[str] = None
    url: Optional[str] = None
    revised_prompt: Optional[str] = None

    # Set by the client when a hosted image's link gave no image: the GatewayError ``content`` raises.
    _not_fetched: Optional[BaseException] = PrivateAttr(default=None)

    def __repr_args__(self) -> Any:
        # Keep reprs readable: a megabyte of base64 helps nobody in a terminal or a traceback.
        for name, value in super().__repr_args__():
            if name in ("b64_json", "url") and isinstance(value, str) and len(value) > 64:
                value = f"{value[:40]}...<{len(value):,} chars>"
            yield name, value

    @property
    def content(self) -> bytes:
        """The encoded image (PNG, JPEG or WebP bytes), from ``b64_json`` or a ``data:`` URL."""
        if self.b64_json:
            return base64.b64decode(self.b64_json)
        if self.url and self.url.startswith("data:"):
            return base64.b64decode(self.url.partition(",")[2])
        if self._not_fetched is not None:
            raise self._not_fetched  # the client's GatewayError: why its link gave no image, and what to do
        raise ValueError("This image has no inline data (b64_json or a data: URL)")

    @property
    def extension(self) -> str:
        return image_extension(self.content)


class ImageResult(GatewayModel):
    """``POST /v1/images/generations`` and ``/v1/images/edits`` answers.

    ``images`` decodes to ``PIL.Image`` objects on first use; ``save(dir)`` writes files.
    """

    created: int = 0
    model: Optional[str] = None
    size: Optional[str] = None
    data: List[ImageData] = Field(default_factory=list)
    usage: Optional[Usage] = None

    _images: Optional[list] = PrivateAttr(default=None)

    @property
    def images(self) -> list[Any]:
        """The images as ``PIL.Image.Image`` objects (Pillow is imported on first use).

        Only PNG, JPEG, WebP and GIF bytes are decoded; anything else is a ``ValueError``.
        """
        if self._images is None:
            decoded = []
            for position, item in enumerate(self.data):
                what = f"image {position}"
                image = open_api_image(item.content, what)
                try:
                    image.load()
                except Exception as exc:  # noqa: BLE001 - Pillow raises many types for corrupt data
                    raise ValueError(f"{what} is corrupt or truncated ({type(exc).__name__})") from None
                decoded.append(image)
            self._images = decoded
        return self._images

    def __str__(self) -> str:
        return image_result_text(self)

    def __repr__(self) -> str:
        return image_result_repr(self)

    @property
    def image(self) -> Any:
        """The first image (``PIL.Image``)."""
        return self.images[0]

    def save(self, directory: Union[str, "os.PathLike[str]"] = ".", prefix: str = "image") -> list[Path]:
        """Write every image to ``directory`` as ``<prefix>-<index>.<ext>`` (the real format's extension)."""
        target = Path(directory)
        target.mkdir(parents=True, exist_ok=True)
        paths = []
        for position, item in enumerate(self.data):
            content = item.content
            index = item.index if item.index is not None else position
            path = target / f"{prefix}-{index}.{image_extension(content)}"
            path.write_bytes(content)
            paths.append(path)
        return paths

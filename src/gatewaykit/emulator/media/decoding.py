"""Safe decoding of untrusted encoded images: PNG, JPEG, WebP and GIF only.

Any other format Pillow knows is refused before it is parsed (EPS would hand the
bytes to Ghostscript). The declared pixel count is checked from the header *before* any pixel data is
decoded, so a tiny file that claims to be enormous (a decompression bomb) is
refused cheaply with :class:`MediaError`.
"""

from __future__ import annotations

import io
import warnings

from PIL import Image, UnidentifiedImageError

from gatewaykit.types.images import API_IMAGE_FORMATS

from .errors import MediaError

#: Largest image (width x height) accepted as input: 40 megapixels.
MAX_INPUT_PIXELS = 40_000_000


def open_image(data: bytes, *, load: bool = True) -> Image.Image:
    """Open ``data`` as an image, refusing garbage and images over ``MAX_INPUT_PIXELS``.

    With ``load=False`` only the header is parsed (size, format, mode are valid);
    otherwise the first frame is fully decoded and any truncation is reported.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)) or len(data) == 0:
        raise MediaError("image data is empty")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            image = Image.open(io.BytesIO(bytes(data)), formats=API_IMAGE_FORMATS)
        except Image.DecompressionBombError as exc:
            raise MediaError(f"image is too large to decode safely: {exc}") from None
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
            raise MediaError(f"data is not a PNG, JPEG, WebP or GIF image ({type(exc).__name__})") from None
        width, height = image.size
        if width <= 0 or height <= 0:
            raise MediaError(f"image declares an invalid size {width}x{height}")
        if width * height > MAX_INPUT_PIXELS:
            raise MediaError(
                f"image declares {width}x{height} = {width * height:,} pixels; "
                f"the limit is {MAX_INPUT_PIXELS:,}"
            )
        if load:
            try:
                image.load()
            except Exception as exc:  # Pillow raises many types for corrupt data
                raise MediaError(f"image data is corrupt or truncated ({type(exc).__name__})") from None
    return image


def to_rgb(image: Image.Image, background: tuple[int, int, int] = (0, 0, 0)) -> Image.Image:
    """Convert any mode to RGB, flattening transparency onto ``background``."""
    if image.mode == "RGB":
        return image
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        flat = Image.new("RGB", rgba.size, background)
        flat.paste(rgba, mask=rgba.getchannel("A"))
        return flat
    return image.convert("RGB")

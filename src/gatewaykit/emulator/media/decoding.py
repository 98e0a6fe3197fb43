"""Safe decoding of untrusted encoded images: PNG, JPEG, WebP and GIF only.

Any other format Pillow knows is refused before it is parsed (EPS would hand the
bytes to Ghostscript). The declared pixel count is checked from the header *before*
any pixel data is decoded, so a tiny file that claims to be enormous (a decompression
bomb) is refused cheaply with :class:`MediaError`; :func:`declared_pixels` lets a
route cap a whole request the same way. :func:`decode_to_cover` decodes one image
straight to the size it will be drawn at (JPEG at a reduced scale), so a 15 KB file
of 40 megapixels never lives on at full size next to the others.
"""

from __future__ import annotations

import io
import warnings

from PIL import Image, UnidentifiedImageError

from gatewaykit.types.images import API_IMAGE_FORMATS

from .errors import MediaError

#: Largest image (width x height) accepted as input: 40 megapixels.
MAX_INPUT_PIXELS = 40_000_000
#: Most pixels all the images of one request may declare together: 160 megapixels (four of the largest).
MAX_REQUEST_PIXELS = 160_000_000


def declared_pixels(data: bytes) -> int:
    """Width x height from the header alone (no pixels decoded); MediaError like :func:`open_image`."""
    with open_image(data, load=False) as image:
        return image.width * image.height


def decode_to_cover(data: bytes, size: tuple[int, int]) -> Image.Image:
    """Decode ``data`` to an RGB image just big enough to cover ``size`` (never enlarged; not yet cropped).

    JPEG is decoded at a reduced scale (``draft``); other formats are decoded once and
    reduced before being converted to RGB, so the full-size image is freed at once.
    """
    width, height = max(1, size[0]), max(1, size[1])
    image = open_image(data, load=False)
    if image.format == "JPEG":
        image.draft("RGB", (width, height))  # DCT scaling: at most 8x fewer pixels decoded
    try:
        image.load()
    except Exception as exc:  # Pillow raises many types for corrupt data
        raise MediaError(f"image data is corrupt or truncated ({type(exc).__name__})") from None
    scale = max(width / image.width, height / image.height)
    if scale < 1:
        if image.mode == "1":  # resize needs grey levels; "L" takes the same memory
            image = image.convert("L")
        elif image.mode not in ("L", "LA", "RGB", "RGBA"):
            image = to_rgb(image)
        target = (max(width, round(image.width * scale)), max(height, round(image.height * scale)))
        image = image.resize(target, Image.Resampling.BILINEAR, reducing_gap=2.0)
    return to_rgb(image)


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

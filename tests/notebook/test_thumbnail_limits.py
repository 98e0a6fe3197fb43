"""Gallery thumbnails never decode a whole huge image (issue 28, item 16).

The same limits as the gateway's decoding of untrusted images: only PNG, JPEG,
WebP or GIF, at most 40 megapixels declared (checked from the header, before
any pixel is decoded), JPEG decoded at a reduced scale. A 20 KB PNG declaring
13000x13000 pixels grew a kernel by 670 MB; it now gets a placeholder.
"""

from __future__ import annotations

import base64
import io
import struct
import subprocess
import sys
import textwrap
import zlib

import pytest

from gatewaykit.client.resources.session_media import MadeItem
from gatewaykit.types import ImageResult


def _bomb_png(side: int = 13000) -> bytes:
    """A 1-bit grey PNG of side x side pixels, all black: a few KB that decode to side² bytes or more."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\x00" * (1 + (side + 7) // 8)
    packer = zlib.compressobj(9)
    idat = b"".join(packer.compress(row) for _ in range(side)) + packer.flush()
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def _item(data: bytes) -> MadeItem:
    result = ImageResult.model_validate({"created": 1, "data": [{"b64_json": base64.b64encode(data).decode()}]})
    return MadeItem(kind="image", model="image-pixels", prompt="x", params={}, created=1.0, tags=(), result=result)


_MEASURE = """
import base64, resource, sys
from gatewaykit.client.resources.session_media import MadeItem
from gatewaykit.types import ImageResult
from gatewaykit.notebook.html_views.thumbnails import image_uris
data = sys.stdin.buffer.read()
result = ImageResult.model_validate({"created": 1, "data": [{"b64_json": base64.b64encode(data).decode()}]})
item = MadeItem(kind="image", model="m", prompt="x", params={}, created=1.0, tags=(), result=result)
import PIL.Image, PIL.PngImagePlugin, PIL.JpegImagePlugin  # loaded before the first reading
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
thumb, large = image_uris(item)
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(grown // 1024, thumb[:22])
"""


def _grown_mb(data: bytes) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_MEASURE)], input=data, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode()
    grown, kind = done.stdout.decode().split()
    return int(grown), kind


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss in KB (Linux)")
def test_a_decompression_bomb_gets_a_placeholder_without_decoding(tmp_path) -> None:
    """13000x13000 (169 MP, over the 40 MP limit): a placeholder, and the process grows by a few MB at most."""
    bomb = _bomb_png()
    assert len(bomb) < 200_000
    grown, kind = _grown_mb(bomb)
    assert kind.startswith("data:image/svg+xml") and grown < 60, f"grew by {grown} MB"


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss in KB (Linux)")
def test_a_large_jpeg_is_decoded_at_a_reduced_scale() -> None:
    """A 6000x6000 JPEG (36 MP, under the limit) becomes a thumbnail from a 1/8-scale decode (108 MB at full size)."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (6000, 6000), (200, 60, 20)).save(out, format="JPEG", quality=50)
    grown, kind = _grown_mb(out.getvalue())
    assert kind.startswith("data:image/jpeg") and grown < 60, f"grew by {grown} MB"


def test_a_normal_image_still_gets_its_thumbnails() -> None:
    """A 1024x768 PNG with transparency: a JPEG thumbnail (200 px) and larger view (640 px)."""
    from PIL import Image

    from gatewaykit.notebook.html_views.thumbnails import image_uris

    out = io.BytesIO()
    Image.new("RGBA", (1024, 768), (10, 200, 30, 128)).save(out, format="PNG")
    thumb, large = image_uris(_item(out.getvalue()))
    sizes = []
    for uri in (thumb, large):
        assert uri.startswith("data:image/jpeg;base64,")
        sizes.append(Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))).size)
    assert sizes == [(200, 150), (640, 480)]


def test_the_limit_is_the_gateways() -> None:
    """The client's limit for untrusted images is the offline gateway's input limit."""
    from gatewaykit.emulator.media.decoding import MAX_INPUT_PIXELS
    from gatewaykit.types.images import MAX_IMAGE_PIXELS

    assert MAX_IMAGE_PIXELS == MAX_INPUT_PIXELS

"""Our PNG writer: files any PNG reader opens, with exactly the image's pixels and palette."""

from __future__ import annotations

import io
import random
import zlib

import pytest
from PIL import Image

from rendering.png import SIGNATURE, png


def _random_palette_image(seed: int, size: tuple[int, int], colours: int) -> Image.Image:
    rng = random.Random(seed)
    image = Image.new("P", size)
    image.putpalette([rng.randrange(256) for _ in range(colours * 3)])
    image.putdata([rng.randrange(colours) for _ in range(size[0] * size[1])])
    return image


@pytest.mark.parametrize("size", [(1, 1), (7, 3), (300, 2), (3, 300)])
@pytest.mark.parametrize("colours", [1, 2, 129, 256])
def test_pixels_and_palette_come_back_as_written(size: tuple[int, int], colours: int) -> None:
    seed = random.randrange(2**32)
    print("seed", seed)
    image = _random_palette_image(seed, size, colours)
    data = png(image)
    assert data.startswith(SIGNATURE)
    back = Image.open(io.BytesIO(data))
    back.load()
    assert back.mode == "P" and back.size == size
    assert back.tobytes() == image.tobytes()
    assert back.getpalette()[: colours * 3] == image.getpalette()[: colours * 3]
    assert back.info == {}  # no metadata


def test_every_chunk_carries_its_checksum() -> None:
    data = png(_random_palette_image(1, (40, 30), 16))
    offset, kinds = len(SIGNATURE), []
    while offset < len(data):
        length = int.from_bytes(data[offset : offset + 4], "big")
        kind = data[offset + 4 : offset + 8]
        body = data[offset + 8 : offset + 8 + length]
        crc = int.from_bytes(data[offset + 8 + length : offset + 12 + length], "big")
        assert crc == zlib.crc32(kind + body), kind
        kinds.append(kind)
        offset += 12 + length
    assert kinds == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]


def test_only_palette_images_are_written() -> None:
    with pytest.raises(ValueError, match="palette"):
        png(Image.new("RGB", (2, 2)))

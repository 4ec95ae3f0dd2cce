"""render.png: the PNG writer's files are valid and decode to exactly the pixels that were drawn."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from engine.snapshot import OPPONENT, VIEWER
from render import png
from render.board import encode_png, render_board, render_image
from render.png import SUPPORTED_MODES, write_png
from render.theme import Theme

from .helpers import snap

THEME = Theme.build("classic", width=840)
BUSY = snap(
    "24:2 20:-5 19:-1 17:-3 13:4 12:-4 8:3 6:4 1:-2 bar:2/0",
    names=("Annabelle", "Bartholomew"),
    pips=(150, 140),
    on_roll=VIEWER,
    dice=(6, 4),
    cube_value=2,
    cube_owner=VIEWER,
    score=(3, 4),
    match_length=7,
    last_play=((13, 7, True), (7, 6, True)),
    last_play_by=OPPONENT,
)
CHANNELS = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4}
COLOUR_TYPE = {"L": 0, "LA": 4, "RGB": 2, "RGBA": 6}
#: zlib always; ISA-L's deflate too where the optional isal package is installed.
FAST = [False, True] if png.FAST_DEFLATE else [False]


def chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """(tag, data) of every chunk, checking the signature, each CRC and that nothing trails IEND."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    out = []
    i = 8
    while i < len(data):
        (length,) = struct.unpack(">I", data[i : i + 4])
        tag = data[i + 4 : i + 8]
        body = data[i + 8 : i + 8 + length]
        (crc,) = struct.unpack(">I", data[i + 8 + length : i + 12 + length])
        assert len(body) == length, f"{tag!r} is cut short"
        assert crc == zlib.crc32(tag + body), f"bad CRC in {tag!r}"
        out.append((tag, body))
        i += 12 + length
    assert i == len(data)
    return out


def decode_by_hand(data: bytes) -> tuple[str, tuple[int, int], bytes]:
    """An independent decoder for what write_png produces: (mode, size, raw pixel bytes)."""
    parts = chunks(data)
    assert [tag for tag, _ in parts] == [b"IHDR", b"IDAT", b"IEND"]
    width, height, depth, colour, compression, filtering, interlace = struct.unpack(">IIBBBBB", parts[0][1])
    assert (depth, compression, filtering, interlace) == (8, 0, 0, 0)
    mode = {v: k for k, v in COLOUR_TYPE.items()}[colour]
    raw = zlib.decompress(parts[1][1])
    row = width * CHANNELS[mode]
    assert len(raw) == height * (row + 1)
    assert raw[:: row + 1] == bytes(height), "every row uses filter type 0"
    pixels = b"".join(raw[y * (row + 1) + 1 : (y + 1) * (row + 1)] for y in range(height))
    return mode, (width, height), pixels


def assert_round_trip(im: Image.Image, data: bytes) -> None:
    with Image.open(io.BytesIO(data)) as check:
        check.verify()  # chunk CRCs and structure, as Pillow sees them
    with Image.open(io.BytesIO(data)) as back:
        assert back.format == "PNG"
        assert back.mode == im.mode
        assert back.size == im.size
        assert back.tobytes() == im.tobytes()
    assert decode_by_hand(data) == (im.mode, im.size, im.tobytes())


@pytest.mark.parametrize("fast", FAST)
def test_a_rendered_board_decodes_to_the_drawn_pixels(fast: bool) -> None:
    im = render_image(BUSY, THEME)
    data = write_png(im, 1, fast_deflate=fast)
    assert_round_trip(im, data)
    assert render_board(BUSY, THEME).png == encode_png(im, 1) == write_png(im, 1)


@pytest.mark.parametrize("fast", FAST)
def test_boards_are_no_bigger_than_pillows_own_png(fast: bool) -> None:
    im = render_image(BUSY, THEME)
    for level in (1, 6):
        buf = io.BytesIO()
        im.save(buf, "PNG", compress_level=level)
        assert len(write_png(im, level, fast_deflate=fast)) <= len(buf.getvalue())


@pytest.mark.parametrize("fast", FAST)
@pytest.mark.parametrize("level", range(10))
def test_every_compress_level_round_trips(level: int, fast: bool) -> None:
    im = render_image(snap(dice=(2, 5)), Theme.build("small", width=320))
    assert_round_trip(im, write_png(im, level, fast_deflate=fast))


def test_fast_deflate_without_isal_is_refused_for_its_levels(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(png, "_isal", None)  # as where the isal package is not installed
    im = Image.new("RGB", (3, 3))
    with pytest.raises(ValueError, match="isal"):
        write_png(im, 1, fast_deflate=True)
    assert_round_trip(im, write_png(im, 6, fast_deflate=True))  # a zlib level either way


def test_higher_levels_make_smaller_files() -> None:
    im = render_image(BUSY, THEME)
    assert len(write_png(im, 9)) < len(write_png(im, 1)) < len(write_png(im, 0))


@settings(max_examples=150, deadline=None)
@given(
    mode=st.sampled_from(sorted(SUPPORTED_MODES)),
    width=st.integers(1, 24),
    height=st.integers(1, 24),
    level=st.integers(0, 9),
    flat=st.booleans(),
    fast=st.sampled_from(FAST),
    data=st.data(),
)
def test_random_images_of_every_mode_round_trip(
    mode: str, width: int, height: int, level: int, flat: bool, fast: bool, data: st.DataObject
) -> None:
    n = width * height * CHANNELS[mode]
    if flat:  # a short repeated pattern: long deflate matches, across rows too
        seed = data.draw(st.binary(min_size=1, max_size=8))
        pixels = (seed * n)[:n]
    else:  # any bytes at all
        pixels = data.draw(st.binary(min_size=n, max_size=n))
    im = Image.frombytes(mode, (width, height), pixels)
    assert_round_trip(im, write_png(im, level, fast_deflate=fast))


def test_a_cropped_view_writes_its_own_pixels() -> None:
    big = render_image(BUSY, THEME)
    part = big.crop((101, 37, 333, 290))
    assert_round_trip(part, write_png(part))


def test_the_row_by_row_fallback_writes_the_same_file(monkeypatch: pytest.MonkeyPatch) -> None:
    im = render_image(snap(), Theme.build("small", width=320))
    fast = write_png(im, 1)
    real_tobytes = Image.Image.tobytes

    def ignore_stride(self: Image.Image, encoder_name: str = "raw", *args: object) -> bytes:
        return real_tobytes(self)  # as if the raw encoder ignored the stride

    monkeypatch.setattr(Image.Image, "tobytes", ignore_stride)
    assert write_png(im, 1) == fast


def test_the_framed_rows_are_the_png_filter_stream() -> None:
    im = Image.frombytes("RGB", (2, 3), bytes(range(18)))
    parts = png._filtered_rows(im, 6, 3)
    expected = b"".join(b"\x00" + bytes(range(y * 6, y * 6 + 6)) for y in range(3))
    assert b"".join(bytes(p) for p in parts) == expected
    assert b"".join(png._frame_rows(im.tobytes(), 6)) == b"".join(bytes(p) for p in parts)


def test_alpha_images_keep_their_alpha() -> None:
    im = Image.new("RGBA", (5, 4), (10, 20, 30, 0))
    im.putpixel((2, 1), (200, 100, 50, 128))
    data = write_png(im)
    assert dict(chunks(data))[b"IHDR"][9] == 6
    assert_round_trip(im, data)


@pytest.mark.parametrize("mode", ["P", "1", "I;16"])
def test_other_modes_are_refused_and_encode_png_hands_them_to_pillow(mode: str) -> None:
    im = Image.new(mode, (7, 5))
    with pytest.raises(ValueError, match="supports modes"):
        write_png(im)
    with Image.open(io.BytesIO(encode_png(im))) as back:
        back.load()
        assert back.size == (7, 5)


def test_bad_levels_and_empty_images_are_refused() -> None:
    with pytest.raises(ValueError, match="compress_level"):
        write_png(Image.new("RGB", (2, 2)), 10)
    with pytest.raises(ValueError, match="empty"):
        write_png(Image.new("RGB", (0, 3)))


def test_palette_boards_still_use_the_palette() -> None:
    board = render_board(BUSY, THEME, palette_colors=64)
    with Image.open(io.BytesIO(board.png)) as im:
        assert im.mode == "P"
        assert len(im.getcolors(256) or []) <= 64

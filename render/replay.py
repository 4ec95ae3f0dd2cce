"""A game as an animated GIF: one frame per play, each the board (as :mod:`render.board` draws it) over a caption.

    from render.replay import render_replay
    movie = render_replay(replay_frames(setup, actions, game=2), theme)     # RenderedReplay

The frames come from :func:`engine.matchcard.replay_frames`: the start of the game, then the board after each
play with its dice and the checkers moved. Every frame shares one palette of at most 256 colours, taken from a
sample of the frames, so the theme's colours stay put from frame to frame and the GIF stores only what changed.

Discord refuses files above its upload limit (8 MB on a server without boosts), so the GIF is kept under
:data:`MAX_BYTES`: it is drawn at :data:`WIDTHS` ``[0]`` pixels and, if that is too big, again narrower, then with
fewer colours. Drawing is pure and thread-safe, and takes about a second for a long game: run it in a worker thread.
The frames' counters and the text alternative are in the active language (:mod:`engine.i18n`); the captions come
from the frames.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from PIL import Image, ImageChops, ImageDraw, ImageFont

from engine import i18n
from engine.i18n import _, ngettext
from engine.matchcard import ReplayFrame

from .board import render_image
from .canvas import ellipsize, ellipsize_by, wrap
from .fonts import font
from .theme import MIN_WIDTH, Theme, builtin_config

__all__ = ["RenderedReplay", "MAX_BYTES", "WIDTHS", "render_replay", "replay_text", "frame_image", "encode_gif"]

#: The largest GIF made, in bytes: well under Discord's 8 MB upload limit.
MAX_BYTES = 6_000_000
#: The widths tried, widest first, until the GIF fits in :data:`MAX_BYTES`.
WIDTHS = (640, 520, 420, MIN_WIDTH)
#: How long each frame shows, in milliseconds: the start, each play, and the last (the game's end).
FIRST_MS, PLAY_MS, LAST_MS = 1500, 1200, 4000


@dataclass(frozen=True, slots=True)
class RenderedReplay:
    """An animated GIF of a game: its bytes, size, frame count and a text alternative."""

    gif: bytes
    width: int
    height: int
    frames: int
    alt_text: str


def render_replay(
    frames: Sequence[ReplayFrame],
    theme: Theme | None = None,
    *,
    max_bytes: int = MAX_BYTES,
    widths: Sequence[int] = WIDTHS,
) -> RenderedReplay:
    """The GIF of ``frames`` at the widest of ``widths`` (then with 64 colours at the narrowest) whose file is at
    most ``max_bytes``; ValueError when there are no frames or even the smallest GIF is too big.

    The pictures are drawn one at a time and only their changes kept, so a long game needs little memory."""
    if not frames:
        raise ValueError("a replay needs at least one frame")  # a caller's mistake: every game has its start
    t = theme or builtin_config().theme()
    tries = [(w, 255) for w in widths] + [(widths[-1], 64)]
    size = 0
    for width, colours in tries:
        sized = replace(t, width=width)
        sample = [frame_image(frames, k, sized) for k in _sample(len(frames))]
        pictures = (frame_image(frames, k, sized) for k in range(len(frames)))
        data = encode_gif(pictures, _palette(sample, colours), len(frames))
        size = len(data)
        if size <= max_bytes:
            return RenderedReplay(data, sample[0].width, sample[0].height, len(frames), replay_text(frames))
    raise ValueError(
        ngettext(
            "a replay of {plays} play takes {size} bytes even small, more than {limit}",
            "a replay of {plays} plays takes {size} bytes even small, more than {limit}",
            len(frames),
        ).format(plays=len(frames), size=i18n.number(size), limit=i18n.number(max_bytes))
    )


def replay_text(frames: Sequence[ReplayFrame]) -> str:
    """The text alternative of a replay (at most 1,024 characters, Discord's limit): how many plays it shows, the
    first frame's caption and the last one's, each said once."""
    plays = len(frames) - 1
    if plays:
        head = ngettext(
            "Replay of {count} play: the start, then a picture after each play.",
            "Replay of {count} plays: the start, then a picture after each play.",
            plays,
        ).format(count=plays)
    else:
        head = _("Replay of a game ended before any play: one picture.")
    captions = [frames[0].caption]
    if frames[-1].caption != frames[0].caption:
        captions.append(frames[-1].caption)
    return " ".join([head, *(_sentence(c) for c in captions if c)])[:1024]


def _sentence(text: str) -> str:
    """``text`` ending in a full stop (unless it ends in one, or in another closing mark, already)."""
    text = text.strip()
    return text if text.endswith((".", "!", "?", "…")) else f"{text}."


def frame_image(frames: Sequence[ReplayFrame], k: int, theme: Theme) -> Image.Image:
    """Frame ``k`` as an RGB picture: the board, and under it the caption with the frame's number."""
    # Translators: the counter in a replay frame's corner: the start of the game, then each play.
    counter = _("start") if k == 0 else _("play {number} of {total}").format(number=k, total=len(frames) - 1)
    return _with_caption(render_image(frames[k].snapshot, theme), theme, frames[k].caption, counter)


def _with_caption(board: Image.Image, theme: Theme, caption: str, counter: str) -> Image.Image:
    w = board.width
    size = max(11, round(w * 0.024))
    pad = round(size * 0.7)
    f = font(size)
    counter = ellipsize(counter, size, w // 3)
    right = f.getlength(counter)
    lines = _caption_lines(caption, f, w - 3 * pad - right)
    strip = pad * 2 + 2 * round(size * 1.35)  # room for two lines on every frame: a GIF's frames share one size
    im = Image.new("RGB", (w, board.height + strip), theme.rgb("info"))
    im.paste(board, (0, 0))
    draw = ImageDraw.Draw(im)
    draw.rectangle((0, board.height, max(3, size // 4) - 1, im.height - 1), fill=theme.rgb("accent"))
    y = board.height + pad
    for line in lines:
        draw.text((pad + size // 3, y), line, fill=theme.rgb("text"), font=f, anchor="la")
        y += round(size * 1.35)
    draw.text((w - pad, board.height + pad), counter, fill=theme.rgb("text dim"), font=f, anchor="ra")
    return im


def _caption_lines(text: str, f: ImageFont.FreeTypeFont, limit: float) -> list[str]:
    """The caption in at most two lines; the second is cut short with "…" (the space before it kept) when the
    caption needs more."""
    lines = wrap(text, limit, f.getlength)
    if len(lines) > 2:
        lines = [lines[0], ellipsize_by(" ".join(lines[1:]), limit, f.getlength, strip=False)]
    return lines


def encode_gif(pictures: Iterable[Image.Image], palette: Image.Image, count: int) -> bytes:
    """An endlessly looping GIF of the ``count`` ``pictures`` (RGB, one size, drawn as the writer asks for them) in
    the colours of ``palette`` (a palette image of at most 255 colours, :func:`_palette`).

    Each frame after the first stores only its changed pixels: the others are transparent, over the frame before
    (which stays: disposal 1), so the long runs of one index compress to almost nothing.
    """
    durations = [FIRST_MS if k == 0 else LAST_MS if k == count - 1 else PLAY_MS for k in range(count)]

    def deltas() -> Iterator[Image.Image]:
        before: Image.Image | None = None
        for picture in pictures:
            now = picture.quantize(palette=palette, dither=Image.Dither.NONE)
            if before is None:
                yield now
            else:
                unchanged = ImageChops.difference(_indices(before), _indices(now)).point(_ZERO_TO_WHITE)
                delta = now.copy()
                delta.paste(_CLEAR, mask=unchanged)
                yield delta
            before = now

    stream = deltas()
    first = next(stream)
    buf = io.BytesIO()
    first.save(
        buf,
        "GIF",
        save_all=True,
        append_images=stream,
        duration=durations if count > 1 else LAST_MS,
        loop=0,
        optimize=False,
        transparency=_CLEAR,
        disposal=1,
    )
    return buf.getvalue()


#: The palette index left free for "unchanged" pixels (the palette has at most 255 colours).
_CLEAR = 255
_ZERO_TO_WHITE = [255] + [0] * 255


def _indices(im: Image.Image) -> Image.Image:
    """A palette image's indices as a grey image (to compare two frames pixel by pixel)."""
    return Image.frombytes("L", im.size, im.tobytes())


def _sample(n: int) -> list[int]:
    """Up to eight frames spread over a game, the first and the last included: what the palette is taken from."""
    return sorted({round(i * (n - 1) / 7) for i in range(8)}) if n > 8 else list(range(n))


def _palette(sample: Sequence[Image.Image], colours: int) -> Image.Image:
    """One palette of at most ``colours`` (≤ 255) colours for every frame, from a few of them."""
    w, h = sample[0].size
    sheet = Image.new("RGB", (w, h * len(sample)))
    for k, im in enumerate(sample):
        sheet.paste(im, (0, k * h))
    return sheet.quantize(min(colours, 255), method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)

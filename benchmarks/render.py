"""Board rendering speed and PNG size at the default theme size.

    python benchmarks/render.py [--runs N] [--theme NAME] [--config config.toml] [--level 0-9] [--colors N]

For a busy middle-game board (stacks over five, a hit, checkers on the bar, last play marked, dice,
an owned cube, names and score) it prints, as medians over N runs after a warm-up, both the wall-clock
time and the CPU time of the measuring thread (the latter is what a core spends on a board, and stays
put when other processes load the machine; the targets use it):

* render + encode: ``render_board`` (copy the cached static board, draw what changes, PNG-encode);
* drawing alone (``render_image``) and the bare encode alone (``encode_png`` of the drawn image with the
  same settings, palette reduction included: our writer, :mod:`render.png`, for full colour; Pillow
  for palette images);
* the ratio of render + encode to that bare encode: what drawing adds on top of the encoding it feeds
  (information only: issue 5's target of <= 1.5x was set against Pillow's slow encoder; with a faster
  encoder the same drawing makes the ratio larger, so it no longer measures drawing well);
* for comparison, Pillow's own PNG encoder on the same final image at the same level (time and size);
* the PNG size, the one-off cost of drawing the static board (cold cache), and renders per second
  with two worker threads.

Targets: render + encode <= 5 ms of CPU (issue 6 asks 200 game actions/s with a board each: 5 ms per
action for everything), PNG <= 200 KB. With the optional ``isal`` package installed, levels 1 and 2
compress with ISA-L (see :mod:`render.png`); the first line says which deflate ran.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

from engine.position import Position  # noqa: E402
from engine.snapshot import OPPONENT, VIEWER, BoardSnapshot, snapshot_of  # noqa: E402
from render import sprites  # noqa: E402
from render.board import encode_png, render_board, render_image  # noqa: E402
from render.layout import compute_layout  # noqa: E402
from render.png import FAST_DEFLATE  # noqa: E402
from render.theme import load_config  # noqa: E402
from variants.backgammon import Backgammon  # noqa: E402


def busy_board() -> BoardSnapshot:
    """A middle game seen by the player on roll after the opponent hit twice (13/7*/6*)."""
    v = Backgammon()
    pos = Position.parse("24:2 20:-5 19:-1 17:-3 13:4 12:-4 8:3 6:4 1:-2 bar:2/0")
    v.validate_position(pos)
    return snapshot_of(
        v,
        pos,
        dice=(6, 4),
        names=("Annabelle", "Bartholomew"),
        score=(3, 4),
        match_length=7,
        cube_value=2,
        cube_owner=VIEWER,
        last_play=((13, 7, True), (7, 6, True)),
        last_play_by=OPPONENT,
    )


def median_ms(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    """Medians over ``runs`` calls of (wall-clock ms, CPU ms of this thread)."""
    wall, cpu = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.thread_time()
        fn()
        cpu.append(time.thread_time() - c)
        wall.append(time.perf_counter() - t)
    return statistics.median(wall) * 1000, statistics.median(cpu) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--theme", default=None)
    parser.add_argument("--config", type=Path, default=None)
    parser.add_argument("--level", type=int, default=None, help="PNG compress_level (default: the config's)")
    parser.add_argument("--colors", type=int, default=None, help="palette_colors (default: the config's)")
    args = parser.parse_args()
    config = load_config(args.config)
    theme = config.theme(args.theme)
    level = config.compress_level if args.level is None else args.level
    colors = config.palette_colors if args.colors is None else args.colors
    snap = busy_board()

    layout = compute_layout(theme.width, snap.geometry, snap.home)
    t = time.perf_counter()
    sprites.static_board(theme, layout)
    cold = (time.perf_counter() - t) * 1000

    for _ in range(5):  # warm-up: sprites, fonts
        board = render_board(snap, theme, compress_level=level, palette_colors=colors)
    image = render_image(snap, theme)
    final = image  # what the PNG holds: the drawn image, or its reduction to a palette
    if colors:
        final = image.quantize(colors, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    full = median_ms(lambda: render_board(snap, theme, compress_level=level, palette_colors=colors), args.runs)
    draw = median_ms(lambda: render_image(snap, theme), args.runs)
    bare = median_ms(lambda: encode_png(image, level, colors), args.runs)

    def pillow_png() -> bytes:
        buf = io.BytesIO()
        final.save(buf, "PNG", compress_level=level)
        return buf.getvalue()

    pillow = median_ms(pillow_png, args.runs)
    pillow_size = len(pillow_png())

    jobs = 40
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda _: render_board(snap, theme, compress_level=level, palette_colors=colors), range(4)))
        t = time.perf_counter()
        list(pool.map(lambda _: render_board(snap, theme, compress_level=level, palette_colors=colors), range(jobs)))
        threaded = jobs / (time.perf_counter() - t)

    size = len(board.png)
    ratio = full[1] / bare[1]
    mode = f"{colors} colours" if colors else "full colour"
    deflate = "ISA-L (isal) deflate" if FAST_DEFLATE and level in (1, 2) else "zlib deflate"
    print(f"theme {theme.name!r}, {board.width}x{board.height} px, compress_level {level}, {mode}, {deflate}")
    print(f"medians of {args.runs} runs, ms:     wall     CPU")
    print(f"render + encode:          {full[0]:6.2f}  {full[1]:6.2f}  (target: CPU <= 5 ms)")
    print(f"  of which drawing:       {draw[0]:6.2f}  {draw[1]:6.2f}")
    print(f"bare PNG encode:          {bare[0]:6.2f}  {bare[1]:6.2f}  (encode_png of the drawn image, same settings)")
    print(f"Pillow's PNG encoder:     {pillow[0]:6.2f}  {pillow[1]:6.2f}  (the same final image and level)")
    print(f"ratio:                    {ratio:6.2f}x         (render + encode / bare encode, CPU; information)")
    print(f"PNG size:                 {size / 1000:6.1f} KB  (target <= 200 KB; Pillow's: {pillow_size / 1000:.1f} KB)")
    print(f"static board, cold:       {cold:6.1f} ms  (once per theme, size, geometry and orientation)")
    print(f"two worker threads:       {threaded:6.0f} renders/s")
    ok = full[1] <= 5 and size <= 200_000
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""A gallery of representative boards for every registered rule set, in every language:
``python -m render.gallery OUTDIR [--lang ru] [--lang el] ...`` (every shipped language by default).

Each language gets a folder of its own (``OUTDIR/en``, ``OUTDIR/ru`` ...). For each rule set in the plugin registry
it writes ``<name>-<scene>.png`` there (and prints each file's text alternative): the opening roll, contact with a
hit, checkers on the bar, a bear-off, an owned cube, a cube being offered, the Crawford game, team names, the home
board on the left, a play being entered, the end of a game with its result, the opponent's view and the
high-contrast theme; then the longest texts a board shows (long names in the Crawford game, a cube offered between
them, a resigned game ending the match, long team names entering a play). Positions come only from the rule set's
start position and its legal plays (a short seeded game), so a rule set added by a plugin gets a gallery too; scenes
a rule set cannot have (a bar without a bar, a cube without a cube) are skipped. Each language's folder also holds a
match card (``match-card.png``) and two frames of a game's replay (``replay-first.png``, ``replay-last.png``).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from engine import i18n
from engine.i18n import _
from engine.matchcard import CardAnalysis, CubeAction, DiceLuck, EquityPoint, GameLine, MatchCard, SideQuality
from engine.movegen import Play
from engine.plugins import get_variant, registry
from engine.position import Position
from engine.snapshot import OPPONENT, VIEWER, BoardSnapshot, GameEnd, snapshot_of
from engine.turn import TurnDraft
from engine.variant import Variant

from .board import render_board
from .card import render_card
from .replay import frame_image
from .theme import Theme, load_config

__all__ = ["Turn", "play_game", "scenes", "long_scenes", "sample_card", "write_gallery", "write_galleries", "main"]

NAMES = ("Ann", "Bob")
TEAMS = (("Red Foxes", "Ann"), ("Blue Herons", "Bob"))
#: Long names (Latin, Cyrillic, Greek): the name rows must cut them, never run over the labels beside them.
LONG_NAMES = ("Konstantinos Papadopoulos-Georgiou", "Александра Константиновна Ворошилова")
LONG_TEAMS = (("Αστέρια της Θεσσαλονίκης", "Κωνσταντίνος"), ("Yıldızlar Kulübü İstanbul", "Şükrü"))


@dataclass(frozen=True)
class Turn:
    """One turn of a generated game: the roller's position before, the dice, and the play made."""

    before: Position
    dice: tuple[int, int]
    play: Play
    number: int

    @property
    def hits(self) -> int:
        return sum(1 for _src, _dst, hit in self.play.moves if hit)


def _rank(play: Play, number: int) -> tuple[int, ...]:
    """Lower is better. Early on: hit as much as possible. Later: bring the last checker home, stay safe."""
    pos = play.position
    hits = sum(1 for _src, _dst, hit in play.moves if hit)
    back = 25 if pos.bar[0] else max((p for p in range(1, 25) if pos.board[p - 1] > 0), default=0)
    blots = sum(1 for v in pos.board if v == 1)
    if number < 16:
        return (-hits, blots, back)
    return (back, blots, hits)


def play_game(variant: Variant, seed: int = 7, max_turns: int = 400) -> Iterator[Turn]:
    """A deterministic game: seeded dice; plays hit early, then race home safely (see ``_rank``)."""
    rng = random.Random(seed)
    pos = variant.start_position()
    for number in range(max_turns):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        if number == 0:
            while dice[0] == dice[1]:  # an opening roll is never a doublet
                dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = variant.legal_plays(pos, dice, number < 2)
        best = min(plays, key=lambda p: (*_rank(p, number), p.notation))
        yield Turn(pos, dice, best, number)
        after = best.position
        if after.off[0] == variant.checkers:
            return
        pos = variant.flip(after)


def _after(variant: Variant, turn: Turn, next_dice: tuple[int, int] | None, **kw: object) -> BoardSnapshot:
    """The board after ``turn``, seen by the next roller, with the last play marked."""
    return snapshot_of(
        variant,
        variant.flip(turn.play.position),
        dice=next_dice,
        last_play=turn.play.moves,
        last_play_by=OPPONENT,
        names=NAMES,
        **kw,  # type: ignore[arg-type]
    )


def scenes(variant: Variant, seed: int = 7) -> list[tuple[str, BoardSnapshot]]:
    """The gallery's (scene name, snapshot) pairs for ``variant``."""
    out: list[tuple[str, BoardSnapshot]] = []
    start = variant.start_position()
    out.append(
        (
            "opening",
            snapshot_of(variant, start, on_roll=False, opening_dice=(3, 5), names=NAMES, match_length=7),
        )
    )
    turns = list(play_game(variant, seed))
    if not turns:
        return out
    rng = random.Random(seed + 1)

    def roll() -> tuple[int, int]:
        return rng.randint(1, 6), rng.randint(1, 6)

    # Contact: the first hit if the rule set hits, else the middle game.
    hit = next((t for t in turns if t.hits), None)
    contact = hit or turns[min(len(turns) - 1, 8)]
    out.append(("contact", _after(variant, contact, roll(), match_length=7, score=(2, 3))))
    # Checkers on the bar: the first position where someone waits on the bar.
    on_bar = [t for t in turns if any(t.play.position.bar) and t is not contact] or [
        t for t in turns if any(t.play.position.bar)
    ]
    bar = max(on_bar, key=lambda t: (sum(t.play.position.bar), -t.number)) if on_bar else None
    if bar is not None and variant.geometry.has_bar:
        out.append(("bar", _after(variant, bar, roll(), match_length=7, score=(2, 3))))
    # Bear-off: the first position where both sides have borne off, else the mover's first bear-off.
    bearing = [t for t in turns if 0 < t.play.position.off[0] < variant.checkers]
    both = [t for t in bearing if all(t.play.position.off)]
    if bearing:
        pick = both[0] if both else bearing[len(bearing) // 2]
        out.append(("bearoff", _after(variant, pick, roll(), cube_value=4, cube_owner=VIEWER)))
    middle = turns[min(len(turns) - 1, 12)]
    if variant.uses_cube:
        out.append(("cube-owned", _after(variant, middle, roll(), cube_value=2, cube_owner=OPPONENT, match_length=9)))
        out.append(
            (
                "cube-offered",
                _after(variant, middle, None, cube_value=2, cube_owner=VIEWER, cube_offered_by=VIEWER, match_length=9),
            )
        )
        out.append(
            (
                "crawford",
                _after(variant, middle, roll(), match_length=5, score=(4, 2), cube_unavailable="Crawford"),
            )
        )
    if variant.team_size > 1:
        teams = (TEAMS[0][0], TEAMS[1][0])
        snap = _after(variant, contact, roll(), match_length=11, score=(5, 6))
        out.append(("teams", replace(snap, team_names=teams, names=(TEAMS[0][1], TEAMS[1][1]))))
    out.append(("home-left", replace(_after(variant, contact, roll(), match_length=7, score=(2, 3)), home="left")))
    # A play being entered checker by checker: its first checker moved, the die it used drawn faint.
    several = next((t for t in turns if len(t.play.moves) >= 2), None)
    if several is not None:
        src, dst, _hit = several.play.moves[0]
        draft = TurnDraft(variant, several.before, several.dice, several.number < 2).add(src, dst)
        moving = snapshot_of(
            variant,
            draft.position,
            dice=several.dice,
            names=NAMES,
            last_play=draft.moves,
            last_play_by=VIEWER,
            draft=True,
            dice_used=draft.dice_used,
            position_id_of=several.before,
        )
        out.append(("moving", moving))
    # The end of a game: the last checker borne off, the result in the rule set's own words; the match goes on.
    last = turns[-1]
    if last.play.position.off[0] == variant.checkers:
        level = variant.game_result(last.play.position)
        end = GameEnd(VIEWER, level, variant.result_name(level), "borne off", game=4)
        over = snapshot_of(
            variant,
            last.play.position,
            on_roll=False,
            names=NAMES,
            last_play=last.play.moves,
            last_play_by=VIEWER,
            match_length=7,
            score=(2 + level, 3),
            result=end,
        )
        out.append(("game-over", over))
    # The same board as the player who just moved sees it: their own home at the bottom.
    other = snapshot_of(
        variant,
        variant.flip(contact.play.position),
        viewer_on_roll=False,
        dice=roll(),
        last_play=contact.play.moves,
        last_play_by=VIEWER,
        names=(NAMES[1], NAMES[0]),
        viewer_checkers="dark",
        match_length=7,
        score=(3, 2),
    )
    out.append(("opponent-view", other))
    return out


def long_scenes(variant: Variant, seed: int = 7) -> list[tuple[str, BoardSnapshot]]:
    """Scenes with the longest texts a board shows, for ``variant``: long names in the Crawford game of a long match
    (the match label beside them), a cube offered between them, a game resigned at the highest level ending the
    match (the longest banner), and long team names with a play being entered."""
    out: list[tuple[str, BoardSnapshot]] = []
    turns = list(play_game(variant, seed))
    if not turns:
        return out
    middle = turns[min(len(turns) - 1, 12)]
    dice = (6, 5)
    if variant.uses_cube:
        crawford = _after(variant, middle, dice, match_length=25, score=(24, 23), cube_unavailable="Crawford")
        out.append(("long-crawford", replace(crawford, names=LONG_NAMES, pips=(188, 166))))
        offered = _after(
            variant, middle, None, cube_value=32, cube_owner=VIEWER, cube_offered_by=VIEWER, match_length=25
        )
        out.append(("long-offered", replace(offered, names=LONG_NAMES, score=(17, 18))))
    level = max(variant.results) if variant.results else 1
    end = GameEnd(
        OPPONENT,
        level * 64,
        variant.result_name(level),
        "resign",
        game=23,
        match_over=True,
        match_winner=OPPONENT,
    )
    banner = snapshot_of(
        variant,
        middle.play.position,
        on_roll=False,
        names=LONG_NAMES,
        last_play=middle.play.moves,
        last_play_by=VIEWER,
        match_length=25,
        score=(19, 25),
        result=end,
    )
    out.append(("long-result", banner))
    several = next((t for t in turns if len(t.play.moves) >= 2), None)
    if several is not None and variant.team_size > 1:
        src, dst, _hit = several.play.moves[0]
        draft = TurnDraft(variant, several.before, several.dice, several.number < 2).add(src, dst)
        moving = snapshot_of(
            variant,
            draft.position,
            dice=several.dice,
            names=(LONG_TEAMS[0][1], LONG_TEAMS[1][1]),
            last_play=draft.moves,
            last_play_by=VIEWER,
            draft=True,
            dice_used=draft.dice_used,
            position_id_of=several.before,
            match_length=25,
            score=(11, 12),
        )
        out.append(("long-teams", replace(moving, team_names=(LONG_TEAMS[0][0], LONG_TEAMS[1][0]))))
    return out


def sample_card() -> MatchCard:
    """A finished 7-point match with every part of a match card: long names, a Crawford game, gammons, each kind of
    cube action, an analysis."""
    games = (
        GameLine(1, 0, 2, 2, "borne off", 1, (2, 0), plays=40),
        GameLine(2, 1, 2, 1, "pass", 2, (2, 2), plays=22),
        GameLine(3, 0, 4, 2, "resign", 2, (6, 2), plays=35),
        GameLine(4, 1, 3, 3, "borne off", 1, (6, 5), crawford=True, plays=51),
        GameLine(5, 0, 1, 1, "borne off", 1, (7, 5), plays=44),
    )
    cube = (
        CubeAction(2, 0, "double", 2),
        CubeAction(2, 1, "beaver", 4),
        CubeAction(2, 1, "double", 8),
        CubeAction(2, 0, "pass", 8),
        CubeAction(3, 1, "double", 2),
        CubeAction(3, 0, "take", 2),
        CubeAction(5, 1, "double", 2),
        CubeAction(5, 0, "raccoon", 8),
    )
    dice = (DiceLuck(96, 805, 18, 30, 14, 11.2, 9), DiceLuck(95, 760, 13, 41, 12, 15.5, 8))
    equity = tuple(
        EquityPoint(1 + min(4, k // 40), 0.9 * ((k * 37) % 100 - 50) / 50 * (0.5 if k % 3 else 1.0)) for k in range(200)
    )
    sides = (SideQuality(101, 9, 1, 0.61, 6.04), SideQuality(99, 17, 4, 1.92, 19.39))
    analysis = CardAnalysis("bgsage (strong)", "cubeful equity (bgsage 1-ply)", True, sides, equity)
    return MatchCard(
        variant="Backgammon",
        names=LONG_NAMES,
        length=7,
        games=games,
        score=(7, 5),
        winner=0,
        over=True,
        dice=dice,
        cube=cube,
        uses_cube=True,
        hitting=True,
        analysis=analysis,
    )


def write_gallery(
    outdir: Path,
    theme: Theme | None = None,
    contrast: Theme | None = None,
    variants: Mapping[str, type[Variant]] | None = None,
    quiet: bool = False,
) -> list[Path]:
    """Render every scene of every registered rule set (or of ``variants``) into ``outdir``.

    Returns the files written; each name starts with the rule set's name. ``contrast`` adds the contact
    scene in that theme.
    """
    outdir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    chosen = registry().variants if variants is None else variants
    for name, cls in sorted(chosen.items()):
        variant = cls()
        for scene, snap in scenes(variant) + long_scenes(variant):
            board = render_board(snap, theme)
            path = outdir / f"{name}-{scene}.png"
            path.write_bytes(board.png)
            written.append(path)
            if not quiet:
                print(f"{path}: {board.alt_text}")
            if contrast is not None and scene == "contact":
                board = render_board(snap, contrast)
                path = outdir / f"{name}-{scene}-{contrast.name}.png"
                path.write_bytes(board.png)
                written.append(path)
                if not quiet:
                    print(f"{path}: {board.alt_text}")
    return written


def write_extras(outdir: Path, theme: Theme | None = None, quiet: bool = False) -> list[Path]:
    """The match card (:func:`sample_card`) and the first and last frames of a self-played Backgammon game's replay,
    into ``outdir``."""
    from engine.match import MatchOptions
    from engine.matchcard import replay_frames
    from engine.selfplay import play_match

    outdir.mkdir(parents=True, exist_ok=True)
    backgammon = get_variant("backgammon")
    card = render_card(sample_card(), theme, title=f"#12 {_(backgammon.display_name)}")
    path = outdir / "match-card.png"
    path.write_bytes(card.png)
    written = [path]
    if not quiet:
        print(f"{path}: {card.alt_text}")
    final, actions = play_match(backgammon, MatchOptions(length=3), 11)
    frames = replay_frames(final.setup, actions, 1, names={"Alice": LONG_NAMES[0], "Bob": LONG_NAMES[1]})
    sized = replace(theme, width=640) if theme is not None else Theme.build("classic", width=640)
    for label, k in (("first", 1), ("last", len(frames) - 1)):
        path = outdir / f"replay-{label}.png"
        frame_image(frames, k, sized).save(path)
        written.append(path)
        if not quiet:
            print(f"{path}: {frames[k].caption}")
    return written


def write_galleries(
    outdir: Path,
    languages: Sequence[str] = i18n.LANGUAGES,
    theme: Theme | None = None,
    contrast: Theme | None = None,
    variants: Mapping[str, type[Variant]] | None = None,
    quiet: bool = False,
) -> list[Path]:
    """:func:`write_gallery` and :func:`write_extras` once per language, each into ``outdir/<language>``."""
    written: list[Path] = []
    for lang in languages:
        with i18n.use(lang):
            folder = outdir / lang
            written += write_gallery(folder, theme, contrast, variants, quiet)
            written += write_extras(folder, theme, quiet)
    return written


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m render.gallery OUTDIR [--lang LANG ...] [--config config.toml] [--theme NAME]``."""
    parser = argparse.ArgumentParser(prog="python -m render.gallery", description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path, help="folder to write the PNG files into, one folder per language")
    parser.add_argument(
        "--lang",
        action="append",
        choices=[*i18n.LANGUAGES, i18n.PSEUDO],
        help="a language to draw in (repeat for several; default: every shipped language)",
    )
    parser.add_argument("--config", type=Path, default=None, help="config.toml with a [render] section")
    parser.add_argument("--theme", default=None, help="theme name (default: the config's default theme)")
    parser.add_argument("--quiet", action="store_true", help="do not print each file's text alternative")
    args = parser.parse_args(argv)
    config = load_config(args.config)
    theme = config.theme(args.theme)
    contrast = config.themes.get("high-contrast")
    languages = args.lang or list(i18n.LANGUAGES)
    files = write_galleries(args.outdir, languages, theme, contrast if contrast != theme else None, quiet=args.quiet)
    print(f"{len(files)} pictures written to {args.outdir} ({', '.join(languages)})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The ``gammonbot`` command line: run the bot, and tools for players and analysts.

Every error a user can cause is one line on standard error and a non-zero exit, never a traceback. What a user reads
(results, errors, the console) is in the language of ``--lang``, else of ``GAMMONBOT_LANG``, else English; ``--help``
stays English.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from engine import Position, PositionError, decode_position_id, encode_position_id, i18n
from engine.i18n import _, ngettext
from engine.plugins import PluginError, UnknownVariant, get_variant, registry
from engine.variant import NextStage, TurnContext, TurnStep, Variant, VariantOptionError

__all__ = ["main"]


class UsageError(Exception):
    """A problem with what the user typed; printed as one line."""


#: The environment variable naming the language of ``gammonbot``'s output when ``--lang`` is not given.
ENV_LANG = "GAMMONBOT_LANG"


def _languages() -> str:
    return ", ".join(f"{code} ({i18n.LANGUAGE_NAMES[code]})" for code in i18n.LANGUAGES)


def output_language(given: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The language ``gammonbot`` speaks: ``--lang`` when given, else ``GAMMONBOT_LANG``, else English. A tag that
    names no shipped language (engine.i18n.LANGUAGES; ``ru-RU`` is ``ru``) is refused with the list of them."""
    env = os.environ if environ is None else environ
    from_env = str(env.get(ENV_LANG, "")).strip()
    fallback = i18n.normalize(from_env) if from_env else None
    if given is not None:
        lang = i18n.normalize(given)
        if lang is None:
            with i18n.use(fallback or i18n.DEFAULT):
                raise UsageError(
                    _("--lang {lang}: no such language; choose one of {languages}").format(
                        lang=repr(given), languages=_languages()
                    )
                )
        return lang
    if from_env and fallback is None:
        raise UsageError(
            _("{variable} (environment) {lang}: no such language; choose one of {languages}").format(
                variable=ENV_LANG, lang=repr(from_env), languages=_languages()
            )
        )
    return fallback or i18n.DEFAULT


def parse_dice(text: str) -> tuple[int, int]:
    """``31``, ``3-1``, ``3,1`` or ``3 1`` as a pair of dice."""
    digits = re.sub(r"[\s,\-:]", "", text)
    if not re.fullmatch(r"\d\d", digits):
        raise UsageError(_("dice {dice}: write two numbers from 1 to 6, like 31 or 3-1").format(dice=repr(text)))
    a, b = int(digits[0]), int(digits[1])
    if not (1 <= a <= 6 and 1 <= b <= 6):
        raise UsageError(_("dice {dice}: each die shows 1 to 6").format(dice=repr(text)))
    return a, b


def _variant(name: str) -> Variant:
    try:
        return get_variant(name)
    except (UnknownVariant, VariantOptionError) as exc:
        raise UsageError(str(exc)) from None


def cmd_plays(args: argparse.Namespace, out: TextIO) -> int:
    if args.jsonl:
        return _plays_jsonl(sys.stdin, out)
    if args.position is None or args.dice is None:
        raise UsageError(_("give a Position ID and dice (e.g. gammonbot plays 4HPwATDgc/ABMA 31), or --jsonl"))
    variant = _variant(args.variant)
    try:
        pos = decode_position_id(variant, args.position)
    except PositionError as exc:
        raise UsageError(str(exc)) from None
    dice = parse_dice(args.dice)
    plays = variant.legal_plays(pos, dice, args.first_move)
    if plays.no_move:
        none = _("no legal play with {dice}").format(dice=f"{dice[0]}-{dice[1]}")
        out.write(f"{none}\t{encode_position_id(variant, variant.flip(pos))}\n")
        return 0
    for play in sorted(plays, key=lambda p: p.notation):
        out.write(f"{play.notation}\t{encode_position_id(variant, variant.flip(play.position))}\n")
    return 0


def _row_error(lineno: int, message: str) -> UsageError:
    return UsageError(_("line {line}: {problem}").format(line=lineno, problem=message))


def _plays_jsonl(inp: TextIO, out: TextIO) -> int:
    variants: dict[str, Variant] = {}
    for lineno, line in enumerate(inp, 1):
        if not line.strip():
            continue
        try:
            row: dict[str, Any] = json.loads(line)
        except json.JSONDecodeError as exc:
            raise _row_error(lineno, _("not JSON ({reason})").format(reason=exc.msg)) from None
        if not isinstance(row, dict):
            raise _row_error(lineno, _("each line must be a JSON object"))
        name = row.get("variant")
        if not isinstance(name, str):
            raise _row_error(lineno, _('the row has no "variant"'))
        if name not in variants:
            try:
                variants[name] = get_variant(name)
            except UnknownVariant as exc:
                raise _row_error(lineno, str(exc)) from None
        variant = variants[name]
        try:
            pos = Position.from_frame(row.get("position") or {})
            variant.validate_position(pos)
        except PositionError as exc:
            raise _row_error(lineno, _("bad position: {reason}").format(reason=exc)) from None
        dice = row.get("dice")
        if not (isinstance(dice, list) and len(dice) == 2 and all(isinstance(d, int) and 1 <= d <= 6 for d in dice)):
            raise _row_error(lineno, _('"dice" must be two numbers from 1 to 6, got {dice}').format(dice=repr(dice)))
        roll = (dice[0], dice[1])
        turn = row.get("turn", 1)
        if type(turn) is not int or turn < 1:
            raise _row_error(lineno, _('"turn" must be a turn number from 1, got {turn}').format(turn=repr(turn)))
        plays = variant.legal_plays(pos, roll, bool(row.get("first_move", False)))
        frame = row.get("position") or {}
        keys = ("pinned" in frame, "reserve" in frame)
        row["plays"] = [_play_frame(variant, p.position, *keys) for p in plays]
        step = _stage(variant, roll, plays.max_dice, TurnContext(turn=turn))
        if "turn" in row or "next" in row:  # a stage row: the next stage's dice when the rule set fixes them
            fixed = isinstance(step, NextStage) and step.step is TurnStep.FIXED_DICE
            row["next"] = list(step.dice) if isinstance(step, NextStage) and fixed and step.dice else None
        if step is TurnStep.NAME_DOUBLE:
            row["bonus"] = True
            row["named"] = _named(variant, plays, row.get("named"), keys, lineno)
        elif "bonus" in row or "named" in row:
            row["bonus"], row["named"] = False, []
        out.write(json.dumps(row, separators=(",", ":")) + "\n")
    return 0


def _stage(variant: Variant, dice: tuple[int, int], used: int, context: TurnContext) -> NextStage | TurnStep | None:
    """What follows a stage by the rule set's ``next_stage``: a bare :class:`TurnStep` for a step without dice."""
    step = variant.next_stage(dice, used, context)
    if isinstance(step, NextStage) and step.dice is None:
        return step.step
    return step


def _named(variant: Variant, plays: Any, given: Any, keys: tuple[bool, bool], lineno: int) -> list[dict[str, Any]]:
    """A bonus row's named continuations: for each ``{"after", "double"}`` the row gives, every legal play of that
    doublet from that position and whether it earns another throw (``reroll``); a row that gives none gets the six
    doublets from its first play."""
    wanted: list[tuple[Position, int]] = []
    if isinstance(given, list) and given:
        for item in given:
            try:
                after, d = Position.from_frame(item["after"]), int(item["double"])
            except (KeyError, TypeError, ValueError, PositionError) as exc:
                problem = _("bad named continuation {item}: {reason}").format(item=repr(item), reason=exc)
                raise _row_error(lineno, problem) from None
            if plays.find(after) is None or not 1 <= d <= 6:
                why = _("a named continuation starts from one of the plays, with a doublet 1-6: {item}")
                raise _row_error(lineno, why.format(item=item))
            wanted.append((after, d))
    else:
        wanted = [(plays[0].position, d) for d in range(1, 7)]
    out = []
    for after, d in wanted:
        named = variant.legal_plays(after, (d, d))
        out.append(
            {
                "after": _play_frame(variant, after, *keys),
                "double": d,
                "plays": [_play_frame(variant, p.position, *keys) for p in named],
                "reroll": _stage(variant, (d, d), named.max_dice, TurnContext(named=True)) is TurnStep.ROLL_AGAIN,
            }
        )
    return out


def _play_frame(variant: Variant, pos: Position, pinned: bool, reserve: bool) -> dict[str, Any]:
    """A play as an oracle row writes it: the position it leaves (``pinned`` and ``reserve`` where the row has
    them), and ``result`` when it ends the game (winner 1 the roller, -1 the opponent, 0 a draw; points per cube)."""
    frame: dict[str, Any] = pos.to_frame(pinned=pinned, reserve=reserve)
    over = variant.game_over(pos)
    if over is not None:
        frame["result"] = {"winner": over.winner, "points": over.level}
    return frame


def cmd_variants(args: argparse.Namespace, out: TextIO) -> int:
    reg = registry()
    for name in reg.names():
        cls = reg.variants[name]
        aliases = _(" (also: {aliases})").format(aliases=", ".join(cls.aliases)) if cls.aliases else ""
        line = _("{name}: {rule_set}{aliases} — plugin {plugin}").format(
            name=name, rule_set=_(cls.display_name), aliases=aliases, plugin=reg.owners[name]
        )
        out.write(line + "\n")
    for plugin, reason in sorted(reg.refused.items()):
        out.write(_("refused plugin {plugin}: {reason}").format(plugin=plugin, reason=reason) + "\n")
    return 0


def cmd_console(args: argparse.Namespace, out: TextIO) -> int:
    import asyncio
    from pathlib import Path

    from .config import ConfigError, load_settings
    from .console import run_console
    from .console_args import boards_problem
    from .storage.opening import CannotOpen

    try:
        settings = load_settings(args.config)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    url = args.db or settings.storage_url
    if "://" not in url:
        url = f"sqlite:///{url}"
    boards = Path(args.boards) if args.boards else None
    if boards is not None and (wrong := boards_problem(boards)):
        raise UsageError(wrong)
    # main() chose the language (--lang, else GAMMONBOT_LANG): the whole session speaks it, boards included.
    session = run_console(url, sys.stdin, out, boards=boards, seed=args.seed, settings=settings, lang=i18n.language())
    try:
        return asyncio.run(session)
    except CannotOpen as exc:
        raise UsageError(_("{problem}; see --db").format(problem=exc)) from None


def cmd_run(args: argparse.Namespace, out: TextIO) -> int:
    import os

    from .config import ConfigError, load_settings

    token = os.environ.get("DISCORD_TOKEN", "").strip()
    if not token:
        raise UsageError(
            _(
                "DISCORD_TOKEN is not set: export your bot's token from the Discord developer portal "
                "(see README, Quick start for server admins), or play without Discord with `gammonbot console`"
            )
        )
    try:
        settings = load_settings(args.config)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    from .discord.app import run_bot

    # GAMMONBOT_LANG is this terminal's language (the start-up errors above); the bot speaks each player's and each
    # server's language, set for every interaction, and English where nobody's is known.
    with i18n.use(i18n.DEFAULT):
        return run_bot(settings, token)


def cmd_selfplay(args: argparse.Namespace, out: TextIO) -> int:
    from engine.match import MatchOptionError, MatchOptions
    from engine.matfile import export_mat
    from engine.selfplay import play_match

    variant = _variant(args.variant)
    bots = args.player1 is not None or args.player2 is not None or args.matches is not None
    if bots and args.length is None and args.money is None:
        args.length = 1
    if (args.length is None) == (args.money is None):
        raise UsageError(_("give either --length N (a match to N points) or --money GAMES (a money session)"))
    if args.length is not None and args.length < 1:
        raise UsageError(_("--length {length}: a match is at least 1 point long").format(length=args.length))
    if args.money is not None and args.money < 1:
        raise UsageError(_("--money {games}: a money session needs at least one game").format(games=args.money))
    try:
        options = MatchOptions(
            length=args.length or 0,
            games=args.money or 0,
            crawford=not args.no_crawford,
            jacoby=args.jacoby,
            beavers=args.beavers,
        )
        options.check()
        if bots:
            return _bot_selfplay(args, variant, options, out)
        if args.mat is None:
            raise UsageError(_("--mat FILE is required: where to write the match"))
        state, actions = play_match(variant, options, args.seed)
    except MatchOptionError as exc:
        raise UsageError(str(exc)) from None
    _write_mat(args.mat, export_mat(state.setup, actions))
    setup = state.setup
    if options.length:
        kind = ngettext("{length}-point match", "{length}-point match", options.length).format(length=options.length)
    else:
        kind = ngettext("money session of {games} game", "money session of {games} games", options.games).format(
            games=options.games
        )
    score = _score((setup.side_name(0), setup.side_name(1)), state.score, state.winner)
    winner = state.winner
    outcome = _("a tie") if winner is None else _wins(setup.side_name(winner), len(setup.sides[winner]) > 1)
    played = len(state.results)
    line = ngettext(
        "{rule_set}, {kind}: {score} after {count} game; {outcome}",
        "{rule_set}, {kind}: {score} after {count} games; {outcome}",
        played,
    ).format(rule_set=_(variant.display_name), kind=kind, score=score, count=played, outcome=outcome)
    out.write(line + "\n")
    return 0


def _write_mat(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise UsageError(_("cannot write {file}: {reason}").format(file=path, reason=exc.strerror or exc)) from None


def _bot_selfplay(args: argparse.Namespace, variant: Variant, options: Any, out: TextIO) -> int:
    """`selfplay --player1 A --player2 B --matches N`: a duel, with the score and a 95% confidence interval."""
    from engine.match import Action, MatchState
    from engine.matfile import export_mat
    from engine.players import PlayerUnavailable, UnsupportedVariant
    from engine.plugins import UnknownPlayer, find_player
    from engine.selfplay import duel

    matches = 1 if args.matches is None else args.matches
    if matches < 1:
        raise UsageError(_("--matches {matches}: play at least one match").format(matches=matches))
    if args.time_cap is not None and args.time_cap <= 0:
        raise UsageError(_("--time-cap {seconds}: give a number of seconds above 0").format(seconds=args.time_cap))
    try:
        specs = (find_player(args.player1 or "random"), find_player(args.player2 or "random"))
        for spec in specs:
            spec.check(variant)
    except (UnknownPlayer, UnsupportedVariant, PlayerUnavailable) as exc:
        raise UsageError(str(exc)) from None
    if options.length:
        kind = ngettext("{length}-point matches", "{length}-point matches", options.length).format(
            length=options.length
        )
    else:
        kind = ngettext("money sessions of {games} game", "money sessions of {games} games", options.games).format(
            games=options.games
        )
    if args.mat is not None and matches != 1:
        raise UsageError(_("--mat writes a single match: use it with --matches 1"))
    records: list[str] = []

    def keep(i: int, state: MatchState, actions: list[Action]) -> None:
        if args.mat is not None:
            records.append(export_mat(state.setup, actions))

    result = duel(variant, options, specs[0], specs[1], matches, args.seed, time_cap=args.time_cap, keep=keep)
    if records:
        _write_mat(args.mat, records[0])
    out.write(
        _("{rule_set}, {kind}: {summary}").format(rule_set=_(variant.display_name), kind=kind, summary=result.summary())
    )
    out.write("\n")
    return 0


def cmd_import(args: argparse.Namespace, out: TextIO) -> int:
    """Check a .mat file by replaying it: print the match (players, length, each game's result, the final score),
    or one line naming the file, the line and the problem (exit 1)."""
    from engine.match import EndReason
    from engine.matfile import MatFileError, read_mat

    try:
        with open(args.file, encoding="utf-8-sig", errors="replace") as fh:
            text = fh.read()
    except OSError as exc:
        raise UsageError(_("cannot read {file}: {reason}").format(file=args.file, reason=exc.strerror or exc)) from None
    try:
        done = read_mat(text)
    except MatFileError as exc:
        sys.stderr.write(f"gammonbot: {args.file}: {exc}\n")
        return 1
    setup, state = done.setup, done.state
    opts, variant = setup.options, setup.variant
    names = (setup.side_name(0), setup.side_name(1))
    rule_set = _(variant.display_name)
    if opts.length:
        head = ngettext(
            "{rule_set}, {length}-point match: {player} v {opponent}",
            "{rule_set}, {length}-point match: {player} v {opponent}",
            opts.length,
        ).format(rule_set=rule_set, length=opts.length, player=names[0], opponent=names[1])
    else:
        head = _("{rule_set}, money session: {player} v {opponent}").format(
            rule_set=rule_set, player=names[0], opponent=names[1]
        )
    out.write(head + "\n")
    how = {EndReason.PASS: _("a double passed"), EndReason.TIMEOUT: _("on time"), EndReason.FORFEIT: _("by forfeit")}
    teams = (len(setup.sides[0]) > 1, len(setup.sides[1]) > 1)
    for r in state.results:
        game_rules = variant.for_game(r.game - 1)  # Tavli: each game's own words (mars, mother pinned)
        what = game_rules.result_name(r.level) if r.level else ""
        why = how.get(r.reason) or (
            _("{result}, resigned").format(result=what) if r.reason is EndReason.RESIGN else what
        )
        points = ngettext("{count} point", "{count} points", r.points).format(count=r.points)
        won = _wins(names[r.winner], teams[r.winner])
        if variant.uses_cube and opts.cube:
            line = _("Game {game}: {won} {points} ({why}, cube {cube})").format(
                game=r.game, won=won, points=points, why=why, cube=r.cube
            )
        else:  # no cube in this match: nothing to say of it
            line = _("Game {game}: {won} {points} ({why})").format(game=r.game, won=won, points=points, why=why)
        out.write(line + "\n")
    score = _score(names, state.score, state.winner)
    outcome = _outcome(state.over, state.winner, names, bool(opts.length), teams)
    out.write(_("Final score: {score}; {outcome}").format(score=score, outcome=outcome) + "\n")
    return 0


def _score(names: tuple[str, str], score: tuple[int, int], winner: int | None) -> str:
    """``bob 4 - 0 alice``: the winner (the leader) and their score first."""
    first = 1 if winner == 1 else 0
    return f"{names[first]} {score[first]} - {score[1 - first]} {names[1 - first]}"


def _outcome(
    over: bool, winner: int | None, names: tuple[str, str], match: bool, teams: tuple[bool, bool] = (False, False)
) -> str:
    if not over:
        return _("the match is not finished") if match else _("the session goes on")
    return _("a tie") if winner is None else _wins(names[winner], teams[winner])


def _wins(name: str, team: bool) -> str:
    """``bob wins``, or for a team (``alice & carol``) the plural."""
    # Translators: a team of two players ("alice & carol") wins a game or a match.
    return _("{name} win").format(name=name) if team else _("{name} wins").format(name=name)


def cmd_verify(args: argparse.Namespace, out: TextIO) -> int:
    """Check a match record's dice (format: engine.fairdice). Exit 0 verified, 1 tampered or invalid,
    2 unreadable, 3 not verifiable yet (the seed is not revealed)."""
    from engine.fairdice import Verdict, dice_stats, recorded_rolls, verify_record
    from engine.record import RecordError, actions_from_data

    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as fh:
                text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise UsageError(_("cannot read {file}: {reason}").format(file=args.file, reason=reason)) from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            _("{file} is not JSON ({reason}, line {line})").format(file=args.file, reason=exc.msg, line=exc.lineno)
        ) from None
    except RecursionError:
        raise UsageError(_("{file} is not a match record (nested too deeply)").format(file=args.file)) from None
    except ValueError:  # a number of more digits than Python reads (4,300)
        raise UsageError(
            _("{file} is not a match record: a number in it has more than 4,300 digits").format(file=args.file)
        ) from None
    try:
        report = verify_record(record)
    except RecordError as exc:
        raise UsageError(
            _("{file} is not a verifiable match record: {reason}").format(file=args.file, reason=exc)
        ) from None
    out.write(report.message + "\n")
    if args.stats:
        try:
            out.write(dice_stats(recorded_rolls(actions_from_data(record["actions"]))).summary() + "\n")
        except ValueError as exc:
            out.write(_("no statistics: {reason}").format(reason=exc) + "\n")
    return {Verdict.VERIFIED: 0, Verdict.TAMPERED: 1, Verdict.INVALID: 1, Verdict.UNREVEALED: 3}[report.verdict]


def cmd_i18n(args: argparse.Namespace, out: TextIO) -> int:
    """``gammonbot i18n update``: every catalog re-extracted, the Discord command tree's included."""
    from .discord.catalog import update_all

    return update_all(out)


def _add_lang(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--lang",
        metavar="LANG",
        help=f"language of the output: {', '.join(i18n.LANGUAGES)} (default: ${ENV_LANG}, else English)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gammonbot", description="Backgammon for Discord servers, and its tools.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("plays", help="list every legal play for a position and roll")
    p.add_argument("position", nargs="?", help="GNU Backgammon Position ID of the position (player on roll)")
    p.add_argument("dice", nargs="?", help="the roll, e.g. 31 or 3-1")
    p.add_argument("--variant", default="backgammon", help="rule set (default: backgammon)")
    p.add_argument("--first-move", action="store_true", help="this is the roller's first turn of the game")
    p.add_argument(
        "--jsonl", action="store_true", help="read oracle-format rows from stdin and write them back with plays"
    )
    _add_lang(p)
    p.set_defaults(func=cmd_plays)

    p = sub.add_parser("variants", help="list the registered rule sets")
    _add_lang(p)
    p.set_defaults(func=cmd_variants)

    p = sub.add_parser(
        "selfplay",
        help="play a match between two random players and write it as .mat, or pit two bot players over N matches",
    )
    p.add_argument("--variant", default="backgammon", help="rule set (default: backgammon)")
    p.add_argument("--length", type=int, help="match length in points (default with bot players: 1)")
    p.add_argument("--money", type=int, metavar="GAMES", help="a money session of this many games")
    p.add_argument("--seed", type=int, default=1, help="fixes the dice and every choice (default: 1)")
    p.add_argument("--mat", metavar="FILE", help="where to write the .mat file (one match)")
    p.add_argument("--player1", metavar="NAME", help="a bot player: random, heuristic, casual, strong, expert")
    p.add_argument("--player2", metavar="NAME", help="bot player on the other side (default: random)")
    p.add_argument("--matches", type=int, metavar="N", help="how many matches the two bot players play (default: 1)")
    p.add_argument("--time-cap", type=float, metavar="SECONDS", help="thinking time cap of each bot decision")
    p.add_argument("--jacoby", action="store_true", help="Jacoby rule (money sessions only)")
    p.add_argument("--beavers", action="store_true", help="beavers and raccoons (money sessions only)")
    p.add_argument("--no-crawford", action="store_true", help="play the match without the Crawford rule")
    _add_lang(p)
    p.set_defaults(func=cmd_selfplay)

    p = sub.add_parser("console", help="play in the terminal: the bot's commands without Discord")
    p.add_argument("--db", help="database file or URL (default: the storage url of config.toml)")
    p.add_argument("--boards", help="write every board as a PNG into this folder")
    p.add_argument("--seed", type=int, help="reproducible dice (for demos and tests)")
    p.add_argument("--config", default=None, help="settings file (default: ./config.toml if there is one)")
    _add_lang(p)
    p.set_defaults(func=cmd_console)

    p = sub.add_parser("run", help="run the Discord bot (token from DISCORD_TOKEN)")
    p.add_argument("--config", default=None, help="settings file (default: ./config.toml if there is one)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("import", help="check a .mat match file (GNU Backgammon's format) and print the match")
    p.add_argument("file", metavar="FILE.mat", help="the .mat file")
    _add_lang(p)
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("verify", help="check the dice of a finished match record (JSON with its dice proof)")
    p.add_argument("file", metavar="FILE", help="the match record as JSON (- reads standard input)")
    p.add_argument("--stats", action="store_true", help="also count each number and the doublets")
    _add_lang(p)
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("i18n", help="translations: re-extract every catalog (the Discord commands' too) and merge them")
    p.add_argument("action", choices=["update"], help="update: write the .pot templates and merge every .po")
    p.set_defaults(func=cmd_i18n)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        # Everything this run prints speaks --lang (else GAMMONBOT_LANG, else English); argparse's --help stays English.
        with i18n.use(output_language(getattr(args, "lang", None))):
            return int(args.func(args, out or sys.stdout))
    except (UsageError, PluginError) as exc:
        sys.stderr.write(f"gammonbot: {exc}\n")
        return 2
    except BrokenPipeError:
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

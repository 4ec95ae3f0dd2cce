"""The console's findings of issue 20, one test each: prompts and cube words from the engine, unknown commands,
Doubles (acceptance by all four, consultation, the next match), readable dice, IDs, the board, and refusals."""

from __future__ import annotations

import re
from pathlib import Path

from bot.console_text import COMMANDS
from engine.plugins import get_variant
from engine.positionid import encode_position_id
from tests.bot.console_session import Session, refusals, run

DOUBLES = "alice: play bob doubles {length} teammate=carol partner=dave"
ALL_ACCEPT = ("bob: accept", "carol: accept", "dave: accept")


def last_line(text: str) -> str:
    return text.rstrip("\n").splitlines()[-1]


def other(view_sides: tuple[tuple[str, ...], tuple[str, ...]], player: str) -> str:
    return view_sides[1][0] if player in view_sides[0] else view_sides[0][0]


def test_the_turn_prompt_offers_a_double_only_when_the_engine_allows_it(tmp_path: Path) -> None:
    """Centred cube: "to roll or double"; the opponent owns the cube: "to roll"; the owner: "or double" again."""

    async def body(s: Session) -> None:
        await s.type("alice: play bob backgammon 5", "bob: accept")
        said = await s.until(1, lambda v: v.phase == "roll")
        x = (await s.view(1)).to_act or ""
        y = other((await s.view(1)).sides, x)
        assert last_line(said) == f"{x} to roll or double."
        assert last_line(await s.type(f"{x}: double")) == f"{y} to take or pass."
        taken = await s.type(f"{y}: take")
        assert last_line(taken) == f"{x} to roll."  # y owns the cube: x may not double
        assert f"cube 2 ({y}'s): {x} to roll." in await s.type(f"{x}: board")
        said = await s.until(1, lambda v: v.phase == "roll" and v.to_act == y)
        assert last_line(said) == f"{y} to roll or double."
        assert not refusals(said)

    run(tmp_path, body)


def test_no_double_is_offered_in_the_crawford_game(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        await s.type("alice: play bob backgammon 2", "bob: accept")
        await s.until(1, lambda v: v.phase == "roll")
        x = (await s.view(1)).to_act or ""
        y = other((await s.view(1)).sides, x)
        await s.type(f"{x}: resign single", f"{y}: accept")  # y leads 1-0 of 2: the next game is the Crawford game
        said = await s.until(1, lambda v: v.phase == "roll")
        assert re.search(r"^\w+ to roll\.$", last_line(said)), said
        assert "or double" not in said
        line = last_line(await s.type("alice: board"))
        assert "Crawford game (no cube)" in line and "cube 1" not in line

    run(tmp_path, body)


def test_a_match_without_a_cube_shows_no_cube_and_offers_no_double(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        await s.type("alice: play bob backgammon 3 cube=off", "bob: accept")
        said = await s.until(1, lambda v: v.phase == "roll")
        assert re.search(r"^\w+ to roll\.$", last_line(said)) and "double" not in said
        games = await s.type("alice: games")
        assert "cube" not in games and "score 0-0:" in games
        await s.type("alice: play bob backgammon 3", "bob: accept 2")
        assert "cube 1 (centred)" in await s.type("alice: board 2")

    run(tmp_path, body)


def test_a_mistyped_command_is_unknown_and_the_nearest_is_suggested(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        await s.type("as alice", "play bob backgammon 1")
        assert refusals(await s.type("mvoe 13/9 13/8")) == ["! unknown command 'mvoe'; did you mean move?"]
        assert refusals(await s.type("rol 1")) == ["! unknown command 'rol'; did you mean roll?"]
        assert refusals(await s.type("xyzzy 3")) == ["! unknown command 'xyzzy'; type help for the list"]

    run(tmp_path, body)


def test_a_doubles_challenge_names_both_teams_and_waits_for_all_three(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        said = await s.type(DOUBLES.format(length=1))
        assert "alice & carol challenge bob & dave to a 1-point Backgammon Doubles match (game #1)" in said
        assert "it starts once carol, bob and dave accept." in said
        assert "carol, bob, dave: type accept (each of you) or decline." in said
        assert "bob accepts challenge #1; it starts once carol and dave accept." in await s.type("bob: accept")
        assert refusals(await s.type("bob: accept")) == [
            "! you have accepted challenge #1 already; it waits for carol and dave"
        ]
        await s.type("dave: accept")
        assert (await s.view(1)).status == "challenge"  # the challenger's teammate has not agreed yet
        started = await s.type("carol: accept")
        assert "carol accepted" in started and "alice & carol vs bob & dave" in started, started
        assert (await s.view(1)).status == "active"

    run(tmp_path, body)


def test_after_a_doubles_match_every_player_is_on_the_next_one(tmp_path: Path) -> None:
    """A team that wins is plural ("alice & carol win"), and a teammate needs no ``use`` for the next match."""

    async def body(s: Session) -> None:
        await s.type(DOUBLES.format(length=1), *ALL_ACCEPT)
        await s.until(1, lambda v: v.phase == "roll")
        over = await s.type(f"{(await s.view(1)).to_act}: resign backgammon")
        assert re.search(r"(alice & carol|bob & dave) win ", over) and not re.search(r"& \w+ wins", over)
        assert (await s.view(1)).status == "finished"
        await s.type("dave: play alice doubles 1 teammate=bob partner=carol", "alice: accept", "carol: accept")
        await s.type("bob: accept")
        for player in ("alice", "bob", "carol", "dave"):
            assert last_line(await s.type(f"{player}: board")).startswith("#2 "), player
        assert not refusals(await s.type("carol: games"))

    run(tmp_path, body)


def test_doubles_consultation_propose_adopt_and_approve(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        await s.type(DOUBLES.format(length=3) + " consult=agree", *ALL_ACCEPT)
        await s.until(1, lambda v: v.phase == "move")
        v = await s.view(1)
        acting = v.to_act or ""
        mate = next(p for side in v.sides if acting in side for p in side if p != acting)
        assert f"proposes {v.plays[0]} (proposal #1)" in await s.type(f"{mate}: propose {v.plays[0]}")
        assert f"#1 {v.plays[0]} (by {mate})" in await s.type(f"{mate}: proposals")
        adopted = await s.type(f"{acting}: adopt 1")
        assert f"{acting} adopts proposal #1" in adopted and f"{acting} played {v.plays[0]}." in adopted
        await s.until(1, lambda v: v.phase == "move")
        v = await s.view(1)
        acting = v.to_act or ""
        mate = next(p for side in v.sides if acting in side for p in side if p != acting)
        assert f"waiting for {mate} to approve" in await s.type(f"{acting}: move {v.plays[-1]}")
        assert "does not agree" in await s.type(f"{mate}: approve no")
        await s.type(f"{acting}: move {v.plays[0]}")
        approved = await s.type(f"{mate}: approve")
        assert f"{mate} approves." in approved and f"{acting} played {v.plays[0]}." in approved
        assert not refusals(approved)

    run(tmp_path, body)


def test_length_zero_says_money_and_a_negative_length_is_named(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        said = await s.type("alice: play jim backgammon 0")
        assert "this is a money session" in said and "Backgammon for money" in said
        assert "money session" not in await s.type("alice: play jim backgammon money")
        negative = await s.type("alice: play jim backgammon -3")
        assert refusals(negative) == ["! a match length cannot be negative (-3): give 1 or more points, or money"]

    run(tmp_path, body)


def test_use_refuses_a_game_that_does_not_exist(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        await s.type("as alice", "play bob backgammon 1")
        assert refusals(await s.type("use 99")) == ["! there is no game #99"]
        assert last_line(await s.type("board")).startswith("#1 challenge")
        assert "now on #1" in await s.type("use 1")

    run(tmp_path, body)


def test_a_name_prefix_lasts_one_line(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        await s.type("as alice", "bob: play carol backgammon 1")
        assert "alice challenges dave" in await s.type("play dave backgammon 1")
        await s.type("carol: xyzzy")  # a refused line gives the typist back too
        assert s.console.player is not None and s.console.player.id == "alice"
        await s.type("bob: as carol")  # as changes who types for good
        assert s.console.player.id == "carol"

    run(tmp_path, body)


def test_a_move_out_of_turn_says_whose_turn_it_is(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        await s.type("alice: play bob backgammon 3", "bob: accept")
        await s.until(1, lambda v: v.phase == "roll")
        v = await s.view(1)
        mover = other(v.sides, v.to_act or "")
        assert refusals(await s.type(f"{mover}: move 6/5")) == [f"! it is not your turn: {v.to_act} is to roll"]
        assert refusals(await s.type(f"{v.to_act}: move 6/5")) == ["! you cannot play yet: roll first"]

    run(tmp_path, body)


def test_ids_prints_the_position_id_and_match_id(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        await s.type("alice: play bob backgammon 3", "bob: accept")
        bg = get_variant("backgammon")
        said = await s.type("alice: ids")
        position_id, match_id = await s.service.ids_at(1, s.console._request("alice"))
        assert f"Position ID: {encode_position_id(bg, bg.start_position())}" in said
        assert f"Match ID:    {match_id}" in said and position_id in said
        await s.type("alice: play bob longgammon 1", "bob: accept 2")
        assert refusals(await s.type("alice: id 2")) == ["! #2: Longgammon positions have no GNU Backgammon IDs"]

    run(tmp_path, body)


def test_the_board_shows_the_opponents_dice_and_a_longgammon_head(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        await s.type("alice: play bob longgammon 1", "bob: accept")
        await s.until(1, lambda v: v.phase == "move")
        v = await s.view(1)
        assert v.dice is not None
        board = await s.type(f"{other(v.sides, v.to_act or '')}: board")
        assert f"dice {v.dice[0]}-{v.dice[1]}" in board and "(O, on roll)" in board
        framed = [line for line in board.splitlines() if line.startswith(" |")]
        heads = [m for line in framed for m in re.findall(r"(?<!\d)1[0-5](?!\d)", line)]
        assert len(heads) == 2, board  # each side's head, 10 to 15 checkers, in figures

    run(tmp_path, body, seed=3)


def test_dice_and_verify_print_words_not_python(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        await s.type("alice: play bob backgammon 1", "bob: accept")
        assert "not verifiable yet" in await s.type("alice: verify")
        for _ in range(8):  # a few rolls each
            await s.step(1)
        await s.until(1, lambda v: v.phase == "roll")
        await s.type(f"{(await s.view(1)).to_act}: resign backgammon")
        checked = await s.type("alice: verify")
        assert checked.startswith("game #1 dice: verified: the seed matches the commitment")
        dice = await s.type("alice: dice")
        assert re.search(r"^alice's dice: \d+ rolls? \(opening throws not counted\)$", dice, re.M), dice
        assert "  number " in dice and "fairness: chi-square" in dice
        for text in (checked, dice):
            assert "(" not in text.split(":")[0] and "Report" not in text and "Stats" not in text

    run(tmp_path, body, seed=None)


def test_every_command_of_the_help_is_understood(tmp_path: Path) -> None:
    """Each command's example, typed as it is, is never answered "unknown command"."""

    async def body(s: Session) -> None:
        await s.type("alice: play bob backgammon 3", "bob: accept")
        for command in COMMANDS:
            if command.name in ("quit", "play", "as", "export"):
                continue
            said = await s.type(f"alice: {command.example}")
            assert "unknown command" not in said, command

    run(tmp_path, body)

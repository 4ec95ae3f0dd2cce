"""Issue 33, item 2: a player with several games is told which game every prompt and refusal is about, and an
answer (accept, reject) goes to the one game that waits for it, or names the games it could mean."""

from __future__ import annotations

from pathlib import Path

from tests.bot.console_session import Session, refusals, run


async def two_games(s: Session) -> None:
    """alice and bob play #1 and #2; bob's current game is #1; in #2 alice is on roll."""
    await s.type("alice: play bob backgammon 3", "bob: accept", "alice: play bob backgammon 3", "bob: accept")
    await s.until(2, lambda v: v.phase == "roll" and v.to_act == "alice")
    await s.type("bob: use 1")


def test_accept_answers_the_resignation_offered_in_the_other_game(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        await two_games(s)
        await s.type("alice: resign")
        said = await s.type("bob: accept")
        assert not refusals(said)
        assert (await s.view(2)).score == (0, 1) and (await s.view(1)).score == (0, 0)  # bob won #2's game

    run(tmp_path, body)


def test_an_answer_that_could_mean_two_games_names_them_and_how_to_pick(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        await two_games(s)
        await s.type("alice: resign", "alice: play bob sprintgammon 1")
        said = await s.type("bob: accept")
        assert refusals(said) == [
            "! accept which game? #2 (alice offers to resign) and #3 (a challenge from alice): type accept NUMBER, "
            "e.g. accept 2"
        ]
        assert (await s.view(2)).status == "active" and (await s.view(3)).status == "challenge"

    run(tmp_path, body)


def test_prompts_and_refusals_name_the_game_of_a_player_with_several(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        await two_games(s)
        said = await s.type("alice: roll")
        assert "\n#2: alice to play " in said
        said = await s.type("bob: move 24/18")  # bob's current game is #1: its opening roll comes first
        assert refusals(said)[0].startswith("! #1: ")

    run(tmp_path, body)


def test_one_game_only_is_not_numbered_in_prompts(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        await s.type("alice: play bob backgammon 3", "bob: accept")
        said = await s.until(1, lambda v: v.phase == "roll")
        assert said.rstrip().splitlines()[-1].endswith("to roll or double.")
        assert not said.rstrip().splitlines()[-1].startswith("#")

    run(tmp_path, body)


def test_scores_are_said_winner_first(tmp_path: Path) -> None:
    """Issue 33, item 3: bob (the second side) wins 3-0: every line says 3-0, as the board's banner does."""

    async def body(s: Session) -> None:
        await s.type("alice: play bob backgammon 3", "bob: accept")
        said = await s.type("alice: forfeit")
        assert "Match over: bob wins 3-0." in said and "0-3" not in said
        assert "#1 Backgammon 3-point match, bob vs alice, score 3-0: finished" in await s.type("bob: board 1")

    run(tmp_path, body)


def test_roll_out_of_turn_says_who_acts_and_how_to_propose(tmp_path: Path) -> None:
    """Issue 33, item 5: after the roll, the teammate who does not act is told their partner acts and how to propose;
    the other side is told whose turn it is; the roller, that they have rolled."""

    async def body(s: Session) -> None:
        await s.type("alice: play bob doubles 3 teammate=carol partner=dave", "bob: accept", "carol: accept")
        await s.type("dave: accept")
        await s.until(1, lambda v: v.phase == "move")
        v = await s.view(1)
        roller = v.to_act or ""
        side = v.side_of(roller) or 0
        partner = next(p for p in v.sides[side] if p != roller)
        other = v.sides[1 - side][0]
        assert refusals(await s.type(f"{roller}: roll")) == ["! you have already rolled: play your move (or resign)"]
        assert refusals(await s.type(f"{partner}: roll")) == [
            f"! your partner {roller} acts for your team this game and plays the roll; suggest a play with propose "
            "(e.g. propose 13/7 8/7)"
        ]
        said = refusals(await s.type(f"{other}: roll"))
        assert said == [f"! it is not your turn: {roller} is to play {v.dice[0]}-{v.dice[1]}"]  # type: ignore[index]

    run(tmp_path, body)


def test_settings_are_printed_as_they_are_typed(tmp_path: Path) -> None:
    """Issue 33, item 7: on/off and none/all, as typed, never Python's True/None."""

    async def body(s: Session) -> None:
        said = await s.type("alice: settings autoplay=off") + await s.type("alice: server")
        assert "autoplay=off" in said and "allowed_variants=all" in said and "default_time_control=none" in said
        assert "True" not in said and "False" not in said and "None" not in said

    run(tmp_path, body)

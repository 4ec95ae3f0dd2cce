"""GNU Backgammon Match IDs: the rules.md §6.3 vectors, decoding, and IDs of real match states."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.match import Double, MatchOptions, MatchState, Move, OpeningRoll, Resign, apply, new_match
from engine.matchid import GameState, MatchIdError, MatchInfo, decode_match_id, encode_match_id, match_id
from engine.plugins import get_variant
from tests.conftest import run_gnubg_script

P = GameState.PLAYING
VECTORS = {
    "manual_9pt_2_4_player1_rolled_52": (MatchInfo(2, 0, 1, False, P, 1, False, 0, (5, 2), 9, (2, 4)), "QYkqASAAIAAA"),
    "money_player0_won_opening_31": (MatchInfo(1, None, 0, False, P, 0, False, 0, (3, 1), 0, (0, 0)), "MIEFAAAAAAAA"),
    "money_player1_rolled_31": (MatchInfo(1, None, 1, False, P, 1, False, 0, (3, 1), 0, (0, 0)), "cIkFAAAAAAAA"),
    "money_player1_to_roll": (MatchInfo(1, None, 1, False, P, 1, False, 0, None, 0, (0, 0)), "cAkAAAAAAAAA"),
    "7pt_0_0_player0_to_roll": (MatchInfo(1, None, 0, False, P, 0, False, 0, None, 7, (0, 0)), "MAHgAAAAAAAA"),
    "7pt_jacoby_off_extension_bit": (
        MatchInfo(1, None, 0, False, P, 0, False, 0, None, 7, (0, 0), jacoby=False),
        "MAHgAAAAAAAE",
    ),
    "5pt_4_2_crawford_player1_rolled_64": (
        MatchInfo(1, None, 1, True, P, 1, False, 0, (6, 4), 5, (4, 2)),
        "8AmzAEAAEAAA",
    ),
    "money_player0_doubled": (MatchInfo(1, None, 0, False, P, 1, True, 0, None, 0, (0, 0)), "MBkAAAAAAAAA"),
    "money_player0_offers_gammon_resignation": (
        MatchInfo(1, None, 0, False, P, 1, False, 2, None, 0, (0, 0)),
        "MEkAAAAAAAAA",
    ),
}


@pytest.mark.parametrize("name", sorted(VECTORS))
def test_rules_md_vector_encodes(name: str) -> None:
    info, mid = VECTORS[name]
    assert encode_match_id(info) == mid


@pytest.mark.parametrize("name", sorted(VECTORS))
def test_rules_md_vector_decodes(name: str) -> None:
    info, mid = VECTORS[name]
    assert decode_match_id(mid, extended=info.jacoby is not None) == info


def test_ids_of_match_states() -> None:
    bg = get_variant("backgammon")
    s = new_match(bg, [["a"], ["b"]], MatchOptions())
    s = apply(s, OpeningRoll("a", (3, 1)))
    assert match_id(s) == "MIEFAAAAAAAA"
    s = new_match(bg, [["a"], ["b"]], MatchOptions())
    s = apply(s, OpeningRoll("a", (1, 3)))  # player 1 won the opening with 3-1
    assert match_id(s) == "cIkFAAAAAAAA"
    s = apply(s, _play(s, "b"))
    s = apply(s, Double("a"))
    info = decode_match_id(match_id(s))
    assert info.double_offered and info.turn == 1 and info.dice_owner == 0 and info.cube_value == 1


def _play(state: MatchState, by: str) -> Move:
    return Move(by, state.legal_plays()[0].moves)


def test_resignation_offer_is_in_the_id() -> None:
    s = new_match(get_variant("backgammon"), [["a"], ["b"]], MatchOptions(length=7))
    s = apply(s, OpeningRoll("a", (3, 1)))
    s = apply(s, Resign("a", 2))
    info = decode_match_id(match_id(s))
    assert info.resign_level == 2 and info.turn == 1 and info.length == 7


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("QYkqASAAIAA", "12 characters"),
        ("QYkqASAAIA!A", "only A-Z"),
        ("IAAAAAAAAAAA", "cube owner 2"),
        ("AIAAAAAAAAAA", "dice fields"),
        ("AAUAAAAAAAAA", "game state 5"),
    ],
)
def test_bad_ids_are_refused_with_the_reason(text: str, message: str) -> None:
    with pytest.raises(MatchIdError, match=message):
        decode_match_id(text)


def test_fields_that_do_not_fit_are_refused() -> None:
    with pytest.raises(MatchIdError, match="power of two"):
        encode_match_id(MatchInfo(cube_value=3))
    with pytest.raises(MatchIdError, match="match length"):
        encode_match_id(MatchInfo(length=1 << 15))


@pytest.mark.gnubg
def test_gnubg_reads_back_our_ids_of_real_states(tmp_path: Path) -> None:
    """GNU Backgammon's ``set matchid`` accepts our IDs and writes the same ID back (it does not restore a
    pending double or resignation, so those states are left out)."""
    from engine.match import Phase, states
    from engine.selfplay import play_match

    ids: list[str] = []
    for seed in (1, 2, 3):
        final, actions = play_match(get_variant("backgammon"), MatchOptions(length=5), seed)
        for k, state in enumerate(states(final.setup, actions)):
            if state.phase in (Phase.ROLL, Phase.MOVE) and k % 7 == 0:
                ids.append(match_id(state))
    assert len(ids) > 20
    script = "import gnubg\n" + "".join(
        f"gnubg.command('set matchid {mid}')\nprint('MID {mid} ' + gnubg.matchid())\n" for mid in ids
    )
    out = run_gnubg_script(script, tmp_path)
    back = dict(line.split()[1:3] for line in out.splitlines() if line.startswith("MID "))
    assert back == {mid: mid for mid in ids}


def test_a_resignation_offered_after_rolling_keeps_the_dice_in_the_id() -> None:
    s = new_match(get_variant("backgammon"), [["a"], ["b"]], MatchOptions(length=7))
    s = apply(s, OpeningRoll("a", (3, 1)))  # a is to play 3-1 and resigns instead
    info = decode_match_id(match_id(apply(s, Resign("a", 1))))
    assert info.dice == (3, 1) and info.resign_level == 1 and info.turn == 1 and info.dice_owner == 0
    before = decode_match_id(match_id(apply(apply(s, _play(s, "a")), Resign("b", 1))))
    assert before.dice is None and before.resign_level == 1  # offered before rolling: no dice


@pytest.mark.gnubg
def test_gnubg_writes_the_same_id_for_every_pending_resignation(tmp_path: Path) -> None:
    """Resignations offered before and after rolling in seeded matches: GNU Backgammon, set to the state before the
    offer (board, then Match ID) and told ``resign``, writes the Match ID we write for the pending offer."""
    import random

    from engine.dice import RandomDice
    from engine.match import Phase
    from engine.positionid import encode_position_id
    from engine.selfplay import RandomPlayer, default_sides

    bg = get_variant("backgammon")
    words = {1: "normal", 2: "gammon", 3: "backgammon"}
    cases: dict[tuple[str, str, int, int], str] = {}
    for seed in range(40):
        state = new_match(bg, default_sides(bg), MatchOptions(length=(0, 3, 7)[seed % 3], auto_accept_resign=False))
        player = RandomPlayer(random.Random(seed), resign_rate=0.05, accept_rate=0.2, chaos=True)
        dice = RandomDice(seed)
        while not state.over:
            action = player.choose(state, dice)
            after = apply(state, action)
            if isinstance(action, Resign) and after.phase is Phase.RESIGNED and after.resign_level == action.level:
                assert state.roller is not None and state.position is not None
                key = (encode_position_id(bg, state.position), match_id(state), state.roller, action.level)
                cases.setdefault(key, match_id(after))
            state = after
    after_roll = [k for k in cases if decode_match_id(k[1]).dice is not None]
    assert len(cases) >= 60 and len(after_roll) >= 20
    lines = ["import gnubg", "gnubg.command('set player 0 human')", "gnubg.command('set player 1 human')"]
    for k, (pid, mid, roller, level) in enumerate(cases):
        lines += [
            "gnubg.command('new match 7')",
            f"gnubg.command('set turn {roller}')",
            f"gnubg.command('set board {pid}')",
            f"gnubg.command('set matchid {mid}')",
            f"gnubg.command('resign {words[level]}')",
            f"print('RES {k} ' + gnubg.matchid())",
        ]
    out = run_gnubg_script("\n".join(lines) + "\n", tmp_path)
    got = {int(line.split()[1]): line.split()[2] for line in out.splitlines() if line.startswith("RES ")}
    ours = list(cases.values())
    assert {k: ours[k] for k in range(len(ours)) if got.get(k) != ours[k]} == {}

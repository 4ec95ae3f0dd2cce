"""Sprintgammon (rules.md §3): backgammon with three checkers each, GNU Backgammon's Hypergammon."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from engine import Position, decode_position_id, encode_position_id
from engine.plugins import find_variant, get_variant
from variants.sprintgammon import Sprintgammon

SG = get_variant("sprintgammon")


def test_the_rule_set_is_registered_under_its_names_and_the_hypergammon_alias() -> None:
    assert find_variant("sprintgammon") is Sprintgammon
    assert find_variant("Hypergammon") is Sprintgammon
    assert SG.checkers == 3 and SG.gnubg_compatible and SG.uses_cube and SG.hitting


def test_three_checkers_start_on_the_24_23_and_22_points() -> None:
    assert SG.start_position() == Position.parse("24:1 23:1 22:1 3:-1 2:-1 1:-1")


def test_the_start_has_gnu_backgammons_hypergammon_position_id() -> None:
    assert encode_position_id(SG, SG.start_position()) == "AACgAgAAKgAAAA"
    assert decode_position_id(SG, "AACgAgAAKgAAAA") == SG.start_position()


def test_the_gnubg_manual_hypergammon_example_decodes() -> None:
    # rules.md §6.2: ADAAAQAkIAAAAA, not on roll 13:2 and 23:1; on roll 15, 17 and 24.
    pos = decode_position_id(SG, "ADAAAQAkIAAAAA")
    assert [p for p in range(24, 0, -1) if pos.mine(p)] == [24, 17, 15]
    assert pos.theirs(25 - 13) == 2 and pos.theirs(25 - 23) == 1
    SG.validate_position(pos)


def test_a_position_with_more_than_three_checkers_is_refused() -> None:
    with pytest.raises(ValueError, match="Sprintgammon uses 3"):
        SG.validate_position(Position.parse("24:2 23:1 22:1 3:-1 2:-1 1:-1"))


def test_blots_are_hit_as_in_backgammon() -> None:
    pos = Position.parse("24:1 23:1 22:1 18:-1 2:-1 1:-1")
    hits = [p for p in SG.legal_plays(pos, (6, 5)) if any(hit for _, _, hit in p.moves)]
    assert hits and all(p.position.bar == (0, 1) for p in hits)


def test_a_single_game_gammon_and_backgammon_count_three_checkers() -> None:
    assert SG.game_result(Position.parse("20:-2 off:3/1")) == 1
    assert SG.game_result(Position.parse("20:-3 off:3/0")) == 2
    # Still a checker in the winner's home board: a backgammon.
    assert SG.game_result(Position.parse("20:-2 4:-1 off:3/0")) == 3
    assert SG.game_result(Position.parse("20:-2 off:3/0 bar:0/1")) == 3


def test_the_mat_variation_tag_is_the_one_gnu_backgammon_recognises() -> None:
    assert SG.mat_variation == "HyperGammon (3)"


@pytest.mark.gnubg
def test_gnu_backgammon_reads_the_tag_as_three_checker_hypergammon_and_a_bare_hypergammon_only_as_a_comment(
    gnubg: Callable[[str], str],
) -> None:
    game = (
        "\n 1 point match\n\n Game 1\n Alice : 0                      Bob : 0\n"
        "  1) 31: 24/21 22/21             52: 24/19 23/21\n"
        "  2) 64: 23/17 21/17\n      Wins 1 point\n"
    )
    script = f"""
import gnubg, json
for tag in ({SG.mat_variation!r}, "HyperGammon"):
    open("m.mat", "w").write('; [Variation "' + tag + '"]\\n' + {game!r})
    gnubg.command("import mat m.mat")
    info = gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)["match-info"]
    print("RESULT " + json.dumps([tag, info["variation"], info.get("comment", "")]))
"""
    rows = [json.loads(line[7:]) for line in gnubg(script).splitlines() if line.startswith("RESULT ")]
    assert rows[0] == [SG.mat_variation, "Hypergammon3", ""]
    # The bare name is not recognised: it survives as a comment (the import only works by retrying variations).
    assert rows[1][0] == "HyperGammon" and "Variation" in rows[1][2]

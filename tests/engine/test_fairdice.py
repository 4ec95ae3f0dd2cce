"""Commit-reveal dice: the derivation as documented, uniformity, secrecy of the seed, and verification."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import math
import pickle
import random
import struct
from typing import Any

import pytest

from engine import fairdice as fd
from engine.fairdice import (
    SCHEME,
    DiceProof,
    FairDice,
    Verdict,
    chi_square_p_value,
    client_value,
    commitment,
    derive_roll,
    dice_stats,
    new_server_seed,
    player_rolls,
    recorded_rolls,
    roll_number,
    verify_record,
)
from engine.match import (
    Action,
    MatchOptions,
    MatchState,
    Move,
    OpeningRoll,
    OpeningRule,
    Roll,
    apply,
    new_match,
    replay,
    states,
)
from engine.plugins import get_variant
from engine.record import RecordError, action_from_data, action_to_data, setup_from_data, setup_to_data
from engine.selfplay import RandomPlayer, default_sides

SEED = bytes(range(32))
CLIENT = "1183520932145737728"


# --- an independent reading of the module documentation ----------------------------------------------
def documented_roll(seed: bytes, client: str, n: int) -> tuple[int, int]:
    c = client.encode("utf-8")
    dice: list[int] = []
    k = 0
    while len(dice) < 2:
        msg = (
            b"gammonbot-roll-v1" + b"\x00" + len(c).to_bytes(4, "big") + c + n.to_bytes(8, "big") + k.to_bytes(4, "big")
        )
        for b in hmac.new(seed, msg, hashlib.sha256).digest():
            if b < 252 and len(dice) < 2:
                dice.append(b % 6 + 1)
        k += 1
    return dice[0], dice[1]


def play_fair(
    fair: FairDice, *, seed: int = 1, length: int = 5, options: MatchOptions | None = None, variant: str = "backgammon"
) -> tuple[MatchState, list[Action]]:
    """A random match whose every roll comes from ``fair``, numbered from the record as it grows."""
    v = get_variant(variant)
    state = new_match(v, default_sides(v), options or MatchOptions(length=length))
    player = RandomPlayer(random.Random(seed), double_rate=0.02)
    actions: list[Action] = []
    while not state.over:
        action = player.choose(state, lambda: fair.next_roll(actions))
        state = apply(state, action)
        actions.append(action)
    return state, actions


def record_of(state: MatchState, actions: list[Action], proof: DiceProof) -> dict[str, Any]:
    return {
        "setup": setup_to_data(state.setup),
        "actions": [action_to_data(a) for a in actions],
        "dice": proof.to_data(),
    }


@pytest.fixture(scope="module")
def finished() -> tuple[FairDice, MatchState, list[Action]]:
    fair = FairDice(SEED, CLIENT)
    state, actions = play_fair(fair, seed=3, length=5)
    assert len(state.results) >= 2, "the fixture needs a match of several games"
    return fair, state, actions


@pytest.fixture()
def record(finished: tuple[FairDice, MatchState, list[Action]]) -> dict[str, Any]:
    fair, state, actions = finished
    data: dict[str, Any] = json.loads(json.dumps(record_of(state, actions, fair.proof(reveal=True))))
    return data


# --- the scheme as documented ----------------------------------------------------------------------------
def test_commitment_is_sha256_of_the_prefixed_seed() -> None:
    expected = hashlib.sha256(b"gammonbot-commit-v1\x00" + SEED).hexdigest()
    assert commitment(SEED) == expected
    assert commitment(SEED) != hashlib.sha256(SEED).hexdigest()
    assert commitment(bytes(32)) != commitment(SEED)


def test_new_server_seeds_are_32_fresh_bytes() -> None:
    seeds = {new_server_seed() for _ in range(20)}
    assert len(seeds) == 20 and all(len(s) == 32 for s in seeds)


@pytest.mark.parametrize("client", [CLIENT, "", "a phrase with ünïcode ✓", '["a","b"]'])
def test_derived_rolls_follow_the_documented_procedure(client: str) -> None:
    rng = random.Random(client)
    for _ in range(300):
        seed = rng.randbytes(32)
        n = rng.choice([0, 1, 2, 255, 256, 2**32, 2**64 - 1, rng.randrange(10**6)])
        assert derive_roll(seed, client, n) == documented_roll(seed, client, n)


def test_rolls_depend_on_seed_client_and_number() -> None:
    base = [derive_roll(SEED, CLIENT, n) for n in range(40)]
    assert base == [derive_roll(SEED, CLIENT, n) for n in range(40)]
    assert base != [derive_roll(SEED, CLIENT + "x", n) for n in range(40)]
    assert base != [derive_roll(bytes(32), CLIENT, n) for n in range(40)]
    assert base != [derive_roll(SEED, CLIENT, n + 1) for n in range(40)]


def test_bytes_from_252_up_are_skipped_and_later_blocks_are_used() -> None:
    assert fd._dice_from_blocks([bytes([252, 253, 254, 255, 0, 251, 9])]) == (1, 6)
    assert fd._dice_from_blocks([bytes([255] * 31 + [11]), bytes([250, 0])]) == (6, 5)
    with pytest.raises(ValueError):
        fd._dice_from_blocks([bytes([255] * 32)])


def test_a_block_with_no_accepted_byte_moves_on_to_the_next_counter(monkeypatch: pytest.MonkeyPatch) -> None:
    real = hmac.digest
    seen: list[int] = []

    def digest(key: bytes, msg: bytes, name: str) -> bytes:
        counter = struct.unpack(">I", msg[-4:])[0]
        seen.append(counter)
        assert len(seen) < 10, "the counter does not advance"
        return bytes([252 + counter % 4] * 32) if counter < 2 else real(key, msg, name)

    monkeypatch.setattr(hmac, "digest", digest)
    block2 = real(SEED, fd._roll_message(CLIENT.encode(), 7, 2), "sha256")
    accepted = [b % 6 + 1 for b in block2 if b < 252]
    assert derive_roll(SEED, CLIENT, 7) == (accepted[0], accepted[1])
    assert seen == [0, 1, 2]


def test_roll_numbers_must_be_whole_and_in_range() -> None:
    for bad in (-1, 2**64):
        with pytest.raises(ValueError):
            derive_roll(SEED, CLIENT, bad)


def test_client_value_combines_contributions_unambiguously() -> None:
    assert client_value("abc") == "abc"
    assert client_value("a", "b") == '["a","b"]'
    assert client_value("a,b") != client_value("a", "b")
    assert client_value("é", "x") == '["é","x"]'
    with pytest.raises(ValueError):
        client_value()


# --- uniformity ----------------------------------------------------------------------------------------
def test_p_values_match_tabulated_critical_values() -> None:
    # Tabulated upper critical values of the chi-square distribution.
    assert chi_square_p_value(15.086, 5) == pytest.approx(0.01, abs=2e-5)
    assert chi_square_p_value(11.070, 5) == pytest.approx(0.05, abs=2e-5)
    assert chi_square_p_value(57.342, 35) == pytest.approx(0.01, abs=2e-5)
    assert chi_square_p_value(49.802, 35) == pytest.approx(0.05, abs=2e-5)
    assert chi_square_p_value(34.336, 35) == pytest.approx(0.50, abs=2e-4)
    # Two degrees of freedom: Q = exp(-x/2) exactly, on both sides of the series/fraction switch.
    for x in (0.1, 1.0, 3.9, 4.1, 20.0, 100.0):
        assert chi_square_p_value(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-10)
    assert chi_square_p_value(0, 5) == 1.0


def test_derived_dice_are_uniform_over_60000_rolls() -> None:
    fair = FairDice(SEED, CLIENT)
    stats = dice_stats(fair.roll(n) for n in range(60_000))
    assert stats.rolls == 60_000 and sum(stats.faces) == 120_000
    assert stats.face_p_value > 0.01, stats.summary()
    assert stats.pair_p_value > 0.01, (stats.pair_chi_square, stats.pair_p_value)
    # Doublets: 1/6 of the rolls, within four standard deviations.
    assert abs(stats.doublets - stats.expected_doublets) < 4 * math.sqrt(60_000 * (1 / 6) * (5 / 6))


def test_the_uniformity_check_catches_biased_dice() -> None:
    rng = random.Random(5)
    # A die that shows 6 one time in five instead of one in six.
    loaded = [(rng.choices(range(1, 7), weights=[4, 4, 4, 4, 4, 5])[0], rng.randint(1, 6)) for _ in range(10_000)]
    assert dice_stats(loaded).face_p_value < 0.01
    # Mapping every byte value with a plain modulo (no rejection) favours 1-4: 43 byte values each against 42.
    modulo = [(b % 6 + 1, (b * 5 + 3) % 256 % 6 + 1) for b in range(256)] * 400
    assert dice_stats(modulo).face_p_value < 0.01
    fair = [((b * 5 + 3) % 252 % 6 + 1, b % 252 % 6 + 1) for b in range(252)] * 400
    assert dice_stats(fair).face_p_value > 0.99


def test_dice_stats_counts_numbers_doublets_and_ordered_rolls() -> None:
    stats = dice_stats([(1, 1), (2, 3), (6, 6), (3, 2)])
    assert stats.faces == (2, 2, 2, 0, 0, 2)
    assert stats.doublets == 2
    assert stats.pairs[6 * 1 + 2] == 1 and stats.pairs[6 * 2 + 1] == 1 and stats.pairs[0] == 1
    assert stats.expected_face == pytest.approx(4 / 3) and stats.expected_doublets == pytest.approx(4 / 6)
    assert "4 rolls" in stats.summary() and "doublets 2" in stats.summary()
    assert dice_stats([]).summary() == "no rolls yet"
    with pytest.raises(ValueError):
        dice_stats([(0, 3)])


# --- the seed stays secret until revealed --------------------------------------------------------------
def test_the_seed_shows_nowhere_before_it_is_revealed() -> None:
    fair = FairDice(SEED, CLIENT)
    seed_hex = SEED.hex()
    proof = fair.proof()
    assert proof.seed is None and not proof.revealed
    assert proof.to_data() == {"scheme": SCHEME, "commitment": commitment(SEED), "client": CLIENT, "seed": None}
    for text in (repr(fair), str(fair), repr(proof), str(proof), json.dumps(proof.to_data()), f"{fair}"):
        assert seed_hex not in text.lower() and repr(SEED) not in text
    assert not hasattr(fair, "__dict__")
    with pytest.raises(TypeError):
        pickle.dumps(fair)
    with pytest.raises(TypeError):
        copy.deepcopy(fair)


def test_the_revealed_proof_carries_the_seed_and_reads_back() -> None:
    fair = FairDice(SEED, CLIENT)
    proof = fair.proof(reveal=True)
    assert proof.seed == SEED.hex() and proof.revealed
    assert DiceProof.from_data(json.loads(json.dumps(proof.to_data()))) == proof
    again = FairDice.from_secret_hex(fair.secret_hex(), CLIENT)
    assert [again.roll(n) for n in range(20)] == [fair.roll(n) for n in range(20)]


@pytest.mark.parametrize(
    ("seed", "client"), [(b"short", CLIENT), (SEED + b"x", CLIENT), (SEED, ""), ("00" * 32, CLIENT)]
)
def test_fair_dice_refuse_a_bad_seed_or_an_empty_client(seed: Any, client: str) -> None:
    with pytest.raises(ValueError):
        FairDice(seed, client)


# --- numbering and the engine --------------------------------------------------------------------------
def test_roll_numbers_count_every_roll_and_opening_throw_in_the_record() -> None:
    actions: list[Action] = [
        OpeningRoll("Alice", (3, 3)),
        OpeningRoll("Bob", (2, 5)),
        Move("Bob", ()),
        Roll("Alice", (6, 1)),
    ]
    assert roll_number(actions) == 3
    assert roll_number([action_to_data(a) for a in actions]) == 3
    assert roll_number([]) == 0
    assert recorded_rolls(actions) == [(3, 3), (2, 5), (6, 1)]
    assert player_rolls(actions, "Alice") == [(6, 1)]


def test_the_source_gives_consecutive_roll_numbers() -> None:
    fair = FairDice(SEED, CLIENT)
    source = fair.source(5)
    assert [source() for _ in range(4)] == [fair.roll(n) for n in range(5, 9)]


@pytest.mark.parametrize(
    "options",
    [MatchOptions(length=3), MatchOptions(length=3, opening=OpeningRule.REROLL), MatchOptions(games=3, beavers=True)],
)
def test_a_fair_match_replays_exactly_from_its_record_and_verifies(options: MatchOptions) -> None:
    fair = FairDice(SEED, CLIENT)
    state, actions = play_fair(fair, seed=11, options=options)
    data = json.loads(json.dumps(record_of(state, actions, fair.proof(reveal=True))))
    rebuilt = replay(setup_from_data(data["setup"]), [action_from_data(a) for a in data["actions"]])
    assert rebuilt == state
    rolls = [a for a in actions if isinstance(a, OpeningRoll | Roll)]
    assert [a.dice for a in rolls] == [fair.roll(n) for n in range(len(rolls))]
    report = verify_record(data)
    assert report.verdict is Verdict.VERIFIED and report.ok and report.rules_checked, report.message
    assert report.rolls == len(rolls) and report.match_over is True
    assert f"all {len(rolls)} rolls" in report.message


# --- verification ----------------------------------------------------------------------------------------
def roll_in_game(record: dict[str, Any], game: int, kind: str) -> tuple[int, int]:
    """(roll number, action index) of the first ``kind`` roll of ``game`` whose dice are not a doublet."""
    setup = setup_from_data(record["setup"])
    actions = [action_from_data(a) for a in record["actions"]]
    number = 0
    for i, (before, action) in enumerate(zip(states(setup, actions), actions)):
        if isinstance(action, OpeningRoll | Roll):
            if type(action).__name__ == kind and before.game == game and action.dice[0] != action.dice[1]:
                return number, i
            number += 1
    raise AssertionError(f"no {kind} in game {game}")


def test_a_changed_roll_is_named_with_its_game_and_player(record: dict[str, Any]) -> None:
    number, i = roll_in_game(record, 2, "Roll")
    item = record["actions"][i]
    real = tuple(item["dice"])
    fake = (real[0] % 6 + 1, real[1])
    item["dice"] = list(fake)
    report = verify_record(record)
    assert report.verdict is Verdict.TAMPERED and not report.ok
    bad = report.bad_roll
    assert bad is not None and (bad.number, bad.action, bad.game) == (number, i, 2)
    assert (bad.recorded, bad.derived) == (fake, real)
    player = item["by"]
    assert report.message == (
        f"tampered: roll {number} (game 2, {player}'s roll) is {fake[0]}-{fake[1]} "
        f"but the dice derive {real[0]}-{real[1]}"
    )


def test_swapped_dice_of_a_roll_are_detected(record: dict[str, Any]) -> None:
    number, i = roll_in_game(record, 1, "Roll")
    record["actions"][i]["dice"].reverse()
    report = verify_record(record)
    assert report.verdict is Verdict.TAMPERED
    assert report.bad_roll is not None and report.bad_roll.number == number


def test_a_changed_opening_throw_is_detected(record: dict[str, Any]) -> None:
    number, i = roll_in_game(record, 1, "OpeningRoll")
    record["actions"][i]["dice"].reverse()  # the other side wins the opening
    report = verify_record(record)
    assert report.verdict is Verdict.TAMPERED and report.bad_roll is not None
    assert report.bad_roll.number == number and "game 1, opening roll thrown by" in report.message


def test_a_different_seed_or_commitment_is_detected(record: dict[str, Any]) -> None:
    other = bytes(reversed(SEED))
    forged = dict(record, dice=dict(record["dice"], seed=other.hex()))
    report = verify_record(forged)
    assert report.verdict is Verdict.TAMPERED and "seed does not match the commitment" in report.message
    # A forger who also replaces the commitment is caught by the rolls, which came from the real seed.
    forged = dict(record, dice=dict(record["dice"], seed=other.hex(), commitment=commitment(other)))
    report = verify_record(forged)
    assert report.verdict is Verdict.TAMPERED and report.bad_roll is not None
    digit = "0" if record["dice"]["commitment"][0] != "0" else "1"
    forged = dict(record, dice=dict(record["dice"], commitment=digit + record["dice"]["commitment"][1:]))
    assert verify_record(forged).verdict is Verdict.TAMPERED


def test_a_changed_client_value_is_detected(record: dict[str, Any]) -> None:
    report = verify_record(dict(record, dice=dict(record["dice"], client=CLIENT + "0")))
    assert report.verdict is Verdict.TAMPERED and report.bad_roll is not None and report.bad_roll.number == 0


def test_an_unrevealed_seed_cannot_be_verified_yet(finished: tuple[FairDice, MatchState, list[Action]]) -> None:
    fair, state, actions = finished
    half = actions[: len(actions) // 2]
    report = verify_record(record_of(state, half, fair.proof()))
    assert report.verdict is Verdict.UNREVEALED and not report.ok
    assert "not over" in report.message and fair.secret_hex() not in report.message
    assert report.match_over is False


def test_legal_dice_but_an_illegal_play_make_the_record_invalid(record: dict[str, Any]) -> None:
    i = next(k for k, a in enumerate(record["actions"]) if a["type"] == "Move" and a["moves"])
    record["actions"][i]["moves"] = [[24, 1, False]]
    report = verify_record(record)
    assert report.verdict is Verdict.INVALID and f"action {i} (Move by" in report.message


def test_without_the_rule_set_only_the_dice_are_checked(record: dict[str, Any]) -> None:
    record["setup"]["variant"] = "no-such-rules"
    report = verify_record(record)
    assert report.verdict is Verdict.VERIFIED and not report.rules_checked and report.match_over is None
    assert "rules were not checked" in report.message
    number, i = 3, [k for k, a in enumerate(record["actions"]) if a["type"] in ("OpeningRoll", "Roll")][3]
    record["actions"][i]["dice"] = [7, 7]
    report = verify_record(record)
    assert report.verdict is Verdict.TAMPERED and report.bad_roll is not None
    assert (report.bad_roll.number, report.bad_roll.game) == (number, None)


def test_the_service_setup_wrapper_is_accepted(record: dict[str, Any]) -> None:
    record["setup"] = {"match": record["setup"], "names": {}, "terms": {}}
    assert verify_record(record).rules_checked


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r.pop("dice"),
        lambda r: r["dice"].update(scheme="other-v2"),
        lambda r: r["dice"].update(seed="xyz"),
        lambda r: r["dice"].update(seed="abc"),
        lambda r: r["dice"].update(commitment="00"),
        lambda r: r["dice"].update(client=5),
        lambda r: r["dice"].update(client=None),
        lambda r: r.update(dice=[]),
        lambda r: r.update(actions={}),
        lambda r: r["actions"].append(7),
        lambda r: r["actions"].append({"type": "Roll", "by": "Alice", "dice": {"a": 1}}),
        lambda r: r["actions"].append({"type": "Teleport", "by": "Alice"}),
        lambda r: r.pop("setup"),
    ],
)
def test_records_that_are_not_verifiable_raise_record_error(record: dict[str, Any], change: Any) -> None:
    change(record)
    with pytest.raises(RecordError):
        verify_record(record)


def test_random_corruption_never_escapes_as_another_error(record: dict[str, Any]) -> None:
    rng = random.Random(9)
    junk: list[Any] = [None, -1, 0, 7, 2**70, 1.5, "x", [], {}, [1], [1, 2, 3], True, {"a": 1}]
    outcomes: dict[str, int] = {}
    for _ in range(150):
        r = copy.deepcopy(record)
        item = rng.choice(r["actions"])
        item[rng.choice(sorted(item))] = rng.choice(junk)
        try:
            outcome = str(verify_record(r).verdict)
        except RecordError:
            outcome = "unreadable"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert sum(outcomes.values()) == 150
    assert outcomes.get("unreadable", 0) > 0 and outcomes.get("tampered", 0) + outcomes.get("invalid", 0) > 0, outcomes

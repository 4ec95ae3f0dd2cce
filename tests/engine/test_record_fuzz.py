"""verify_record on records with fields of the wrong type (issue 33 item 22): a RecordError naming what is wrong,
never a traceback (a fuzz found 60 in 58,000 records: comparisons of a string with a number deep in the rules, a
lone surrogate in the players' value, a NaN or 1e400 read from JSON)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.fairdice import FairDice, verify_record
from engine.match import MatchOptions
from engine.record import RecordError
from tests.engine.test_fairdice import play_fair, record_of

_FAIR = FairDice(bytes(range(100, 132)), "challenge-accepted-by-bob")
_STATE, _ACTIONS = play_fair(_FAIR, seed=4, options=MatchOptions(length=1))
BASE: dict[str, Any] = json.loads(json.dumps(record_of(_STATE, _ACTIONS, _FAIR.proof(reveal=True))))


def _paths(data: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a record a value sits (the first and last few actions of a list)."""
    found = [at] if at else []
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*at, key))
    elif isinstance(data, list):
        for i in sorted({*range(min(4, len(data))), *range(max(0, len(data) - 3), len(data))}):
            found += _paths(data[i], (*at, i))
    return found


PATHS = _paths(BASE)
WRONG = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.just(2**70),
    st.floats(),  # NaN and infinities among them
    st.text(max_size=5),
    st.just("\ud800"),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(PATHS), WRONG), min_size=1, max_size=3))
def test_a_record_with_wrongly_typed_fields_is_refused_never_raised(changes: list[tuple[tuple[Any, ...], Any]]) -> None:
    record = json.loads(json.dumps(BASE))
    for path, value in changes:
        target = record
        try:
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change replaced what this one would reach
    try:
        verify_record(record)
    except RecordError as exc:
        assert str(exc)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda r: r["setup"]["options"].update(length="3"), "the match option length must be a whole number"),
        (lambda r: r["setup"]["options"].update(crawford=1), "the match option crawford must be true or false"),
        (lambda r: r["setup"].update(sides=[["a"], [7]]), '"sides" must be two lists of player ids'),
        (lambda r: r["dice"].update(client="x\ud800"), "dice.client has a character that is not text"),
        (lambda r: r["actions"][1].update(dice=[float("nan"), 1]), "actions[1].dice[0] is nan"),
        (lambda r: r["actions"][2].update(by="\udfff"), "actions[2].by has a character that is not text"),
    ],
)
def test_each_wrong_field_is_named(change: Any, words: str) -> None:
    record = json.loads(json.dumps(BASE))
    change(record)
    try:
        report = verify_record(record)
    except RecordError as exc:
        assert words in str(exc)
    else:
        assert words in report.message  # a setup the rules cannot read: the dice are checked, the rules are not

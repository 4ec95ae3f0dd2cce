"""engine.options and engine.terms: one options string for every match option and rule-set option, checked together.

The property tests draw option sets from the option descriptions themselves (every field of MatchOptions, every
rule set's ``option_defaults``), so an option added later is covered without a change here.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.match import MatchOptions
from engine.options import (
    EMPTY,
    Chosen,
    Option,
    OptionError,
    check_defaults,
    match_option_specs,
    parse,
    rule_set_option_specs,
    settle,
)
from engine.plugins import registry
from engine.terms import describe, suggest
from engine.variant import Variant

REG = registry()
RULE_SETS: list[type[Variant]] = [REG.variants[n] for n in REG.names()]
BACKGAMMON = REG.find("backgammon")
LONGGAMMON = REG.find("longgammon")
DOUBLES = REG.find("doubles")


def values_of(opt: Option) -> st.SearchStrategy[Any]:
    """Any value of the option's kind (valid or not for the rules: reading and writing must not care)."""
    kinds: dict[str, st.SearchStrategy[Any]] = {
        "bool": st.booleans(),
        "int": st.integers(-5, 200) | st.sampled_from([1, 2, 4, 8, 16, 32, 64, 1 << 15]),
        "float": st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
        "choice": st.sampled_from(opt.choices or ("x",)),
        "ints": st.lists(st.integers(0, 9), max_size=6).map(tuple),
        "text": st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True),
    }
    strategy = kinds[opt.kind]
    return strategy | st.none() if opt.optional else strategy


@st.composite
def option_sets(draw: st.DrawFn, rule_set: type[Variant]) -> Chosen:
    """Some of the match options and of ``rule_set``'s options, with values of their kinds, in any order."""
    specs = match_option_specs() + rule_set_option_specs(rule_set)
    picked = draw(st.lists(st.sampled_from(specs), unique_by=lambda o: o.key, max_size=8))
    match: dict[str, Any] = {}
    rules: dict[str, Any] = {}
    for opt in picked:
        (rules if opt.rule_set else match)[opt.name] = draw(values_of(opt))
    return Chosen(match, {rule_set.name: rules} if rules else {})


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_every_options_string_reads_back_as_what_it_writes(data: st.DataObject) -> None:
    cls = data.draw(st.sampled_from(RULE_SETS))
    chosen = data.draw(option_sets(cls))
    # A challenge writes the rule set's options by name alone; a server's defaults with the rule set's name.
    assert parse(chosen.text(cls.name), RULE_SETS, rule_set=cls) == chosen
    assert parse(chosen.text(), RULE_SETS) == chosen
    # Stored as data (a server's defaults, JSON), and read again.
    assert parse(chosen.to_data(), RULE_SETS) == chosen
    assert parse(chosen, RULE_SETS, rule_set=cls) == chosen


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_combination_is_settled_or_refused_in_one_line(data: st.DataObject) -> None:
    cls = data.draw(st.sampled_from(RULE_SETS))
    chosen = data.draw(option_sets(cls))
    defaults = data.draw(option_sets(cls))
    length = data.draw(st.sampled_from([0, 0, 1, 3, 5, 11, -1]))
    try:
        opts, variant_options = settle(cls, length, chosen, defaults)
    except OptionError as exc:
        text = str(exc)
        assert text and "\n" not in text and "rules.md" not in text and len(text) < 400, text
        return
    opts.check()
    assert opts.length == length
    for name, value in chosen.match.items():  # the player's own choice is kept, whatever the defaults say
        assert str(getattr(getattr(opts, name), "value", getattr(opts, name))) == str(value)
    if opts.holland and not opts.money:
        assert opts.crawford, "the Holland rule cannot apply without the Crawford rule"
    variant = cls(**variant_options)
    lines = describe(variant, opts)
    assert lines and all("\n" not in line and "rules.md" not in line for line in lines)
    # The settled terms, written out and read back, settle to the same terms.
    fields = {f.name: getattr(opts, f.name) for f in dataclasses.fields(opts) if f.name != "length"}
    written = Chosen({k: getattr(v, "value", v) for k, v in fields.items()}, {cls.name: variant_options})
    assert settle(cls, length, parse(written.text(cls.name), RULE_SETS, rule_set=cls)) == (opts, variant_options)


WORDS = [o.name for o in match_option_specs()] + [o.name for c in RULE_SETS for o in rule_set_option_specs(c)]
tokens = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(WORDS).map(lambda w: "no-" + w),
    st.tuples(
        st.sampled_from(WORDS + ["", "longgammon.koks", "chess.x", "length"]),
        st.sampled_from("=:"),
        st.sampled_from(["on", "off", "maybe", "", "16", "-3", "7,4", "1e9", "999999999999", "reroll", "none", "="]),
    ).map("".join),
    st.text(max_size=12),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(tokens, max_size=8).map(" ".join), st.sampled_from([*RULE_SETS, None]), st.integers(-1, 7))
def test_any_text_is_read_or_refused_in_one_line_never_a_traceback(
    text: str, cls: type[Variant] | None, length: int
) -> None:
    for attempt in (
        lambda: settle(cls or BACKGAMMON, length, parse(text, RULE_SETS, rule_set=cls or BACKGAMMON)),
        lambda: check_defaults(parse(text, RULE_SETS), RULE_SETS, max(0, length)),
    ):
        try:
            attempt()
        except OptionError as exc:
            assert str(exc) and "\n" not in str(exc), repr(str(exc))
    for label, value in suggest(text, RULE_SETS, rule_set=cls, money=length == 0 if length >= 0 else None):
        assert 0 < len(label) <= 100 and 0 < len(value) <= 100


def refused(text: str, cls: type[Variant] = BACKGAMMON, length: int = 0, defaults: Chosen = EMPTY) -> str:
    with pytest.raises(OptionError) as info:
        settle(cls, length, parse(text, RULE_SETS, rule_set=cls), defaults)
    return str(info.value)


def test_messages_name_the_option_and_what_it_accepts() -> None:
    assert refused("jacobi") == "unknown option 'jacobi' — did you mean 'jacoby'?"
    assert "max_cube is a whole number, not 'big'" in refused("max_cube=big")
    assert "opening is one of ibf, reroll, winner, winner-reroll, not 'first'" in refused("opening=first")
    assert "jacoby is on or off (yes/no, true/false), not 'maybe'" in refused("jacoby=maybe")
    assert "games needs a value" in refused("games")
    assert "given twice" in refused("jacoby jacoby=off")
    assert "koks is a Longgammon option, and this is Backgammon" in refused("koks=on")
    assert "the match length is given apart" in refused("length=3")
    assert "power of two" in refused("max_cube=3")


def test_impossible_combinations_are_refused_with_the_reason() -> None:
    assert "needs the Crawford rule" in refused("holland crawford=off", length=5)
    assert "money" in refused("jacoby", length=5)
    assert "Holland" in refused("holland", length=0)
    assert "crawford is for matches, and this is money play" in refused("crawford=off")
    assert "beaver_limit applies only with beavers" in refused("beaver_limit=1")
    assert "jacoby needs the doubling cube, but cube is off" in refused("jacoby cube=off")
    assert "choosing the acting member is for team rule sets" in refused("team_choice")
    assert "game count is for money sessions" in refused("games=3", length=5)


def test_spellings_of_on_off_numbers_and_names() -> None:
    chosen = parse("Max-Cube=16 no-crawford beavers=YES jacoby:true, opening=REROLL", RULE_SETS, rule_set=BACKGAMMON)
    assert chosen.match == {"max_cube": 16, "crawford": False, "beavers": True, "jacoby": True, "opening": "reroll"}
    koks = parse("longgammon.koks first_turn_doublets=6,4", RULE_SETS, rule_set=LONGGAMMON)
    assert koks.rules == {"longgammon": {"koks": True, "first_turn_doublets": (6, 4)}}
    # A server's defaults find a rule set's option by its name alone, and store it with the rule set's name.
    assert parse("koks=on jacoby", RULE_SETS).to_data() == {"jacoby": True, "longgammon.koks": True}


def test_defaults_apply_where_they_can_and_the_players_choice_comes_first() -> None:
    defaults = parse("jacoby beavers holland koks max_cube=16", RULE_SETS)
    check_defaults(defaults, RULE_SETS, 5)
    money, _ = settle(BACKGAMMON, 0, EMPTY, defaults)
    assert money.jacoby and money.beavers and not money.holland and money.max_cube == 16
    match, _ = settle(BACKGAMMON, 5, EMPTY, defaults)
    assert match.holland and not match.jacoby and not match.beavers
    # The player turns the Crawford rule off: the server's Holland rule, which needs it, is left out.
    no_crawford, _ = settle(BACKGAMMON, 5, parse("crawford=off", RULE_SETS, rule_set=BACKGAMMON), defaults)
    assert not no_crawford.crawford and not no_crawford.holland
    own, _ = settle(BACKGAMMON, 0, parse("beavers=off", RULE_SETS, rule_set=BACKGAMMON), defaults)
    assert own.jacoby and not own.beavers
    assert settle(LONGGAMMON, 3, EMPTY, defaults)[1] == {"koks": True}
    assert settle(BACKGAMMON, 3, EMPTY, defaults)[1] == {}
    with pytest.raises(OptionError, match="in matches: .*Crawford"):
        check_defaults(parse("holland crawford=off", RULE_SETS), RULE_SETS, 5)
    with pytest.raises(OptionError, match="Longgammon: .*first_turn_doublets"):
        check_defaults(parse("longgammon.first_turn_doublets=9", RULE_SETS), RULE_SETS, 5)
    check_defaults(parse("team_choice jacoby", RULE_SETS), RULE_SETS, 5)  # for team rule sets, and for money play


def test_every_field_of_match_options_but_the_length_is_an_option() -> None:
    names = {o.name for o in match_option_specs()}
    assert names == {f.name for f in dataclasses.fields(MatchOptions)} - {"length"}
    assert {o.name for o in rule_set_option_specs(LONGGAMMON)} == set(LONGGAMMON.option_defaults)


def test_the_terms_in_words() -> None:
    opts, variant_options = settle(LONGGAMMON, 0, parse("jacoby beavers games=5 koks", RULE_SETS, rule_set=LONGGAMMON))
    lines = describe(LONGGAMMON(**variant_options), opts)
    assert lines[0] == "Longgammon for money, a session of 5 games"
    assert "Jacoby rule: on (gammons and backgammons count single while the cube is centred)" in lines
    assert "Beavers: on (at most 3 beavers and raccoons after one double)" in lines
    assert any(line.startswith("Longgammon options: koks on;") for line in lines)
    match, _ = settle(BACKGAMMON, 7, parse("holland crawford", RULE_SETS, rule_set=BACKGAMMON))
    words = "\n".join(describe(BACKGAMMON(), match))
    assert "a 7-point match" in words and "Holland rule: on" in words and "Jacoby" not in words
    team = describe(DOUBLES(), settle(DOUBLES, 1, parse("team_choice", RULE_SETS, rule_set=DOUBLES))[0])
    assert "Acting member: each team chooses before every game" in team


def test_suggestions_complete_the_last_word_within_discords_limits() -> None:
    values = [v for _, v in suggest("jacoby bea", RULE_SETS, rule_set=BACKGAMMON, money=True)]
    assert values[:2] == ["jacoby beavers", "jacoby beaver_limit=3"]
    assert [v for _, v in suggest("max_cube=", RULE_SETS, rule_set=BACKGAMMON)][:3] == [
        "max_cube=64",
        "max_cube=1",
        "max_cube=2",
    ]
    assert [v for _, v in suggest("opening=re", RULE_SETS)] == ["opening=reroll"]
    assert [v for _, v in suggest("ko", RULE_SETS, rule_set=LONGGAMMON)] == ["koks"]
    assert suggest("ko", RULE_SETS, rule_set=BACKGAMMON) == []
    in_match = [v for _, v in suggest("", RULE_SETS, rule_set=BACKGAMMON, money=False)]
    assert "holland" in in_match and "jacoby" not in in_match and len(in_match) <= 25
    after = [v for _, v in suggest("jacoby ", RULE_SETS, rule_set=BACKGAMMON)]
    assert after and all(v.startswith("jacoby ") and v.count("jacoby") == 1 for v in after)  # not offered twice
    (warning,) = suggest("jacobi be", RULE_SETS, rule_set=BACKGAMMON)
    assert warning == ("⚠ unknown option 'jacobi' — did you mean 'jacoby'?", "jacobi be")
    long = "jacoby " * 14
    assert all(len(v) <= 100 for _, v in suggest(long, RULE_SETS, rule_set=BACKGAMMON))

"""Fuzzing config.toml: any file gives a Settings or a one-line ConfigError naming the file, quickly.

Two generators: TOML documents built from the real sections and keys with values of every TOML type
(and a few valid ones, so that good and bad values meet in one file), and the shipped config.toml with
characters inserted, deleted or replaced (broken syntax).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.config import MATCH_OPTION_DEFAULTS, SECTIONS, ConfigError, LimitSettings, Settings, load_settings
from engine.plugins import registry
from render.theme import CLASSIC, MAX_WIDTH, MIN_WIDTH, RENDER_KEYS

SHIPPED = Path(__file__).resolve().parents[2] / "config.toml"
#: No example may take longer than this (a 30-second hang used to be possible).

KEYS: dict[str, list[str]] = {
    "storage": ["url", "sqlite_synchronous", "pool_size", "settings_ttl"],
    "defaults": ["variant", "match_length", *MATCH_OPTION_DEFAULTS],
    "ratings": ["system"],
    "limits": [f.name for f in dataclasses.fields(LimitSettings)],
    "logging": ["level"],
    "discord": ["guild_id", "shard_count", "shard_ids"],
    "render": [k for k in RENDER_KEYS if k != "themes"],
}
GOOD: list[Any] = [
    "sqlite:///g.sqlite3",
    "postgresql://bot@db/games",
    "FULL",
    "normal",
    "backgammon",
    "sprint",
    "doubles",
    "fibs",
    "INFO",
    "debug",
    "classic",
    "high-contrast",
    "ibf",
    "game",
    "#123456",
    "#abc",
    "123456789012345678",
    [0, 1],
    [1],
    True,
    False,
    0,
    1,
    2,
    5,
    16,
    64,
    320,
    840,
    2400,
    2.5,
]

text = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
scalars = st.one_of(
    st.sampled_from(GOOD),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    text,
    st.datetimes(min_value=dt.datetime(1, 1, 1), max_value=dt.datetime(9999, 12, 31)),
    st.dates(),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)


def toml_string(value: str) -> str:
    """A TOML basic string (JSON's escapes, but no surrogate pairs, and DEL escaped too)."""
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def toml_key(key: str) -> str:
    return toml_string(key)


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


@st.composite
def mostly(draw: st.DrawFn, known: list[str]) -> str:
    """One of ``known`` nineteen times in twenty, else any text (most likely an unknown name)."""
    if not known or draw(st.integers(0, 19)) == 0:
        return draw(text)
    return draw(st.sampled_from(known))


@st.composite
def documents(draw: st.DrawFn) -> str:
    lines: list[str] = []
    if draw(st.integers(0, 9)) == 0:
        lines.append(f"{toml_key(draw(text))} = {toml_value(draw(values))}")  # a key outside any section
    for section in draw(st.lists(mostly(list(SECTIONS)).filter(lambda name: name != ""), max_size=6, unique=True)):
        lines.append(f"[{toml_key(section)}]")
        for key in draw(st.lists(mostly(KEYS.get(section, [])), max_size=5, unique=True)):
            good = st.sampled_from(GOOD)
            lines.append(f"{toml_key(key)} = {toml_value(draw(st.one_of(good, good, values)))}")
    for name in draw(st.lists(mostly(["classic", "high-contrast", "mine"]), max_size=2, unique=True)):
        lines.append(f"[render.themes.{toml_key(name)}]")
        for key in draw(st.lists(mostly([*CLASSIC, "width"]), max_size=4, unique=True)):
            good = st.sampled_from(["#123456", "#abc", "#ABCDEF", 400, 2400])
            lines.append(f"{toml_key(key)} = {toml_value(draw(st.one_of(good, good, values)))}")
    return "\n".join(lines) + "\n"


@st.composite
def mutated_shipped(draw: st.DrawFn) -> str:
    doc = SHIPPED.read_text()
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(doc)))
        op = draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = draw(st.sampled_from(["[", "]", "=", '"', "'", "\n", "#", ".", "-", "1", "x", "{", ",", "\\"]) | text)
        if op == "insert":
            doc = doc[:at] + piece + doc[at:]
        elif op == "delete":
            doc = doc[:at] + doc[at + draw(st.integers(1, 20)) :]
        else:
            doc = doc[:at] + piece + doc[at + len(piece) :]
    return doc


@pytest.fixture(scope="module")
def path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    registry()  # load the plugins once, not inside the first timed example
    return tmp_path_factory.mktemp("fuzz") / "config.toml"


def check(path: Path, doc: str) -> None:
    path.write_text(doc, encoding="utf-8")
    try:
        loaded = load_settings(path, environ={})
    except ConfigError as exc:
        message = str(exc)
        assert len(message.splitlines()) == 1, message
        assert message.startswith(f"{path}: ") and len(message) < 1000, message
    else:
        assert isinstance(loaded, Settings)
        loaded.defaults.match_options().check()
        for name in loaded.theme_names():
            assert MIN_WIDTH <= loaded.render.theme(name).width <= MAX_WIDTH
        assert loaded.render.theme().name == loaded.render.default


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=documents())
def test_generated_documents_load_or_give_one_line(path: Path, doc: str) -> None:
    check(path, doc)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=mutated_shipped())
def test_a_damaged_shipped_file_loads_or_gives_one_line(path: Path, doc: str) -> None:
    check(path, doc)


@settings(max_examples=150, deadline=None)
@given(section=st.sampled_from(list(KEYS)), data=st.data())
def test_any_value_of_any_key_loads_or_gives_one_line_naming_the_key(path: Path, section: str, data: Any) -> None:
    key = data.draw(st.sampled_from(KEYS[section]))
    value = data.draw(values)
    doc = f"[{section}]\n{key} = {toml_value(value)}\n"
    if section == "discord" and key == "shard_ids":
        doc += "shard_count = 4\n"
    path.write_text(doc)
    try:
        load_settings(path, environ={})
    except ConfigError as exc:
        assert len(str(exc).splitlines()) == 1 and f"[{section}] " in str(exc), str(exc)

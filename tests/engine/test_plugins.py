"""The plugin contract: built-in and outside plugins, duplicates, owners, GAMMONBOT_PLUGINS and GAMMONBOT_TRACE_HOOKS.

The outside plugin is a real distribution, ``tests/plugins/nackgammon`` (``gammonbot-nackgammon``), installed
by the test command (``pip install -e '.[test]' -e tests/plugins/nackgammon``). It reaches gammonbot only
through its ``gammonbot`` entry point.
"""

from __future__ import annotations

import inspect
import logging
import os
import subprocess
import sys
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, distribution, entry_points
from pathlib import Path

import pytest

from engine import hookspecs
from engine.plugins import (
    DEFAULT_PLUGINS,
    ENTRY_POINT_GROUP,
    PluginError,
    UnknownTimeControl,
    build_plugin_manager,
    find_time_control,
    find_variant,
    hookimpl,
    registry,
)
from engine.timecontrol import Bonus, Kind, TimeControl
from engine.variant import Variant

ROOT = Path(__file__).resolve().parents[2]
PLUGIN_DIR = ROOT / "tests" / "plugins" / "nackgammon"
BUILT_IN_VARIANTS = {"backgammon": "backgammon", "longgammon": "longgammon", "sprintgammon": "sprintgammon"}


def _require_nackgammon() -> None:
    try:
        distribution("gammonbot-nackgammon")
    except PackageNotFoundError:
        pytest.fail(
            "the test plugin is not installed: run the README's test command "
            "(pip install -e '.[test]' -e tests/plugins/nackgammon)"
        )


def _gammonbot(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    beside = Path(sys.executable).with_name("gammonbot")
    command = [str(beside)] if beside.exists() else [sys.executable, "-m", "bot.cli"]
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("GAMMONBOT_")}
    full_env.update(env or {})
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=60, env=full_env)


@pytest.fixture(autouse=True)
def _no_plugin_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts without the two variables; tests that need them set them."""
    monkeypatch.delenv("GAMMONBOT_PLUGINS", raising=False)
    monkeypatch.delenv("GAMMONBOT_TRACE_HOOKS", raising=False)


# --- built-in plugins -----------------------------------------------------------------------------------
def test_the_built_in_rule_sets_are_plugins_that_register_themselves() -> None:
    _, reg = build_plugin_manager(load_entry_points=False)
    for name, owner in BUILT_IN_VARIANTS.items():
        assert name in reg.variants and reg.owners[name] == owner
    assert dict(DEFAULT_PLUGINS)["timecontrols"] == "variants.timecontrols"


def test_the_built_in_time_controls_are_registered_by_their_plugin() -> None:
    _, reg = build_plugin_manager(load_entry_points=False)
    assert {"backgammon-blitz", "longgammon-blitz", "tournament-clock", "correspondence"} <= set(reg.time_controls)
    assert {reg.time_control_owners[name] for name in reg.time_controls} == {"timecontrols"}
    assert reg.find_time_control("Blitz") is reg.time_controls["backgammon-blitz"]


def test_an_unknown_time_control_lists_those_that_exist() -> None:
    with pytest.raises(UnknownTimeControl, match="no time control called 'bullet'; available: .*backgammon-blitz"):
        find_time_control("bullet")


# --- the outside plugin ---------------------------------------------------------------------------------
def test_the_test_plugin_is_an_installed_distribution_with_a_gammonbot_entry_point() -> None:
    _require_nackgammon()
    (ep,) = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == "nackgammon"]
    assert ep.value == "gammonbot_nackgammon"
    module = ep.load()
    assert Path(module.__file__).resolve().is_relative_to(PLUGIN_DIR)


def test_installing_the_plugin_adds_nackgammon_without_any_change_to_gammonbot() -> None:
    _require_nackgammon()
    _, without = build_plugin_manager(load_entry_points=False)
    _, with_plugins = build_plugin_manager()
    assert "nackgammon" not in without.variants
    assert set(with_plugins.variants) - set(without.variants) >= {"nackgammon"}
    assert with_plugins.owners["nackgammon"] == "nackgammon"
    nack = find_variant("nack")()
    assert nack.start_position() == nack.flip(nack.start_position())
    assert str(nack.start_position()) == "24:2 23:2 19:-4 17:-3 13:4 12:-4 8:3 6:4 2:-2 1:-2"
    # gammonbot itself never names the plugin: only the entry point brings it in.
    for package in ("engine", "variants", "bot", "render"):
        for path in (ROOT / package).rglob("*.py"):
            assert "import gammonbot_nackgammon" not in path.read_text(), path


def test_the_command_line_lists_and_plays_the_outside_rule_set() -> None:
    _require_nackgammon()
    listed = _gammonbot("variants")
    assert listed.returncode == 0, listed.stderr
    assert "nackgammon: Nackgammon (also: nack) — plugin nackgammon" in listed.stdout
    nack = find_variant("nackgammon")()
    from engine import encode_position_id

    start_id = encode_position_id(nack, nack.start_position())
    played = _gammonbot("plays", "--variant", "nackgammon", start_id, "31")
    assert played.returncode == 0, played.stderr
    assert len(played.stdout.splitlines()) == len(nack.legal_plays(nack.start_position(), (3, 1)))


def test_the_outside_plugin_registers_its_catalogs_and_the_registry_hands_them_to_the_translations() -> None:
    _require_nackgammon()
    _, reg = build_plugin_manager()
    (folder,) = reg.translations["nackgammon"]
    assert folder.is_relative_to(PLUGIN_DIR) and (folder / "ru" / "LC_MESSAGES" / "nackgammon.po").is_file()
    assert ("nackgammon", folder) in reg.catalog_folders()
    assert "backgammon" not in reg.translations  # gammonbot's own words are its catalogs, not a plugin's


def test_a_plugin_registering_translations_that_are_not_a_folder_is_refused_and_keeps_nothing(
    tmp_path: Path,
) -> None:
    class Plugin:
        @hookimpl
        def register_translations(self, register: Callable[[object], None]) -> None:
            register(tmp_path)
            register(tmp_path / "missing")

    _, reg = build_plugin_manager([("wordy", Plugin())], load_entry_points=False)
    assert "is not a folder" in reg.refused["wordy"] and "missing" in reg.refused["wordy"]
    assert "wordy" not in reg.translations
    with pytest.raises(PluginError, match="plugin 'wordy' refused: .*not a folder"):
        build_plugin_manager([("wordy", Plugin())], load_entry_points=False, strict=True)


# --- GAMMONBOT_PLUGINS ----------------------------------------------------------------------------------
def test_gammonbot_plugins_restricts_the_plugins_that_load(monkeypatch: pytest.MonkeyPatch) -> None:
    _require_nackgammon()
    monkeypatch.setenv("GAMMONBOT_PLUGINS", "backgammon, nackgammon")
    pm, reg = build_plugin_manager()
    assert set(reg.variants) == {"backgammon", "nackgammon"}
    assert reg.time_controls == {}
    assert {name for name, _ in pm.list_name_plugin()} == {"backgammon", "nackgammon"}


def test_gammonbot_plugins_can_leave_out_the_outside_plugin_and_keep_only_time_controls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GAMMONBOT_PLUGINS", "timecontrols")
    _, reg = build_plugin_manager()
    assert reg.variants == {}
    assert "longgammon-blitz" in reg.time_controls


def test_gammonbot_plugins_applies_to_the_command_line() -> None:
    proc = _gammonbot("variants", env={"GAMMONBOT_PLUGINS": "longgammon"})
    assert proc.returncode == 0, proc.stderr
    assert [line.split(":")[0] for line in proc.stdout.splitlines()] == ["longgammon"]


# --- GAMMONBOT_TRACE_HOOKS ------------------------------------------------------------------------------
def test_gammonbot_trace_hooks_writes_every_hook_call_to_standard_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GAMMONBOT_PLUGINS", "longgammon,timecontrols")
    monkeypatch.setenv("GAMMONBOT_TRACE_HOOKS", "1")
    build_plugin_manager()
    err = capsys.readouterr().err
    assert err.count("register_variants [hook]") == 2
    assert err.count("register_time_controls [hook]") == 2
    assert "finish register_variants" in err


def test_without_gammonbot_trace_hooks_nothing_is_traced(capsys: pytest.CaptureFixture[str]) -> None:
    build_plugin_manager(load_entry_points=False)
    assert "[hook]" not in capsys.readouterr().err


def test_tracing_is_seen_from_the_command_line() -> None:
    proc = _gammonbot("variants", env={"GAMMONBOT_TRACE_HOOKS": "1", "GAMMONBOT_PLUGINS": "sprintgammon"})
    assert proc.returncode == 0
    assert "register_variants [hook]" in proc.stderr and proc.stdout.startswith("sprintgammon:")


# --- the register callbacks -----------------------------------------------------------------------------
class _Club:
    """An outside plugin object adding a rule set and a time control."""

    class Race(Variant):
        name = "club-race"
        display_name = "Club race"
        summary = "Backgammon from a race position."
        checkers = 15
        start = {6: 5, 5: 5, 4: 5}

    PRESET = TimeControl("club-rapid", "Club rapid", Kind.CLOCK, Bonus.INCREMENT, per_move=5, reserve=300)

    @hookimpl
    def register_variants(self, register: Callable[[type[Variant]], None]) -> None:
        register(self.Race)

    @hookimpl
    def register_time_controls(self, register: Callable[[TimeControl], None]) -> None:
        register(self.PRESET)


def test_a_plugin_adds_a_rule_set_and_a_time_control_and_is_named_as_their_owner() -> None:
    _, reg = build_plugin_manager([("club", _Club())], load_entry_points=False)
    assert reg.find("club-race") is _Club.Race and reg.owners["club-race"] == "club"
    assert reg.find_time_control("CLUB-RAPID") is _Club.PRESET
    assert reg.time_control_owners["club-rapid"] == "club"


def test_a_time_control_name_taken_by_another_plugin_is_refused_naming_both(caplog: pytest.LogCaptureFixture) -> None:
    class Copycat:
        @hookimpl
        def register_time_controls(self, register: Callable[[TimeControl], None]) -> None:
            register(TimeControl("my-blitz", "My blitz", Kind.CLOCK, per_move=5, reserve=60, aliases=("blitz",)))

    with caplog.at_level(logging.WARNING, logger="gammonbot.plugins"):
        _, reg = build_plugin_manager([("copycat", Copycat())], load_entry_points=False)
    reason = "it registers time control 'blitz', but plugin 'timecontrols' already registered it for 'backgammon-blitz'"
    assert reg.refused == {"copycat": reason}
    assert f"plugin 'copycat' refused: {reason}" in caplog.text
    assert "my-blitz" not in reg.time_controls and reg.find_time_control("blitz").name == "backgammon-blitz"
    with pytest.raises(PluginError, match="plugin 'copycat' refused: it registers time control 'blitz'"):
        build_plugin_manager([("copycat", Copycat())], load_entry_points=False, strict=True)


def test_a_rule_set_name_or_alias_taken_by_another_plugin_is_refused_naming_both() -> None:
    class Hyper(Variant):
        name = "hyper"
        display_name = "Hyper"
        aliases = ("hypergammon",)
        checkers = 3
        start = {24: 1, 23: 1, 22: 1}

    class Copycat:
        @hookimpl
        def register_variants(self, register: Callable[[type[Variant]], None]) -> None:
            register(Hyper)

    _, reg = build_plugin_manager([("copycat", Copycat())], load_entry_points=False)
    assert reg.refused["copycat"] == (
        "it registers rule set 'hypergammon', but plugin 'sprintgammon' already registered it for 'sprintgammon'"
    )
    assert "hyper" not in reg.variants and reg.find("hypergammon").name == "sprintgammon"


def test_registering_something_that_is_not_a_time_control_is_refused() -> None:
    class Sloppy:
        @hookimpl
        def register_time_controls(self, register: Callable[[object], None]) -> None:
            register({"name": "bullet"})

    _, reg = build_plugin_manager([("sloppy", Sloppy())], load_entry_points=False)
    assert reg.refused["sloppy"] == "it registered {'name': 'bullet'}, which is not a TimeControl"


def test_a_misspelled_hook_refuses_its_plugin_at_start_up() -> None:
    class Typo:
        @hookimpl
        def register_time_control(self, register: Callable[[TimeControl], None]) -> None:  # no such hook
            raise AssertionError("never called")

    pm, reg = build_plugin_manager([("typo", Typo())], load_entry_points=False)
    assert reg.refused["typo"] == "it implements register_time_control, which gammonbot has no hook for (misspelled?)"
    assert not pm.has_plugin("typo") and "backgammon" in reg.variants
    with pytest.raises(PluginError, match="register_time_control"):
        build_plugin_manager([("typo", Typo())], load_entry_points=False, strict=True)


def test_the_process_registry_holds_the_time_controls() -> None:
    assert registry().find_time_control("long-blitz").display_name == "Longgammon Blitz"


# --- every hook is documented and tested ----------------------------------------------------------------
def test_every_hook_spec_is_documented_typed_and_tested_here() -> None:
    specs = [
        fn
        for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
        if hasattr(fn, "gammonbot_spec") and not name.startswith("_")
    ]
    assert {fn.__name__ for fn in specs} >= {"register_variants", "register_time_controls"}
    source = Path(__file__).read_text()
    for fn in specs:
        doc = inspect.getdoc(fn) or ""
        assert doc.startswith("Called"), f"{fn.__name__}: the docstring should say when it is called"
        assert "collected" in doc or "firstresult" in doc, f"{fn.__name__}: say whether results are collected"
        assert all(p.annotation is not inspect.Parameter.empty for p in inspect.signature(fn).parameters.values())
        assert f"def {fn.__name__}(" in source, f"{fn.__name__} has no implementation exercised in this module"


def test_a_plugin_adds_a_bot_player_that_plays_only_the_rule_sets_it_supports() -> None:
    import random as _random

    from engine.players import PlayerSpec, RandomBot, UnsupportedVariant

    spec = PlayerSpec(
        "club-random",
        "Club random",
        "no skill",
        factory=lambda seed: RandomBot(_random.Random(seed)),
        supports=lambda variant: variant.checkers == 3,
        requirements="three checkers a side",
    )

    class ClubBots:
        @hookimpl
        def register_players(self, register: Callable[[PlayerSpec], None]) -> None:
            register(spec)

    _, reg = build_plugin_manager([("clubbots", ClubBots())], load_entry_points=False)
    assert reg.find_player("club-random") is spec
    assert spec in reg.players_for(reg.get("sprintgammon")) and spec not in reg.players_for(reg.get("backgammon"))
    with pytest.raises(UnsupportedVariant, match="three checkers a side"):
        spec.check(reg.get("backgammon"))


def test_a_plugin_replaces_the_rating_system() -> None:
    from engine.ratings import Rating

    class Flat:
        """Every match moves both ratings by exactly ten points."""

        name = "flat"
        display_name = "Flat ratings"

        def initial(self) -> Rating:
            return Rating()

        def win_probability(self, rating: float, opponent: float, length: int) -> float:
            return 0.5

        def update(self, winner: Rating, loser: Rating, length: int) -> tuple[Rating, Rating]:
            return Rating(winner.rating + 10, winner.experience + length), Rating(
                loser.rating - 10, loser.experience + length
            )

    class FlatPlugin:
        @hookimpl
        def register_rating_systems(self, register: Callable[[object], None]) -> None:
            register(Flat())

    _, reg = build_plugin_manager([("flat", FlatPlugin())], load_entry_points=False)
    assert reg.find_rating_system("flat").update(Rating(), Rating(), 1)[0].rating == 1510
    assert (
        reg.rating_system_owners == {"ratings": "ratings", "flat": "flat"} or reg.rating_system_owners["flat"] == "flat"
    )
    assert reg.find_rating_system("fibs").name == "fibs"
    with pytest.raises(PluginError, match="no rating system called 'elo'"):
        reg.find_rating_system("elo")
    _, both = build_plugin_manager([("flat", FlatPlugin()), ("flat2", FlatPlugin())], load_entry_points=False)
    assert both.refused == {"flat2": "it registers rating system 'flat', but plugin 'flat' already registered it"}

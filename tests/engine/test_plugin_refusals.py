"""One bad plugin never stops the bot: a plugin that cannot be imported, raises in a hook, has a hook that does not
fit, takes a name or alias another plugin holds, or shares another plugin's name is refused with a warning naming it
and why, everything it registered is taken back, and the rest load. Names are never inherited silently.

The command-line tests install real (if tiny) distributions: a ``*.dist-info`` folder with an ``entry_points.txt``
on ``PYTHONPATH``, which ``importlib.metadata`` finds exactly as it finds a ``pip install``-ed package.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Callable
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from engine import plugins
from engine.plugins import PluginError, build_plugin_manager, hookimpl
from engine.timecontrol import Kind, TimeControl
from engine.variant import Variant
from variants.backgammon import Backgammon


@pytest.fixture(autouse=True)
def _no_plugin_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GAMMONBOT_PLUGINS", raising=False)
    monkeypatch.delenv("GAMMONBOT_TRACE_HOOKS", raising=False)


class Forgetful(Backgammon):
    """A rule set built on backgammon that declares no aliases: it has none (it does not inherit "bg")."""

    name = "forgetful"
    display_name = "Forgetful"


class Forgetful2(Backgammon):
    name = "forgetful2"
    display_name = "Forgetful 2"


def _registering(*classes: type[Variant]) -> object:
    class Plugin:
        @hookimpl
        def register_variants(self, register: Callable[[type[Variant]], None]) -> None:
            for cls in classes:
                register(cls)

    return Plugin()


def test_a_rule_set_built_on_another_has_only_the_aliases_it_declares() -> None:
    assert Backgammon.aliases and Forgetful.aliases == ()
    _, reg = build_plugin_manager(
        [("one", _registering(Forgetful)), ("two", _registering(Forgetful2))], load_entry_points=False
    )
    assert reg.refused == {} and reg.owners["forgetful"] == "one" and reg.owners["forgetful2"] == "two"
    assert reg.find("bg") is reg.variants["backgammon"]


def test_a_rule_set_that_declares_no_name_of_its_own_is_refused_with_its_plugin(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Nameless(Backgammon):
        display_name = "Nameless"

    with caplog.at_level(logging.WARNING, logger="gammonbot.plugins"):
        _, reg = build_plugin_manager([("nameless", _registering(Forgetful, Nameless))], load_entry_points=False)
    reason = (
        "its rule set Nameless declares no name of its own (it would take 'backgammon' from Backgammon): give it one"
    )
    assert reg.refused == {"nameless": reason} and "plugin 'nameless' refused: " + reason in caplog.text
    assert "forgetful" not in reg.variants, "a refused plugin registers nothing, not even what came before the error"
    assert reg.owners["backgammon"] == "backgammon"


def test_a_plugin_whose_hook_raises_is_refused_and_all_it_registered_is_taken_back() -> None:
    class Half:
        @hookimpl
        def register_time_controls(self, register: Callable[[TimeControl], None]) -> None:
            register(TimeControl("half-rapid", "Half rapid", Kind.CLOCK, per_move=5, reserve=60))

        @hookimpl
        def register_variants(self, register: Callable[[type[Variant]], None]) -> None:
            register(Forgetful)
            raise RuntimeError("the database of openings is missing")

    pm, reg = build_plugin_manager([("half", Half()), ("two", _registering(Forgetful2))], load_entry_points=False)
    assert reg.refused == {"half": "its register_variants failed: RuntimeError: the database of openings is missing"}
    assert "forgetful" not in reg.variants and "half-rapid" not in reg.time_controls and not pm.has_plugin("half")
    assert "forgetful2" in reg.variants and "backgammon" in reg.variants


def test_a_rule_set_that_cannot_start_a_game_is_refused() -> None:
    class Crowded(Variant):
        name = "crowded"
        display_name = "Crowded"
        checkers = 15
        start = {24: 15, 6: 1}

    _, reg = build_plugin_manager([("crowded", _registering(Crowded))], load_entry_points=False)
    assert reg.refused["crowded"].startswith("its rule set 'crowded' cannot start a game: PositionError: ")


def test_a_hook_whose_arguments_do_not_fit_the_spec_is_refused() -> None:
    class Odd:
        @hookimpl
        def register_variants(self, registrar: Callable[[type[Variant]], None]) -> None:
            raise AssertionError("never called")

    _, reg = build_plugin_manager([("odd", Odd())], load_entry_points=False)
    assert (
        reg.refused["odd"].startswith("its hooks do not fit gammonbot's (given): ")
        and "registrar" in reg.refused["odd"]
    )


def test_a_second_plugin_of_the_same_name_is_refused_and_the_first_stays() -> None:
    _, reg = build_plugin_manager([("backgammon", _registering(Forgetful))], load_entry_points=False)
    assert reg.refused == {"backgammon": "a plugin loaded before it has the same name; this one (given) is left out"}
    assert "forgetful" not in reg.variants and reg.owners["backgammon"] == "backgammon"


def test_an_entry_point_that_cannot_be_imported_is_refused_naming_it(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    broken = EntryPoint(name="broken", value="gammonbot_no_such_module", group="gammonbot")
    monkeypatch.setattr(plugins, "entry_points", lambda group: [broken])
    with caplog.at_level(logging.WARNING, logger="gammonbot.plugins"):
        _, reg = build_plugin_manager()
    assert reg.refused == {
        "broken": "it cannot be loaded (entry point gammonbot_no_such_module): ModuleNotFoundError: "
        "No module named 'gammonbot_no_such_module'"
    }
    assert "plugin 'broken' refused: it cannot be loaded" in caplog.text
    assert set(reg.refused) == {"broken"} and {"backgammon", "longgammon", "sprintgammon"} <= set(reg.variants)
    with pytest.raises(PluginError, match="plugin 'broken' refused: it cannot be loaded"):
        build_plugin_manager(strict=True)


def test_gammonbot_plugins_naming_a_plugin_that_is_not_installed_is_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("GAMMONBOT_PLUGINS", "backgammon,bakgammon")
    with caplog.at_level(logging.WARNING, logger="gammonbot.plugins"):
        _, reg = build_plugin_manager()
    assert set(reg.variants) == {"backgammon"}
    assert "GAMMONBOT_PLUGINS names plugin 'bakgammon', but no plugin of that name is installed" in caplog.text


# --- installed distributions, seen from the command line --------------------------------------------------
PLUGINS = {
    # A package that fails to import.
    "broken": ("gammonbot_test_broken", "import gammonbot_test_nowhere\n"),
    # A rule set built on backgammon that declares no aliases: it loads, without "bg".
    "forgetful": (
        "gammonbot_test_forgetful",
        "from engine.plugins import hookimpl\nfrom variants.backgammon import Backgammon\n\n"
        "class Forgetful(Backgammon):\n    name = 'forgetful'\n    display_name = 'Forgetful'\n\n"
        "@hookimpl\ndef register_variants(register):\n    register(Forgetful)\n",
    ),
    # A rule set that claims "bg" for itself: refused, naming what clashed.
    "thief": (
        "gammonbot_test_thief",
        "from engine.plugins import hookimpl\nfrom variants.backgammon import Backgammon\n\n"
        "class Thief(Backgammon):\n    name = 'thief'\n    display_name = 'Thief'\n    aliases = ('bg',)\n\n"
        "@hookimpl\ndef register_variants(register):\n    register(Thief)\n",
    ),
}


def _install(site: Path) -> None:
    for name, (module, source) in PLUGINS.items():
        info = site / f"{module}-0.1.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
        (info / "entry_points.txt").write_text(f"[gammonbot]\n{name} = {module}\n")
        (site / f"{module}.py").write_text(source)


def _gammonbot(site: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    beside = Path(sys.executable).with_name("gammonbot")
    command = [str(beside)] if beside.exists() else [sys.executable, "-m", "bot.cli"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAMMONBOT_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    return subprocess.run([*command, *args], input=stdin, capture_output=True, text=True, timeout=120, env=env)


def test_the_bot_starts_with_the_good_plugins_and_lists_the_refused_ones_with_why(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _install(site)
    listed = _gammonbot(site, "variants")
    assert listed.returncode == 0, listed.stderr
    out = listed.stdout
    assert "forgetful: Forgetful — plugin forgetful\n" in out  # no "(also: bg)"
    assert "backgammon: Backgammon (also: bg" in out and "thief" not in out.split("refused")[0]
    assert (
        "refused plugin broken: it cannot be loaded (entry point gammonbot_test_broken): ModuleNotFoundError: "
        "No module named 'gammonbot_test_nowhere'\n"
    ) in out
    assert (
        "refused plugin thief: it registers rule set 'bg', but plugin 'backgammon' already registered it for "
        "'backgammon'\n"
    ) in out
    assert "plugin 'thief' refused" in listed.stderr and "plugin 'broken' refused" in listed.stderr
    assert "Traceback" not in listed.stderr

    # The bot starts and plays, its rule sets and the good plugin's alike.
    played = _gammonbot(
        site,
        "console",
        "--db",
        str(tmp_path / "g.sqlite3"),
        "--seed",
        "15",
        stdin="as alice\nplay bob bg 3\nas bob\naccept\nroll\nas alice\nplay bob forgetful 1\ngames\nquit\n",
    )
    assert played.returncode == 0, played.stderr
    assert "#1 Backgammon 3-point match, alice vs bob, score 0-0" in played.stdout
    assert "#2 challenge: alice vs bob, Forgetful" in played.stdout
    assert "! " not in played.stdout and "Traceback" not in played.stderr

"""The checks the README promises run with the tests: strict types on every package (bot/ included), ruff's lint
rules, and the layout rules of the issue that split bot/ (no file of bot/ far over 600 lines; the engine imports
neither discord nor PIL; no file of bot/ decides a cube rule by itself)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)


def test_mypy_strict_on_every_package(tmp_path: Path) -> None:
    result = _run(sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_finds_nothing() -> None:
    result = _run(sys.executable, "-m", "ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("path", sorted((ROOT / "bot").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_file_of_bot_is_far_over_600_lines(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    assert lines <= 650, f"{path.relative_to(ROOT)} has {lines} lines: split it by concern"


def test_the_engine_imports_neither_discord_nor_pil() -> None:
    pattern = re.compile(r"^\s*(from|import)\s+(discord|PIL)\b", re.M)
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "engine").rglob("*.py") if pattern.search(p.read_text())]
    assert not offenders


def test_no_file_of_bot_asks_the_cube_rules_itself() -> None:
    """Which cube answers are possible comes from engine.controls (the buttons and the bots ask it), never from a
    copy of the beaver or redouble rules in bot/."""
    pattern = re.compile(r"\.beaver_limit|\.redoubles\b|\.may_double\(")
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "bot").rglob("*.py") if pattern.search(p.read_text())]
    assert not offenders, offenders


# --- the Discord layer's imports (issue 32, item 4) ------------------------------------------------------------------
# Built from the source with ``ast``: every ``import``/``from … import`` of the module counts, wherever it is written:
# at the top, inside a function (a deferred import) or under ``if TYPE_CHECKING:``. A type-only import still says one
# module needs another, and it is how the circle of nine modules was hidden before; a module that needs only what an
# object can do names a Protocol (bot/discord/protocols.py) instead.

DISCORD = ROOT / "bot" / "discord"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, str | None, int]]:
    """(module, name or None, line) for every import of the file, wherever it is written: ``import m`` gives
    ``(m, None)``, ``from m import n`` gives ``(m, n)`` (relative imports resolved to absolute module names)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[str, str | None, int]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, None, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:
                parts = package.split(".")
                source = ".".join([*parts[: len(parts) - node.level + 1], *([node.module] if node.module else [])])
            found += [(source, alias.name, node.lineno) for alias in node.names]
    return found


def _module_imports(path: Path, modules: set[str]) -> set[str]:
    """The modules of ``modules`` the file imports (``from p import m`` imports module ``p.m`` when there is one,
    else the module ``p`` itself)."""
    found: set[str] = set()
    for source, name, _line in _imports(path):
        if name is not None and f"{source}.{name}" in modules:
            found.add(f"{source}.{name}")
        elif source in modules:
            found.add(source)
    return found


def _discord_modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(DISCORD.rglob("*.py"))}


def _import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), and the modules importing themselves."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component: list[str] = []
            while not component or component[-1] != v:
                component.append(stack.pop())
            if len(component) > 1 or v in graph.get(v, ()):
                circles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return circles


def test_the_modules_of_the_discord_layer_import_each_other_in_no_circle() -> None:
    """No import circle among the modules of bot/discord, deferred and ``TYPE_CHECKING`` imports included: the bot
    (app.py) imports the rest, and what a cog or helper needs of the bot is a Protocol (protocols.py)."""
    modules = _discord_modules()
    graph = {name: _module_imports(path, set(modules)) - {name} for name, path in modules.items()}
    assert _import_circles(graph) == []


def test_no_module_of_the_discord_layer_imports_an_underscore_name_of_another() -> None:
    """What a module of bot/discord uses from another is public there (named without a leading underscore). Scoped
    to bot/discord for now: bot/service and bot/storage still import their siblings' private names (issue 32)."""
    offenders = [
        f"{path.relative_to(ROOT)}:{line}: {name} from {source}"
        for path in _discord_modules().values()
        for source, name, line in _imports(path)
        if source.split(".")[0] in ("bot", "engine", "render", "variants")
        and name is not None
        and name.startswith("_")
        and name != "_"  # gettext's ``_`` is the one public name written so
        and not name.startswith("__")
    ]
    assert offenders == []

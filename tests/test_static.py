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


# --- types, not strings, between the service and the transports (issue 32, item 3) ---------------------------------
# Statuses, phases and event kinds are enums (``StrEnum``: the database and JSON keep the same strings). A string
# literal compared to ``.status``, ``.phase`` or ``.kind`` (``==``, ``!=``, ``in (…)``, a ``match`` case) or written as
# an ``Event``'s kind would let a misspelt state pass silently; the enum members make mypy and this check find it.

TYPED_ATTRIBUTES = frozenset({"status", "phase", "kind"})

#: Not yet enums (issue 32 item 3, still open): strings inside one layer that no transport sees, each compared only in
#: the files named here. A timer's kind (service/clocks, tour_timers), the hint's kind (engine.analysis.Hint), a team
#: proposal's status and kind (storage/consultation) and a dialect's plan step (already a ``Literal``). Remove an
#: entry when its values become an enum; no new one belongs here.
NOT_YET_ENUMS = {
    "bot/service/clocks.py": {"timer.kind"},
    "bot/service/tour_timers.py": {"timer.kind"},
    "bot/discord/cogs/games.py": {"advice.kind"},
    "bot/storage/consultation.py": {"proposals.c.status", "proposals.c.kind"},
    "bot/storage/dialects/base.py": {"step.kind"},
    "bot/storage/dialects/sqlite.py": {"step.kind"},
    "bot/storage/dialects/sqlite_writer.py": {"step.kind"},
}


def _is_typed_attribute(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in TYPED_ATTRIBUTES


def _holds_string_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_holds_string_literal(e) for e in node.elts)
    return False


def _string_states(tree: ast.AST, allowed: frozenset[str] = frozenset()) -> list[tuple[int, str]]:
    """(line, what) of each string literal used as a status, phase or event kind in ``tree`` (a comparison with one of
    the ``allowed`` attributes, such as ``timer.kind``, excepted)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            typed = [ast.unparse(o) for o in operands if _is_typed_attribute(o)]
            if typed and not set(typed) <= allowed and any(map(_holds_string_literal, operands)):
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Match) and _is_typed_attribute(node.subject):
            if ast.unparse(node.subject) in allowed:
                continue
            for case in node.cases:
                for sub in ast.walk(case.pattern):
                    if isinstance(sub, ast.MatchValue) and _holds_string_literal(sub.value):
                        found.append((sub.lineno, f"match {ast.unparse(node.subject)}: case {ast.unparse(sub)}"))
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name not in ("Event", "TourEvent"):
                continue
            kinds = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "kind")]
            if any(map(_holds_string_literal, kinds)):
                found.append((node.lineno, ast.unparse(node)[:80]))
    return found


def test_no_string_literal_stands_for_a_status_phase_or_event_kind() -> None:
    offenders = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        name = str(path.relative_to(ROOT))
        allowed = frozenset(NOT_YET_ENUMS.get(name, ()))
        offenders += [f"{name}:{line}: {what}" for line, what in _string_states(ast.parse(path.read_text()), allowed)]
    assert not offenders, "\n".join(offenders)


@pytest.mark.parametrize(
    "source",
    [
        'if view.status == "active": pass',
        'ok = out.game.phase != "move"',
        'ok = view.status in ("challenge", "declined")',
        'ok = e.kind not in {"turn", "draft"}',
        'match view.status:\n    case "finished": pass',
        'e = Event("turn", 1, "")',
        'e = TourEvent(kind="result", say="")',
    ],
)
def test_the_string_state_check_finds_a_planted_literal(source: str) -> None:
    assert _string_states(ast.parse(source))

"""Refusals state the rule in words: no message a player or an admin can read cites a document ("rules.md §1.7").

Two checks: every string literal in the code of ``engine/``, ``variants/`` and ``bot/`` that is neither a
docstring nor a pattern (comments and docstrings may cite their sources), and every refusal the engine actually
gives for every action tried by every player in every state of seeded matches of every rule set, and for
contradictory options.
"""

from __future__ import annotations

import ast
import itertools
import random
from pathlib import Path

import pytest

from engine.dice import RandomDice
from engine.match import (
    AcceptResignation,
    Action,
    ActionError,
    Beaver,
    Double,
    EndSession,
    Forfeit,
    MatchOptionError,
    MatchOptions,
    MatchState,
    Move,
    OpeningRoll,
    Pass,
    Phase,
    Raccoon,
    RejectResignation,
    Resign,
    Roll,
    SetActing,
    Take,
    Timeout,
    apply,
    new_match,
)
from engine.plugins import get_variant, registry
from engine.selfplay import RandomPlayer, default_sides
from engine.variant import VariantOptionError

ROOT = Path(__file__).resolve().parents[2]
CITATION = ("rules.md", "§")


def _not_messages(tree: ast.AST) -> set[int]:
    """The ids of the string nodes that are no message: docstrings (module, class, function and attribute) and the
    patterns given to ``re`` (which may look for a citation in order to take it out)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name) and owner.id == "re" and node.args:
                found.update(id(n) for n in ast.walk(node.args[0]) if isinstance(n, ast.Constant))
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
        # Attribute docstrings: a bare string right after an assignment.
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for first, second in itertools.pairwise(body):
                attribute_doc = isinstance(first, ast.Assign | ast.AnnAssign) and isinstance(second, ast.Expr)
                if attribute_doc and isinstance(second.value, ast.Constant):
                    found.add(id(second.value))
    return found


def test_no_string_in_the_code_cites_a_document() -> None:
    offenders = []
    for package in ("engine", "variants", "bot"):
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            skip = _not_messages(tree)
            for node in ast.walk(tree):
                text = node.value if isinstance(node, ast.Constant) and id(node) not in skip else None
                if isinstance(text, str) and any(c in text for c in CITATION):
                    offenders.append(f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}: {text[:80]!r}")
    assert not offenders, "\n".join(offenders)


def _candidates(state: MatchState, by: str) -> list[Action]:
    moves = state.legal_plays()[0].moves if state.phase is Phase.MOVE else ()
    other = state.setup.sides[0][0]
    return [
        OpeningRoll(by, (2, 1)),
        Roll(by, (2, 1)),
        Move(by, moves),
        Move(by, ((24, 23, False),)),
        Double(by),
        Take(by),
        Pass(by),
        Beaver(by),
        Raccoon(by),
        *(Resign(by, level) for level in (0, 1, 2, 3, 4)),
        AcceptResignation(by),
        RejectResignation(by),
        Timeout(by),
        Forfeit(by),
        EndSession(by),
        SetActing(by, other),
        Roll("stranger", (2, 1)),
    ]


def _refusals_of_matches() -> set[str]:
    messages: set[str] = set()
    for name in registry().names():
        variant = get_variant(name)
        for seed, options in enumerate(
            (MatchOptions(length=3, holland=True), MatchOptions(length=1), MatchOptions(games=2, beavers=True))
        ):
            state = new_match(variant, default_sides(variant), variant.allowed_options(options))
            player = RandomPlayer(random.Random(seed), double_rate=0.2, resign_rate=0.01, chaos=True)
            dice = RandomDice(seed)
            for k in itertools.count():
                if k % 3 == 0:
                    for by in (p for side in state.setup.sides for p in side):
                        for action in _candidates(state, by):
                            try:
                                apply(state, action)
                            except ActionError as exc:
                                messages.add(str(exc))
                if state.over:
                    break
                state = apply(state, player.choose(state, dice))
    return messages


def test_no_refusal_of_an_action_cites_a_document() -> None:
    messages = _refusals_of_matches()
    assert len(messages) > 50  # many different refusals were seen
    offenders = sorted(m for m in messages if any(c in m for c in CITATION))
    assert not offenders, offenders


@pytest.mark.parametrize(
    "options",
    [
        {"length": 5, "jacoby": True},
        {"length": 5, "beavers": True},
        {"length": 5, "auto_doubles": 1},
        {"holland": True},
        {"length": 5, "holland": True, "crawford": False},
        {"length": 5, "games": 3},
        {"length": 5, "session_hours": 2},
        {"max_cube": 3},
        {"beaver_limit": 0},
        {"length": -1},
        {"games": -1},
        {"timeout_policy": "never"},
    ],
)
def test_no_refusal_of_options_cites_a_document(options: dict[str, object]) -> None:
    with pytest.raises(MatchOptionError) as caught:
        MatchOptions(**options).check()  # type: ignore[arg-type]
    assert not any(c in str(caught.value) for c in CITATION)


def test_no_refusal_of_rule_set_options_cites_a_document() -> None:
    for name in registry().names():
        with pytest.raises(VariantOptionError) as caught:
            get_variant(name, no_such_option=True)
        assert not any(c in str(caught.value) for c in CITATION)

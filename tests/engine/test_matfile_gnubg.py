"""Real-client check: our ``.mat`` exports import into GNU Backgammon with the same games and final score."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.match import MatchOptions, MatchState, OpeningRule
from engine.matfile import export_mat
from engine.plugins import find_variant, get_variant
from engine.selfplay import play_match
from tests.conftest import run_gnubg_script

pytestmark = pytest.mark.gnubg

SCRIPT = """
import gnubg, json
out = []
for path in {paths!r}:
    gnubg.command('import mat ' + path)
    m = gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)
    info = m['match-info']
    out.append({{'names': [info['X']['name'], info['O']['name']], 'length': info['match-length'],
                'variation': info.get('variation'), 'games': [g['info'] for g in m['games']]}})
print('RESULT ' + json.dumps(out))
"""


def gnubg_view(tmp_path: Path, texts: list[str]) -> list[dict[str, Any]]:
    paths = []
    for k, text in enumerate(texts):
        path = tmp_path / f"m{k}.mat"
        path.write_text(text)
        paths.append(str(path))
    out = run_gnubg_script(SCRIPT.format(paths=paths), tmp_path)
    line = next((ln for ln in out.splitlines() if ln.startswith("RESULT ")), None)
    assert line is not None, f"gnubg printed no result:\n{out[-2000:]}"
    return json.loads(line[len("RESULT ") :])  # type: ignore[no-any-return]


def final_scores(view: dict[str, Any]) -> dict[str, int]:
    """Each player's final score from GNU Backgammon's per-game records."""
    name = {"X": view["names"][0], "O": view["names"][1]}
    last = view["games"][-1]
    scores = {name["X"]: last["score-X"], name["O"]: last["score-O"]}
    scores[name[last["winner"]]] += last["points-won"]
    return scores


def check_same(state: MatchState, view: dict[str, Any]) -> None:
    setup = state.setup
    assert view["length"] == setup.options.length
    assert len(view["games"]) == len(state.results)
    assert final_scores(view) == {setup.side_name(0): state.score[0], setup.side_name(1): state.score[1]}
    for ours, theirs in zip(state.results, view["games"]):
        winner = view["names"][0] if theirs["winner"] == "X" else view["names"][1]
        assert (winner, theirs["points-won"]) == (setup.side_name(ours.winner), ours.points)
        if "crawford" in theirs and setup.options.crawford:
            # GNU Backgammon assumes the Crawford rule in every .mat match, so compare only where it is on.
            assert theirs["crawford"] == ours.crawford


def test_standard_matches_import_into_gnubg_with_the_same_result(tmp_path: Path) -> None:
    played = [
        play_match(get_variant("backgammon"), MatchOptions(length=n), seed) for n, seed in ((7, 1), (5, 2), (9, 3))
    ]
    played.append(play_match(get_variant("doubles"), MatchOptions(length=5), 4))
    played.append(play_match(get_variant("backgammon"), MatchOptions(length=5, crawford=False), 5))
    played.append(play_match(get_variant("backgammon"), MatchOptions(length=7, opening=OpeningRule.REROLL), 6))
    views = gnubg_view(tmp_path, [export_mat(s.setup, actions) for s, actions in played])
    for (state, _), view in zip(played, views):
        check_same(state, view)


def test_money_sessions_with_jacoby_beavers_and_raccoons_import_into_gnubg(tmp_path: Path) -> None:
    # GNU Backgammon's .mat import accepts a beaver and a raccoon after a double but not a third redouble,
    # so these sessions cap redoubles at 2 (our default cap, 3, is GNU Backgammon's own play setting).
    options = MatchOptions(games=5, jacoby=True, beavers=True, beaver_limit=2)
    played = [play_match(get_variant("backgammon"), options, seed) for seed in range(6)]
    assert any("Raccoons" in export_mat(s.setup, a) for s, a in played)
    views = gnubg_view(tmp_path, [export_mat(s.setup, actions) for s, actions in played])
    for (state, _), view in zip(played, views):
        check_same(state, view)


def test_hypergammon_variation_imports_into_gnubg(tmp_path: Path) -> None:
    try:
        cls = find_variant("sprintgammon")
    except LookupError:
        pytest.skip("variants/sprintgammon.py is not registered yet")
    state, actions = play_match(cls(), MatchOptions(length=5), 7)
    text = export_mat(state.setup, actions)
    assert '[Variation "HyperGammon' in text
    (view,) = gnubg_view(tmp_path, [text])
    assert view["variation"].lower().startswith("hypergammon")
    check_same(state, view)

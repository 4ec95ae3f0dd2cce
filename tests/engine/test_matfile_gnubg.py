"""Real-client check: our ``.mat`` exports import into GNU Backgammon 1.07 with the same games, points and scores,
and what GNU Backgammon writes back (``export match mat``) imports into gammonbot with the same results.

About 260 self-played matches of every rule set GNU Backgammon knows (standard, Nackgammon, Hypergammon as
Sprintgammon, and Backgammon Doubles as two named sides), match play with and without Crawford and money
sessions with the Jacoby rule, beavers and raccoons, go through one gnubg process. GNU Backgammon's own bugs
are excluded by name (see :func:`gnubg_bugs`), never by a tolerance on the comparison.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine.match import (
    Action,
    Double,
    MatchOptions,
    MatchState,
    OpeningRoll,
    OpeningRule,
    Pass,
    Phase,
    Resign,
    Roll,
    Take,
)
from engine.matfile import MatFileError, export_mat, read_mat
from engine.plugins import find_variant, get_variant, registry
from engine.selfplay import play_match
from engine.variant import Variant
from tests.conftest import gnubg_binary, run_gnubg_script
from tests.engine.test_matfile_roundtrip import self_play

pytestmark = pytest.mark.gnubg

MATCHES = 260
#: The bugs (see gnubg_bugs) that make GNU Backgammon read a file otherwise than it was written.
IMPORT_BUGS = frozenset({"forced play before a resignation", "resignation before the first roll"})

SCRIPT = """
import gnubg, json
gnubg.command('set beavers 8')  # GNU Backgammon checks no beaver limit on import; ours travel in our own tag
out = []
for path, jacoby in {files!r}:
    # GNU Backgammon reads no Jacoby tag: it applies its own setting to every money session it imports.
    gnubg.command('set jacoby ' + ('on' if jacoby else 'off'))
    gnubg.command('import mat ' + path)
    m = gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)
    gnubg.command('export match mat ' + path + '.gnubg')
    info = m['match-info']
    out.append({{'names': [info['X']['name'], info['O']['name']], 'length': info['match-length'],
                'variation': info.get('variation'), 'games': [g['info'] for g in m['games']]}})
print('RESULT ' + json.dumps(out))
"""


def gnubg_view(tmp_path: Path, texts: list[str], jacoby: list[bool] | None = None) -> list[dict[str, Any]]:
    """GNU Backgammon's reading of each file; its own export of it is left beside it as ``m<k>.mat.gnubg``."""
    files = []
    for k, text in enumerate(texts):
        path = tmp_path / f"m{k}.mat"
        path.write_text(text)
        files.append((str(path), bool(jacoby and jacoby[k])))
    out = run_gnubg_script(SCRIPT.format(files=files), tmp_path)
    line = next((ln for ln in out.splitlines() if ln.startswith("RESULT ")), None)
    assert line is not None, f"gnubg printed no result:\n{out[-2000:]}"
    return json.loads(line[len("RESULT ") :])  # type: ignore[no-any-return]


def games_of(view: dict[str, Any]) -> list[tuple[str | None, int | None]]:
    """Each game's winner and points as GNU Backgammon read them (None where it found no result)."""
    name = {"X": view["names"][0], "O": view["names"][1]}
    return [(name.get(g.get("winner", "")), g.get("points-won")) for g in view["games"]]


def final_scores(view: dict[str, Any]) -> dict[str, int]:
    """Each player's final score from GNU Backgammon's per-game records."""
    name = {"X": view["names"][0], "O": view["names"][1]}
    last = view["games"][-1]
    scores = {name["X"]: last["score-X"], name["O"]: last["score-O"]}
    scores[name[last["winner"]]] += last["points-won"]
    return scores


def ours(state: MatchState) -> list[tuple[str | None, int | None]]:
    return [(state.setup.side_name(r.winner), r.points) for r in state.results]


def check_same(state: MatchState, view: dict[str, Any], where: str = "") -> None:
    setup = state.setup
    assert view["length"] == setup.options.length, where
    assert games_of(view) == ours(state), where
    assert final_scores(view) == {setup.side_name(0): state.score[0], setup.side_name(1): state.score[1]}, where
    for result, theirs in zip(state.results, view["games"]):
        if "crawford" in theirs and setup.options.crawford:
            # GNU Backgammon assumes the Crawford rule in every .mat match, so compare only where it is on.
            assert theirs["crawford"] == result.crawford


def gnubg_bugs(state: MatchState, action: Action, previous: Action | None) -> set[str]:
    """The GNU Backgammon 1.07 bugs ``action`` (about to be applied to ``state``) runs into, by name."""
    bugs = set()
    if isinstance(action, Pass) and state.redoubles == 1:
        # import: after "Beavers => n" and "Drops" its importer keeps its beaver flag set, reads the next roll
        # line (even in the next file it imports) as the doubler's take of the beaver and loses that roll.
        bugs.add("dropped beaver")
    if isinstance(action, Resign) and state.phase is Phase.MOVE:
        plays = state.legal_plays()
        if len(plays) == 1 and plays[0].position.off[0] == state.variant.checkers:
            # import: it reads "roll, no play, Wins" as a roll and a resignation, but plays a forced move first;
            # when that move bears off the last checker, the roller wins the game he resigned.
            bugs.add("forced play before a resignation")
    if isinstance(action, Resign) and isinstance(previous, Take):
        # export: when the doubler resigns straight after his double (or a beaver chain) is taken, it records a
        # further double before the resignation and writes twice the points ("Doubles => 4 ... Wins 4 points").
        bugs.add("resignation right after a take")
    return bugs


def play_watched(variant: Variant, options: MatchOptions, seed: int) -> tuple[MatchState, list[Action], set[str]]:
    """A self-played match and the GNU Backgammon bugs it runs into."""
    bugs: set[str] = set()
    previous: list[Action | None] = [None]
    rolled = [0]  # the number of games with a roll written (or being written)

    def watch(state: MatchState, action: Action) -> None:
        bugs.update(gnubg_bugs(state, action, previous[0]))
        previous[0] = action
        ibf = (
            isinstance(action, OpeningRoll) and action.dice[0] != action.dice[1] and options.opening is OpeningRule.IBF
        )
        if isinstance(action, Double) and rolled[0] <= len(state.results) and state.roller == 1:
            # export: a game the right player opens with a double (after a reroll opening) is written with the
            # double in the left column, as if the other player had doubled.
            bugs.add("right player's double opens a game")
        if isinstance(action, Roll | Double) or ibf:
            rolled[0] = len(state.results) + 1
        elif isinstance(action, Resign) and rolled[0] <= len(state.results):
            # import: it ignores a "Wins" line before a game's first roll or double (here the winner of a reroll
            # opening resigned before rolling), so the game has no result.
            bugs.add("resignation before the first roll")

    state, actions = self_play(variant, options, seed, watch)
    return state, actions, bugs


def test_hundreds_of_matches_import_into_gnubg_and_back(tmp_path: Path) -> None:
    if gnubg_binary() is None:
        pytest.skip("GNU Backgammon (Debian package gnubg) is not installed; .ci/run installs it")
    # Rule sets GNU Backgammon plays: its board, and a .mat variation it knows (Portes has a board GNU Backgammon
    # reads, but its own scoring and no cube).
    known = (None, "NackGammon", "HyperGammon (1)", "HyperGammon (2)", "HyperGammon (3)")
    plays = [find_variant(n) for n in registry().names()]
    names = [cls.name for cls in plays if cls.gnubg_compatible and cls.mat_variation in known]
    played: list[tuple[MatchState, list[Action], set[str]]] = []
    for k in range(MATCHES):
        rng = random.Random(f"gnubg-{k}")
        if rng.random() < 0.5:
            opening = OpeningRule.REROLL if rng.random() < 0.1 else OpeningRule.IBF
            options = MatchOptions(length=rng.randint(1, 7), crawford=rng.random() < 0.8, opening=opening)
        else:
            beavers = rng.random() < 0.6
            options = MatchOptions(
                games=rng.randint(1, 3),
                jacoby=rng.random() < 0.4,
                beavers=beavers,
                beaver_limit=rng.randint(1, 3) if beavers else 3,
            )
        state, actions, bugs = play_watched(get_variant(names[k % len(names)]), options, 10_000 + k)
        if "dropped beaver" not in bugs:  # it would spoil the files imported after it
            played.append((state, actions, bugs))
    texts = [export_mat(state.setup, actions) for state, actions, _ in played]
    views = gnubg_view(tmp_path, texts, [state.setup.options.jacoby for state, _, _ in played])
    compared = back = 0
    for k, ((state, _, bugs), view) in enumerate(zip(played, views)):
        where = f"match {k}: {tmp_path / f'm{k}.mat'}"
        if not bugs & IMPORT_BUGS:
            compared += 1
            check_same(state, view, where)
        if bugs or (state.setup.options.jacoby and any(r.points == r.cube for r in state.results)):
            # export: it writes no Jacoby tag, and a gammon's points where the Jacoby rule made it a single game,
            # so a session with a single game at the cube's value may read either way.
            continue
        # What GNU Backgammon writes back reads as the same match (its Crawford assumption aside).
        text = (tmp_path / f"m{k}.mat.gnubg").read_text()
        try:
            again = read_mat(text)
        except MatFileError as exc:
            raise AssertionError(f"{where}: GNU Backgammon's export of it does not import: {exc}\n{text}") from None
        assert ours(again.state) == ours(state), where
        back += 1
    assert compared >= 200 and back >= 150, (compared, back)


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

"""The one-line text alternative of a board, and the labels the picture shares with it.

Every text here is in the active language (:mod:`engine.i18n`): call these inside the request's language (a board
posted in a game thread inside ``i18n.shared()``). The words a snapshot carries from the rules (the rule set's
``display_name``, a result's name such as "gammon", why the cube is unavailable, how a rule ended a game) are the
rule sets' English words, marked for their catalogs: they are translated here, where they are shown.
"""

from __future__ import annotations

from engine.i18n import N_, _, ngettext
from engine.notation import format_play
from engine.position import POINTS
from engine.snapshot import OPPONENT, VIEWER, BoardSnapshot

__all__ = [
    "position_words",
    "board_text",
    "match_label",
    "side_label",
    "cube_text",
    "cube_reason",
    "rule_set_name",
    "result_lines",
    "draft_text",
    "points_text",
]

#: Why the cube is unavailable in a game (``BoardSnapshot.cube_unavailable``): the one reason the engine gives.
#: Translators: the Crawford game (no doubling), as a short tag on the board's bar and after "Match to 5 ·".
CRAWFORD = N_("Crawford")


def rule_set_name(s: BoardSnapshot) -> str:
    """The rule set's name in the active language (a name no catalog holds, say a plugin's, as it is)."""
    return _(s.display_name)


def cube_reason(s: BoardSnapshot) -> str:
    """Why the cube is unavailable, in the active language ("Crawford"), or '' when it is not."""
    return _(s.cube_unavailable) if s.cube_unavailable else ""


def side_label(s: BoardSnapshot, side: int) -> str:
    """A side's name; in team play ``"Team · acting member"``."""
    if s.team_names is not None:
        return f"{s.team_names[side]} · {s.names[side]}"
    return s.names[side]


def match_label(s: BoardSnapshot) -> str:
    """``"Match to 5"`` / ``"Match to 5 · Crawford"`` or ``"Money game"``."""
    text = _("Match to {length}").format(length=s.match_length) if s.match_length else _("Money game")
    if s.uses_cube and s.cube_unavailable:
        text += " · " + cube_reason(s)
    return text


def cube_text(s: BoardSnapshot) -> str:
    """The cube's state in words, or '' when the game has no cube."""
    if not s.uses_cube:
        return ""
    if s.cube_unavailable:
        return _("cube unavailable ({reason})").format(reason=cube_reason(s))
    if s.cube_offered_by is not None:
        return _("{name} doubles to {value}").format(name=s.names[s.cube_offered_by], value=2 * s.cube_value)
    if s.cube_owner is None:
        if s.cube_value == 1:
            return _("cube centred")
        return _("cube {value} centred").format(value=s.cube_value)
    return _("cube {value} owned by {name}").format(value=s.cube_value, name=s.names[s.cube_owner])


def _side_name(s: BoardSnapshot, side: int) -> str:
    """A side as a result names it: the team in team play, else the player."""
    return s.team_names[side] if s.team_names is not None else s.names[side]


def points_text(n: int) -> str:
    """``"1 point"``, ``"3 points"`` (the points a game scores)."""
    return ngettext("{count} point", "{count} points", n).format(count=n)


def _first_line(s: BoardSnapshot, team: bool) -> str:
    """Who won the game, how and for how many points (a team takes "win", a player "wins")."""
    r = s.result
    assert r is not None
    fields = {
        "winner": _side_name(s, r.winner),
        "loser": _side_name(s, 1 - r.winner),
        "points": points_text(r.points),
        "result": _(r.result) if r.result else "",
        "how": _(r.how) if r.how else "",
    }
    if r.reason == "borne off":
        text = _("{winner} win a {result}: {points}") if team else _("{winner} wins a {result}: {points}")
    elif r.reason == "rule" and r.how:
        text = _("{winner} win {points}: {how}") if team else _("{winner} wins {points}: {how}")
    elif r.reason == "rule":
        text = _("{winner} win {points}") if team else _("{winner} wins {points}")
    elif r.reason == "draw":
        text = _("A draw: {how}, nobody scores") if r.how else _("A draw, nobody scores")
    elif r.reason == "pass":
        text = _("{winner} win {points}: {loser} passed") if team else _("{winner} wins {points}: {loser} passed")
    elif r.reason == "resign" and r.result:
        text = (
            _("{winner} win {points}: {loser} resigned a {result}")
            if team
            else _("{winner} wins {points}: {loser} resigned a {result}")
        )
    elif r.reason == "resign":
        text = _("{winner} win {points}: {loser} resigned") if team else _("{winner} wins {points}: {loser} resigned")
    elif r.reason == "timeout":
        text = (
            _("{winner} win {points}: {loser} ran out of time")
            if team
            else _("{winner} wins {points}: {loser} ran out of time")
        )
    else:
        text = (
            _("{winner} win: {loser} forfeited the match") if team else _("{winner} wins: {loser} forfeited the match")
        )
    return text.format(**fields)


def result_lines(s: BoardSnapshot) -> tuple[str, str]:
    """The result banner's two lines (empty without a result): who won the game, how and for how many points;
    then the score it leaves, or who won the match.

    ``("Bob wins a gammon: 2 points", "Score: Ann 1, Bob 3 (match to 5)")``,
    ``("Bob wins 2 points: Ann passed", "Match over: Bob wins 5-1")``; a team "win"s.
    """
    r = s.result
    if r is None:
        return "", ""
    team = s.team_names is not None
    first = _first_line(s, team)
    you, them = _side_name(s, VIEWER), _side_name(s, OPPONENT)
    leader = r.match_winner if r.match_winner is not None else (r.winner if s.match_length else None)
    score = f"{s.score[VIEWER]}-{s.score[OPPONENT]}" if leader != OPPONENT else f"{s.score[1]}-{s.score[0]}"
    if r.match_over and leader is not None:
        winner = _side_name(s, leader)
        if s.match_length:
            text = _("Match over: {winner} win {score}") if team else _("Match over: {winner} wins {score}")
        else:
            text = _("Session over: {winner} win {score}") if team else _("Session over: {winner} wins {score}")
        second = text.format(winner=winner, score=score)
    elif r.match_over:
        text = _("Match over: a tie, {score}") if s.match_length else _("Session over: a tie, {score}")
        second = text.format(score=score)
    elif s.match_length:
        second = _("Score: {you} {your_score}, {them} {their_score} (match to {length})").format(
            you=you, your_score=s.score[VIEWER], them=them, their_score=s.score[OPPONENT], length=s.match_length
        )
    else:
        second = _("Money game, score: {you} {your_score}, {them} {their_score}").format(
            you=you, your_score=s.score[VIEWER], them=them, their_score=s.score[OPPONENT]
        )
    return first, second


def draft_text(s: BoardSnapshot) -> str:
    """A play being entered, in words: ``"Ann is moving 13/9 (to play: 4)"`` ('' when there is none)."""
    if not s.draft or s.on_roll is None:
        return ""
    left = " ".join(map(str, s.dice_left()))
    name, play = side_label(s, s.on_roll), format_play(s.last_play)
    if left:
        return _("{name} is moving {play} (to play: {dice})").format(name=name, play=play, dice=left)
    return _("{name} is moving {play}").format(name=name, play=play)


def position_words(s: BoardSnapshot) -> str:
    """Where the checkers are, in words a screen reader can speak (for rule sets without a Position ID), in the
    viewer's numbering: ``"points numbered for Ann: Ann 10 on 24, 1 on 17; Bob 2 on 6, 7 on 1; pinned: a
    checker of Ann on 6"``. Checkers waiting to enter are told apart (:func:`board_text`)."""
    pos = s.position
    sides = []
    for side in (VIEWER, OPPONENT):
        sign = 1 if side == VIEWER else -1
        items = [
            _("{count} on {point}").format(count=abs(v), point=p)
            for p, v in sorted(enumerate(pos.board, start=1), reverse=True)
            if v * sign > 0
        ]
        if pos.bar[side]:
            items.append(_("{count} on the bar").format(count=pos.bar[side]))
        if pos.off[side]:
            items.append(_("{count} borne off").format(count=pos.off[side]))
        listed = ", ".join(items) if items else _("none on the board")
        # Translators: a side's checkers in the board's text alternative: "Ann 10 on 24, 1 on 17".
        sides.append(_("{name} {checkers}").format(name=side_label(s, side), checkers=listed))
    # A pinned checker lies under the other side's checkers: its owner is the opposite of the stack's.
    pinned = [
        _("a checker of {name} on {point}").format(
            name=side_label(s, VIEWER if pos.board[p - 1] < 0 else OPPONENT), point=p
        )
        for p in range(POINTS, 0, -1)
        if pos.is_pinned(p)
    ]
    text = _("points numbered for {name}: {sides}").format(name=side_label(s, VIEWER), sides="; ".join(sides))
    if pinned:
        # Translators: the pinned checkers (Plakoto) in the board's text alternative.
        text += "; " + _("pinned: {checkers}").format(checkers=", ".join(pinned))
    return text


def board_text(s: BoardSnapshot) -> str:
    """One line describing the board for screen readers and logs, in the active language.

    Rule set, Position ID (when the rule set's IDs are GNU Backgammon's) or the position text, who is on
    roll and the dice, pips, score, cube and last play, e.g.
    ``Backgammon · Position ID 4HPwATDgc/ABMA · Ann to play 3-1 · pips Ann 167, Bob 167 · ...``.
    """
    you, them = side_label(s, VIEWER), side_label(s, OPPONENT)
    parts = [rule_set_name(s)]
    if s.position_id:
        parts.append(_("Position ID {id}").format(id=s.position_id))
    else:
        parts.append(position_words(s))
    if s.result is not None:
        first, second = result_lines(s)
        parts.append(_("game {number} over: {result}").format(number=s.result.game, result=first))
        if s.result.match_over:
            parts.append(second)
    pair = {"you": you, "them": them}
    if s.opening_dice is not None:
        parts.append(
            _("opening roll {you} {your_die}, {them} {their_die}").format(
                your_die=s.opening_dice[VIEWER], their_die=s.opening_dice[OPPONENT], **pair
            )
        )
    if s.on_roll is not None:
        who = side_label(s, s.on_roll)
        if s.dice is not None:
            parts.append(_("{name} to play {dice}").format(name=who, dice=f"{s.dice[0]}-{s.dice[1]}"))
        else:
            parts.append(_("{name} on roll").format(name=who))
    parts.append(
        _("pips {you} {your_pips}, {them} {their_pips}").format(
            your_pips=s.pips[VIEWER], their_pips=s.pips[OPPONENT], **pair
        )
    )
    waiting = s.position.reserve
    if any(waiting):
        parts.append(
            _("waiting to enter {you} {your_count}, {them} {their_count}").format(
                your_count=waiting[VIEWER], their_count=waiting[OPPONENT], **pair
            )
        )
    if s.match_length:
        parts.append(
            _("score {you} {your_score}, {them} {their_score} (match to {length})").format(
                your_score=s.score[VIEWER], their_score=s.score[OPPONENT], length=s.match_length, **pair
            )
        )
    elif any(s.score):
        parts.append(_("money game, score {score}").format(score=f"{s.score[VIEWER]}-{s.score[OPPONENT]}"))
    else:
        parts.append(_("money game"))
    cube = cube_text(s)
    if cube:
        parts.append(cube)
    if s.draft:
        parts.append(draft_text(s))
    elif s.last_play_by is not None:
        played = format_play(s.last_play) or _("no move")
        parts.append(_("last play {name} {play}").format(name=side_label(s, s.last_play_by), play=played))
    return " · ".join(parts)

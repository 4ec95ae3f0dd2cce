"""The rule-set contract kit: what gammonbot expects of every :class:`~engine.variant.Variant`, as checks a plugin
runs in its own CI (it is installed with gammonbot; pytest is needed only for :func:`contract_test`).

In a plugin's tests, one line gives one test per check and rule set::

    # tests/test_contract.py
    import gammonbot_myvariant
    from engine.testing import contract_test

    test_contract = contract_test(gammonbot_myvariant)  # the plugin module: every rule set it registers

(or ``contract_test(MyVariant, Other)`` with the classes). Without pytest, :func:`check_variant` runs every check
and :func:`check_plugin` loads a plugin next to the built-in ones; both raise :class:`ContractError` saying which
rule is broken, for which rule set, and where (the position, the dice, the play).

The checks (:data:`CHECKS`), each over a few self-played matches (random players: every legal play may be chosen,
the cube and resignations are used):

``declares``
    a lower-case name of its own, a display name and a summary; aliases its own and distinct; results named by
    positive levels with a single game (1) among them; default options that make a rule set.
``tags``
    a rule set that changes the rules of backgammon declares its own ``mat_variation`` (the ``.mat`` variation tag;
    never its base class's), and no other installed rule set has the same tag.
``starts``
    the starting position is valid: each side has ``checkers`` checkers, and flipping it twice gives it back.
``finishes``
    every self-played match ends within a bound, and replaying its record gives the same final state.
``conserves``
    every position reached, before and after each play and seen from either side, is valid (checkers conserved).
``plays``
    legal plays are well formed: each leaves a different position, uses as many dice as the roll allows, and is
    made of submoves from a point (25: the bar) to a lower one (0: off).
``notation``
    each play's notation, read back as a player would type it, is that play; entered submove by submove (a
    draft, as the buttons do) it is complete and confirms to the same play.
``encoding``
    positions round-trip through their text and frame forms (and GNU Backgammon Position IDs when
    ``gnubg_compatible``); match states and actions round-trip through the stored record.
``results``
    every game ends with a result the rule set declares (or a timeout or forfeit), worth its level times the cube
    (a single game at most while the Jacoby rule holds a centred cube).
``snapshots``
    a board snapshot of every position for both sides can be made, and, given ``render``, drawn.
``hostile``
    a hook of the rule set that raises during play (``next_stage``, ``turn_rules``, ``game_over``) is refused in
    words naming the hook and leaves the game as it was; a bot player whose play raises is played for.

For a plugin's own tests of its rules, :func:`play_through` plays one seeded match of a rule set to its end, between
two random players or two bot players, checking every action, and returns the states and actions to look into.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from . import match as m
from .dice import RandomDice
from .position import BAR, RESERVE, Position
from .positionid import decode_position_id, encode_position_id
from .record import action_from_data, action_to_data, state_from_data, state_to_data
from .selfplay import RandomPlayer, default_sides
from .snapshot import board_snapshot
from .variant import MOVE_HOOKS, Variant

__all__ = [
    "ContractError",
    "Budget",
    "CHECKS",
    "check_variant",
    "check_plugin",
    "contract_test",
    "self_play",
    "play_through",
    "PlayedMatch",
]


class ContractError(AssertionError):
    """A rule set that breaks the Variant contract; the message names the rule set, the rule and where."""


@dataclass(frozen=True)
class Budget:
    """How much self-play the checks look at: ``matches`` matches of ``length`` points from ``seed``, each at most
    ``max_actions`` long; ``samples`` plays of each of about ``rolls`` rolls a match are read back through notation
    and drafts. ``options``: the rule set's options (default: its defaults); ``render``: draws a board snapshot
    (optional, e.g. ``render.render_board``)."""

    matches: int = 2
    length: int = 3
    seed: int = 0
    max_actions: int = 20_000
    samples: int = 3
    rolls: int = 40
    options: tuple[tuple[str, Any], ...] = ()
    render: Callable[[Any], object] | None = None


@dataclass(frozen=True)
class Trajectory:
    """One self-played match: every state in order, the actions between them."""

    states: tuple[m.MatchState, ...]
    actions: tuple[m.Action, ...]


def _fail(variant: Variant | type[Variant], check: str, message: str) -> ContractError:
    name = variant.name if isinstance(variant, type) else type(variant).name
    return ContractError(f"{name or repr(variant)}: {check}: {message}")


#: Self-played matches by (class, options, length, seed, cap, cube): each made once, for every check.
_PLAYED: dict[tuple[Any, ...], Trajectory] = {}


def _played(
    cls: type[Variant], options: tuple[tuple[str, Any], ...], length: int, seed: int, cap: int, cube: bool
) -> Trajectory:
    key = (cls, options, length, seed, cap, cube)
    if key not in _PLAYED:
        if len(_PLAYED) > 64:
            _PLAYED.clear()
        _PLAYED[key] = _play(cls, options, length, seed, cap, cube)
    return _PLAYED[key]


def _play(
    cls: type[Variant], options: tuple[tuple[str, Any], ...], length: int, seed: int, cap: int, cube: bool
) -> Trajectory:
    variant = cls(**dict(options))
    state = m.new_match(variant, default_sides(variant), m.MatchOptions(length=length, cube=cube))
    dice = RandomDice(seed)
    player = RandomPlayer(random.Random(f"contract-{seed}"))
    states: list[m.MatchState] = [state]
    actions: list[m.Action] = []
    while not state.over:
        if len(actions) >= cap:
            raise _fail(cls, "finishes", f"a {length}-point match of random play did not end within {cap} actions")
        try:
            action = player.choose(state, dice)
            state = m.apply(state, action)
        except Exception as exc:  # the rule set broke its own match: say where
            where = f"{state.phase} of game {state.game}, position {state.position}, dice {state.dice}"
            raise _fail(cls, "self-play", f"the match cannot go on ({where}): {type(exc).__name__}: {exc}") from exc
        states.append(state)
        actions.append(action)
    return Trajectory(tuple(states), tuple(actions))


def self_play(cls: type[Variant], budget: Budget = Budget()) -> list[Trajectory]:
    """The budget's self-played matches of ``cls`` (made once per class and budget, and shared by the checks): the
    first with the cube (doubles, takes, passes, beavers, resignations), the others without it, so that games run to
    the end (bear-offs, gammons and whatever else the rule set's results are)."""
    return [
        _played(cls, budget.options, budget.length, budget.seed + k, budget.max_actions, k == 0)
        for k in range(budget.matches)
    ]


def _moves(trajectories: Iterable[Trajectory]) -> Iterable[m.MatchState]:
    """Every state with a roll to play."""
    for t in trajectories:
        for state in t.states:
            if state.phase is m.Phase.MOVE and state.position is not None and state.dice is not None:
                yield state


# --- the checks -----------------------------------------------------------------------------------------
def check_declares(cls: type[Variant], budget: Budget) -> None:
    def fail(message: str) -> ContractError:
        return _fail(cls, "declares", message)

    if not (isinstance(cls, type) and issubclass(cls, Variant)):
        raise ContractError(f"{cls!r} is not a Variant subclass")
    if "name" not in cls.__dict__:
        raise fail(f"{cls.__name__} declares no name of its own (it would take {cls.name!r} from its base class)")
    if not cls.name or cls.name != cls.name.lower() or cls.name != cls.name.strip():
        raise fail(f"the name {cls.name!r} must be lower case, without spaces around it")
    if not cls.display_name.strip():
        raise fail("it needs a display_name (the name players read)")
    if not cls.summary.strip():
        raise fail("it needs a summary (its rules in a few sentences, shown by /bg-info rules)")
    labels = [cls.name, *cls.aliases]
    if len({label.lower() for label in labels}) != len(labels):
        raise fail(f"its name and aliases {labels} repeat a name")
    if cls.checkers < 1:
        raise fail(f"checkers = {cls.checkers}: each side needs at least one checker")
    variant = cls(**dict(budget.options))
    results = variant.results
    if not results or 1 not in results or any(not isinstance(k, int) or k < 1 for k in results):
        raise fail(f"its results {dict(results)} must be named by positive levels, a single game (1) among them")
    if any(not str(name).strip() for name in results.values()):
        raise fail("every result needs a name in the rule set's words")
    if cls(**dict(cls.option_defaults)) != cls():
        raise fail("its option_defaults do not make the same rule set as no options")


#: Data and hooks that change the rules of backgammon: a rule set that sets or overrides any of them needs a ``.mat``
#: variation tag of its own (its exports are not backgammon matches to other programs).
RULE_DATA = ("start", "checkers", "geometry", "point_blocked_by", "hitting", "pinning", "uses_cube", "result_names")
RULE_HOOKS = (
    *MOVE_HOOKS,
    "next_stage",
    "next_step",
    "turn_rules",
    "game_over",
    "game_result",
    "results",
    "legal_plays",
    "for_game",
    "start_position",
    "most_at_stake",
)


def changes_the_rules(cls: type[Variant]) -> bool:
    """Whether ``cls`` plays other rules than standard backgammon (its data or a rules hook differ)."""
    from variants.backgammon import Backgammon

    if any(getattr(cls, attr) != getattr(Backgammon, attr) for attr in RULE_DATA) or cls.option_defaults:
        return True
    return any(getattr(cls, hook) is not getattr(Backgammon, hook) for hook in RULE_HOOKS)


def check_tags(cls: type[Variant], budget: Budget) -> None:
    """A rule set that changes the rules declares its own ``.mat`` variation tag (never its base class's), and no
    other installed rule set has it."""
    from .plugins import registry

    tag = cls.__dict__.get("mat_variation")
    if changes_the_rules(cls) and not (isinstance(tag, str) and tag.strip()):
        inherited = f" (it would inherit {cls.mat_variation!r} from its base class)" if cls.mat_variation else ""
        raise _fail(
            cls,
            "tags",
            f"it changes the rules of backgammon, so it must declare its own mat_variation, the [Variation] tag of "
            f"its .mat exports{inherited}",
        )
    mine = (tag or cls.mat_variation or "").strip().lower()
    if not mine:
        return
    for other in registry().variants.values():
        if other.name != cls.name and (other.mat_variation or "").strip().lower() == mine:
            raise _fail(cls, "tags", f"its mat_variation {tag!r} is already rule set {other.name!r}'s")


def check_starts(cls: type[Variant], budget: Budget) -> None:
    variant = cls(**dict(budget.options))
    try:
        start = variant.start_position()
        variant.validate_position(start)
    except ValueError as exc:
        raise _fail(cls, "starts", f"the starting position is not valid: {exc}") from None
    if variant.flip(variant.flip(start)) != start:
        raise _fail(cls, "starts", f"flipping the start twice does not give it back: {start}")


def check_finishes(cls: type[Variant], budget: Budget) -> None:
    for t in self_play(cls, budget):
        final = t.states[-1]
        if not final.over or final.winner is None:
            raise _fail(cls, "finishes", "a self-played match stopped without a winner")
        if m.replay(final.setup, t.actions) != final:
            raise _fail(cls, "finishes", "replaying a match's record does not give its final state")


def check_conserves(cls: type[Variant], budget: Budget) -> None:
    for state in _moves(self_play(cls, budget)):
        variant, pos = state.variant, state.position
        assert pos is not None and state.dice is not None
        for play in state.legal_plays():
            for seen, where in ((play.position, "after"), (variant.flip(play.position), "after, seen by the other")):
                try:
                    variant.validate_position(seen)
                except ValueError as exc:
                    raise _fail(
                        cls,
                        "conserves",
                        f"{play.notation or 'no move'} with {state.dice[0]}-{state.dice[1]} from {pos} leaves a "
                        f"position that is not valid ({where}): {exc}",
                    ) from None


def check_plays(cls: type[Variant], budget: Budget) -> None:
    for state in _moves(self_play(cls, budget)):
        pos, dice = state.position, state.dice
        assert pos is not None and dice is not None
        plays = state.legal_plays()
        where = f"with {dice[0]}-{dice[1]} from {pos}"
        if not len(plays):
            raise _fail(cls, "plays", f"no play at all {where}: a roll that cannot be played is one empty play")
        if len(plays.positions) != len(plays):
            raise _fail(cls, "plays", f"two plays leave the same position {where}")
        most = 4 if dice[0] == dice[1] else 2
        for play in plays:
            if len(play.moves) != plays.max_dice or not 0 <= plays.max_dice <= most:
                raise _fail(cls, "plays", f"{play.notation} uses {len(play.moves)} dice, not {plays.max_dice}, {where}")
            for src, dst, hit in play.moves:
                if not ((0 <= dst < src <= BAR or (src == RESERVE and 0 < dst < BAR)) and isinstance(hit, bool)):
                    raise _fail(cls, "plays", f"{play.notation} has a submove {src}/{dst} out of order {where}")


def check_notation(cls: type[Variant], budget: Budget) -> None:
    rng = random.Random(budget.seed)
    for trajectory in self_play(cls, budget):
        rolls = list(_moves([trajectory]))
        for state in rolls[:: max(1, len(rolls) // budget.rolls)]:  # at most about ``rolls``, spread over the match
            _read_back(cls, state, rng, budget.samples)


def _read_back(cls: type[Variant], state: m.MatchState, rng: random.Random, samples: int) -> None:
    """A few plays of one roll, typed back in notation and entered submove by submove."""
    assert state.roller is not None and state.position is not None
    variant, by = state.variant, state.acting_member(state.roller)
    plays = list(state.legal_plays())
    for play in rng.sample(plays, min(samples, len(plays))):
        where = f"{play.notation or 'no move'} with {state.dice} from {state.position}"
        if play.moves:
            try:
                typed = m.move_from_text(state, by, play.notation)
            except m.ActionError as exc:
                raise _fail(cls, "notation", f"{where}: typed, it is refused: {exc}") from None
            if variant.apply(state.position, typed.moves) != play.position:
                raise _fail(cls, "notation", f"{where}: typed, it is another play ({typed.moves})")
        draft = state.draft()
        try:
            for src, dst, _hit in play.moves:
                draft = draft.add(src, dst)
            move = m.confirm(state, draft, by)
        except ValueError as exc:  # a TurnError or an ActionError, in words
            raise _fail(cls, "notation", f"{where}: entered submove by submove, it fails: {exc}") from None
        if draft.position != play.position or variant.apply(state.position, move.moves) != play.position:
            raise _fail(cls, "notation", f"{where}: entered submove by submove, it leaves {draft.position}")


def _positions(trajectories: Iterable[Trajectory]) -> Iterable[tuple[Variant, Position]]:
    for t in trajectories:
        for state in t.states:
            if state.position is not None:
                yield state.variant, state.position


def check_encoding(cls: type[Variant], budget: Budget) -> None:
    trajectories = self_play(cls, budget)
    for variant, pos in _positions(trajectories):
        if Position.parse(str(pos)) != pos or Position.from_frame(pos.to_frame()) != pos:
            raise _fail(cls, "encoding", f"{pos} does not read back from its text or frame form")
        if variant.gnubg_compatible:
            pid = encode_position_id(variant, pos)
            if decode_position_id(variant, pid) != pos:
                raise _fail(cls, "encoding", f"{pos}: its Position ID {pid} reads back as another position")
    for t in trajectories:
        setup = t.states[0].setup
        for state in t.states:
            if state_from_data(setup, state_to_data(state)) != state:
                raise _fail(
                    cls, "encoding", f"a match state does not read back from the record: {state_to_data(state)}"
                )
        for action in t.actions:
            if action_from_data(action_to_data(action)) != action:
                raise _fail(cls, "encoding", f"the action {action} does not read back from the record")


def check_results(cls: type[Variant], budget: Budget) -> None:
    for t in self_play(cls, budget):
        final = t.states[-1]
        declared = final.variant.results
        for result in final.results:
            if str(result.reason) in ("timeout", "forfeit", "draw"):  # no result level: nobody scored by the rules
                continue
            if result.level not in declared:
                raise _fail(
                    cls, "results", f"game {result.game} ended with level {result.level}, not one of {dict(declared)}"
                )
            if result.points not in (result.level * result.cube, result.cube):
                raise _fail(
                    cls,
                    "results",
                    f"game {result.game} ({final.variant.result_name(result.level)}, cube {result.cube}) was worth "
                    f"{result.points} points",
                )
        for state in t.states:
            if state.position is not None and state.variant.most_at_stake(state.position) not in declared:
                raise _fail(cls, "results", f"most_at_stake({state.position}) is not a declared result level")


def check_snapshots(cls: type[Variant], budget: Budget) -> None:
    for t in self_play(cls, budget):
        last = len(t.states) - 1
        every = max(1, len(t.states) // 12)
        for k, state in enumerate(t.states):
            for side in (0, 1):
                try:
                    snapshot = board_snapshot(state, side)
                except ValueError as exc:
                    raise _fail(
                        cls, "snapshots", f"no board snapshot of {state.position} for side {side}: {exc}"
                    ) from None
                # Drawing is slower: about a dozen states a match, each side in turn, and the end (its result drawn).
                if budget.render is not None and ((k % every == 0 and (k // every) % 2 == side) or k == last):
                    try:
                        budget.render(snapshot)
                    except Exception as exc:
                        raise _fail(
                            cls, "snapshots", f"the board of {state.position} cannot be drawn: {exc!r}"
                        ) from exc


# --- driving a whole match in a plugin's tests -------------------------------------------------------------
@dataclass(frozen=True)
class PlayedMatch:
    """A match :func:`play_through` played to its end: every state in order (``states[0]`` before the first action,
    ``states[-1]`` the final one) and the actions between them, each checked legal."""

    states: tuple[m.MatchState, ...]
    actions: tuple[m.Action, ...]

    @property
    def final(self) -> m.MatchState:
        return self.states[-1]

    @property
    def winner(self) -> int | None:
        """The side that won the match (0 or 1)."""
        return self.final.winner

    @property
    def score(self) -> tuple[int, int]:
        return self.final.score

    @property
    def results(self) -> tuple[m.GameResult, ...]:
        """Each game's result, in order."""
        return self.final.results

    def moves(self) -> list[tuple[m.MatchState, m.Move]]:
        """Each play with the state it was played in (its dice, position, stage and turn context)."""
        return [
            (state, action)
            for state, action in zip(self.states, self.actions, strict=False)
            if isinstance(action, m.Move)
        ]


def play_through(
    rule_set: type[Variant] | Variant,
    *,
    seed: int = 0,
    length: int = 3,
    cube: bool = False,
    options: Mapping[str, Any] | None = None,
    match: m.MatchOptions | None = None,
    players: tuple[object, object] | None = None,
    max_actions: int = 20_000,
) -> PlayedMatch:
    """Play a seeded match of ``rule_set`` (a class, with ``options``, or an instance) to its end and check every
    action on the way: the final state and every action, as a :class:`PlayedMatch`.

    The match is ``length`` points, ``cube`` or not (without it games run to their end: bear-offs, gammons and the
    rule set's other results), or the ``match`` options given whole. ``players``: two bot players (objects with
    ``choose_play`` ..., :class:`~engine.players.Player`, or names of registered ones such as ``"heuristic"``),
    side 0 first; by default two random players (every legal play may be chosen; with the cube they double, take,
    pass and resign now and then). The same seed plays the same match.

    Checked, each a :class:`ContractError` naming the rule set, the action and where: the engine accepts each action;
    a play is one of the legal plays of its dice and stage; every position reached is valid; a bot player never
    fails; the match ends within ``max_actions``; and the record, read back and replayed, gives the same final state.
    """
    from .players import PlayerError, bot_action
    from .plugins import find_player

    variant = rule_set(**dict(options or {})) if isinstance(rule_set, type) else rule_set
    cls = type(variant)
    chosen = match or m.MatchOptions(length=length, cube=cube and variant.uses_cube)
    state = m.new_match(variant, default_sides(variant), chosen)
    dice = RandomDice(seed)
    bots: list[Any] = []
    for k, bot in enumerate(players or ()):
        if isinstance(bot, str):
            spec = find_player(bot)
            spec.check(variant)
            bots.append(spec.factory(seed + k))
        else:
            bots.append(bot)
    random_player = RandomPlayer(random.Random(f"play-through-{seed}"))
    states: list[m.MatchState] = [state]
    actions: list[m.Action] = []

    def fail(message: str) -> ContractError:
        where = f"action {len(actions) + 1}, {state.phase.name} of game {state.game}"
        if state.position is not None:
            where += f", position {state.position}"
        if state.dice is not None:
            where += f", dice {state.dice[0]}-{state.dice[1]}"
        return _fail(cls, "play_through", f"{message} ({where})")

    while not state.over:
        if len(actions) >= max_actions:
            raise fail(f"the match did not end within {max_actions} actions")
        try:
            if bots:
                side = state.turn if state.turn is not None else 0
                action = bot_action(bots[side], state, side, dice)
            else:
                action = random_player.choose(state, dice)
        except PlayerError as exc:
            raise fail(f"the bot player failed: {exc}") from exc
        if isinstance(action, m.Move) and state.position is not None:
            try:
                left = state.variant.apply(state.position, action.moves)
            except Exception as exc:
                raise fail(f"the play {action.moves} cannot be made: {type(exc).__name__}: {exc}") from exc
            if state.legal_plays().find(left) is None:
                raise fail(f"the play {action.moves} is not one of the legal plays")
        try:
            after = m.apply(state, action)
        except Exception as exc:
            raise fail(f"{action} is refused: {type(exc).__name__}: {exc}") from exc
        if after.position is not None:
            try:
                after.variant.validate_position(after.position)
            except Exception as exc:
                raise fail(f"{action} leaves an invalid position {after.position}: {exc}") from exc
        state = after
        states.append(state)
        actions.append(action)
    replayed = states[0]
    for action in actions:
        replayed = m.apply(replayed, action_from_data(action_to_data(action)))
    if replayed != state:
        raise fail("the record, read back and replayed, does not give the final state")
    return PlayedMatch(tuple(states), tuple(actions))


#: The rule-set hooks the ``hostile`` check makes raise.
HOSTILE_HOOKS = ("next_stage", "turn_rules", "game_over")


def check_hostile(cls: type[Variant], budget: Budget) -> None:
    """A hook of ``cls`` that raises during play is contained: the action is refused in words naming the hook and
    the match state stays as it was; a bot player whose choice raises is played for with an action the match
    takes."""
    import logging

    from .players import PlayerFailed, RandomBot, bot_action

    quiet = logging.getLogger("gammonbot.plugins")
    for hook in HOSTILE_HOOKS:
        space: dict[str, Any] = {"__name__": "hostile_plugin"}  # a plugin's module, not the engine's
        exec(f"def {hook}(self, *args, **kwargs):\n    raise RuntimeError('hostile')\n", space)
        hostile = type(f"Hostile{cls.__name__}", (cls,), {"name": f"{cls.name}-hostile", hook: space[hook]})
        variant = hostile(**dict(budget.options))
        state = m.new_match(variant, default_sides(variant), m.MatchOptions(length=budget.length, cube=False))
        dice, player = RandomDice(budget.seed), RandomPlayer(random.Random(budget.seed))
        for _ in range(budget.max_actions):
            if state.over:
                break
            action = player.choose(state, dice)
            before = state_to_data(state)
            disabled, quiet.disabled = quiet.disabled, True
            try:
                state = m.apply(state, action)
            except m.ActionError as exc:
                if hook not in str(exc) or state_to_data(state) != before:
                    raise _fail(cls, "hostile", f"{hook} was refused as {exc!r}, or changed the game") from exc
                break
            except Exception as exc:
                raise _fail(cls, "hostile", f"a raising {hook} escaped as {type(exc).__name__}: {exc}") from exc
            finally:
                quiet.disabled = disabled

    class Broken(RandomBot):
        def choose_play(self, state: m.MatchState, time_cap: float | None = None) -> Any:
            raise RuntimeError("hostile")

    variant = cls(**dict(budget.options))
    state = m.new_match(variant, default_sides(variant), m.MatchOptions(length=budget.length, cube=False))
    dice, bot = RandomDice(budget.seed), Broken(random.Random(budget.seed))
    for _ in range(budget.max_actions):
        if state.over:
            return
        side = state.turn if state.turn is not None and state.phase is not m.Phase.OPENING else 0
        try:
            action = bot_action(bot, state, side, dice)
        except PlayerFailed as exc:
            action = exc.action
        except Exception as exc:
            raise _fail(cls, "hostile", f"a raising bot player escaped as {type(exc).__name__}: {exc}") from exc
        state = m.apply(state, action)


#: Every check, by name (the test ids of :func:`contract_test`).
CHECKS: Mapping[str, Callable[[type[Variant], Budget], None]] = {
    "declares": check_declares,
    "starts": check_starts,
    "finishes": check_finishes,
    "conserves": check_conserves,
    "plays": check_plays,
    "notation": check_notation,
    "encoding": check_encoding,
    "results": check_results,
    "snapshots": check_snapshots,
    "hostile": check_hostile,
    "tags": check_tags,
}


def check_variant(cls: type[Variant], budget: Budget | None = None, **settings: Any) -> None:
    """Run every check on ``cls``; :class:`ContractError` says what is broken. ``settings``: :class:`Budget`
    fields (``matches=5``, ``options={"koks": True}``, ``render=...``)."""
    chosen = _budget(budget, settings)
    for check in CHECKS.values():
        check(cls, chosen)


def _budget(budget: Budget | None, settings: Mapping[str, Any]) -> Budget:
    fields = dict(settings)
    if isinstance(fields.get("options"), Mapping):
        fields["options"] = tuple(sorted(fields["options"].items()))
    base = budget or Budget()
    return Budget(**{**base.__dict__, **fields})


def check_plugin(plugin: object, name: str | None = None) -> list[type[Variant]]:
    """Load ``plugin`` (a module or object with ``@hookimpl`` hooks) beside the built-in plugins, as the bot would,
    but strictly: :class:`ContractError` if it would be refused (it cannot load, a hook fails, a name clashes).
    Returns the rule sets it registers."""
    from .plugins import PluginError, build_plugin_manager

    label = name or getattr(plugin, "__name__", None) or type(plugin).__name__
    try:
        _, reg = build_plugin_manager([(label, plugin)], load_entry_points=False, strict=True)
    except PluginError as exc:
        raise ContractError(str(exc)) from None
    return [cls for variant_name, cls in reg.variants.items() if reg.owners[variant_name] == label]


def contract_test(*items: object, budget: Budget | None = None, **settings: Any) -> Callable[..., None]:
    """A pytest test function checking every rule set given (Variant classes, or plugins whose rule sets
    :func:`check_plugin` finds), one test per rule set and check, and for a plugin one that it loads:
    ``test_contract = contract_test(my_plugin)``. ``settings``: :class:`Budget` fields, as for :func:`check_variant`.
    """
    import pytest

    chosen = _budget(budget, settings)
    cases: list[Any] = []
    for item in items:
        if isinstance(item, type) and issubclass(item, Variant):
            classes = [item]
        else:
            label = getattr(item, "__name__", None) or type(item).__name__
            try:
                classes = check_plugin(item)
                if not classes:
                    raise ContractError(f"plugin {label!r} registers no rule set")
            except ContractError as exc:
                cases.append(pytest.param(functools.partial(_raise, exc), id=f"{label}-loads"))
                continue
            cases.append(pytest.param(_nothing, id=f"{label}-loads"))
        for cls in classes:
            cases += [
                pytest.param(functools.partial(check, cls, chosen), id=f"{cls.name}-{name}")
                for name, check in CHECKS.items()
            ]

    @pytest.mark.parametrize("check", cases)
    def test_variant_contract(check: Callable[[], None]) -> None:
        check()

    return test_variant_contract


def _raise(exc: BaseException) -> None:
    raise exc


def _nothing() -> None:
    return None

"""Self-play: whole matches played by the engine against itself.

:class:`RandomPlayer` acts for both sides with the random player's choices (:class:`~engine.players.RandomBot`:
uniform among the legal plays, doubles, takes, passes, beavers and raccoons at random rates) and now and then
resigns, so every cube path is exercised; with ``chaos`` it also rejects resignations, times out and forfeits. A seed
fixes both the dice and every choice, so a self-played match is reproducible. It is the engine's smoke test.

:func:`play_bot_match` seats two bot players (:mod:`engine.players`) and :func:`duel` plays N matches
between two registered players, alternating seats, and reports the score with a 95% confidence interval.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from . import i18n
from .dice import DiceSource, RandomDice
from .i18n import _, ngettext
from .match import (
    AcceptResignation,
    Action,
    Double,
    Forfeit,
    MatchOptions,
    MatchState,
    Move,
    NameDouble,
    OpeningRoll,
    Phase,
    RejectResignation,
    Resign,
    Roll,
    SetActing,
    Timeout,
    apply,
    new_match,
)
from .players import Player, PlayerSpec, RandomBot, answer_action, bot_action
from .variant import Variant

__all__ = ["RandomPlayer", "play_match", "default_sides", "play_bot_match", "duel", "DuelResult", "wilson_interval"]


@dataclass
class RandomPlayer:
    """Chooses a random legal action for whoever must act; the rates are per decision.

    The plays, cube answers, named doublets and (with ``chaos``) resignation answers are the random player's
    (:class:`~engine.players.RandomBot`, drawing from the same ``rng``; ``redouble_rate`` is its ``beaver_rate``);
    what a bot is never asked (which side throws the opening roll, resigning, timeouts, forfeits and acting-member
    choices) is chosen here.
    """

    rng: random.Random
    double_rate: float = 0.08
    take_rate: float = 0.65
    redouble_rate: float = 0.25
    resign_rate: float = 0.004
    accept_rate: float = 0.6
    #: Also produce timeouts, forfeits and acting-member choices (rarely).
    chaos: bool = False

    @property
    def bot(self) -> RandomBot:
        """The random player with these rates, drawing from ``rng``."""
        return RandomBot(
            self.rng,
            double_rate=self.double_rate,
            take_rate=self.take_rate,
            beaver_rate=self.redouble_rate,
            accept_rate=self.accept_rate,
        )

    def choose(self, state: MatchState, dice: DiceSource) -> Action:
        """A legal action for the side that must act now (either side before an opening roll)."""
        rng = self.rng
        phase = state.phase
        if phase is Phase.OVER:
            raise ValueError("the match is over")
        due = state.turn
        if self.chaos and due is not None and rng.random() < 0.002:
            return Timeout(state.acting_member(due)) if rng.random() < 0.7 else Forfeit(state.acting_member(due))
        if phase is Phase.OPENING:
            side = rng.randrange(2)
            if state.options.team_choice and not state.opening_ties and rng.random() < 0.3:
                return SetActing(state.acting_member(side), rng.choice(state.setup.sides[side]))
            return OpeningRoll(state.acting_member(side), dice())
        assert due is not None
        by = state.acting_member(due)
        if phase is Phase.ROLL:
            r = rng.random()
            if r < self.double_rate and state.may_double(due) is None:
                return Double(by)
            most = state.variant.max_result  # the rule set's largest result (a mars in Longgammon)
            if r > 1 - self.resign_rate and state.declined[due] < most:
                return Resign(by, rng.randint(state.declined[due] + 1, most))
            return Roll(by, dice())
        if phase is Phase.MOVE:
            most = state.variant.max_result
            if rng.random() < self.resign_rate / 2 and state.declined[due] < most:
                return Resign(by, rng.randint(state.declined[due] + 1, most))
            return Move(by, self.bot.choose_play(state).moves)
        if phase is Phase.NAME_DOUBLE:
            return NameDouble(by, self.bot.name_double(state))
        if phase is Phase.DOUBLED:
            return answer_action(self.bot.answer_double(state), by)
        # A resignation is offered.
        if not self.chaos or self.bot.accept_resignation(state):
            return AcceptResignation(by)
        return RejectResignation(by)


def default_sides(variant: Variant) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Player ids for a self-played match: Alice v Bob, or Alice & Carol v Bob & Dave for teams."""
    pool = (("Alice", "Carol", "Erin", "Grace"), ("Bob", "Dave", "Frank", "Heidi"))
    size = variant.team_size
    return pool[0][:size], pool[1][:size]


def play_match(
    variant: Variant,
    options: MatchOptions,
    seed: int,
    *,
    sides: Sequence[Sequence[str]] | None = None,
    chaos: bool = False,
    max_actions: int = 200_000,
) -> tuple[MatchState, list[Action]]:
    """Play a whole match between two random players: the final state and the action record.

    Money sessions need a game count (``options.games``), or they would never end.
    """
    if options.money and not options.games:
        raise ValueError("a self-played money session needs a number of games")
    state = new_match(variant, sides or default_sides(variant), options)
    dice = RandomDice(seed)
    player = RandomPlayer(random.Random(f"choices-{seed}"), chaos=chaos)
    actions: list[Action] = []
    while not state.over:
        if len(actions) >= max_actions:
            raise RuntimeError(f"the match did not end within {max_actions} actions")
        action = player.choose(state, dice)
        state = apply(state, action)
        actions.append(action)
    return state, actions


def play_bot_match(
    variant: Variant,
    options: MatchOptions,
    players: tuple[Player, Player],
    seed: int,
    *,
    sides: Sequence[Sequence[str]] | None = None,
    time_cap: float | None = None,
    max_actions: int = 200_000,
) -> tuple[MatchState, list[Action]]:
    """Play a whole match between two bot players (``players[k]`` acts for side ``k``).

    The dice come from ``RandomDice(seed)``; side 0 throws the opening rolls. Every action goes through
    :func:`~engine.players.bot_action` and :func:`~engine.match.apply`, so the engine referees every choice.
    """
    if options.money and not options.games:
        raise ValueError("a self-played money session needs a number of games")
    state = new_match(variant, sides or default_sides(variant), options)
    dice = RandomDice(seed)
    actions: list[Action] = []
    while not state.over:
        if len(actions) >= max_actions:
            raise RuntimeError(f"the match did not end within {max_actions} actions")
        side = state.turn if state.turn is not None else 0
        action = bot_action(players[side], state, side, dice, time_cap=time_cap)
        state = apply(state, action)
        actions.append(action)
    return state, actions


def wilson_interval(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% for ``z = 1.96``); (0, 1) without trials."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class DuelResult:
    """The outcome of :func:`duel`: matches won by each player, ties, and points scored."""

    names: tuple[str, str]
    matches: int
    wins: tuple[int, int]
    ties: int
    points: tuple[int, int]
    games: int

    @property
    def share(self) -> float:
        """The first player's share of the matches (a tie counts half)."""
        return (self.wins[0] + 0.5 * self.ties) / self.matches if self.matches else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% confidence interval of the first player's share (Wilson)."""
        return wilson_interval(self.wins[0] + 0.5 * self.ties, self.matches)

    def summary(self) -> str:
        """One line: who won how many, the share and its 95% confidence interval, and the points."""
        lo, hi = self.interval
        first, second = self.names
        head = ngettext(
            "{first} v {second}, {count} match", "{first} v {second}, {count} matches", self.matches
        ).format(first=first, second=second, count=self.matches)
        # Translators: appended to "Bob won 3" in a duel's summary when some matches were tied.
        ties = _(", {count} tied").format(count=self.ties) if self.ties else ""
        body = _(
            "{first} won {first_wins}, {second} won {second_wins}{ties} ({share} for {first}, 95% CI {low} to "
            "{high}); points {points} in {games} games"
        ).format(
            first=first,
            second=second,
            first_wins=self.wins[0],
            second_wins=self.wins[1],
            ties=ties,
            share=i18n.percent(self.share, 1),
            low=i18n.percent(lo, 1),
            high=i18n.percent(hi, 1),
            points=f"{self.points[0]}-{self.points[1]}",
            games=self.games,
        )
        return f"{head}: {body}"


def duel(
    variant: Variant,
    options: MatchOptions,
    first: PlayerSpec,
    second: PlayerSpec,
    matches: int,
    seed: int,
    *,
    time_cap: float | None = None,
    progress: Callable[[int, DuelResult], None] | None = None,
    keep: Callable[[int, MatchState, list[Action]], None] | None = None,
) -> DuelResult:
    """Play ``matches`` matches between two registered players, swapping seats every match.

    Match ``i`` uses dice seed ``seed * 1_000_003 + i`` and fresh players seeded from it, so a duel is
    reproducible unless a time cap cuts a player's thinking short. ``keep(i, state, actions)`` receives each
    finished match and ``progress(i, result)`` the running result. :class:`~engine.players.UnsupportedVariant` or
    :class:`~engine.players.PlayerUnavailable` when either player cannot play ``variant`` here.
    """
    first.check(variant)
    second.check(variant)
    wins = [0, 0]
    points = [0, 0]
    ties = games = 0
    result = DuelResult((first.name, second.name), 0, (0, 0), 0, (0, 0), 0)
    for i in range(matches):
        match_seed = seed * 1_000_003 + i
        bots = (first.create(2 * match_seed), second.create(2 * match_seed + 1))
        seats = (0, 1) if i % 2 == 0 else (1, 0)  # seats[k]: the side player k sits on
        seated = (bots[0], bots[1]) if seats[0] == 0 else (bots[1], bots[0])
        state, actions = play_bot_match(variant, options, seated, match_seed, time_cap=time_cap)
        if keep is not None:
            keep(i, state, actions)
        games += len(state.results)
        for k in range(2):
            points[k] += state.score[seats[k]]
        if state.winner is None:
            ties += 1
        else:
            wins[0 if state.winner == seats[0] else 1] += 1
        result = DuelResult((first.name, second.name), i + 1, (wins[0], wins[1]), ties, (points[0], points[1]), games)
        if progress is not None:
            progress(i + 1, result)
    return result

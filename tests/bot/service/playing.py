"""Playing a game through the service in tests: one player's ordinary next action."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.service import GameService, GameView, Outcome, Request


async def next_action(
    svc: GameService, view: GameView, who: Request, choose: Callable[[Sequence[str]], str] = lambda plays: plays[0]
) -> Outcome:
    """What a willing player does now in ``view``'s game: roll (the opening roll too), make the play ``choose``
    picks from the legal ones, take a double, accept a resignation."""
    if view.phase in ("opening", "roll"):
        return await svc.roll(view.id, who)
    if view.phase == "move":
        return await svc.move(view.id, who, choose(view.plays))
    if view.phase == "doubled":
        return await svc.take(view.id, who)
    return await svc.answer_resignation(view.id, who, True)

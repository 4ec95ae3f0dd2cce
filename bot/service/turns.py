"""Turns: rolls, moves, submoves, the cube, resignations, forfeits and timeouts."""

from __future__ import annotations

from engine import match as m
from engine.fairdice import FairDice
from engine.match import RESIGN_LEVELS, Action, MatchState, Phase
from engine.turn import TurnError

from .core import ServiceCore
from .helpers import _Loaded, _names
from .types import RESIGN_NAMES, SYSTEM, Outcome, Refused, Request, Who


class TurnsMixin(ServiceCore):
    """Turns: rolls, moves, submoves, the cube, resignations, forfeits and timeouts."""

    # --- turns ----------------------------------------------------------------------------------
    async def roll(self, game_id: int, player: Request) -> Outcome:
        """Roll the dice (the opening roll at the start of a game)."""
        return await self._bots_act(await self.roll_once(game_id, player))

    async def roll_once(self, game_id: int, player: Request, *, expected_actions: int | None = None) -> Outcome:
        """Roll, without letting bot players act afterwards (only while the record has ``expected_actions``)."""

        fair = await self._fair_dice(game_id)

        def decide(loaded: _Loaded, state: MatchState) -> list[Action]:
            by = player.id
            if state.phase is Phase.MOVE:
                raise Refused("you have already rolled: play your move (or resign)")
            if fair is not None:
                dice = fair.roll(loaded.counters["rolls"])
            else:
                dice = (self.dice or self._plain_dice).roll(game_id, loaded.n_actions)
            if state.phase is Phase.OPENING:
                # Each side throws one die; ties are thrown again (each throw is recorded).
                return [m.OpeningRoll(by, dice)]
            return [m.Roll(by, dice)]

        return await self._change_once(game_id, player, decide, expected_actions=expected_actions)

    async def _fair_dice(self, game_id: int) -> FairDice | None:
        """The commit-reveal dice of a match (None when the service was given a dice provider)."""
        if self.dice is not None:
            return None
        fair = self._fair.get(game_id)
        if fair is None:
            loaded = await self._load(game_id, SYSTEM)
            proof = loaded.row.setup.get("dice") if loaded.row.setup else None
            seed = await self.store.secret(game_id)
            if not proof or seed is None:
                return None  # a match started without a commitment (by a test or demo service): plain dice
            fair = FairDice.from_secret_hex(seed, str(proof["client"]))
            self._fair[game_id] = fair
            while len(self._fair) > self._cache_size:
                self._fair.popitem(last=False)
        return fair

    async def move(self, game_id: int, player: Request, text: str) -> Outcome:
        """Play a whole roll written in notation (``13/7 8/7``); illegal plays are refused naming the rule."""
        self._check_play_text(text)
        held = await self._hold_for_teammate(game_id, player, lambda state: m.move_from_text(state, player.id, text))
        if held is not None:
            return held

        def decide(loaded: _Loaded, state: MatchState) -> list[Action]:
            self._require_mover(state, player, "play", _names(loaded))
            return [m.move_from_text(state, player.id, text)]

        return await self._change(game_id, player, decide, clear_draft=True)

    async def submove(self, game_id: int, player: Request, src: int, dst: int) -> Outcome:
        """Move one checker by one die; the play is made when all dice are used (or on :meth:`confirm`)."""

        def decide_draft(loaded: _Loaded, state: MatchState) -> list[list[int]]:
            self._require_mover(state, player, "move", _names(loaded))
            draft = self._draft(loaded, state)
            try:
                draft = draft.add(src, dst)
            except TurnError as exc:
                raise Refused(str(exc)) from None
            return [[s, t] for s, t, _ in draft.moves]

        return await self._change_draft(game_id, player, decide_draft)

    async def undo(self, game_id: int, player: Request) -> Outcome:
        """Take back the last submove of this turn (before the play is confirmed)."""

        def decide_draft(loaded: _Loaded, state: MatchState) -> list[list[int]]:
            self._require_mover(state, player, "undo", _names(loaded))
            draft = self._draft(loaded, state)
            if not draft.moves:
                raise Refused("there is nothing to undo this turn")
            return [[s, t] for s, t, _ in draft.undo().moves]

        return await self._change_draft(game_id, player, decide_draft)

    async def confirm(self, game_id: int, player: Request) -> Outcome:
        """Confirm the submoves made this turn as the play."""
        loaded = await self._load(game_id, player)
        held = await self._hold_for_teammate(
            game_id, player, lambda state: m.confirm(state, self._draft(loaded, state), player.id)
        )
        if held is not None:
            return held

        def decide(loaded: _Loaded, state: MatchState) -> list[Action]:
            self._require_mover(state, player, "confirm", _names(loaded))
            draft = self._draft(loaded, state)
            return [m.confirm(state, draft, player.id)]

        return await self._change(game_id, player, decide, clear_draft=True)

    async def double(self, game_id: int, player: Request) -> Outcome:
        """Offer the cube (before rolling)."""
        return await self._simple(game_id, player, m.Double)

    async def take(self, game_id: int, player: Request) -> Outcome:
        """Take the pending double."""
        return await self._simple(game_id, player, m.Take)

    async def pass_(self, game_id: int, player: Request) -> Outcome:
        """Pass (drop) the pending double: the game is lost at the value before it."""
        return await self._simple(game_id, player, m.Pass)

    async def beaver(self, game_id: int, player: Request) -> Outcome:
        """Money play: take and redouble at once."""
        return await self._simple(game_id, player, m.Beaver)

    async def raccoon(self, game_id: int, player: Request) -> Outcome:
        """Money play: answer a beaver by redoubling again."""
        return await self._simple(game_id, player, m.Raccoon)

    async def resign(self, game_id: int, player: Request, level: int | str = 1) -> Outcome:
        """Offer to resign the game: single (1), gammon (2) or backgammon (3)."""
        words = ", ".join(f"{name} ({n})" for n, name in sorted(RESIGN_LEVELS.items()))
        if isinstance(level, str):
            key = level.strip().lower()
            if key not in RESIGN_NAMES and not key.isdigit():
                raise Refused(f"resign {words}")
            level = RESIGN_NAMES.get(key) or int(key)
        if level not in RESIGN_LEVELS:
            raise Refused(f"resign {words}")
        lvl = int(level)
        return await self._change(game_id, player, lambda _l, _s: [m.Resign(player.id, lvl)])

    async def answer_resignation(self, game_id: int, player: Request, accept: bool) -> Outcome:
        """Accept or reject the resignation offered to you."""
        cls = m.AcceptResignation if accept else m.RejectResignation
        return await self._simple(game_id, player, cls)

    async def forfeit(self, game_id: int, player: Request) -> Outcome:
        """Give up the whole match."""
        return await self._simple(game_id, player, m.Forfeit)

    async def timeout(self, game_id: int, player_id: str) -> Outcome:
        """``player_id`` ran out of time (an admin or test may call this; the scheduler uses :meth:`fire_timer`)."""
        return await self._simple(game_id, await self._acting_for(game_id, player_id), m.Timeout)

    async def _acting_for(self, game_id: int, player_id: str, name: str | None = None) -> Request:
        """A request the service makes for a player of a game (a timer, a held play), scoped to the game's server."""
        row = (await self._load(game_id, SYSTEM)).row
        name = name or (await self.store.player_name(player_id)) or player_id
        return Request(player_id, name, row.guild_id, "service")

    async def draft_options(self, game_id: int, who: Who) -> tuple[tuple[int, int], ...]:
        """The checker moves (from, to) that may be made next this turn, after the submoves already made."""
        loaded = await self._load(game_id, who)
        if loaded.state is None or loaded.state.phase is not Phase.MOVE:
            return ()
        return tuple(self._draft(loaded, loaded.state).options())

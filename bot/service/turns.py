"""Turns: rolls, moves, submoves, the cube, resignations, forfeits, timeouts and the end of money sessions.

A money session ends when its games are played (``games``), when either side ends it between games
(:meth:`TurnsMixin.end_session`), or at its deadline (``session_hours``): once that many hours have passed since the
challenge was accepted, the service ends the session at the first moment between games, in the same change that
finishes a game (or, when the deadline passed while nobody played, instead of the next game's first roll). The
score stands as it is; the side ahead wins the session.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine import match as m
from engine.fairdice import FairDice
from engine.i18n import _
from engine.match import Action, MatchState, Phase
from engine.turn import TurnError
from engine.variant import Variant

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
                raise Refused(self._rolled_already(state, player, _names(loaded)))
            if self._session_expired(loaded, state):
                return [m.EndSession(state.acting_member(0), deadline=True)]  # no next game: the time is up
            if fair is not None:
                dice = fair.roll(loaded.counters["rolls"])
            else:
                dice = (self.dice or self._plain_dice).roll(game_id, loaded.n_actions)
            if state.phase is Phase.OPENING:
                # Each side throws one die; ties are thrown again (each throw is recorded).
                return [m.OpeningRoll(by, dice)]
            return [m.Roll(by, dice)]

        return await self._change_once(game_id, player, decide, expected_actions=expected_actions)

    @staticmethod
    def _rolled_already(state: MatchState, player: Request, names: Mapping[str, str]) -> str:
        """Why ``roll`` is refused once the dice are thrown: the roller has them to play; a teammate who does not act
        is told who does and how to propose a play; anyone else whose turn it is."""
        assert state.roller is not None
        mover = state.acting_member(state.roller)
        if player.id == mover:
            return _("you have already rolled: play your move (or resign)")
        if player.id in state.setup.sides[state.roller]:
            how = "/bg-team propose" if player.transport == "discord" else "propose"
            return _(
                "your partner {player} acts for your team this game and plays the roll; suggest a play with {command} "
                "(e.g. {command} 13/7 8/7)"
            ).format(player=names.get(mover, mover), command=how)
        dice = f"{state.dice[0]}-{state.dice[1]}" if state.dice else ""
        return _("it is not your turn: {player} is to play {dice}").format(player=names.get(mover, mover), dice=dice)

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
            return [[s, t] for s, t, _die in draft.moves]

        return await self._change_draft(game_id, player, decide_draft)

    async def undo(self, game_id: int, player: Request) -> Outcome:
        """Take back the last submove of this turn (before the play is confirmed)."""

        def decide_draft(loaded: _Loaded, state: MatchState) -> list[list[int]]:
            self._require_mover(state, player, "undo", _names(loaded))
            draft = self._draft(loaded, state)
            if not draft.moves:
                raise Refused(_("there is nothing to undo this turn"))
            return [[s, t] for s, t, _die in draft.undo().moves]

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

    async def name_double(self, game_id: int, player: Request, value: int | str) -> Outcome:
        """Name the doublet to play after a 1-2 that earned it (Acey-deucey): 1 to 6 for 1-1 to 6-6 (``"6-6"`` too)."""
        number = doublet_number(value)
        return await self._change(game_id, player, lambda _l, _s: [m.NameDouble(player.id, number)])

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
        """Offer to resign the game at one of its rule set's results, by level or name: single (1), gammon (2) or
        backgammon (3); in Longgammon single (1) or mars (2), koks (3) with that option."""

        def decide(_loaded: _Loaded, state: MatchState) -> list[Action]:
            return [m.Resign(player.id, resign_level(state.variant, level))]

        return await self._change(game_id, player, decide)

    async def answer_resignation(self, game_id: int, player: Request, accept: bool) -> Outcome:
        """Accept or reject the resignation offered to you."""
        cls = m.AcceptResignation if accept else m.RejectResignation
        return await self._simple(game_id, player, cls)

    async def forfeit(self, game_id: int, player: Request) -> Outcome:
        """Give up the whole match (only a side's acting member of the game at hand may). In a money session between
        games nothing is charged: the session ends with the score as it stands."""
        return await self._simple(game_id, player, m.Forfeit)

    async def end_session(self, game_id: int, player: Request) -> Outcome:
        """End a money session between games (before the next game's first roll or double); the score stands."""
        return await self._simple(game_id, player, m.EndSession)

    def _session_expired(self, loaded: _Loaded, state: MatchState) -> bool:
        """Whether a money session with a deadline is between games after its hours have passed (its start is when
        the challenge was accepted; games accepted before that time was stored count from the challenge)."""
        hours = state.options.session_hours
        if not hours or not state.options.money or state.over or not state.between_games:
            return False
        started = float(loaded.row.setup.get("started_at") or loaded.row.created_at)
        return self.clock() >= started + hours * 3600.0

    async def _automatic(self, game_id: int, loaded: _Loaded, state: MatchState, n_actions: int) -> list[Action]:
        """The automatic plays (see ServiceCore), then the end of a money session whose deadline has passed, when the
        change has brought it between games."""
        out = await super()._automatic(game_id, loaded, state, n_actions)
        for action in out:
            state = m.apply(state, action)
        if self._session_expired(loaded, state):
            out.append(m.EndSession(state.acting_member(0), deadline=True))
        return out

    async def timeout(self, game_id: int, player_id: str) -> Outcome:
        """``player_id`` ran out of time (an admin or test may call this; the scheduler uses :meth:`fire_timer`)."""
        return await self._simple(game_id, await self._acting_for(game_id, player_id), m.Timeout)

    async def _acting_for(self, game_id: int, player_id: str, name: str | None = None) -> Request:
        """A request the service makes for a player of a game (a timer, a held play), scoped to the game's server."""
        row = (await self._load(game_id, SYSTEM)).row
        name = name or (await self.store.player_name(player_id, row.guild_id)) or player_id
        return Request(player_id, name, row.guild_id, "service")

    async def draft_options(self, game_id: int, who: Who) -> tuple[tuple[int, int], ...]:
        """The checker moves (from, to) that may be made next this turn, after the submoves already made."""
        loaded = await self._load(game_id, who)
        if loaded.state is None or loaded.state.phase is not Phase.MOVE:
            return ()
        return tuple(self._draft(loaded, loaded.state).options())


def doublet_number(value: int | str) -> int:
    """The doublet a player named: ``6``, ``"6"``, ``"6-6"`` or ``"66"`` is 6-6; Refused otherwise."""
    if isinstance(value, int):
        return value  # the engine refuses numbers outside 1..6, naming the range
    text = value.strip().replace("-", "").replace(" ", "")
    if len(text) == 2 and text[0] == text[1]:
        text = text[0]
    if len(text) == 1 and text in "123456":
        return int(text)
    raise Refused(
        _("name a doublet by its number, 1 to 6 (or written 6-6), not {value}").format(value=repr(value.strip()[:12]))
    )


def resign_level(variant: Variant, level: int | str) -> int:
    """The result level a player named, by number or name: the rule set's words ("mars") or the usual ones ("single",
    "gammon", "backgammon"; a level the rule set does not have is refused by the engine, which lists those it has)."""
    if isinstance(level, int):
        return level
    key = level.strip().lower()
    if key.isdigit():
        # A level is a small number: digits past a few (thousands of them are beyond what int() converts) or
        # digits other than 0-9 ("²") name none.
        if not key.isascii() or len(key.lstrip("0")) > 3:
            raise Refused(
                _("resign {results}: {level} is not one of them").format(
                    results=variant.results_text(), level=repr(key[:12] + ("…" if len(key) > 12 else ""))
                )
            )
        return int(key)
    names = dict(RESIGN_NAMES)
    for number, name in variant.results.items():
        names[name.lower()] = number
        names[name.split()[0].lower()] = number  # "single" for "single game"
        names.setdefault(_(name).lower(), number)  # the name in the player's language ("марс")
    if key.startswith("a "):
        key = key[2:]
    if key not in names:
        raise Refused(_("resign {results}: give its name or number").format(results=variant.results_text()))
    return names[key]

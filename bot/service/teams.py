"""Team consultation (Backgammon Doubles): proposals, held plays, the acting member and team threads."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from engine import i18n
from engine import match as m
from engine.controls import allowed_actions
from engine.i18n import _, listed, ngettext
from engine.match import Action, ActionError, MatchState, Phase
from engine.record import action_from_data, action_to_data
from engine.turn import TurnError
from engine.validate import IllegalPlay

from ..storage import TimerSpec
from .core import ServiceCore
from .events import _with_names
from .helpers import _deciding, _deciding_with, _Loaded, _names, json_dumps
from .types import SYSTEM, Event, EventKind, Outcome, Refused, Request


class TeamsMixin(ServiceCore):
    """Team consultation (Backgammon Doubles): proposals, held plays, the acting member and team threads."""

    # --- team consultation (Backgammon Doubles) ----------------------------------------------------
    def _team_of(self, state: MatchState, player: Request) -> int:
        if state.variant.team_size < 2:
            raise Refused(
                _("consultation is for team rule sets; {rule_set} is one against one").format(
                    rule_set=_(state.variant.display_name)
                )
            )
        for side, members in enumerate(state.setup.sides):
            if player.id in members:
                return side
        raise Refused(_("only members of a team can see or make its proposals"))

    async def propose(self, game_id: int, player: Request, text: str) -> Outcome:
        """Suggest your team's play (notation) or decision (double, roll, take, pass, beaver, accept, reject)."""
        self._check_play_text(text)
        loaded = await self._load(game_id, player)
        state = self._check_participant(loaded, player)
        side = self._team_of(state, player)
        if state.turn != side:
            raise Refused(_("your team has no decision to make now"))
        words = text.strip().lower()
        # What the acting member could do now, as the engine says (engine.controls): the one proposal table.
        kinds = [str(k) for k in allowed_actions(state, side).proposal_kinds]
        if state.phase is Phase.MOVE and "play" in kinds:
            assert state.position is not None and state.dice is not None
            try:
                play = state.variant.check_play(
                    state.position, state.dice, text, not state.moved[side], state.legal_plays()
                )
            except IllegalPlay as exc:
                raise Refused(str(exc)) from None
            kind, shown = "play", play.notation or "no move"
        elif words in kinds and words != "play":
            kind, shown = words, words
        else:
            allowed = ", ".join(k if k != "play" else _("a play") for k in kinds) or _("nothing")
            raise Refused(_("now your team may propose: {choices}").format(choices=allowed))
        pid = await self.store.add_proposal(game_id, side, player.id, kind, shown, loaded.n_actions)
        view = self._view(loaded)
        with i18n.shared():  # said in the team's thread
            text_out = _("{player} proposes {proposal} (proposal #{number}); {acting} decides.").format(
                player=player.name,
                proposal=_("no move") if shown == "no move" else shown,
                number=pid,
                acting=view.name(state.acting_member(side)),
            )
        return Outcome(
            (Event(EventKind.PROPOSAL, game_id, text_out, player.id, {"team": side, "proposal": pid}),), view
        )

    async def proposals(self, game_id: int, player: Request) -> list[dict[str, Any]]:
        """Your team's open proposals for the decision at hand (nobody else may see them)."""
        loaded = await self._load(game_id, player)
        if loaded.state is None:
            raise Refused(_("game #{game} has not started").format(game=game_id))
        side = self._team_of(loaded.state, player)
        rows = await self.store.open_proposals(game_id, side, loaded.n_actions)
        view = self._view(loaded)
        return [
            {"id": r["id"], "author": r["author"], "name": view.name(r["author"]), "kind": r["kind"], "text": r["text"]}
            for r in rows
            if r["kind"] != "held"
        ]

    async def adopt(self, game_id: int, player: Request, proposal_id: int) -> Outcome:
        """The acting member plays a teammate's proposal."""
        loaded = await self._load(game_id, player)
        state = self._check_participant(loaded, player)
        side = self._team_of(state, player)
        row = await self.store.proposal(proposal_id)
        if row is None or row["game_id"] != game_id or row["side"] != side or row["kind"] == "held":
            raise Refused(
                _("your team has no proposal #{number} in game #{game}").format(number=proposal_id, game=game_id)
            )
        if row["status"] != "open" or row["turn"] != loaded.n_actions:
            raise Refused(_("proposal #{number} was for an earlier decision").format(number=proposal_id))
        if state.acting_member(side) != player.id:
            raise Refused(
                _("only the acting member, {player}, adopts a proposal").format(
                    player=self._view(loaded).name(state.acting_member(side))
                )
            )
        kind, text = row["kind"], row["text"]
        actions_for: dict[str, Callable[[], Awaitable[Outcome]]] = {
            "double": lambda: self.double(game_id, player),
            "roll": lambda: self.roll(game_id, player),
            "take": lambda: self.take(game_id, player),
            "pass": lambda: self.pass_(game_id, player),
            "beaver": lambda: self.beaver(game_id, player),
            "raccoon": lambda: self.raccoon(game_id, player),
            "accept": lambda: self.answer_resignation(game_id, player, True),
            "reject": lambda: self.answer_resignation(game_id, player, False),
        }
        if kind == "play":
            # A teammate's proposal carries the team's agreement: no second approval is needed.
            text = "" if text == "no move" else text
            out = await self._change(
                game_id, player, _deciding_with(lambda st: m.move_from_text(st, player.id, text)), clear_draft=True
            )
        else:
            out = await actions_for[kind]()
        await self.store.close_proposal(proposal_id, "adopted")
        with i18n.shared():
            said = _("{player} adopts proposal #{number} ({proposal}).").format(
                player=player.name,
                number=proposal_id,
                proposal=_("no move") if row["text"] == "no move" else row["text"],
            )
        note = Event(EventKind.ADOPTED, game_id, said, player.id)
        return Outcome((note, *out.events), out.game, out.applied)

    async def _hold_for_teammate(
        self, game_id: int, player: Request, make: Callable[[MatchState], Action]
    ) -> Outcome | None:
        """With "both must agree", keep the acting member's play until the teammate approves (None: no hold)."""
        loaded = await self._load(game_id, player)
        state = loaded.state
        terms = loaded.row.setup.get("terms", {}) if loaded.row.setup else {}
        if state is None or terms.get("consult") != "agree" or state.variant.team_size < 2 or state.over:
            return None
        self._check_participant(loaded, player)
        self._require_mover(state, player, "play", _names(loaded))
        side = state.side_of(player.id)
        bots = terms.get("bots", {})
        mates = [p for p in state.setup.sides[side] if p != player.id and p not in bots]
        if not mates:
            return None
        try:
            action = make(state)
            m.apply(state, action)  # judged now, so an illegal play is refused at once
        except (ActionError, TurnError) as exc:
            raise Refused(_with_names(str(exc), _names(loaded))) from None
        turn = loaded.n_actions
        pid = await self.store.add_proposal(game_id, side, player.id, "held", json_dumps(action_to_data(action)), turn)
        timeout = float(terms.get("approval_seconds", 600))
        await self.store.add_timers(
            game_id, [TimerSpec("approval", self.clock() + timeout, {"proposal": pid, "actions": turn})]
        )
        view = self._view(loaded)
        from engine.notation import format_play

        shown = format_play(action.moves) if isinstance(action, m.Move) else type(action).__name__
        whole = timeout % 60 == 0
        with i18n.shared():
            text = ngettext(  # (a fraction of a minute takes the form of 2)
                "{player} wants to play {play}: waiting for {teammate} to approve (it is played anyway in {minutes} "
                "minute).",
                "{player} wants to play {play}: waiting for {teammate} to approve (it is played anyway in {minutes} "
                "minutes).",
                int(timeout // 60) if whole else 2,
            ).format(
                player=player.name,
                play=shown or _("no move"),
                teammate=view.name(mates[0]),
                minutes=i18n.decimal(timeout / 60, 0 if whole else 1),
            )
        return Outcome((Event(EventKind.HELD, game_id, text, player.id, {"team": side, "proposal": pid}),), view)

    async def approve(self, game_id: int, player: Request, accept: bool = True) -> Outcome:
        """The teammate approves (or rejects) the acting member's held play."""
        loaded = await self._load(game_id, player)
        state = self._check_participant(loaded, player)
        side = self._team_of(state, player)
        if state.acting_member(side) == player.id:
            raise Refused(_("your teammate approves your play, not you"))
        held = [r for r in await self.store.open_proposals(game_id, side, loaded.n_actions) if r["kind"] == "held"]
        if not held:
            raise Refused(_("there is no play of your team waiting for approval"))
        row = held[-1]
        if not accept:
            await self.store.close_proposal(row["id"], "rejected")
            view = self._view(loaded)
            with i18n.shared():
                text = _("{player} does not agree; {acting}, choose again.").format(
                    player=player.name, acting=view.name(state.acting_member(side))
                )
            return Outcome((Event(EventKind.REJECTED, game_id, text, player.id, {"team": side}),), view)
        with i18n.shared():
            approves = _("{player} approves.").format(player=player.name)
        return await self._play_held(game_id, row, note=approves)

    async def _play_held(self, game_id: int, row: dict[str, Any], note: str) -> Outcome:
        action = action_from_data(json.loads(row["text"]))
        if not await self.store.close_proposal(row["id"], "approved"):
            raise Refused(_("that play was already decided"))
        actor = await self._acting_for(game_id, row["author"])
        out = await self._change(game_id, actor, _deciding(action), clear_draft=True)
        return Outcome(
            (Event(EventKind.APPROVED, game_id, note, None, {"team": row["side"]}), *out.events), out.game, out.applied
        )

    # --- Backgammon Doubles: the acting member, and each team's private thread ---------------------------
    async def choose_acting(self, game_id: int, player: Request, member: str) -> Outcome:
        """Team choice (match option ``team_choice``): a team member names who acts for the team this game.

        Until the team first moves in the game (so the opponents' opening roll cannot take the choice away). The
        choice is public (everyone sees who acts); it enters the match record as a ``SetActing`` action, which
        moves no deadline.
        """
        loaded = await self._load(game_id, player)
        state = self._check_participant(loaded, player)
        if state.variant.team_size < 2:
            raise Refused(
                _("choosing the acting member is for team rule sets; {rule_set} is one against one").format(
                    rule_set=_(state.variant.display_name)
                )
            )
        side = state.side_of(player.id)
        view = self._view(loaded)
        team = state.setup.side_name(side)
        current = state.acting_member(side)
        if not state.options.team_choice:
            raise Refused(
                _(
                    "this match rotates the acting member; {player} acts for {team} in game {number} (the challenge "
                    "decides: `acting: choose` lets teams pick before each game)"
                ).format(player=view.name(current), team=team, number=state.game)
            )
        if not allowed_actions(state, side).choose_acting[side]:  # the engine says whether the choice is open
            raise Refused(
                _(
                    "{team} has moved in game {number}: {player} acts for {team} until it ends; your team chooses "
                    "again before its first move of the next game"
                ).format(team=team, number=state.game, player=view.name(current))
            )
        members = state.setup.sides[side]
        if member not in members:
            raise Refused(
                _("{player} is not on your team ({team}): choose {choices}").format(
                    player=view.name(member), team=team, choices=listed([view.name(p) for p in members], "or")
                )
            )
        if member == current:
            raise Refused(
                _("{player} already acts for {team} in game {number}").format(
                    player=view.name(member), team=team, number=state.game
                )
            )
        number = state.game
        out = await self._change(game_id, player, _deciding(m.SetActing(player.id, member)))
        with i18n.shared():
            text = _("{team}: {player} acts in game {number} (chosen by {chooser}).").format(
                team=team, player=view.name(member), number=number, chooser=view.name(player.id)
            )
        event = Event(EventKind.ACTING, game_id, text, player.id, {"side": side, "member": member, "game": number})
        return Outcome((event, *out.events), out.game, out.applied)

    async def set_team_thread(self, game_id: int, side: int, thread_id: str | None) -> None:
        """Remember a team's private thread (Discord: where teammates consult), stored with the game.

        Kept in the game's stored setup (``setup["team_threads"]``, by side), so any process, and the bot after a
        restart, finds it again. None forgets it (the thread is gone). It does not move the game's version, so
        the players' boards and buttons stay current.
        """
        if side not in (0, 1):
            raise ValueError(f"a side is 0 or 1, not {side!r}")

        def change(setup: dict[str, Any]) -> dict[str, Any]:
            threads = dict(setup.get("team_threads") or {})
            if thread_id is None:
                threads.pop(str(side), None)
            else:
                threads[str(side)] = thread_id
            return {**setup, "team_threads": threads}

        async with self._lock(game_id):
            loaded = await self._load(game_id, SYSTEM)
            if (loaded.row.setup.get("team_threads") or {}).get(str(side)) == thread_id:
                return
            stored = await self.store.update_setup(game_id, change)
            # The cached copy takes the stored threads (its version may be older; the next change reloads it).
            setup = {**loaded.row.setup, "team_threads": stored.get("team_threads", {})}
            self._remember(_Loaded(replace(loaded.row, setup=setup), loaded.state, loaded.counters))

    async def team_threads(self, game_id: int) -> dict[int, str]:
        """The private thread of each team of a game, by side, as remembered with :meth:`set_team_thread`."""
        loaded = await self._load(game_id, SYSTEM)
        return {int(k): str(v) for k, v in (loaded.row.setup.get("team_threads") or {}).items()}

"""Records: the verifiable dice record, dice statistics, exports, position ids and board images."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from engine import match as m
from engine.analysis import HintError
from engine.fairdice import dice_stats, player_rolls, verify_record
from engine.matchcard import analyse_card, match_card, replay_frames
from engine.matfile import export_mat
from engine.players import PlayerUnavailable, UnsupportedVariant
from engine.positionid import encode_position_id
from render.card import render_card
from render.replay import render_replay

from ..storage import NotFound
from .core import ServiceCore
from .helpers import _board_of, _Loaded, _names
from .types import PLAYER_DEFAULTS, Event, Refused, Request, Who, scope_of

log = logging.getLogger("gammonbot.service")


class RecordsMixin(ServiceCore):
    """Records: the verifiable dice record, dice statistics, exports, position ids and board images."""

    # --- verifiable dice ---------------------------------------------------------------------------
    async def record(self, game_id: int, who: Who) -> dict[str, Any]:
        """The match record anyone who may see the game can verify: setup, every action and the dice proof (the
        seed only once the match is over: the one place that rule lives).

        Read straight from storage, without replaying, so that even a record that no longer replays (tampered
        with) can be checked and the bad roll named.
        """
        try:
            row, logged = await self.store.load_game_and_actions(game_id, scope=scope_of(who))
        except NotFound:
            raise Refused(f"there is no game #{game_id}") from None
        if row.status == "challenge" or "match" not in row.setup:
            raise Refused(f"game #{game_id} has not started")
        proof = row.setup.get("dice")
        if proof and row.status != "finished":
            proof = {**proof, "seed": None}
        return {"setup": row.setup["match"], "actions": [a.action for a in logged], "dice": proof}

    async def verify(self, game_id: int, who: Who) -> Any:
        """Check a match's dice against its commitment (engine.fairdice.VerifyReport)."""
        record = await self.record(game_id, who)
        if not record["dice"]:
            raise Refused(f"game #{game_id} was played with dice that carry no commitment (a test or demo game)")
        return verify_record(record)

    async def dice_stats(self, who: Request, player_id: str | None = None) -> Any:
        """Counts of each number and of doublets in a player's rolls (default: the asker's) in the asker's server,
        with the expected values. In a direct message: the asker's own rolls in every server."""
        player_id = player_id or who.id
        if who.guild_id is None and player_id != who.id:
            raise Refused("in a direct message you can see only your own dice")
        rows = await self.store.games_of(player_id, scope=scope_of(who), statuses=("active", "finished", "archived"))
        rolls: list[tuple[int, int]] = []
        for row in rows:
            rolls.extend(player_rolls(await self._log(row.id), player_id))
        return dice_stats(rolls)

    async def ids_at(self, game_id: int, who: Who, after_actions: int | None = None) -> tuple[str, str]:
        """GNU Backgammon Position ID and Match ID of a position of a match (default: the current one)."""
        from engine.matchid import match_id

        loaded = await self._load(game_id, who)
        if loaded.state is None:
            raise Refused(f"game #{game_id} has not started")
        if not loaded.state.variant.gnubg_compatible:
            raise Refused(f"{loaded.state.variant.display_name} positions have no GNU Backgammon IDs")
        if after_actions is None:
            state = loaded.state
        else:
            total = loaded.n_actions
            if not 0 <= after_actions <= total:
                raise Refused(f"game #{game_id} has {total} actions; pick a number from 0 to that")
            acts = (await self._log(game_id))[:after_actions]
            state = await asyncio.to_thread(m.replay, loaded.state.setup, acts)
        pos = state.position if state.position is not None else state.variant.start_position()
        return encode_position_id(state.variant, pos), match_id(state)

    async def board(
        self,
        game_id: int,
        who: Who,
        *,
        viewer: str | None = None,
        home: str | None = None,
        theme: str | None = None,
        game_end: Event | None = None,
    ) -> Any:
        """The board image as ``viewer`` (default: the asker) sees it: a player sees their own side at the bottom
        (anyone else side 0), drawn with the viewer's ``home`` side and board ``theme`` settings unless given, with
        the players' names and the play being entered. ``game_end``: a "game-over" event of this game: the final
        position of the game it ended, with its result (seen by default by the winner). Returns a RenderedBoard."""
        loaded = await self._load(game_id, who)
        if loaded.state is None:
            raise Refused(f"game #{game_id} has not started yet")
        state = loaded.state
        ended = None
        if game_end is not None and isinstance(game_end.data.get("ended"), m.MatchState):
            state = game_end.data["ended"]
            ended = state.results[-1]
            if viewer is None and not isinstance(who, Request):
                viewer = state.acting_member(ended.winner)
        side: int = 0
        if viewer is None and isinstance(who, Request):
            viewer = who.id
        prefs: dict[str, Any] = dict(PLAYER_DEFAULTS)
        if viewer is not None:
            for k, members in enumerate(state.setup.sides):
                if viewer in members:
                    side = k
            prefs = await self.settings_of(viewer)
        home = home or prefs["home"]
        snapshot = _board_of(loaded, state, side, home, ended)
        return await self.render(snapshot, theme or prefs["theme"])

    async def render(self, snapshot: Any, theme: str | None = None) -> Any:
        """Draw a board snapshot with the configured renderer (a theme by name; "default": the configured one),
        in a worker thread so the event loop never waits for Pillow."""
        return await asyncio.to_thread(self.render_config.render_board, snapshot, theme)

    async def export(self, game_id: int, who: Who) -> str:
        """The match so far as a ``.mat`` file (GNU Backgammon, XG and Jellyfish read it)."""
        loaded = await self._load(game_id, who)
        if loaded.state is None:
            raise Refused(f"game #{game_id} has not started: nothing to export")
        setup, acts = loaded.state.setup, await self._log(game_id)
        return await asyncio.to_thread(export_mat, setup, acts)

    # --- match cards and replays --------------------------------------------------------------------
    async def match_card(
        self, game_id: int, who: Who, *, analysis: bool | None = None, theme: str | None = None
    ) -> Any:
        """The match card of a started match (render.card.RenderedCard): the score game by game, each side's dice, the
        cube actions and, when ``analysis`` (default: the match is over and a person in it asked for analyses, player
        setting ``analysis``), each side's error rate and the equity graph. Read from the record and drawn in a worker
        thread; an analysis that cannot be made (no analyst for the rule set) is left out."""
        loaded = await self._load(game_id, who)
        if loaded.state is None:
            raise Refused(f"game #{game_id} has not started: it has no match card yet")
        state = loaded.state
        if analysis is None:
            analysis = state.over and await self._analysis_wanted(loaded)
        acts = await self._log(game_id)
        names = dict(_names(loaded))
        chosen = self.render_config.theme_for(theme)
        title = f"#{game_id} {state.variant.display_name}"

        def draw() -> Any:
            figures = None
            if analysis:
                try:
                    figures = analyse_card(state.setup, acts, time_cap=0.5)[1]
                except (HintError, PlayerUnavailable, UnsupportedVariant) as exc:
                    log.info("game %s: no analysis on its card (%s)", game_id, exc)
            card = match_card(state.setup, acts, figures, names=names)
            return render_card(card, chosen, title=title, compress_level=self.render_config.compress_level)

        return await asyncio.to_thread(draw)

    async def _analysis_wanted(self, loaded: _Loaded) -> bool:
        """Whether a person (not a bot) playing in the match asked for analyses of their matches."""
        assert loaded.state is not None
        setup = loaded.row.setup
        bots = setup.get("bots") or setup.get("terms", {}).get("bots") or {}
        for side in loaded.state.setup.sides:
            for player in side:
                person = player not in bots and not player.startswith("bot:")
                if person and (await self.settings_of(player)).get("analysis"):
                    return True
        return False

    async def replay(self, game_id: int, who: Who, number: int | None = None) -> Any:
        """An animated GIF of game ``number`` of a match (default: its last game played), one frame per play, seen
        from the asker's side when they play in it (else side 0), in their board theme and home side
        (render.replay.RenderedReplay, drawn in a worker thread, under Discord's upload limit)."""
        loaded = await self._load(game_id, who)
        if loaded.state is None:
            raise Refused(f"game #{game_id} has not started: there is nothing to replay yet")
        state = loaded.state
        played = len(state.results) if state.over else state.game
        number = played if number is None else number
        if not 1 <= number <= played:
            if played == 1:
                raise Refused(f"match #{game_id} has only one game so far")
            raise Refused(f"match #{game_id} has {played} games so far: pick one from 1 to {played}")
        side, prefs = 0, dict(PLAYER_DEFAULTS)
        if isinstance(who, Request):
            for k, members in enumerate(state.setup.sides):
                if who.id in members:
                    side = k
            prefs = await self.settings_of(who.id)
        acts = await self._log(game_id)
        names = dict(_names(loaded))
        chosen = self.render_config.theme_for(prefs["theme"])

        def draw() -> Any:
            frames = replay_frames(state.setup, acts, number, viewer=side, names=names, home=prefs["home"])
            return render_replay(frames, chosen)

        try:
            return await asyncio.to_thread(draw)
        except ValueError as exc:  # longer than any picture Discord takes (no game is this long in practice)
            raise Refused(f"game {number} of match #{game_id} cannot be replayed in one picture: {exc}") from None

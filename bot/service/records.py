"""Records: the verifiable dice record, dice statistics, exports, position ids and board images."""

from __future__ import annotations

import asyncio
from typing import Any

from engine import match as m
from engine.fairdice import dice_stats, player_rolls, verify_record
from engine.matfile import export_mat
from engine.positionid import encode_position_id

from ..storage import NotFound
from .core import ServiceCore
from .types import PLAYER_DEFAULTS, Refused, Request, Who, scope_of


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
    ) -> Any:
        """The board image as ``viewer`` (default: the asker) sees it: a player sees their own side at the bottom
        (anyone else side 0), drawn with the viewer's ``home`` side and board ``theme`` settings unless given.
        Returns a RenderedBoard."""
        loaded = await self._load(game_id, who)
        if loaded.state is None:
            raise Refused(f"game #{game_id} has not started yet")
        state = loaded.state
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
        snapshot = m.board_snapshot(state, side, home="left" if home == "left" else "right")
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

"""Records: the verifiable dice record, dice statistics, exports, position ids and board images."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, NamedTuple

from engine import match as m
from engine.fairdice import pair_stats
from engine.i18n import _, ngettext
from engine.positionid import encode_position_id

from ..storage import GameRow, GameStatus, NotFound, Scope, Unavailable
from .core import ServiceCore
from .heavy import Job, analysed_from, counted_from
from .helpers import _board_of, _Loaded, _names, keep_analysis
from .jobs import (
    check_record,
    draw_card,
    draw_replay,
    export_record,
    record_of,
    replay_record,
    tally_logs,
)
from .pool import pooled
from .types import PLAYER_DEFAULTS, Event, Refused, Request, Who, asker, scope_of

log = logging.getLogger("gammonbot.service")


#: Games of a player's dice statistics counted in one worker job when they have no tally yet.
TALLY_BATCH = 50


def _sum_tallies(texts: list[str], player_id: str) -> list[int]:
    """The sum of a player's counts in stored tallies (JSON texts)."""
    pairs = [0] * 36
    for text in texts:
        for k, n in enumerate(json.loads(text).get(player_id, ())):
            pairs[k] += n
    return pairs


class CheckedRecord(NamedTuple):
    """A match record's dice check (engine.fairdice.VerifyReport), the record as JSON text (None unless asked for
    and the dice check out) and the commitment its dice were checked against."""

    report: Any
    text: str | None
    commitment: str


class RecordsMixin(ServiceCore):
    """Records: the verifiable dice record, dice statistics, exports, position ids and board images."""

    # --- verifiable dice ---------------------------------------------------------------------------
    async def _started(self, game_id: int, who: Who) -> tuple[GameRow, dict[str, Any] | None]:
        """A started game's row as stored (never replayed: a record that no longer replays can still be checked),
        and its dice proof as anyone may see it (the seed only once the match is over: the one place that rule
        lives)."""
        try:
            row = await self.store.load_game(game_id, scope=scope_of(who))
        except NotFound:
            raise Refused(_("there is no game #{game}").format(game=game_id)) from None
        if row.status == GameStatus.CHALLENGE or "match" not in row.setup:
            raise Refused(_("game #{game} has not started").format(game=game_id))
        proof = row.setup.get("dice")
        if proof and row.status != GameStatus.FINISHED:
            proof = {**proof, "seed": None}
        return row, proof

    async def record(self, game_id: int, who: Who) -> dict[str, Any]:
        """The match record anyone who may see the game can verify: setup, every action and the dice proof. Read
        straight from storage and decoded off the event loop (a long record in a worker process)."""
        row, proof = await self._started(game_id, who)
        return await self.work.on_record(self.store, game_id, record_of, (), row.setup["match"], proof)

    async def verify(self, game_id: int, who: Who) -> Any:
        """Check a match's dice against its commitment (engine.fairdice.VerifyReport)."""
        return (await self.checked_record(game_id, who, with_text=False)).report

    async def checked_record(self, game_id: int, who: Who, *, with_text: bool = True) -> CheckedRecord:
        """A match's dice checked against their commitment (engine.fairdice.VerifyReport) and, when they check out
        and ``with_text``, the match record as the JSON text anyone can check again (``gammonbot verify``).

        Off the event loop (a record of any length: a worker process when long), shared and remembered by the
        game's version (:mod:`.heavy`)."""
        row, proof = await self._started(game_id, who)
        if not proof:
            raise Refused(
                _("game #{game} was played with dice that carry no commitment (a test or demo game)").format(
                    game=game_id
                )
            )
        job = Job("record" if with_text else "verify", game_id, row.version)
        report, text = await self.heavy.run(
            job,
            asker(who),
            lambda: self.work.on_record(self.store, game_id, check_record, (), row.setup["match"], proof, with_text),
        )
        return CheckedRecord(report, text, str(proof.get("commitment", "")))

    async def dice_stats(self, who: Request, player_id: str | None = None) -> Any:
        """Counts of each number and of doublets in a player's rolls (default: the asker's) in the asker's server,
        with the expected values. In a direct message: the asker's own rolls in every server.

        Each game keeps its players' rolls as it is played (``games.dice``), so this is one read of a small text per
        game. A game played before they were kept is counted from its record once, :data:`TALLY_BATCH` games a job in
        a worker, and its tally stored."""
        player_id = player_id or who.id
        if who.guild_id is None and player_id != who.id:
            raise Refused(_("in a direct message you can see only your own dice"))
        rows = await self.store.dice_of(player_id, scope=scope_of(who))
        job = Job("dice", None, None, (player_id, who.guild_id, tuple((g, v) for g, v, _d in rows)))
        return await self.heavy.run(job, asker(who), lambda: self._dice_stats(player_id, rows))

    async def _dice_stats(self, player_id: str, rows: list[tuple[int, int, str | None]]) -> Any:
        texts = [text for _g, _v, text in rows if text is not None]
        # A player in hundreds of games: their tallies are added up in a worker thread, not on the event loop.
        many = len(texts) > 200
        pairs = await asyncio.to_thread(_sum_tallies, texts, player_id) if many else _sum_tallies(texts, player_id)
        missing = [(g, v) for g, v, text in rows if text is None]
        for start in range(0, len(missing), TALLY_BATCH):
            batch = missing[start : start + TALLY_BATCH]
            logs = [await self.store.action_log(g, scope=Scope.system()) for g, _v in batch]
            actions = sum(log.count("\n") + 1 for log in logs if log)
            tallies = await self.work.run(tally_logs, (), tuple(logs), large=pooled(actions))
            for (game_id, version), tally in zip(batch, tallies, strict=True):
                await self.store.set_dice(game_id, version, tally)
                for k, n in enumerate(tally.get(player_id, ())):
                    pairs[k] += n
        return pair_stats(pairs)

    async def ids_at(self, game_id: int, who: Who, after_actions: int | None = None) -> tuple[str, str]:
        """GNU Backgammon Position ID and Match ID of a position of a match (default: the current one)."""
        from engine.matchid import match_id

        loaded = await self._load(game_id, who)
        if loaded.state is None:
            raise Refused(_("game #{game} has not started").format(game=game_id))
        if not loaded.state.variant.gnubg_compatible:
            raise Refused(
                _("{rule_set} positions have no GNU Backgammon IDs").format(
                    rule_set=_(loaded.state.variant.display_name)
                )
            )
        if after_actions is None:
            state = loaded.state
        else:
            total = loaded.n_actions
            if not 0 <= after_actions <= total:
                raise Refused(
                    ngettext(
                        "game #{game} has {count} action; pick a number from 0 to that",
                        "game #{game} has {count} actions; pick a number from 0 to that",
                        total,
                    ).format(game=game_id, count=total)
                )
            state = await self.work.on_record(
                self.store, game_id, replay_record, (loaded.state.setup,), first=after_actions
            )
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
            raise Refused(_("game #{game} has not started yet").format(game=game_id))
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
            try:
                prefs = await self.settings_of(viewer)
            except Unavailable:
                # The board often follows an action already made: a database too busy to read the viewer's
                # settings in time must not turn it into "try again" (the move stands). Drawn the default way.
                log.info("game %s: board drawn with default settings, the database is not answering", game_id)
        home = home or prefs["home"]
        snapshot = _board_of(loaded, state, side, home, ended)
        return await self.render(snapshot, theme or prefs["theme"])

    async def render(self, snapshot: Any, theme: str | None = None) -> Any:
        """Draw a board snapshot with the configured renderer (a theme by name; "default": the configured one),
        in a worker thread so the event loop never waits for Pillow."""
        from render import board  # its render_board looked up at each call (tests trace it)

        return await asyncio.to_thread(board.render_board, snapshot, theme, config=self.render_config)

    async def export(self, game_id: int, who: Who) -> str:
        """The match so far as a ``.mat`` file (GNU Backgammon, XG and Jellyfish read it)."""
        loaded = await self._load(game_id, who)
        if loaded.state is None:
            raise Refused(_("game #{game} has not started: nothing to export").format(game=game_id))
        setup = loaded.state.setup
        # A long record is exported in a worker process (replaying it is most of the work): see pool.py.
        job = Job("export", game_id, loaded.row.version)
        return await self.heavy.run(
            job, asker(who), lambda: self.work.on_record(self.store, game_id, export_record, (setup,))
        )

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
            raise Refused(_("game #{game} has not started: it has no match card yet").format(game=game_id))
        state = loaded.state
        if analysis is None:
            analysis = state.over and await self._analysis_wanted(loaded)
        names = dict(_names(loaded))
        chosen = self.render_config.theme_for(theme)
        title = f"#{game_id} {_(state.variant.display_name)}"
        job = Job("card+analysis" if analysis else "card", game_id, loaded.row.version, (theme, *sorted(names.items())))
        # In a worker process when analysed or long (see pool.py), in the long lane when analysed.
        card, left_out, analysed = await self.heavy.run(
            job,
            asker(who),
            lambda: self.work.on_record(
                self.store,
                game_id,
                draw_card,
                (state.setup, chosen),
                analysis,
                names,
                title,
                self.render_config.compress_level,
                0.5,
                counted_from(state),
                analysed_from(state),
                large=analysis,
                lane=job.lane,
            ),
        )
        if left_out is not None:
            log.info("game %s: no analysis on its card (%s)", game_id, left_out)
        if analysed is not None and state.over:  # the match's report (analysis_report) will not make it again
            keep_analysis(self._analyses, (game_id, loaded.row.version), analysed)
        return card

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
            raise Refused(_("game #{game} has not started: there is nothing to replay yet").format(game=game_id))
        state = loaded.state
        played = len(state.results) if state.over else state.game
        number = played if number is None else number
        if not 1 <= number <= played:
            if played == 1:
                raise Refused(_("match #{game} has only one game so far").format(game=game_id))
            raise Refused(
                ngettext(
                    "match #{game} has {count} game so far: pick one from 1 to {count}",
                    "match #{game} has {count} games so far: pick one from 1 to {count}",
                    played,
                ).format(game=game_id, count=played)
            )
        side, prefs = 0, dict(PLAYER_DEFAULTS)
        if isinstance(who, Request):
            for k, members in enumerate(state.setup.sides):
                if who.id in members:
                    side = k
            prefs = await self.settings_of(who.id)
        names = dict(_names(loaded))
        chosen = self.render_config.theme_for(prefs["theme"])
        job = Job("replay", game_id, loaded.row.version, (number, side, prefs["theme"], prefs["home"], *names.items()))
        try:
            return await self.heavy.run(
                job,
                asker(who),
                lambda: self.work.on_record(
                    self.store, game_id, draw_replay, (state.setup, chosen), number, side, names, prefs["home"]
                ),
            )
        except ValueError as exc:  # longer than any picture Discord takes (no game is this long in practice)
            raise Refused(
                _("game {number} of match #{game} cannot be replayed in one picture: {reason}").format(
                    number=number, game=game_id, reason=exc
                )
            ) from None

"""Results, ratings and community: the result writer, leaderboard, profiles, history, watching, erasure."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from math import isfinite
from typing import TYPE_CHECKING, Any

from engine import i18n
from engine.i18n import _
from engine.match import MatchState
from engine.plugins import registry
from engine.ratings import Rating, RatingSystem

from ..storage import GameRow, GameStatus, TimerSpec
from ..storage.dialects import Plan
from ..storage.timers import timers_plan
from .core import ServiceCore
from .events import RATING_FAILED, _result_line
from .helpers import status_word
from .missing import NotInstalled, not_installed
from .types import FORGOTTEN, SYSTEM, GameView, Refused, Request, scope_of

log = logging.getLogger("gammonbot.plugins")


class ResultsMixin(ServiceCore):
    """Results, ratings and community: the result writer, leaderboard, profiles, history, watching, erasure."""

    # --- results, ratings and community -----------------------------------------------------------
    def _result_writer(
        self, row: GameRow, final: MatchState, now: float, changes: dict[str, Any]
    ) -> Callable[[Any], Awaitable[None]]:
        """Record a finished match and, for matches (not money), update each player's rating in that rule set."""

        def write() -> Plan:
            # Statements of the game's final update, in its transaction (on a SQLite file: one hop in all).
            changes.clear()
            setup = final.setup
            variant = setup.variant.name
            length = setup.options.length
            winner = final.winner
            rated = length > 0 and winner is not None and bool(row.setup.get("terms", {}).get("rated", True))
            system = self.ratings
            everyone = [p for side in setup.sides for p in side]
            if rated and winner is not None:
                current = yield from self.store.ratings_plan(everyone, variant, system.name, row.guild_id)
                try:  # the rating system is a plugin's: a failure leaves the match unrated, never unfinished
                    rows = new_ratings(system, setup.sides, winner, length, current)
                except Exception as exc:
                    rows, rated = [], False
                    changes[RATING_FAILED] = rating_failure(system, exc)
                for p, before, new, won in rows:
                    old = current.get(p)
                    streak = old["streak"] if old else 0
                    streak = (streak + 1 if streak > 0 else 1) if won else (streak - 1 if streak < 0 else -1)
                    yield from self.store.put_rating_plan(
                        {
                            "player_id": p,
                            "guild_id": row.guild_id,
                            "variant": variant,
                            "system": system.name,
                            "rating": new.rating,
                            "experience": new.experience,
                            "wins": (old["wins"] if old else 0) + (1 if won else 0),
                            "losses": (old["losses"] if old else 0) + (0 if won else 1),
                            "streak": streak,
                            "updated_at": now,
                        },
                        exists=old is not None,
                    )
                    changes[p] = (before, new.rating)
            data = {
                "sides": [list(s) for s in setup.sides],
                "names": dict(row.setup.get("names", {})),
                "side_names": [setup.side_name(0), setup.side_name(1)],
                "winner": winner,
                "score": list(final.score),
                "games": len(final.results),
                "display_name": setup.variant.display_name,
                "ratings": {p: list(v) for p, v in changes.items() if p != RATING_FAILED},
                "system": system.name,
            }
            tag = row.setup.get("tournament")
            if isinstance(tag, dict):
                # A tournament game: its result is recorded in the tournament by this durable timer (at once too,
                # by the change that ended it: see tour_core.py), whatever becomes of this process.
                mark = {"tournament": tag.get("id"), "match": tag.get("match")}
                yield from timers_plan(row.id, None, [TimerSpec("tour-result", now, mark)])
            yield from self.store.put_result_plan(
                game_id=row.id,
                guild_id=row.guild_id,
                variant=variant,
                length=length,
                data=data,
                rated=rated,
                finished_at=now,
                won={p: k == winner for k, side in enumerate(setup.sides) for p in side},
            )

        return self.store.statements(write)

    async def leaderboard(
        self, who: Request, variant: str, *, min_matches: int = 1, limit: int = 20
    ) -> list[dict[str, Any]]:
        """The asker's server's best players in a rule set (rated matches only), with ratings and records."""
        if who.guild_id is None:
            raise Refused(_("leaderboards belong to a server: ask in one"))
        guild_id = who.guild_id
        try:
            name = self._variant_class(variant).name
        except Refused:  # a rule set not installed now: its ratings are kept, and shown if there are any
            name = variant.strip().lower()
            if not await self.store.leaderboard(guild_id, name, self.ratings.name, min_matches=1, limit=1):
                raise
        rows = await self.store.leaderboard(guild_id, name, self.ratings.name, min_matches=min_matches, limit=limit)
        return [
            {
                "rank": k,
                "player": r["player_id"],
                "name": r["name"] or r["player_id"],
                "rating": r["rating"],
                "wins": r["wins"],
                "losses": r["losses"],
                "streak": r["streak"],
            }
            for k, r in enumerate(rows, 1)
        ]

    async def profile(self, who: Request, player_id: str | None = None, *, recent: int = 5) -> dict[str, Any]:
        """A player's ratings and records by rule set in the asker's server, current streaks and recent matches
        there. Ratings belong to a server; in a direct message only the asker's own matches are shown."""
        player_id = player_id or who.id
        if who.guild_id is None and player_id != who.id:
            raise Refused(_("in a direct message you can see only your own profile"))
        name = await self.store.player_name(player_id, who.guild_id) or player_id
        by_variant = {
            r["variant"]: {
                "rating": r["rating"],
                "experience": r["experience"],
                "wins": r["wins"],
                "losses": r["losses"],
                "streak": r["streak"],
                "unavailable": not_installed(r["variant"]),
            }
            for r in (
                await self.store.ratings_of(player_id, self.ratings.name, who.guild_id)
                if who.guild_id is not None
                else []
            )
        }
        matches = await self.store.results_of(scope=scope_of(who), player_id=player_id, limit=recent)
        return {
            "player": player_id,
            "name": name,
            "ratings": by_variant,
            "recent": [_result_line(m, player_id) for m in matches],
        }

    async def history(self, who: Request, *, player_id: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        """Finished matches of the asker's server (in a direct message: the asker's own), newest first."""
        rows = await self.store.results_of(scope=scope_of(who), player_id=player_id, limit=limit)
        return [_result_line(r, player_id) for r in rows]

    async def watch(self, game_id: int, player: Request, on: bool = True) -> GameView:
        """Follow (or stop following) a match's turn updates; anyone may watch a public match."""
        loaded = await self._load(game_id, player)
        if loaded.row.status not in (GameStatus.ACTIVE, GameStatus.CHALLENGE):
            raise Refused(
                _("game #{game} is {status}: there is nothing to watch").format(
                    game=game_id, status=status_word(loaded.row.status)
                )
            )
        await self.store.save_player(player.id, player.name, guild_id=player.guild_id)
        await self.store.watch(game_id, player.id, on)
        return self._view(loaded)

    async def watchers(self, game_id: int) -> list[str]:
        return await self.store.watchers_of(game_id)

    async def forget(self, who: Request, player_id: str) -> int:
        """A server's admins erase a player's data in that server only: their name in its games, results, match
        files and dice records (the matches stay, under a neutral name), and their vacations, watching and
        ratings there. The player's own settings, and everything in other servers, stay."""
        if who.guild_id is None:
            raise Refused(_("run forget in the server whose data it erases"))
        if not who.admin:
            raise Refused(_("only a server admin (Manage Server permission) can erase a player's data"))
        changed = await self.store.forget_player(player_id, FORGOTTEN, guild_id=who.guild_id)
        changed += await self._tour_forget(player_id, who.guild_id)
        self._cache.clear()
        self._analyses.clear()  # they name the players
        self.heavy.forget_all()  # so do the cards, records and exports it remembers
        return changed

    async def forget_me(self, who: Request) -> int:
        """A player erases their own data in every server: their name everywhere it was written (games, results,
        match files, dice records), settings, vacations, watching and ratings. The matches stay, under a neutral
        name, so opponents keep their results."""
        changed = await self.store.forget_player(who.id, FORGOTTEN, guild_id=None)
        changed += await self._tour_forget(who.id, None)
        self._cache.clear()
        self._analyses.clear()  # they name the players
        self.heavy.forget_all()  # so do the cards, records and exports it remembers
        return changed

    async def game_list(
        self,
        who: Request,
        *,
        statuses: Sequence[GameStatus] = (GameStatus.CHALLENGE, GameStatus.ACTIVE),
        limit: int | None = None,
        offset: int = 0,
        number_has: str | None = None,
        thread: str | None = None,
    ) -> list[GameRow]:
        """The asker's challenges and running games in this server (in a direct message: everywhere) as stored: one
        query, no game loaded (transports page through them and load only what they show). Those that may wait for
        the asker (their turn, a challenge to them, an opening roll) come first, then the rest, newest first; the
        database orders them and reads only ``limit`` from ``offset`` (see :meth:`Store.games_of` for
        ``number_has`` and ``thread``)."""
        return await self.store.games_of(
            who.id,
            scope=scope_of(who),
            statuses=statuses,
            waiting_first=True,
            number_has=number_has,
            thread=thread,
            limit=limit,
            offset=offset,
        )

    async def game_count(
        self, who: Request, *, statuses: Sequence[GameStatus] = (GameStatus.CHALLENGE, GameStatus.ACTIVE)
    ) -> int:
        """How many games :meth:`game_list` lists in all (one COUNT)."""
        return await self.store.count_games_of(who.id, scope=scope_of(who), statuses=statuses)

    async def my_games(self, who: Request) -> list[GameView]:
        """The asker's challenges and running games in this server (in a direct message: in every server), those
        waiting for them first, then the rest."""
        player_id = who.id
        rows = await self.store.games_of(player_id, scope=scope_of(who))
        views = []
        for row in rows:
            try:
                views.append(self._view(await self._load(row.id, SYSTEM)))
            except NotInstalled as exc:  # kept, and listed as "rule set X is not installed"
                views.append(exc.view)

        def waiting(v: GameView) -> int:
            if v.to_act == player_id:
                return 0
            if v.to_act is None and v.acting is not None and player_id in v.acting:
                return 0
            if v.status == GameStatus.CHALLENGE and player_id in v.invited:
                return 0
            return 1

        # Waiting for me first, the least time left first; then the rest, most recently moved first.
        return sorted(
            views, key=lambda v: (waiting(v), v.deadline if v.deadline is not None else float("inf"), -v.version)
        )

    if TYPE_CHECKING:

        async def _tour_forget(self, player_id: str, guild_id: str | None) -> int: ...


def new_ratings(
    system: RatingSystem, sides: Sequence[Sequence[str]], winner: int, length: int, current: dict[str, Any]
) -> list[tuple[str, float, Rating, bool]]:
    """Each player's rating before and after a rated match, and whether they won. Team play: each member is rated
    against the opposing team's average rating. Whatever the rating system raises is the caller's to contain."""
    everyone = [p for side in sides for p in side]
    standing = {
        p: Rating(current[p]["rating"], current[p]["experience"]) if p in current else system.initial()
        for p in everyone
    }
    average = [sum(standing[p].rating for p in side) / len(side) for side in sides]
    out = []
    for k, side in enumerate(sides):
        for p in side:
            me, other = standing[p], Rating(average[1 - k], 10**6)
            new = system.update(me, other, length)[0] if k == winner else system.update(other, me, length)[1]
            if not isinstance(new, Rating) or not isfinite(new.rating) or not isfinite(new.experience):
                raise TypeError(f"update returned {new!r}, not a Rating with finite numbers")
            out.append((p, me.rating, new, k == winner))
    return out


def rating_failure(system: RatingSystem, exc: BaseException) -> str:
    """A rating system that raised at the end of a match: logged naming its plugin and the hook (with the
    traceback); the words players read (the match ended, unrated)."""
    hook = plugin_hook(exc, "update")
    plugin = registry().rating_system_owners.get(getattr(system, "name", ""), type(system).__module__)
    log.error(
        "plugin %s: rating system %r, hook %s raised %s: %s (the match ended unrated)",
        plugin,
        getattr(system, "name", system),
        hook,
        type(exc).__name__,
        exc,
        exc_info=exc,
    )
    with i18n.shared():
        return _(
            "This match is not rated: the rating system {system} (plugin {plugin}) failed in {hook}. The match "
            "ended and its result is kept; the server's log has the details."
        ).format(system=getattr(system, "display_name", plugin), plugin=plugin, hook=hook)


def plugin_hook(exc: BaseException, default: str) -> str:
    """The name of the innermost function outside gammonbot's own packages that ``exc`` went through: the plugin's
    hook (``default`` when none is found)."""
    hook, tb = "", exc.__traceback__
    while tb is not None:
        module = tb.tb_frame.f_globals.get("__name__", "")
        if module.split(".")[0] not in ("engine", "bot"):
            hook = tb.tb_frame.f_code.co_name
        tb = tb.tb_next
    return hook or default


def may_wait_for(row: GameRow, player_id: str) -> bool:
    """Whether a stored game may wait for the player: a challenge to them (they sit on the challenged side, or are
    the one still to accept), or, in a running game, their turn or nobody's in particular (an opening roll, which
    each side throws). The store orders lists by the same condition in SQL (``bot.storage.parts.waits_for``)."""
    if row.status == GameStatus.CHALLENGE:
        return row.players.get(player_id) == 1 or row.turn_player == player_id
    return row.turn_player in (None, player_id)

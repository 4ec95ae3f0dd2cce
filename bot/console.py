"""``gammonbot console``: the same game service in a terminal, for trying the bot without Discord.

Players join by name and type the commands they would use on Discord. A line may start with a player's
name and a colon (``alice: roll``), or ``as alice`` switches who is typing. Boards are printed as ASCII
and, with ``--boards DIR``, written as PNG files. ``--lang ru`` (el, tr; else ``GAMMONBOT_LANG``, else English) runs
the whole session in that language, boards included. Reads standard input, so a script can play whole games::

    printf 'as alice\\nplay bob backgammon 1\\nas bob\\naccept\\n' | gammonbot console --db /tmp/g.sqlite3
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shlex
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TextIO

from engine import i18n
from engine.ascii import ascii_board
from engine.i18n import N_, _, listed
from engine.match import MatchState, Phase

from .config import Settings
from .console_args import (
    boards_unwritable,
    option_word,
    pairs,
    player_ref,
    point,
    proposal_number,
    server_changes,
    typed_pairs,
    write_file,
)
from .console_io import Interrupt
from .console_text import dice_text, game_line, help_text, offer_words, prompt, unknown_command, verify_text
from .console_tour import print_news, tour_clock, tour_command
from .service import (
    EventKind,
    GameService,
    GameStatus,
    GameView,
    Outcome,
    PlayerRef,
    Refused,
    Request,
    SeededDice,
    not_installed,
    service_for,
)
from .service.tour_parts import TourNews
from .storage.opening import open_store

__all__ = ["Console", "run_console"]

#: Commands that act on one game besides the turn actions (a game number may follow them).
GAME_COMMANDS = ("sub", "hint", "verify", "plays", "board", "ids", "id", "proposals", "export")

#: What Python's shlex says of a line it cannot split (a quote left open), for the catalog.
SHLEX_ERRORS = (N_("No closing quotation"), N_("No escaped character"))


class Console:
    """One console session: who is typing, each player's current game, and where boards go. ``lang``: the language
    every line is answered in (the user's and the shared one: everything the console prints, boards included); None
    leaves the language of the caller's context (English unless the caller chose one)."""

    def __init__(
        self,
        service: GameService,
        out: TextIO,
        *,
        boards: Path | None = None,
        guild: str = "console",
        lang: str | None = None,
    ) -> None:
        self.service = service
        self.out = out
        self.boards = boards
        self.guild = guild
        self.lang = lang
        self.player: Request | None = None
        self.current: dict[str, int] = {}
        self.images = 0
        self.typed = ""  # the line being run, as typed (after a NAME: prefix)
        self.switched: Request | None = None  # set by ``as NAME`` (a NAME: prefix lasts one line)
        self.game: int | None = None  # the game the line acts on (named in its refusals)
        service.on_tournament(self._tour_news)  # tournaments' pairings, results and decisions, as they happen

    async def _tour_news(self, news: TourNews) -> None:
        with self._language():
            await print_news(self, news)

    def _language(self) -> contextlib.AbstractContextManager[None]:
        return i18n.use(self.lang) if self.lang is not None else contextlib.nullcontext()

    def say(self, text: str) -> None:
        self.out.write(text + "\n")

    async def handle(self, line: str) -> bool:
        """Run one line; False when the session should end."""
        line = line.strip()
        if not line or line.startswith("#"):
            return True
        typist = self.player
        head, sep, rest = line.partition(":")
        if sep and head and " " not in head.strip() and "/" not in head:
            # ``bob: roll`` is typed as bob for this one line; ``as bob`` changes who types from now on.
            self.player = self._request(head.strip())
            line = rest.strip()
        self.typed = line
        try:
            with self._language():
                await tour_clock(self)  # tournaments' deadlines and reminders that came due, before the line runs
                return await self._run(line)
        finally:
            if self.switched is None:
                self.player = typist
            self.switched = None

    async def _run(self, line: str) -> bool:
        try:
            words = shlex.split(line)
        except ValueError as exc:
            self.say(f"! {_(str(exc))}")  # shlex's own words (SHLEX_ERRORS)
            return True
        if not words:
            return True
        cmd, args = words[0].lower(), words[1:]
        if cmd in ("quit", "exit"):
            return False
        self.game = None
        try:
            await self._dispatch(cmd, args)
        except Refused as exc:
            self.say(f"! {await self._named(str(exc))}")
        return True

    async def _several(self, pid: str) -> bool:
        """Whether a player has more than one game going on or waiting (then every prompt and refusal names it)."""
        views = await self.service.my_games(self._request(pid))
        return sum(v.status in (GameStatus.ACTIVE, GameStatus.CHALLENGE) for v in views) > 1

    async def _named(self, text: str, game: int | None = None, pid: str | None = None) -> str:
        """``text`` about a game (the one the line acted on), preceded by its number when the player has several."""
        game = self.game if game is None else game
        pid = pid or (self.player.id if self.player else None)
        if game is None or pid is None or f"#{game}" in text or not await self._several(pid):
            return text
        return f"#{game}: {text}"

    async def _dispatch(self, cmd: str, args: list[str]) -> None:
        svc = self.service
        if cmd == "help":
            self.say(help_text(args[0] if args else None))
            return
        if cmd in ("as", "join"):
            if not args:
                raise Refused(_("as NAME"))
            self.player = self.switched = self._request(args[0])
            self.say(_("you are {name}").format(name=args[0]))
            return
        if cmd == "variants":
            for cls in svc.variants():
                aliases = _(" (also {aliases})").format(aliases=", ".join(cls.aliases)) if cls.aliases else ""
                self.say(f"{cls.name}: {_(cls.display_name)}{aliases}")
            return
        if cmd == "rules":
            self.say(svc.rules(args[0] if args else "backgammon"))
            return
        if cmd == "clocks":
            for tc in svc.time_controls():
                self.say(f"{tc.name}: {tc.describe()}")
            return
        if cmd == "bots":
            for spec in svc.bots_for(args[0] if args else "backgammon"):
                self.say(f"{spec.name}: {_(spec.display_name)} [{_(spec.strength)}]")
            return
        me = self._me()
        if cmd == "tour":
            await tour_command(self, me, args)
            return
        if cmd == "play":
            await self._challenge(me, args)
            return
        if cmd == "games":
            views = await svc.my_games(me)
            if not views:
                self.say(_("no games"))
            for v in views:
                self.say(await self._line(v))
            return
        if cmd == "use":
            if not args:
                raise Refused(_("use GAME: give a game number (games lists yours)"))
            view = await svc.view(self._game_id(args), me)  # refused when there is no such game here
            self.current[me.id] = view.id
            self.say(_("now on {game}").format(game=await self._line(view)))
            return
        if cmd == "settings":
            changes = pairs(args)
            settings = await svc.player_settings(me, **changes)
            self.say(typed_pairs(settings))
            return
        if cmd == "server":
            settings = await svc.guild_settings(me, **server_changes(self.typed))
            shown = {**settings, "default_options": repr(svc.options_text(settings["default_options"]))}
            self.say(typed_pairs(shown))
            return
        if cmd == "vacation":
            if not args:
                raise Refused(_("vacation DAYS"))
            try:
                days = float(args[0])
            except ValueError:
                raise Refused(_("vacation DAYS: {text} is not a number of days").format(text=repr(args[0]))) from None
            until = await svc.vacation(me, days)
            when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(until))
            self.say(_("on vacation until {when}").format(when=when))
            return
        if cmd == "leaderboard":
            rows = await svc.leaderboard(me, args[0] if args else "backgammon")
            if rows and args and not_installed(args[0].strip().lower()):
                reason = not_installed(args[0].strip().lower())
                self.say(_("({reason}: its ratings are kept)").format(reason=reason))
            for r in rows:
                rating = i18n.decimal(r["rating"], 1)
                self.say(f"{r['rank']:2d}. {r['name']:<20} {rating:>7}  {r['wins']}-{r['losses']}")
            if not rows:
                self.say(_("no rated matches yet"))
            return
        if cmd == "profile":
            info = await svc.profile(me, args[0].lower() if args else me.id)
            self.say(f"{info['name']}")
            for variant, r in info["ratings"].items():
                note = f" ({r['unavailable']})" if r.get("unavailable") else ""
                line = _("  {rule_set}: {rating} ({wins}-{losses}, streak {streak}){note}").format(
                    rule_set=variant,
                    rating=i18n.decimal(r["rating"], 1),
                    wins=r["wins"],
                    losses=r["losses"],
                    streak=f"{r['streak']:+d}",
                    note=note,
                )
                self.say(line)
            return
        if cmd == "dice":
            who = player_ref(args[0]) if args else me.actor
            self.say(dice_text(who.name, await svc.dice_stats(me, who.id)))
            return
        if cmd in ("accept", "decline", "reject"):
            await self._answer(me, cmd, args)
            return
        actions: dict[str, Callable[[], Awaitable[Outcome]]] = {
            "roll": lambda: svc.roll(game_id, me),
            "double": lambda: svc.name_double(game_id, me, args[0]) if naming else svc.double(game_id, me),
            "name": lambda: svc.name_double(game_id, me, args[0] if args else ""),
            "take": lambda: svc.take(game_id, me),
            "pass": lambda: svc.pass_(game_id, me),
            "drop": lambda: svc.pass_(game_id, me),
            "beaver": lambda: svc.beaver(game_id, me),
            "raccoon": lambda: svc.raccoon(game_id, me),
            "undo": lambda: svc.undo(game_id, me),
            "confirm": lambda: svc.confirm(game_id, me),
            "forfeit": lambda: svc.forfeit(game_id, me),
            "end": lambda: svc.end_session(game_id, me),  # a money session, between games
            "move": lambda: svc.move(game_id, me, " ".join(args)),
            "resign": lambda: svc.resign(game_id, me, args[0] if args else 1),
            "propose": lambda: svc.propose(game_id, me, " ".join(args)),
            "adopt": lambda: svc.adopt(game_id, me, proposal_number(args)),
            "approve": lambda: svc.approve(game_id, me, not args or args[0].lower() not in ("no", "reject", "false")),
        }
        if cmd not in actions and cmd not in GAME_COMMANDS:
            raise Refused(unknown_command(cmd))
        # The words after these commands are no game number: they act on the current game.
        worded = ("move", "sub", "resign", "export", "hint", "propose", "adopt", "approve", "name")
        # "double 6" names a doublet after a 1-2 (Acey-deucey) when the current game waits for one.
        naming = cmd == "double" and len(args) == 1 and args[0].replace("-", "") in ("11", "22", "33", "44", "55", "66")
        if cmd == "double" and len(args) == 1 and args[0] in tuple("123456") and not naming:
            with contextlib.suppress(Refused):  # no current game: the number is a game's
                naming = (await svc.view(await self._target(me, [], live=True), me)).phase == str(Phase.NAME_DOUBLE)
        game_id = self.game = await self._target(me, [] if cmd in worded or naming else args, live=cmd in actions)
        if cmd in actions:
            await self._show(await actions[cmd](), me)
        elif cmd == "sub":
            if len(args) != 1 or "/" not in args[0]:
                raise Refused(_("sub FROM/TO, for example sub 13/7 or sub bar/22"))
            src, dst = (point(p) for p in args[0].split("/"))
            await self._show(await svc.submove(game_id, me, src, dst), me)
        elif cmd == "hint":
            advice = await svc.hint(game_id, me)
            self.say("\n".join(advice.lines()))
        elif cmd == "verify":
            self.say(verify_text(game_id, await svc.verify(game_id, me)))
        elif cmd == "plays":
            view = await svc.view(game_id, me)
            self.say("\n".join(view.plays) if view.plays else _("no roll to play"))
        elif cmd == "board":
            await self._board(await svc.view(game_id, me), me.id)
        elif cmd in ("ids", "id"):
            position_id, match_id = await svc.ids_at(game_id, me)
            self.say(
                _("Position ID: {position_id}\nMatch ID:    {match_id}").format(
                    position_id=position_id, match_id=match_id
                )
            )
        elif cmd == "proposals":
            rows = await svc.proposals(game_id, me)
            for r in rows:
                self.say(_("#{id} {proposal} (by {name})").format(id=r["id"], proposal=r["text"], name=r["name"]))
            self.say(
                _("the acting member plays one with adopt NUMBER") if rows else _("your team has no open proposals")
            )
        elif cmd == "export":
            text = await svc.export(game_id, me)
            if args:
                write_file(args[0], text)
                self.say(_("wrote {file}").format(file=args[0]))
            else:
                self.say(text.rstrip())

    def _request(self, name: str) -> Request:
        """Everyone at the console is in one server (``guild``) and may change its settings."""
        return Request(name.lower(), name, self.guild, "console", admin=True)

    def _me(self) -> Request:
        if self.player is None:
            raise Refused(_("who are you? type: as NAME"))
        return self.player

    @staticmethod
    def _game_id(args: list[str]) -> int:
        try:
            return int(args[0].lstrip("#"))
        except ValueError:
            raise Refused(_("{text} is not a game number").format(text=repr(args[0]))) from None

    async def _target(self, me: Request, args: list[str], *, live: bool = False) -> int:
        """The game a command acts on: the number typed; else the current game while it goes on (or, unless the command
        is a turn action, ``live``, waits for answers to its challenge); else your one game that goes on, which becomes
        current (after a match, the next one); else the current game."""
        if args:
            return self._game_id(args)
        current = self.current.get(me.id)
        view = await self.service.view(current, me) if current is not None else None
        if view is not None and (
            view.status == GameStatus.ACTIVE or (view.status == GameStatus.CHALLENGE and not live)
        ):
            return view.id
        going = [v.id for v in await self.service.my_games(me) if v.status == GameStatus.ACTIVE]
        if len(going) == 1:
            self.current[me.id] = going[0]
            return going[0]
        if view is not None and not (live and going):
            return view.id
        if going:
            numbers = ", ".join(f"#{n}" for n in going)
            raise Refused(
                _("you play several games ({numbers}): pick one with use GAME, or give its number").format(
                    numbers=numbers
                )
            )
        raise Refused(_("no current game: start one with play, or pick one with use GAME (see games)"))

    async def _challenge(self, me: Request, args: list[str]) -> None:
        if not args:
            raise Refused(_("play OPPONENT|open [VARIANT] [LENGTH|money] [key=value ...]"))
        first = args[0].lower()
        bot: str | None = None
        if first == "bot" or first.startswith("bot:"):
            bot = first.split(":", 1)[1] if ":" in first else "strong"
            opponent = None
        else:
            opponent = None if first == "open" else player_ref(args[0])
        clock: str | None = None
        consult = "free"
        variant: str | None = None
        length: int | None = None
        options: list[str] = []  # option words, read by the service as one options string
        people: dict[str, PlayerRef] = {}
        for word in args[1:]:
            if "=" in word:
                key, value = word.split("=", 1)
                if key in ("teammate", "partner"):
                    people[key] = player_ref(value)
                elif key == "clock":
                    clock = value
                elif key == "consult":
                    consult = value
                else:
                    options.append(word)
            elif word.isdigit():
                length = int(word)
            elif word.startswith("-") and word[1:].isdigit():
                raise Refused(
                    _("a match length cannot be negative ({length}): give 1 or more points, or money").format(
                        length=word
                    )
                )
            elif word.lower() == "money":
                length = 0
            elif variant is None and not option_word(word):
                variant = word
            else:
                options.append(word)
        out = await self.service.challenge(
            me,
            opponent,
            variant=variant,
            length=length,
            options=" ".join(options),
            teammate=people.get("teammate"),
            opponent_teammate=people.get("partner"),
            time_control=clock,
            bot=bot,
            consult=consult,
        )
        self.current[me.id] = out.game.id
        if length == 0 and "money" not in (w.lower() for w in args[1:]):
            self.say(_("Length 0 means no match length: this is a money session (you may type money instead of 0)."))
        await self._show(out, me)

    async def _answer(self, me: Request, cmd: str, args: list[str]) -> None:
        svc = self.service
        game_id = self.game = self._game_id(args) if args else await self._answered(me, cmd)
        view = await svc.view(game_id, me)
        if view.status != GameStatus.CHALLENGE:
            await self._show(await svc.answer_resignation(game_id, me, cmd == "accept"), me)
            return
        # A team challenge starts once each player it names has accepted (the service keeps who has).
        out = await (svc.accept(game_id, me) if cmd == "accept" else svc.decline(game_id, me))
        for pid in {p for side in out.game.sides for p in side} if out.game.status == GameStatus.ACTIVE else ():
            # A new match becomes current for each of its players whose current game is over (or who has none).
            old = self.current.get(pid)
            if (
                old is None
                or old == game_id
                or (await svc.view(old, me)).status not in (GameStatus.ACTIVE, GameStatus.CHALLENGE)
            ):
                self.current[pid] = game_id
        self.current[me.id] = game_id
        await self._show(out, me)

    async def _answered(self, me: Request, cmd: str) -> int:
        """The game ``accept``/``decline``/``reject`` answers: the one challenge or resignation waiting for the
        player's answer (the current game first); several: refused, naming them and how to pick one."""
        offered = [v for v in await self.service.my_games(me) if self._asks_answer(v, me.id, cmd)]
        current = self.current.get(me.id)
        if any(v.id == current for v in offered) or (not offered and current is not None):
            return current  # type: ignore[return-value]
        if len(offered) == 1:
            return offered[0].id
        if not offered:
            raise Refused(_("{command} what? nothing waits for your answer: give a game number").format(command=cmd))
        games = listed([f"#{v.id} ({offer_words(v)})" for v in offered])
        raise Refused(
            _("{command} which game? {games}: type {command} NUMBER, e.g. {command} {number}").format(
                command=cmd, games=games, number=offered[0].id
            )
        )

    def _asks_answer(self, view: GameView, pid: str, cmd: str) -> bool:
        if view.status == GameStatus.CHALLENGE:
            return pid in self._asked(view)
        return cmd in ("accept", "reject", "decline") and view.phase == str(Phase.RESIGNED) and view.to_act == pid

    def _asked(self, view: GameView) -> tuple[str, ...]:
        """Who must still accept a challenge: everyone it names but the challenger (a team challenge: each until they
        have; see GameView.awaiting)."""
        if view.status != GameStatus.CHALLENGE:
            return ()
        if len(view.sides[0]) > 1:
            return view.awaiting
        return tuple(dict.fromkeys(p for side in view.sides for p in side if p != view.challenger))

    async def _state(self, view: GameView) -> MatchState | None:
        if view.status == GameStatus.CHALLENGE or view.status == GameStatus.DECLINED or view.unavailable:
            return None
        return await self.service.state(view.id, self._request(view.sides[0][0]))

    async def _show(self, out: Outcome, me: Request) -> None:
        view = out.game
        state = await self._state(view)
        turns = [i for i, e in enumerate(out.events) if e.kind == EventKind.TURN]
        for i, event in enumerate(out.events):
            text = event.text
            if event.kind == EventKind.TURN and state is not None:
                # What the player may do, as the engine says now (the last turn is the one that stands).
                text = (prompt(view, state) if i == turns[-1] else None) or text.replace(" (or double)", "")
                text = await self._named(text, view.id, me.id)
                if view.to_act and not text.startswith("#"):  # the one to act has several games
                    text = await self._named(text, view.id, view.to_act)
            elif event.kind == EventKind.CHALLENGE and view.status == GameStatus.CHALLENGE:
                text = self._challenge_text(text, view)
            self.say(text)
        for side in view.sides:
            for pid in side:
                self.current.setdefault(pid, view.id)
        if (
            view.status == GameStatus.ACTIVE
            and view.phase == str(Phase.MOVE)
            and any(e.kind in (EventKind.ROLL, EventKind.OPENING, EventKind.NAME_DOUBLE) for e in out.events)
        ):
            await self._board(view, view.to_act or me.id)
        if self.boards is not None and view.status in (GameStatus.ACTIVE, GameStatus.FINISHED):
            await self._png(view, view.to_act or me.id)

    def _challenge_text(self, text: str, view: GameView) -> str:
        """The challenge with every player it names (the challenger's teammate too), and who answers it."""
        asked = [view.name(p) for p in self._asked(view)]
        terms = re.search(r" to (.+ \(game #\d+\)\..*)$", text)
        if len(view.sides[0]) > 1 and terms:  # the service's English words (another language's are shown as they are)
            teams = [" & ".join(view.name(p) for p in dict.fromkeys(side)) for side in view.sides]
            text = _("{team} challenge {opponents} to {terms}").format(
                team=teams[0], opponents=teams[1], terms=terms.group(1)
            )
        who = ", ".join(asked) if asked else _("anyone")
        if len(asked) > 1:
            return _("{challenge}\n{who}: type accept (each of you) or decline.").format(challenge=text, who=who)
        return _("{challenge}\n{who}: type accept or decline.").format(challenge=text, who=who)

    async def _board(self, view: GameView, viewer: str) -> None:
        state = await self._state(view)
        if state is None:
            self.say(await self._line(view))
            return
        side = view.side_of(viewer)
        side = 0 if side is None else side
        pos = state.position_for(side)
        names = (view.name(state.acting_member(side)), view.name(state.acting_member(1 - side)))
        dice = state.dice if state.phase is Phase.MOVE else None  # whoever rolled them: the footer says who is on roll
        on_roll = state.roller is None or state.roller == side
        self.say(ascii_board(state.variant, pos, dice=dice, names=names, x_on_roll=on_roll))
        self.say(await self._line(view))
        if view.plays and view.to_act == viewer:
            shown = ", ".join(view.plays[:8])
            if len(view.plays) > 8:
                shown = _("{plays} … ({count} in all)").format(plays=shown, count=len(view.plays))
            self.say(_("legal plays: {plays}").format(plays=shown))

    async def _png(self, view: GameView, viewer: str) -> None:
        assert self.boards is not None
        rendered = await self.service.board(view.id, self._request(viewer))
        self.images += 1
        try:
            self.boards.mkdir(parents=True, exist_ok=True)
            (self.boards / f"game{view.id}-{self.images:04d}.png").write_bytes(rendered.png)
        except OSError as exc:  # the folder went away or cannot be written: the game goes on without pictures
            self.say(boards_unwritable(self.boards, exc))
            self.boards = None

    async def _line(self, view: GameView) -> str:
        return game_line(view, await self._state(view), self._asked(view))


async def run_console(
    url: str,
    inp: TextIO,
    out: TextIO,
    *,
    boards: Path | None = None,
    seed: int | None = None,
    settings: Settings | None = None,
    lang: str | None = None,
) -> int:
    """Play from ``inp`` until it ends (or ``quit``); returns an exit status. ``settings``: the loaded config.toml
    (server defaults, rating system, limits and board themes; default: the built-in settings). ``lang``: the
    session's language (``--lang``: a shipped language, see engine.i18n.LANGUAGES), the user's and the shared one,
    for everything the session prints and draws; None: the caller's (English unless chosen)."""
    if lang is not None and i18n.normalize(lang) is None:
        raise ValueError(f"run_console: no language {lang!r} (languages: {', '.join(i18n.LANGUAGES)})")
    with i18n.use(lang) if lang is not None else contextlib.nullcontext():
        return await _session(url, inp, out, boards, seed, settings or Settings(), lang)


async def _session(
    url: str, inp: TextIO, out: TextIO, boards: Path | None, seed: int | None, settings: Settings, lang: str | None
) -> int:
    store = await open_store(  # CannotOpen: one line, for the command line to print
        url,
        sqlite_synchronous=settings.sqlite_synchronous,
        pool_size=settings.pool_size,
        settings_ttl=settings.settings_ttl,
        acquire_timeout=settings.storage.acquire_timeout,
        statement_timeout=settings.storage.statement_timeout,
    )
    service = service_for(store, settings, dice=SeededDice(seed) if seed is not None else None)
    console = Console(service, out, boards=boards, lang=lang)
    interactive = inp.isatty()
    try:
        with Interrupt() as stop:  # Ctrl-C ends the session at once, as the end of the input does
            while True:
                if interactive:
                    out.write(f"{console.player.name if console.player else ''}> ")
                    out.flush()
                line = stop.readline(inp)
                if not line:
                    break
                if not interactive and line.strip() and not line.lstrip().startswith("#"):
                    out.write(f"> {line.strip()}\n")
                keep = await stop.run(console.handle(line))
                out.flush()
                if not keep:
                    break
    except KeyboardInterrupt:
        pass
    finally:
        if interactive:
            out.write("\n")
        out.flush()
        await service.close()  # its worker processes, if any started
        await store.close()
    return 0


def main_console(args: Any) -> int:
    boards = Path(args.boards) if args.boards else None
    lang = getattr(args, "lang", None)
    return asyncio.run(run_console(args.db, sys.stdin, sys.stdout, boards=boards, seed=args.seed, lang=lang))

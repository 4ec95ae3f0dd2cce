"""``gammonbot console``: the same game service in a terminal, for trying the bot without Discord.

Players join by name and type the commands they would use on Discord. A line may start with a player's
name and a colon (``alice: roll``), or ``as alice`` switches who is typing. Boards are printed as ASCII
and, with ``--boards DIR``, written as PNG files. Reads standard input, so a script can play whole games::

    printf 'as alice\\nplay bob backgammon 1\\nas bob\\naccept\\n' | gammonbot console --db /tmp/g.sqlite3
"""

from __future__ import annotations

import asyncio
import shlex
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TextIO

from engine.ascii import ascii_board
from engine.match import Phase

from .config import Settings
from .service import GameService, GameView, Outcome, PlayerRef, Refused, Request, SeededDice, service_for
from .storage import Store

__all__ = ["Console", "run_console"]

HELP = """\
Commands (prefix a line with NAME: to act as NAME, or type: as NAME):
  play OPPONENT|open [VARIANT] [LENGTH|money] [key=value ...]   challenge (Doubles: teammate=X partner=Y)
  accept [ID]  decline [ID]        answer a challenge (accept/reject also answer a resignation)
  roll  move 13/7 8/7  sub 13/7  undo  confirm  plays
  double  take  pass  beaver  raccoon  resign [single|gammon|backgammon]  reject  forfeit
  board  games  use ID  variants  rules NAME  export [FILE]  settings [key=value ...]
  play bot[:NAME] [VARIANT] [LENGTH]   play the computer (bots: list them)   hint
  clocks  (play ... clock=NAME)   vacation DAYS   verify [ID]   dice   leaderboard [VARIANT]   profile [NAME]
  server key=value ...  (server admin settings)  help  quit"""


class Console:
    """One console session: who is typing, each player's current game, and where boards go."""

    def __init__(
        self, service: GameService, out: TextIO, *, boards: Path | None = None, guild: str = "console"
    ) -> None:
        self.service = service
        self.out = out
        self.boards = boards
        self.guild = guild
        self.player: Request | None = None
        self.current: dict[str, int] = {}
        self.images = 0

    def say(self, text: str) -> None:
        self.out.write(text + "\n")

    async def handle(self, line: str) -> bool:
        """Run one line; False when the session should end."""
        line = line.strip()
        if not line or line.startswith("#"):
            return True
        head, sep, rest = line.partition(":")
        if sep and head and " " not in head.strip() and "/" not in head:
            self.player = self._request(head.strip())
            line = rest.strip()
        try:
            words = shlex.split(line)
        except ValueError as exc:
            self.say(f"! {exc}")
            return True
        if not words:
            return True
        cmd, args = words[0].lower(), words[1:]
        if cmd in ("quit", "exit"):
            return False
        try:
            await self._dispatch(cmd, args)
        except Refused as exc:
            self.say(f"! {exc}")
        return True

    async def _dispatch(self, cmd: str, args: list[str]) -> None:
        svc = self.service
        if cmd == "help":
            self.say(HELP)
            return
        if cmd in ("as", "join"):
            if not args:
                raise Refused("as NAME")
            self.player = self._request(args[0])
            self.say(f"you are {args[0]}")
            return
        if cmd == "variants":
            for cls in svc.variants():
                aliases = f" (also {', '.join(cls.aliases)})" if cls.aliases else ""
                self.say(f"{cls.name}: {cls.display_name}{aliases}")
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
                self.say(f"{spec.name}: {spec.display_name} [{spec.strength}]")
            return
        me = self._me()
        if cmd == "play":
            await self._challenge(me, args)
            return
        if cmd == "games":
            views = await svc.my_games(me)
            if not views:
                self.say("no games")
            for v in views:
                self.say(self._line(v, me.id))
            return
        if cmd == "use":
            self.current[me.id] = self._game_id(args)
            self.say(f"game #{self.current[me.id]}")
            return
        if cmd == "settings":
            changes = _pairs(args)
            settings = await svc.player_settings(me, **changes)
            self.say(" ".join(f"{k}={v}" for k, v in settings.items()))
            return
        if cmd == "server":
            changes = _pairs(args)
            settings = await svc.guild_settings(me, **changes)
            self.say(" ".join(f"{k}={v}" for k, v in settings.items()))
            return
        if cmd == "vacation":
            if not args:
                raise Refused("vacation DAYS")
            until = await svc.vacation(me, float(args[0]))
            self.say(f"on vacation until {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(until))}")
            return
        if cmd == "leaderboard":
            rows = await svc.leaderboard(me, args[0] if args else "backgammon")
            for r in rows:
                self.say(f"{r['rank']:2d}. {r['name']:<20} {r['rating']:7.1f}  {r['wins']}-{r['losses']}")
            if not rows:
                self.say("no rated matches yet")
            return
        if cmd == "profile":
            info = await svc.profile(me, args[0].lower() if args else me.id)
            self.say(f"{info['name']}")
            for variant, r in info["ratings"].items():
                self.say(f"  {variant}: {r['rating']:.1f} ({r['wins']}-{r['losses']}, streak {r['streak']:+d})")
            return
        if cmd == "dice":
            stats = await svc.dice_stats(me, args[0].lower() if args else me.id)
            self.say(str(stats))
            return
        if cmd in ("accept", "decline", "reject"):
            await self._answer(me, cmd, args)
            return
        game_id = (
            self._game_id([]) if not args or cmd in ("move", "sub", "resign", "export", "hint") else self._game_id(args)
        )
        actions: dict[str, Callable[[], Awaitable[Outcome]]] = {
            "roll": lambda: svc.roll(game_id, me),
            "double": lambda: svc.double(game_id, me),
            "take": lambda: svc.take(game_id, me),
            "pass": lambda: svc.pass_(game_id, me),
            "drop": lambda: svc.pass_(game_id, me),
            "beaver": lambda: svc.beaver(game_id, me),
            "raccoon": lambda: svc.raccoon(game_id, me),
            "undo": lambda: svc.undo(game_id, me),
            "confirm": lambda: svc.confirm(game_id, me),
            "forfeit": lambda: svc.forfeit(game_id, me),
            "move": lambda: svc.move(game_id, me, " ".join(args)),
            "resign": lambda: svc.resign(game_id, me, args[0] if args else 1),
        }
        if cmd in actions:
            await self._show(await actions[cmd](), me)
        elif cmd == "sub":
            if len(args) != 1 or "/" not in args[0]:
                raise Refused("sub FROM/TO, for example sub 13/7 or sub bar/22")
            src, dst = (_point(p) for p in args[0].split("/"))
            await self._show(await svc.submove(game_id, me, src, dst), me)
        elif cmd == "hint":
            advice = await svc.hint(game_id, me)
            self.say("\n".join(advice.lines()))
        elif cmd == "verify":
            report = await svc.verify(game_id, me)
            self.say(str(report))
        elif cmd == "plays":
            view = await svc.view(game_id, me)
            self.say("\n".join(view.plays) if view.plays else "no roll to play")
        elif cmd == "board":
            await self._board(await svc.view(game_id, me), me.id)
        elif cmd == "export":
            text = await svc.export(game_id, me)
            if args:
                Path(args[0]).write_text(text)
                self.say(f"wrote {args[0]}")
            else:
                self.say(text.rstrip())
        else:
            raise Refused(f"unknown command {cmd!r}; type help")

    def _request(self, name: str) -> Request:
        """Everyone at the console is in one server (``guild``) and may change its settings."""
        return Request(name.lower(), name, self.guild, "console", admin=True)

    def _me(self) -> Request:
        if self.player is None:
            raise Refused("who are you? type: as NAME")
        return self.player

    def _game_id(self, args: list[str]) -> int:
        if args:
            try:
                return int(args[0].lstrip("#"))
            except ValueError:
                raise Refused(f"{args[0]!r} is not a game number") from None
        me = self._me()
        if me.id not in self.current:
            raise Refused("no current game: start one with play, or pick one with use ID (see games)")
        return self.current[me.id]

    async def _challenge(self, me: Request, args: list[str]) -> None:
        if not args:
            raise Refused("play OPPONENT|open [VARIANT] [LENGTH|money] [key=value ...]")
        first = args[0].lower()
        bot: str | None = None
        if first == "bot" or first.startswith("bot:"):
            bot = first.split(":", 1)[1] if ":" in first else "strong"
            opponent = None
        else:
            opponent = None if first == "open" else _ref(args[0])
        clock: str | None = None
        variant: str | None = None
        length: int | None = None
        options: dict[str, Any] = {}
        people: dict[str, PlayerRef] = {}
        for word in args[1:]:
            if "=" in word:
                key, value = word.split("=", 1)
                if key in ("teammate", "partner"):
                    people[key] = _ref(value)
                elif key == "clock":
                    clock = value
                else:
                    options[key] = _value(value)
            elif word.isdigit():
                length = int(word)
            elif word.lower() == "money":
                length = 0
            else:
                variant = word
        out = await self.service.challenge(
            me,
            opponent,
            variant=variant,
            length=length,
            options=options,
            teammate=people.get("teammate"),
            opponent_teammate=people.get("partner"),
            time_control=clock,
            bot=bot,
        )
        self.current[me.id] = out.game.id
        await self._show(out, me)

    async def _answer(self, me: Request, cmd: str, args: list[str]) -> None:
        svc = self.service
        if args:
            game_id = self._game_id(args)
        else:
            pending = [v for v in await svc.my_games(me) if v.status == "challenge" and me.id in v.invited]
            current = self.current.get(me.id)
            view = await svc.view(current, me) if current is not None else None
            if view is not None and view.phase == str(Phase.RESIGNED) and view.to_act == me.id:
                game_id = view.id
            elif pending:
                game_id = pending[0].id
            elif current is not None:
                game_id = current
            else:
                raise Refused(f"{cmd} what? give a game number")
        view = await svc.view(game_id, me)
        if view.status == "challenge":
            if cmd == "reject":
                cmd = "decline"
            out = await (svc.accept(game_id, me) if cmd == "accept" else svc.decline(game_id, me))
            for pid in {p for side in out.game.sides for p in side}:
                self.current.setdefault(pid, game_id)
            self.current[me.id] = game_id
        else:
            out = await svc.answer_resignation(game_id, me, cmd == "accept")
        await self._show(out, me)

    async def _show(self, out: Outcome, me: Request) -> None:
        for event in out.events:
            self.say(event.text)
        view = out.game
        for side in view.sides:
            for pid in side:
                self.current.setdefault(pid, view.id)
        if (
            view.status == "active"
            and view.phase == str(Phase.MOVE)
            and any(e.kind in ("roll", "opening") for e in out.events)
        ):
            await self._board(view, view.to_act or me.id)
        if self.boards is not None and view.status in ("active", "finished"):
            await self._png(view, view.to_act or me.id)

    async def _board(self, view: GameView, viewer: str) -> None:
        if view.status == "challenge":
            self.say(self._line(view, viewer))
            return
        state = await self.service.state(view.id, self._request(viewer))
        side = view.side_of(viewer)
        side = 0 if side is None else side
        pos = state.position_for(side)
        names = (view.name(state.acting_member(side)), view.name(state.acting_member(1 - side)))
        dice = state.dice if state.phase is Phase.MOVE and state.roller == side else None
        on_roll = state.roller is None or state.roller == side
        self.say(ascii_board(state.variant, pos, dice=dice, names=names, x_on_roll=on_roll))
        self.say(self._line(view, viewer))
        if view.plays and view.to_act == viewer:
            shown = ", ".join(view.plays[:8]) + (f" … ({len(view.plays)} in all)" if len(view.plays) > 8 else "")
            self.say(f"legal plays: {shown}")

    async def _png(self, view: GameView, viewer: str) -> None:
        assert self.boards is not None
        rendered = await self.service.board(view.id, self._request(viewer))
        self.boards.mkdir(parents=True, exist_ok=True)
        self.images += 1
        path = self.boards / f"game{view.id}-{self.images:04d}.png"
        path.write_bytes(rendered.png)

    @staticmethod
    def _line(v: GameView, viewer: str) -> str:
        if v.status == "challenge":
            who = ", ".join(v.name(i) for i in v.invited) or "anyone"
            return f"#{v.id} challenge: {v.name(v.challenger)} vs {who}, {v.display_name}"
        length = f"{v.length}-point" if v.length else "money"
        turn = "your turn" if v.to_act == viewer else (f"{v.name(v.to_act)} to act" if v.to_act else v.phase or "")
        if v.status == "finished":
            turn = "finished"
        players = " vs ".join(" & ".join(v.name(p) for p in side) for side in v.sides)
        return f"#{v.id} {v.display_name} {length}, {players}, score {v.score[0]}-{v.score[1]}, cube {v.cube}: {turn}"


def _ref(name: str) -> PlayerRef:
    name = name.lstrip("@")
    return PlayerRef(name.lower(), name)


def _point(text: str) -> int:
    low = text.strip().lower()
    if low in ("bar", "b"):
        return 25
    if low in ("off", "o"):
        return 0
    try:
        return int(low.rstrip("*"))
    except ValueError:
        raise Refused(f"{text!r} is not a point: use 1..24, bar or off") from None


def _value(text: str) -> Any:
    low = text.lower()
    if low in ("on", "true", "yes"):
        return True
    if low in ("off", "false", "no"):
        return False
    if low.lstrip("-").isdigit():
        return int(low)
    return text


def _pairs(args: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for word in args:
        if "=" not in word:
            raise Refused(f"write settings as key=value, not {word!r}")
        key, value = word.split("=", 1)
        out[key] = _value(value) if value.lower() not in ("none", "all") else None
    return out


async def run_console(
    url: str,
    inp: TextIO,
    out: TextIO,
    *,
    boards: Path | None = None,
    seed: int | None = None,
    settings: Settings | None = None,
) -> int:
    """Play from ``inp`` until it ends (or ``quit``); returns an exit status. ``settings``: the loaded config.toml
    (server defaults, rating system, limits and board themes; default: the built-in settings)."""
    settings = settings or Settings()
    store = await Store.open(
        url,
        sqlite_synchronous=settings.sqlite_synchronous,
        pool_size=settings.pool_size,
        settings_ttl=settings.settings_ttl,
        acquire_timeout=settings.storage.acquire_timeout,
        statement_timeout=settings.storage.statement_timeout,
    )
    service = service_for(store, settings, dice=SeededDice(seed) if seed is not None else None)
    console = Console(service, out, boards=boards)
    interactive = inp.isatty()
    try:
        while True:
            if interactive:
                out.write(f"{console.player.name if console.player else ''}> ")
                out.flush()
            line = inp.readline()
            if not line:
                break
            if not interactive and line.strip() and not line.lstrip().startswith("#"):
                out.write(f"> {line.strip()}\n")
            if not await console.handle(line):
                break
    finally:
        await store.close()
    return 0


def main_console(args: Any) -> int:
    boards = Path(args.boards) if args.boards else None
    return asyncio.run(run_console(args.db, sys.stdin, sys.stdout, boards=boards, seed=args.seed))

"""``tour …`` at the console: run a tournament with the same service as on Discord.

    tour create "Club Cup" knockout sprintgammon 1 hours=48      (admins: everyone at the console is one)
    tour join            tour leave           tour info            tour standings
    tour join teammate=carol    (Backgammon Doubles: carol answers with tour accept, or tour decline)
    tour start           tour pause           tour resume          tour check   (apply deadlines now)
    tour dq bob          tour replace bob erin    tour extend 24 R2-1    tour decide R2-1 alice [walkover]

A tournament is named by ``#ID`` anywhere on the line (``tour join #2``), else it is the server's only one taking
sign-ups or under way. Its news (pairings, results, deadline decisions) is printed as it happens. Its clock runs
while the console does: before each line is run, the deadlines and reminders that came due are applied (the console
has no scheduler of its own); ``tour check`` applies the deadlines that have passed at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from engine.i18n import N_, _

from .service import SYSTEM, EventKind, GameService, PlayerRef, Refused, Request
from .service.tour_parts import TourEventKind, TourNews, status_words, summary_words

__all__ = ["TourConsole", "tour_clock", "tour_command", "USAGE"]

#: How ``tour`` is typed (translated where said: the words in capitals may be, the rest is typed as it is).
USAGE = N_(
    "tour create NAME FORMAT [RULE SET] [LENGTH] [key=value ...], tour join|leave|info|standings|start|pause|resume|"
    "check [#ID], tour accept|decline [NAME], tour dq NAME, tour replace NAME NEW, tour extend HOURS [MATCH], "
    "tour decide MATCH WINNER [walkover]"
)
#: ``tour create`` keys, and the service's names for them.
CREATE_KEYS = {
    "rounds": "rounds",
    "hours": "round_hours",
    "rule": "deadline_rule",
    "seeding": "seeding",
    "double": "double_elimination",
    "divisions": "divisions",
    "legs": "legs",
    "max": "max_entrants",
    "clock": "clock",
    "tiebreak": "tiebreak",
    "byes": "bye_rule",
}


class TourConsole(Protocol):
    """What ``tour`` needs of the console."""

    service: GameService
    boards: Path | None
    current: dict[str, int]

    def say(self, text: str) -> None: ...


async def tour_command(console: TourConsole, me: Request, args: list[str]) -> None:
    """Run ``tour …`` typed by ``me``."""
    svc = console.service
    ids = [int(w[1:]) for w in args if w.startswith("#") and w[1:].isdigit()]
    words = [w for w in args if not (w.startswith("#") and w[1:].isdigit())]
    tid = ids[0] if ids else None
    sub, rest = (words[0].lower(), words[1:]) if words else ("list", [])
    if sub == "list":
        rows = await svc.tour_list(me)
        listed = "\n".join(f"#{i} {n} ({status_words(s)})" for i, n, s in rows)
        console.say(listed if rows else _("no tournaments here yet"))
    elif sub == "create":
        await _create(svc, me, rest)
    elif sub == "join":
        pairs = dict(w.split("=", 1) for w in rest if "=" in w)
        mate = pairs.get("teammate")
        await svc.tour_join(me, tid, teammate=_ref(mate) if mate else None)
    elif sub in ("accept", "decline"):
        captain = rest[0].lstrip("@").lower() if rest else None
        await svc.tour_team_answer(me, tid, captain=captain, accept=sub == "accept")
    elif sub == "leave":
        await svc.tour_leave(me, tid)
    elif sub == "info":
        console.say(summary_words(await svc.tour_view(me, tid), me.id, svc.clock()))
    elif sub in ("standings", "bracket"):
        await _standings(console, me, tid)
    elif sub in ("start", "pause", "resume"):
        await {"start": svc.tour_start, "pause": svc.tour_pause, "resume": svc.tour_resume}[sub](me, tid)
    elif sub == "check":
        if await svc.tour_check(me, tid) is None:
            console.say(_("no match is past its deadline"))
    elif sub in ("dq", "disqualify"):
        await svc.tour_disqualify(me, _one(rest, _("tour dq NAME")).lower(), tid)
    elif sub == "replace":
        if len(rest) < 2:
            raise Refused(_("tour replace NAME NEW [teammate=NAME]: whose place, and who takes it"))
        pairs = dict(w.split("=", 1) for w in rest[2:] if "=" in w)
        mate = pairs.get("teammate")
        await svc.tour_replace(me, rest[0].lower(), _ref(rest[1]), tid, teammate=_ref(mate) if mate else None)
    elif sub == "extend":
        hours = _number(_one(rest, _("tour extend HOURS [MATCH]")), _("HOURS"))
        await svc.tour_extend(me, hours, tid, match_id=rest[1] if len(rest) > 1 else None)
    elif sub == "decide":
        if len(rest) < 2:
            raise Refused(_("tour decide MATCH WINNER [walkover]: the match (like R2-1) and who wins it"))
        walkover = len(rest) > 2 and rest[2].lower() in ("walkover", "wo")
        await svc.tour_decide(me, rest[0], rest[1].lstrip("@").lower(), tid, walkover=walkover)
    else:
        raise Refused(_("tour {command}? {usage}").format(command=sub, usage=_(USAGE)))


async def _create(svc: GameService, me: Request, rest: list[str]) -> None:
    if len(rest) < 2:
        raise Refused(
            _('tour create NAME FORMAT [RULE SET] [LENGTH] [key=value ...], like: tour create "Club Cup" swiss')
        )
    name, fmt, *more = rest
    options: dict[str, Any] = {}
    words: list[str] = []
    variant: str | None = None
    length: int | None = None
    for word in more:
        key, sep, value = word.partition("=")
        if sep and key.lower() in CREATE_KEYS:
            options[CREATE_KEYS[key.lower()]] = _setting(key.lower(), value)
        elif word.isdigit():
            length = int(word)
        elif variant is None and not sep:
            variant = word
        else:
            words.append(word)
    await svc.tour_create(me, name, fmt, variant=variant, length=length, options=" ".join(words), **options)


async def _standings(console: TourConsole, me: Request, tid: int | None) -> None:
    view = await console.service.tour_view(me, tid)
    pages, text = await console.service.tour_pictures(view)
    console.say(text)
    if console.boards is not None:
        console.boards.mkdir(parents=True, exist_ok=True)
        for k, page in enumerate(pages, 1):
            path = console.boards / f"tournament{view.id}-{k}.png"
            path.write_bytes(page.png)
            console.say(_("wrote {path}").format(path=path))


async def print_news(console: TourConsole, news: TourNews) -> None:
    """A tournament's news, as it happens, each thing once and in order: a result that ended a game is said with the
    game's own lines; a decision that ended a game (a walkover, an admin's, a deadline's) is said by the tournament,
    and of its game's lines only the ratings are added (a match decided at its deadline after both sides played)."""
    for e in news.events:
        if e.kind != TourEventKind.RESULT:
            console.say(e.text)
        if e.kind == TourEventKind.TEAM_INVITE and e.pings:
            name = news.view.player_name(e.pings[0])
            console.say(_("{name}: tour accept to play in this team, or tour decline.").format(name=name))
    for out in news.ended:
        for event in out.events:
            if event.kind == EventKind.RATINGS:
                console.say(event.text)
    started = []
    for game_id in news.started:
        view = await console.service.view(game_id, SYSTEM)
        a, b = (" & ".join(view.name(p) for p in side) for side in view.sides)
        started.append(_("#{game} {a} vs {b}").format(game=game_id, a=a, b=b))
        for side in view.sides:
            for player in side:
                console.current[player] = game_id  # their new match is their current game
    if started:
        console.say(_("Games started: {games}.").format(games=", ".join(started)))


async def tour_clock(console: TourConsole) -> None:
    """Keep the tournaments' clocks while the console runs: apply the deadlines and reminders that came due (their
    news is printed as it happens)."""
    try:
        await console.service.tour_tick()
    except Refused as exc:
        console.say(f"! {exc}")


def _ref(name: str) -> PlayerRef:
    name = name.lstrip("@")
    return PlayerRef(name.lower(), name)


def _one(words: list[str], usage: str) -> str:
    if not words:
        raise Refused(usage)
    return words[0]


def _number(text: str, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise Refused(_("{what} is a number, not {text}").format(what=what, text=repr(text))) from None


def _setting(key: str, value: str) -> Any:
    if key in ("rounds", "divisions", "legs", "max"):
        return int(_number(value, key))
    if key == "hours":
        return _number(value, key)
    if key == "double":
        return value.lower() in ("on", "yes", "true", "1")
    return value

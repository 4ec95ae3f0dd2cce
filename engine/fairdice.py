"""Dice anyone can audit: a commit-reveal scheme, the verification of a match record, dice statistics.

The scheme (``gammonbot-hmac-sha256-v1``)
==========================================

1. **Commit.** Before the first roll of a match the bot draws a secret *server seed* (32 random bytes,
   :func:`new_server_seed`) and publishes its *commitment* (:func:`commitment`)::

       commitment = hex(SHA-256(b"gammonbot-commit-v1" || 0x00 || server_seed))

   (lower-case hex, 64 characters; the ASCII prefix and its zero byte separate this hash from any other
   use of the seed).
2. **Client value.** After the commitment is published, the players contribute a *client value*, a text
   the bot cannot choose or predict when it commits: for example the id of the interaction that accepted
   the challenge, or a phrase the accepting player types. Several contributions are combined with
   :func:`client_value`. The client value is public. The order matters: a seed drawn after the client
   value is known could be drawn again and again until its dice suit someone, and a client value the bot
   picks itself proves nothing.
3. **Rolls.** Roll number ``n`` of the match is :func:`derive_roll` ``(server_seed, client, n)``. A *roll*
   is every :class:`~engine.match.OpeningRoll` and every :class:`~engine.match.Roll` action of the match
   record, numbered in record order from 0 across all games of the match; opening throws that tie count
   like any other roll. :func:`roll_number` counts them, so a record alone says which number each roll
   used. The pair maps to the action as it is: ``(d1, d2)`` is ``Roll.dice``, and for an opening throw
   ``d1`` is side 0's die and ``d2`` side 1's (``OpeningRoll.dice``).
4. **Reveal.** When the match ends the bot reveals the seed. Anyone can then check that it hashes to the
   commitment and that every recorded roll equals the derived one (:func:`verify_record`, or
   ``gammonbot verify FILE``). Because the commitment came first, the bot could not pick a seed to suit
   the client value; because the client value came from the players, the bot could not pick one to suit
   the seed.

Deriving a roll, exactly (so that anyone can re-implement it)::

    C      = UTF-8 bytes of the client value (no normalisation)
    block(k) = HMAC-SHA-256(key = server_seed,
                            message = b"gammonbot-roll-v1" || 0x00
                                      || uint32_be(len(C)) || C
                                      || uint64_be(n) || uint32_be(k))

Read the bytes of ``block(0)``, then ``block(1)``, ``block(2)``, ... in order. Skip every byte ``b >= 252``;
each accepted byte gives a die ``b % 6 + 1`` (252 = 42 × 6, so every face has exactly 42 of the accepted
byte values: no modulo bias). The first accepted byte is ``d1``, the second ``d2``. (A second block is
needed only when 31 of the first 32 bytes are rejected; the counter ``k`` is there for completeness.)

The match record file (what ``gammonbot verify`` reads)
=======================================================

A JSON object::

    {
      "setup":   {...},                       # engine.record.setup_to_data(setup)
      "actions": [{"type": "OpeningRoll", "by": "alice", "dice": [5, 2]}, ...],
                                              # engine.record.action_to_data of every action, in order
      "dice": {                               # DiceProof.to_data()
        "scheme": "gammonbot-hmac-sha256-v1",
        "commitment": "<64 hex digits>",
        "client": "<the client value>",       # null only before the players contributed it
        "seed": "<64 hex digits>"             # null until the match is over
      }
    }

``setup`` may also be the service's stored form ``{"match": {...setup_to_data...}, ...}``. Extra keys are
ignored. The setup is used to replay the record (to name games and players, and to check every action
is legal); it needs the rule set's plugin, and without it only the dice are checked.

Statistics
==========

:func:`dice_stats` counts each number and the doublets of a list of rolls against their expected values,
with chi-square statistics and their p-values (:func:`chi_square_p_value`, no third-party libraries).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import secrets
import struct
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from . import i18n
from .i18n import _, ngettext
from .match import Action, MatchSetup, OpeningRoll, Roll

__all__ = [
    "SCHEME",
    "SEED_BYTES",
    "BadRoll",
    "DiceProof",
    "DiceStats",
    "FairDice",
    "Verdict",
    "VerifyReport",
    "chi_square",
    "chi_square_p_value",
    "client_value",
    "commitment",
    "derive_roll",
    "dice_stats",
    "pair_stats",
    "tally_rolls",
    "new_server_seed",
    "player_rolls",
    "recorded_rolls",
    "roll_number",
    "verify_record",
]

#: The name of this scheme in dice proofs.
SCHEME = "gammonbot-hmac-sha256-v1"
#: Length of a server seed in bytes.
SEED_BYTES = 32
_COMMIT_PREFIX = b"gammonbot-commit-v1\x00"
_ROLL_PREFIX = b"gammonbot-roll-v1\x00"
_ACCEPT_BELOW = 252  # the largest multiple of 6 not above 256
_ROLL_TYPES = ("OpeningRoll", "Roll")


# --- the scheme ---------------------------------------------------------------------------------------
def new_server_seed() -> bytes:
    """A fresh secret server seed: :data:`SEED_BYTES` bytes from the operating system's random source."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(server_seed: bytes) -> str:
    """The public commitment to a seed: lower-case hex SHA-256 of ``b"gammonbot-commit-v1\\x00" + seed``."""
    return hashlib.sha256(_COMMIT_PREFIX + bytes(server_seed)).hexdigest()


def client_value(*parts: str) -> str:
    """Several player contributions as one client value: their JSON list (compact, UTF-8 kept).

    One contribution is used as it is (``client_value("abc") == "abc"``), so a single interaction id or
    phrase needs no wrapping; two or more become ``'["first","second"]'``, which no two different lists share.
    """
    if not parts:
        raise ValueError("a client value needs at least one contribution")
    for p in parts:
        if not isinstance(p, str):
            raise TypeError(f"client contributions are text, got {type(p).__name__}")
    if len(parts) == 1:
        return parts[0]
    return json.dumps(list(parts), ensure_ascii=False, separators=(",", ":"))


def _roll_message(client: bytes, n: int, counter: int) -> bytes:
    return _ROLL_PREFIX + struct.pack(">I", len(client)) + client + struct.pack(">QI", n, counter)


def _dice_from_blocks(blocks: Iterable[bytes]) -> tuple[int, int]:
    """The first two accepted bytes (< 252) of the concatenated blocks, as dice."""
    dice: list[int] = []
    for block in blocks:
        for b in block:
            if b < _ACCEPT_BELOW:
                dice.append(b % 6 + 1)
                if len(dice) == 2:
                    return dice[0], dice[1]
    raise ValueError("the blocks ran out before two dice were accepted")


def derive_roll(server_seed: bytes, client_value: str, roll_number: int) -> tuple[int, int]:
    """Roll number ``roll_number`` (from 0) of a match with this seed and client value (see the module doc)."""
    if not isinstance(roll_number, int) or not 0 <= roll_number < 1 << 64:
        raise ValueError(f"a roll number is a whole number from 0, got {roll_number!r}")
    key = bytes(server_seed)
    client = client_value.encode("utf-8")
    first = hmac.digest(key, _roll_message(client, roll_number, 0), "sha256")
    if first[0] < _ACCEPT_BELOW and first[1] < _ACCEPT_BELOW:  # the usual case, 97% of rolls
        return first[0] % 6 + 1, first[1] % 6 + 1

    def blocks() -> Iterator[bytes]:
        yield first
        for counter in range(1, 1 << 32):
            yield hmac.digest(key, _roll_message(client, roll_number, counter), "sha256")

    return _dice_from_blocks(blocks())


def _is_roll(action: Action | Mapping[str, Any]) -> bool:
    if isinstance(action, Mapping):
        return action.get("type") in _ROLL_TYPES
    return isinstance(action, OpeningRoll | Roll)


def roll_number(actions: Iterable[Action | Mapping[str, Any]]) -> int:
    """The number the next roll of a match uses: how many rolls (opening throws included) ``actions`` holds.

    ``actions`` may be action values or their :func:`engine.record.action_to_data` dicts.
    """
    return sum(1 for a in actions if _is_roll(a))


# --- the proof record ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class DiceProof:
    """What a match record says about its dice: scheme, commitment, client value and, once revealed, the seed.

    ``client`` is None only before the players contributed it; ``seed`` (hex) is None until the match ends.
    """

    commitment: str
    client: str | None = None
    seed: str | None = None
    scheme: str = SCHEME

    @property
    def revealed(self) -> bool:
        """True once the seed is part of the proof."""
        return self.seed is not None

    def to_data(self) -> dict[str, Any]:
        """``{"scheme": ..., "commitment": ..., "client": ..., "seed": ...}`` for JSON."""
        return {"scheme": self.scheme, "commitment": self.commitment, "client": self.client, "seed": self.seed}

    @classmethod
    def from_data(cls, data: object) -> DiceProof:
        """Read a proof; ``ValueError`` naming what is wrong if ``data`` is not one of this scheme."""
        if not isinstance(data, Mapping):
            raise ValueError(_('the "dice" proof must be an object, got {kind}').format(kind=type(data).__name__))
        scheme = data.get("scheme")
        if scheme != SCHEME:
            raise ValueError(
                _("unknown dice scheme {scheme} (this program checks {ours})").format(
                    scheme=repr(scheme), ours=repr(SCHEME)
                )
            )
        commit = data.get("commitment")
        if not isinstance(commit, str) or len(commit) != 64 or not _is_hex(commit):
            raise ValueError(_("the commitment must be 64 hexadecimal digits"))
        client = data.get("client")
        if client is not None and (not isinstance(client, str) or not _encodable(client)):
            raise ValueError(_("the client value must be text (or null before the players gave it)"))
        seed = data.get("seed")
        if seed is not None and (not isinstance(seed, str) or not seed or len(seed) % 2 or not _is_hex(seed)):
            raise ValueError(_("the revealed seed must be hexadecimal digits (or null before the match ends)"))
        return cls(commit.lower(), client, None if seed is None else seed.lower(), SCHEME)


def _unreadable(record: Mapping[str, Any]) -> str | None:
    """What in a record no match record holds, named by where it is: text that cannot be written as UTF-8 (a lone
    surrogate), a number that is not finite (JSON readers take NaN and 1e400); None when there is none."""
    stack: list[tuple[str, Any]] = [("", record)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str) and not _encodable(value):
            return _("{field} has a character that is not text (a lone surrogate)").format(field=where)
        if isinstance(value, float) and not math.isfinite(value):
            return _("{field} is {value}, not a number a record holds").format(field=where, value=value)
        if isinstance(value, Mapping):
            for k, v in value.items():
                if isinstance(k, str) and not _encodable(k):
                    return _("{field} has a key that is not text (a lone surrogate)").format(field=where)
                stack.append((f"{where}.{k}" if where else str(k), v))
        elif isinstance(value, list):
            stack.extend((f"{where}[{i}]", v) for i, v in enumerate(value))
    return None


def _encodable(text: str) -> bool:
    """Whether text can be written as UTF-8 (a lone surrogate, which JSON may carry, cannot)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in text)


class FairDice:
    """The dice of one match: the secret server seed and the players' client value.

    ``roll(n)`` is roll number ``n`` (see :func:`roll_number`); ``source(n)`` is an engine
    :class:`~engine.dice.DiceSource` giving rolls ``n, n + 1, ...``. The seed never shows in ``repr`` or
    ``str``; :meth:`proof` leaves it out unless asked to reveal it, and :meth:`secret_hex` is for the
    server's private storage only.
    """

    __slots__ = ("_seed", "client", "commitment")

    def __init__(self, server_seed: bytes, client: str) -> None:
        if not isinstance(server_seed, bytes | bytearray) or len(server_seed) != SEED_BYTES:
            raise ValueError(f"a server seed is {SEED_BYTES} bytes")
        if not isinstance(client, str) or not client:
            raise ValueError("the client value must be non-empty text contributed by the players")
        self._seed = bytes(server_seed)
        #: The players' client value (public).
        self.client = client
        #: The published commitment to the seed (public).
        self.commitment = commitment(self._seed)

    @classmethod
    def from_secret_hex(cls, seed_hex: str, client: str) -> FairDice:
        """Rebuild from a stored seed (as :meth:`secret_hex` wrote it) and the client value."""
        try:
            seed = bytes.fromhex(seed_hex)
        except (TypeError, ValueError):
            raise ValueError("a stored server seed is 64 hexadecimal digits") from None
        return cls(seed, client)

    def secret_hex(self) -> str:
        """The seed as hex: for the server's private storage and the reveal at match end, nowhere else."""
        return self._seed.hex()

    def roll(self, n: int) -> tuple[int, int]:
        """Roll number ``n`` (from 0; every opening throw and roll of the match counts)."""
        return derive_roll(self._seed, self.client, n)

    def next_roll(self, actions: Iterable[Action | Mapping[str, Any]]) -> tuple[int, int]:
        """The dice of the next roll of a match whose record so far is ``actions``."""
        return self.roll(roll_number(actions))

    def source(self, start: int = 0) -> Callable[[], tuple[int, int]]:
        """An engine dice source giving rolls ``start``, ``start + 1``, ... (one per call)."""
        counter = iter(range(start, 1 << 64))

        def dice() -> tuple[int, int]:
            return self.roll(next(counter))

        return dice

    def proof(self, *, reveal: bool = False) -> DiceProof:
        """The proof record; the seed is in it only with ``reveal=True`` (once the match is over)."""
        return DiceProof(self.commitment, self.client, self._seed.hex() if reveal else None)

    def __repr__(self) -> str:
        return f"FairDice(commitment={self.commitment!r}, client={self.client!r})"

    __str__ = __repr__

    def __reduce__(self) -> Any:
        raise TypeError("FairDice holds a secret seed and is not pickled; store secret_hex() deliberately")


# --- verification -------------------------------------------------------------------------------------
class Verdict(StrEnum):
    """The outcome of :func:`verify_record`."""

    VERIFIED = "verified"  #: the seed matches the commitment and every roll equals the derived one
    TAMPERED = "tampered"  #: the seed does not match the commitment, or a recorded roll differs
    INVALID = "invalid"  #: the dice are right but an action of the record is not legal at its moment
    UNREVEALED = "unrevealed"  #: the seed is not revealed yet (the match is not over): nothing to check


@dataclass(frozen=True)
class BadRoll:
    """The first recorded roll that differs from the derived one."""

    number: int  #: the roll number (from 0, as used by the derivation)
    action: int  #: its index in the record's actions (from 0)
    game: int | None  #: the game of the match it belongs to (None if the record could not be replayed so far)
    label: str  #: e.g. "game 2, Bob's roll" or "game 1, opening roll thrown by Alice" (in the active language)
    recorded: tuple[int, int]
    derived: tuple[int, int]


@dataclass(frozen=True)
class VerifyReport:
    """What :func:`verify_record` found. ``message`` is one line for players (in the language active when the
    record was verified)."""

    verdict: Verdict
    message: str
    rolls: int  #: rolls in the record
    bad_roll: BadRoll | None = None
    match_over: bool | None = None  #: None when the rules could not be replayed
    rules_checked: bool = False  #: whether every action was replayed under the match's rules

    @property
    def ok(self) -> bool:
        """True when the record is verified."""
        return self.verdict is Verdict.VERIFIED


def _dice_text(d: tuple[int, int]) -> str:
    return f"{d[0]}-{d[1]}"


def _player(setup: MatchSetup, by: str) -> str:
    for side, members in enumerate(setup.sides):
        if by in members:
            name = setup.side_name(side)
            return name if len(members) == 1 else f"{by} ({name})"
    return by


def verify_record(record: Mapping[str, Any]) -> VerifyReport:
    """Check a match record's dice against its proof (file format in the module doc).

    Raises :class:`engine.record.RecordError` (a ``ValueError``) when ``record`` is not a match record
    with a dice proof of this scheme. Otherwise the report says: verified; tampered (the seed does not
    match the commitment, or the first roll that differs, named with its game and player); invalid (the
    dice are right but an action is not legal under the match's rules); or unrevealed (the seed is not
    revealed yet, so nothing can be checked).
    """
    from . import match as m
    from .plugins import PluginError
    from .record import RecordError, action_from_data, setup_from_data

    if not isinstance(record, Mapping):
        raise RecordError(_("a match record is a JSON object with setup, actions and dice"))
    unreadable = _unreadable(record)
    if unreadable is not None:
        raise RecordError(unreadable)
    items = record.get("actions")
    if not isinstance(items, list) or not all(isinstance(a, Mapping) for a in items):
        raise RecordError(_('the record needs "actions": a list of action objects'))
    if "dice" not in record:
        raise RecordError(_('the record has no "dice" proof: its dice were not committed, so they cannot be verified'))
    try:
        proof = DiceProof.from_data(record["dice"])
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    try:
        actions: list[m.Action] = [action_from_data(a) for a in items]
    except (LookupError, TypeError, ValueError) as exc:
        raise RecordError(_("an action of the record is unreadable: {error}").format(error=exc)) from None
    numbered = [(i, a) for i, a in enumerate(actions) if isinstance(a, m.OpeningRoll | m.Roll)]
    rolls = len(numbered)

    # Replay as far as the rules allow, remembering the game each action belongs to.
    setup: MatchSetup | None = None
    games: list[int] = []
    replay_error: str | None = None
    over: bool | None = None
    raw_setup = record.get("setup")
    if isinstance(raw_setup, Mapping) and "variant" not in raw_setup and isinstance(raw_setup.get("match"), Mapping):
        raw_setup = raw_setup["match"]
    if not isinstance(raw_setup, Mapping):
        raise RecordError(_('the record needs "setup": the match setup object'))
    try:
        setup = setup_from_data(raw_setup)
        state = m.replay(setup, [])
    except (ValueError, LookupError, PluginError) as exc:
        setup = None
        replay_error = _("the rules were not checked ({error})").format(error=exc)
    if setup is not None:
        for i, action in enumerate(actions):
            games.append(state.game)
            try:
                state = m.apply(state, action)
            except Exception as exc:  # untrusted input: any failure to apply is reported, never raised
                replay_error = _("action {index} ({action} by {player}) is not legal: {error}").format(
                    index=i, action=type(action).__name__, player=action.by, error=exc
                )
                break
        else:
            over = state.over

    if not proof.revealed:
        where = {
            False: _("the match is not over"),
            True: _("the match is over, but this record does not reveal the seed"),
            None: _("it is revealed when the match ends"),
        }[over]
        return VerifyReport(
            Verdict.UNREVEALED,
            ngettext(
                "not verifiable yet: the seed is not revealed ({why}); {count} rolls recorded under commitment "
                "{commitment}…",
                "not verifiable yet: the seed is not revealed ({why}); {count} rolls recorded under commitment "
                "{commitment}…",
                rolls,
            ).format(why=where, count=rolls, commitment=proof.commitment[:16]),
            rolls,
            match_over=over,
        )
    assert proof.seed is not None
    seed = bytes.fromhex(proof.seed)
    if not hmac.compare_digest(commitment(seed), proof.commitment):
        return VerifyReport(
            Verdict.TAMPERED,
            _("tampered: the revealed seed does not match the commitment {commitment}…").format(
                commitment=proof.commitment[:16]
            ),
            rolls,
            match_over=over,
        )
    if rolls and proof.client is None:
        raise RecordError(_("the dice proof has no client value, but the record has rolls"))
    client = proof.client or ""
    for number, (i, action) in enumerate(numbered):
        derived = derive_roll(seed, client, number)
        if action.dice == derived:
            continue
        game = games[i] if i < len(games) else None
        who = action.by if setup is None else _player(setup, action.by)
        if isinstance(action, m.OpeningRoll):
            kind = _("opening roll thrown by {player}").format(player=who)
        else:
            kind = _("{player}'s roll").format(player=who)
        label = kind if game is None else _("game {game}, {roll}").format(game=game, roll=kind)
        bad = BadRoll(number, i, game, label, action.dice, derived)
        return VerifyReport(
            Verdict.TAMPERED,
            _("tampered: roll {number} ({label}) is {recorded} but the dice derive {derived}").format(
                number=number, label=label, recorded=_dice_text(action.dice), derived=_dice_text(derived)
            ),
            rolls,
            bad,
            match_over=over,
        )
    if setup is not None and replay_error is not None:
        return VerifyReport(
            Verdict.INVALID,
            ngettext(
                "invalid: all {count} rolls match the dice, but {error}",
                "invalid: all {count} rolls match the dice, but {error}",
                rolls,
            ).format(count=rolls, error=replay_error),
            rolls,
            match_over=over,
        )
    message = ngettext(
        "verified: the seed matches the commitment and all {count} rolls match the dice",
        "verified: the seed matches the commitment and all {count} rolls match the dice",
        rolls,
    ).format(count=rolls)
    if over is False:
        message += " " + _("(the match is not over)")
    if replay_error is not None:
        message += "; " + replay_error
    return VerifyReport(
        Verdict.VERIFIED,
        message,
        rolls,
        match_over=over,
        rules_checked=setup is not None,
    )


# --- statistics ---------------------------------------------------------------------------------------
def recorded_rolls(actions: Iterable[Action]) -> list[tuple[int, int]]:
    """The dice of every roll of a record, opening throws included, in order (the derivation's numbering)."""
    return [a.dice for a in actions if isinstance(a, OpeningRoll | Roll)]


def player_rolls(actions: Iterable[Action], player: str) -> list[tuple[int, int]]:
    """The dice of every :class:`~engine.match.Roll` ``player`` threw (opening throws, one die each, left out)."""
    return [a.dice for a in actions if isinstance(a, Roll) and a.by == player]


def chi_square(observed: Sequence[float], expected: Sequence[float]) -> float:
    """Pearson's statistic: the sum of (observed − expected)² / expected."""
    if len(observed) != len(expected):
        raise ValueError("observed and expected counts differ in length")
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected) if e > 0)


def chi_square_p_value(statistic: float, df: int) -> float:
    """The chance of a chi-square statistic at least this large with ``df`` degrees of freedom.

    The regularised upper incomplete gamma function Q(df/2, statistic/2) (series below a + 1, continued
    fraction above; about 1e-12 accurate).
    """
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    if statistic <= 0:
        return 1.0
    a, x = df / 2, statistic / 2
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1 / a
        ap = a
        for _step in range(10_000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_front) * h)


@dataclass(frozen=True)
class DiceStats:
    """Counts of a list of rolls against fair dice.

    ``faces[k]`` counts the dice showing ``k + 1`` (two per roll); the face chi-square has 5 degrees of
    freedom. ``pairs`` counts the 36 ordered rolls (``pairs[6 * (d1 - 1) + d2 - 1]``); its chi-square has
    35 and is meaningful only with some 200 rolls or more.
    """

    rolls: int
    faces: tuple[int, ...]
    doublets: int
    pairs: tuple[int, ...]

    @property
    def expected_face(self) -> float:
        """How often each number is expected: a third of the rolls (two dice, six faces)."""
        return self.rolls / 3

    @property
    def expected_doublets(self) -> float:
        """How many doublets are expected: a sixth of the rolls."""
        return self.rolls / 6

    @property
    def face_chi_square(self) -> float:
        """Chi-square of the face counts (5 degrees of freedom)."""
        return chi_square(self.faces, [self.expected_face] * 6) if self.rolls else 0.0

    @property
    def face_p_value(self) -> float:
        """p-value of :attr:`face_chi_square`."""
        return chi_square_p_value(self.face_chi_square, 5)

    @property
    def pair_chi_square(self) -> float:
        """Chi-square of the 36 ordered rolls (35 degrees of freedom)."""
        return chi_square(self.pairs, [self.rolls / 36] * 36) if self.rolls else 0.0

    @property
    def pair_p_value(self) -> float:
        """p-value of :attr:`pair_chi_square`."""
        return chi_square_p_value(self.pair_chi_square, 35)

    def summary(self) -> str:
        """One line for players: each number and the doublets with the expected counts, and the face test."""
        if not self.rolls:
            return _("no rolls yet")
        # Translators: how often a number came up in the dice statistics: "6s 12" (twelve sixes).
        face = _("{face}s {count}")
        faces = ", ".join(face.format(face=k + 1, count=n) for k, n in enumerate(self.faces))
        return ngettext(
            "{count} rolls: {faces} (each expected {expected}); doublets {doublets} (expected {expected_doublets}); "
            "chi-square {chi_square}, 5 df, p = {p}",
            "{count} rolls: {faces} (each expected {expected}); doublets {doublets} (expected {expected_doublets}); "
            "chi-square {chi_square}, 5 df, p = {p}",
            self.rolls,
        ).format(
            count=self.rolls,
            faces=faces,
            expected=i18n.decimal(self.expected_face, 1),
            doublets=self.doublets,
            expected_doublets=i18n.decimal(self.expected_doublets, 1),
            chi_square=i18n.decimal(self.face_chi_square, 2),
            p=i18n.decimal(self.face_p_value, 2),
        )


def dice_stats(rolls: Iterable[tuple[int, int]]) -> DiceStats:
    """Count each number, the doublets and the 36 ordered rolls of ``rolls`` (pairs of dice 1 to 6)."""
    faces = [0] * 6
    pairs = [0] * 36
    doublets = n = 0
    for a, b in rolls:
        if not (1 <= a <= 6 and 1 <= b <= 6):
            raise ValueError(f"a die shows 1 to 6, got {a}-{b}")
        n += 1
        faces[a - 1] += 1
        faces[b - 1] += 1
        pairs[6 * (a - 1) + b - 1] += 1
        doublets += a == b
    return DiceStats(n, tuple(faces), doublets, tuple(pairs))


def tally_rolls(actions: Iterable[Action], tally: Mapping[str, Sequence[int]] | None = None) -> dict[str, list[int]]:
    """Each player's rolls in ``actions`` as counts of the 36 ordered rolls (``[6 * (d1 - 1) + d2 - 1]``), added to
    ``tally`` (the counts of the actions before, as this returns them): what a game keeps as it is played, so that a
    player's dice statistics read one small row per game instead of every record (:func:`pair_stats`). Counts the
    rolls :func:`player_rolls` gives (opening throws, one die each, left out)."""
    out = {player: list(counts) for player, counts in (tally or {}).items()}
    for action in actions:
        if isinstance(action, Roll):
            a, b = action.dice
            if not (1 <= a <= 6 and 1 <= b <= 6):
                raise ValueError(f"a die shows 1 to 6, got {a}-{b}")
            counts = out.setdefault(action.by, [0] * 36)
            counts[6 * (a - 1) + b - 1] += 1
    return out


def pair_stats(pairs: Sequence[int]) -> DiceStats:
    """:func:`dice_stats` of the rolls counted as 36 ordered pairs (sums of :func:`tally_rolls`' counts)."""
    if len(pairs) != 36 or any(n < 0 for n in pairs):
        raise ValueError("counts of the 36 ordered rolls, none negative")
    faces = [0] * 6
    for k, n in enumerate(pairs):
        faces[k // 6] += n
        faces[k % 6] += n
    doublets = sum(pairs[7 * k] for k in range(6))
    return DiceStats(sum(pairs), tuple(faces), doublets, tuple(pairs))

"""Opening the database as a command line does: a database that cannot be opened or reached is one line naming it
and the fix (:class:`CannotOpen`), never a traceback. ``gammonbot console`` and ``gammonbot run`` open it this way,
``run`` before it logs in to Discord."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sqlalchemy as sa

from engine.i18n import _

from .store import Store, normalise_url

__all__ = ["CannotOpen", "open_store", "shown_url"]


class CannotOpen(Exception):
    """The database cannot be opened (``str()``: one line naming it, why, and the fix). ``unreachable``: a database
    server that did not answer (it may come up later), rather than a database that cannot be used as given."""

    def __init__(self, text: str, *, unreachable: bool = False) -> None:
        super().__init__(text)
        self.unreachable = unreachable


def shown_url(url: str) -> str:
    """The database's URL as a line may show it: without its password."""
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except (sa.exc.ArgumentError, ValueError):
        return url


def _reason(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None)  # SQLAlchemy wraps the driver's error
    seen = orig if isinstance(orig, BaseException) else exc
    if isinstance(seen, OSError) and seen.strerror:
        return seen.strerror
    return str(seen).splitlines()[0] if str(seen) else type(seen).__name__


def _sqlite_file(url: str) -> Path | None:
    if not url.startswith("sqlite") or "///" not in url:
        return None
    path = url.split("///", 1)[1].split("?", 1)[0]
    return Path(path) if path and path != ":memory:" else None


def problem(url: str, exc: BaseException) -> CannotOpen:
    """Why ``url`` could not be opened, in one line with the fix."""
    shown = shown_url(url)
    file = _sqlite_file(url)
    if file is not None:
        if file.is_dir():
            return CannotOpen(
                _("the database {url} is a folder: give a file, e.g. {example}").format(
                    url=shown, example=str(file / "gammonbot.sqlite3")
                )
            )
        if not file.parent.is_dir():
            return CannotOpen(
                _(
                    "cannot open the database {url}: the folder {folder} does not exist (make it, or give another file)"
                ).format(url=shown, folder=str(file.parent))
            )
        return CannotOpen(
            _("cannot open the database {url}: {reason} (give a file you may write)").format(
                url=shown, reason=_reason(exc)
            )
        )
    if isinstance(exc, OSError | TimeoutError):
        return CannotOpen(
            _("cannot reach the database {url}: {reason} (is the server running? check the host and port)").format(
                url=shown, reason=_reason(exc)
            ),
            unreachable=True,
        )
    return CannotOpen(_("cannot open the database {url}: {reason}").format(url=shown, reason=_reason(exc)))


async def open_store(url: str, **options: Any) -> Store:
    """:meth:`Store.open`, with :class:`CannotOpen` (one line) for a database that cannot be opened or reached."""
    file = _sqlite_file(url)
    if file is not None and (file.is_dir() or not file.parent.is_dir()):
        raise problem(url, FileNotFoundError(url))  # said before SQLite is asked
    try:
        normalise_url(url)
        return await Store.open(url, **options)
    except (OSError, TimeoutError, sa.exc.SQLAlchemyError, ValueError) as exc:
        raise problem(url, exc) from None
    except Exception as exc:  # the driver's own errors (asyncpg: a wrong password, no such database...)
        if type(exc).__module__.split(".")[0] in ("asyncpg", "aiosqlite", "sqlite3"):
            raise problem(url, exc) from None
        raise

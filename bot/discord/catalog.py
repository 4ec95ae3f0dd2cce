"""The ``commands`` catalog, extracted from the command tree (see :mod:`.translator`, which reads it back).

The tree is built offline, without Discord: a bot on a throw-away SQLite database, its cogs loaded, nothing synced::

    python -m bot.discord.catalog update    # writes engine/i18n/locale/commands.pot and merges every .po

(``gammonbot i18n update`` also does it.) This module builds the bot (:mod:`.app`), so it lives apart from the
translator that the bot installs.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

from discord import app_commands

from ..config import Settings
from .app import GammonBot
from .translator import template

__all__ = ["build_tree", "update", "update_all", "main"]


async def build_tree() -> app_commands.CommandTree[Any]:
    """The bot's command tree, built offline: a bot on a throw-away database with every cog loaded (no Discord)."""
    with tempfile.TemporaryDirectory(prefix="gammonbot-commands-") as folder:
        bot = GammonBot(Settings(storage_url=f"sqlite:///{Path(folder) / 'tree.sqlite3'}"))
        try:
            await bot.prepare()
            return bot.tree
        finally:
            await bot.close_storage()


def update() -> int:
    """Extract the ``commands`` domain from the command tree and merge it into every language; returns its size."""
    from engine.i18n import catalogs

    tree = asyncio.run(build_tree())
    tmpl = template(tree)
    catalogs.update("commands", tmpl=tmpl)
    return len(tmpl)


def update_all(out: TextIO) -> int:
    """``gammonbot i18n update``: re-extract every domain's template from the source, and the ``commands`` domain
    from the command tree, and merge each into every language's catalog (new messages then await translation:
    ``python -m engine.i18n.catalogs check`` lists them)."""
    from engine.i18n import catalogs

    for domain in catalogs.SOURCES:
        catalogs.update(domain)
        out.write(f"{domain}: {len(catalogs.template(domain))} messages\n")
    out.write(f"commands: {update()} messages\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args != ["update"]:
        print("usage: python -m bot.discord.catalog update", file=sys.stderr)
        return 2
    print(f"commands: {update()} messages")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The slash commands, one cog per feature; each module ends with ``async def setup(bot)``.

``games`` (``/bg play, move, resign, board, games, hint, watch, export, ids``), ``help``, ``forfeit`` and ``replay``
(``/bg …``), ``teams`` (``/bg-team …``), ``dice`` (``/bg-dice …``), ``stats`` (``/bg-stats …``), ``info``
(``/bg-info …``), ``admin`` (``/bg-admin …``), ``me`` (``/bg-me …``) and ``tour`` (``/bg-tour …`` and
``/bg-admin tour …``). Every cog is a :class:`bot.discord.tree.BgCog`, whose commands join their top-level command
(its ``root``) on load.
"""

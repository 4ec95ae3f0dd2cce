"""The ``/bg`` commands, one cog per feature; each module ends with ``async def setup(bot)``.

``games`` (``/bg play, move, resign, board, games, hint, watch, export, ids``), ``teams`` (``/bg team …``),
``dice`` (``/bg dice …``), ``stats`` (``/bg stats …``), ``info`` (``/bg info …``), ``admin`` (``/bg admin …``)
and ``me`` (``/bg me …``). Every cog is a :class:`bot.discord.tree.BgCog`, whose commands join ``/bg`` on load.
"""

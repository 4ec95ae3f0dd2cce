"""Cogs of the Discord bot; each module ends with ``async def setup(bot)``."""

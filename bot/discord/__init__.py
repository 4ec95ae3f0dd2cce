"""The Discord transport: the ``/bg`` slash commands, game buttons that survive restarts, and a thread per match.

Everything here is presentation; the game service (``bot/service``) decides every rule, and the engine
(``engine.controls.allowed_actions``) says which buttons a state allows.

- ``app.py`` — ``GammonBot``: start-up (``setup_hook``), the cogs it loads, the scheduler loop.
- ``tree.py`` — the top-level commands (``/bg``, ``/bg-team``, … ``/bg-admin``: :data:`~.tree.ROOTS`), ``BgCog`` (a cog
  whose commands join one of them), the error handler.
- ``limits.py`` — Discord's documented limits (command size, messages, components, files, threads, pins, times),
  which the code builds within and the tests check every request against.
- ``context.py`` — who asks (``requester``), which game they mean (``find_game``, ``game_choices``), and their games
  listed with bounded work (``game_rows``, ``games_page``: a player may have hundreds).
- ``errors.py`` — answering first and the one refusal reply (``@refusals``, ``answer_first``, ``reply``, ``refuse``).
- ``text.py`` — headings, names and mentions (``safe``: a name never pings; ``pings``: exactly whom a message calls).
- ``options.py`` — typed option values and suggestions (rule sets, clocks, plays).
- ``components.py`` — the buttons and selects (``DynamicItem``s) and the one press check, ``may_press``.
- ``controls.py`` — state -> buttons, drawn from what the engine allows.
- ``table.py`` — posting, editing and retiring turn messages; component presses.
- ``threads.py`` — match threads and each Doubles team's private thread.
- ``channels.py`` — finding a channel by its id, and taking the buttons off a message (the one way, for all).
- ``protocols.py`` — what cogs and helpers need of the bot, its table and its threads: they name these, and nothing
  imports ``app.py`` (``tests/test_static.py`` fails on any import circle in this package).
- ``translator.py``, ``catalog.py`` — the commands in the players' languages; the ``commands`` catalog extracted from
  the command tree.
- ``cogs/`` — the commands, one cog per feature: ``games`` (``/bg play``, ``move``, ``resign``, ``board``,
  ``games``, ``hint``, ``watch``, ``export``, ``ids``), ``teams`` (``/bg-team``), ``dice``, ``stats``, ``info``,
  ``admin``, ``me`` and ``tour`` (``/bg-tour``, and ``/bg-admin tour``).

Every interaction is answered first: its first Discord call is its answer (a deferral, usually), before any thread
is opened or message posted; and what a game needs (its next turn posted) never depends on that answer succeeding.
``tests/bot/discord`` checks the order of the REST calls of every interaction it makes.

Adding a command: write it in the cog of its feature, as ``@app_commands.command`` (``/<root> <name>``, the cog's
``root`` being one of ``tree.ROOTS``) or ``@<group>.command`` (``/<root> <group> <name>``), decorated with
``@refusals`` (which defers it before it runs) and answering with ``reply``; find its game with ``find_game`` and
call the service with ``requester(interaction)``. A new feature is a new ``cogs/<feature>.py`` (a ``BgCog``, ending
with ``async def setup(bot)``, ``bot`` typed as ``protocols.Bot``) named in ``app.EXTENSIONS``. The first line of
the docstring is what players see.
"""

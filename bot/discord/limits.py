"""Discord's documented limits, in one place: the code builds its payloads within them, and the tests check every
payload the bot sends against them.

Real Discord refuses a payload past any of these (``400 Bad Request``, code ``50035 Invalid Form Body``), and a
refused command sync registers nothing at all; the simulated Discord the tests run against (simcord) checks almost
none of them. So each limit is written here once, with the page of Discord's developer documentation that states
it, and :func:`request_problems` judges a whole REST request (method, path, JSON body, files) by them. The tests
wrap simcord's HTTP layer with it (``tests/discord_guard.py``): any request Discord would refuse fails the test that
made it, whatever feature sent it. The bot checks its command tree with :func:`command_problems` before it syncs.

Everything here works on the JSON payloads discord.py sends (dicts and lists), so it needs no Discord connection.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "COMMAND_SIZE",
    "COMMAND_BUDGET",
    "MAX_COMMANDS",
    "MAX_NAME",
    "MAX_DESCRIPTION",
    "MAX_OPTIONS",
    "MAX_CHOICES",
    "MAX_CHOICE_NAME",
    "MAX_CHOICE_VALUE",
    "MAX_CONTENT",
    "MAX_EMBEDS",
    "EMBED_TOTAL",
    "MAX_ROWS",
    "MAX_ROW_BUTTONS",
    "MAX_SELECT_OPTIONS",
    "MAX_CUSTOM_ID",
    "MAX_LABEL",
    "MAX_PLACEHOLDER",
    "MAX_OPTION_TEXT",
    "MAX_AUTOCOMPLETE",
    "MAX_FILES",
    "UPLOAD_LIMIT",
    "MAX_ALT_TEXT",
    "MAX_THREAD_NAME",
    "MAX_PINS",
    "FIRST_RESPONSE_SECONDS",
    "TOKEN_SECONDS",
    "command_size",
    "command_problems",
    "commands_problems",
    "message_problems",
    "components_problems",
    "embed_problems",
    "autocomplete_problems",
    "modal_problems",
    "thread_problems",
    "request_problems",
]

# --- application commands ---------------------------------------------------------------------------------------
# https://discord.com/developers/docs/interactions/application-commands#registering-a-command ("Limits"), and the
# structures on the same page (#application-command-object, #application-command-object-application-command-naming).

#: The combined characters of a command's names, descriptions and choice names and values (its options, subcommands
#: and groups included). Of a field with localizations, only the longest (the default text included) counts.
COMMAND_SIZE = 8000
#: What we allow ourselves (under :data:`COMMAND_SIZE`, with room for the commands to grow and for translations).
COMMAND_BUDGET = 6500
#: Top-level slash commands an application may have (globally, and in each server).
MAX_COMMANDS = 100
#: A command's, a group's, an option's name: 1 to 32 characters.
MAX_NAME = 32
#: ``^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$``, lowercase wherever a letter has a lowercase form. Python's
#: ``\w`` is letters, digits (``\p{N}``'s decimal ones) and ``_``: close enough for the names we choose.
NAME = re.compile(r"^[-_'\w]{1,32}$")
#: A command's or an option's description, and each localization of it: 1 to 100 characters.
MAX_DESCRIPTION = 100
#: Options (or subcommands and groups) of a command, subcommands of a group: at most 25.
MAX_OPTIONS = 25
#: Choices of an option: at most 25.
MAX_CHOICES = 25
#: A choice's name (and each localization) and a string choice's value: 1 to 100 characters.
MAX_CHOICE_NAME = 100
MAX_CHOICE_VALUE = 100
#: Option types (https://discord.com/developers/docs/interactions/application-commands#application-command-object-
#: application-command-option-type).
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2

# --- messages -----------------------------------------------------------------------------------------------------
# https://discord.com/developers/docs/resources/message#create-message (content, embeds, files),
# https://discord.com/developers/docs/resources/message#embed-object-embed-limits (embeds).

#: A message's text.
MAX_CONTENT = 2000
#: Embeds in one message, and the characters of all their titles, descriptions, field names and values, footers and
#: author names together.
MAX_EMBEDS = 10
EMBED_TOTAL = 6000
EMBED_TITLE = 256
EMBED_DESCRIPTION = 4096
EMBED_FIELDS = 25
EMBED_FIELD_NAME = 256
EMBED_FIELD_VALUE = 1024
EMBED_FOOTER = 2048
EMBED_AUTHOR = 256

# --- components ---------------------------------------------------------------------------------------------------
# https://discord.com/developers/docs/components/reference (action row, button, string select, text input).

#: Action rows in a message; buttons in a row; a select fills a row alone.
MAX_ROWS = 5
MAX_ROW_BUTTONS = 5
#: Options of a select, and their label, value and description.
MAX_SELECT_OPTIONS = 25
MAX_OPTION_TEXT = 100
#: A component's ``custom_id``; a button's label; a select's placeholder.
MAX_CUSTOM_ID = 100
MAX_LABEL = 80
MAX_PLACEHOLDER = 150
#: Component types.
ROW, BUTTON, STRING_SELECT, TEXT_INPUT = 1, 2, 3, 4
SELECTS = frozenset({3, 5, 6, 7, 8})
#: A link button (style 5) has a url and no custom_id; a premium button (style 6) neither.
LINK, PREMIUM = 5, 6

# --- interactions -------------------------------------------------------------------------------------------------
# https://discord.com/developers/docs/interactions/receiving-and-responding#responding-to-an-interaction (times),
# #interaction-response-object-autocomplete and #interaction-response-object-modal.

#: An interaction must be answered (or deferred) within 3 seconds...
FIRST_RESPONSE_SECONDS = 3.0
#: ...and its token, with which follow-ups are sent and the answer edited, lives 15 minutes.
TOKEN_SECONDS = 15 * 60.0
#: Suggestions of an autocomplete answer (each a choice: name and value of 1 to 100 characters).
MAX_AUTOCOMPLETE = 25
#: A modal: its title, 1 to 5 rows of one text input each; a text input's label, placeholder and value.
MODAL_TITLE = 45
MODAL_ROWS = 5
TEXT_INPUT_LABEL = 45
TEXT_INPUT_PLACEHOLDER = 100
TEXT_INPUT_VALUE = 4000
#: Interaction callback types.
MESSAGE_ANSWERS = frozenset({4, 7})
AUTOCOMPLETE_ANSWER = 8
MODAL_ANSWER = 9

# --- files --------------------------------------------------------------------------------------------------------
# https://discord.com/developers/docs/reference#uploading-files, and the attachment object
# (https://discord.com/developers/docs/resources/message#attachment-object).

#: Files in one message.
MAX_FILES = 10
#: The upload limit of a server without boosts (every file of a message together must stay under it).
UPLOAD_LIMIT = 10 * 1024 * 1024
#: An attachment's description (its alt text).
MAX_ALT_TEXT = 1024

# --- threads and pins -----------------------------------------------------------------------------------------------
# https://discord.com/developers/docs/resources/channel#start-thread-from-message (name 1-100),
# https://discord.com/developers/docs/topics/opcodes-and-status-codes#json (30003 "Maximum number of pins reached
# (50)", 160006 "Maximum number of active threads reached").

#: A thread's name.
MAX_THREAD_NAME = 100
#: Pinned messages in one channel.
MAX_PINS = 50
#: Durations a thread may be set to auto-archive after, in minutes (the longest: a week).
ARCHIVE_DURATIONS = frozenset({60, 1440, 4320, 10080})


# --- commands -----------------------------------------------------------------------------------------------------
def _longest(field: Mapping[str, Any], key: str) -> int:
    """A field's length as Discord counts it: the longest of its default text and its localizations."""
    texts = [str(field.get(key) or "")]
    texts += [str(v) for v in (field.get(f"{key}_localizations") or {}).values()]
    return max(len(t) for t in texts)


def command_size(payload: Mapping[str, Any]) -> int:
    """A command's (or option's) size by Discord's rule: names, descriptions, choice names and values, each field
    counted at its longest localization."""
    size = _longest(payload, "name") + _longest(payload, "description")
    for option in payload.get("options") or ():
        size += command_size(option)
    for choice in payload.get("choices") or ():
        size += _longest(choice, "name") + len(str(choice.get("value", "")))
    return size


def _texts(field: Mapping[str, Any], key: str) -> list[tuple[str, str]]:
    """(locale, text) of a field: ``""`` for the default, then each localization."""
    out = [("", str(field.get(key) or ""))]
    out += [(str(k), str(v)) for k, v in (field.get(f"{key}_localizations") or {}).items()]
    return out


def _name_problems(where: str, field: Mapping[str, Any]) -> list[str]:
    out = []
    for locale, name in _texts(field, "name"):
        tag = f" ({locale})" if locale else ""
        if not NAME.match(name):
            out.append(f"{where}: name{tag} {name!r} is not 1-{MAX_NAME} letters, digits, - _ or '")
        elif name != name.lower():
            out.append(f"{where}: name{tag} {name!r} has capitals (Discord wants lowercase)")
    return out


def _described(where: str, field: Mapping[str, Any]) -> list[str]:
    out = []
    for locale, text in _texts(field, "description"):
        if not 1 <= len(text) <= MAX_DESCRIPTION:
            tag = f" ({locale})" if locale else ""
            out.append(f"{where}: description{tag} has {len(text)} characters (1-{MAX_DESCRIPTION})")
    return out


def _option_problems(where: str, option: Mapping[str, Any]) -> list[str]:
    here = f"{where} {option.get('name')}"
    out = _name_problems(here, option) + _described(here, option)
    children = list(option.get("options") or ())
    if len(children) > MAX_OPTIONS:
        out.append(f"{here}: {len(children)} options (at most {MAX_OPTIONS})")
    out += _options_problems(here, children)
    choices = list(option.get("choices") or ())
    if len(choices) > MAX_CHOICES:
        out.append(f"{here}: {len(choices)} choices (at most {MAX_CHOICES})")
    for choice in choices:
        for locale, name in _texts(choice, "name"):
            if not 1 <= len(name) <= MAX_CHOICE_NAME:
                tag = f" ({locale})" if locale else ""
                out.append(f"{here}: choice name{tag} {name[:40]!r}… has {len(name)} characters (1-{MAX_CHOICE_NAME})")
        value = choice.get("value")
        if isinstance(value, str) and not 1 <= len(value) <= MAX_CHOICE_VALUE:
            out.append(f"{here}: choice value {value[:40]!r} has {len(value)} characters (1-{MAX_CHOICE_VALUE})")
    return out


def _options_problems(where: str, options: Sequence[Mapping[str, Any]]) -> list[str]:
    out: list[str] = []
    names = [str(o.get("name")) for o in options]
    doubled = sorted({n for n in names if names.count(n) > 1})
    if doubled:
        out.append(f"{where}: options named twice: {', '.join(doubled)}")
    plain = [o for o in options if o.get("type") not in (SUB_COMMAND, SUB_COMMAND_GROUP)]
    if plain and len(plain) != len(options):
        out.append(f"{where}: subcommands mixed with plain options")
    seen_optional = False
    for option in plain:
        if option.get("required"):
            if seen_optional:
                out.append(f"{where}: required option {option.get('name')} comes after an optional one")
        else:
            seen_optional = True
    for option in options:
        out += _option_problems(where, option)
    return out


def command_problems(payload: Mapping[str, Any], *, budget: int = COMMAND_SIZE) -> list[str]:
    """Everything Discord would refuse in one slash command's payload (and its size past ``budget``), one sentence
    each; empty if it would register."""
    where = f"/{payload.get('name')}"
    out = _name_problems(where, payload) + _described(where, payload)
    options = list(payload.get("options") or ())
    if len(options) > MAX_OPTIONS:
        out.append(f"{where}: {len(options)} options, subcommands or groups (at most {MAX_OPTIONS})")
    out += _options_problems(where, options)
    size = command_size(payload)
    if size > budget:
        out.append(f"{where}: {size} characters by Discord's rule (at most {budget})")
    return out


def commands_problems(payloads: Sequence[Mapping[str, Any]], *, budget: int = COMMAND_SIZE) -> list[str]:
    """A whole command sync (``PUT …/commands``): every command's problems, their number and their names."""
    out: list[str] = []
    chat = [p for p in payloads if p.get("type", 1) == 1]
    if len(chat) > MAX_COMMANDS:
        out.append(f"{len(chat)} slash commands (at most {MAX_COMMANDS})")
    names = [str(p.get("name")) for p in chat]
    doubled = sorted({n for n in names if names.count(n) > 1})
    if doubled:
        out.append(f"commands named twice: {', '.join(doubled)}")
    for payload in payloads:
        out += command_problems(payload, budget=budget)
    return out


# --- messages -----------------------------------------------------------------------------------------------------
def embed_problems(embeds: Sequence[Mapping[str, Any]]) -> list[str]:
    """What Discord would refuse in a message's embeds."""
    out: list[str] = []
    if len(embeds) > MAX_EMBEDS:
        out.append(f"{len(embeds)} embeds (at most {MAX_EMBEDS})")
    total = 0

    def check(what: str, text: Any, limit: int) -> None:
        nonlocal total
        if text is None:
            return
        n = len(str(text))
        total += n
        if n > limit:
            out.append(f"embed {what} has {n} characters (at most {limit})")

    for embed in embeds:
        check("title", embed.get("title"), EMBED_TITLE)
        check("description", embed.get("description"), EMBED_DESCRIPTION)
        check("footer", (embed.get("footer") or {}).get("text"), EMBED_FOOTER)
        check("author", (embed.get("author") or {}).get("name"), EMBED_AUTHOR)
        fields = list(embed.get("fields") or ())
        if len(fields) > EMBED_FIELDS:
            out.append(f"embed has {len(fields)} fields (at most {EMBED_FIELDS})")
        for f in fields:
            check("field name", f.get("name"), EMBED_FIELD_NAME)
            check("field value", f.get("value"), EMBED_FIELD_VALUE)
    if total > EMBED_TOTAL:
        out.append(f"embeds have {total} characters in all (at most {EMBED_TOTAL})")
    return out


def _component_problems(component: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    kind = component.get("type")
    custom_id = component.get("custom_id")
    if custom_id is not None and not 1 <= len(str(custom_id)) <= MAX_CUSTOM_ID:
        out.append(f"custom_id {str(custom_id)[:40]!r}… has {len(str(custom_id))} characters (1-{MAX_CUSTOM_ID})")
    if kind == BUTTON:
        label = component.get("label")
        if label is not None and len(str(label)) > MAX_LABEL:
            out.append(f"button label {str(label)[:40]!r}… has {len(str(label))} characters (at most {MAX_LABEL})")
        if label is None and component.get("emoji") is None:
            out.append("a button with neither label nor emoji")
        if component.get("style") not in (LINK, PREMIUM) and custom_id is None:
            out.append("a button without a custom_id")
    elif kind in SELECTS:
        placeholder = component.get("placeholder")
        if placeholder is not None and len(str(placeholder)) > MAX_PLACEHOLDER:
            out.append(f"select placeholder has {len(str(placeholder))} characters (at most {MAX_PLACEHOLDER})")
        options = list(component.get("options") or ())
        if kind == STRING_SELECT and not 1 <= len(options) <= MAX_SELECT_OPTIONS:
            out.append(f"a select with {len(options)} options (1-{MAX_SELECT_OPTIONS})")
        for option in options:
            for key in ("label", "value", "description"):
                text = option.get(key)
                if text is None and key == "description":
                    continue
                if text is None or not 1 <= len(str(text)) <= MAX_OPTION_TEXT:
                    n = len(str(text or ""))
                    out.append(f"select option {key} {str(text)[:40]!r} has {n} characters (1-{MAX_OPTION_TEXT})")
        values = [o.get("value") for o in options]
        if len(set(values)) != len(values):
            out.append("a select with two options of the same value")
        low, high = component.get("min_values", 1), component.get("max_values", 1)
        if not 0 <= low <= high <= MAX_SELECT_OPTIONS:
            out.append(f"a select's min_values/max_values {low}/{high} (0-{MAX_SELECT_OPTIONS})")
    return out


def components_problems(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """What Discord would refuse in a message's components (action rows of buttons, or of one select)."""
    out: list[str] = []
    if len(rows) > MAX_ROWS:
        out.append(f"{len(rows)} rows of components (at most {MAX_ROWS})")
    ids: list[str] = []
    for row in rows:
        if row.get("type") != ROW:
            out += _component_problems(row)  # newer layouts put components at the top: judge them as they are
            continue
        children = list(row.get("components") or ())
        selects = [c for c in children if c.get("type") in SELECTS]
        if not children:
            out.append("an empty row of components")
        elif selects and len(children) > 1:
            out.append("a select shares its row with other components (a select fills a row)")
        elif len(children) > MAX_ROW_BUTTONS:
            out.append(f"a row of {len(children)} buttons (at most {MAX_ROW_BUTTONS})")
        for child in children:
            out += _component_problems(child)
            if child.get("custom_id") is not None:
                ids.append(str(child["custom_id"]))
    doubled = sorted({i for i in ids if ids.count(i) > 1})
    if doubled:
        out.append(f"custom_ids used twice in one message: {', '.join(doubled)}")
    return out


def message_problems(payload: Mapping[str, Any], file_sizes: Sequence[int] = ()) -> list[str]:
    """What Discord would refuse in a message (posted, edited, an interaction's answer or a follow-up): its text,
    embeds, components, files and their alt texts."""
    out: list[str] = []
    content = payload.get("content")
    if content is not None and len(str(content)) > MAX_CONTENT:
        out.append(f"message of {len(str(content))} characters (at most {MAX_CONTENT})")
    out += embed_problems(list(payload.get("embeds") or ()))
    out += components_problems(list(payload.get("components") or ()))
    attachments = list(payload.get("attachments") or ())
    if max(len(attachments), len(file_sizes)) > MAX_FILES:
        out.append(f"{max(len(attachments), len(file_sizes))} files (at most {MAX_FILES})")
    for attachment in attachments:
        alt = attachment.get("description")
        if alt is not None and len(str(alt)) > MAX_ALT_TEXT:
            out.append(f"an attachment's alt text has {len(str(alt))} characters (at most {MAX_ALT_TEXT})")
    if sum(file_sizes) > UPLOAD_LIMIT:
        out.append(f"files of {sum(file_sizes)} bytes (the upload limit is {UPLOAD_LIMIT})")
    return out


def autocomplete_problems(choices: Sequence[Mapping[str, Any]]) -> list[str]:
    """What Discord would refuse in an autocomplete answer."""
    out: list[str] = []
    if len(choices) > MAX_AUTOCOMPLETE:
        out.append(f"{len(choices)} suggestions (at most {MAX_AUTOCOMPLETE})")
    for choice in choices:
        name, value = str(choice.get("name", "")), choice.get("value")
        if not 1 <= len(name) <= MAX_CHOICE_NAME:
            out.append(f"suggestion {name[:40]!r} has a name of {len(name)} characters (1-{MAX_CHOICE_NAME})")
        if isinstance(value, str) and not 1 <= len(value) <= MAX_CHOICE_VALUE:
            out.append(f"suggestion value {value[:40]!r} has {len(value)} characters (1-{MAX_CHOICE_VALUE})")
    return out


def modal_problems(data: Mapping[str, Any]) -> list[str]:
    """What Discord would refuse in a modal."""
    out: list[str] = []
    title = str(data.get("title") or "")
    if not 1 <= len(title) <= MODAL_TITLE:
        out.append(f"modal title of {len(title)} characters (1-{MODAL_TITLE})")
    if not 1 <= len(str(data.get("custom_id") or "")) <= MAX_CUSTOM_ID:
        out.append(f"modal custom_id not of 1-{MAX_CUSTOM_ID} characters")
    rows = list(data.get("components") or ())
    if not 1 <= len(rows) <= MODAL_ROWS:
        out.append(f"modal with {len(rows)} rows (1-{MODAL_ROWS})")
    for row in rows:
        for field in row.get("components") or (row,):
            label = str(field.get("label") or "")
            if field.get("type") == TEXT_INPUT and not 1 <= len(label) <= TEXT_INPUT_LABEL:
                out.append(f"text input label of {len(label)} characters (1-{TEXT_INPUT_LABEL})")
            if len(str(field.get("placeholder") or "")) > TEXT_INPUT_PLACEHOLDER:
                out.append(f"text input placeholder over {TEXT_INPUT_PLACEHOLDER} characters")
            if len(str(field.get("value") or "")) > TEXT_INPUT_VALUE:
                out.append(f"text input value over {TEXT_INPUT_VALUE} characters")
    return out


def thread_problems(payload: Mapping[str, Any]) -> list[str]:
    """What Discord would refuse in a thread's creation or edit (its name, its archive duration)."""
    out: list[str] = []
    if "name" in payload and not 1 <= len(str(payload["name"] or "")) <= MAX_THREAD_NAME:
        out.append(f"thread name of {len(str(payload['name'] or ''))} characters (1-{MAX_THREAD_NAME})")
    duration = payload.get("auto_archive_duration")
    if duration is not None and duration not in ARCHIVE_DURATIONS:
        out.append(f"auto_archive_duration {duration} (one of {sorted(ARCHIVE_DURATIONS)})")
    return out


# --- whole requests -----------------------------------------------------------------------------------------------
_COMMANDS = re.compile(r"^/applications/\d+(/guilds/\d+)?/commands$")
_COMMAND = re.compile(r"^/applications/\d+(/guilds/\d+)?/commands(/\d+)?$")
_MESSAGE = re.compile(r"^/channels/\d+/messages(/\d+)?$")
_WEBHOOK = re.compile(r"^/webhooks/\d+/[^/]+(/messages/[^/]+)?$")
_CALLBACK = re.compile(r"^/interactions/\d+/[^/]+/callback$")
_THREAD = re.compile(r"^/channels/\d+(/messages/\d+)?/threads$")
_CHANNEL = re.compile(r"^/channels/\d+$")


def request_problems(
    method: str, path: str, body: Any, file_sizes: Sequence[int] = (), *, budget: int = COMMAND_SIZE
) -> list[str]:
    """Everything Discord would refuse in one REST request the bot makes (empty: nothing), judged by the route:
    command syncs, messages (posted, edited, answers, follow-ups), autocomplete answers, modals, threads."""
    payload: Mapping[str, Any] = body if isinstance(body, Mapping) else {}
    if method == "PUT" and _COMMANDS.match(path):
        return commands_problems(list(body or ()), budget=budget)
    if method in ("POST", "PATCH") and _COMMAND.match(path):
        return command_problems(payload, budget=budget)
    if method in ("POST", "PATCH") and (_MESSAGE.match(path) or _WEBHOOK.match(path)):
        return message_problems(payload, file_sizes)
    if method == "POST" and _CALLBACK.match(path):
        kind, data = payload.get("type"), payload.get("data") or {}
        if kind in MESSAGE_ANSWERS:
            return message_problems(data, file_sizes)
        if kind == AUTOCOMPLETE_ANSWER:
            return autocomplete_problems(list(data.get("choices") or ()))
        if kind == MODAL_ANSWER:
            return modal_problems(data)
        return []
    if method == "POST" and _THREAD.match(path):
        return thread_problems(payload) + message_problems(payload.get("message") or {}, file_sizes)
    if method == "PATCH" and _CHANNEL.match(path):
        return thread_problems(payload)
    return []

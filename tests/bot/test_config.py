"""config.toml: one checked Settings object, what each key carries, and one-line errors naming file and key."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from bot.config import (
    DEFAULT_PATH,
    MATCH_OPTION_DEFAULTS,
    SECTIONS,
    ConfigError,
    DefaultSettings,
    DiscordSettings,
    LimitSettings,
    LoggingSettings,
    RatingSettings,
    Settings,
    StorageSettings,
    load_settings,
)
from engine.plugins import registry

SHIPPED = Path(__file__).resolve().parents[2] / "config.toml"
NO_ENV: dict[str, str] = {}


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def load(tmp_path: Path, text: str) -> Settings:
    return load_settings(write(tmp_path, text), environ=NO_ENV)


def refused(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_settings(path, environ=NO_ENV)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path}: "), message
    return message[len(f"{path}: ") :]


# --- which file, and the environment ---------------------------------------------------------------------------


def test_without_a_config_file_in_the_working_directory_the_defaults_apply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GAMMONBOT_DATABASE_URL", raising=False)
    settings = load_settings()
    assert settings == Settings() and settings.source is None
    assert settings.storage_url == "sqlite:///gammonbot.sqlite3" and settings.pool_size is None
    assert settings.settings_ttl == 5.0 and settings.sqlite_synchronous == "FULL"
    assert (settings.default_variant, settings.default_length, settings.rating_system) == ("backgammon", 5, "fibs")


def test_the_config_file_of_the_working_directory_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / DEFAULT_PATH).write_text("[defaults]\nmatch_length = 9\n")
    settings = load_settings(environ=NO_ENV)
    assert settings.defaults.match_length == 9 and settings.source == DEFAULT_PATH


def test_a_config_file_named_explicitly_must_exist(tmp_path: Path) -> None:
    missing = tmp_path / "absent.toml"
    with pytest.raises(ConfigError) as info:
        load_settings(missing)
    assert str(info.value).startswith(f"{missing}: ") and "\n" not in str(info.value)
    with pytest.raises(ConfigError, match="folder"):
        load_settings(tmp_path)


def test_the_environment_overrides_the_storage_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, '[storage]\nurl = "postgresql://bot@db/games"\n')
    monkeypatch.delenv("GAMMONBOT_DATABASE_URL", raising=False)
    assert load_settings(path).storage_url == "postgresql://bot@db/games"
    monkeypatch.setenv("GAMMONBOT_DATABASE_URL", "sqlite:///elsewhere.sqlite3")
    assert load_settings(path).storage_url == "sqlite:///elsewhere.sqlite3"
    monkeypatch.setenv("GAMMONBOT_DATABASE_URL", "")  # empty: not set
    assert load_settings(path).storage_url == "postgresql://bot@db/games"
    assert load_settings(path, environ={"GAMMONBOT_DATABASE_URL": "sqlite://"}).storage_url == "sqlite://"
    with pytest.raises(ConfigError, match=r"^GAMMONBOT_DATABASE_URL \(environment\) must be a database URL"):
        load_settings(path, environ={"GAMMONBOT_DATABASE_URL": "mysql://x"})


# --- the shipped file ---------------------------------------------------------------------------------------------


def test_the_shipped_config_file_is_valid_and_says_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load_settings(SHIPPED, environ=NO_ENV)
    assert settings.source == str(SHIPPED)
    assert dataclasses.replace(settings, source=None) == Settings()
    assert settings.theme_names() == ["classic", "high-contrast"] and settings.has_theme("high-contrast")


def _commented_keys() -> list[tuple[str, str, str]]:
    """(section, key, value) of each ``# key = value`` line of the shipped file."""
    found = []
    section = ""
    for line in SHIPPED.read_text().splitlines():
        if m := re.fullmatch(r"\[([a-z.-]+)\]", line):
            section = m.group(1)
        elif section != "render" and (m := re.fullmatch(r"# ([a-z_]+) = (.+?)(\s+#.*)?", line)):
            found.append((section, m.group(1), m.group(2)))
    return found


@pytest.mark.parametrize(("section", "key", "value"), _commented_keys())
def test_each_commented_out_key_of_the_shipped_file_is_valid_and_shows_its_default(
    section: str, key: str, value: str, tmp_path: Path
) -> None:
    text = SHIPPED.read_text().replace(f"# {key} = {value}", f"{key} = {value}", 1)
    if section == "discord":  # shard_ids needs shard_count: the examples go together
        text = text.replace("# shard_count = ", "shard_count = ")
    settings = load(tmp_path, text)
    shown = tomllib.loads(f"v = {value}")["v"]
    if section == "storage" and key == "pool_size":
        assert settings.pool_size == shown  # its default depends on the database
    elif section == "storage":
        assert getattr(StorageSettings(), key) == shown
    elif section == "defaults":
        assert MATCH_OPTION_DEFAULTS[key] == shown
    else:
        assert section == "discord"  # examples, not defaults
        assert getattr(settings.discord, key) in (str(shown), shown, tuple(shown) if isinstance(shown, list) else None)


def test_the_example_theme_of_the_shipped_file_is_valid(tmp_path: Path) -> None:
    lines = SHIPPED.read_text().splitlines()
    start = lines.index("# [render.themes.night]")
    example = [line[2:] for line in lines[start:] if line.startswith("# ")]
    settings = load(tmp_path, SHIPPED.read_text() + "\n".join(example) + "\n")
    night = settings.render.theme("night")
    assert night.width == 960 and night.rgb("field") == (0x1B, 0x2A, 0x3A)
    assert settings.theme_names() == ["classic", "high-contrast", "night"]


def test_the_shipped_file_names_every_colour() -> None:
    from render.theme import CLASSIC

    text = SHIPPED.read_text()
    for name in CLASSIC:
        assert (f'"{name}"' if " " in name else f" {name},") in text or f" {name} (" in text, name


def test_every_section_is_in_the_shipped_file() -> None:
    text = SHIPPED.read_text()
    for section in SECTIONS:
        assert f"\n[{section}]\n" in text


# --- each key carries its value (the bot's wiring is tested where it is used) -----------------------------------


def test_storage_keys(tmp_path: Path) -> None:
    s = load(
        tmp_path,
        '[storage]\nurl = "postgresql://bot@db/games"\nsqlite_synchronous = "normal"\n'
        "pool_size = 20\nsettings_ttl = 1.5\n",
    )
    assert s.storage == StorageSettings("postgresql://bot@db/games", "NORMAL", 20, 1.5)
    assert (s.storage_url, s.sqlite_synchronous, s.pool_size, s.settings_ttl) == (
        "postgresql://bot@db/games",
        "NORMAL",
        20,
        1.5,
    )
    assert load(tmp_path, "[storage]\nsettings_ttl = 0\n").settings_ttl == 0.0


def test_defaults_keys(tmp_path: Path) -> None:
    s = load(tmp_path, '[defaults]\nvariant = "Sprint"\nmatch_length = 0\njacoby = true\nbeavers = true\n')
    assert s.defaults.variant == "sprintgammon"  # an alias is resolved to the rule set's name
    assert s.default_variant == "sprintgammon" and s.default_length == 0
    assert s.defaults.options == {"jacoby": True, "beavers": True}
    opts = s.defaults.match_options()
    assert opts.money and opts.jacoby and opts.beavers and not opts.holland
    assert s.defaults.guild_defaults() == {
        "default_variant": "sprintgammon",
        "default_length": 0,
        "default_options": {"jacoby": True, "beavers": True},
    }


#: A value differing from the engine's default for each match option, and a match length it fits.
OPTION_VALUES: dict[str, tuple[Any, int]] = {
    "games": (10, 0),
    "crawford": (False, 7),
    "cube": (False, 7),
    "max_cube": (16, 7),
    "jacoby": (True, 0),
    "beavers": (True, 0),
    "beaver_limit": (1, 0),
    "auto_doubles": (2, 0),
    "holland": (True, 7),
    "holland_rolls": (3, 7),
    "holland_counts_opening": (False, 7),
    "holland_counts_dances": (False, 7),
    "team_choice": (True, 7),
    "auto_accept_resign": (False, 7),
    "timeout_policy": ("game", 7),
    "opening": (None, 7),  # filled in below: the other opening rule
    "dead_cube": (False, 7),
    "session_hours": (24, 0),
}


def test_every_match_option_has_a_test_value() -> None:
    assert set(OPTION_VALUES) == set(MATCH_OPTION_DEFAULTS)


@pytest.mark.parametrize("key", sorted(OPTION_VALUES))
def test_each_match_option_in_defaults_reaches_the_match_options(key: str, tmp_path: Path) -> None:
    value, length = OPTION_VALUES[key]
    if value is None:
        default = MATCH_OPTION_DEFAULTS[key]
        value = next(str(e.value) for e in type(default) if e != default)
    literal = f'"{value}"' if isinstance(value, str) else str(value).lower()
    s = load(tmp_path, f"[defaults]\nmatch_length = {length}\n{key} = {literal}\n")
    assert s.defaults.options == {key: value}
    got = getattr(s.defaults.match_options(), key)
    assert got == value and got != MATCH_OPTION_DEFAULTS[key]


def test_ratings_system(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert load(tmp_path, '[ratings]\nsystem = "fibs"\n').ratings == RatingSettings("fibs")
    fibs = registry().find_rating_system("fibs")
    monkeypatch.setitem(registry().rating_systems, "glicko", fibs)  # a plugin's system, registered
    s = load(tmp_path, '[ratings]\nsystem = "glicko"\n')
    assert s.ratings.system == s.rating_system == "glicko"
    assert registry().find_rating_system(s.rating_system) is fibs


def test_limits_keys(tmp_path: Path) -> None:
    s = load(
        tmp_path,
        "[limits]\nmax_open_challenges_per_player = 3\nmax_open_challenges_per_server = 40\nmax_play_length = 64\n",
    )
    assert s.limits == LimitSettings(3, 40, 64)
    assert Settings().limits == LimitSettings(10, 200, 100)


def test_logging_level(tmp_path: Path) -> None:
    assert load(tmp_path, '[logging]\nlevel = "debug"\n').logging == LoggingSettings("DEBUG")
    assert load(tmp_path, '[logging]\nlevel = "WARNING"\n').log_level == "WARNING"


def test_discord_keys(tmp_path: Path) -> None:
    s = load(tmp_path, '[discord]\nguild_id = "123456789012345678"\nshard_count = 4\nshard_ids = [2, 3]\n')
    assert s.discord == DiscordSettings("123456789012345678", 4, (2, 3))
    assert (s.guild_id, s.shard_count, s.shard_ids) == ("123456789012345678", 4, (2, 3))
    assert load(tmp_path, "[discord]\nguild_id = 123456789012345678\n").guild_id == "123456789012345678"
    assert load(tmp_path, "[discord]\nshard_count = 2\n").shard_ids is None


def test_the_raw_file_is_kept(tmp_path: Path) -> None:
    assert load(tmp_path, "[logging]\nlevel = 'INFO'\n").raw == {"logging": {"level": "INFO"}}


# --- the object itself ------------------------------------------------------------------------------------------


def test_the_flat_keywords_of_earlier_versions_still_build_settings() -> None:
    s = Settings(storage_url="sqlite:///x", guild_id="42", shard_count=2, shard_ids=[0, 1])  # type: ignore[arg-type]
    assert s.storage == StorageSettings(url="sqlite:///x")
    assert s.discord == DiscordSettings("42", 2, (0, 1))
    s = Settings(pool_size=3, settings_ttl=0.5, sqlite_synchronous="OFF", default_variant="doubles", default_length=3)
    assert (s.storage.pool_size, s.storage.settings_ttl, s.storage.sqlite_synchronous) == (3, 0.5, "OFF")
    assert s.defaults == DefaultSettings("doubles", 3) and Settings(log_level="DEBUG").logging.level == "DEBUG"
    both = Settings(storage=StorageSettings(url="sqlite:///a", pool_size=4), storage_url="sqlite:///b")
    assert both.storage == StorageSettings(url="sqlite:///b", pool_size=4)
    assert dataclasses.replace(s, defaults=DefaultSettings(match_length=1)).default_length == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.storage = StorageSettings()  # type: ignore[misc]


# --- errors: one line, naming the file and the key ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '[defaults]\nmatch_length = "five"\n',
            "[defaults] match_length must be a whole number from 0 to 99, not 'five",
        ),
        ("[defaults]\nmatch_length = 100\n", "[defaults] match_length must be a whole number from 0 to 99, not 100"),
        ("[defaults]\nmatch_length = true\n", "[defaults] match_length must be a whole number"),
        ('[defaults]\nvariant = "chess"\n', "[defaults] variant must be a rule set (aceydeucey, backgammon, doubles,"),
        ("[defaults]\njacoby = true\n", "[defaults] options do not fit together (match_length = 5, jacoby = true):"),
        ("[defaults]\njacoby = 1\n", "[defaults] jacoby must be true or false, not 1"),
        ("[defaults]\nmax_cube = 3\n", "[defaults] options do not fit together (match_length = 5, max_cube = 3)"),
        ('[defaults]\ntimeout_policy = "never"\n', "[defaults] timeout_policy must be one of ibf, game, not 'never'"),
        ("[defaults]\nlength = 3\n", "[defaults] has no setting 'length' (did you mean match_length?)"),
        ("[storage]\npool_size = -1\n", "[storage] pool_size must be a whole number from 1 to 1000, not -1"),
        ("[storage]\npool_size = 0\n", "[storage] pool_size must be a whole number from 1 to 1000, not 0"),
        ("[storage]\nsettings_ttl = nan\n", "[storage] settings_ttl must be a number of seconds from 0 to 3600"),
        ("[storage]\nsettings_ttl = inf\n", "[storage] settings_ttl must be a number of seconds from 0 to 3600"),
        ('[storage]\nsqlite_synchronous = "fast"\n', "[storage] sqlite_synchronous must be one of OFF, NORMAL, FULL"),
        ('[storage]\nurl = "gammon.db"\n', "[storage] url must be a database URL"),
        ("[storage]\nurl = 5\n", "[storage] url must be a database URL"),
        ("[storage]\npool = 5\n", "[storage] has no setting 'pool' (did you mean pool_size?)"),
        ('[ratings]\nsystem = "elo"\n', "[ratings] system must be a registered rating system (fibs), not 'elo'"),
        ("[limits]\nmax_play_length = 5\n", "[limits] max_play_length must be a whole number from 20 to 200, not 5"),
        ("[limits]\nmax_open_challenges_per_player = 0\n", "[limits] max_open_challenges_per_player must be"),
        ('[logging]\nlevel = "loud"\n', "[logging] level must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL"),
        ('[discord]\nguild_id = "my server"\n', "[discord] guild_id must be a Discord server id"),
        ("[discord]\nguild_id = 0\n", "[discord] guild_id must be a Discord server id"),
        ("[discord]\nshard_ids = [0]\n", "[discord] shard_ids needs shard_count"),
        ("[discord]\nshard_count = 2\nshard_ids = [2]\n", "[discord] shard_ids must be shard numbers below"),
        ("[discord]\nshard_count = 2\nshard_ids = [1, 1]\n", "[discord] shard_ids must be a list of distinct shard"),
        ("[discord]\nshard_count = 0\n", "[discord] shard_count must be a whole number from 1 to 10000, not 0"),
        ("[render]\nwidth = 1000000000\n", "[render] width must be a whole number of pixels from 320 to 2400"),
        ('[render]\ntheme = "nope"\n', "[render] theme must name a theme (classic, high-contrast), not 'nope'"),
        ('[render.themes.x]\nfield = "green"\n', '[render.themes.x] field must be a colour written "#rrggbb"'),
        ('[render.themes.x]\nfeild = "#000000"\n', "[render.themes.x] has no colour 'feild' (did you mean field?)"),
        ('[render.themes."My Theme"]\n', "[render.themes] theme name 'My Theme' must be"),
        ("[render.themes.default]\n", "[render.themes] a theme cannot be called 'default'"),
        ("[render]\ncompress_level = 10\n", "[render] compress_level must be a whole number from 0 to 9, not 10"),
        ("[render]\npalette_colors = 1\n", "[render] palette_colors must be 0 (full colour) or a whole number"),
        ("[render]\ncolour = 1\n", "[render] has no setting 'colour'"),
        ("[discrod]\nguild_id = 1\n", "unknown section [discrod] (did you mean discord?)"),
        ("level = 1\n", "level must be inside a section ([storage], [defaults]"),
        ("logging = 1\n", "logging must be a section ([logging]), not 1"),
        ("[storage\n", "not valid TOML: "),
        ("a = " + "[" * 2000 + "]" * 2000 + "\n", "not valid TOML: arrays or tables nested too deeply"),
        ("[storage]\npool_size = " + "9" * 5000 + "\n", "cannot be read: "),
    ],
)
def test_bad_settings_are_one_line_naming_the_file_and_the_key(text: str, expected: str, tmp_path: Path) -> None:
    assert refused(tmp_path, text).startswith(expected)


def test_a_file_that_is_not_text_or_too_large_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"[storage]\nurl = '\xff'\n")
    with pytest.raises(ConfigError, match="UTF-8"):
        load_settings(path)
    path.write_text("# " + "x" * (1 << 20) + "\n")
    with pytest.raises(ConfigError, match="too large"):
        load_settings(path)

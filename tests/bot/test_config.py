"""config.toml: what the bot reads at start-up, its defaults, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ConfigError, Settings, load_settings


def test_a_missing_file_gives_the_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GAMMONBOT_DATABASE_URL", raising=False)
    settings = load_settings(tmp_path / "absent.toml")
    assert settings.storage_url == Settings.storage_url == "sqlite:///gammonbot.sqlite3"
    assert settings.pool_size is None and settings.settings_ttl == 5.0 and settings.sqlite_synchronous == "FULL"


def test_storage_settings_and_the_environment_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[storage]\nurl = "postgresql://bot@db/games"\npool_size = 20\nsettings_ttl = 1.5\n'
        "[discord]\nshard_count = 4\nshard_ids = [2, 3]\n"
    )
    monkeypatch.delenv("GAMMONBOT_DATABASE_URL", raising=False)
    settings = load_settings(path)
    assert (settings.storage_url, settings.pool_size, settings.settings_ttl) == ("postgresql://bot@db/games", 20, 1.5)
    assert (settings.shard_count, settings.shard_ids) == (4, (2, 3))
    monkeypatch.setenv("GAMMONBOT_DATABASE_URL", "sqlite:///elsewhere.sqlite3")
    assert load_settings(path).storage_url == "sqlite:///elsewhere.sqlite3"


def test_the_shipped_config_file_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GAMMONBOT_DATABASE_URL", raising=False)
    settings = load_settings(Path(__file__).resolve().parents[2] / "config.toml")
    assert settings.storage_url.startswith("sqlite:///") and settings.default_variant == "backgammon"


def test_a_broken_file_names_itself(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[storage\nurl = 1\n")
    with pytest.raises(ConfigError, match="config.toml"):
        load_settings(path)

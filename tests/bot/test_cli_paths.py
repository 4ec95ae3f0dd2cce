"""Issue 33, item 1 and 6: files, folders and databases a user names wrongly are one line naming them and the fix,
never a traceback; the console session goes on; ``gammonbot run`` opens the database before it logs in."""

from __future__ import annotations

import asyncio
import io
import logging
from pathlib import Path

import discord
import pytest

from bot.cli import main
from bot.config import Settings
from bot.discord import app, network
from tests.bot.console_session import Session, refusals, run


def cli(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: str, stdin: str = ""
) -> tuple[int, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    out = io.StringIO()
    code = main(list(argv), out)
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Traceback" not in out.getvalue()
    return code, err


def test_export_to_a_missing_folder_or_to_a_folder_is_refused_and_the_session_goes_on(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        await s.type("alice: play bob backgammon 1", "bob: accept")
        missing = tmp_path / "nowhere" / "m.mat"
        said = await s.type(f"alice: export {missing}")
        assert refusals(said) == [
            f"! cannot write {missing}: the folder {missing.parent} does not exist (make it, or give another file)"
        ]
        said = await s.type(f"alice: export {tmp_path}")
        assert refusals(said) == [f"! {tmp_path} is a folder: give a file name, e.g. {tmp_path / 'match.mat'}"]
        said = await s.type(f"alice: export {tmp_path / 'm.mat'}", "alice: roll")
        assert (tmp_path / "m.mat").exists() and not refusals(said)

    run(tmp_path, body)


def test_boards_naming_a_file_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "afile"
    file.write_text("")
    code, err = cli(monkeypatch, capsys, "console", "--db", str(tmp_path / "g.sqlite3"), "--boards", str(file))
    assert (
        code == 2 and err == f"gammonbot: --boards {file} is a file: give a folder (it is made if it does not exist)\n"
    )


def test_a_database_that_cannot_be_opened_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "nowhere" / "g.sqlite3"
    code, err = cli(monkeypatch, capsys, "console", "--db", str(db), stdin="games\n")
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"gammonbot: cannot open the database sqlite:///{db}: the folder {db.parent} does not exist")
    code, err = cli(monkeypatch, capsys, "console", "--db", str(tmp_path), stdin="games\n")
    assert code == 2 and f"the database sqlite:///{tmp_path} is a folder" in err


def test_a_database_server_that_is_not_there_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url = "postgresql://someone:secret@127.0.0.1:1/games"  # port 1: nothing listens there
    code, err = cli(monkeypatch, capsys, "console", "--db", url, stdin="games\n")
    assert code == 2 and err.count("\n") == 1 and "secret" not in err
    assert err.startswith("gammonbot: cannot reach the database postgresql://someone:***@127.0.0.1:1/games: ")


def test_run_checks_the_database_before_logging_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    logins: list[str] = []

    async def login(self: object, token: str) -> None:
        logins.append(token)

    monkeypatch.setattr(discord.http.HTTPClient, "static_login", login)
    monkeypatch.setenv("DISCORD_TOKEN", "abc.def.ghi")
    config = tmp_path / "config.toml"
    config.write_text(f'[storage]\nurl = "sqlite:///{tmp_path / "no" / "games.sqlite3"}"\n')
    with caplog.at_level(logging.INFO):
        assert main(["run", "--config", str(config)]) == 2
    assert logins == []
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [
        f"cannot open the database sqlite:///{tmp_path / 'no' / 'games.sqlite3'}: the folder {tmp_path / 'no'} does "
        "not exist (make it, or give another file); see [storage] url in config.toml"
    ]


def test_run_waits_for_a_database_server_that_does_not_answer_yet(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []

    async def wait(delay: float) -> None:
        waits.append(delay)
        if len(waits) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(network, "wait", wait)
    settings = Settings(storage_url="postgresql://u@127.0.0.1:1/x")
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(app.database_ready(settings))
    assert waits == [5, 10]


def test_no_voice_warnings_for_a_bot_that_never_joins_voice(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(discord.VoiceClient, "warn_nacl", True)
    monkeypatch.setattr(discord.VoiceClient, "warn_dave", True, raising=False)
    network.quiet_reconnects()
    with caplog.at_level(logging.WARNING, logger="discord"):
        discord.Client(intents=discord.Intents.none())
    assert not [r for r in caplog.records if "voice" in r.getMessage()]


def test_the_refusal_without_a_token_names_a_readme_section_that_exists(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    assert main(["run", "--config", "/nonexistent/config.toml"]) == 2
    err = capsys.readouterr().err
    section = err.split("see README, ", 1)[1].split(")", 1)[0]
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    assert f"## {section}\n" in readme

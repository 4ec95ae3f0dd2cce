"""The console and the ``gammonbot`` tools in other languages: ``--lang`` (else ``GAMMONBOT_LANG``) runs the whole
session in a shipped language (prompts, help, refusals, boards), an unknown language is refused with the list of
the shipped ones, and English stays as it was."""

from __future__ import annotations

import asyncio
import io
import re
import sys
from pathlib import Path
from typing import Any

import pytest

import render.board
from bot.cli import ENV_LANG, main
from bot.console import run_console
from bot.console_text import COMMANDS, TOPICS, dice_text, help_text
from engine import i18n
from engine.i18n import _, ngettext

#: The README's quick start with a few more lines: a refusal of the engine (24/1 with 2-4), help, an unknown word.
LINES = """\
as alice
play bob backgammon 3
as bob
accept
roll
move 13/7 8/7
as alice
roll
move 24/1
move 8/4 6/4
board
help cube
foo
help
quit
"""

#: The engine's refusal of 24/1 with 2-4, as the English session prints it.
ENGINE_REFUSAL = "! 24/1 is 23 pips, which your dice 2-4 cannot make"


@pytest.fixture(autouse=True)
def _no_language_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_LANG, raising=False)


def gammonbot(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: str, typed: str = ""
) -> tuple[int, str, str]:
    """``gammonbot ARGV`` with ``typed`` as standard input: exit status, output, errors."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(typed))
    out = io.StringIO()
    code = main(list(argv), out)
    return code, out.getvalue(), capsys.readouterr().err


def session(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db: Path, *lang: str, typed: str = LINES
) -> str:
    code, out, err = gammonbot(monkeypatch, capsys, "console", "--db", str(db), "--seed", "15", *lang, typed=typed)
    assert code == 0 and "Traceback" not in err, err
    return out


def refusals(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("! ")]


def cyrillic(text: str) -> bool:
    return re.search("[а-яА-ЯёЁ]", text) is not None


def test_english_is_unchanged_without_a_language_and_with_lang_en(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = session(monkeypatch, capsys, tmp_path / "a.sqlite3")
    english = session(monkeypatch, capsys, tmp_path / "b.sqlite3", "--lang", "en")
    assert plain == english
    for line in (
        "you are alice",
        "bob: type accept or decline.",
        "bob to play 6-1.",
        "alice to play 2-4.",
        ENGINE_REFUSAL,
        "! unknown command 'foo'; type help for the list",
        "#1 Backgammon 3-point match, alice vs bob, score 0-0, cube 1 (centred): bob to roll or double.",
    ):
        assert line in plain.splitlines(), (line, plain)
    assert TOPICS["cube"] in plain and help_text() in plain
    assert refusals(plain) == [ENGINE_REFUSAL, "! unknown command 'foo'; type help for the list"]


def test_a_console_session_in_russian(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    said = session(monkeypatch, capsys, tmp_path / "ru.sqlite3", "--lang", "ru")
    lines = said.splitlines()
    for line in (
        "вы — alice",
        "bob: введите accept или decline.",
        "bob: сыграть 6-1.",
        "alice: сыграть 2-4.",
        "! неизвестная команда 'foo'; введите help, чтобы увидеть список",
        "Команды (начните строку с ИМЯ:, чтобы ввести её от имени ИМЯ только для этой строки, напр. bob: roll):",
    ):
        assert line in lines, (line, said)
    assert any(line.startswith("допустимые ходы: ") and "(всего 10)" in line for line in lines), said
    assert any(line.startswith("#1 ") and "счёт 0-0, куб 1 (в центре)" in line for line in lines), said
    assert "Куб: перед броском игрок, чья очередь, может удвоить ставку (double)." in said  # help cube
    with i18n.use("ru"):
        assert help_text() in said and _(TOPICS["cube"]) in said
    # The help's English is gone: no command's description is left untranslated.
    assert "Commands (start a line" not in said and "roll the dice (the opening roll" not in said
    # The engine's refusal of 24/1 comes through in the session's language.
    refusal = refusals(said)[0]
    with i18n.use("ru"):
        in_russian = _("{move} is {pips}, which your dice {dice} cannot make").split("{pips}")[-1]
    assert refusal.startswith("! 24/1 ") and cyrillic(refusal) and refusal.endswith(in_russian.format(dice="2-4"))


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "el",
            [
                "είστε ο/η alice",
                "bob: γράψτε accept ή decline.",
                "bob: παίζει 6-1.",
                "! άγνωστη εντολή 'foo'· γράψτε help για τη λίστα",
            ],
        ),
        (
            "tr",
            [
                "artık alice olarak yazıyorsunuz",
                "bob: accept veya decline yazın.",
                "bob: 6-1 oynar.",
                "! bilinmeyen komut 'foo'; liste için help yazın",
            ],
        ),
    ],
)
def test_console_sessions_in_greek_and_turkish(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lang: str,
    expected: list[str],
) -> None:
    said = session(monkeypatch, capsys, tmp_path / f"{lang}.sqlite3", "--lang", lang)
    for line in expected:
        assert line in said.splitlines(), (line, said)
    with i18n.use(lang):
        assert help_text() in said and _(TOPICS["cube"]) in said
        refused = _("{move} is {pips}, which your dice {dice} cannot make").split("{pips}")[-1].format(dice="2-4")
    assert "Commands (start a line" not in said
    assert refusals(said)[0].endswith(refused) and refusals(said)[0] != ENGINE_REFUSAL  # the engine's, in lang


def test_an_unknown_language_is_refused_with_the_list_of_languages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    listing = "en (English), ru (Русский), el (Ελληνικά), tr (Türkçe)"
    code, out, err = gammonbot(monkeypatch, capsys, "console", "--db", str(tmp_path / "x.sqlite3"), "--lang", "xx")
    assert code == 2 and out == ""
    assert err == f"gammonbot: --lang 'xx': no such language; choose one of {listing}\n"
    assert not (tmp_path / "x.sqlite3").exists()  # refused before anything was opened
    # GAMMONBOT_LANG is checked the same way, and its language speaks the refusal of a bad --lang.
    monkeypatch.setenv(ENV_LANG, "klingon")
    code, out, err = gammonbot(monkeypatch, capsys, "console", "--db", str(tmp_path / "x.sqlite3"))
    assert code == 2 and out == ""
    assert err == f"gammonbot: {ENV_LANG} (environment) 'klingon': no such language; choose one of {listing}\n"
    monkeypatch.setenv(ENV_LANG, "ru")
    code, out, err = gammonbot(monkeypatch, capsys, "console", "--lang", "xx")
    assert code == 2 and err == f"gammonbot: --lang 'xx': такого языка нет; выберите один из: {listing}\n"


def test_the_environment_chooses_the_language_and_lang_overrides_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(ENV_LANG, "ru_RU.UTF-8")  # a locale-style tag names its language
    said = session(monkeypatch, capsys, tmp_path / "env.sqlite3", typed="as alice\n")
    assert "вы — alice" in said.splitlines()
    said = session(monkeypatch, capsys, tmp_path / "env.sqlite3", "--lang", "tr", typed="as alice\n")
    assert "artık alice olarak yazıyorsunuz" in said.splitlines()
    said = session(monkeypatch, capsys, tmp_path / "env.sqlite3", "--lang", "en", typed="as alice\n")
    assert "you are alice" in said.splitlines()


def test_boards_follow_the_sessions_language(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ASCII board is drawn in the session's language (the pseudo-language shows its words bracketed), and every
    PNG written with --boards is drawn in it too (in the worker thread that draws it)."""
    drawn: list[str] = []
    original = render.board.render_board

    def recording(*args: Any, **kwargs: Any) -> Any:
        drawn.append(i18n.language())
        return original(*args, **kwargs)

    monkeypatch.setattr(render.board, "render_board", recording)
    out = io.StringIO()
    typed = io.StringIO("as alice\nplay bob backgammon 3\nas bob\naccept\nroll\nboard\n")
    url = f"sqlite:///{tmp_path / 'boards.sqlite3'}"
    assert asyncio.run(run_console(url, typed, out, boards=tmp_path / "png", seed=15, lang="ru")) == 0
    pngs = sorted((tmp_path / "png").glob("*.png"))
    assert pngs and drawn and set(drawn) == {"ru"}
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in pngs)

    out = io.StringIO()
    typed = io.StringIO("as alice\nplay bob backgammon 3\nas bob\naccept\nroll\nboard\n")
    url = f"sqlite:///{tmp_path / 'qps.sqlite3'}"
    assert asyncio.run(run_console(url, typed, out, seed=15, lang=i18n.PSEUDO)) == 0
    footers = [line for line in out.getvalue().splitlines() if "pips" in line]
    assert footers and all(line.strip().startswith(i18n.PSEUDO_OPEN) for line in footers), out.getvalue()
    assert i18n.language() == i18n.DEFAULT  # the session's language does not leak out of it


def test_run_console_refuses_an_unknown_language() -> None:
    with pytest.raises(ValueError, match="no language 'xx'"):
        asyncio.run(run_console("sqlite:///unused.sqlite3", io.StringIO(), io.StringIO(), lang="xx"))


def test_config_errors_at_start_speak_the_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[defaults]\nmatch_length = "five"\n', encoding="utf-8")
    code, out, err = gammonbot(monkeypatch, capsys, "console", "--config", str(bad))
    assert (
        code == 2
        and err == f"gammonbot: {bad}: [defaults] match_length must be a whole number from 0 to 99, not 'five'\n"
    )
    code, out, err = gammonbot(monkeypatch, capsys, "console", "--lang", "ru", "--config", str(bad))
    assert (
        code == 2 and err == f"gammonbot: {bad}: [defaults] match_length: нужно целое число от 0 до 99, а не 'five'\n"
    )
    code, out, err = gammonbot(monkeypatch, capsys, "console", "--lang", "el", "--config", str(tmp_path / "none.toml"))
    assert code == 2 and "δεν υπάρχει τέτοιο αρχείο ρυθμίσεων (ελέγξτε το --config)" in err


def test_the_tools_speak_the_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mat = tmp_path / "m.mat"
    code, out, err = gammonbot(monkeypatch, capsys, "selfplay", "--length", "1", "--seed", "1", "--mat", str(mat))
    assert code == 0 and re.search(r"after 1 games?; ", out), out
    code, out, err = gammonbot(
        monkeypatch, capsys, "selfplay", "--length", "3", "--seed", "1", "--mat", str(mat), "--lang", "ru"
    )
    assert code == 0 and re.search(r"матч до 3 очков: .* после \d+ парти[ий]; ", out), out
    code, out, err = gammonbot(monkeypatch, capsys, "import", str(mat), "--lang", "ru")
    assert code == 0 and "Итоговый счёт: " in out and "Партия 1: " in out, out
    code, english, err = gammonbot(monkeypatch, capsys, "import", str(mat))
    assert code == 0 and "Final score: " in english and "Game 1: " in english
    code, out, err = gammonbot(monkeypatch, capsys, "plays", "4HPwATDgc/ABMA", "71", "--lang", "tr")
    assert code == 2 and err == "gammonbot: zar '71': her zar 1'den 6'ya kadar gelir\n"
    (tmp_path / "r.json").write_text("{", encoding="utf-8")
    code, out, err = gammonbot(monkeypatch, capsys, "verify", str(tmp_path / "r.json"), "--lang", "el")
    assert code == 2 and err.startswith(f"gammonbot: το {tmp_path / 'r.json'} δεν είναι JSON (")


class _Stats:
    """Dice statistics as engine.fairdice.DiceStats has them (what dice_text reads)."""

    def __init__(self, rolls: int) -> None:
        self.rolls = rolls
        self.faces = (rolls,) * 6
        self.expected_face = rolls * 2 / 6
        self.face_p_value = 0.5
        self.doublets = rolls // 6
        self.expected_doublets = rolls / 6
        self.face_chi_square = 1.25


def test_representative_messages_in_each_language() -> None:
    singular, plural = (
        "{name}'s dice: {count} roll (opening throws not counted)",
        "{name}'s dice: {count} rolls (opening throws not counted)",
    )
    with i18n.use("ru"):
        forms = [ngettext(singular, plural, n).format(name="bob", count=n) for n in (1, 3, 5)]
        assert forms == [
            "кости bob: 1 бросок (первые броски не считаются)",
            "кости bob: 3 броска (первые броски не считаются)",
            "кости bob: 5 бросков (первые броски не считаются)",
        ]
        table = dice_text("bob", _Stats(1200))
        assert table.startswith("кости bob: 1\xa0200 бросков") and "хи-квадрат 1,25" in table
        assert "ожидается" in table and "400,0" in table
        words = " ".join(help_text().split())
        for command in COMMANDS:  # every command's help, in Russian
            assert _(command.what) != command.what, command.what
            assert " ".join(_(command.what).split()) in words
    with i18n.use("el"):
        assert _("you are {name}").format(name="bob") == "είστε ο/η bob"
        assert (
            ngettext(singular, plural, 1)
            .format(name="bob", count=1)
            .endswith("1 ζαριά (οι αρχικές ρίψεις δεν μετρούν)")
        )
        assert (
            ngettext(singular, plural, 2)
            .format(name="bob", count=2)
            .endswith("2 ζαριές (οι αρχικές ρίψεις δεν μετρούν)")
        )
    with i18n.use("tr"):
        assert _("no games") == "oyun yok"
        assert help_text("roll").splitlines()[-1] == "  örnek: roll"
    english = dice_text("bob", _Stats(3))
    assert english.splitlines()[0] == "bob's dice: 3 rolls (opening throws not counted)"
    assert "  fairness: chi-square 1.25, 5 degrees of freedom, p = 0.50: nothing unusual" in english
    assert (
        help_text("roll")
        == "roll [GAME]\n  roll the dice (the opening roll too: either player throws it)\n  example: roll"
    )

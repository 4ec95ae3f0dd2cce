"""Tournaments in every shipped language: the standings and bracket (as text and as pictures, whose labels must fit
in each language), the engine's refusals and decisions, and Russian plurals; English stays as it was.

The pictures drawn here in Russian and Greek were also looked at (see the report of issue 23); these tests hold
what can be checked without eyes: every label fits (nothing is cut short), the layout is the English one, and
no English is left on them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from PIL import Image, ImageChops

from engine import i18n
from engine.tournament import (
    DeadlineRule,
    Entrant,
    Format,
    SideFacts,
    Tournament,
    TournamentError,
    TournamentSpec,
    decide,
    duration_words,
    join,
    new_tournament,
)
from render import bracket as bracket_module
from render import standings as standings_module
from render.bracket import bracket_images, bracket_text, status_line
from render.standings import standings_images, standings_text

from .test_bracket import NAMES, field, golden_bracket, golden_standings, play_rounds

LANGUAGES = ("ru", "el", "tr")


def knockout() -> Tournament:
    """Eight players, a single knockout after its first round."""
    return play_rounds(field(TournamentSpec(Format.KNOCKOUT, name="Spring Cup"), 8), 1)


def signups(n: int, most: int = 256) -> Tournament:
    t = new_tournament(TournamentSpec(Format.SWISS, name="Open", max_entrants=most))
    for i in range(n):
        t = join(t, Entrant(f"p{i}", f"Player {i}", (f"u{i}",)))
    return t


@pytest.fixture
def cuts(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every text a picture had to cut short (an ellipsis) while drawing."""
    found: list[str] = []
    fit = bracket_module.Canvas.fit

    def recording(self: bracket_module.Canvas, text: str, size: int, limit: float) -> str:
        out = fit(self, text, size, limit)
        if out != text:
            found.append(text)
        return out

    monkeypatch.setattr(bracket_module.Canvas, "fit", recording)
    yield found


def test_standings_text_comes_out_in_each_language() -> None:
    t = golden_standings()
    english = standings_text(t)
    expected = {
        "ru": (
            "Швейцарская система · завершён",
            "Игрок",
            "Очки",
            "В-П",
            "Бух",
            "Порядок: очки (победы",
            "Grace дискв.",
        ),
        "el": ("Ελβετικό σύστημα · ολοκληρώθηκε", "Παίκτης", "Βαθμοί", "Ν-Η", "Κατάταξη κατά βαθμούς", "Grace ΑΠΚ"),
        "tr": ("İsviçre sistemi · bitti", "Oyuncu", "Puan", "G-M", "Sıralama ölçütü: puan", "Grace DSK"),
    }
    for lang, words in expected.items():
        with i18n.use(lang):
            text = standings_text(t)
        missing = [w for w in words if w not in text]
        assert not missing, f"{lang}: {missing} not in\n{text}"
        assert "Ranked by" not in text and "Player" not in text and "finished" not in text, text
        # The same table: as many lines, the same numbers in the same places.
        assert len(text.splitlines()) == len(english.splitlines())
        assert re.findall(r"[+-]?\d+", text) == re.findall(r"[+-]?\d+", english)
    assert standings_text(t) == english  # English outside the blocks, as before
    assert english.splitlines()[2].split() == ["#", "Player", "Score", "W-L", "Buch", "MBuch", "+/-"]


def test_bracket_text_comes_out_in_russian_and_greek() -> None:
    t = golden_bracket()
    with i18n.use("ru"):
        ru = bracket_text(t).splitlines()
    with i18n.use("el"):
        el = bracket_text(t).splitlines()
    assert ru[0] == "Spring Cup · Двойное выбывание · тур 4 из 7"
    assert "Тур 1 — Верхняя 1" in ru and "W1-1  (1) Alice         без пары" in ru
    assert ru[ru.index("W1-4  (3) Carol         н/я  (6) Frank") + 1] == "      Frank побеждает: неявка"
    assert "GF2   проигравший GF1    —   победитель GF1" in ru
    assert el[0] == "Spring Cup · Διπλός αποκλεισμός · γύρος 4 από 7"
    assert "Γύρος 1 — Νικητές 1" in el and "W1-1  (1) Alice         ρεπό" in el
    assert "L1-1  (5) Eve ΑΠΚ       ρεπό" in el


def test_the_pseudo_language_leaves_no_english_outside_its_brackets() -> None:
    """Every word of the tables and listings went through the catalog: outside the ⟦…⟧ only names, numbers, match
    ids and punctuation are left."""
    names = sorted([*NAMES, "Spring Cup", "Winter Swiss"], key=len, reverse=True)
    with i18n.use(i18n.PSEUDO):
        texts = [standings_text(golden_standings()), bracket_text(golden_bracket()), bracket_text(knockout())]
    for text in texts:
        bare = re.sub(r"⟦[^⟧]*⟧", "", text)
        for name in names:
            bare = bare.replace(name, "")
        bare = re.sub(r"\b(?:[WLR]\d+-\d+|GF\d)\b", "", bare)
        assert not re.search(r"[^\W\d_]", bare), f"untranslated text: {bare!r}"


@pytest.mark.parametrize("lang", ["ru", "el"])
def test_pictures_in_russian_and_greek_fit_their_labels(lang: str, cuts: list[str]) -> None:
    pictures: dict[str, Callable[[], Image.Image]] = {
        "standings": lambda: standings_images(golden_standings())[0],
        "knockout": lambda: bracket_images(knockout())[0],
        "double elimination": lambda: bracket_images(golden_bracket())[0],
    }
    for what, draw in pictures.items():
        english = draw()
        assert not cuts, f"English {what}: cut short: {cuts}"
        with i18n.use(lang):
            local = draw()
        assert not cuts, f"{lang} {what}: cut short: {cuts}"
        assert local.width == english.width, what  # the same layout: the columns and boxes of the English one
        # A longer legend at most: two more of its lines (the standings' legend has lines of its own height).
        line = standings_module.LEGEND_LINE if what == "standings" else bracket_module.FOOT_LINE
        assert abs(local.height - english.height) <= 2 * line, what
        assert ImageChops.difference(local.crop((0, 0, *english.size)), english).getbbox() is not None, what


def test_the_engine_refuses_and_decides_in_each_language() -> None:
    running = field(TournamentSpec(Format.SWISS, name="Open", rounds=3), 4)
    refusals = {
        "en": "cannot join: the tournament is running",
        "ru": "нельзя записаться: турнир уже идёт",
        "el": "εγγραφή: όχι τώρα, το τουρνουά είναι σε εξέλιξη",
        "tr": "katılma: şimdi olmaz, turnuva devam ediyor",
    }
    for lang, words in refusals.items():
        with i18n.use(lang), pytest.raises(TournamentError) as info:
            join(running, Entrant("x", "X", ("x",)))
        assert str(info.value) == words
    a, b = SideFacts("a", "Alice", pips=142), SideFacts("b", "Bob", pips=97)
    with i18n.use("ru"):
        words = decide(DeadlineRule.PIP_COUNT, a, b).words
    assert words == (
        "Срок тура истёк, а Alice и Bob не доиграли. Правило: проигрывает тот, у кого больше пипсов. "
        "У игрока Alice 142 пипса, у игрока Bob — 97, поэтому побеждает Bob."
    )
    assert decide(DeadlineRule.PIP_COUNT, a, b).words.endswith("Alice has 142 pips to Bob's 97, so Bob wins.")


def test_russian_plurals_of_players_days_and_a_full_tournament() -> None:
    with i18n.use("ru"):
        lines = [status_line(signups(n), "Швейцарская система") for n in (1, 3, 5)]
        days = [duration_words(n * 86400) for n in (1, 3, 5, 21)]
        full = []
        for most in (21, 3, 5):
            with pytest.raises(TournamentError) as info:
                join(signups(most, most), Entrant("x", "X", ("x",)))
            full.append(str(info.value))
    assert lines == [
        "Швейцарская система · идёт запись · 1 участник",
        "Швейцарская система · идёт запись · 3 участника",
        "Швейцарская система · идёт запись · 5 участников",
    ]
    assert days == ["1 день", "3 дня", "5 дней", "21 день"]
    assert full == [
        "турнир заполнен (21 участник)",
        "турнир заполнен (3 участника)",
        "турнир заполнен (5 участников)",
    ]
    assert status_line(signups(1), "Swiss") == "Swiss · sign-ups open · 1 entrant"
    assert status_line(signups(3), "Swiss") == "Swiss · sign-ups open · 3 entrants"

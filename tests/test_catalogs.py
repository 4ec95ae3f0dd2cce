"""Every catalog is complete: each template holds exactly the messages of its source, and every shipped language
translates every message (every plural form, the same placeholders, nothing left fuzzy)."""

from __future__ import annotations

from pathlib import Path

from engine import i18n
from engine.i18n import catalogs

ROOT = Path(__file__).resolve().parents[1]


def test_every_source_file_belongs_to_one_catalog_domain() -> None:
    owned: dict[Path, str] = {}
    for domain in catalogs.SOURCES:
        for path in catalogs._files(domain):
            assert path not in owned, f"{path} is in both {owned[path]} and {domain}"
            owned[path] = domain
    for package in ("engine", "variants", "render", "bot"):
        for path in (ROOT / package).rglob("*.py"):
            if "i18n" in path.relative_to(ROOT).parts[:2]:
                continue
            assert path in owned, f"{path.relative_to(ROOT)} belongs to no catalog domain (engine/i18n/catalogs.py)"


def test_every_catalog_is_complete_and_matches_the_source() -> None:
    found = catalogs.check()
    assert not found.errors, "\n".join(found.errors[:60]) + f"\n… {len(found.errors)} problems in all"


def test_every_domain_has_messages_in_every_language() -> None:
    for domain in i18n.DOMAINS:
        tmpl = catalogs.template(domain)
        assert len([m for m in tmpl if m.id]) > 0, f"the {domain} catalog is empty"
        for lang in i18n.LANGUAGES[1:]:
            assert i18n.po_path(lang, domain).exists(), f"{lang} has no {domain} catalog"


def test_placeholders_are_read_as_format_fields() -> None:
    assert catalogs.placeholders("point {point} is {{not}} {n:>3} {x!r}") == {"point", "n", "x"}

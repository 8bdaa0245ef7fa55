"""The engine's texts as messages (engine/text.py) and their translations (pbem/base/engine_text.py):
every message id the engine's code makes is in the catalogue, German has each of them, with the
same placeholders; a message's English is the text the engine keeps."""
from __future__ import annotations

import string
from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from engine.text import Msg, msg, word
from pbem.base import engine_text, i18n

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "pbem" / "locale"


def extracted() -> set[str]:
    """The ids the engine's code makes, as `make locale` extracts them (`msg`, babel-engine.cfg)."""
    return {m[2] for m in extract_from_dir(str(ROOT / "engine"), method_map=[("**.py", "python")],
                                           keywords={"msg": None})}


def placeholders(pattern: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(pattern) if name is not None}


def test_every_engine_message_is_in_the_catalogue_and_german_has_it_with_its_placeholders():
    ids = extracted()
    assert len(ids) > 200, len(ids)
    template = {m.id for m in read_po((LOCALE / "engine.pot").open("rb")) if m.id}
    assert ids <= template, sorted(ids - template)[:10]  # `make locale` brings engine.pot up to date
    german = {m.id: m.string for m in read_po((LOCALE / "de" / "LC_MESSAGES" / "engine.po").open("rb")) if m.id}
    missing = sorted(i for i in ids if not german.get(i))
    assert not missing, missing[:10]
    # `{s}` is an English plural ending ("turn{s}"): a language that says the plural otherwise leaves it out
    wrong = [(i, german[i]) for i in ids if placeholders(german[i]) - {"s"} != placeholders(i) - {"s"}]
    assert not wrong, wrong[:10]


def test_a_message_reads_in_the_readers_language_with_its_values_as_they_are():
    m = msg("{player} rolls {roll} for movement.", player="anna", roll=5)
    assert m.english() == "anna rolls 5 for movement."
    assert engine_text.said(m.english(), m) == "anna rolls 5 for movement."  # English: the engine's own text
    with i18n.using("de"):
        assert engine_text.said(m.english(), m) == "anna würfelt 5 für die Bewegung."
        # as stored (JSON), a word that is a message itself translated too
        lost = msg("{player} loses {n} {what}.", player="anna", n=1, what=word("craft"))
        assert lost.english() == "anna loses 1 Craft."
        assert engine_text.said(lost.english(), ["{player} loses {n} {what}.", {"player": "anna", "n": 1,
                                                                                  "what": ["Craft", {}]}]) \
            == "anna verliert 1 List."
        # a text with no message, or one the catalogue lacks, is as the engine wrote it
        assert engine_text.said("anna sings.", None) == "anna sings."
        assert engine_text.said("anna sings.", Msg("{player} sings.", {"player": "anna"})) == "anna sings."

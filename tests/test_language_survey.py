"""tools/language_survey.py (issue 29): which lines of a German reader's mail still look
English, and a short game played through the pipeline finds the German reader's mails."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import language_survey as survey  # noqa: E402


def test_english_words_mark_a_line_names_kept_as_printed_do_not():
    names = survey.stand_ins("revised4", ())
    assert survey.english("email: a code was sent to you", names) == ["sent", "to", "you"]  # not 'was': German
    assert survey.english("Ihre Frage: Sie stehen auf Friedhof; Kampf oder Flucht", names) == []
    # a card named as printed (no German name yet), its answer key too: not English to count
    kept = "The Lost Realms"  # every such name of the base game has a German one now: one kept, as a test
    assert survey.english(f"Sie ziehen {kept}.", names) == ["The"]
    assert survey.english(f"Sie ziehen {kept}.", [kept, *names]) == []
    assert survey.english("Zugdatei mit token; Adresse anna@example.de", names) == []
    assert survey.english("dann ein neuer Wurf: left: 1 Plains", names) == ["left"]


def test_a_short_game_reads_the_german_seats_mails():
    found: dict = {}
    mails, lines = survey.survey("revised4", 4, 1, found)
    assert mails >= 4  # the welcome, the first report, a receipt or two
    assert all("revised4" in f.sets for f in found.values())
    assert lines == sum(f.sets["revised4"] for f in found.values())


def test_an_html_part_is_read_as_its_lines():
    lines = survey.html_lines("<html><head><style>p{}</style></head><p>Ihre <code>17: links</code>&nbsp;x</p></html>")
    assert [ln.strip() for ln in lines if ln.strip()] == ["Ihre", "17: links", "x"]  # no style, no tags

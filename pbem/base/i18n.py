"""The reader's language: message catalogues (Babel, gettext), the language a text is made in
now, and dates, numbers and durations in the reader's locale.

Texts are English in the code and the templates and translated by the catalogues in
pbem/locale/<lang>/LC_MESSAGES/pbem.po (`make locale` extracts, updates and compiles them;
docs/translating.md). A mail is made for one reader: whoever makes it says whose language
with `using(lang)`, and every `_()` inside (the notes of a receipt, a reminder's subject,
a date) is in that language; the templates get the same catalogue (pbem/outbound/render.py).
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Iterator
from datetime import datetime
from gettext import NullTranslations  # English's (the texts as written); babel's adds nothing used
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from babel import Locale

# Babel is imported where a catalogue, a date or a number in a locale is made: a process that
# writes nothing to a reader (a pipe's `ingest`, most commands) paid about 5 ms for it.

DOMAIN = "pbem"
ENGINE_DOMAIN = "engine"  # the engine's messages (engine/text.py): a catalogue of their own, apart from the service's
DEFAULT = "en"  # the language of the code and the templates: needs no catalogue
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
# What a player may write for a language (`language: Deutsch`), beside its code.
_NAMES = {"en": ("en", "english", "englisch"), "de": ("de", "german", "deutsch")}

_current: contextvars.ContextVar[str] = contextvars.ContextVar("language", default=DEFAULT)


def preferred(accept: str | None) -> str:
    """The language a browser asks for first (its Accept-Language header, "de-DE,de;q=0.9,en;q=0.8")
    among those the service writes; English when it asks for none of them."""
    asked = []
    for part in (accept or "").split(","):
        tag, _, q = part.strip().partition(";q=")
        try:
            asked.append((-float(q or 1), tag.strip()))
        except ValueError:
            continue
    for _weight, tag in sorted(asked, key=lambda a: a[0]):
        try:
            return language(tag)
        except ValueError:
            continue
    return DEFAULT


@functools.cache  # each answer's keys ask (printed_names.answer_key): a glob of the folder was 4 % of handling it
def languages() -> tuple[str, ...]:
    """The languages the service writes: English and each language with a compiled catalogue
    (found once a process, as the catalogues are loaded once: `make locale` runs before a start)."""
    found = sorted(p.parent.parent.name for p in LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.mo"))
    return (DEFAULT, *(lang for lang in found if lang != DEFAULT))


def language(value: str | None) -> str:
    """A language as written (`de`, `de-DE`, `Deutsch`) as the code the service knows; ValueError
    naming the known ones otherwise."""
    text = (value or "").strip().lower().replace("_", "-")
    for code in languages():
        if text in (*_NAMES.get(code, (code,)), code) or text.split("-")[0] == code:
            return code
    raise ValueError(f"{value!r} is not a language this service writes (write one of: {', '.join(languages())})")


@functools.cache
def translations(lang: str, domain: str = DOMAIN) -> NullTranslations:
    """The catalogue of `lang` (English: none, the texts as written): the service's own texts, or
    the engine's messages (domain ENGINE_DOMAIN, pbem/base/engine_text.py)."""
    if lang == DEFAULT:
        return NullTranslations()
    from babel.support import Translations
    found = Translations.load(str(LOCALE_DIR), [lang], domain)
    if not isinstance(found, Translations):
        raise LookupError(f"no compiled catalogue for {lang!r} in {LOCALE_DIR} (make locale)")
    return found


def current() -> str:
    return _current.get()


@contextlib.contextmanager
def using(lang: str | None) -> Iterator[str]:
    """Texts made inside are in `lang` (None: as they were)."""
    if lang is None:
        yield current()
        return
    token = _current.set(lang)
    try:
        yield lang
    finally:
        _current.reset(token)


def switch(lang: str) -> None:
    """From now on in `lang`, up to the end of the `using` block this runs in (a mail that says
    `language: de` has the rest of its replies in German)."""
    _current.set(lang)


NAMES = {"en": "English", "de": "Deutsch"}  # each language by its own name


def name(lang: str) -> str:
    return NAMES.get(lang, lang)


def _(message: str, **values) -> str:
    """`message` in the current language, its `%(name)s` filled from `values`."""
    text = translations(current()).gettext(message)
    return text % values if values else text


def ngettext(singular: str, plural: str, n: int, **values) -> str:
    """The form of `n` in the current language; `%(n)s` and `values` filled in."""
    text = translations(current()).ngettext(singular, plural, n)
    return text % {"n": n, **values}


def N_(message: str) -> str:
    """A text marked for the catalogue and translated where it is shown (a template's `_()`)."""
    return message


def locale(lang: str | None = None) -> Locale:
    from babel import Locale, UnknownLocaleError
    try:
        return Locale.parse(lang or current())
    except (UnknownLocaleError, ValueError):
        return Locale.parse(DEFAULT)


def when(t: datetime, lang: str | None = None) -> str:
    """A local time (already in the reader's zone) as the reader's locale writes it, with the
    zone's abbreviation: "Sonntag, 25. Oktober 2026, 11:00 MEZ"."""
    from babel import dates as babel_dates
    loc = locale(lang)
    day = babel_dates.format_date(t, "full", locale=loc)
    return f"{day}, {babel_dates.format_time(t, 'HH:mm', locale=loc)} {t.tzname()}"


def number(n: float, lang: str | None = None) -> str:
    from babel import numbers as babel_numbers
    return babel_numbers.format_decimal(n, locale=locale(lang))



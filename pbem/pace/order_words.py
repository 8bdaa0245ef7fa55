"""A standing order in a reader's words: `wenn kampf antworte kämpfen` beside `when fight answer
fight`. The words are data (order_words.toml beside this module): per language, the order's own
words (`syntax`) and a word for each kind of question (`kinds`). Every language's words are read
in every game, as the option words are (pbem/base/option_keys.py); a reader of a language is
shown its words (`word`, `kind`), and only where reading them gives the same back. A kind the
file has no word for is shown as the engine names it.
"""
from __future__ import annotations

import functools
import tomllib
from importlib import resources

from pbem.base import i18n
from pbem.base.printed_names import without_umlauts


@functools.cache
def _table() -> dict[str, dict[str, dict[str, str]]]:
    return tomllib.loads(resources.files("pbem.pace").joinpath("order_words.toml").read_text("utf-8"))


def words(english: str) -> tuple[str, ...]:
    """Every language's words for the order word `english` ("when" -> ("when", "wenn")), it first."""
    return (english, *(t["syntax"][english] for t in _table().values() if english in t.get("syntax", {})))


def word(english: str, lang: str) -> str:
    """The order word `english` as a reader of `lang` writes it."""
    return _table().get(lang, {}).get("syntax", {}).get(english, english)


def read_named(said: str) -> str:
    """A named order ("neuwurf-wenn-verloren") by its English name; else as it is."""
    for t in _table().values():
        for english, name in t.get("named", {}).items():
            if said in (name, without_umlauts(name)):
                return english
    return said


def named(english: str, lang: str) -> str:
    """The named order `english` as a reader of `lang` is shown it."""
    return _table().get(lang, {}).get("named", {}).get(english, english)


@functools.cache
def _kinds_read() -> dict[str, str]:
    out: dict[str, str] = {}
    for t in _table().values():
        for kind, said in t.get("kinds", {}).items():
            out[said] = out[without_umlauts(said)] = kind
    return out


def read_kind(said: str) -> str:
    """A kind as an order names it, in any language's word, as the engine's name; else as it is."""
    return _kinds_read().get(said, said)


def kind(name: str, lang: str) -> str | None:
    """The kind `name` as a reader of `lang` is shown it; None where the language has no word
    for it (then it is shown as the engine names it). English: the name itself."""
    if lang == i18n.DEFAULT:
        return name
    said = _table().get(lang, {}).get("kinds", {}).get(name)
    return said if said is not None and read_kind(said) == name else None

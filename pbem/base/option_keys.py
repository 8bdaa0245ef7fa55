"""An option's key in the reader's words, both ways.

The engine's option keys are English words ("left", "reroll", "done") and printed names' keys
("graveyard", "cast-healing"); they stay the engine's. A player may answer with the words of any
language the service has (the data file option_words.toml beside this module) or a name as they were
shown it (pbem/base/printed_names.py), in any game (`read`). A reader of another language than
English is shown those words in the answer lines (`shown`): only where `read` takes the shown word
back to the same key, so a line copied from a German report is the same move. A player's name, a
number and a key no language has a word for are shown as they are.

A key made of a word and a rest ("right-1", "cast-healing", "encounter-bob") is shown by its
language's form (its `forms`: "rechts-1", "heilung-wirken", "bob-angreifen") when the rest is in the
reader's words too (a number, a player's name, a card the names file translates); else as the
engine's key whole ("cast-destroy-magic", never a half-English "cast-magie-zerstoeren").
"""
from __future__ import annotations

import functools
import tomllib
from importlib import resources

from engine import content
from pbem.base import i18n, printed_names

NAME, NUMBER, PLAYER = "name", "number", "player"  # what the rest of a form is (option_words.toml)


@functools.cache
def _table() -> dict[str, dict]:
    """option_words.toml beside this module: per language its words, forms and the word of `-on-`."""
    return tomllib.loads(resources.files("pbem.base").joinpath("option_words.toml").read_text("utf-8"))


@functools.cache
def _forms() -> dict[str, dict[str, list[str]]]:
    """Per language, a key's first word -> [its form, what the rest is]."""
    return {lang: words.get("forms", {}) for lang, words in _table().items()}


@functools.cache
def _on_words() -> dict[str, str]:
    return {lang: words["on"]["word"] for lang, words in _table().items() if "on" in words}


@functools.cache
def aliases() -> dict[str, str]:
    """Every language's word (and its spelling without umlauts) -> the engine's key: read in every game."""
    return {spelled: key for words in _table().values() for word, key in words.get("words", {}).items()
            for spelled in (word, printed_names.without_umlauts(word))}


@functools.cache
def _shown_words(lang: str) -> dict[str, str]:
    """The engine's key -> the word `lang`'s reader is shown: the first one given for it."""
    words = _table().get(lang, {}).get("words", {})
    return {key: word for word, key in reversed(words.items())}


def _numbered(key: str) -> tuple[str, str]:
    """("fields", "-3") of "fields-3", a space of several; (key, "") of a key with no number."""
    base, _, n = key.rpartition("-")
    return (base, f"-{n}") if n.isdigit() else (key, "")


def _name_shown(key: str, lang: str) -> str | None:
    """A card's or space's key ("fields-3": a space of several) as the reader's name, or None
    where her names file does not give one (a name spelt alike, "Talisman", is given)."""
    base, n = _numbered(key)
    if base not in _named(lang, content.generation()):
        return None
    return printed_names.shown_key(base, lang) + n


@functools.cache
def _named(lang: str, generation: int) -> frozenset[str]:
    """The keys of the printed names `lang`'s names files give a name for."""
    return frozenset(content.slug(p) for p in printed_names.table(lang))


def _name_read(said: str) -> str:
    base, n = _numbered(said)
    return printed_names.answer_key(base) + n


def _on_shown(key: str, lang: str) -> str | None:
    card, sep, space = key.partition("-on-")
    word = _on_words().get(lang)
    if not sep or word is None:
        return None
    a, b = _name_shown(card, lang), _name_shown(space, lang)
    return f"{a}-{word}-{b}" if a and b else key


def _on_read(said: str) -> str | None:
    for word in _on_words().values():
        card, sep, space = said.partition(f"-{word}-")
        if sep:
            return f"{_name_read(card)}-on-{_name_read(space)}"
    return None


def read(key: str) -> str:
    """An answer's key (lower case) as the engine's: a language's word ("links" -> "left"), a
    translated name ("friedhof" -> "graveyard", "cast-heilung" -> "cast-healing"), a form
    ("rechts-1" -> "right-1", "heilung-wirken" -> "cast-healing"), else as it is."""
    return aliases().get(key) or _form_read(key) or _on_read(key) or printed_names.answer_key(key)


def _form_read(key: str) -> str | None:
    for forms in _forms().values():
        for word, (form, rest_is) in forms.items():
            head, _, tail = form.partition("{}")
            if len(key) > len(head) + len(tail) and key.startswith(head) and key.endswith(tail):
                rest = key[len(head):len(key) - len(tail)]
                if rest_is == NUMBER and not rest.isdigit():
                    continue
                return f"{word}-{printed_names.answer_key(rest) if rest_is == NAME else rest}"
    return None


def _form_shown(key: str, lang: str) -> str | None:
    word, _, rest = key.partition("-")
    found = _forms().get(lang, {}).get(word)
    if not rest or found is None:
        return None
    form, rest_is = found
    if rest_is == NUMBER and not rest.isdigit():
        return None
    if rest_is == NAME:
        rest = printed_names.shown_key(rest, lang)
        if rest == key.partition("-")[2]:  # a name the reader's file does not give: the key stays whole
            return key
    return form.format(rest)


def shown(key: str, lang: str) -> str:
    """The engine's option `key` as a reader of `lang` is shown it in an answer line: their
    language's word or the name they were shown, where `read` gives `key` back; else `key`."""
    if lang == i18n.DEFAULT or not key:  # a deadline row without a default has None
        return key
    word = _shown_words(lang).get(key) or _form_shown(key, lang) or _on_shown(key, lang) \
        or printed_names.shown_key(key, lang)
    return word if read(word) == key else key


def shown_line(line: str, lang: str) -> str:
    """An answer line as the log keeps it ("anna: 4: left", "4: cast-hex woods") with its key as
    a reader of `lang` is shown it ("anna: 4: links"): what she would write for the same move."""
    head, sep, rest = line.rpartition(": ")
    if not sep or lang == i18n.DEFAULT:
        return line
    key, space, args = rest.partition(" ")
    return f"{head}{sep}{shown(key, lang)}{space}{args}"


def in_words(extra: dict, lang: str) -> dict:
    """A reply's context part with its `applied` lines and the `failed` line's open options in the
    reader's words (the player's own lines, `unused`, stay as she wrote them)."""
    if lang == i18n.DEFAULT:
        return extra
    out = {**extra, "applied": [shown_line(ln, lang) for ln in extra.get("applied") or []]}
    failed = extra.get("failed")
    if failed and failed.get("options"):
        out["failed"] = {**failed, "options": [shown(k, lang) for k in failed["options"]]}
    return out

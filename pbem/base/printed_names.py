"""Card, space and character names in the reader's language, where the content gives them.

Each pack's content folder may hold a folder per language with a `names.toml`
(engine/content/<pack>/<lang>/names.toml): rows `{ printed = "Graveyard", name = "Friedhof",
confirmed = false }` under `character`, `space` and `card`. A reader of that language sees `name`
where a report, page or digest shows the printed name; every name the files do not give stays as
printed. The engine never reads these files (its loader reads only a pack folder's own *.toml), so
its rules, the summary, the logs and answers' keys stay as printed (docs/architecture.md).
"""
from __future__ import annotations

import functools
import re
from importlib import resources

from engine import content
from engine.content import slug
from engine.schema import NAMES_KINDS
from pbem.base import content_cache, i18n

BASE_PACK = "revised4"  # its names first: a pack's own name for a base card does not replace them
FILE = "names.toml"


def rows(lang: str, file: str = FILE, kinds: tuple[str, ...] = NAMES_KINDS) -> tuple[dict, ...]:
    """Every row of the `lang` names files (or of another per-language `file` with lists `kinds`:
    printed_texts.py's texts), the base game's first: each pack's packaged file with the
    moderator's content folder's file of that path over it (engine/content.py's overlay: an owner
    of the printed cards corrects a name there, `pbem rules check` checks it)."""
    return _rows(lang, content.generation(), file, kinds)


@functools.cache
def _rows(lang: str, generation: int, file: str, kinds: tuple[str, ...]) -> tuple[dict, ...]:
    root = resources.files("engine").joinpath("content")
    overlay = content.overlay()
    packs = {d.name for d in root.iterdir() if d.is_dir()} | {p.partition("/")[0] for p in overlay}
    out: list[dict] = []
    for pack in sorted(packs, key=lambda p: (p != BASE_PACK, p)):
        path, over = root.joinpath(pack, lang, file), overlay.get(f"{pack}/{lang}/{file}")
        for text in (over, path.read_text(encoding="utf-8") if path.is_file() else None):  # the overlay's first
            if text is not None:
                data = content_cache.parse(text)  # the home's cache: read each process
                out.extend({**row, "kind": kind, "pack": pack} for kind in kinds for row in data.get(kind, []))
    return tuple(out)


def table(lang: str) -> dict[str, str]:
    """Printed name -> the name a reader of `lang` sees (read once per process and overlay)."""
    return _table(lang, content.generation())


@functools.cache
def _table(lang: str, generation: int) -> dict[str, str]:
    out: dict[str, str] = {}
    for row in rows(lang):
        out.setdefault(row["printed"], row["name"])
    return out


def name(value: str, lang: str) -> str:
    """`value` as a reader of `lang` sees it: its translation if it is a printed name the content
    translates, else as it is (a player's name, a number, a name nobody translated). Exact and
    case-sensitive: seats are lower-case slugs, so a player called "wolf" stays "wolf". A list the
    engine joined ("Fields, Forest": the spaces a move passes) is translated name by name."""
    if not isinstance(value, str):
        return value
    names = table(lang)
    if value in names:
        return names[value]
    if ", " in value:
        parts = value.split(", ")
        if any(p in names for p in parts):
            return ", ".join(names.get(p, p) for p in parts)
    return value


_SPELLED = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})


def without_umlauts(word: str) -> str:
    """A German word as a keyboard without umlauts writes it: "übergang" -> "uebergang"."""
    return word.translate(_SPELLED)


def _written(text: str) -> str:
    """A name as an answer's key: "Höhle des Hexenmeisters" -> "höhle-des-hexenmeisters"."""
    return re.sub(r"[^\w]+", "-", text.lower().replace("'", "")).strip("-")


def _keys(text: str) -> set[str]:
    """How a player may write a name as an answer's key: "Höhle des Hexenmeisters" as
    "höhle-des-hexenmeisters" or "hoehle-des-hexenmeisters" (orders.py reads a key in lower case)."""
    written = _written(text)
    return {written, without_umlauts(written)}


def key_aliases(langs: tuple[str, ...]) -> dict[str, str]:
    """The option key (the printed name's slug: "graveyard", "healing") that a translated name
    stands for when a player answers with the name they were shown ("friedhof", "heilung"). A
    translated name that is also a printed one's key ("troll") is no alias: the printed one wins."""
    return _key_aliases(langs, content.generation())


@functools.cache
def _key_aliases(langs: tuple[str, ...], generation: int) -> dict[str, str]:
    printed = {slug(p) for lang in langs for p in table(lang)}
    return {k: slug(p) for lang in langs for p, t in table(lang).items()
            for k in _keys(t) if k != slug(p) and k not in printed}


def answer_key(key: str) -> str:
    """An answer's key with a translated card, space or character name as the printed name's key
    (any language the service has names for, in any game, as the other option words are); a
    Spell's `cast-` key too ("cast-heilung" -> "cast-healing"). Other keys as they are."""
    aliases = key_aliases(tuple(lang for lang in i18n.languages() if lang != i18n.DEFAULT))
    if key in aliases:
        return aliases[key]
    head, _, rest = key.partition("-")
    return f"{head}-{aliases[rest]}" if head == "cast" and rest in aliases else key


def shown_key(key: str, lang: str) -> str:
    """An option key that is a printed name's ("graveyard", "cast-healing") as a reader of `lang`
    writes the name they were shown ("friedhof", "cast-heilung"); other keys as they are.
    pbem/base/option_keys.py `shown` keeps it only where `answer_key` reads it back."""
    keys = _shown_keys(lang, content.generation())
    if key in keys:
        return keys[key]
    head, _, rest = key.partition("-")
    return f"{head}-{keys[rest]}" if head == "cast" and rest in keys else key


@functools.cache
def _shown_keys(lang: str, generation: int) -> dict[str, str]:
    return {slug(p): _written(t) for p, t in table(lang).items()}

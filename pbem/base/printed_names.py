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
import tomllib
from importlib import resources

from engine.content import slug
from pbem.base import i18n

BASE_PACK = "revised4"  # its names first: a pack's own name for a base card does not replace them
KINDS = ("character", "space", "card")
FILE = "names.toml"


@functools.cache
def rows(lang: str) -> tuple[dict, ...]:
    """Every row of the `lang` names files of the packaged packs, the base game's first."""
    root = resources.files("engine").joinpath("content")
    packs = sorted((d.name for d in root.iterdir() if d.is_dir()), key=lambda p: (p != BASE_PACK, p))
    out: list[dict] = []
    for pack in packs:
        path = root.joinpath(pack, lang, FILE)
        if path.is_file():
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            out.extend({**row, "kind": kind, "pack": pack} for kind in KINDS for row in data.get(kind, []))
    return tuple(out)


@functools.cache
def table(lang: str) -> dict[str, str]:
    """Printed name -> the name a reader of `lang` sees (read once per process)."""
    out: dict[str, str] = {}
    for row in rows(lang):
        out.setdefault(row["printed"], row["name"])
    return out


def name(value: str, lang: str) -> str:
    """`value` as a reader of `lang` sees it: its translation if it is a printed name the content
    translates, else as it is (a player's name, a number, a name nobody translated). Exact and
    case-sensitive: seats are lower-case slugs, so a player called "wolf" stays "wolf"."""
    return table(lang).get(value, value) if isinstance(value, str) else value


_SPELLED = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})


def _keys(text: str) -> set[str]:
    """How a player may write a name as an answer's key: "Höhle des Hexenmeisters" as
    "höhle-des-hexenmeisters" or "hoehle-des-hexenmeisters" (orders.py reads a key in lower case)."""
    written = re.sub(r"[^\w]+", "-", text.lower().replace("'", "")).strip("-")
    return {written, written.translate(_SPELLED)}


@functools.cache
def key_aliases(langs: tuple[str, ...]) -> dict[str, str]:
    """The option key (the printed name's slug: "graveyard", "healing") that a translated name
    stands for when a player answers with the name they were shown ("friedhof", "heilung"). A
    translated name that is also a printed one's key ("troll") is no alias: the printed one wins."""
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

"""A card's text and a character's abilities in the reader's language, where the content gives them.

Beside each pack's names file, engine/content/<pack>/<lang>/texts.toml holds `[[card]]` rows
(`printed = "Wolf"`, `text`, and `summary` where the content has one) and `[[character]]` rows
(`printed = "Druid"` and `[character.abilities]`, each ability's text under its key in
characters.toml: two characters share a key, their texts differ by he or she). Rows are keyed by
the printed name as names.toml's are: a card's within its pack's file (the card knows its pack,
so "Ring", printed by two packs with two texts, is one row in each pack's file; the Purchase
deck's Axe shares the Adventure Axe's row, as a report explains a card by its name). A reader of
that language reads these where a report or the welcome shows the content's words
(pbem/outbound/glossary.py, reports.py); a card text the engine shows itself is translated in
the `engine` catalogue instead (`card`); a text neither gives stays English. Read once
per process and content overlay, the moderator's content folder's file over the packaged one
(printed_names.rows): an owner of the printed cards corrects a text there, field by field.
"""
from __future__ import annotations

import functools
import tomllib
from importlib import resources

from engine import content
from engine.schema import TEXT_ROWS
from pbem.base import i18n, printed_names

FILE = "texts.toml"
KINDS = tuple(TEXT_ROWS)  # card, character


def card(pack: str, printed: str, lang: str, english: str = "") -> dict[str, str]:
    """The `lang` words of the card `printed` of `pack`: its row (`text`, maybe `summary`); else,
    for a card whose `english` text the engine shows itself (a Potion to drink, a Naval Object on
    sale, a Quest drawn: content_texts.SAID_DECKS, SAID_HOOKS), that text's translation in the
    `engine` catalogue, so that one text has one translation; else {}."""
    row = _table(lang, content.generation()).get(("card", pack, printed))
    if row is not None or not english or lang == i18n.DEFAULT:
        return row or {}
    try:
        said = i18n.translations(lang, i18n.ENGINE_DOMAIN).gettext(english)
    except LookupError:  # a language the service has no catalogue for
        return {}
    return {"text": said} if said != english else {}


def ability(character: str, key: str, lang: str) -> str | None:
    """The ability `key` of the character printed `character`, in `lang`, if the files give it."""
    return _table(lang, content.generation()).get(("character", "", character), {}).get("abilities", {}).get(key)


@functools.cache
def _table(lang: str, generation: int) -> dict[tuple[str, str, str], dict]:
    out: dict[tuple[str, str, str], dict] = {}
    for row in printed_names.rows(lang, FILE, KINDS):  # the base game's first, an overlay's before its file
        kind = row["kind"]
        key = (kind, row["pack"] if kind == "card" else "", row["printed"])
        had = out.get(key, {})  # an earlier row's fields win: the overlay corrects field by field
        out[key] = {**row, **had}
        if kind == "character":  # and an ability by ability
            out[key]["abilities"] = {**row.get("abilities", {}), **had.get("abilities", {})}
    return out


def missing(lang: str) -> list[str]:
    """Every content text a reader sees that the `lang` texts files do not give: "<pack>: <card>",
    "<pack>: <card> (summary)" or "<character>: <ability key>" (the packaged content; a test keeps
    it empty for German, so a new card without its German text fails there by name)."""
    out = []
    root = resources.files("engine").joinpath("content")
    for folder in sorted((d for d in root.iterdir() if d.is_dir()), key=lambda d: d.name):
        for file in sorted((f for f in folder.iterdir() if f.name.endswith(".toml")), key=lambda f: f.name):
            data = tomllib.loads(file.read_text(encoding="utf-8"))
            for table in ("card", "spell", "item", "talisman"):
                rows = data.get(table, [])
                for row in [rows] if isinstance(rows, dict) else rows:
                    given = card(folder.name, row["name"], lang, row.get("text", ""))
                    out += [f"{folder.name}: {row['name']}" + (" (summary)" if field == "summary" else "")
                            for field in ("text", "summary") if row.get(field) and field not in given]
            for ch in data.get("character", []):
                out += [f"{ch['name']}: {a['key']}" for a in ch.get("abilities", [])
                        if a.get("text") and ability(ch["name"], a["key"], lang) is None]
    return list(dict.fromkeys(out))

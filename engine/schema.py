"""The content schema: which files a pack's folder holds, which keys each file and row may have
(each key is read by the loader, engine/content.py, or by the rules), and the types the rules rely
on. The package's own content is checked against it (tests/test_content_schema.py), and so is a
moderator's content folder laid over it (pbem/base/content_overlay.py, `pbem rules check`).

What a pack adds is read from its declaration (engine/packs/base.py): the card properties its
rules read (`props`) and its own tables (`tables`, read with `content.pack_table`). A key no code
reads is refused, so that data never seems to decide a rule the code decides.
"""
from __future__ import annotations

import re
import tomllib
from collections.abc import Collection, Iterable

from engine import content
from engine.packs.base import Pack

# The base game's files the loader reads (engine/content.py `load`); a pack folder's every file.
BASE = "revised4"
BASE_FILES = {"board.toml", "characters.toml", "adventure.toml", "spells.toml", "purchase.toml", "warlock.toml"}
ROW_TABLES = {"card", "spell", "item", "space", "character", "quest"}
# Top-level keys the loader reads; a pack's own tables besides (its `tables`).
LOADER_KEYS = ROW_TABLES | {"deck", "type", "shuffle", "replace", "discard_to", "adventure", "facedown_in_area",
                            "geometry", "talisman"}
# Card fields that are not rules: checked against the rulebook, a line for the reports (pbem/outbound/glossary.py).
NOT_RULES = {"confirmed", "summary"}
SPACE_KEYS = set(content.Space.__struct_fields__) - {"id", "index", "pack"}
CHARACTER_KEYS = set(content.Character.__struct_fields__) - {"slug", "ability_texts"}
QUEST_KEYS = {"roll", "name", "goal", "n", "text", "confirmed"}  # a Warlock quest (engine/rules/spaces.py)
PRICES = {"price", "market_price"}  # a Purchase card's (engine/content.py)
# Fields whose type the rules rely on: a wrong type fails at play, so it fails here.
TYPES: dict[str, type] = {
    "name": str, "text": str, "type": str, "kind": str, "deck": str, "hook": str, "when": str,
    "confirmed": bool, "count": int, "number": int, "strength": int, "craft": int, "life": int,
    "fate": int, "draw": int, "effect": list, "abilities": list, "corner": bool, "ring": str}
_TYPE_NAMES = {int: "whole number", str: "string in quotes", bool: "true or false", list: "list [...]"}
# A names file, <pack>/<lang>/names.toml: what a reader of that language sees for a printed name
# (pbem/base/printed_names.py). The engine never reads it; its rows are checked here all the same.
NAMES_FILE = re.compile(r"^[a-z]{2}/names\.toml$")
NAMES_KINDS = ("character", "space", "card", "foe", "pack")  # foe: a fight's name that is no card; pack: a title
NAME_ROW: dict[str, type] = {"printed": str, "name": str, "confirmed": bool}
# A texts file, <pack>/<lang>/texts.toml: a card's text (and summary) and a character's abilities
# in that language (pbem/base/printed_texts.py), each row by its printed name.
TEXTS_FILE = re.compile(r"^[a-z]{2}/texts\.toml$")
TEXT_ROWS: dict[str, dict[str, type]] = {"card": {"printed": str, "text": str, "summary": str},
                                         "character": {"printed": str, "abilities": dict}}


def card_props(packs: Iterable[Pack]) -> frozenset[str]:
    """The card properties the rules of these packs read (the base game's pack among them)."""
    return frozenset().union(*(p.props for p in packs))


def card_keys(packs: Iterable[Pack]) -> set[str]:
    """Every key a card row may have."""
    return content.CARD_FIELDS | card_props(packs) | NOT_RULES | PRICES | {"properties"}


def _line(text: str, table: str, index: int, key: str | None = None) -> int:
    """The line of the index-th `[[table]]` (of `key = ` in it when given), 1-based; 0 if unknown."""
    lines = text.splitlines()
    heads = [i for i, ln in enumerate(lines) if re.match(rf"\s*\[\[\s*{re.escape(table)}\s*\]\]", ln)]
    if index >= len(heads):
        return 0
    start = heads[index]
    if key is None:
        return start + 1
    for i in range(start + 1, len(lines)):
        if re.match(r"\s*\[", lines[i]):
            break
        if re.match(rf"\s*{re.escape(key)}\s*=", lines[i]):
            return i + 1
    return start + 1


def _at(path: str, text: str, table: str, index: int, key: str | None = None) -> str:
    """`path:line`, or the path alone where the line is not found (rows as inline tables)."""
    line = _line(text, table, index, key)
    return f"{path}:{line}" if line else path


def rows_problems(path: str, text: str, data: dict[str, object], cards: set[str]) -> list[str]:
    """The rows of one file: arrays of tables, named, with known fields of the right types."""
    out = []
    known_by = {"space": SPACE_KEYS, "character": CHARACTER_KEYS, "quest": QUEST_KEYS,
                "card": cards, "spell": cards, "item": cards}
    for table in sorted(ROW_TABLES & set(data)):
        rows = data[table]
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            out.append(f"{path}: `{table}` must be an array of tables ([[{table}]])")
            continue
        known = known_by[table]
        for i, row in enumerate(rows):
            if "name" not in row and "slug" not in row and table != "quest":
                out.append(f"{_at(path, text, table, i)}: [[{table}]] row {i + 1} has no `name`"
                           " (a row is matched to the package's by its name)")
            for key, value in row.items():
                where = f"{_at(path, text, table, i, key)}: [[{table}]] {row.get('name', i + 1)!r}"
                if key not in known:
                    out.append(f"{where}: unknown field `{key}`; allowed: {', '.join(sorted(known))}")
                elif key in TYPES and (not isinstance(value, TYPES[key])
                                       or (TYPES[key] is int and isinstance(value, bool))):
                    want = TYPES[key]
                    out.append(f"{where}: field `{key}` must be a {_TYPE_NAMES.get(want, str(want))}, not {value!r}")
    return out


def _names_problems(path: str, text: str) -> list[str]:
    """A names file's problems: lists of NAMES_KINDS of rows { printed, name, confirmed }."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        return [f"{path}: not TOML: {e}"]
    out = []
    for key, rows in data.items():
        if key not in NAMES_KINDS or not isinstance(rows, list):
            out.append(f"{path}: `{key}` is not read from a names file; it may hold lists {', '.join(NAMES_KINDS)}")
            continue
        for i, row in enumerate(rows, 1):
            where = f"{path}: {key} row {i}"
            if not isinstance(row, dict) or not {"printed", "name"} <= set(row):
                out.append(f'{where}: a row is {{ printed = "Graveyard", name = "...", confirmed = false }}')
                continue
            for field, value in row.items():
                want = NAME_ROW.get(field)
                if want is None:
                    out.append(f"{where}: field `{field}` is not read; a row holds {', '.join(NAME_ROW)}")
                elif not isinstance(value, want):
                    out.append(f"{where}: field `{field}` must be a {_TYPE_NAMES[want]}, not {value!r}")
    return out


def _texts_problems(path: str, text: str) -> list[str]:
    """A texts file's problems: `[[card]]` rows { printed, text, summary } and `[[character]]` rows
    { printed, abilities = { <ability key> = "..." } }, every value a string."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        return [f"{path}: not TOML: {e}"]
    out = []
    for kind, rows in data.items():
        fields = TEXT_ROWS.get(kind)
        if fields is None or not isinstance(rows, list):
            out.append(f"{path}: `{kind}` is not read from a texts file; it may hold [[card]] and [[character]] rows")
            continue
        for i, row in enumerate(rows):
            where = f"{_at(path, text, kind, i)}: [[{kind}]] {row.get('printed', i + 1)!r}"
            if not isinstance(row.get("printed"), str) or not set(fields) - {"printed", "summary"} <= set(row):
                out.append(f"{where}: a row has `printed` (the name as the content prints it) and "
                           + ("`text`" if kind == "card" else "`abilities`"))
            for field, value in row.items():
                want = fields.get(field)
                if want is None:
                    out.append(f"{where}: field `{field}` is not read; a row holds {', '.join(fields)}")
                elif not isinstance(value, want) or (isinstance(value, dict)
                                                     and not all(isinstance(v, str) for v in value.values())):
                    out.append(f"{where}: field `{field}` must be "
                               + ("a table of strings (key = \"...\")" if want is dict else f"a {_TYPE_NAMES[want]}")
                               + f", not {value!r}")
    return out


def problems(files: dict[str, str], packs: Iterable[Pack], packaged: Collection[str] = ()) -> list[str]:
    """Every problem of these content files ({"<pack>/<file>.toml": text}), one message each:
    where (file:line), which field, what is allowed. `packs`: every pack a file may belong to,
    the base game's first; `packaged`: the paths the package has (an overlay's other files of a
    pack add decks)."""
    packs = list(packs)
    by_name = {p.name: p for p in packs}
    cards, out = card_keys(packs), []
    for path, text in sorted(files.items()):
        folder, _, name = path.partition("/")
        if folder in by_name and NAMES_FILE.match(name):
            out += _names_problems(path, text)
            continue
        if folder in by_name and TEXTS_FILE.match(name):
            out += _texts_problems(path, text)
            continue
        if not name or "/" in name or folder not in by_name:
            out.append(f"{path}: not a content file: files lie in <pack>/<file>.toml, pack one of "
                       + ", ".join(sorted(by_name)))
            continue
        if folder == BASE and name not in BASE_FILES:
            out.append(f"{path}: the base game reads only " + ", ".join(sorted(BASE_FILES)))
            continue
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            out.append(f"{path}: not TOML: {e}")
            continue
        if folder != BASE and path not in packaged and name != "board.toml" and "deck" not in data:
            out.append(f"{path}: a new file of a pack is a deck: it needs `deck = \"name\"` at its top")
        own = {table for file, table in by_name[folder].tables if file == name}
        for key in sorted(set(data) - LOADER_KEYS - own):
            out.append(f"{path}: `{key}` is not read from this file; it may hold: "
                       f"{', '.join(sorted(LOADER_KEYS | own))}")
        out += rows_problems(path, text, data, cards)
    return out

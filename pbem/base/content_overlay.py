"""The moderator's content folder (docs/content.md): TOML files laid out as engine/content/,
merged over the package's by engine/content.py. Here: reading the folder, checking it
against the content schema (`pbem rules check`), and the fingerprint a game records."""
from __future__ import annotations

import hashlib
import re
import tomllib
from importlib import resources
from pathlib import Path

import msgspec

from engine import content, coverage
from pbem.base import settings as settings_mod
from pbem.base.settings import Settings, SettingsError

# The base game's files the loader reads (engine/content.py `load`); a pack folder's every file.
BASE = "revised4"
BASE_FILES = {"board.toml", "characters.toml", "adventure.toml", "spells.toml", "purchase.toml", "warlock.toml"}
ROW_TABLES = {"card", "spell", "item", "space", "character", "quest"}
# Top-level keys the loader reads. A pack's own tables (`[city]`, `[timescape]`, `[voyage]`...)
# are read through the overlay too (engine.content.pack_table), so a table the package's file
# has may be corrected; any other key would be silently ignored: refused instead.
LOADER_KEYS = ROW_TABLES | {"deck", "type", "shuffle", "replace", "discard_to", "adventure", "facedown_in_area",
                            "geometry", "talisman"}

CARD_KEYS = content._CARD_FIELDS | coverage.PROPS | coverage.NOT_RULES | {"properties"}
SPACE_KEYS = set(content.Space.__struct_fields__) - {"id", "index", "pack"}
CHARACTER_KEYS = set(content.Character.__struct_fields__) - {"slug", "ability_texts"}
# Fields whose type the rules rely on: a wrong type fails at play, so it fails here.
TYPES: dict[str, type] = {
    "name": str, "text": str, "type": str, "kind": str, "deck": str, "hook": str, "when": str,
    "confirmed": bool, "count": int, "number": int, "strength": int, "craft": int, "life": int,
    "fate": int, "draw": int, "effect": list, "abilities": list, "corner": bool, "ring": str}


def folders() -> set[str]:
    root = resources.files("engine").joinpath("content")
    return {e.name for e in root.iterdir() if e.is_dir()}


def read(folder: str | Path) -> dict[str, str]:
    """The folder's TOML files as {"pack/file.toml": text}."""
    root = Path(folder)
    return {p.relative_to(root).as_posix(): p.read_text("utf-8") for p in sorted(root.rglob("*.toml"))}


def fingerprint(files: dict[str, str]) -> dict[str, str]:
    """Each overriding file's SHA-256, by path: what a game records beside its content hash."""
    return {path: hashlib.sha256(text.encode()).hexdigest() for path, text in sorted(files.items())}


def install(files: dict[str, str]) -> None:
    """Hand the files to the engine: every later content load reads them over the package."""
    content.use_overlay(files)


def use(settings: Settings) -> None:
    """The engine reads the home's `content` folder over the package's from now on (none: the
    package alone, and another home's overlay in this process goes); a broken folder is
    refused. Called where a service opens (pbem/core/service.py) and by `pbem rules coverage`."""
    folder = settings.content_path
    if folder is None:
        install({})
        return
    files = read(folder)
    wrong = problems(files)
    if wrong:
        raise SettingsError(f"{settings_mod.config_path(settings.home)}: content {folder}: " + "; ".join(wrong)
                            + " (pbem rules check)")
    install(files)


def _at(path: str, text: str, table: str, index: int, key: str | None = None) -> str:
    """`path:line`, or the path alone where the line is not found (rows as inline tables)."""
    line = _line(text, table, index, key)
    return f"{path}:{line}" if line else path


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


_TYPE_NAMES = {int: "whole number", str: "string in quotes", bool: "true or false", list: "list [...]"}


def _packaged_keys(path: str, table: str) -> set[str]:
    """The fields the package's own rows of that file and table use (a copied row passes)."""
    folder, _, name = path.partition("/")
    f = resources.files("engine").joinpath("content", folder, name)
    rows = tomllib.loads(f.read_text("utf-8")).get(table, []) if f.is_file() else []
    return {k for r in rows if isinstance(r, dict) for k in r}


def _rows_problems(path: str, text: str, data: dict) -> list[str]:
    out = []
    for table in sorted(ROW_TABLES & set(data)):
        rows = data[table]
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            out.append(f"{path}: `{table}` must be an array of tables ([[{table}]])")
            continue
        known = SPACE_KEYS if table == "space" else CHARACTER_KEYS if table == "character" else None
        if table in ("card", "spell", "item"):
            known = CARD_KEYS | {"price", "market_price"}
        if known is not None:
            known = known | _packaged_keys(path, table)
        for i, row in enumerate(rows):
            if "name" not in row and "slug" not in row and table != "quest":
                out.append(f"{_at(path, text, table, i)}: [[{table}]] row {i + 1} has no `name`"
                           " (a row is matched to the package's by its name)")
            for key, value in row.items():
                where = f"{_at(path, text, table, i, key)}: [[{table}]] {row.get('name', i + 1)!r}"
                if known is not None and key not in known:
                    out.append(f"{where}: unknown field `{key}`; allowed: {', '.join(sorted(known))}")
                elif key in TYPES and not isinstance(value,
                                                     TYPES[key]) or (TYPES.get(key) is int and isinstance(value, bool)):
                    want = TYPES[key]
                    out.append(f"{where}: field `{key}` must be a {_TYPE_NAMES.get(want, str(want))}, not {value!r}")
    return out


def problems(files: dict[str, str]) -> list[str]:
    """Every problem of an overlay, one message each: where (file:line), which field, what is allowed."""
    known, out = folders(), []
    for path, text in sorted(files.items()):
        folder, _, name = path.partition("/")
        if not name or "/" in name or folder not in known:
            out.append(f"{path}: not a content file: files lie in <pack>/<file>.toml, pack one of "
                       + ", ".join(sorted(known)))
            continue
        if folder == BASE and name not in BASE_FILES:
            out.append(f"{path}: the base game reads only " + ", ".join(sorted(BASE_FILES)))
            continue
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            out.append(f"{path}: not TOML: {e}")
            continue
        packaged = resources.files("engine").joinpath("content", folder, name).is_file()
        if folder != BASE and not packaged and name != "board.toml" and "deck" not in data:
            out.append(f"{path}: a new file of a pack is a deck: it needs `deck = \"name\"` at its top")
        own = _own_tables(folder, name) if packaged else set()
        for key in sorted(set(data) - LOADER_KEYS - own):
            out.append(f"{path}: `{key}` is not read from this file; it may hold: "
                       f"{', '.join(sorted(LOADER_KEYS | own))}")
        out += _rows_problems(path, text, data)
    return out or _load_problems(files)


def _own_tables(folder: str, name: str) -> set[str]:
    """The tables at the top of the package's file that its pack's code reads itself."""
    data = tomllib.loads(resources.files("engine").joinpath("content", folder, name).read_text(encoding="utf-8"))
    return {key for key, value in data.items() if isinstance(value, dict) and key not in LOADER_KEYS}


def _load_problems(files: dict[str, str]) -> list[str]:
    """What the loader itself refuses, the overlay in place, for every pack the overlay touches."""
    from engine.registry import PACKS
    touched = {path.split("/", 1)[0] for path in files}
    mixes: list[tuple[str, ...]] = [()] + [(p.name,) for p in PACKS if p.playable and p.name in touched]
    previous = content.use_overlay(files)
    try:
        out = []
        for mix in mixes:
            try:
                content.load(BASE, mix)
            except (KeyError, TypeError, ValueError, msgspec.ValidationError) as e:
                out.append(f"{' '.join(sorted(touched))}: with {mix[0] if mix else 'the base game'}: "
                           f"the loader refuses it: {type(e).__name__}: {e}")
        return out
    finally:
        content.use_overlay(previous)


def summary(files: dict[str, str]) -> str:
    rows = sum(len(v) for text in files.values() for k, v in tomllib.loads(text).items()
               if k in ROW_TABLES and isinstance(v, list))
    return f"{len(files)} content files, {rows} rows: ok"

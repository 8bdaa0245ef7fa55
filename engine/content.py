"""Content data: boards, decks and characters read once from engine/content/<pack>/*.toml (a
pack kept outside the engine: its own folder, `Source`), with the moderator's overlay
(docs/content.md) merged over them: the service hands the overlay's texts in (`use_overlay`);
the engine reads no other files."""
from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Callable
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, NamedTuple

import msgspec


class Source(NamedTuple):
    """Where a pack's content lies: the folder named as the pack (`pack`), in engine/content/, or
    under `root` for a pack kept outside the engine. The overlay's files are "<pack>/<file>.toml"
    either way. A pack's declaration says it (`Pack.source()`); a plain name is a packaged pack."""
    pack: str
    root: str = ""


def _source(pack: str | Source) -> Source:
    return pack if isinstance(pack, Source) else Source(pack)


def _dir(source: Source) -> Traversable:
    return Path(source.root, source.pack) if source.root else resources.files("engine").joinpath("content", source.pack)


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower().replace("'", "")).strip("-")


class Space(msgspec.Struct, frozen=True):
    id: str
    name: str
    ring: str
    index: int
    draw: int = 0
    effect: list = []
    hook: str | None = None
    hook_args: dict = {}  # data a hook reads (a roll table), editable in the board file
    text: str = ""
    corner: bool = False
    confirmed: bool = True
    remnants: int = 0  # Remnant symbols: facedown Remnant cards dealt here at setup (Cataclysm)
    terrain: bool = True  # a Terrain card may be placed here (false: the City's Jail, a Realm space)
    pack: str = "revised4"  # the pack whose board.toml it comes from


class Card(msgspec.Struct, frozen=True):
    slug: str
    name: str
    type: str  # enemy, event, stranger, follower, object, magic-object, place, spell, purchase
    deck: str  # the deck it belongs to: adventure, spell, purchase, talisman
    kind: str = ""
    count: int = 1
    number: int = 0  # encounter number
    strength: int = 0
    craft: int = 0
    effect: list = []
    when: str = ""  # spells: start, move, combat, any
    hook: str | None = None
    text: str = ""
    confirmed: bool = True
    props: dict[str, Any] = {}  # weapon, armour, carry, raft, gold, talisman, forbid, ...
    pack: str = "revised4"  # the pack whose content file defines it

    def prop(self, name: str, default: Any = None) -> Any:
        return self.props.get(name, default)


class Character(msgspec.Struct, frozen=True):
    slug: str
    name: str
    strength: int
    craft: int
    life: int
    fate: int
    alignment: str
    start: str
    spells: int = 0
    abilities: tuple[str, ...] = ()
    ability_texts: tuple[str, ...] = ()
    confirmed: bool = True


class Board(msgspec.Struct, frozen=True):
    spaces: dict[str, Space]
    rings: dict[str, list[str]]
    opposite: dict[str, str]  # across the Storm River, both ways
    # A board beside the main one entered by a roll that carries past a main-board space: that
    # space -> the first space of the other board (The City: the City space -> the City Gate)
    gates: dict[str, str] = {}


class Content(msgspec.Struct, frozen=True):
    board: Board
    characters: dict[str, Character]
    cards: dict[str, Card]  # every card of every deck, by slug
    decks: dict[str, list[str]]  # deck name -> card slugs with copies, in file order
    purchase_prices: dict[str, int]
    market_prices: dict[str, int]
    quests: dict[int, dict[str, Any]]  # Warlock quest table: die result -> quest
    shuffled: tuple[str, ...] = ("adventure", "spell")  # decks shuffled facedown, with a discard pile
    discard_to: dict[str, str] = {}  # a deck whose discards go to another's pile (Remnants: adventure)
    adventure_decks: tuple[str, ...] = ()  # a pack's decks whose cards count as Adventure cards once drawn (Nether)
    facedown_in_area: tuple[str, ...] = ()  # decks whose cards lie facedown in a play area (The Hunt's Nether cards)

    def discard_pile(self, card: str) -> str:
        deck = self.cards[card].deck
        return self.discard_to.get(deck, deck)

    def adventure(self, card: str) -> bool:
        """Counts as an Adventure card (a faceup Remnant does; a drawn Nether card does)."""
        return self.discard_pile(card) == "adventure" or (
            bool(self.adventure_decks) and self.cards[card].deck in self.adventure_decks)

    def space(self, space_id: str) -> Space:
        return self.board.spaces[space_id]


def die_rows(table: dict) -> list[tuple[int, int, Any]]:
    """A die table's rows (`"1" = ...`, `"2-3" = ...`) as (lowest, highest, value)."""
    rows = []
    for key, value in table.items():
        lo, _, hi = str(key).partition("-")
        rows.append((int(lo), int(hi or lo), value))
    return rows


def die_row(table: dict, total: int, default: Any = None) -> Any:
    """The value of the row a total falls in (a hook's table: the Vortex, a warp line, the
    Hermit's wander); `default` where no row holds it."""
    return next((v for lo, hi, v in die_rows(table) if lo <= total <= hi), default)


CARD_FIELDS = {"name", "type", "kind", "count", "number", "strength", "craft", "effect", "when",
                "hook", "text", "confirmed", "slug"}


# The overlay: "folder/file.toml" -> TOML text, merged over the package's file of that path
# (or added when the package has none). Set by the service; empty: the package alone.
_OVERLAY: dict[str, str] = {}
_GENERATION = 0  # how many overlays have been laid: a cache of what `load` gives keys on it


def use_overlay(files: dict[str, str]) -> dict[str, str]:
    """Make `files` the overlay every later `load` reads; returns the one it replaces."""
    global _OVERLAY, _GENERATION
    previous = _OVERLAY
    _OVERLAY = dict(files)
    _GENERATION += 1
    _load.cache_clear()
    pack_table.cache_clear()
    return previous


def overlay() -> dict[str, str]:
    return dict(_OVERLAY)


def generation() -> int:
    """Changes whenever the overlay does: what a caller derives from `load` and caches, it keys
    on this too, so an owner's content folder laid later is not missed."""
    return _GENERATION


def row_id(row: dict) -> str:
    """What a row is matched by across package and overlay: its slug, its name, else its roll."""
    if "slug" in row:
        return str(row["slug"])
    if "name" in row:
        return slug(str(row["name"]))
    return str(row.get("roll", row.get("id", "")))


def merge(base: dict, over: dict) -> dict:
    """An overlay file over a package file: a row of an array of tables (`[[card]]`) whose
    `row_id` is a package row's changes the fields it gives (rows of one name, such as the
    board's Fields, are matched in order); a new row is added at the end; a table (`[city]`)
    keeps the package's keys the overlay does not give (a key it gives, a chart say, is replaced
    whole: its rows are not mixed with the package's); any other key replaces the package's."""
    out = dict(base)
    for key, value in over.items():
        rows = base.get(key)
        if isinstance(value, dict) and isinstance(rows, dict):
            out[key] = {**rows, **value}
            continue
        if not (isinstance(value, list) and isinstance(rows, list) and all(isinstance(r, dict) for r in rows)):
            out[key] = value
            continue
        merged = [dict(r) for r in rows]
        used: set[int] = set()
        for row in value:
            at = next((i for i, r in enumerate(rows) if i not in used and row_id(r) == row_id(row)), -1)
            if at < 0:
                merged.append(dict(row))
            else:
                used.add(at)
                merged[at] = {**merged[at], **row}
        out[key] = merged
    return out


def _names(source: Source) -> list[str]:
    """The content files of a pack's folder: its own and the overlay's new ones, by name."""
    root = _dir(source)
    names = {e.name for e in root.iterdir() if e.name.endswith(".toml")} if root.is_dir() else set()
    # not a file in a subfolder: a names file (<pack>/<lang>/names.toml) is the service's, not a deck
    names |= {rest for folder, _, rest in (path.partition("/") for path in _OVERLAY)
              if folder == source.pack and "/" not in rest}
    return sorted(names)


@functools.cache
def pack_table(pack: str | Source, name: str, table: str) -> dict[str, Any]:
    """A pack's own table (`[city]` of city/board.toml, say: data the loader does not read),
    with the overlay's file over it, so that an owner's content folder corrects it too."""
    return dict(_read(_source(pack), name)[table])


_PARSE: Callable[[str], dict[str, Any]] = tomllib.loads


def use_parser(parse: Callable[[str], dict[str, Any]]) -> Callable[[str], dict[str, Any]]:
    """Parse content files' texts with `parse` from now on (what tomllib.loads gives, from the
    service's cache of parsed texts: pbem/base/content_cache.py); returns the one it replaces."""
    global _PARSE
    previous, _PARSE = _PARSE, parse
    return previous


def _read(source: Source, name: str) -> dict[str, Any]:
    """A content file of a pack's folder with the overlay's file of that path over it."""
    path = _dir(source).joinpath(name)
    data = _PARSE(path.read_text(encoding="utf-8")) if path.is_file() else {}
    over = _OVERLAY.get(f"{source.pack}/{name}")
    return merge(data, _PARSE(over)) if over is not None else data


def _card(raw: dict, deck: str, default_type: str, pack: str = "revised4") -> Card:
    props = {k: v for k, v in raw.items() if k not in CARD_FIELDS and k != "properties"}
    props.update(raw.get("properties", {}))
    fields = {k: v for k, v in raw.items() if k in CARD_FIELDS and k != "slug"}
    fields.setdefault("type", default_type)
    if fields["type"] != "enemy":  # on an Object or Follower, Strength and Craft are bonuses
        for attr in ("strength", "craft"):
            if attr in fields:
                props[attr] = fields.pop(attr)
    return Card(slug=raw.get("slug") or slug(raw["name"]), deck=deck, props=props, pack=pack, **fields)


def _board(data: dict, pack: str = "revised4") -> Board:
    """A board from its file. `[geometry] keep_rings = [...]` takes those rings (and the river
    crossings) from the base board, so a pack that changes only the centre lists only that."""
    spaces: dict[str, Space] = {}
    rings: dict[str, list[str]] = {}
    seen: dict[str, int] = {}
    geometry = data.get("geometry", {})
    keep = geometry.get("keep_rings", [])
    if keep:
        base = _read(BASE, "board.toml")
        kept = [dict(raw, pack="revised4") for raw in base["space"] if raw["ring"] in keep]
        data = {**data, "space": kept + data["space"]}
        geometry = {**base.get("geometry", {}), **geometry}
    for raw in data["space"]:
        name = slug(raw["name"])
        seen[name] = seen.get(name, 0) + 1
        sid = name if seen[name] == 1 else f"{name}-{seen[name]}"
        ring = rings.setdefault(raw["ring"], [])
        fields = {k: v for k, v in raw.items() if k in Space.__struct_fields__ and k not in ("id", "index", "pack")}
        spaces[sid] = Space(id=sid, index=len(ring), pack=raw.get("pack", pack), **fields)
        ring.append(sid)
    opposite: dict[str, str] = {}
    for o, m in enumerate(geometry.get("opposite_outer_to_middle", [])):
        if m >= 0:
            opposite[rings["outer"][o]] = rings["middle"][m]
            opposite[rings["middle"][m]] = rings["outer"][o]
    return Board(spaces, rings, opposite)


BASE = Source("revised4")  # the fifth edition base reuses R4E content until its own data exists


def load(edition: str = "revised4", packs: tuple[str | Source, ...] = ()) -> Content:
    """The content of a game of these packs (in config order): the base game's with each pack's
    over it. A pack is named by its `Source` (a plain name: a pack whose folder is in the engine)."""
    return _load(edition, tuple(map(_source, packs)))


@functools.cache
def _load(edition: str, packs: tuple[Source, ...]) -> Content:
    base = BASE
    board = _board(_read(base, "board.toml"))
    characters = {}
    for raw in _read(base, "characters.toml").get("character", []):
        abilities = raw.get("abilities", [])
        characters[slug(raw["name"])] = Character(
            slug=slug(raw["name"]), name=raw["name"], strength=raw["strength"], craft=raw["craft"],
            life=raw["life"], fate=raw["fate"], alignment=raw["alignment"].lower(), start=raw["start"],
            spells=raw.get("spells", 0), abilities=tuple(a["key"] for a in abilities),
            ability_texts=tuple(a.get("text", "") for a in abilities), confirmed=raw.get("confirmed", True))
    cards: dict[str, Card] = {}
    decks: dict[str, list[str]] = {}
    for deck, fname, default in (("adventure", "adventure.toml", "object"), ("spell", "spells.toml", "spell")):
        decks[deck] = []
        for raw in _read(base, fname).get("card", []) + _read(base, fname).get("spell", []):
            c = _card(raw, deck, default)
            cards[c.slug] = c
            decks[deck].extend([c.slug] * c.count)
    purchase = _read(base, "purchase.toml")
    decks["purchase"] = []
    prices: dict[str, int] = {}
    market: dict[str, int] = {}
    for raw in purchase.get("item", []) + purchase.get("card", []):
        c = _card(raw, "purchase", "object")
        cards.setdefault(c.slug, c)  # an Adventure card of the same name keeps its data
        decks["purchase"].extend([c.slug] * c.count)
        if "price" in raw:
            prices[c.slug] = raw["price"]
        if raw.get("market_price") is not None:
            market[c.slug] = raw["market_price"]
    tal = purchase.get("talisman", {"count": 4})
    cards.setdefault("talisman", Card(slug="talisman", name="Talisman", type="magic-object", deck="talisman",
                                      props={"talisman": True}, text="Lets you enter the Valley of Fire."))
    decks["talisman"] = ["talisman"] * tal.get("count", 4)
    quests = {}
    for raw in _read(base, "warlock.toml").get("quest", []):
        quests[int(raw["roll"])] = raw
    shuffled, discard_to = ["adventure", "spell"], dict[str, str]()
    for pack in packs:
        board, shuffled, discard_to = _pack(pack, board, cards, decks, shuffled, discard_to)
    for pack in packs:  # boards beside the main board (`[geometry] add_rings`), whatever the order
        board = _add_rings(pack, board)
    return Content(board, characters, cards, decks, prices, market, quests, tuple(shuffled), discard_to,
                   **_deck_flags(packs))


def _pack(source: Source, board: Board, cards: dict[str, Card], decks: dict[str, list[str]], shuffled: list[str],
          discard_to: dict[str, str]) -> tuple[Board, list[str], dict[str, str]]:
    """A pack's files on top of the base: its board.toml replaces the board; every other file is
    one deck (`deck = "name"` at its top) whose cards are added to that deck, or replace it
    with `replace = true`. `shuffle = true` makes it a facedown deck with a discard pile;
    `discard_to` sends its discards to another deck's pile."""
    pack = source.pack
    for name in _names(source):
        data = _read(source, name)
        if name == "board.toml":
            if not data.get("geometry", {}).get("add_rings"):
                board = _board(data, pack)
            continue
        deck = data["deck"]
        if data.get("replace") or deck not in decks:
            decks[deck] = []
        for raw in data.get("card", []):
            c = _card(raw, deck, data.get("type", "object"), pack)
            if c.slug in cards and cards[c.slug].deck != deck:  # slugs name cards everywhere
                raise ValueError(f"{pack}/{name}: {c.slug!r} is already a {cards[c.slug].deck} card")
            cards[c.slug] = c
            decks[deck].extend([c.slug] * c.count)
        if data.get("shuffle") and deck not in shuffled:
            shuffled = shuffled + [deck]
        if data.get("discard_to"):
            discard_to = {**discard_to, deck: data["discard_to"]}
    return board, shuffled, discard_to


def _add_rings(source: Source, board: Board) -> Board:
    """A pack board with `[geometry] add_rings = true` (the Timescape) lies beside the board in
    play: its rings are added to it, its space ids must be new. `gates = { space = "..." }`: a
    roll carrying past that space of the board in play may step onto the pack's space instead."""
    pack = source.pack
    data = _read(source, "board.toml")
    geometry = data.get("geometry", {})
    if not geometry.get("add_rings"):
        return board
    extra = _board({"space": data["space"]}, pack)
    clash = set(extra.spaces) & set(board.spaces)
    if clash:
        raise ValueError(f"{pack}/board.toml: space ids already on the board: {', '.join(sorted(clash))}")
    gates = {at: to for at, to in geometry.get("gates", {}).items() if at in board.spaces and to in extra.spaces}
    return Board({**board.spaces, **extra.spaces}, {**board.rings, **extra.rings}, board.opposite,
                 {**board.gates, **gates})


def _deck_flags(packs: tuple[Source, ...]) -> dict[str, tuple[str, ...]]:
    """Deck headers beyond the loader's: `adventure = true` (its cards count as Adventure cards
    once drawn and placed on the board: the Nether deck) and `facedown_in_area = true` (kept in
    a play area they lie facedown: The Hunt)."""
    out: dict[str, list[str]] = {"adventure_decks": [], "facedown_in_area": []}
    for source in packs:
        for name in _names(source):
            if name == "board.toml":
                continue
            data = _read(source, name)
            for flag, key in (("adventure", "adventure_decks"), ("facedown_in_area", "facedown_in_area")):
                if data.get(flag) and data["deck"] not in out[key]:
                    out[key].append(data["deck"])
    return {k: tuple(v) for k, v in out.items()}

"""The board as a picture: a grid of concentric rings, as on the real board.

A Talisman board is square rings one inside the other: the Outer Region (24 spaces) around
the Middle (16) around the Inner (8) around the Crown (1), i.e. the borders of a 7x7, 5x5
and 3x3 square and its centre. `layout` places each ring's spaces clockwise from the top
left corner of its square (so `right` in a prompt moves clockwise here too). Boards that are
not shaped so fall back to one line per ring. Everything here is public: the same picture
goes to every player, so reports render it once per game state.
"""
from __future__ import annotations

import math
import textwrap
from functools import lru_cache

from engine import content
from engine.registry import REGIONS
from pbem.base import i18n, printed_names
from pbem.base.i18n import _, ngettext

CELL = 10  # characters per cell in the text map: 7 cells + borders = 78 columns
COLOURS = ("#1f4e79", "#a3392b", "#2e7d32", "#7b3fa0", "#9a6700", "#00796b", "#c2185b", "#455a64")
# The regions by their printed names (the engine's content knows a ring only by its id): each pack
# declares its own (`Pack.regions`: the City, the Dungeon, the Deep Realms' two Realms, the Timescape)
RING_NAMES = REGIONS


def ring_name(ring: str) -> str:
    """A region's printed name; a ring the table does not know, by its id in words."""
    return RING_NAMES.get(ring, ring.replace("-", " ").title())


def _square(side: int) -> list[tuple[int, int]]:
    """The border cells of a side x side square, clockwise from the top left: (row, col)."""
    if side == 1:
        return [(0, 0)]
    top = [(0, c) for c in range(side)]
    right = [(r, side - 1) for r in range(1, side)]
    bottom = [(side - 1, c) for c in range(side - 2, -1, -1)]
    left = [(r, 0) for r in range(side - 2, 0, -1)]
    return top + right + bottom + left


@lru_cache(maxsize=32)
def layout(rings: tuple[tuple[str, tuple[str, ...]], ...]) -> tuple[tuple[tuple[str, str] | None, ...], ...] | None:
    """The grid of (ring, space id) cells, or None when the rings are not concentric squares.
    The outer ring sets the size; a board without a centre space (Nemesis's centre board
    replaces the Crown) leaves the middle cell empty."""
    if not rings or len(rings[0][1]) % 4:
        return None
    side = len(rings[0][1]) // 4 + 1
    grid: list[list[tuple[str, str] | None]] = [[None] * side for _ in range(side)]
    for k, (ring, spaces) in enumerate(rings):
        cells = _square(side - 2 * k)
        if len(cells) != len(spaces):
            return None
        for (r, c), space in zip(cells, spaces):
            grid[r + k][c + k] = (ring, space)
    return tuple(tuple(row) for row in grid)


@lru_cache(maxsize=512)
def name_lines(name: str) -> tuple[str, str]:
    """A space's name in at most two lines of CELL characters."""
    lines = textwrap.wrap(name, CELL) or [""]
    if len(lines) > 2:
        lines = [lines[0], textwrap.shorten(" ".join(lines[1:]), CELL, placeholder=".")]
    return (lines + [""])[0], (lines + ["", ""])[1]


def markers(names: list[str]) -> dict[str, str]:
    """One letter per player for the map: their initial, or the next free letter of their name."""
    out: dict[str, str] = {}
    for name in names:
        letters = [ch.upper() for ch in name if ch.isalnum()] + list("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        out[name] = next(ch for ch in letters if ch not in out.values())
    return out


def picture(view: dict, stand_ins=frozenset()) -> dict:
    """The board's picture, from a public view (docs/interfaces.md): the players' letters
    and colours, what lies on the board, and "map", plain data that is all the map depends
    on (a mail keeps it until it is rendered, pbem/outbound/render.py), which `draw` lays out.
    `stand_ins`: the ids of the spaces whose content rows are stand-ins, marked so on the map."""
    names = view["space_names"]
    marks = markers(list(view["players"]))
    here: dict[str, list[str]] = {}
    for name, p in view["players"].items():
        if p.get("space") and p.get("alive", True):
            here.setdefault(p["space"], []).append(marks[name])
    effects, things = lying(view)
    for s, laid in effects.items():  # the Hex first: it acts first (it has no encounter number)
        things[s] = laid + things.get(s, [])
    colours = {marks[n]: COLOURS[i % len(COLOURS)] for i, n in enumerate(marks)}
    rings = [[ring, list(spaces)] for ring, spaces in view["board"].items()]
    return {
        "markers": marks,
        "colours": colours,
        "lying": [{"space": names.get(s, s), "things": t} for s, t in things.items()],
        "map": {"rings": rings, "names": {s: names.get(s, s) for _, spaces in rings for s in spaces},
                "here": here, "things": things, "colours": colours,
                "stand_ins": [s for _, spaces in rings for s in spaces if s in stand_ins]},
    }


def effect_words(e: dict) -> tuple[str, str]:
    """A lasting effect as a report names it: ("Hex", "3 rounds") and who laid it."""
    rounds = e.get("rounds")
    detail = f"{rounds} round{'s' if rounds != 1 else ''}" if isinstance(rounds, int) else ""
    return str(e.get("name", "?")).replace("-", " ").title(), detail


def _said(e: dict) -> str:
    """ "Hex (3 rounds) by alice", in the current reader's words and names ("Fluch (3 Runden) von alice")."""
    name, _detail = effect_words(e)
    rounds = e.get("rounds")
    text = printed_names.name(name, i18n.current())
    if isinstance(rounds, int):
        text = ngettext("%(name)s (%(n)s round)", "%(name)s (%(n)s rounds)", rounds, name=text)
    return _("%(effect)s by %(player)s", effect=text, player=e["by"]) if e.get("by") else text


def lying(view: dict, said: bool = False) -> tuple[dict[str, list], dict[str, list]]:
    """What lies on each space: the effects laid there (the Hex), and the cards and gold. As
    data for the shared picture a mail keeps (a card by its printed name, `{"effect": ...}`,
    `{"gold": n}`: each reader's words are found where it is rendered, `thing`), or `said` in
    the current reader's words."""
    effects: dict[str, list] = {}
    for e in view.get("effects", []):
        if e.get("space"):
            effects.setdefault(e["space"], []).append(_said(e) if said else {"effect": e})
    shown = i18n.current()
    things: dict[str, list] = {s: [printed_names.name(c, shown) if said else c for c in cards]
                               for s, cards in view.get("space_cards", {}).items()}
    for s, gold in view.get("space_gold", {}).items():
        if gold:
            things.setdefault(s, []).append(_("%(n)s gold", n=gold) if said else {"gold": gold})
    return effects, things


def thing(laid: str | dict) -> str:
    """What `lying` keeps of one thing on a space, in the current reader's words: a card's name as
    their cards print it, gold, an effect ("Fluch (3 Runden) von alice"); a text as it is."""
    if isinstance(laid, str):
        return printed_names.name(laid, i18n.current())
    if "gold" in laid:
        return _("%(n)s gold", n=laid["gold"])
    return _said(laid["effect"])


def forced(e: dict) -> str:
    """A lasting effect on no space (in force: a Blizzard), in the current reader's words: "Blizzard: 2 rounds"."""
    name, rounds = printed_names.name(effect_words(e)[0], i18n.current()), e.get("rounds")
    detail = ngettext("%(n)s round", "%(n)s rounds", rounds) if isinstance(rounds, int) else _("yes")
    return f"{name}: {detail}"


@lru_cache(maxsize=64)
def _printed(lang: str, generation: int, names: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """A board's space names as a reader of `lang` sees them, once per board and content (the
    overlay's `generation`): a game's spaces stay, and looking each up at every map was a third
    of drawing it. Read only: `draw` shares it."""
    return {s: printed_names.name(n, lang) for s, n in names}


BLANK = {"space": "", "ring": "", "name": ("", ""), "full": "", "who": [], "marks": "", "things": [],
         "stand_in": False}  # no centre space


def draw(board: dict) -> dict:
    """A picture's "map" laid out: "grid" (rows of cells) or, for other boards, "rings"."""
    shown = i18n.current()  # the names and what lies there as the reader's cards print them
    names = _printed(shown, content.generation(), tuple(board["names"].items()))
    here = board["here"]
    things = {s: [thing(t) for t in laid] for s, laid in board["things"].items()}
    stand_ins = set(board.get("stand_ins", ()))  # a map queued before spaces were marked has none
    rings = tuple((ring, tuple(spaces)) for ring, spaces in board["rings"])

    def cell(ring: str, space: str) -> dict:
        who = here.get(space, [])
        text = (" " if len(who) < 5 else "").join(who)
        if space in things:
            text = (text + " *").strip()
        return {"space": space, "ring": ring, "name": name_lines(names.get(space, space)),
                "full": names.get(space, space), "who": who, "marks": text[:CELL], "things": things.get(space, []),
                "stand_in": space in stand_ins}

    drawn = next((k for k in range(len(rings), 0, -1) if layout(rings[:k])), 0)  # a board beside: listed
    grid = layout(rings[:drawn]) if drawn else None
    made: dict[tuple[str, str], dict] = {}  # a space's cell, made once for its ring's list and the grid
    listed = []
    for ring, spaces in rings:
        cells = [made.setdefault((ring, s), cell(ring, s)) for s in spaces]
        # a ring whose every space is a stand-in (the City's board) is marked once, not space by space;
        # `taken`: its cells where someone stands or something lies (the text part lists those)
        listed.append({"name": ring_name(ring), "cells": cells, "taken": [c for c in cells if c["marks"]],
                       "stand_in": bool(spaces) and stand_ins.issuperset(spaces)})
    return {"width": CELL, "colours": board["colours"],
            "grid": [[made[c] if c else BLANK for c in row] for row in grid] if grid else None,
            "rings": listed, "beside": listed[drawn:]}


# The HTML map's cells (templates/_map.html.j2) wrap only between words: a cell's font is the
# size, in half pixels and at most FONT_PX, at which its widest word fits the cell of a 360 px
# phone screen (CELL_PX), and follows the screen's width (vw) so it fits a narrower one too; a
# client without min() keeps the size for 360 px. Letter widths in em are a wide sans face's
# (DejaVu Sans, wider than Arial): narrow letters, wide ones, capitals, the rest.
FONT_PX, CELL_PX, SCREEN_VW = 11, 38.5, 3.6
_NARROW, _SLIM, _WIDE, _SMALL = "'ijlIJ,.:;!|", "ftr-()", "mwMW", "szcL"


@lru_cache(maxsize=4096)
def _em(word: str) -> float:
    """A word's width in em (added letter by letter, in order: the same float as ever)."""
    em = 0.0
    for ch in word:
        em += (0.3 if ch in _NARROW else 0.4 if ch in _SLIM else 1.0 if ch in _WIDE else 0.55 if ch in _SMALL
               else 0.75 if ch.isupper() else 0.63)
    return em


def fitted(words) -> str:
    """A map cell's font-size style for the words it shows. Computed once per word and
    process (the board's names and what lies on it are a few hundred words), not letter by
    letter in the template at every render: that was 3.4-3.7 ms a map (issue 28)."""
    widest = max(map(_em, words), default=0.0)
    px = min(FONT_PX, math.floor(CELL_PX / widest * 2) / 2) if widest else FONT_PX
    return (f"font-size:{px:g}px;" if px < FONT_PX else "") + f"font-size:min({FONT_PX}px,{px / SCREEN_VW:.2f}vw)"


REACH = 3  # spaces each way that "around you" shows


def around(board: dict, space: str | None, who: dict[str, str] | None = None) -> dict | None:
    """The reader's surroundings for the text part: their region and the spaces REACH each way
    along it, counter-clockwise first, each with who stands there (`who`: the players' names by
    their letters) and what lies there, in words. None off the board."""
    who = who or {}
    for ring, spaces in board["rings"]:
        if space in spaces:
            k, n = spaces.index(space), len(spaces)
            reach = min(REACH, (n - 1) // 2)
            near = [spaces[(k + d) % n] for d in range(-reach, reach + 1)]
            return {"region": ring_name(ring),
                    "cells": [{"name": board["names"].get(s, s),
                               "who": [who.get(m, m) for m in board["here"].get(s, [])],
                               "lying": board["things"].get(s, []), "mine": s == space} for s in near]}
    return None

"""The board as an SVG picture for the pages: a tile per space, laid out as on the real board
(pbem/base/boardmap.py: concentric square rings), each character's lettered marker where it
stands, and what lies on each space -- Adventure cards, gold, Terrain, and effects laid on a
space such as the Hex.

Everything drawn comes from the view passed in; the public page passes a spectator's view,
which holds nothing private. Colours are SVG attributes, not `style`, so the pages' strict
Content-Security-Policy (no inline styles) leaves the picture as it is.
"""
from __future__ import annotations

import textwrap
from html import escape

from pbem.base import boardmap, i18n, printed_names
from pbem.base.i18n import _

TILE = 110  # user units per space
FILLS = {"outer": "#e4efd2", "middle": "#f1e2bd", "inner": "#efcdc3", "crown": "#f6d96b"}
PER_ROW = 8  # tiles per row for a board that is not concentric squares
THING_LINES = 3  # lines of things written on a tile; the rest is counted and in the tooltip


def _lines(text: str, width: int) -> list[str]:
    """`text` in lines of about `width` characters, broken only between words (a longer word
    keeps its line: the layout check finds it if it runs out of its tile)."""
    return textwrap.wrap(text, width, break_long_words=False) or [""]


def _places(view: dict) -> tuple[dict[str, tuple[str, int, int]], int, int]:
    """Each space's (ring, column, row) and the grid's width and height in tiles."""
    rings = tuple((ring, tuple(ids)) for ring, ids in view["board"].items())
    grid = boardmap.layout(rings)
    if grid:
        return ({cell[1]: (cell[0], c, r) for r, row in enumerate(grid) for c, cell in enumerate(row) if cell},
                len(grid), len(grid))
    places, row = {}, 0
    for ring, ids in rings:  # another shape: each ring in rows of PER_ROW, in order
        for k, sid in enumerate(ids):
            places[sid] = (ring, k % PER_ROW, row + k // PER_ROW)
        row += (len(ids) + PER_ROW - 1) // PER_ROW
    return places, PER_ROW, row


def svg(view: dict, markers: dict[str, str], colours: dict[str, str]) -> str:
    """The board of `view` (docs/interfaces.md) in the current reader's language; `markers`:
    player -> letter, `colours`: letter -> colour (pbem/base/boardmap.py picture)."""
    e, lang = escape, i18n.current()  # names as the reader's cards print them (pbem/base/printed_names.py)
    names = {s: printed_names.name(n, lang) for s, n in view["space_names"].items()}
    places, cols, rows = _places(view)
    effects, things = boardmap.lying(view, said=True)
    here: dict[str, list[tuple[str, str]]] = {}
    for name, p in view["players"].items():
        if p.get("space") and p.get("alive", True) and p["space"] in places:
            character = p.get("character_name") or p.get("character") or ""
            here.setdefault(p["space"], []).append((name, printed_names.name(character, lang)))
    w, h, label = cols * TILE, rows * TILE, _("The board")
    out = [(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" role="img" class="board" '
           f'aria-label="{e(label)}">'), f'<rect width="{w}" height="{h}" fill="#faf7ef"/>']
    for sid, (ring, c, r) in places.items():
        x, y = c * TILE, r * TILE
        name = names.get(sid, sid)
        lying = effects.get(sid, []) + things.get(sid, [])
        tip = name + (": " + ", ".join(lying) if lying else "")
        out.append(f'<g class="space" data-space="{e(sid)}"><title>{e(tip)}</title>'
                   f'<rect x="{x + 2}" y="{y + 2}" width="{TILE - 4}" height="{TILE - 4}" rx="5" '
                   f'fill="{FILLS.get(ring, "#eeeeee")}" stroke="#9a8f7a"/>')
        for i, line in enumerate(_lines(name, 12)[:2]):
            out.append(f'<text x="{x + TILE / 2}" y="{y + 17 + 13 * i}" font-size="12" font-weight="bold" '
                       f'text-anchor="middle" fill="#222">{e(line)}</text>')
        written = [("#6a1b9a", t) for t in effects.get(sid, [])] + [("#7a3b00", t) for t in things.get(sid, [])]
        shown = written[:THING_LINES] if len(written) <= THING_LINES else written[:THING_LINES - 1]
        for i, (fill, t) in enumerate(shown):
            out.append(f'<text x="{x + 7}" y="{y + 49 + 12 * i}" font-size="10" fill="{fill}" class="thing">'
                       f'{e(textwrap.shorten(t, 21, placeholder="…"))}</text>')
        if len(written) > len(shown):
            more = _("+%(n)s more", n=len(written) - len(shown))
            out.append(f'<text x="{x + 7}" y="{y + 49 + 12 * len(shown)}" font-size="10" fill="#555">'
                       f'{e(more)}</text>')
        for k, (name_, character) in enumerate(here.get(sid, [])):
            mark = markers.get(name_, "?")
            cx, cy = x + 15 + (k % 5) * 20, y + TILE - 15 - (k // 5) * 20
            out.append(f'<g class="marker"><title>{e(name_)}{" (" + e(character) + ")" if character else ""}</title>'
                       f'<circle cx="{cx}" cy="{cy}" r="9" fill="{colours.get(mark, "#333")}" stroke="#fff"/>'
                       f'<text x="{cx}" y="{cy + 4}" font-size="11" font-weight="bold" fill="#fff" '
                       f'text-anchor="middle">{e(mark)}</text></g>')
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)

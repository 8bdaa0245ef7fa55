"""Replays: a game stepped through move by move in the terminal, or written as a static site.

Both read an archive (pbem/archive/archive.py): a file, or one made on the spot from the store. An
archive already holds each move's events and the characters' positions, so a replay needs
neither the seed nor the engine, and a player's export replays just as well.
"""
from __future__ import annotations

import contextlib
import html
import math
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from pbem.archive import archive as archive_mod
from pbem.base import boardmap
from pbem.base.terminal import inert
from pbem.core.games import GameError

# -- where a replay comes from -----------------------------------------------------------------

def source(service: Callable, what: str, as_player: str | None = None, progress=archive_mod.no_progress) -> dict:
    """The archive to replay: `what` is an archive file, else a game id (`service()` opens
    the store only then). A game from the store is exported for `as_player` (None: all)."""
    if Path(what).is_file():
        data = archive_mod.load(what)
        if data.get("player") and as_player not in (None, data["player"]):
            raise GameError(f"{what} is {data['player']}'s export: it cannot show what {as_player} saw")
        return data
    return archive_mod.export(service(), what, as_player, progress=progress)


def moves(data: dict, as_player: str | None = None, upto: int | None = None) -> Iterator[dict]:
    """The archive's moves up to `upto`, each with the events `as_player` may see."""
    for m in data["moves"]:
        if upto is not None and m["seq"] > upto:
            return
        events = [e for e in m["events"] if as_player is None or e["to"] is None or as_player in e["to"]]
        yield archive_mod.scoped({**m, "events": events}, as_player)


def _regions(data: dict) -> dict[str, str]:
    return {sid: ring for ring, ids in data["board"]["rings"].items() for sid in ids}


def _where(data: dict, pos: dict) -> str:
    if pos["space"] is None:
        return "off the board"
    name = data["board"]["names"].get(pos["space"], pos["space"])
    return f"{name} ({_regions(data).get(pos['space'], '?')})"


def _who(m: dict) -> str:
    by = f" by {m['actor']}" if m["actor"] != m["player"] else ""
    via = f", mail {m['message_id']}" if m.get("message_id") else ""
    return f"{m['at']}{by}{via}"


# -- the terminal ----------------------------------------------------------------------------

def show(data: dict, as_player: str | None = None, upto: int | None = None, *, step: bool = False,
         out=None) -> int:
    """Print the game move by move: rich on a terminal, plain text otherwise. Returns how
    many moves were shown. `step`: on a terminal, wait for Enter when a turn ends."""
    out = out or sys.stdout
    tty = out.isatty()
    console = None
    if tty:
        from rich.console import Console
        console = Console(file=out, highlight=False, markup=False, emoji=False)
    head = inert(f"{data['game']} ({data['status']}), {len(data['moves'])} moves")  # an archive is outside text
    if data.get("player"):
        head += inert(f", as {data['player']} saw it")
    if console:
        console.print(head, style="bold", markup=False)
    else:
        out.write(head + "\n")
    shown, turn = 0, data["start"]["turn"]
    for m in moves(data, as_player, upto):
        if step and console and m["turn"] != turn:  # a console is made on a terminal only
            console.input("Enter: next turn ")
        turn = m["turn"]
        if console:
            _show_rich(console, data, m)
        else:
            out.write(inert(f"move {m['seq']} (turn {m['turn']}): {m['line']}  [{_who(m)}]") + "\n")
            for e in m["events"]:
                out.write(f"  - {inert(e['text'])}\n")
            places = "; ".join(f"{n} {_where(data, p)}" for n, p in m["positions"].items())
            out.write(f"  at: {inert(places)}\n")
        shown += 1
    return shown


def _show_rich(console, data: dict, m: dict) -> None:
    from rich.rule import Rule
    from rich.table import Table
    from rich.text import Text
    console.print(Rule(inert(f"move {m['seq']} · turn {m['turn']}")))
    console.print(Text.assemble((inert(m["line"]), "bold"), "  ", (inert(_who(m)), "dim")))
    for e in m["events"]:
        console.print(Text(f"  • {inert(e['text'])}"))
    table = Table("player", "character", "where", "life", box=None, pad_edge=False)
    for name, pos in m["positions"].items():
        table.add_row(*(Text(inert(v)) for v in (name, pos["character"] or "-", _where(data, pos),
                                                   str(pos["life"]) if pos["alive"] else "dead")))
    console.print(table)


@contextlib.contextmanager
def progress(label: str, out=None):
    """A progress callback (done, total): a rich bar on a terminal, nothing otherwise."""
    out = out or sys.stdout
    if not out.isatty():
        yield archive_mod.no_progress
        return
    from rich.progress import Progress
    with Progress(transient=True) as bar:
        task = bar.add_task(label, total=None)

        def tick(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)
        yield tick


# -- the static site -------------------------------------------------------------------------

COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
FILLS = {"outer": "#efe6cc", "middle": "#ddd0a8", "inner": "#c9b47e", "crown": "#e8c547"}
SIZE, TILE = 600, 80
CSS = ("body{font-family:sans-serif;max-width:60em;margin:1em auto;padding:0 1em}"
       "svg{max-width:100%;height:auto}.ev{color:#333}.meta{color:#777;font-size:90%}"
       "nav a{margin-right:1em}li{margin:.2em 0}")


def _places(data: dict) -> dict[str, tuple[str, float, float, float]]:
    """Each space's (ring, x, y, tile size): the rings as concentric squares, as on the board
    and in the reports' map (pbem/base/boardmap.py); a board not shaped so, as circles."""
    rings = data["board"]["rings"]
    grid = boardmap.layout(tuple((r, tuple(ids)) for r, ids in rings.items()))
    if grid:
        off = (SIZE - TILE * len(grid)) / 2 + TILE / 2
        return {cell[1]: (cell[0], off + c * TILE, off + r * TILE, TILE - 4)
                for r, row in enumerate(grid) for c, cell in enumerate(row) if cell}
    out: dict[str, tuple[str, float, float, float]] = {}
    for k, (ring, ids) in enumerate(rings.items()):
        radius = (SIZE / 2 - 30) * (1 - k / len(rings))
        for i, sid in enumerate(ids):
            a = 2 * math.pi * i / len(ids) - math.pi / 2
            out[sid] = (ring, SIZE / 2 + radius * math.cos(a), SIZE / 2 + radius * math.sin(a), 30)
    return out


PICTURE = "board.svg"  # the board's tiles and names, written once and shared by every page


def board_picture(data: dict) -> str:
    """The board without anyone on it: a tile per space (its name on it, or on hover),
    coloured by region. Every page shows it under its own markers, so it is written once."""
    e = html.escape
    names = data["board"]["names"]
    parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {SIZE} {SIZE}" width="{SIZE}" height="{SIZE}">'
             f'<rect width="{SIZE}" height="{SIZE}" fill="#faf7ef"/>')]
    for sid, (ring, x, y, w) in _places(data).items():
        name = names.get(sid, sid)
        parts.append(f'<rect x="{x - w / 2:.1f}" y="{y - w / 2:.1f}" width="{w}" height="{w}" rx="4" '
                     f'fill="{FILLS.get(ring, "#eee")}" stroke="#998"><title>{e(name)}</title></rect>')
        if w >= 60:
            for i, line in enumerate(boardmap.name_lines(name)):
                parts.append(f'<text x="{x:.1f}" y="{y - w / 2 + 14 + 11 * i:.1f}" font-size="10" '
                             f'text-anchor="middle">{e(line)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def board_svg(data: dict, positions: dict, places: dict | None = None) -> str:
    """A page's board: the shared picture (PICTURE, beside the page) and a lettered marker for
    each living character where it stands, named on hover."""
    e = html.escape
    names = data["board"]["names"]
    places = places or _places(data)
    parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {SIZE} {SIZE}" width="{SIZE}" height="{SIZE}">'
             f'<image href="{PICTURE}" width="{SIZE}" height="{SIZE}"/>')]
    marks = boardmap.markers(list(positions))
    here: dict[str, int] = {}
    for i, (name, pos) in enumerate(positions.items()):
        if not pos["alive"] or pos["space"] not in places:
            continue
        _, x, y, w = places[pos["space"]]
        n = here[pos["space"]] = here.get(pos["space"], -1) + 1  # side by side on one space
        cx, cy = x - w / 2 + 11 + (n % 4) * 19, y + w / 2 - 11 - (n // 4) * 19
        parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="9" fill="{COLOURS[i % len(COLOURS)]}" stroke="#fff">'
                     f'<title>{e(name)}: {e(names.get(pos["space"], pos["space"]))}</title></circle>'
                     f'<text x="{cx:.1f}" y="{cy + 4:.1f}" font-size="10" fill="#fff" text-anchor="middle">'
                     f'{e(marks[name])}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _turns(data: dict, as_player: str | None, upto: int | None) -> list[list[dict]]:
    """Moves grouped by game turn, in log order."""
    groups: list[list[dict]] = []
    for m in moves(data, as_player, upto):
        if not groups or groups[-1][-1]["turn"] != m["turn"]:
            groups.append([])
        groups[-1].append(m)
    return groups


def _page(title: str, body: str) -> str:
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f"<style>{CSS}</style></head><body>\n{body}\n</body></html>\n")


def _legend(data: dict, positions: dict) -> str:
    e = html.escape
    marks = boardmap.markers(list(positions))
    items = "".join(f'<li><span style="color:{COLOURS[i % len(COLOURS)]}">&#9679; {e(marks[n])}</span> {e(n)} '
                    f'({e(p["character"] or "-")}): {e(_where(data, p))}, life {p["life"]}'
                    f'{"" if p["alive"] else " (dead)"}</li>' for i, (n, p) in enumerate(positions.items()))
    return f"<ul>{items}</ul>"


def write_html(data: dict, folder: str | Path, as_player: str | None = None, upto: int | None = None,
               progress=archive_mod.no_progress) -> list[Path]:
    """One page per turn (the board and events) and an index.html; returns the pages. The
    board's picture is one file beside them (PICTURE), each page drawing its markers over it."""
    e = html.escape
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / PICTURE).write_text(board_picture(data), encoding="utf-8")
    places = _places(data)
    turns = _turns(data, as_player, upto)
    seen_as = as_player or data.get("player")
    title = f"{data['game']}" + (f", as {seen_as} saw it" if seen_as else "")
    pages, index = [], []
    for i, group in enumerate(turns, 1):
        name = f"turn-{i:04d}.html"
        nav = ['<a href="index.html">index</a>']
        if i > 1:
            nav.append(f'<a href="turn-{i - 1:04d}.html">previous</a>')
        if i < len(turns):
            nav.append(f'<a href="turn-{i + 1:04d}.html">next</a>')
        items = []
        for m in group:
            evs = "".join(f'<li class="ev">{e(ev["text"])}</li>' for ev in m["events"])
            items.append(f'<li><b>{m["seq"]}. {e(m["line"])}</b> <span class="meta">{e(_who(m))}</span>'
                         f"<ul>{evs}</ul></li>")
        positions = group[-1]["positions"]
        body = (f"<nav>{''.join(nav)}</nav><h1>{e(title)}: turn {group[0]['turn']}</h1>"
                f"{board_svg(data, positions, places)}{_legend(data, positions)}"
                f"<h2>Moves</h2><ol>{''.join(items)}</ol>")
        (folder / name).write_text(_page(f"{data['game']} turn {group[0]['turn']}", body), encoding="utf-8")
        pages.append(folder / name)
        index.append(f'<li><a href="{name}">turn {group[0]["turn"]}</a>: '
                     f'moves {group[0]["seq"]}–{group[-1]["seq"]}</li>')
        progress(i, len(turns))
    final = data["final"]
    last = turns[-1][-1]["positions"] if turns else data["start"]["positions"]  # as far as --to goes
    result = ("Winner(s): " + ", ".join(final["winners"]) if final["winners"] else "No one won.") \
        if final["over"] else f"The game is {data['status']}."
    seed = "; seed <code>" + e(data["seed"]) + "</code>" if data.get("seed") else ""
    body = (f"<h1>{e(title)}</h1><p>{e(result)} {len(data['moves'])} moves; seed commitment "
            f"<code>{e(data['seed_commitment'])}</code>{seed}"
            f".</p>{board_svg(data, last, places)}<h2>Turns</h2><ol>{''.join(index)}</ol>")
    (folder / "index.html").write_text(_page(title, body), encoding="utf-8")
    return [folder / "index.html", *pages]

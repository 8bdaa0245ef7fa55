"""What each page shows, as plain data for its template: built from the state kept on the
game row (never a replay) and the stored move events, with the builders the mails use
(pbem/outbound/reports.py: the shared frame from a spectator's view, a reader's own context).

Public pages are made from the view of a spectator, a name no seat has, so they can hold only
what every player may see; a seat's page adds that seat's own view.
"""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from markupsafe import Markup

from pbem.base import boardmap, clock, i18n
from pbem.base.i18n import _
from pbem.core import people
from pbem.outbound import links, render, reports, turnmail
from pbem.pace import reported, schedule
from pbem.web import board

if TYPE_CHECKING:
    from pbem.core.service import Service

# Moves of the log on one page (the newest, unless `?upto=` asks for older ones), so a page costs
# the same at move 10,000 as at move 60; older and later ones a link away; the whole log is
# the archive's. The lead's product choice (issue 28): 150 made a long game's page twice a
# new one's.
LOG_MOVES = 50
SPECTATOR = reports.SPECTATOR


def listed(game: dict) -> bool:
    """Whether the index shows the game (`unlisted = true` in its [game] table hides it)."""
    return not game["config"].get("game", {}).get("unlisted", False)


def index(svc: Service) -> dict:
    eng, out = svc.engine, []
    for row in svc.store.games():
        game = svc.store.game(row["id"])
        if game is None or not listed(game):  # None: deleted since the list was read
            continue
        state = eng.decode(game["state"])
        out.append({"id": game["id"], "url": links.game_path(game["id"]), "status": game["status"],
                    "turn": getattr(state, "turn", None), "moves": game["moves"],
                    "players": [p["name"] for p in svc.store.players(game["id"], active_only=True)],
                    "waiting": [] if state.over else [n for n in eng.waiting_for(state)],
                    "updated": game["updated_at"]})
    return {"games": out}


def _when(iso_text: str) -> dict:
    """A time for a page: the UTC text (what a reader without scripts sees) and the ISO value
    the page's script writes in the reader's own zone."""
    t = clock.parse(iso_text)
    return {"iso": t.isoformat(), "utc": clock.local(t, None)}


def waiting(svc: Service, game: dict, view: dict) -> list[dict]:
    """Whom the game waits for, each with the deadline of their question (if the game has pace)."""
    due = {r["player"]: _when(r["due_at"]) for r in schedule.open_rows(svc, game["id"])}
    names = [n for p in view.get("prompt", []) for n in p["players"]]
    return [{"name": n, "due": due.get(n)} for n in dict.fromkeys(names)]


_lock = threading.Lock()  # pages are made in several threads: what they keep is shared


def standing(svc: Service, game: dict) -> tuple:
    """Where a game stands, as the key of what its pages keep: its store, its engine, its moves
    and its state by a digest. Every move changes it; a rollback replayed to the same move, or
    another database's game of the same name, does too (its `updated_at` may not, within a
    second)."""
    state = hashlib.blake2b(bytes(game["state"]), digest_size=16).digest()
    return svc.settings.store_target, id(svc.engine), game["id"], game["moves"], state

_logs: OrderedDict[tuple, dict] = OrderedDict()
LOGS_KEPT = 256  # pages of the log as the games' readers last saw them


def log(svc: Service, game: dict, reader: str, upto: int | None = None) -> dict:
    """`_log` (below), with its HTML (`html`: templates/web/_log.html.j2), once per game state,
    reader, page and language: a page is read many times between two moves (every reader's
    refresh), and what its moves showed never changes while the game stands where it stood (the
    key: its state, by a digest, and its moves; a rollback replayed to the same move within the
    same second keeps `updated_at`, not the state)."""
    key = (*standing(svc, game), reader, upto, i18n.current())
    done = _logs.get(key)
    if done is None:
        done = _log(svc, game, reader, upto)
        done["html"] = Markup(render.templates(svc).env.get_template("web/_log.html.j2").render(log=done))
        with _lock:
            _logs[key] = done
            while len(_logs) > LOGS_KEPT:
                _logs.popitem(last=False)
    return done


def _log(svc: Service, game: dict, reader: str, upto: int | None = None) -> dict:
    """The events `reader` may see of the last LOG_MOVES moves up to `upto`, grouped by turn;
    `after`: the last move before them (0: none); `later`: the next page's first and last move
    (None: the next is the newest, or this is)."""
    eng = svc.engine
    upto = game["moves"] if upto is None else max(0, min(upto, game["moves"]))
    after = max(0, upto - LOG_MOVES)
    events = [e for r in svc.store.move_events(game["id"], after, upto) for e in turnmail.decode(eng, r["events"])]
    groups = turnmail.grouped(eng.filter_events(events, reader))
    if groups and groups[0]["title"] is None:  # the events before the first turn heading shown
        groups[0]["title"] = _("The start of the game") if after == 0 else \
            _("Earlier in that turn (from move %(n)s)", n=after + 1)
    later = {"first": upto + 1, "upto": upto + LOG_MOVES} if upto + LOG_MOVES < game["moves"] else None
    return {"groups": groups, "after": after, "upto": upto, "total": game["moves"], "later": later}


def picture(view: dict) -> Markup:
    marks = boardmap.markers(list(view["players"]))
    colours = {marks[n]: boardmap.COLOURS[i % len(boardmap.COLOURS)] for i, n in enumerate(marks)}
    return Markup(board.svg(view, marks, colours))


_drawn: OrderedDict[tuple, tuple] = OrderedDict()


def _board(svc: Service, game: dict, state=None) -> tuple[dict, Markup, dict, bool, Markup]:
    """(spectator's view, SVG, frame, whether anyone holds a hand, the board and sheets as HTML:
    templates/web/_table.html.j2): the same for every reader of one game state and language (the
    SVG names spaces and cards in it), so made once per state and language, and only a page's
    own parts are rendered for each view (at move 10,000 the sheets hold far more than at
    move 10). `state`: the game row's, decoded (None: decoded here if it is not kept)."""
    key = (*standing(svc, game), i18n.current())
    done = _drawn.get(key)
    if done is None:
        state = svc.engine.decode(game["state"]) if state is None else state
        view = svc.engine.view(state, SPECTATOR)
        frame = reports.make_frame(svc, state)
        hands = {n: p.get("hand") for n, p in view["players"].items() if isinstance(p.get("hand"), int)}
        for row in frame["players"]:
            row["hand"] = hands.get(row["name"], 0)
        svg = picture(view)
        table = render.templates(svc).env.get_template("web/_table.html.j2").render(
            turn=view["turn"], board_svg=svg, frame=frame, show_hands=any(hands.values()))
        done = (view, svg, frame, any(hands.values()), Markup(table))
        with _lock:  # pages are made in several threads
            _drawn[key] = done
            while len(_drawn) > 64:
                _drawn.popitem(last=False)
    return done


def public(svc: Service, game: dict, state=None, upto: int | None = None, reader: str = SPECTATOR) -> dict:
    """The game's public page: the board, the public sheets, the log (as `reader` may see it),
    whom it waits for. `state`: the game row's, decoded; None: only if its board is not kept."""
    view, svg, frame, show_hands, table = _board(svc, game, state)
    over = bool(view["over"]) or game["status"] == "ended"
    return {"game": {"id": game["id"], "status": game["status"], "moves": game["moves"], "url":
                     links.game_path(game["id"])},
            "turn": view["turn"], "round": view.get("round"), "over": over, "winners": list(view.get("winners", [])),
            "board_svg": svg, "frame": frame, "show_hands": show_hands, "table_html": table,
            "waiting": [] if over else waiting(svc, game, view),
            "log": log(svc, game, reader, upto), "replay": over and game["moves"] > 0}


# -- a seat's page -------------------------------------------------------------------------

def private(svc: Service, game: dict, state, player: dict, upto: int | None = None) -> dict:
    """A seat's own page: its view, its question with what each option leads to (the lines its
    report has: pbem/outbound/leads.py), its sheet, and the public page's parts (the log with what this
    seat may see)."""
    name = player["name"]
    page = public(svc, game, state, upto, reader=name)
    view = svc.engine.view(state, name)
    ctx = reports.report_context(svc, game, name, view, [], page["frame"], state, pace=reported.part)
    asked = ctx["asked"]
    options = [{"key": o["key"], "text": o["text"], "line": line, "leads": ctx["leads"].get(o["key"], [])}
               for o, line in zip(asked["options"], ctx["reply_lines"])] if asked else []
    page.update(
        me=name, seat_url=links.seat_path(svc, player), asked=asked, options=options, about=ctx["about"],
        sheet=ctx["sheet"], cards=ctx["cards"], deadline=ctx["deadline"], standing_orders=ctx["standing_orders"],
        timezone=people.zone(svc, game, name, player["email"]) or "UTC",
        calendar_url=links.calendar_path(svc, player) if ctx["deadline"] is not None else None,
        languages=[(code, i18n.name(code)) for code in i18n.languages()],
        mail=people.mail_choice(svc, player["email"]),
        mail_choices=[(people.EACH, _("each report as it comes")),
                      (people.DIGEST, _("one mail a day listing every game that waits for me")),
                      (people.BOTH, _("both"))])
    return page

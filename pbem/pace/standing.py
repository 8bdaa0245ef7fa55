"""Standing orders: answers a player files in advance, so a question they would always answer
the same way costs no round of mail.

By mail, one order a line (docs/pace.md):

    standing: reroll-if-losing          fate rerolls in fights, against Death, for armour and at the
                                        Portal, the Crypt and the Mines (asked only when losing)
    standing: never-reroll              keep the roll whenever one of those or a table offers a reroll
    standing: never-reroll-movement     never spend fate on a movement roll
    standing: when fight answer fight   any kind of question, the first listed key that is open:
    standing: when shop answer done or default        ("default": the deadline's default)
    standing: cancel 2    standing: cancel all

Whenever a question opens, the standing orders of those it asks answer it before anyone is
mailed: `moves.play` asks an `Answerer` after each move, and logs what it plays with actor
"standing". A line of a player's own mail comes first: an order answers only a question the
next line does not fit, or those left open after the mail's last line.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pbem.base import clock
from pbem.core.games import seat_config
from pbem.outbound.turnmail import EVERY, TURN
from pbem.pace import answering, moves, vacation
from pbem.pace.pace import DEFAULTS, check_reports

if TYPE_CHECKING:
    from pbem.core.service import Service

REPORTS_NOTES = {EVERY: "reports: you get a report after every move",
                 TURN: "reports: you get a report when you are asked, when a turn begins and after your answers"}
_CANCEL = re.compile(r"^cancel\s+(all|\d+)$")


# -- the orders on file ------------------------------------------------------------------

def listing(svc: Service, game_id: str, player: str) -> list[dict]:
    return svc.store.standing_orders(game_id, player)


def file(svc: Service, game_id: str, player: str, text: str) -> int:
    """File one order (ValueError if it cannot be read); returns its number."""
    answering.parse(text)
    return svc.store.file_standing_order(game_id, player, answering.normal(text))


def cancel(svc: Service, game_id: str, player: str, which: str = "all") -> int:
    """Cancel order `which` (a number) or all of them; returns how many were cancelled."""
    return svc.store.cancel_standing_orders(game_id, player, None if which == "all" else int(which))


def carry_out(svc: Service, game_id: str, player: str, text: str, check: bool = False) -> str:
    """A `standing:` line of a mail; returns what became of it, for the reply."""
    text = answering.normal(text)
    m = _CANCEL.match(text)
    if m:
        if check:
            return f"standing: {text}: would be done"
        n = cancel(svc, game_id, player, m.group(1))
        if not n:
            return f"standing: {text}: no such standing order"
        return f"standing: {text}: {n} standing order{'s' if n != 1 else ''} cancelled"
    rule = answering.parse(text)
    unknown = [k for k in rule.kinds if k not in DEFAULTS]
    note = f" (no question of kind {unknown[0]!r} is known yet: check the spelling)" if unknown else ""
    if check:
        return f"standing: {text}: would be filed{note}"
    return f"standing order {file(svc, game_id, player, text)} filed: {text}{note}"


def settle(svc: Service, game: dict, played) -> None:
    """After a move made outside `moves.play` (the moderator's ruling): let standing orders
    answer what it opened, and log their answers."""
    auto = answering.Answerer(svc, game)
    made: list[tuple] = []  # (move, state, actor, events), as Answerer.step appends them
    while auto.step(played, made):
        pass
    for move, st, actor, events in made:
        played.seq = moves.record(svc, game, move, st, events, actor=actor)["seq"]


# -- a mail's settings lines: standing, vacation, timezone, reports (email: pace/addresses.py) ------
# One function a line, each returning what became of it for the reply (a ValueError or GameError
# says why it was not done). The mail commands' table (pbem/inbound/commands.py) names them.

def standing_line(svc: Service, game: dict, player: str, value: str, check: bool = False) -> str:
    """`standing: ORDER` (or `standing: cancel N|all`)."""
    return carry_out(svc, game["id"], player, value, check)


def vacation_line(svc: Service, game: dict, player: str, value: str, check: bool = False) -> str:
    """`vacation: 5d` pauses the seat's deadlines; `vacation: end` (back, over, 0, none) ends it;
    `vacation: 5d all` pauses every running game of the seat's address."""
    head, _, last = value.rpartition(" ")
    if head and last.lower() == "all":
        seat = svc.store.player(game["id"], player)
        assert seat is not None  # the seat the mail authenticated
        return "vacation: " + "; ".join(vacation.start_everywhere(svc, seat["email"], clock.duration(head, unit="d"),
                                                                  check=check))
    if value.lower() in ("end", "over", "0", "none", "back"):
        if check:
            return "vacation: would end now"
        vacation.end(svc, game, player)
        return "vacation: ended; your deadlines run again"
    length = clock.duration(value, unit="d")
    if check:
        return f"vacation: {value}: would start now"
    end = vacation.start(svc, game, player, length, by=player)
    return f"vacation: your deadlines wait until {clock.local(end, seat_config(game, player).get('timezone'))}"


def timezone_line(svc: Service, game: dict, player: str, value: str, check: bool = False) -> str:
    """`timezone: Europe/Berlin`: the times the seat's mail shows."""
    clock.zone(value)
    if not check:
        vacation.set_timezone(svc, game, player, value)
    return f"timezone: times are shown in {value}"


def reports_line(svc: Service, game: dict, player: str, value: str, check: bool = False) -> str:
    """`reports: every` (a report after every move) or `reports: turn`."""
    how = check_reports(value.lower())
    if not check:
        vacation.set_reports(svc, game, player, how)
    return REPORTS_NOTES[how]

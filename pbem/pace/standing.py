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

from pbem.base import clock, i18n
from pbem.base.i18n import N_, _, ngettext
from pbem.core.games import seat_config
from pbem.outbound.turnmail import EVERY, TURN
from pbem.pace import answering, moves, order_words, vacation
from pbem.pace.pace import DEFAULTS, check_reports

if TYPE_CHECKING:
    from pbem.core.service import Service

REPORTS_NOTES = {EVERY: N_("reports: you get a report after every move"),
                 TURN: N_("reports: you get a report when you are asked, when a turn begins and after your answers")}
REPORTS_WORDS = {"jeder": EVERY, "jede": EVERY, "jeden": EVERY, "zug": TURN}  # `berichte: jeder`
_CANCEL = re.compile(rf"^(?:{'|'.join(order_words.words('cancel'))})\s+({'|'.join(order_words.words('all'))}|\d+)$")


# -- the orders on file ------------------------------------------------------------------

def listing(svc: Service, game_id: str, player: str) -> list[dict]:
    return svc.store.standing_orders(game_id, player)


def file(svc: Service, game_id: str, player: str, text: str) -> int:
    """File one order (ValueError if it cannot be read); returns its number."""
    answering.parse(text)
    return svc.store.file_standing_order(game_id, player, answering.normal(text))


def cancel(svc: Service, game_id: str, player: str, which: str = "all") -> int:
    """Cancel order `which` (a number) or all of them; returns how many were cancelled."""
    return svc.store.cancel_standing_orders(game_id, player, None if which in order_words.words("all") else int(which))


def carry_out(svc: Service, game_id: str, player: str, text: str, check: bool = False) -> str:
    """A `standing:` line of a mail; returns what became of it, for the reply."""
    text = answering.normal(text)
    m = _CANCEL.match(text)
    if m:
        if check:
            return _("standing: %(order)s: would be done", order=text)
        n = cancel(svc, game_id, player, m.group(1))
        if not n:
            return _("standing: %(order)s: no such standing order", order=text)
        return ngettext("standing: %(order)s: %(n)s standing order cancelled",
                        "standing: %(order)s: %(n)s standing orders cancelled", n, order=text)
    rule = answering.parse(text)
    unknown = [k for k in rule.kinds if k not in DEFAULTS]
    note = _(" (no question of kind '%(kind)s' is known yet: check the spelling)", kind=unknown[0]) \
        if unknown else ""
    if check:
        return _("standing: %(order)s: would be filed", order=text) + note
    n = file(svc, game_id, player, text)
    return _("standing order %(n)s filed: %(order)s", n=n, order=answering.shown(text, i18n.current())) + note


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


ALL_WORDS = ("all", "alle")  # `vacation: 5d all`, `urlaub: 5d alle`
END_WORDS = ("end", "over", "0", "none", "back", "ende", "vorbei", "zurück", "zurueck")  # `urlaub: ende`


def vacation_line(svc: Service, game: dict, player: str, value: str, check: bool = False) -> str:
    """`vacation: 5d` pauses the seat's deadlines; `vacation: end` (back, over, 0, none) ends it;
    `vacation: 5d all` pauses every running game of the seat's address."""
    head, _space, last = value.rpartition(" ")
    if head and last.lower() in ALL_WORDS:
        seat = svc.store.player(game["id"], player)
        assert seat is not None  # the seat the mail authenticated
        notes = vacation.start_everywhere(svc, seat["email"], clock.duration(head, unit="d"), check=check)
        return _("vacation:") + " " + "; ".join(notes)
    if value.lower() in END_WORDS:
        if check:
            return _("vacation: would end now")
        vacation.end(svc, game, player)
        return _("vacation: ended; your deadlines run again")
    length = clock.duration(value, unit="d")
    if check:
        return _("vacation: %(length)s: would start now", length=value)
    end = vacation.start(svc, game, player, length, by=player)
    when = clock.local(end, seat_config(game, player).get("timezone"))
    return _("vacation: your deadlines wait until %(when)s", when=when)


def timezone_line(svc: Service, game: dict, player: str, value: str, check: bool = False) -> str:
    """`timezone: Europe/Berlin`: the times the seat's mail shows."""
    clock.zone(value)
    if not check:
        vacation.set_timezone(svc, game, player, value)
    return _("timezone: times are shown in %(zone)s", zone=value)


def reports_line(svc: Service, game: dict, player: str, value: str, check: bool = False) -> str:
    """`reports: every` (a report after every move) or `reports: turn`; `berichte: jeder`, `berichte: zug`."""
    how = REPORTS_WORDS.get(value.lower(), value.lower())
    if how not in (EVERY, TURN):
        raise ValueError(_('write "reports: every" (a report after every move) or "reports: turn" (the default)'))
    how = check_reports(how)
    if not check:
        vacation.set_reports(svc, game, player, how)
    return _(REPORTS_NOTES[how])

"""Vacations: a player pauses their own deadlines, by mail (`vacation: 5d`, `vacation: end`;
`vacation: 5d all` in every running game of their address) or by the moderator (`pbem player
vacation`), up to the game's allowance (pace.vacation_days).

A pause moves the player's open deadlines later by its length; a question that opens during
it gets its full deadline from the pause's end (`schedule.paused_until`). Time zones are set here too:
like a vacation, a seat's own setting, kept in the game's config, and so is when the seat
gets reports (`reports: every`, pbem/outbound/turnmail.py).
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pbem.base import clock, log
from pbem.base.i18n import _
from pbem.core.games import GameError, seat_config
from pbem.pace import schedule
from pbem.pace.pace import check_reports, pace_of
from pbem.store import iso

if TYPE_CHECKING:
    from pbem.core.service import Service

LONGEST = timedelta(days=366)


def on_vacation(svc: Service, game_id: str, player: str, now: datetime) -> dict | None:
    return next((v for v in schedule.vacations(svc, game_id, player)
                 if clock.parse(v["starts_at"]) <= now < clock.parse(v["ends_at"])), None)


def left(svc: Service, game: dict, player: str, now: datetime) -> timedelta:
    """What is left of the player's allowance (a running vacation counts in full)."""
    pace = pace_of(game)
    days = seat_config(game, player).get("vacation_days", pace.vacation_days if pace else 0)
    used = sum((clock.parse(v["ends_at"]) - clock.parse(v["starts_at"]) for v in schedule.vacations(svc, game["id"],
                                                                                                    player)),
               timedelta())
    return max(timedelta(0), timedelta(days=days) - used)


def start(svc: Service, game: dict, player: str, length: timedelta, *, by: str) -> datetime:
    """Pause `player`'s deadlines for `length` from now (or longer, if a vacation runs); only
    the moderator (`by` "moderator") may go past the game's allowance. Returns the end."""
    pace, now = pace_of(game), svc.now()
    if pace is None:
        raise GameError(_("%(game)s has no deadlines: there is nothing to pause", game=game["id"]))
    if length <= timedelta(0):
        raise GameError(_("a vacation needs a length (write e.g. 5d)"))
    if length > LONGEST:  # and a date past the year 9999 cannot be kept
        raise GameError(_("a vacation is at most %(days)s days", days=LONGEST.days))
    allowed = left(svc, game, player, now)
    if by != svc.engine.MODERATOR and length > allowed:
        raise GameError(_("only %(left)s of vacation left in this game", left=clock.words(allowed)))
    running = on_vacation(svc, game["id"], player, now)
    if running:
        end = clock.parse(running["ends_at"]) + length
        svc.store.end_vacation_at(running["id"], iso(end))
    else:
        end = now + length
        svc.store.add_vacation(game["id"], player, iso(now), iso(end), by)
    for row in schedule.open_rows(svc, game["id"], player):
        schedule.move_due(svc, row, max(clock.parse(row["due_at"]), now) + length, now, pace)
    log.get(game=game["id"]).info("vacation", player=player, until=iso(end), by=by)
    return end


def start_everywhere(svc: Service, address: str, length: timedelta, *, check: bool = False) -> list[str]:
    """`vacation: 5d all`: a vacation in every running game with deadlines where `address`
    holds a seat (each within its own allowance, in the caller's transaction); a note per game."""
    notes = []
    for seat in svc.store.seats_by_email(address):
        game = svc.store.game(seat["game"]) if seat["status"] == "active" else None  # locked for this transaction
        if game is None or game["status"] != "active" or pace_of(game) is None:
            continue
        try:
            if check:
                notes.append(_("%(game)s: would start now", game=game["id"]))
                continue
            end = start(svc, game, seat["name"], length, by=seat["name"])
            notes.append(_("%(game)s: your deadlines wait until %(when)s", game=game["id"],
                           when=clock.local(end, seat_config(game, seat["name"]).get("timezone"))))
        except GameError as e:
            notes.append(_("%(game)s: not done: %(why)s", game=game["id"], why=e))
    return notes or [_("no running game with deadlines")]


def end(svc: Service, game: dict, player: str) -> None:
    """Back early: the days not used stay for later, and the deadlines move back."""
    now = svc.now()
    running = on_vacation(svc, game["id"], player, now)
    if running is None:
        raise GameError(_("you are not on vacation"))
    cut = clock.parse(running["ends_at"]) - now
    svc.store.end_vacation_at(running["id"], iso(now))
    pace = pace_of(game)
    if pace is not None:  # a game without a pace keeps no deadlines
        for row in schedule.open_rows(svc, game["id"], player):
            schedule.move_due(svc, row, max(now, clock.parse(row["due_at"]) - cut), now, pace)


def _set(svc: Service, game: dict, player: str, key: str, value) -> None:
    """A seat's own setting, kept in its [[players]] table of the game's config."""
    for p in game["config"].get("players", []):
        if p.get("name") == player:
            p[key] = value
    svc.store.update_game(game["id"], config=game["config"])


def set_allowance(svc: Service, game: dict, player: str, days: int) -> None:
    """The moderator's word on how many vacation days `player` has in this game."""
    _set(svc, game, player, "vacation_days", int(days))


def set_reports(svc: Service, game: dict, player: str, how: str) -> None:
    """When the player gets reports (`reports: every`, `reports: turn`)."""
    _set(svc, game, player, "reports", check_reports(how))


def set_timezone(svc: Service, game: dict, player: str, tz: str) -> None:
    """How times show to the player (`timezone: Europe/Berlin`)."""
    clock.zone(tz)  # ValueError for a name zoneinfo does not know
    _set(svc, game, player, "timezone", tz)

"""When each open question is due: one `deadlines` row per question and player asked, kept in
step with the game by `sync` after every recorded move, each due time paused by the player's
vacations (`paused_until`). Below the rest of pace: what a deadline's passing does is
pbem/pace/deadlines.py, a vacation's start and end pbem/pace/vacation.py.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pbem.base import clock
from pbem.pace.pace import Pace, default_key, pace_of
from pbem.store import iso

if TYPE_CHECKING:
    from pbem.core.service import Service


def secs(d: timedelta) -> str:
    return str(int(d.total_seconds()))


# -- the rows ----------------------------------------------------------------------------

def open_rows(svc: Service, game_id: str, player: str | None = None) -> list[dict]:
    return svc.store.deadlines(game_id, player)


def _reached(pace: Pace, now: datetime, due: datetime) -> str:
    """The lead times whose reminder time is past at `now`: never sent for this due time."""
    return ",".join(secs(r) for r in pace.reminders if now >= due - r)


def next_at(pace: Pace | None, due: datetime, reminded: str) -> str:
    """When the scan must look at the row next: its first reminder not yet sent, else `due`."""
    done = set(filter(None, reminded.split(",")))
    return iso(min([due - r for r in (pace.reminders if pace else ()) if secs(r) not in done] + [due]))


BOT = "bot"  # a deadline row closed because a bot plays the seat (status and closed_by)


def sync(svc: Service, game: dict, state, actor: str | None = None) -> None:
    """Open a deadline for each player a question now waits for, and close those no longer
    waited for (answered by `actor`). Called after every recorded move. A seat a bot plays has
    no deadline: the bot answers at once (pbem/pace/answering.py)."""
    pace = pace_of(game)
    if pace is None or game.get("status") == "waiting":
        return
    eng, now = svc.engine, svc.now()
    asked = {} if state.over else {(p.id, name): p for p in eng.prompts(state) for name in p.players
                                   if name != eng.MODERATOR}
    seats = {p["name"]: p for p in svc.store.players(game["id"])} if asked else {}
    for row in open_rows(svc, game["id"]):
        bot = seats.get(row["player"], {}).get("bot")
        if asked.pop((row["prompt"], row["player"]), None) is None or bot:
            svc.store.update_deadline(game["id"], row["prompt"], row["player"], closed_at=iso(now),
                                      closed_by=BOT if bot else actor,
                                      status="closed" if state.over else BOT if bot else "answered", moved=True)
    for (prompt_id, name), p in asked.items():
        seat = seats.get(name)
        if seat is not None and seat["bot"]:
            continue
        due = paused_until(svc, game["id"], name, now, pace.deadline)
        reminded = _reached(pace, now, due)
        svc.store.open_deadline(game["id"], prompt_id, name, kind=p.kind, default_key=default_key(p, name),
                                opened_at=iso(now), due_at=iso(due), reminded=reminded,
                                next_at=next_at(pace, due, reminded), email=seat["email"] if seat else None)


def move_due(svc: Service, row: dict, due: datetime, now: datetime, pace: Pace) -> None:
    """A new due time: the reminders not yet reached are armed again, the others stay done; its
    calendar event moves (pbem/outbound/calendar.py)."""
    reminded = _reached(pace, now, due)
    svc.store.update_deadline(row["game"], row["prompt"], row["player"], due_at=iso(due), reminded=reminded,
                              guard="", next_at=next_at(pace, due, reminded), moved=True)


# -- vacations pause it ---------------------------------------------------------------

def vacations(svc: Service, game_id: str, player: str) -> list[dict]:
    return svc.store.vacations(game_id, player)


def paused_until(svc: Service, game_id: str, player: str, start: datetime, length: timedelta) -> datetime:
    """start + length, the player's vacations not counted: their deadlines pause meanwhile."""
    t, rest = start, length
    for v in vacations(svc, game_id, player):
        s, e = clock.parse(v["starts_at"]), clock.parse(v["ends_at"])
        if e <= t:
            continue
        if s > t:
            if t + rest <= s:
                break
            rest -= s - t
        t = e
    return t + rest

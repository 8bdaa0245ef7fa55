"""A substitute takes over a seat (`pbem player replace`): what they must know to play on.

The newcomer gets a briefing: the seat's sheet and hand, the question open to them, and what
happened lately as that seat saw it. The orders and vacation of the one who left end with
them; the seat's deadlines give the newcomer at least one full deadline. The config keeps
who held the seat before, and until when.

What happened lately: the events the seat may see (the engine's `filter_events`, as in every
report) from the earlier of
- the current turn and the full round of turns before it (one per seat): how the seat's own
  last turn went and what each other player did since, what someone taking a chair at the
  table would ask;
- the seat's first move not yet reported (`players.reported_seq`): the briefing counts as the
  seat's report up to now, so what its last holder was never mailed (while silent, removed
  or bouncing) would otherwise reach no one who holds the seat.
Not "the last N moves": a move is any one answer (a direction, a reroll, a yes), so a fixed
number of them is half a turn in one game and several rounds in another. Never more than
LOOKBACK moves back however long the backlog: the sheet, hand and board say where things stand.

The events are read as turn reports read them: each move's stored events (table
`move_events`, decoded by pbem/outbound/turnmail.py); a rollback shows the note it stored. A game
older than that table (migration 5) has no events for its early moves: those are replayed.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pbem.base import clock
from pbem.core import games
from pbem.outbound import reports, turnmail
from pbem.pace import reported, schedule, standing, vacation
from pbem.pace.pace import pace_of

if TYPE_CHECKING:
    from engine.interface import EventLike
    from pbem.core.service import Service

LOOKBACK = 300  # moves: the most the briefing reaches back


def recent_events(svc: Service, game: dict, player: str, since: int) -> Sequence[EventLike]:
    """The events `player` may see of the moves the briefing tells (see above), in order;
    `since`: the last move the seat's reports showed."""
    last = game["moves"]
    moves = _events(svc, game, max(0, last - LOOKBACK), last)
    flat = [(seq, e) for seq, events in moves for e in events]
    turns = [i for i, (_, e) in enumerate(flat) if e.kind == "turn"]
    back = len(svc.store.players(game["id"])) + 1  # the current turn and a full round before it
    start = turns[-back] if len(turns) >= back else 0
    unreported = next((i for i, (seq, _) in enumerate(flat) if seq > since), len(flat))
    return svc.engine.filter_events([e for _, e in flat[min(start, unreported):]], player)


def _events(svc: Service, game: dict, after: int, upto: int) -> list[tuple[int, list]]:
    """(seq, events) of the moves after `after` up to `upto`, as stored; moves logged before
    events were stored are replayed (a rollback gives the note it would have stored)."""
    stored = turnmail.Backlog(svc, game["id"], after, upto).moves
    have = {seq for seq, _ in stored}
    old = max((seq for seq in range(after + 1, upto + 1) if seq not in have), default=None)
    if old is None:
        return stored
    eng, out = svc.engine, []
    current = games.state_at(svc, game, after)
    events: Sequence[object]  # a rollback's note, or what the engine says
    for row in svc.store.moves(game["id"], after=after, upto=old):
        if row["kind"] == "rollback":
            back = int(row["line"].split()[1])
            current, events = games.state_at(svc, game, back), [turnmail.rollback_note(back)]
        else:
            current, events = eng.apply(current, eng.parse_move(row["line"]), copy=False)  # ours: decoded here
        out.append((row["seq"], turnmail.decode(eng, turnmail.encode(events))))  # as if stored: no engine data
    return out + [(seq, events) for seq, events in stored if seq > old]


def note_predecessor(svc: Service, game: dict, name: str, email: str) -> None:
    """Keep the seat's earlier address in the config's history before it is replaced."""
    for p in game["config"].get("players", []):
        if p.get("name") == name and p.get("email") != email:
            p.setdefault("replaced", []).append({"email": p.get("email"), "until": svc.store.now()})


def hand_over(svc: Service, game: dict, player: dict, state, *, mid_parts: tuple) -> None:
    """Clear what the last holder set up and brief the newcomer (in the caller's transaction)."""
    name = player["name"]
    standing.cancel(svc, game["id"], name)
    now = svc.now()
    if vacation.on_vacation(svc, game["id"], name, now):
        vacation.end(svc, game, name)
    pace = pace_of(game)
    for row in schedule.open_rows(svc, game["id"], name) if pace else []:
        if pace and clock.parse(row["due_at"]) < now + pace.deadline:
            schedule.move_due(svc, row, now + pace.deadline, now, pace)
    recent = turnmail.grouped(recent_events(svc, game, name, player["reported_seq"]))
    extra = {"recent": recent, "predecessors": [
        r["until"] for p in game["config"].get("players", []) if p.get("name") == name for r in p.get("replaced", [])]}
    # "recent" holds the seat's backlog and more: the report's own list would repeat it
    reports.queue_report(svc, game, player, state, kind="briefing", mid_parts=mid_parts, extra=extra, catch_up=False,
                         pace=reported.part)

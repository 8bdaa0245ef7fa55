"""A substitute takes over a seat (`pbem player replace`): what they must know to play on.

The newcomer gets a briefing: the seat's sheet and hand, the question open to them, and the
recent events as that seat saw them, replayed from the log (events are not stored). The
orders and vacation of the one who left end with them; the seat's deadlines give the
newcomer at least one full deadline. The config keeps who held the seat before, and until when.
"""
from __future__ import annotations

from pbem import clock, deadlines, games, reports, standing, turnmail, vacation
from pbem.pace import pace_of

RECENT = 30  # moves replayed for the briefing's "what happened lately"


def recent_events(svc, game: dict, player: str, n: int = RECENT) -> list[str]:
    """The texts of the events of the last `n` moves that `player` may see."""
    eng, last = svc.engine, game["moves"]
    start = max(0, last - n)
    current = games.state_at(svc, game, start)
    out = []
    for row in svc.store.moves(game["id"], after=start, upto=last):
        if row["kind"] == "rollback":
            back = int(row["line"].split()[1])
            current = games.state_at(svc, game, back)
            out.append(turnmail.rollback_note(back).text)
            continue
        current, events = eng.apply(current, eng.parse_move(row["line"]))
        out += [e.text for e in eng.filter_events(events, player)]
    return out


def note_predecessor(svc, game: dict, name: str, email: str) -> None:
    """Keep the seat's earlier address in the config's history before it is replaced."""
    for p in game["config"].get("players", []):
        if p.get("name") == name and p.get("email") != email:
            p.setdefault("replaced", []).append({"email": p.get("email"), "until": svc.store.now()})


def hand_over(svc, game: dict, player: dict, state, *, mid_parts: tuple) -> None:
    """Clear what the last holder set up and brief the newcomer (in the caller's transaction)."""
    name = player["name"]
    standing.cancel(svc, game["id"], name)
    now = svc.now()
    if vacation.on_vacation(svc, game["id"], name, now):
        vacation.end(svc, game, name)
    pace = pace_of(game)
    for row in deadlines.open_rows(svc, game["id"], name) if pace else []:
        if clock.parse(row["due_at"]) < now + pace.deadline:
            deadlines.move_due(svc, row, now + pace.deadline, now, pace)
    extra = {"recent": recent_events(svc, game, name), "predecessors": [
        r["until"] for p in game["config"].get("players", []) if p.get("name") == name for r in p.get("replaced", [])]}
    # "recent" tells the story: the seat's own backlog would repeat part of it
    reports.queue_report(svc, game, player, state, kind="briefing", mid_parts=mid_parts, extra=extra, catch_up=False)

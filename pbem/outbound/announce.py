"""Who is told what after moves: each seat's report (pbem/outbound/reports.py) as
pbem/outbound/turnmail.py decides, the game-over mail, the observers' public report
(pbem/outbound/observers.py) and the moderator's digest. Above both reports and observers,
so that neither imports the other.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.core import games
from pbem.outbound import notices, observers, reports, turnmail

if TYPE_CHECKING:
    from pbem.core.service import Service


def queue_reports(svc: Service, game: dict, played, *, sender: str | None = None, sender_kind: str = "receipt",
                  sender_extra: dict | None = None, also=(), in_reply_to: str | None = None,
                  inbox_id: int | None = None, pace: reports.PacePart) -> None:
    """After moves (`played`, a moves.Played): a report to those pbem/outbound/turnmail.py names -- the
    sender (their receipt or error), `also`, the newly asked, everyone when a turn began;
    when the game is over, the game-over mail to everyone, with the seed. `pace`: the reports'
    deadline and standing orders (reports.PacePart)."""
    state, seq = played.state, played.seq
    over = bool(getattr(state, "over", False))
    extra = {"seed": games.seed(svc, game), "commitment": game["seed_commitment"]} if over else {}
    seats = svc.store.players(game["id"], active_only=True)
    with svc.store.read_once(game["id"], [p.get("email") for p in seats]):  # each seat's reads: one for all
        to = turnmail.mailed(svc, game, played, seats, sender=sender, also=also)
        # a digest-only seat's report is not sent: what it would have told waits for its digest
        to = [p for p in to if over or p["name"] == sender or not reports.unasked(svc, p, "report", None)]
        # stored once for all, with the events since the earliest of their last reports
        made = reports.store_made(svc, game, state, min(p["reported_seq"] for p in to)) if len(to) > 1 else None
        shown = reports.open_questions(svc, state)
        svc.store.set_reported(game["id"], [p["name"] for p in to if p["reported_seq"] != seq], seq)
        for player in to:
            mine = player["name"] == sender
            kind = "gameover" if over else sender_kind if mine else "report"
            reports.queue_report(svc, game, player, state, kind=kind, mid_parts=("over",) if over else (seq,),
                                 extra={**extra, **(sender_extra or {})} if mine else extra,
                                 in_reply_to=in_reply_to if mine else None, inbox_id=inbox_id,
                                 made=made, reported=True, pace=pace, shown=shown)
    if turnmail.everyone(svc.engine, played):
        observers.queue(svc, game, state, key="over" if over else seq)
    if svc.engine.MODERATOR in svc.engine.waiting_for(state):
        notices.add(svc, "ruling", "The game waits for you: a card needs your ruling.", key=seq, game=game["id"])


def queue_game_over(svc: Service, game: dict, state, *, ended_by_moderator: bool = False,
                    pace: reports.PacePart) -> None:
    """The last mail of a game to every player: the final report and the seed revealed."""
    game = {**game, "status": "ended"}
    players = svc.store.players(game["id"], active_only=True)
    made = reports.store_made(svc, game, state, min((p["reported_seq"] for p in players), default=game["moves"]))
    extra = {"seed": games.seed(svc, game), "commitment": game["seed_commitment"],
             "ended_by_moderator": ended_by_moderator}
    shown = reports.open_questions(svc, state)
    with svc.store.read_once(game["id"], [p.get("email") for p in players]):
        for player in players:
            reports.queue_report(svc, game, player, state, kind="gameover", mid_parts=("over",), extra=extra,
                                 made=made, pace=pace, shown=shown)
    observers.queue(svc, game, state, key="over")

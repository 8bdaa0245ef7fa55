"""Random games played through the service by mail, with what each player should have been
shown: the leak tests and the turn-report tests read the mails against it.

What a player may see is worked out here from the move log and the engine alone (each logged
move applied again to a copy of the state, its events filtered for the player), never from
what the service stored for its reports, so the two can be held against each other.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from conftest import mail, token

from pbem import bot
from pbem.core import games
from pbem.inbound.process import handle
from pbem.moderate import moderator

CATCH_UP = ("report", "receipt", "error", "default", "gameover")  # mails that show the reader's backlog


@dataclass
class Step:
    """One answer (a player's mail, or the moderator's `game answer`) and what followed it."""
    sender: str | None  # None: the moderator answered a question put to the moderator
    before: object  # the state it was played on
    state: object  # the state after it (and after the standing orders it set off)
    events: list  # the engine's events of every move it logged
    new: list[dict]  # the outbox rows it queued
    since: dict[str, list[str]] = field(default_factory=dict)  # per player: texts seen since their last report


def play_by_mail(svc, g: str, seed: int, moves: int, *, seen: int = 0):
    """Random answers (pbem.bot) played as players' mails, the moderator's by `game answer`;
    yields a Step after each (the first one's `new` holds the outbox rows after id `seen`:
    by default the welcomes and first reports too). `step.since[reader]` (this step's events
    included) is emptied once a mail that shows it has reached them, after the caller read it."""
    eng, rnd = svc.engine, random.Random(seed)
    toks = {p["name"]: token(svc, g, p["name"]) for p in svc.store.players(g)}
    since = {name: [] for name in toks}
    game = games.get(svc, g)
    mine, logged = games.state(svc, game), game["moves"]  # the test's own copy of the game
    for _ in range(moves):
        before = games.state(svc, games.get(svc, g))
        if before.over:
            return
        move = bot.choose(before, rnd)
        line = f"{move.prompt}: {move.key}"
        if move.player == eng.MODERATOR:
            moderator.answer(svc, g, eng.MODERATOR, line)
        else:
            result = handle(svc, mail([line], sender=f"{move.player}@example.org", tok=toks[move.player], game=g))
            assert result.status == "applied", result.outcome
        events = []
        for row in svc.store.moves(g, after=logged):  # the mail's move, and those of standing orders
            assert row["kind"] == "move", row
            mine, evs = eng.apply(mine, eng.parse_move(row["line"]))
            events += evs
            logged = row["seq"]
        for name in since:
            since[name] += [e.text for e in eng.filter_events(events, name)]
        new = [r for r in svc.store.outbox_rows() if r["id"] > seen]
        seen = max([seen] + [r["id"] for r in new])
        sender = None if move.player == eng.MODERATOR else move.player
        yield Step(sender, before, mine, events, new, since)
        for r in new:
            if r["kind"] in CATCH_UP and r["player"] in since:
                since[r["player"]] = []

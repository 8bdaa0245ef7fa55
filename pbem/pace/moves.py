"""Playing moves into a game's log.

`play` is the one way a move enters a game, whoever sends it (a player's mail, a turn file,
the moderator, a deadline's default): each move is applied by the engine, appended to the
hash-chained log, and the state after it is kept on the game row, with a snapshot every
Store.SNAPSHOT_EVERY moves -- so no move ever needs the game replayed from its start. It is
here, in pace, because what follows a move is pace's: standing orders answer the questions it
opens (pbem/pace/answering.py) and the deadlines follow them (pbem/pace/schedule.py).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from pbem.core import games
from pbem.core.games import state
from pbem.outbound import outbox, turnmail
from pbem.pace import answering, schedule
from pbem.store import storable

if TYPE_CHECKING:
    from pbem.core.service import Service


@dataclass
class Played:
    """What became of a list of answers."""
    applied: list[str] = field(default_factory=list)  # canonical lines, as logged
    failed: dict | None = None  # the line that stopped it: `refusal`
    unused: list[str] = field(default_factory=list)  # lines after the one that failed
    standing: list[str] = field(default_factory=list)  # lines played by standing orders (pbem/pace/answering.py)
    bots: list[str] = field(default_factory=list)  # lines played by seat bots (pbem/pace/answering.py)
    events: list = field(default_factory=list)
    state: Any = None
    seq: int = 0  # the last move's seq
    start: Any = None  # the state the moves were played from (None: not known, e.g. a rollback)

    @property
    def status(self) -> str:
        if self.failed is None:
            return "applied"
        return "partial" if self.applied else "rejected"


def _open_prompt(eng, st, player: str) -> int | None:
    return next((p.id for p in eng.prompts(st) if player in p.players), None)


def play(svc: Service, game: dict, player: str, lines: list[str], *, actor: str | None = None, check: bool = False,
         message_id: str | None = None, inbox_id: int | None = None, start=None) -> Played:
    """Try `lines` in order as `player`'s answers; stop at the first that does not fit.
    Applied moves are logged and the game row updated; `check`: on a copy, nothing kept.
    Standing orders answer a question a line does not fit, then the line is tried again, and
    the questions left open at the end (never in a check). `start`: the game's state, when
    the caller has decoded it already (the engine never changes a state it is given). Each
    line is read as a store keeps it (`storable`: a mail's are already, the moderator's not), so
    what is played is what the log holds and a replay reads."""
    eng = svc.engine
    lines = [storable(line) for line in lines]
    out = Played(state=state(svc, game) if start is None else start, seq=game["moves"])
    out.start = out.state
    moves: list[tuple[Any, Any, str, Sequence]] = []  # (move, state after it, who played it, its events)
    auto = None if check else answering.Answerer(svc, game)
    i = 0
    while i < len(lines):
        line = lines[i]
        try:
            parsed = eng.parse_move(line, player=player)
            prompt = parsed.prompt or _open_prompt(eng, out.state, player)
            move = eng.Move(player, parsed.key, prompt, parsed.arg)  # always the authenticated player
            new, events = eng.apply(out.state, move)
        except eng.IllegalMove as e:
            if auto and auto.step(out, moves):
                continue
            out.failed = refusal(line, e, list(e.options))
            out.unused = lines[i + 1:]
            break
        out.applied.append(str(move))
        moves.append((move, new, actor or player, events))
        out.state = new
        out.events += events
        i += 1
        if check:  # what follows depends on dice and cards not yet seen: only read it
            out.unused = [ln for ln in lines[i:] if _readable(eng, ln, player, out)]
            break
    while auto and auto.step(out, moves):
        pass
    if not check:
        for move, st, who, events in moves:
            out.seq = record(svc, game, move, st, events, actor=who, message_id=message_id, inbox_id=inbox_id)["seq"]
    return out


def refusal(line: str, e: Any, options: list[str]) -> dict:
    """A line the engine refused (`e`, its IllegalMove): the line, why (`reason`, English: the
    logs', the moderator's), why as the engine's message (`msg`, JSON: a reader's language
    translates it, pbem/base/engine_text.py `said`), and the answers open instead."""
    return {"line": line, "reason": e.reason, "msg": msgspec.to_builtins(e.msg) if e.msg else None,
            "options": options}


def _readable(eng, line: str, player: str, out: Played) -> bool:
    try:
        eng.parse_move(line, player=player)
        return True
    except eng.IllegalMove as e:
        if out.failed is None:
            out.failed = refusal(line, e, [])
        return False


def record(svc: Service, game: dict, move, new_state, events: Sequence, *, actor: str, kind: str = "move",
           line: str | None = None, message_id: str | None = None, inbox_id: int | None = None) -> dict:
    """Append one move to the log and keep the state after it and its events (for the
    reports of players not mailed at this move: pbem/outbound/turnmail.py)."""
    eng = svc.engine
    row = svc.store.append_move(game["id"], kind=kind, player=move.player if move else None, actor=actor,
                                line=line or str(move), prompt=move.prompt if move else None,
                                state_hash=eng.state_hash(new_state), message_id=message_id, inbox_id=inbox_id,
                                count=False)  # the game's move count is set with its state, below
    svc.store.add_move_events(game["id"], row["seq"], turnmail.encode(events))
    blob = games.encode(svc, new_state)  # without its seed
    if row["seq"] % svc.store.SNAPSHOT_EVERY == 0:
        svc.store.save_snapshot(game["id"], row["seq"], blob)
    fields = {"state": blob, "moves": row["seq"]}
    if getattr(new_state, "over", False):
        fields["status"] = "ended"
    svc.store.update_game(game["id"], **fields)
    game.update(fields)
    schedule.sync(svc, game, new_state, actor)  # deadlines follow the questions open now
    if move is not None and actor in (answering.ACTOR, answering.BOT):  # answered for the player: a mail
        outbox.withdraw_answered(svc, game["id"], move.player, move.prompt)  # still asking it never goes
    return row



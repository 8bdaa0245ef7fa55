"""Turn reports: after moves, who is mailed, and what a report shows since its reader's last.

A turn often takes several answers (a direction, an encounter, a reroll), and a report to
every player after each one made a six-player game six mails an answer. After applied moves
the service mails (`mailed`):

- the sender (their receipt), and the player the moderator or a deadline answered for;
- each player the game now asks a question it was not asking them before;
- everyone, when a turn began (the engine's `turn` event, or its turn counter moved), when the
  game ended, and after the moderator's rollback;
- a player whose seat says `reports = "every"` (a mail line `reports: every`): every time.

Nobody loses anything by it. Each logged move's events are kept (table `move_events`, written
by `moves.record`), each player has the last move their reports showed (`reported_seq`), and
every report shows the events its reader may see (the engine's `filter_events`) of the moves
since. Everyone is mailed when a turn begins, so a backlog never reaches back past the turn
before: its cost does not grow with the game.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from pbem.base import engine_text
from pbem.core.games import seat_config

if TYPE_CHECKING:
    from collections.abc import Sequence

    from engine.interface import EventLike
    from pbem.core.service import Service

EVERY, TURN = "every", "turn"  # a seat's `reports` setting; TURN is the default
HEADINGS = ("turn", "rollback")  # events that start a group in a report: a turn, the moderator's rollback

_decoders: dict = {}


def encode(events) -> str:
    """A move's events as stored: what reports read (kind, text, to, the card an event brings
    in, which a report explains, and the message its text was made from, which a reader's
    language translates: pbem/base/engine_text.py), not the rest of the engine's data."""
    return msgspec.json.encode([{"kind": e.kind, "text": e.text, "to": e.to,
                                 **({"data": {"card": e.data["card"]}} if (getattr(e, "data", None) or {}).get("card")
                                    else {}),
                                 **({"msg": e.msg} if getattr(e, "msg", None) is not None else {})}
                                for e in events]).decode()


class Note(msgspec.Struct):
    """An event the service writes itself, seen by everyone: the moderator's rollback."""
    kind: str
    text: str
    to: list[str] | None = None


def rollback_note(seq: int) -> Note:
    return Note("rollback", f"The moderator puts the game back to move {seq}.")


def decode(eng, text: str) -> list:
    """A move's events as stored (`encode`), as the engine's Events."""
    dec = _decoders.get(eng)
    if dec is None:
        dec = _decoders[eng] = msgspec.json.Decoder(list[eng.Event])
    return dec.decode(text)


# -- who is mailed ------------------------------------------------------------------------

def _asked(eng, state) -> set[tuple[int, str]]:
    return {(p.id, n) for p in eng.prompts(state) for n in p.players} if state is not None else set()


def everyone(eng, played) -> bool:
    """Whether `played` (a moves.Played) concerns every player: a turn began, the game
    ended, or it came from no known state (the moderator's rollback)."""
    start, state = played.start, played.state
    return (start is None or bool(getattr(state, "over", False)) or start.turn != state.turn
            or any(e.kind == "turn" for e in played.events))


def wants_every(game: dict, name: str) -> bool:
    return seat_config(game, name).get("reports") == EVERY


def mailed(svc: Service, game: dict, played, players: list[dict], *, sender: str | None, also=()) -> list[dict]:
    """Those of `players` (seat order kept) a report goes to after `played`."""
    eng = svc.engine
    if everyone(eng, played):
        return players
    names = {n for _, n in _asked(eng, played.state) - _asked(eng, played.start)} | {sender, *also}
    return [p for p in players if p["name"] in names or wants_every(game, p["name"])]


# -- what a report shows ----------------------------------------------------------------------

class Backlog:
    """The stored events of a game's moves after `after` up to `upto`, read and decoded once
    for all the reports of one occasion."""

    def __init__(self, svc: Service, game_id: str, after: int, upto: int):
        self.eng = svc.engine
        self.after = after
        self.moves = [(r["seq"], decode(self.eng, r["events"])) for r in svc.store.move_events(game_id, after, upto)]

    def since(self, seq: int, player: str) -> Sequence[EventLike]:
        """The events `player` may see of the moves after `seq` (which is not before `after`)."""
        assert seq >= self.after, (seq, self.after)
        return self.eng.filter_events([e for s, events in self.moves if s > seq for e in events], player)


def grouped(events, words=None) -> list[dict]:
    """Events as a report lists them: a group per turn, under its `turn` event (the events
    before the first such event finish the turn the reader last heard of); `words(event)`: an
    event's text as the report writes it (a drawn card explained beside it). Each text in the
    reader's language (pbem/base/engine_text.py)."""
    groups: list[dict] = []
    for e in events:
        text = engine_text.event_text(e)
        if e.kind in HEADINGS:
            groups.append({"title": text, "events": []})
            continue
        if not groups:
            groups.append({"title": None, "events": []})
        groups[-1]["events"].append(words(e, text) if words else text)
    return groups

"""Press: messages between players (`to: bob` or `to: all`, then the text), sent through the
service with the sender's name and never their address; tokens and addresses in the text
are masked. The game config's `press` says what is allowed:

- "allowed" (the default): to one player or to all;
- "public": only `to: all`;
- "copied": as allowed, and the moderator gets a copy of each;
- "off": no press.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pbem.base import tokens
from pbem.outbound import outbox, reports

if TYPE_CHECKING:
    from pbem.core.service import Service

MODES = ("allowed", "public", "copied", "off")
DEFAULT = "allowed"
_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(\.[\w-]+)+")


def mode(game: dict) -> str:
    return game["config"]["game"].get("press", DEFAULT)


def clean(text: str) -> str:
    """The message as it is passed on: no token, no mail address."""
    return _ADDRESS.sub("[address]", tokens.mask_text(text))


def send(svc: Service, game: dict, sender: dict, messages: list[dict], inbox_id: int) -> list[str]:
    """Pass on each {"to", "text"}; returns a line per message saying what became of it."""
    how = mode(game)
    seats = {p["name"].lower(): p for p in svc.store.players(game["id"], active_only=True)}
    notes = []
    for i, m in enumerate(messages):
        to, text = m["to"].strip().lower(), clean(m["text"])
        if how == "off":
            notes.append(f"Not sent to {m['to']}: this game has no messages between players.")
            continue
        if not text.strip():
            notes.append(f"Not sent to {m['to']}: the message is empty (write it on the lines after \"to:\").")
            continue
        if to == "all":
            readers = [p for n, p in seats.items() if n != sender["name"].lower()]
        elif to in seats and to != sender["name"].lower():
            if how == "public":
                notes.append(f"Not sent to {m['to']}: in this game messages go to everyone (\"to: all\").")
                continue
            readers = [seats[to]]
        else:
            others = ", ".join(p["name"] for n, p in seats.items() if n != sender["name"].lower())
            notes.append(f"Not sent: no other player is called {m['to']!r} (write \"to: all\" or one of: {others}).")
            continue
        public = to == "all"
        for reader in readers:
            _queue(svc, game, reader, sender["name"], text, public, key=f"in{inbox_id}.{i}")
        if how == "copied":
            mod = reports.moderator_address(svc, game)
            if mod:
                _queue(svc, game, {"name": svc.engine.MODERATOR, "email": mod}, sender["name"], text, public,
                       key=f"in{inbox_id}.{i}", copy_of=", ".join(r["name"] for r in readers))
        notes.append(f"Sent to {'everyone' if public else readers[0]['name']}"
                     + (" (the moderator gets a copy)." if how == "copied" else "."))
    return notes


def _queue(svc: Service, game: dict, reader: dict, sender: str, text: str, public: bool, *, key: str,
           copy_of: str | None = None) -> None:
    root = reports.thread_root(svc, game, reader["name"])
    seat = reader if "token_salt" in reader else None  # a player can answer it like any game mail
    outbox.enqueue(svc, kind="press", message_id=reports.message_id(svc, game, "press", key, reader["name"]),
                   sender=reports.game_address(svc, game), to=reader["email"], to_name=reader["name"],
                   subject=f"[{game['id']}] Message from {sender}" + (" to everyone" if public else ""),
                   context={"address": reports.game_address(svc, game), "game": game["id"], "sender": sender,
                            "public": public, "text": text, "copy_of": copy_of},
                   game=game["id"], player=seat, in_reply_to=root, references=[root])

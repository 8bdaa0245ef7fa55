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

from pbem.base import i18n, tokens
from pbem.base.i18n import _
from pbem.core import people
from pbem.outbound import outbox, reports

if TYPE_CHECKING:
    from pbem.core.service import Service

MODES = ("allowed", "public", "copied", "off")
DEFAULT = "allowed"
# An address as people write one: a dot in the domain or not (root@mailhost, alice@localhost).
_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*")


def mode(game: dict) -> str:
    return game["config"]["game"].get("press", DEFAULT)


def clean(text: str) -> str:
    """The message as it is passed on: no token, no seat link, no mail address."""
    return _ADDRESS.sub("[address]", tokens.mask_text(text))


def send(svc: Service, game: dict, sender: dict, to: str, text: str, *, key: str) -> str:
    """Pass on one message to a player (`to`: a name, or "all"); says what became of it. `key`
    names it among the sender's messages (its mails' Message-IDs)."""
    how = mode(game)
    seats = {p["name"].lower(): p for p in svc.store.players(game["id"], active_only=True)}
    name, text = to.strip().lower(), clean(text)
    if how == "off":
        return _("Not sent to %(to)s: this game has no messages between players.", to=to)
    if not text.strip():
        return _('Not sent to %(to)s: the message is empty (write it on the lines after "to:").', to=to)
    if name == "all":
        readers = [p for n, p in seats.items() if n != sender["name"].lower()]
    elif name in seats and name != sender["name"].lower():
        if how == "public":
            return _('Not sent to %(to)s: in this game messages go to everyone ("to: all").', to=to)
        readers = [seats[name]]
    else:
        others = ", ".join(p["name"] for n, p in seats.items() if n != sender["name"].lower())
        return _('Not sent: no other player is called "%(to)s" (write "to: all" or one of: %(others)s).', to=to,
                 others=others)
    public = name == "all"
    for reader in readers:
        _queue(svc, game, reader, sender["name"], text, public, key=key)
    if how == "copied":
        mod = reports.moderator_address(svc, game)
        if mod:
            _queue(svc, game, {"name": svc.engine.MODERATOR, "email": mod}, sender["name"], text, public,
                   key=key, copy_of=", ".join(r["name"] for r in readers))
    if how == "copied":
        return _("Sent to everyone (the moderator gets a copy).") if public else \
            _("Sent to %(name)s (the moderator gets a copy).", name=readers[0]["name"])
    return _("Sent to everyone.") if public else _("Sent to %(name)s.", name=readers[0]["name"])


def _queue(svc: Service, game: dict, reader: dict, sender: str, text: str, public: bool, *, key: str,
           copy_of: str | None = None) -> None:
    root = reports.thread_root(svc, game, reader["name"])
    seat = reader if "token_salt" in reader else None  # a player can answer it like any game mail
    # in its reader's language, not the sender's (whose mail is being read); the moderator's copy English
    with i18n.using(people.language(svc, game, reader["name"], reader["email"]) if seat else i18n.DEFAULT):
        subject = (_("[%(game)s] Message from %(sender)s to everyone", game=game["id"], sender=sender) if public
                   else _("[%(game)s] Message from %(sender)s", game=game["id"], sender=sender))
        outbox.enqueue(svc, kind="press", message_id=reports.message_id(svc, game, "press", key, reader["name"]),
                       sender=reports.game_address(svc, game), to=reader["email"], to_name=reader["name"],
                       subject=subject,
                       context={"address": reports.game_address(svc, game), "game": game["id"], "sender": sender,
                                "public": public, "text": text, "copy_of": copy_of},
                       game=game["id"], player=seat, in_reply_to=root, references=[root])

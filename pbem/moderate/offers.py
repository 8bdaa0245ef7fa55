"""A seat offered to substitutes on the moderator's word (issue 30; docs/pace.md, "Offering a
seat"): `pbem player offer GAME NAME --to EMAIL ...` mails each person an invitation -- the game,
the seat's character and where it stands in public terms, and how to take it -- with a code of
their own; the first to reply `take CODE` (German `übernehmen`) becomes the seat's player by the
path `pbem player replace` takes (a bot no longer plays it; they get their own token, welcome
and briefing), and later takers are told it is gone. The offer ends when the seat is taken,
when its person takes it back (`back`), or when the moderator withdraws it (`--withdraw`); each
person invited is then told (pbem/pace/seats.py `end_offers`). `player list` shows whom a seat
is offered to, `player show EMAIL` the seats offered to an address (`open_to`).

The code is a token-shaped HMAC of the service key over the game, the seat, the address and a
salt per offer (pbem/base/tokens.py `offer_code`): the store keeps the salt only, the queued
invitation a marker filled in when it is sent (pbem/outbound/outbox.py), and a reply quoting the
code is stored masked like a token. A code opens only the seat it was made for, for as long as
that offer stands; offered again, a person's old code is void.
"""
from __future__ import annotations

import hmac
from typing import TYPE_CHECKING

from pbem.base import i18n, log, tokens
from pbem.base.i18n import _
from pbem.core import games, people
from pbem.core.games import GameError, _check_email
from pbem.moderate import moderator
from pbem.outbound import outbox, reports
from pbem.pace import seats

if TYPE_CHECKING:
    from pbem.core.service import Service

TAKE = "take"  # the mail line that takes a seat: `take CODE`


def offer(svc: Service, game_id: str, name: str, emails: list[str]) -> list[str]:
    """Offer seat `name` to each address (each gets an invitation with a code of its own); the
    addresses invited. Refused: a game not running, no such seat, a seat its person plays (no
    bot holds it), an address that holds another seat of the game."""
    if not emails:
        raise GameError("name whom to offer the seat to: --to EMAIL (as many as you like)")
    with svc.store.transaction():
        game = games.get(svc, game_id)
        if game["status"] != "active":
            raise GameError(f"{game_id} is {game['status']}: only a running game's seat is offered")
        seat = svc.store.player(game_id, name)
        if seat is None:
            raise GameError(f"{game_id}: no player {name!r}")
        if not seat["bot"]:
            raise GameError(f"{game_id}: {name} plays the seat (no bot holds it): `pbem player replace` gives it "
                            "to someone else")
        taken = {p["email"].lower(): p["name"] for p in svc.store.players(game_id, active_only=True) if p["email"]}
        invited = []
        for email in emails:
            email = _check_email(email, "--to")
            if taken.get(email.lower(), name) != name:
                raise GameError(f"{game_id}: {email} holds the seat {taken[email.lower()]}: each seat needs its own")
            salt = tokens.new_salt()
            svc.store.add_offer(game_id, name, email, salt, svc.now().isoformat())
            _invite(svc, game, seat, email, tokens.hash_token(salt)[:12])
            invited.append(email)
        log.get(game=game_id, player=name).info("seat offered", to=len(invited))
        return invited


def withdraw(svc: Service, game_id: str, name: str) -> int:
    """The moderator withdraws the offer of seat `name`: every code for it is void. How many
    invitations it voids."""
    with svc.store.transaction():
        game = games.get(svc, game_id)
        if svc.store.player(game_id, name) is None:
            raise GameError(f"{game_id}: no player {name!r}")
        return seats.end_offers(svc, game, name, seats.WITHDRAWN)  # each invitee told


def take(svc: Service, game: dict, email: str, code: str) -> tuple[str | None, str]:
    """`take CODE` from `email`: (the seat it now holds, or None; what became of it, a note for
    the reply). The code must be one mailed to `email` for an offer still open."""
    for o in svc.store.offers(game["id"]):
        if o["email"].lower() == email.lower() and hmac.compare_digest(
                code.lower(), tokens.offer_code(svc.key, game["id"], o["player"], o["email"], o["salt"])):
            if game["status"] != "active":
                return None, _("take: the game %(game)s is %(status)s: its seats are no longer offered",
                               game=game["id"], status=_(game["status"]))
            moderator.replace_player(svc, game["id"], o["player"], o["email"])  # welcome, briefing; the offer ends
            log.get(game=game["id"], player=o["player"]).info("offered seat taken")
            return o["player"], _("take: the seat %(name)s of %(game)s is yours; your welcome and briefing follow, "
                                  "with the token your answers need", name=o["player"], game=game["id"])
    return None, _("take: no seat of %(game)s is offered to you with that code now: it was taken by someone else, "
                   "the offer was withdrawn, or its player came back", game=game["id"])


def open_to(svc: Service, email: str) -> list[dict]:
    """The seats offered to `email` now: game, seat and when, oldest first."""
    return [{"game": o["game"], "seat": o["player"], "offered_at": o["made_at"]}
            for row in svc.store.games() for o in svc.store.offers(row["id"])
            if o["email"].lower() == email.strip().lower()]


def public_terms(svc: Service, game: dict, name: str) -> str:
    """The seat as anyone may see it: its character, where it stands and its counters."""
    me = svc.engine.summary(games.state(svc, game))["players"].get(name) or {}
    character = (me.get("character") or "no character yet").replace("-", " ").title()
    where = " " + _("on %(space)s", space=me["space_name"]) if me.get("space_name") else ""
    return character + where + ": " + _("Strength %(strength)s, Craft %(craft)s, %(life)s lives, %(gold)s gold",
                                        strength=me.get("strength", 0), craft=me.get("craft", 0),
                                        life=me.get("life", 0), gold=me.get("gold", 0))


def _invite(svc: Service, game: dict, seat: dict, email: str, offer_id: str) -> None:
    """The invitation, in the language of the address (its own choice, else the game's)."""
    name, marker = seat["name"], outbox.new_marker()
    with i18n.using(people.language(svc, game, None, email)):
        subject = _("A seat in the Talisman game %(game)s is offered to you", game=game["id"])
        lines = [_("The moderator of the Talisman game %(game)s (play by mail) offers you the seat %(name)s: "
                   "%(seat)s. A bot plays it now; the game is at move %(move)s.", game=game["id"], name=name,
                   seat=public_terms(svc, game, name), move=game["moves"]),
                 _("To take it, reply to this mail with this one line:"), f"{TAKE} {marker}",
                 _("The first to reply takes the seat; you would then get your own welcome, a briefing of the game "
                   "so far, and play by answering your reports."),
                 _("If someone takes it first, or the offer ends, you will be told. Not interested? Ignore this mail.")]
        ctx = {"address": reports.game_address(svc, game), "subject": subject, "lines": lines}
        outbox.enqueue(svc, kind=outbox.OFFER, message_id=reports.message_id(svc, game, name, "offer", offer_id),
                       sender=reports.game_address(svc, game), to=email, to_name=None,
                       subject=f"[{game['id']}] {subject}", context=ctx, game=game["id"], marker=marker, offered=name)

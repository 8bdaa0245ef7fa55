"""A seat's mail address, changed with its token kept: by the moderator (`pbem player email`)
or by the player's own `email:` line, confirmed.

A token is derived from the game, the seat and its salt, not from the address
(pbem/base/tokens.py), so a seat that moves keeps it: the player replies to their reports as
before, from the new address. What waits in the outbox for the seat goes to the new address,
the seat is no longer marked undeliverable, and both addresses are told (the old one in case
the change was not its owner's doing).

By mail the change is confirmed by a code sent to the new address, which proves that it
receives mail: `email: NEW` from the seat mails the code to NEW; `email: NEW CODE` from the
seat (its present address and token, as every mail of it) makes the change, and `email: NEW
CODE all` moves every seat of the present address in every game not ended. The code is an HMAC
of the service key over both addresses: derived, never stored. A player who can no longer
send from the old address asks the moderator, whose word needs no code.
"""
from __future__ import annotations

import hashlib
import hmac
from typing import TYPE_CHECKING

from pbem.base import i18n, log
from pbem.base.i18n import _, ngettext
from pbem.core import people
from pbem.core.games import GameError, _check_email
from pbem.outbound import outbox, reports

if TYPE_CHECKING:
    from pbem.core.service import Service

ALL_WORDS = ("all", "alle")  # `email: NEW CODE all`, `e-mail: NEU CODE alle`


def seats_of(svc: Service, address: str) -> list[dict]:
    """The active seats of `address` in the games that have not ended, oldest game first."""
    return [p for p in svc.store.seats_by_email(address) if p["status"] == "active" and p["game_status"] != "ended"]


def change(svc: Service, game: dict, name: str, new: str, *, by: str) -> str:
    """Give seat `name` of `game` the address `new` (in the caller's transaction; `by`: the
    player or "moderator"); returns the old address. Refused: no such seat, not an address,
    the address it has, or another seat's of the same game."""
    player = svc.store.player(game["id"], name)
    if player is None:
        raise GameError(f"{game['id']}: no player {name!r}")
    new = _check_email(new, f"player {name!r}")
    old = player["email"]
    if new.lower() == old.lower():
        raise GameError(f"{game['id']}: {name} has the address {old} already")
    other = next((p["name"] for p in svc.store.players(game["id"], active_only=True)
                  if p["name"] != name and p["email"].lower() == new.lower()), None)
    if other:
        raise GameError(_("%(game)s: %(new)s is %(other)s's address: each seat needs its own",
                          game=game["id"], new=new, other=other))
    lang = people.language(svc, game, name, old)  # both notices in the seat's reader's language, as it was
    svc.store.update_player(game["id"], name, email=new, undeliverable=None)
    people.carry_over(svc, old, new)
    for p in game["config"].get("players", []):
        if p.get("name") == name:
            p["email"] = new
    svc.store.update_game(game["id"], config=game["config"])
    moved = svc.store.readdress_outbox(game["id"], name, new, outbox.mailbox(name, new))
    stamp = svc.now().strftime("%Y%m%dT%H%M%S")
    with i18n.using(lang):
        how = _("the moderator changed it.") if by == svc.engine.MODERATOR else _("you asked for it and confirmed it.")
        lines = [_("The address of your seat %(name)s in the game %(game)s is now %(new)s (it was %(old)s); %(how)s",
                   name=name, game=game["id"], new=new, old=old, how=how),
                 _("Your token is unchanged: reply to your reports as before, from the new address."),
                 _("If you did not ask for this, tell the moderator.")]
        for to in (new, old):
            _notice(svc, game, name, to, _("Your address has changed"), lines, ("email", stamp, to))
    log.get(game=game["id"], player=name).info("address changed", by=by, mails_readdressed=moved)
    return old


def code(svc: Service, old: str, new: str) -> str:
    """The code that confirms a move from `old` to `new`: derived, never stored."""
    msg = f"email\0{old.strip().lower()}\0{new.strip().lower()}".encode()
    return hmac.new(svc.key, msg, hashlib.sha256).hexdigest()[:8]


def mail_line(svc: Service, game: dict, name: str, rest: str, check: bool = False) -> str:
    """An `email:` line of the seat's mail: `NEW` (a code is mailed to NEW), `NEW CODE` (the
    change), `NEW CODE all` (every running game of the seat's address); what became of it."""
    words = rest.split()
    everywhere = len(words) > 1 and words[-1].lower() in ALL_WORDS
    words = words[:-1] if everywhere else words
    if not 1 <= len(words) <= 2:
        raise GameError(_("write `email: NEW-ADDRESS`, then confirm with the code sent there"))
    player = svc.store.player(game["id"], name)
    assert player is not None  # the seat the mail authenticated
    new, old = _check_email(words[0], "email"), player["email"]
    if new.lower() == old.lower():  # e.g. a signature's "Email:" line
        return _("email: %(new)s is your address already", new=new)
    given = words[1] if len(words) == 2 else None
    if given is None:
        if check:
            return _("email: %(new)s: a code would be sent there", new=new)
        # in the language of the mail that asks (its reader's: pbem/inbound/process.py), to the new address too;
        # the line to send in the reader's words, as the command table reads them (`e-mail:`, `alle`)
        word = _("email")
        line, also = f"{word}: {new} {code(svc, old, new)}", _("all")
        _notice(svc, game, name, new, _("Confirm your new address"), [
            _("The player %(name)s of the Talisman game %(game)s asked to receive the game's mail at this address.",
              name=name, game=game["id"]),
            _("To confirm, they send this line from their present address: %(line)s", line=line),
            _("(or `%(line)s %(all)s` to move every game they play from %(old)s).", line=line, all=also, old=old),
            _("If you did not expect this, ignore it: nothing changes.")],
                ("email-code", new, svc.now().strftime("%Y%m%dT%H%M%S")))
        return _("email: a code was sent to %(new)s; reply with the line `%(word)s: %(new)s %(code)s` to confirm",
                 new=new, word=word, code=_("CODE"))
    if not hmac.compare_digest(given.lower(), code(svc, old, new)):
        raise GameError(_("that code is not the one sent to %(new)s: nothing changed", new=new))
    seats = seats_of(svc, old) if everywhere else [player]
    if check:
        return ngettext("email: %(new)s: would change %(n)s seat", "email: %(new)s: would change %(n)s seats",
                        len(seats), new=new)
    for seat in seats:
        change(svc, game if seat["game"] == game["id"] else _game(svc, seat["game"]), seat["name"], new, by=name)
    where = ", ".join(s["game"] for s in seats)
    return _("email: your address is now %(new)s (in %(games)s); your token is unchanged", new=new, games=where)


def _game(svc: Service, game_id: str) -> dict:
    game = svc.store.game(game_id)  # in the caller's transaction: locked for it
    assert game is not None  # a seat's game
    return game


def _notice(svc: Service, game: dict, name: str, to: str, subject: str, lines: list[str], mid: tuple) -> None:
    ctx = {"address": reports.game_address(svc, game), "subject": subject, "lines": lines}
    outbox.enqueue(svc, kind="notice", message_id=reports.message_id(svc, game, name, *mid),
                   sender=reports.game_address(svc, game), to=to, to_name=name,
                   subject=f"[{game['id']}] {subject}", context=ctx, game=game["id"])

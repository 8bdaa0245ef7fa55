"""One person across games: `pbem player show EMAIL` (every seat and watch of an address) and
`pbem player email` (a new address for a seat, or for every running seat of a person, its
token kept: pbem/pace/addresses.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.core import games, people as chosen
from pbem.core.games import GameError
from pbem.moderate import moderator, offers
from pbem.outbound import observers
from pbem.pace import addresses, misses

if TYPE_CHECKING:
    from pbem.core.service import Service


def person(svc: Service, email: str) -> dict:
    """Every seat `email` holds or held, in every game (with the game's status and turn), the
    games it watches, the seats offered to it now, and its reliability over them all
    (pbem/pace/misses.py)."""
    seats = []
    for p in svc.store.seats_by_email(email):
        game = games.get(svc, p["game"])
        seats.append({"game": game["id"], "game_status": game["status"],
                      "turn": getattr(games.state(svc, game), "turn", None),
                      **moderator.seat_summary(svc, game, p)})
    watching = [{"game": row["id"], "game_status": row["status"], "name": o["name"]}
                for row in svc.store.games() for o in observers.of(games.get(svc, row["id"]))
                if o["email"].lower() == email.strip().lower()]
    return {"email": email, "seats": seats, "observing": watching, "offered": offers.open_to(svc, email),
            "reliability": misses.reliability(svc, email), "settings": settings(svc, email)}


def settings(svc: Service, email: str) -> dict:
    """What the address chose for every game: language, mail (each, digest, both), zone, digest hour."""
    row = chosen.chosen(svc, email)
    tz, at = chosen.digest_time(svc, email)
    return {"language": row.get("language"), "mail": chosen.mail_choice(svc, email), "zone": tz or "UTC",
            "digest_at": f"{at:%H:%M}", "digest_day": row.get("digest_day")}


def set_mail(svc: Service, email: str, how: str | None, zone: str | None, at: str | None) -> dict:
    """The moderator's word on how `email` gets its mail (any of the three left out is kept);
    every value is checked before any is stored."""
    words = {"mail": chosen.mail_word(how) if how else None, "zone": chosen.zone_name(zone) if zone else None,
             "digest_at": chosen.digest_hour(at) if at else None}
    fields = {k: v for k, v in words.items() if v is not None}
    if fields:
        svc.store.set_address_settings(email, **fields)
    return settings(svc, email)


def change_email(svc: Service, game_id: str | None, who: str, new: str) -> list[tuple[str, str, str]]:
    """The moderator's word: seat `who` of `game_id` gets the address `new`; with no game,
    every running seat of `who`, an address or a name (a name whose seats have different
    addresses is refused: give the address). Returns (game, seat, old address) for each."""
    with svc.store.transaction():
        if game_id is not None:
            game = games.get(svc, game_id)
            return [(game_id, who, addresses.change(svc, game, who, new, by=svc.engine.MODERATOR))]
        if "@" in who:
            seats = addresses.seats_of(svc, who)
        else:
            seats = [p for row in svc.store.games() if row["status"] != "ended"
                     for p in svc.store.players(row["id"], active_only=True) if p["name"] == who]
            if len({p["email"].lower() for p in seats}) > 1:
                raise GameError(f"the seats named {who!r} have different addresses ("
                                + ", ".join(f"{p['game']}: {p['email']}" for p in seats) + "): give the address")
        if not seats:
            raise GameError(f"no running game has a seat of {who!r}")
        return [(p["game"], p["name"], addresses.change(svc, games.get(svc, p["game"]), p["name"], new,
                                                        by=svc.engine.MODERATOR)) for p in seats]

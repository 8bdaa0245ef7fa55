"""Where the pages are: the game's public page and each seat's secret page.

A seat's page lives at a secret that is derived from the seat's token (HMAC-SHA256 of the
service key over a label and the token), never the token itself: a link seen over a
shoulder or in a browser's history does not let anyone answer by mail, and the token cannot
be worked back from it. The token changes when the seat is given to someone else (a new
salt, pbem/base/tokens.py), and so does the secret: the old link is void.
"""
from __future__ import annotations

import hashlib
import hmac
from typing import TYPE_CHECKING
from urllib.parse import quote

if TYPE_CHECKING:
    from pbem.core.service import Service

SECRET_CHARS = 32  # 128 bits


def base_url(svc: Service) -> str | None:
    """The web face's address as players reach it (the [http] table), or None without one."""
    http = getattr(svc.settings, "http", None)
    if http is None:
        return None
    return (http.url or f"http://{http.host}:{http.port}").rstrip("/")


def _mac(svc: Service, label: str, text: str) -> str:
    return hmac.new(svc.key, f"{label}\n{text}".encode(), hashlib.sha256).hexdigest()


def seat_secret(svc: Service, player: dict, token: str | None = None) -> str:
    """The secret of a seat's page (player: a row of the players table; `token`: its token, if
    made already)."""
    return _mac(svc, "web-seat", token or svc.token(player))[:SECRET_CHARS]


def game_path(game_id: str) -> str:
    return f"/g/{quote(game_id)}"


def seat_path(svc: Service, player: dict) -> str:
    return f"/g/{quote(player['game'])}/s/{seat_secret(svc, player)}"


def calendar_secret(svc: Service, player: dict) -> str:
    """The secret of a seat's calendar feed: a secret of its own, so a feed link a calendar
    service keeps (or a shared calendar shows) reads the seat's deadlines and plays nothing."""
    return _mac(svc, "web-calendar", svc.token(player))[:SECRET_CHARS]


def calendar_path(svc: Service, player: dict) -> str:
    return f"/g/{quote(player['game'])}/c/{calendar_secret(svc, player)}.ics"


def find_seat(svc: Service, game_id: str, secret: str, of=seat_secret) -> dict | None:
    """The active seat of `game_id` whose page `secret` opens (`of`: calendar_secret, whose
    feed), or None (compared in constant time)."""
    found = None
    for p in svc.store.players(game_id, active_only=True):
        if hmac.compare_digest(of(svc, p), secret):
            found = p
    return found


def csrf_token(svc: Service, player: dict, browser: str) -> str:
    """A form's CSRF token: bound to the seat and to the browser's own cookie, so a page made
    elsewhere cannot forge it even if it learnt the seat's link."""
    return _mac(svc, "web-csrf", f"{seat_secret(svc, player)}\n{browser}")[:SECRET_CHARS]


# A queued mail holds a marker where its reader's token goes (pbem/outbound/outbox.py); the seat's link
# is that marker with this suffix, filled in with the seat's secret when the mail is sent, so
# no stored mail holds the link in clear.
SEAT_SUFFIX = "-seat"


def mail_links(svc: Service, game: dict, marker: str | None) -> dict:
    """The links a report carries: the game's page and, where the mail has a token marker, the
    reader's own page (filled in by `fill` when sent). None without an [http] table."""
    base = base_url(svc)
    if base is None:
        return {"game_url": None, "seat_url": None}
    seat = f"{base}{game_path(game['id'])}/s/{marker}{SEAT_SUFFIX}" if marker else None
    return {"game_url": base + game_path(game["id"]), "seat_url": seat}


def seat_fill(svc: Service, marker: str, player: dict | None, token: str | None = None) -> tuple[str, str]:
    """(the placeholder of `marker`'s seat link in a mail's texts, what it becomes: the seat's
    secret), made once per mail for all its parts (`token`: the seat's, made already)."""
    return marker + SEAT_SUFFIX, seat_secret(svc, player, token) if player else "revoked"

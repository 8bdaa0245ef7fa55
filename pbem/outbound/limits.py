"""Limits on what one sender may make the service do (issue 27): press per seat a day, an
observer's `status` a day, mails per seat an hour (and the web's uploads per seat an hour).

Each is a setting (pbem/base/settings.py, the README's table) counted in the store over a
sliding window (table `uses`), so every daemon on one database counts alike, and what is
counted in a mail's processing is undone with it if that fails. Going over is never silent
and never a flood: the sender is told the first time in the window (`over` says when), and
the moderator in the digest (pbem/outbound/notices.py), once a day per limit and sender.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from pbem.base import log
from pbem.outbound import notices
from pbem.store import iso

if TYPE_CHECKING:
    from pbem.core.service import Service

HOUR, DAY = timedelta(hours=1), timedelta(days=1)


@dataclass(frozen=True)
class Limit:
    key: str  # the Settings key that sets it: replies name it, so the moderator knows what to change
    window: timedelta
    noun: str  # what is counted, plural ("messages")

    def allowed(self, svc: Service) -> int:
        return int(getattr(svc.settings, self.key))

    @property
    def span(self) -> str:
        return "the last hour" if self.window == HOUR else "the last 24 hours" if self.window == DAY else \
            f"the last {self.window}"


PRESS_PER_DAY = Limit("press_per_day", DAY, "messages")
OBSERVER_STATUS = Limit("observer_status_per_day", DAY, "status reports")
MAILS_PER_HOUR = Limit("mails_per_hour", HOUR, "mails")


def seat(player: dict) -> str:
    """Who a seat is, to the counters."""
    return f"{player['game']}/{player['name']}"


def used(svc: Service, limit: Limit, who: str) -> int:
    return svc.store.uses(limit.key, who, iso(svc.now() - limit.window))


def take(svc: Service, limit: Limit, who: str, n: int = 1) -> int:
    """How many of `n` more fit under the limit for `who`; those are counted."""
    return svc.store.take_uses(limit.key, who, n, limit.allowed(svc), iso(svc.now() - limit.window))


def over(svc: Service, limit: Limit, who: str, *, game: str | None = None, kept: bool = True) -> bool:
    """`who` went over `limit`: counted, logged, and the moderator told in the next digest
    (once a day per limit and sender, counted). True the first time in the limit's window:
    the sender is told then, not after."""
    since = iso(svc.now() - limit.window)
    first = svc.store.uses(f"{limit.key}:over", who, since) == 0
    svc.store.add_uses(f"{limit.key}:over", who, 1, forget_before=iso(svc.now() - max(limit.window, DAY)))
    log.get(game=game).warning("limit reached", limit=limit.key, who=who)
    notices.add(svc, "limit", f"{who} reached the limit of {limit.allowed(svc)} {limit.noun} in {limit.span} "
                f"({limit.key} in pbem.toml): what came over it was {'kept and ' if kept else ''}refused, the "
                f"sender told {'once' if kept else 'each time'}.",
                key=f"{limit.key}.{who}.{svc.now():%Y-%m-%d}", game=game)
    return first

"""Durations and times as players read and write them.

Times are kept as UTC (ISO-8601 text in the store); only what a player reads is turned into
their own time zone, through zoneinfo, so a deadline 48 real hours away shows the right
local hour on both sides of a daylight-saving change.
"""
from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pbem.base import i18n
from pbem.base.i18n import _, ngettext

_PART = re.compile(r"(\d+)\s*([wdhms])", re.IGNORECASE)
_UNITS = {"w": "weeks", "d": "days", "h": "hours", "m": "minutes", "s": "seconds"}
LONGEST = timedelta(days=36525)  # a hundred years


def duration(text: str | float, unit: str = "h") -> timedelta:
    """"48h", "2d", "1d12h", "90m" (a bare number counts in `unit`) as a timedelta."""
    s = str(text).strip().lower().replace(" ", "")
    if re.fullmatch(r"\d+", s):
        s += unit
    if not s or not re.fullmatch(r"(\d+[wdhms])+", s):
        raise ValueError(_("%(text)r is not a duration (write e.g. 48h, 2d, 1d12h, 90m)", text=text))
    try:
        total = sum((timedelta(**{_UNITS[u]: int(n)}) for n, u in _PART.findall(s)), timedelta())
    except OverflowError:  # "99999999999d": more days than a timedelta holds
        total = LONGEST + timedelta(days=1)
    if total > LONGEST:  # a time that far ahead is past the calendar's end
        raise ValueError(_("%(text)r is too long (at most %(days)s days)", text=text, days=LONGEST.days))
    return total


def parse(text: str) -> datetime:
    """A stored time (UTC ISO-8601, as `pbem.store.iso` writes it)."""
    t = datetime.fromisoformat(text)
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def zone(name: str | None) -> ZoneInfo | timezone:
    if not name:
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(_("%(name)r is not a time zone (write e.g. Europe/Berlin)", name=name)) from None


def local(t: datetime, tz: str | None) -> str:
    """"Sunday 25 October 2026, 11:00 CET (10:00 UTC)": the zone's abbreviation names the
    offset in force on that date, so a reader across a DST change is not misled."""
    here = t.astimezone(zone(tz))
    text = f"{here:%A} {here.day} {here:%B %Y, %H:%M} {here.tzname()}" if i18n.current() == i18n.DEFAULT \
        else i18n.when(here)  # the reader's locale: "Sonntag, 25. Oktober 2026, 11:00 MEZ"
    if here.utcoffset():
        text += f" ({t.astimezone(UTC):%H:%M} UTC)"
    return text


def span(d: timedelta) -> str:
    """A time left, roughly, as people say it: "2 days", "5 hours", "40 minutes"."""
    s = max(0, int(d.total_seconds()))
    if round(s / 3600) >= 48:
        return ngettext("%(n)s day", "%(n)s days", round(s / 86400))
    if s >= 7200:
        return ngettext("%(n)s hour", "%(n)s hours", round(s / 3600))
    if s >= 60:
        return ngettext("%(n)s minute", "%(n)s minutes", round(s / 60))
    return _("less than a minute")


def words(d: timedelta) -> str:
    """A configured duration, exactly: 48h -> "48 hours", 2d -> "2 days"."""
    s = int(d.total_seconds())
    if s % 86400 == 0:
        return ngettext("%(n)s day", "%(n)s days", s // 86400)
    if s % 3600 == 0:
        return ngettext("%(n)s hour", "%(n)s hours", s // 3600)
    if s % 60 == 0:
        return ngettext("%(n)s minute", "%(n)s minutes", s // 60)
    return ngettext("%(n)s second", "%(n)s seconds", s)

"""Durations and times as players read and write them.

Times are kept as UTC (ISO-8601 text in the store); only what a player reads is turned into
their own time zone, through zoneinfo, so a deadline 48 real hours away shows the right
local hour on both sides of a daylight-saving change.
"""
from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_PART = re.compile(r"(\d+)\s*([wdhms])", re.IGNORECASE)
_UNITS = {"w": "weeks", "d": "days", "h": "hours", "m": "minutes", "s": "seconds"}
LONGEST = timedelta(days=36525)  # a hundred years


def duration(text: str | float, unit: str = "h") -> timedelta:
    """"48h", "2d", "1d12h", "90m" (a bare number counts in `unit`) as a timedelta."""
    s = str(text).strip().lower().replace(" ", "")
    if re.fullmatch(r"\d+", s):
        s += unit
    if not s or not re.fullmatch(r"(\d+[wdhms])+", s):
        raise ValueError(f"{text!r} is not a duration (write e.g. 48h, 2d, 1d12h, 90m)")
    try:
        total = sum((timedelta(**{_UNITS[u]: int(n)}) for n, u in _PART.findall(s)), timedelta())
    except OverflowError:  # "99999999999d": more days than a timedelta holds
        total = LONGEST + timedelta(days=1)
    if total > LONGEST:  # a time that far ahead is past the calendar's end
        raise ValueError(f"{text!r} is too long (at most {LONGEST.days} days)")
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
        raise ValueError(f"{name!r} is not a time zone (write e.g. Europe/Berlin)") from None


def local(t: datetime, tz: str | None) -> str:
    """"Sunday 25 October 2026, 11:00 CET (10:00 UTC)": the zone's abbreviation names the
    offset in force on that date, so a reader across a DST change is not misled."""
    here = t.astimezone(zone(tz))
    text = f"{here:%A} {here.day} {here:%B %Y, %H:%M} {here.tzname()}"
    if here.utcoffset():
        text += f" ({t.astimezone(UTC):%H:%M} UTC)"
    return text


def span(d: timedelta) -> str:
    """A time left, roughly, as people say it: "2 days", "5 hours", "40 minutes"."""
    s = max(0, int(d.total_seconds()))
    if round(s / 3600) >= 48:
        n, name = round(s / 86400), "day"
    elif s >= 7200:
        n, name = round(s / 3600), "hour"
    elif s >= 60:
        n, name = round(s / 60), "minute"
    else:
        return "less than a minute"
    return f"{n} {name}{'s' if n != 1 else ''}"


def words(d: timedelta) -> str:
    """A configured duration, exactly: 48h -> "48 hours", 2d -> "2 days"."""
    s = int(d.total_seconds())
    for size, name in ((86400, "day"), (3600, "hour"), (60, "minute"), (1, "second")):
        if s % size == 0:
            n = s // size
            return f"{n} {name}{'s' if n != 1 else ''}"
    return f"{s} seconds"

"""A game's pace: its [game.pace] table (DESIGN.md), a seat's own settings, and the answer a
missed deadline plays for each kind of question (documented in docs/pace.md)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta

from engine import api, bots, questions
from pbem.base import clock
from pbem.core.games import GameError
from pbem.outbound.turnmail import EVERY, TURN

_WRITABLE = re.compile(r"^[a-z0-9][a-z0-9-]*$")  # keys a mail line (and the log) can carry


@dataclass(frozen=True)
class Pace:
    deadline: timedelta
    reminders: tuple[timedelta, ...]  # lead times before a deadline
    vacation_days: int
    guard_share: float  # the guard holds defaults when more than this share of those waited on miss...
    guard_min: int  # ...and at least this many do
    civil_disorder: int = 0  # a bot takes a seat after so many charged misses in a row (0: never)
    disorder_bot: str = "greedy"  # ...of this level (engine/bots/)


_PACE_KEYS = {"deadline", "reminders", "vacation_days", "guard_share", "guard_min", "civil_disorder", "disorder_bot"}


def parse_pace(raw: dict) -> Pace:
    """A [game.pace] table as a Pace; ValueError says what is wrong."""
    if not isinstance(raw, dict):
        raise ValueError("[game.pace] must be a table")  # noqa: TRY004  (a config error: callers catch ValueError)
    unknown = sorted(set(raw) - _PACE_KEYS)
    if unknown:
        raise ValueError(f"[game.pace]: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(_PACE_KEYS))})")
    deadline = clock.duration(raw.get("deadline", "48h"))
    reminders = tuple(sorted({clock.duration(r) for r in raw.get("reminders", ["24h", "2h"])}, reverse=True))
    if deadline <= timedelta(0) or any(r <= timedelta(0) for r in reminders):
        raise ValueError("[game.pace]: durations must be more than zero")
    share, least, days = raw.get("guard_share", 0.5), raw.get("guard_min", 2), raw.get("vacation_days", 14)
    if not (isinstance(share, (int, float)) and 0 <= share <= 1 and isinstance(least, int) and least >= 1
            and isinstance(days, int) and days >= 0):
        raise ValueError("[game.pace]: guard_share is 0..1, guard_min a whole number >= 1, vacation_days >= 0")
    disorder, level = raw.get("civil_disorder", 0), raw.get("disorder_bot", "greedy")
    if not isinstance(disorder, int) or isinstance(disorder, bool) or disorder < 0:
        raise ValueError("[game.pace]: civil_disorder is the misses in a row that hand a seat to a bot "
                         "(a whole number; 0: never)")
    if level not in bots.LEVELS:
        raise ValueError(f"[game.pace]: disorder_bot {level!r}: one of {', '.join(bots.LEVELS)}")
    return Pace(deadline, reminders, days, float(share), least, disorder, level)


def pace_of(game: dict) -> Pace | None:
    raw = game["config"].get("game", {}).get("pace")
    return parse_pace(raw) if raw else None


def check_config(config: dict) -> None:
    """Refuse a game config whose pace, players' time zones or `reports` cannot work (GameError)."""
    try:
        if config["game"].get("pace"):
            parse_pace(config["game"]["pace"])
        for p in config.get("players", []):
            clock.zone(p.get("timezone"))
            check_reports(p.get("reports", TURN))
    except ValueError as e:
        raise GameError(str(e)) from None


def check_reports(how: str) -> str:
    """A seat's `reports` setting (pbem/outbound/turnmail.py); ValueError says how to write one."""
    if how not in (EVERY, TURN):
        raise ValueError('write "reports: every" (a report after every move) or "reports: turn" (the default)')
    return how


# -- default answers ---------------------------------------------------------------------

# Per kind of question, the keys a missed deadline plays, the first one open wins (docs/pace.md):
# declared by the engine where it asks the question (engine/questions.py), read here once. A kind
# with no default (the moderator's) and a kind the engine does not declare (another engine's,
# tests/fake_engine.py's) decline if they can.
SELF, OTHER = questions.SELF, questions.OTHER
GENERIC = questions.DECLINE
DEFAULTS: dict[str, tuple[str, ...]] = {k.name: GENERIC if k.default is None else k.default
                                        for k in api.question_kinds()}


def default_key(prompt, player: str) -> str:
    """The answer a missed deadline plays for `player` on `prompt` (an engine Prompt)."""
    keys = [o.key for o in prompt.options]
    for want in DEFAULTS.get(prompt.kind, GENERIC):
        if want == SELF and player in keys:
            return player
        if want == OTHER:
            others = [k for k in keys if k != player and _WRITABLE.match(k)]
            if others:
                return others[0]
        if want in keys:
            return want
    return next((k for k in keys if _WRITABLE.match(k)), keys[0])  # else the first option

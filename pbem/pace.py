"""A game's pace: its [game.pace] table (DESIGN.md), a seat's own settings, and the answer a
missed deadline plays for each kind of question (documented in docs/pace.md)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta

from pbem import clock
from pbem.games import GameError

_WRITABLE = re.compile(r"^[a-z0-9][a-z0-9-]*$")  # keys a mail line (and the log) can carry


@dataclass(frozen=True)
class Pace:
    deadline: timedelta
    reminders: tuple[timedelta, ...]  # lead times before a deadline
    vacation_days: int
    guard_share: float  # the guard holds defaults when more than this share of those waited on miss...
    guard_min: int  # ...and at least this many do


_PACE_KEYS = {"deadline", "reminders", "vacation_days", "guard_share", "guard_min"}


def parse_pace(raw: dict) -> Pace:
    """A [game.pace] table as a Pace; ValueError says what is wrong."""
    if not isinstance(raw, dict):
        raise ValueError("[game.pace] must be a table")
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
    return Pace(deadline, reminders, days, float(share), least)


def pace_of(game: dict) -> Pace | None:
    raw = game["config"].get("game", {}).get("pace")
    return parse_pace(raw) if raw else None


def check_config(config: dict) -> None:
    """Refuse a game config whose pace, players' time zones or `reports` cannot work (GameError)."""
    try:
        if config["game"].get("pace"):
            parse_pace(config["game"]["pace"])
        from pbem import vacation  # here: vacation imports this module
        for p in config.get("players", []):
            clock.zone(p.get("timezone"))
            vacation.check_reports(p.get("reports", "turn"))
    except ValueError as e:
        raise GameError(str(e)) from None


def seat_config(game: dict, player: str) -> dict:
    """The player's [[players]] table in the game's config (timezone, vacation_days)."""
    return next((p for p in game["config"].get("players", []) if p.get("name") == player), {})


# -- default answers ---------------------------------------------------------------------

SELF, OTHER = "<self>", "<other>"
# Per kind of question, the keys a missed deadline plays, the first one open wins (docs/pace.md):
# spend nothing (fate, Spells, gold), attack no one, leave no region by choice, take the
# danger in front of you rather than flee, and decline what is optional.
DEFAULTS: dict[str, tuple[str, ...]] = {
    "direction": ("left",),
    "bridge-direction": ("left",),
    "inner-move": ("left", "right", "stay"),
    "crossing": ("continue",),
    "portal-try": ("no",),
    "encounter": ("encounter-space",),
    "fight": ("fight",),
    "attack-kind": ("battle",),
    "defend": ("defend",),
    "combat-reroll": ("keep",),
    "duel-reroll": ("keep",),
    "death-reroll": ("keep",),
    "table-reroll": ("keep",),
    "redraw": ("keep",),
    "start-spell": ("done",),
    "counterspell": ("let",),
    "spell-healing": (SELF,),
    "spell-target": (OTHER,),
    "spell-nullify": (OTHER,),
    "spell-acquisition": (OTHER,),
    "choose": ("no",),
    "shop": ("done",),
    "sell": ("done",),
    "pay-for": ("none",),
    # Sea Voyage: hire no ship, buy nothing, and a voyage left alone heads home
    "sea-hire": ("city",),
    "sea-naval": ("sail",),
    "sea-course": ("turn-home",),
    # the first option: nothing here is free to decline
    "teleport": (), "crown-attack": (), "reward": (), "vampire": (), "lose-follower": (), "spell-destruction": (),
    "character": (), "starting-bonus": (),
}
GENERIC = ("done", "no", "none", "keep", "let", "continue", "pass")  # a kind not listed: decline if it can


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

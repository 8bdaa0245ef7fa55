"""What a report shows of pace: the reader's open deadlines and vacation, their standing orders
and the kind of the question they are asked. The reports are a layer below (pbem/outbound/reports.py),
so whoever queues one hands `part` in (`pace=reported.part`): no callback is installed for them."""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.base import clock, i18n, option_keys
from pbem.base.i18n import _
from pbem.core import people
from pbem.pace import answering, order_words, schedule, vacation
from pbem.pace.pace import pace_of

if TYPE_CHECKING:
    from pbem.core.service import Service


def deadline(svc: Service, game: dict, player: str) -> dict | None:
    """The `deadline` of a report's context: the player's open deadlines in their time zone,
    their vacation; None for a game without pace (or for the moderator)."""
    pace = pace_of(game)
    seat = svc.store.player(game["id"], player) if pace is not None else None
    if pace is None or seat is None:
        return None
    now, tz = svc.now(), people.zone(svc, game, player, seat["email"])
    away = vacation.on_vacation(svc, game["id"], player, now)
    return {
        "open": [{"prompt": r["prompt"], "due": clock.local(clock.parse(r["due_at"]), tz),
                  "left": clock.span(clock.parse(r["due_at"]) - now), "kind": r["kind"],
                  "default": option_keys.shown(r["default_key"], i18n.current())}  # in the reader's words
                 for r in schedule.open_rows(svc, game["id"], player)],
        "length": clock.words(pace.deadline),
        "timezone": tz or "UTC",
        "vacation_until": clock.local(clock.parse(away["ends_at"]), tz) if away else None,
        "vacation_left": clock.words(vacation.left(svc, game, player, now)),
    }


def part(svc: Service, game: dict, player: str, mine: dict | None, state) -> dict:
    """A report's pace part (pbem/outbound/reports.py `PacePart`): its `deadline` (above) and
    `standing_orders`: the player's active orders (pbem/pace/standing.py), and the kind of the
    question they are asked (what `when <kind>` names; `state`, the game as the report shows it,
    has it)."""
    if game.get("status") == "ended":  # the game-over mail: no question waits, no deadline runs
        return {"deadline": None, "standing_orders": {"active": [], "kind": None}}
    due = deadline(svc, game, player)
    orders = svc.store.standing_orders(game["id"], player) if player != svc.engine.MODERATOR else []
    kind = None
    if mine:
        kind = next((d["kind"] for d in (due or {}).get("open", []) if d["prompt"] == mine["id"]), None)
        if kind is None:  # the view does not carry it (see docs/pace.md): from the game's state
            kind = next((p.kind for p in svc.engine.prompts(state) if p.id == mine["id"]), None)
    return {"deadline": due, "standing_orders": {"active": [{**o, "text": answering.shown(o["text"], i18n.current())}
                                                            for o in orders], **kind_hint(kind)}}


def kind_hint(kind: str | None) -> dict:
    """The kind of the question asked as the reader names it in an order (`kind`: a German
    reader's word, else the engine's name, `as_named` then), and the order's line (`line`) in
    her words: "dauerauftrag: wenn richtung antworte SCHLÜSSEL"."""
    if kind is None:
        return {"kind": None}
    lang = i18n.current()
    said = order_words.kind(kind, lang)
    return {"kind": said or kind, "as_named": said is None,
            "line": _("standing: when %(kind)s answer KEY", kind=said or kind)}

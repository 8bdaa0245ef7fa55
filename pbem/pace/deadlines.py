"""Pace: a deadline for every open question, reminders before it, a default answer after it,
vacations that pause it, and a guard that stops defaults during a suspected mail outage.

Only a game with a [game.pace] table has deadlines (DESIGN.md). There is one row in the
`deadlines` table per open question and player asked; `schedule.sync` keeps the rows in step with the
game whenever a move is recorded, and `tick` (every daemon cycle) sends the reminders due and
plays the defaults of deadlines that passed. Every time comes from the service's clock, so
`pbem serve --once --now T` and the tests walk through weeks at will. docs/pace.md has the rules.

Each row keeps `next_at`, when it must be looked at next (its first reminder not yet sent,
else the deadline itself), so a daemon's scan reads only the rows due (an index), not every
open deadline of every game. The SQL is the store's (pbem/store/base.py).
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pbem.base import clock, engine_text, i18n, log, option_keys
from pbem.base.i18n import _
from pbem.core import games, people
from pbem.core.games import GameError
from pbem.outbound import announce, notices, outbox, reports
from pbem.pace import daily, misses, moves, reported, schedule, seats, vacation
from pbem.pace.pace import Pace, default_key, pace_of
from pbem.store import iso

if TYPE_CHECKING:
    from pbem.core.service import Service

ACTOR = "deadline"  # the log's actor for a default answer


# -- the moderator: extend, resume -------------------------------------------------------------

def extend(svc: Service, game_id: str, player: str | None, length: timedelta) -> list[dict]:
    """Give more time: each open deadline (of `player`, or all) moves `length` later (from
    now, if it has passed). Reminders are armed again for the new time."""
    with svc.store.transaction():
        game, now = games.get(svc, game_id), svc.now()
        pace = pace_of(game)
        if pace is None:
            raise GameError(f"{game_id} has no deadlines ([game.pace])")
        rows = schedule.open_rows(svc, game_id, player)
        if not rows:
            raise GameError(f"{game_id}: no open deadline" + (f" for {player}" if player else ""))
        for row in rows:
            schedule.move_due(svc, row, max(clock.parse(row["due_at"]), now) + length, now, pace)
        out = schedule.open_rows(svc, game_id, player)
    log.get(game=game_id).info("deadline extended", player=player, by=str(length))
    return out


def resume(svc: Service, game_id: str) -> int:
    """The moderator's word that the misses the guard held are real: play their defaults."""
    with svc.store.transaction():
        games.get(svc, game_id)
        n = svc.store.set_guard(game_id, "released", "held")
    if not n:
        raise GameError(f"{game_id}: no deadline is held")
    return n


# -- each cycle: reminders, defaults, the guard ------------------------------------------------

def tick(svc: Service) -> dict[str, int]:
    """Send the reminders due and play the defaults of deadlines that passed: only the rows
    whose next time has come are read."""
    now = svc.now()
    with svc.store.transaction():
        misses.ticked(svc, now)  # a long gap since the last look: the service was down
    rows = svc.store.deadlines_to_look_at(iso(now))
    done = {"reminders": _remind(svc, [r for r in rows if r["due_at"] > iso(now)], now), "defaults": 0, "held": 0}
    for game_id in sorted({r["game"] for r in rows if r["due_at"] <= iso(now)}):
        try:
            with svc.store.transaction():  # the game locked: another daemon finds its defaults played
                played, held = _defaults(svc, games.get(svc, game_id), now)
            done["defaults"] += played
            done["held"] += held
        except Exception:  # noqa: BLE001 -- one game's trouble must not stop the others
            log.get(game=game_id).exception("defaults failed")
    return done


def _remind(svc: Service, rows: list[dict], now: datetime) -> int:
    """The reminders due, one mail per address: a seat's own reminder (its report) when one game
    of the address is near its deadline, else one mail naming every such game (pbem/pace/daily.py),
    as webDiplomacy merges its deadline warnings."""
    sent = 0
    cache: dict[str, dict] = {}  # each game read once
    by_address: dict[str, list[dict]] = {}
    for row in rows:
        player = svc.store.player(row["game"], row["player"])
        by_address.setdefault(player["email"].lower() if player else "", []).append(row)
    for address, mine in by_address.items():
        with svc.store.transaction():
            due = [(r, lead) for r in mine if (lead := _due_reminder(svc, cache, r, now)) is not None]
            if len(due) == 1:
                (row, lead), = due
                _queue_reminder(svc, cache[row["game"]], row, lead, clock.parse(row["due_at"]), now)
            elif due:
                daily.queue(svc, address, mid_parts=("reminders", int(now.timestamp())), reminder=True,
                            only={(r["game"], r["player"]) for r, _ in due})
        sent += len(due)
    return sent


def _due_reminder(svc: Service, cache: dict[str, dict], row: dict, now: datetime) -> timedelta | None:
    """Inside the address's transaction: claim the row; the lead time of the reminder to go now
    (the row marked reminded), or None, the row set to be looked at again when it should."""
    game = cache.get(row["game"]) or cache.setdefault(row["game"], games.get(svc, row["game"]))
    pace, due = pace_of(game), clock.parse(row["due_at"])
    done = set(filter(None, row["reminded"].split(",")))
    reached = [r for r in (pace.reminders if pace else ()) if schedule.secs(r) not in done and now >= due - r]
    if svc.store.claim_deadline(row) is None:
        return None  # answered or moved meanwhile, or another daemon has it
    key = (row["game"], row["prompt"], row["player"])
    player = svc.store.player(row["game"], row["player"])
    gone = player is None or player["status"] != "active"
    away = vacation.on_vacation(svc, game["id"], row["player"], now) if reached and not gone else None
    if not reached or gone or away:  # nothing to send now: when to look again
        later = row["due_at"] if gone else min(away["ends_at"], row["due_at"]) if away else \
            schedule.next_at(pace, due, row["reminded"])
        svc.store.update_deadline(*key, next_at=later)
        return None
    reminded = ",".join(sorted(done | {schedule.secs(r) for r in reached}))
    svc.store.update_deadline(*key, reminded=reminded, next_at=schedule.next_at(pace, due, reminded))
    return min(reached)  # one mail however many lead times were passed at once (a daemon that was down)


def _defaults(svc: Service, game: dict, now: datetime) -> tuple[int, int]:
    """In one game: the defaults of the deadlines that passed, unless the guard holds them."""
    pace = pace_of(game)
    rows = svc.store.deadlines_passed(game["id"], iso(now))
    if pace is None:
        return 0, 0
    if any(r["guard"] == "" for r in rows) and outage(svc, pace, now):
        return 0, _hold(svc, game, now)
    played = 0
    for row in rows:
        if _default(svc, game, row, now):
            played += 1
    return played, 0


def outage(svc: Service, pace: Pace, now: datetime) -> bool:
    """Eressea's guard: within one deadline's length, did more than guard_share of the players
    waited on (in every game: an outage hits them all), and at least guard_min, miss?
    Players heard from in the window (an answer of their own) are not counted as missing."""
    since, until = iso(now - pace.deadline), iso(now)
    rows = svc.store.deadlines_in_window(since, until)
    heard = {(r["game"], r["player"]) for r in rows if r["status"] == "answered"}
    missed = {(r["game"], r["player"]) for r in rows if r["status"] != "answered" and r["guard"] != "released"} - heard
    return len(missed) >= pace.guard_min and len(missed) > pace.guard_share * len(missed | heard)


def _hold(svc: Service, game: dict, now: datetime) -> int:
    first = not svc.store.held_deadlines(game["id"])
    n = svc.store.set_guard(game["id"], "held", "", due_by=iso(now))
    log.get(game=game["id"]).warning("defaults held: a mail outage is suspected", deadlines=n)
    if first and n:
        _queue_alert(svc, game, now)
    return n


def _default(svc: Service, game: dict, row: dict, now: datetime) -> bool:
    eng = svc.engine
    st = games.state(svc, game)
    prompt = next((p for p in eng.prompts(st) if p.id == row["prompt"] and row["player"] in p.players), None)
    if prompt is None:  # answered after all (the row was not closed): nothing to play
        svc.store.update_deadline(game["id"], row["prompt"], row["player"], status="answered", closed_at=iso(now),
                                  moved=True)
        return False
    keys = [o.key for o in prompt.options]
    key = row["default_key"] if row["default_key"] in keys else default_key(prompt, row["player"])
    svc.store.update_deadline(game["id"], row["prompt"], row["player"], status="defaulted", closed_at=iso(now),
                              closed_by=ACTOR, moved=True)
    played = moves.play(svc, game, row["player"], [f"{prompt.id}: {key}"], actor=ACTOR)
    disorder = not played.failed and misses.record(svc, game, row, now)  # charged or excused
    if played.failed:  # the engine's own option refused: never guess further, ask the moderator
        svc.store.update_deadline(game["id"], row["prompt"], row["player"], status="open", guard="held",
                                  closed_at=None, closed_by=None, moved=True)
        notices.add(svc, "stuck", f"The default {key!r} for {row['player']} (question {prompt.id}) "
                    f"was refused: {played.failed['reason']}. Answer with `pbem game answer`.",
                    key=f"refused{prompt.id}", game=game["id"])
        return False
    tz = people.zone(svc, game, row["player"])
    seat = svc.store.player(game["id"], row["player"])
    with i18n.using(people.language(svc, game, row["player"], seat["email"] if seat else None)):
        asked = engine_text.said(prompt.question, getattr(prompt, "msg", None))  # in the reader's words
        extra = {"applied": [option_keys.shown_line(ln, i18n.current()) for ln in played.applied], "failed": None,
                 "unused": [], "check": False,
                 "defaulted": {"prompt": prompt.id, "question": asked, "key": option_keys.shown(key, i18n.current()),
                               "due": clock.local(clock.parse(row["due_at"]), tz)}}
    announce.queue_reports(svc, game, played, sender=row["player"], sender_kind="default", sender_extra=extra,
                           pace=reported.part)
    log.get(game=game["id"]).info("default played", player=row["player"], prompt=prompt.id, key=key)
    if disorder:  # civil disorder: the seat's bot answers what is open now
        seats.play_now(svc, game)
    return True


# -- mails -------------------------------------------------------------------------------

def _queue(svc: Service, game: dict, player: dict, kind: str, subject: str, mid_parts: tuple, extra: dict) -> None:
    """A mail of our own kind with a player's report in it (their view, no events). Like a
    report, it says which question it asks, so a reply to it answers that one only. The caller
    makes it in its reader's language (`i18n.using`): the context's words, the answer lines'
    (pbem/base/option_keys.py) and the mail's own language, which it is rendered in."""
    state = games.state(svc, game)
    ctx = reports.report_context(svc, game, player["name"], svc.engine.view(state, player["name"]), [],
                                 state=state, pace=reported.part)
    ctx.update(extra)
    root = reports.thread_root(svc, game, player["name"])
    outbox.enqueue(svc, kind=kind, message_id=reports.message_id(svc, game, *mid_parts, player["name"], kind),
                   sender=reports.game_address(svc, game), to=player["email"], to_name=player["name"],
                   subject=subject, context=ctx, game=game["id"],
                   player=player if "token_salt" in player else None, in_reply_to=root, references=[root],
                   extra_headers={reports.QUESTION_HEADER: str(ctx["asked"]["id"])} if ctx.get("asked") else None,
                   calendar=reports.calendar_part(svc, game, player, ctx))


def _queue_reminder(svc: Service, game: dict, row: dict, lead: timedelta, due: datetime, now: datetime) -> None:
    player = svc.store.player(game["id"], row["player"])
    assert player is not None  # a deadline is kept for a seat
    # all of it in the reader's language: it was English around a German report (the mail's own
    # language was the process's), its subject too
    with i18n.using(people.language(svc, game, row["player"], player["email"])):
        when = clock.local(due, people.zone(svc, game, row["player"], player["email"]))
        extra = {"reminder": {"prompt": row["prompt"], "due": when, "left": clock.span(due - now),
                              "default": option_keys.shown(row["default_key"], i18n.current())}}
        _queue(svc, game, player, "reminder", f"[{game['id']}] " + _("Reminder: please answer by %(when)s", when=when),
               ("dl", row["prompt"], int(due.timestamp()), schedule.secs(lead)), extra)


def _queue_alert(svc: Service, game: dict, now: datetime) -> None:
    """One notice to the moderator per episode (its Message-ID names the hour it began)."""
    held = svc.store.held_deadlines(game["id"])
    who = ", ".join(f"{r['player']} (question {r['prompt']})" for r in held)
    reason = (f"Defaults held, mail may be down: {who} missed the deadline. `pbem game resume {game['id']}` "
              f"plays the defaults, `pbem game extend {game['id']} 24h` gives time.")
    notices.add(svc, "stuck", reason, key=f"guard{int(now.timestamp())}", game=game["id"])

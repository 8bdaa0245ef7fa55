"""Pace: a deadline for every open question, reminders before it, a default answer after it,
vacations that pause it, and a guard that stops defaults during a suspected mail outage.

Only a game with a [game.pace] table has deadlines (DESIGN.md). There is one row in the
`deadlines` table per open question and player asked; `sync` keeps the rows in step with the
game whenever a move is recorded, and `tick` (every daemon cycle) sends the reminders due and
plays the defaults of deadlines that passed. Every time comes from the service's clock, so
`pbem serve --once --now T` and the tests walk through weeks at will. docs/pace.md has the rules.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from pbem import clock, games, log, outbox, reports, vacation
from pbem.games import GameError
from pbem.pace import Pace, default_key, pace_of, seat_config
from pbem.store import iso

ACTOR = "deadline"  # the log's actor for a default answer


def secs(d: timedelta) -> str:
    return str(int(d.total_seconds()))


# -- the rows ----------------------------------------------------------------------------

def _rows(svc, sql: str, params=()) -> list[dict]:
    return svc.store.query(sql, params)


def _run(svc, sql: str, params=()) -> None:
    svc.store.db.execute(sql, params)


def open_rows(svc, game_id: str, player: str | None = None) -> list[dict]:
    sql, params = "SELECT * FROM deadlines WHERE game = ? AND status = 'open'", [game_id]
    if player:
        sql += " AND player = ?"
        params.append(player)
    return _rows(svc, sql + " ORDER BY due_at, prompt, player", params)


def _reached(pace: Pace, now: datetime, due: datetime) -> str:
    """The lead times whose reminder time is past at `now`: never sent for this due time."""
    return ",".join(secs(r) for r in pace.reminders if now >= due - r)


def sync(svc, game: dict, state, actor: str | None = None) -> None:
    """Open a deadline for each player a question now waits for, and close those no longer
    waited for (answered by `actor`). Called after every recorded move."""
    pace = pace_of(game)
    if pace is None or game.get("status") == "waiting":
        return
    eng, now = svc.engine, svc.now()
    asked = {} if state.over else {(p.id, name): p for p in eng.prompts(state) for name in p.players
                                   if name != eng.MODERATOR}
    for row in open_rows(svc, game["id"]):
        if asked.pop((row["prompt"], row["player"]), None) is None:
            _run(svc, "UPDATE deadlines SET status = ?, closed_at = ?, closed_by = ? WHERE game = ? AND prompt = ? "
                 "AND player = ?", ("closed" if state.over else "answered", iso(now), actor, game["id"], row["prompt"],
                                    row["player"]))
    for (prompt_id, name), p in asked.items():
        due = vacation.paused_until(svc, game["id"], name, now, pace.deadline)
        # a rollback can reopen a question: its row comes back to life with a new deadline
        _run(svc, "INSERT INTO deadlines (game, prompt, player, kind, default_key, opened_at, due_at, reminded, "
             "status, guard) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open', '') "
             "ON CONFLICT (game, prompt, player) DO UPDATE SET "
             "kind = excluded.kind, default_key = excluded.default_key, opened_at = excluded.opened_at, "
             "due_at = excluded.due_at, reminded = excluded.reminded, status = 'open', guard = '', closed_at = NULL, "
             "closed_by = NULL", (game["id"], prompt_id, name, p.kind, default_key(p, name), iso(now), iso(due),
                                  _reached(pace, now, due)))


def move_due(svc, row: dict, due: datetime, now: datetime, pace: Pace) -> None:
    """A new due time: the reminders not yet reached are armed again, the others stay done."""
    _run(svc, "UPDATE deadlines SET due_at = ?, reminded = ?, guard = '' WHERE game = ? AND prompt = ? AND player = ?",
         (iso(due), _reached(pace, now, due), row["game"], row["prompt"], row["player"]))


# -- the moderator: extend, resume -------------------------------------------------------------

def extend(svc, game_id: str, player: str | None, length: timedelta) -> list[dict]:
    """Give more time: each open deadline (of `player`, or all) moves `length` later (from
    now, if it has passed). Reminders are armed again for the new time."""
    with svc.store.transaction():
        game, now = games.get(svc, game_id), svc.now()
        pace = pace_of(game)
        if pace is None:
            raise GameError(f"{game_id} has no deadlines ([game.pace])")
        rows = open_rows(svc, game_id, player)
        if not rows:
            raise GameError(f"{game_id}: no open deadline" + (f" for {player}" if player else ""))
        for row in rows:
            move_due(svc, row, max(clock.parse(row["due_at"]), now) + length, now, pace)
        out = open_rows(svc, game_id, player)
    log.get(game=game_id).info("deadline extended", player=player, by=str(length))
    return out


def resume(svc, game_id: str) -> int:
    """The moderator's word that the misses the guard held are real: play their defaults."""
    with svc.store.transaction():
        games.get(svc, game_id)
        n = svc.store.db.execute("UPDATE deadlines SET guard = 'released' WHERE game = ? AND status = 'open' "
                                 "AND guard = 'held'", (game_id,)).rowcount
    if not n:
        raise GameError(f"{game_id}: no deadline is held")
    return n


# -- each cycle: reminders, defaults, the guard ------------------------------------------------

def tick(svc) -> dict[str, int]:
    """Send the reminders due and play the defaults of deadlines that passed."""
    now = svc.now()
    done = {"reminders": _remind(svc, now), "defaults": 0, "held": 0}
    due = _rows(svc, "SELECT DISTINCT d.game FROM deadlines d JOIN games g ON g.id = d.game WHERE d.status = 'open' "
                "AND d.guard != 'held' AND d.due_at <= ? AND g.status = 'active' ORDER BY d.game", (iso(now),))
    for row in due:
        try:
            with svc.store.transaction():
                played, held = _defaults(svc, games.get(svc, row["game"]), now)
            done["defaults"] += played
            done["held"] += held
        except Exception:  # noqa: BLE001 -- one game's trouble must not stop the others
            log.get(game=row["game"]).exception("defaults failed")
    return done


def _remind(svc, now: datetime) -> int:
    sent, cache = 0, {}
    rows = _rows(svc, "SELECT d.* FROM deadlines d JOIN games g ON g.id = d.game JOIN players p ON p.game = d.game "
                 "AND p.name = d.player WHERE d.status = 'open' AND d.due_at > ? AND g.status = 'active' "
                 "AND p.status = 'active' ORDER BY d.due_at", (iso(now),))
    for row in rows:
        game = cache.get(row["game"]) or cache.setdefault(row["game"], games.get(svc, row["game"]))
        pace, due = pace_of(game), clock.parse(row["due_at"])
        done = set(filter(None, row["reminded"].split(",")))
        reached = [r for r in (pace.reminders if pace else ()) if secs(r) not in done and now >= due - r]
        if not reached or vacation.on_vacation(svc, game["id"], row["player"], now):
            continue
        with svc.store.transaction():
            key = (row["game"], row["prompt"], row["player"], row["due_at"], row["reminded"])
            if not _rows(svc, "SELECT 1 FROM deadlines WHERE game = ? AND prompt = ? AND player = ? AND due_at = ? "
                         "AND reminded = ? AND status = 'open'", key):
                continue  # answered or moved meanwhile (another process took a mail)
            # one mail however many lead times were passed at once (a daemon that was down)
            _queue_reminder(svc, game, row, min(reached), due, now)
            _run(svc, "UPDATE deadlines SET reminded = ? WHERE game = ? AND prompt = ? AND player = ?",
                 (",".join(sorted(done | {secs(r) for r in reached})), row["game"], row["prompt"], row["player"]))
        sent += 1
    return sent


def _defaults(svc, game: dict, now: datetime) -> tuple[int, int]:
    """In one game: the defaults of the deadlines that passed, unless the guard holds them."""
    pace = pace_of(game)
    rows = _rows(svc, "SELECT * FROM deadlines WHERE game = ? AND status = 'open' AND guard != 'held' AND due_at <= ? "
                 "ORDER BY due_at, prompt, player", (game["id"], iso(now)))
    if pace is None:
        return 0, 0
    if any(r["guard"] == "" for r in rows) and outage(svc, pace, now):
        return 0, _hold(svc, game, now)
    played = 0
    for row in rows:
        if _default(svc, game, row, now):
            played += 1
    return played, 0


def outage(svc, pace: Pace, now: datetime) -> bool:
    """Eressea's guard: within one deadline's length, did more than guard_share of the players
    waited on (in every game: an outage hits them all), and at least guard_min, miss?
    Players heard from in the window (an answer of their own) are not counted as missing."""
    since, until = iso(now - pace.deadline), iso(now)
    rows = _rows(svc, "SELECT d.player, d.game, d.status, d.guard FROM deadlines d "
                 "JOIN players p ON p.game = d.game AND p.name = d.player JOIN games g ON g.id = d.game "
                 "WHERE p.status = 'active' AND g.status = 'active' "
                 "AND ((d.status = 'open' AND d.due_at <= ?) "
                 "OR (d.status = 'defaulted' AND d.due_at > ? AND d.due_at <= ?) "
                 "OR (d.status = 'answered' AND d.closed_by = d.player AND d.closed_at > ?))",
                 (until, since, until, since))
    heard = {(r["game"], r["player"]) for r in rows if r["status"] == "answered"}
    missed = {(r["game"], r["player"]) for r in rows if r["status"] != "answered" and r["guard"] != "released"} - heard
    return len(missed) >= pace.guard_min and len(missed) > pace.guard_share * len(missed | heard)


def _hold(svc, game: dict, now: datetime) -> int:
    first = not _rows(svc, "SELECT 1 FROM deadlines WHERE game = ? AND status = 'open' AND guard = 'held'",
                      (game["id"],))
    n = svc.store.db.execute("UPDATE deadlines SET guard = 'held' WHERE game = ? AND status = 'open' AND guard = '' "
                             "AND due_at <= ?", (game["id"], iso(now))).rowcount
    log.get(game=game["id"]).warning("defaults held: a mail outage is suspected", deadlines=n)
    if first and n:
        _queue_alert(svc, game, now)
    return n


def _default(svc, game: dict, row: dict, now: datetime) -> bool:
    eng = svc.engine
    st = games.state(svc, game)
    prompt = next((p for p in eng.prompts(st) if p.id == row["prompt"] and row["player"] in p.players), None)
    if prompt is None:  # answered after all (the row was not closed): nothing to play
        _run(svc, "UPDATE deadlines SET status = 'answered', closed_at = ? "
             "WHERE game = ? AND prompt = ? AND player = ?", (iso(now), game["id"], row["prompt"], row["player"]))
        return False
    keys = [o.key for o in prompt.options]
    key = row["default_key"] if row["default_key"] in keys else default_key(prompt, row["player"])
    _run(svc, "UPDATE deadlines SET status = 'defaulted', closed_at = ?, closed_by = ? WHERE game = ? AND prompt = ? "
         "AND player = ?", (iso(now), ACTOR, game["id"], row["prompt"], row["player"]))
    played = games.play(svc, game, row["player"], [f"{prompt.id}: {key}"], actor=ACTOR)
    if played.failed:  # the engine's own option refused: never guess further, ask the moderator
        _run(svc, "UPDATE deadlines SET status = 'open', guard = 'held', closed_at = NULL, closed_by = NULL "
             "WHERE game = ? AND prompt = ? AND player = ?", (game["id"], row["prompt"], row["player"]))
        reports.queue_digest(svc, game, played.state, f"The default {key!r} for {row['player']} (question {prompt.id}) "
                             f"was refused: {played.failed['reason']}. Answer with `pbem game answer`.",
                             key=f"refused{prompt.id}")
        return False
    tz = seat_config(game, row["player"]).get("timezone")
    extra = {"applied": played.applied, "failed": None, "unused": [], "check": False,
             "defaulted": {"prompt": prompt.id, "question": prompt.question, "key": key,
                           "due": clock.local(clock.parse(row["due_at"]), tz)}}
    reports.queue_reports(svc, game, played, sender=row["player"],
                          sender_kind="default", sender_extra=extra)
    log.get(game=game["id"]).info("default played", player=row["player"], prompt=prompt.id, key=key)
    return True


# -- mails -------------------------------------------------------------------------------

def _queue(svc, game: dict, player: dict, kind: str, subject: str, mid_parts: tuple, extra: dict) -> None:
    """A mail of our own kind with a player's report in it (their view, no events)."""
    state = games.state(svc, game)
    ctx = reports.report_context(svc, game, player["name"], svc.engine.view(state, player["name"]), [], state=state)
    ctx.update(extra)
    root = reports.thread_root(svc, game, player["name"])
    outbox.enqueue(svc, kind=kind, message_id=reports.message_id(svc, game, *mid_parts, player["name"], kind),
                   sender=reports.game_address(svc, game), to=player["email"], to_name=player["name"],
                   subject=subject, context=ctx, game=game["id"],
                   player=player if "token_salt" in player else None, in_reply_to=root, references=[root])


def _queue_reminder(svc, game: dict, row: dict, lead: timedelta, due: datetime, now: datetime) -> None:
    player = svc.store.player(game["id"], row["player"])
    when = clock.local(due, seat_config(game, row["player"]).get("timezone"))
    extra = {"reminder": {"prompt": row["prompt"], "due": when, "left": clock.span(due - now),
                          "default": row["default_key"]}}
    _queue(svc, game, player, "reminder", f"[{game['id']}] Reminder: please answer by {when}",
           ("dl", row["prompt"], int(due.timestamp()), secs(lead)), extra)


def _queue_alert(svc, game: dict, now: datetime) -> None:
    """One notice to the moderator per episode (its Message-ID names the hour it began)."""
    held = _rows(svc, "SELECT player, prompt FROM deadlines WHERE game = ? AND guard = 'held' AND status = 'open' "
                 "ORDER BY prompt, player", (game["id"],))
    who = ", ".join(f"{r['player']} (question {r['prompt']})" for r in held)
    reason = (f"Defaults held, mail may be down: {who} missed the deadline. `pbem game resume {game['id']}` "
              f"plays the defaults, `pbem game extend {game['id']} 24h` gives time.")
    reports.queue_digest(svc, game, games.state(svc, game), reason, key=f"guard{int(now.timestamp())}")


# -- what reports show -------------------------------------------------------------------

def context(svc, game: dict, player: str) -> dict | None:
    """The `deadline` of a report's context: the player's open deadlines in their time zone,
    their vacation; None for a game without pace (or for the moderator)."""
    pace = pace_of(game)
    if pace is None or svc.store.player(game["id"], player) is None:
        return None
    now, tz = svc.now(), seat_config(game, player).get("timezone")
    away = vacation.on_vacation(svc, game["id"], player, now)
    return {
        "open": [{"prompt": r["prompt"], "due": clock.local(clock.parse(r["due_at"]), tz),
                  "left": clock.span(clock.parse(r["due_at"]) - now), "default": r["default_key"], "kind": r["kind"]}
                 for r in open_rows(svc, game["id"], player)],
        "length": clock.words(pace.deadline),
        "timezone": tz or "UTC",
        "vacation_until": clock.local(clock.parse(away["ends_at"]), tz) if away else None,
        "vacation_left": clock.words(vacation.left(svc, game, player, now)),
    }

"""A fair record of missed deadlines (docs/pace.md, "Misses and reliability").

Every deadline whose default is played is a miss, kept in `misses`: charged to the person who
held the seat, or excused with its reason when the service itself failed them meanwhile:
- the outage guard held the default (pbem/pace/deadlines.py `outage`);
- mail to the seat does not arrive (it bounced, or SMTP refused it: `players.undeliverable`);
- a mail to the seat queued since the question opened was not sent by the deadline, or the one
  that asked it went out late (more than a tenth of the deadline's length after it opened);
- no daemon ran for a while during the question (`downtime`: a span of more than `DOWN_AFTER`
  between two looks at the deadlines, written by `ticked`).
Excused misses never count toward civil disorder: `civil_disorder = N` in [game.pace] hands a
seat to a bot (pbem/pace/seats.py) after N charged misses in a row (an answer of the seat's own
in between starts the count again; an excused miss leaves it as it was).

A person's reliability (`reliability`) is read from every game they held a seat in: the games
they finished, and the misses charged per 100 questions put to them, each weighed by its age
(half the weight every `HALF_LIFE`), so a bad month long ago fades.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pbem.base import clock, i18n, log
from pbem.base.i18n import _
from pbem.core import games, people
from pbem.outbound import notices, outbox, reports
from pbem.pace import seats
from pbem.pace.pace import Pace, pace_of
from pbem.store import iso

if TYPE_CHECKING:
    from pbem.core.service import Service

DOWN_AFTER = timedelta(minutes=30)  # no look at the deadlines for longer: the service was down
TICK_EVERY = timedelta(minutes=1)  # the last look is written at most this often (a write per daemon cycle otherwise)
LATE_SHARE = 0.1  # a question's mail sent later than this share of the deadline after it opened: late
HALF_LIFE = timedelta(days=180)  # a miss or a question weighs half as much every HALF_LIFE
CHARGED = "no answer by the deadline"


# -- the service's own downtime ------------------------------------------------------------------

def ticked(svc: Service, now: datetime) -> None:
    """The deadlines were looked at `now` (each daemon cycle): a gap of more than DOWN_AFTER
    since the last look is kept as downtime."""
    last = svc.store.meta("deadlines_seen")
    if last and now - clock.parse(last) > DOWN_AFTER:
        svc.store.add_downtime(last, iso(now))
        log.get().warning("downtime: no daemon looked at the deadlines", since=last, until=iso(now))
    if not last or now - clock.parse(last) >= TICK_EVERY:
        svc.store.set_meta("deadlines_seen", iso(now))


# -- a miss, charged or excused -------------------------------------------------------------------

def excuse(svc: Service, game: dict, row: dict, pace: Pace) -> str | None:
    """Why the service, not the player, is to blame for this miss (a deadlines row whose default
    is played), or None."""
    if row["guard"] == "released":
        return "the outage guard held it: mail seemed to be down"
    seat = svc.store.player(game["id"], row["player"])
    if seat is not None and seat["undeliverable"]:
        return "mail to you did not arrive (" + seat["undeliverable"][:120] + ")"
    opened, due = clock.parse(row["opened_at"]), clock.parse(row["due_at"])
    for mail in svc.store.mail_to_seat(game["id"], row["player"], row["opened_at"], row["due_at"]):
        if mail["status"] == "withdrawn":  # its question was answered for the player: never meant to go
            continue
        if mail["status"] != "sent" or (mail["sent_at"] and clock.parse(mail["sent_at"]) > due):
            return f"our {mail['kind']} mail to you was not sent in time"
        if clock.parse(mail["sent_at"]) - opened > LATE_SHARE * pace.deadline and \
                clock.parse(mail["created_at"]) - opened < timedelta(minutes=1):
            return f"our mail with the question went out late ({mail['sent_at']})"
    for down in svc.store.downtime(row["opened_at"], row["due_at"]):
        return f"the service was down from {down['since']} to {down['until']}"
    return None


def record(svc: Service, game: dict, row: dict, now: datetime) -> bool:
    """Keep the miss of a deadline whose default is being played, charged or excused; then
    hand the seat to a bot if it has missed `civil_disorder` in a row (the bot plays once the
    default's reports are queued: `seats.play_now`). True: the seat is in civil disorder now."""
    pace = pace_of(game)
    assert pace is not None  # a deadline is kept only with a pace
    why = excuse(svc, game, row, pace)
    seat = svc.store.player(game["id"], row["player"])
    email = row.get("email") or (seat["email"] if seat else "")
    svc.store.add_miss(game["id"], row["prompt"], row["player"], email=email, due_at=row["due_at"],
                       missed_at=iso(now), charged=why is None, reason=why or CHARGED)
    log.get(game=game["id"], player=row["player"]).info("deadline missed", charged=why is None, reason=why or CHARGED)
    if why is None and pace.civil_disorder and seat is not None and not seat["bot"] \
            and in_a_row(svc, game["id"], row["player"]) >= pace.civil_disorder:
        disorder(svc, game, seat, pace)
        return True
    return False


def in_a_row(svc: Service, game_id: str, player: str) -> int:
    """The seat's charged misses since its last answer of its own (excused ones not counted)."""
    charged = {(m["prompt"]) for m in svc.store.misses(game_id, player) if m["charged"]}
    excused = {(m["prompt"]) for m in svc.store.misses(game_id, player) if not m["charged"]}
    n = 0
    for row in svc.store.closed_deadlines(game_id, player):
        if row["prompt"] in charged:
            n += 1
        elif row["prompt"] in excused or row["status"] in ("bot", "closed"):
            continue
        else:  # answered: by the player, their standing order or the moderator in their place
            break
    return n


def disorder(svc: Service, game: dict, seat: dict, pace: Pace) -> None:
    """Civil disorder: a bot plays the seat; its person is told how to take it back, the
    moderator how to give it to a substitute."""
    name = seat["name"]
    with i18n.using(people.language(svc, game, name, seat["email"])):  # the seat's language
        subject = _("A bot plays your seat")
        lines = [_("You have missed %(n)s deadlines in a row in %(game)s, so a bot (%(level)s) now plays your seat "
                   "and the game goes on.", n=pace.civil_disorder, game=game["id"], level=pace.disorder_bot),
                 _("To take your seat back, reply with one line:"), "back",
                 _("Until then you keep getting the reports; the moderator may give the seat to a substitute.")]
        ctx = {"address": reports.game_address(svc, game), "subject": subject, "lines": lines}
        root = reports.thread_root(svc, game, name)
        outbox.enqueue(svc, kind="notice", message_id=reports.message_id(svc, game, game["moves"], name, "disorder"),
                       sender=reports.game_address(svc, game), to=seat["email"], to_name=name,
                       subject=f"[{game['id']}] {subject}", context=ctx, game=game["id"], player=seat,
                       in_reply_to=root, references=[root])
    notices.add(svc, "disorder", f"{name} ({seat['email']}) missed {pace.civil_disorder} deadlines in a row: a "
                f"{pace.disorder_bot} bot plays the seat. They may take it back with `back`; "
                f"`pbem player offer {game['id']} {name} --to EMAIL` offers it to substitutes by mail, "
                f"`pbem player replace {game['id']} {name} EMAIL` gives it to one.",
                key=f"{name}:{game['moves']}", game=game["id"])
    seats.put(svc, game, name, pace.disorder_bot, seats.DISORDER, play=False)


# -- reliability ---------------------------------------------------------------------------------

def reliability(svc: Service, email: str) -> dict:
    """A person's record over every game they held a seat in: games finished (the game ended
    with them in the seat, no bot in their place), questions put to them and misses charged
    and excused, and the charged misses per 100 questions weighed by age (None: no question yet)."""
    now = svc.now()

    def weight(at: str) -> float:
        return 0.5 ** ((now - clock.parse(at)) / HALF_LIFE)

    questions = svc.store.questions_of(email)
    missed = svc.store.misses(email=email)
    charged = [m for m in missed if m["charged"]]
    seats_ = svc.store.seats_by_email(email)
    finished = sum(1 for p in seats_ if p["game_status"] == "ended" and p["status"] == "active" and not p["bot"])
    asked = sum(weight(q["opened_at"]) for q in questions)
    rate = round(100 * sum(weight(m["due_at"]) for m in charged) / asked, 1) if asked else None
    return {"email": email, "games": len({p["game"] for p in seats_}), "finished": finished,
            "questions": len(questions), "charged": len(charged), "excused": len(missed) - len(charged),
            "misses_per_100": rate}


def check_minimum(svc: Service, table: dict, email: str) -> None:
    """Refuse (GameError) a person the game's [game] table does not take: more charged misses
    per 100 questions than its `max_misses`, or fewer games finished than its `min_finished`.
    Someone with no question yet passes `max_misses` (everyone starts somewhere)."""
    most, least = table.get("max_misses"), table.get("min_finished")
    if most is None and least is None:
        return
    got = reliability(svc, email)
    if most is not None and got["misses_per_100"] is not None and got["misses_per_100"] > most:
        raise games.GameError(f"{email} misses {got['misses_per_100']} deadlines per 100 questions "
                              f"({got['charged']} charged of {got['questions']}, weighed by age); "
                              f"this game takes at most {most} (max_misses)")
    if least is not None and got["finished"] < least:
        raise games.GameError(f"{email} has finished {got['finished']} game(s); this game asks for at least "
                              f"{least} (min_finished)")

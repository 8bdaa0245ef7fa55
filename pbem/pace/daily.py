"""Fewer mails, by choice (issue 29): one mail a day to each address that chose `mail: digest` or
`mail: both` (pbem/core/people.py), at its hour in its zone, listing every game that waits for
it -- the question, the answer lines to copy, the time left -- the least time left first, as
lichess's daily correspondence mail does.

The daemon's pace cycle calls `tick`; an address's local date is claimed in the store
(`claim_digest_day`) in the transaction that queues the mail, so one digest goes a day however
many daemons look. The digest is answered by one reply with a block per game (pbem/inbound/digest.py):
its Reply-To carries the address's digest token (`people.digest_token`), filled in only when the
mail is sent, as a report's seat token is. The same listing makes the merged reminder
(pbem/pace/deadlines.py) and the one receipt of a digest reply (`outcomes`).
"""
from __future__ import annotations

from datetime import time
from typing import TYPE_CHECKING

from pbem.base import clock, engine_text, i18n, log, option_keys
from pbem.base.i18n import _, ngettext
from pbem.core import games, people
from pbem.core.games import seat_config
from pbem.outbound import calendar, outbox, reports, turnmail
from pbem.pace import schedule

if TYPE_CHECKING:
    from pbem.core.service import Service

KIND = "daily"  # the template and the outbox kind ("digest" is the moderator's)


def tick(svc: Service) -> int:
    """Queue the digests whose hour has come today in their address's zone; returns how many."""
    now, sent = svc.now(), 0
    for row in svc.store.addresses_by_mail((people.DIGEST, people.BOTH)):
        address = row["address"]
        try:
            here = now.astimezone(clock.zone(row["zone"]))
            hh, mm = (row["digest_at"] or people.DIGEST_AT).split(":")
            day = here.date().isoformat()
            if row["digest_day"] == day or here.time() < time(int(hh), int(mm)):
                continue
            with svc.store.transaction():
                if svc.store.claim_digest_day(address, day) and queue(svc, address, mid_parts=(KIND, day),
                                                                      catch_up=True):
                    sent += 1
        except Exception:  # noqa: BLE001 -- one address's trouble must not stop the others
            log.get().exception("digest failed", to=log.scrub(address))
    return sent


def waiting(svc: Service, address: str, only: set[tuple[str, str]] | None = None,
            catch_up: bool = False) -> tuple[list[dict], list[tuple]]:
    """Every game that waits for `address` (a question of its seat is open), least time left
    first (no deadline last), as the digest lists them; and each one's (game, seat, question)
    for its calendar part. `only`: those (game, seat) pairs (a merged reminder's). `catch_up`:
    each game with what happened since the seat's last mail that told it (`since`), which it
    now is (the daily digest: a digest-only seat gets no report between)."""
    now, zone, lang = svc.now(), people.chosen(svc, address).get("zone"), i18n.current()
    found = []
    for seat in svc.store.seats_by_email(address):
        if seat["game_status"] != "active" or seat["status"] != "active" or seat.get("bot") or \
                (only is not None and (seat["game"], seat["name"]) not in only):
            continue
        game = games.get(svc, seat["game"])
        state = games.state(svc, game)
        view = svc.engine.view(state, seat["name"])
        mine = view.get("mine")
        if not mine:
            continue
        mine = next((q for q in engine_text.questions(svc.engine, state, view.get("prompt", []))
                     if q["id"] == mine["id"]), mine)  # in the reader's language
        row = next((r for r in schedule.open_rows(svc, game["id"], seat["name"]) if r["prompt"] == mine["id"]), None)
        due = clock.parse(row["due_at"]) if row else None
        tz = zone or seat_config(game, seat["name"]).get("timezone")
        found.append(({"game": game["id"], "me": seat["name"], "turn": view["turn"], "prompt": mine["id"],
                       "told": seat["reported_seq"] or 0,  # where the seat was before (a bounce rewinds to it)
                       "since": since(svc, game, seat) if catch_up else [],
                       "question": mine["question"],
                       "options": [{"line": f"{mine['id']}: {option_keys.shown(o['key'], lang)}", "text": o["text"]}
                                   for o in mine["options"]],  # in the reader's words (read back as the engine's)
                       "due": clock.local(due, tz) if due else None, "left": clock.span(due - now) if due else None,
                       "default": option_keys.shown(row["default_key"], lang) if row else None},
                      row["due_at"] if row else "~", (game, seat["name"], mine)))
    found.sort(key=lambda f: (f[1], f[0]["game"]))
    return [f[0] for f in found], [f[2] for f in found]


def since(svc: Service, game: dict, seat: dict) -> list[dict]:
    """The events of `game` its `seat` may see (the engine's view of them: never another's hidden
    cards) since its last mail that told them, grouped by turn as a report lists them; the seat
    counts them told from now (`reported_seq`), as a report does."""
    told, now = seat["reported_seq"] or 0, game["moves"]
    if told >= now:
        return []
    events = turnmail.Backlog(svc, game["id"], told, now).since(told, seat["name"])
    svc.store.set_reported(game["id"], seat["name"], now)
    return turnmail.grouped(events)


def language(svc: Service, address: str) -> str:
    """The address's own language; else that of its first running game's seat."""
    seat = next((s for s in svc.store.seats_by_email(address) if s["game_status"] == "active"), None)
    game = games.get(svc, seat["game"]) if seat else None
    return people.language(svc, game, seat["name"] if seat else None, address)


def queue(svc: Service, address: str, *, mid_parts: tuple, outcomes: list[dict] | None = None,
          reminder: bool = False, only: set[tuple[str, str]] | None = None, in_reply_to: str | None = None,
          inbox_id: int | None = None, catch_up: bool = False) -> bool:
    """Queue one mail to `address` listing the games that wait for it (`reminder`: as a merged
    reminder; `outcomes`: as the receipt of a digest reply, each game's outcome first; `catch_up`:
    each with what happened since its seat's last mail, the daily digest). False when there is
    nothing to say (no game waits, no outcome)."""
    with i18n.using(language(svc, address)):
        items, asked = waiting(svc, address, only, catch_up)
        if not items and not outcomes:
            return False
        told = [(i["game"], i["me"], i.pop("told")) for i in items]
        people.digest_token(svc, address)  # its salt made now: the mail is sent by another transaction
        tz, at = people.digest_time(svc, address)
        ctx = {"daily": {"items": items, "outcomes": outcomes or [], "reminder": reminder,
                         "choice": people.mail_choice(svc, address), "at": f"{at:%H:%M}", "zone": tz or "UTC"}}
        subject = (ngettext("Talisman: a reminder, %(n)s game waits for your answer",
                            "Talisman: a reminder, %(n)s games wait for your answer", len(items)) if reminder else
                   _("Talisman: your answers, game by game") if outcomes else
                   ngettext("Talisman: %(n)s game waits for you", "Talisman: %(n)s games wait for you",
                            len(items)))
        cal = calendar.for_games(svc, [(game, name, reports.game_address(svc, game), {mine["id"]: mine["question"]})
                                       for game, name, mine in asked]) if asked else None
        return outbox.enqueue(svc, kind=KIND, message_id=reports.message_id(svc, None, *mid_parts, address),
                              sender=svc.settings.address, to=address, to_name=None, subject=subject, context=ctx,
                              by_address=True, in_reply_to=in_reply_to, references=[in_reply_to],
                              inbox_id=inbox_id, reply=in_reply_to is not None, calendar=cal,
                              told=told if catch_up else None, counted=True) is True

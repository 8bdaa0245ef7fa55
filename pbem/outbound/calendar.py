"""A seat's deadlines as calendar events (RFC 5545, with icalendar): the part each report and
reminder carries, and the seat's feed on the web face (pbem/web/app.py).

One event per deadline (a `deadlines` row: a question and the player it asks). Its UID is made
of what it is, so every mail and every reading of the feed name the same event; its SEQUENCE
(the row's `sequence`, migration 17) rises whenever it changes -- `game extend`, a vacation, the
outage guard holding it, the question answered or defaulted -- so a calendar moves the event it
has rather than adding one. A closed question's event is cancelled (STATUS:CANCELLED; a mail
that carries only cancellations is METHOD:CANCEL, else METHOD:PUBLISH). A mail carries the
reader's open deadlines in the game and the cancellations it owes them: of the events an earlier
mail carried (`mailed`). The feed holds the open ones and those closed in the last FEED_DAYS.
Texts are in the language texts are made in now (pbem/base/i18n.py), the reader's.
"""
from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from pbem.base import clock
from pbem.base.i18n import _
from pbem.outbound import mime
from pbem.store import iso

if TYPE_CHECKING:
    from icalendar import Event

    from pbem.core.service import Service

PRODID = "-//Talisman by mail//pbem//EN"
FEED_DAYS = 14  # a closed deadline stays in the feed this long, cancelled, so a calendar that polls sees it go
FILENAME = "deadline.ics"
# An event ends at its deadline and lasts this long: a zero-length event is shown by some calendars
# as nothing or as an all-day mark, and one that ends at the deadline is read as "answer by then".
LENGTH = timedelta(minutes=15)


def uid(row: dict, address: str) -> str:
    """The event of one deadline: the same in every mail and feed (a rollback that reopens the
    question reopens the event, with a higher SEQUENCE)."""
    return f"deadline.{row['game']}.{row['prompt']}.{row['player']}@{address.rpartition('@')[2]}"


def _description(row: dict, question: str | None) -> str:
    if row["status"] == "open":
        lines = [question or _("A question of kind %(kind)s.", kind=row["kind"]),
                 _('If no answer has come by then, "%(key)s" is played for you.', key=row["default_key"])]
        if row["guard"] == "held":
            lines.append(_("The deadline has passed, and its default waits: the service suspects that mail is "
                           "down, and the moderator decides."))
        return "\n".join(lines)
    if row["status"] == "defaulted":
        return _('The deadline passed: "%(key)s" was played for you.', key=row["default_key"])
    if row["status"] == "closed":
        return _("The game is over.")
    return _("The question is answered.")


def event(svc: Service, game_id: str, row: dict, address: str, question: str | None = None) -> Event:
    """One deadline as an event: LENGTH long, ending at its due time (UTC), free time in the
    reader's calendar."""
    from icalendar import Event, vCalAddress  # here: importing it is a fifth of a process's start (issue 28)
    e = Event()
    due = clock.parse(row["due_at"])
    e.add("uid", uid(row, address))
    e.add("sequence", row["sequence"])
    e.add("dtstamp", svc.now())
    e.add("dtstart", due - LENGTH)
    e.add("dtend", due)
    e.add("summary", _("Talisman %(game)s: answer question %(id)s", game=game_id, id=row["prompt"]))
    e.add("description", _description(row, question))
    e.add("status", "CONFIRMED" if row["status"] == "open" and row["guard"] != "held" else
          "TENTATIVE" if row["status"] == "open" else "CANCELLED")
    e.add("transp", "TRANSPARENT")
    organizer = vCalAddress(f"mailto:{address}")
    organizer.params["cn"] = f"Talisman {game_id}"
    e.add("organizer", organizer)
    return e


def ics(events: list[Event], method: str | None) -> str:
    """A calendar of `events`; `method` (iTIP, RFC 5546) for a mail's part, None for a feed."""
    from icalendar import Calendar
    cal = Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    if method:
        cal.add("method", method)
    for e in events:
        cal.add_component(e)
    return cal.to_ical().decode("utf-8")


def for_mail(svc: Service, game: dict, player: str, address: str, questions: dict[int, str]) -> str | None:
    """The calendar part of a mail to `player`: their open deadlines in `game` and the
    cancellations owed (None: nothing to carry, a game without deadlines). What it carries is
    recorded (`mailed`), so a cancellation goes once. `questions`: question texts by id (the
    report's own question)."""
    return for_games(svc, [(game, player, address, questions)])


def for_games(svc: Service, seats: list[tuple[dict, str, str, dict[int, str]]]) -> str | None:
    """As `for_mail`, for a mail about several games (a digest, a merged reminder): each
    (game, player, the game's address, question texts) adds its seat's events to one part."""
    events, publish = [], False
    for game, player, address, questions in seats:
        open_rows = svc.store.deadlines(game["id"], player)
        owed = svc.store.calendar_owed(game["id"], player)
        events += [event(svc, game["id"], r, address, questions.get(r["prompt"])) for r in [*open_rows, *owed]]
        publish = publish or bool(open_rows)
        if open_rows or owed:
            svc.store.calendar_mailed(game["id"], player, [(r["prompt"], r["sequence"]) for r in open_rows]
                                      + [(r["prompt"], None) for r in owed])
    return ics(events, "PUBLISH" if publish else "CANCEL") if events else None


def not_received(svc: Service, game_id: str, player: str, withdrawn: list[dict]) -> None:
    """Mails withdrawn before they went (outbox status `withdrawn`: their question answered for the
    player, pbem/outbound/outbox.py) told the reader nothing. For each event they carried, what the
    reader has is what the newest other mail to that address (sent or still to go) carried: its
    SEQUENCE, or nothing if it carried none or a cancellation -- so a later mail cancels only
    events the reader got, and owes again a cancellation the withdrawn mail was to carry. Every
    mail made since the question (last) opened is searched, however many: none before it
    carried its event (or one that a (re)opening replaced)."""
    from icalendar import Calendar
    told: dict[str, tuple[int, str]] = {}
    for row in withdrawn:
        for e in Calendar.from_ical(row["calendar"]).walk("VEVENT"):
            prompt = _prompt(str(e["uid"]), game_id, player)
            if prompt is not None:
                told[str(e["uid"])] = (prompt, row["to_addr"])
    opened = {r["prompt"]: r["opened_at"] for r in svc.store.deadlines(game_id, player, open_only=False)}
    had: dict[str, int | None] = {}
    for to in {addr for _prompt, addr in told.values()}:
        since = min(opened.get(p, "") for p, addr in told.values() if addr == to)  # "": a row pruned, all mails
        wanted = {u for u, (_prompt, addr) in told.items() if addr == to}
        for text in svc.store.calendars_to(to, since):
            for e in Calendar.from_ical(text).walk("VEVENT"):
                if str(e["uid"]) in wanted and str(e["uid"]) not in had:
                    had[str(e["uid"])] = None if str(e["status"]) == "CANCELLED" else int(e.decoded("sequence"))
            if wanted <= had.keys():
                break
    svc.store.calendar_mailed(game_id, player, [(prompt, had.get(u)) for u, (prompt, _addr) in told.items()])


def _prompt(event_uid: str, game_id: str, player: str) -> int | None:
    """The question of `event_uid` if it is a deadline of that seat (`uid`), else None."""
    head, _, rest = event_uid.partition(f"deadline.{game_id}.")
    number, _, tail = rest.partition(".")
    return int(number) if not head and number.isdigit() and tail.startswith(f"{player}@") else None


def feed(svc: Service, game: dict, player: str, address: str, state) -> str:
    """A seat's deadlines as a calendar to subscribe to: the open ones, and those closed in the
    last FEED_DAYS (cancelled)."""
    questions = {p.id: p.question for p in svc.engine.prompts(state)} if not state.over else {}
    rows = [*svc.store.deadlines(game["id"], player),
            *svc.store.deadlines_closed_since(game["id"], player, iso(svc.now() - timedelta(days=FEED_DAYS)))]
    return ics([event(svc, game["id"], r, address, questions.get(r["prompt"])) for r in rows], None)


def attachment(text: str) -> mime.Attachment:
    """A mail's calendar part, as iMIP sends it (RFC 6047): text/calendar with its method."""
    method = "CANCEL" if "\r\nMETHOD:CANCEL\r\n" in text else "PUBLISH"
    return mime.Attachment(FILENAME, f'text/calendar; charset="utf-8"; method={method}', text.encode("utf-8"))

"""Deadlines on the player's calendar (issue 29): each report carries the reader's open deadline
as a text/calendar part, and the web face serves the same as a per-seat feed at a secret of its
own. One event per deadline, its UID stable, its SEQUENCE rising when `game extend`, a vacation
or the outage guard moves it, and cancelled once its question is answered. Every calendar is
read back with the real parser (icalendar)."""
from datetime import UTC, datetime, timedelta

import fake_engine
import pytest
from conftest import StillClock, game_config, mail, token
from icalendar import Calendar
from starlette.testclient import TestClient

from pbem.base import settings as settings_mod
from pbem.core.service import open_service
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame
from pbem.outbound import calendar, links, outbox
from pbem.pace import deadlines
from pbem.web.app import create_app

PACE = {"deadline": "48h", "reminders": ["24h"], "vacation_days": 5}
T0 = datetime(2026, 10, 23, 9, 0, tzinfo=UTC)
BASE = "http://talisman.test"


@pytest.fixture
def paced(tmp_path):
    """(svc, clock): a game on the fake engine with deadlines (alice is asked first, then bob),
    and an [http] table for the feed."""
    clk = StillClock(T0)
    cfg = settings_mod.Settings(home=str(tmp_path / "var"), http=settings_mod.HttpSettings(url=BASE),
                                mails_per_hour=1000)
    svc = open_service(settings=cfg, engine=fake_engine, clock=clk)
    newgame.create(svc, game_config(options={"turn_cap": 20}, pace=PACE, moderator="mod@example.org"))
    yield svc, clk
    svc.store.close()


def last_mail(svc, to: str, kinds=("report", "receipt", "error", "reminder")):
    row = [r for r in svc.store.outbox_rows() if r["to_addr"] == to and r["kind"] in kinds][-1]
    return outbox.build(svc, outbox.mail(svc, row["id"]))


def calendar_of(msg) -> Calendar | None:
    """The mail's text/calendar part, parsed; None when it has none."""
    parts = [p for p in msg.walk() if p.get_content_type() == "text/calendar"]
    assert len(parts) <= 1
    if not parts:
        return None
    cal = Calendar.from_ical(parts[0].get_payload(decode=True))
    assert parts[0].get_param("method") == str(cal["method"])  # the part says its method, as iMIP asks
    return cal


def events(cal: Calendar) -> dict[str, dict]:
    """Each event by UID: its SEQUENCE, its deadline (`due`: where it ends; every event lasts
    15 minutes, ending at the deadline), status and summary."""
    for e in cal.walk("VEVENT"):
        assert e.decoded("dtend") - e.decoded("dtstart") == timedelta(minutes=15), e.to_ical()
    return {str(e["uid"]): {"seq": int(e["sequence"]), "due": e.decoded("dtend"), "status": str(e["status"]),
                            "summary": str(e["summary"])} for e in cal.walk("VEVENT")}


def answer(svc, player, line):
    return handle(svc, mail([line], sender=f"{player}@example.org", tok=token(svc, "autumn", player)))


def test_a_report_carries_the_readers_open_deadline(paced):
    svc, _ = paced
    cal = calendar_of(last_mail(svc, "alice@example.org"))
    assert str(cal["method"]) == "PUBLISH" and str(cal["prodid"])
    [(uid, e)] = events(cal).items()
    assert uid == "deadline.autumn.1.alice@example.org"
    assert e == {"seq": 0, "due": T0 + timedelta(hours=48), "status": "CONFIRMED",
                 "summary": "Talisman autumn: answer question 1"}
    assert calendar_of(last_mail(svc, "bob@example.org")) is None  # bob is asked nothing: no event


def test_game_extend_moves_the_event_same_uid_higher_sequence(paced):
    svc, clk = paced
    before = events(calendar_of(last_mail(svc, "alice@example.org")))
    clk.t = T0 + timedelta(hours=1)
    deadlines.extend(svc, "autumn", None, timedelta(hours=24))
    answer(svc, "alice", "status")
    after = events(calendar_of(last_mail(svc, "alice@example.org")))
    assert after.keys() == before.keys()  # the same event, moved: not a second one
    [uid] = after
    assert after[uid]["seq"] > before[uid]["seq"]
    assert after[uid]["due"] == before[uid]["due"] + timedelta(hours=24)


def test_a_vacation_moves_the_event_and_its_end_moves_it_back(paced):
    svc, clk = paced
    answer(svc, "alice", "vacation: 2d")
    on = events(calendar_of(last_mail(svc, "alice@example.org")))["deadline.autumn.1.alice@example.org"]
    assert (on["seq"], on["due"]) == (1, T0 + timedelta(hours=96))
    clk.t = T0 + timedelta(hours=24)
    answer(svc, "alice", "vacation: end")
    back = events(calendar_of(last_mail(svc, "alice@example.org")))["deadline.autumn.1.alice@example.org"]
    assert (back["seq"], back["due"]) == (2, T0 + timedelta(hours=72))


def test_an_answer_cancels_the_event_once(paced):
    svc, _ = paced
    answer(svc, "alice", "1: rest")  # the fake engine asks bob next
    cal = calendar_of(last_mail(svc, "alice@example.org", ("receipt",)))
    assert str(cal["method"]) == "CANCEL"
    assert events(cal) == {"deadline.autumn.1.alice@example.org": {
        "seq": 1, "due": T0 + timedelta(hours=48), "status": "CANCELLED",
        "summary": "Talisman autumn: answer question 1"}}
    bob = events(calendar_of(last_mail(svc, "bob@example.org")))
    assert list(bob) == ["deadline.autumn.2.bob@example.org"]
    answer(svc, "alice", "status")  # the cancellation went: it is not carried again
    assert calendar_of(last_mail(svc, "alice@example.org")) is None


def test_a_new_question_and_the_answered_one_in_one_part(paced):
    """A reader asked again at once gets the new event and the old one cancelled, in one
    PUBLISH (STATUS:CANCELLED stands in a published calendar)."""
    svc, _ = paced
    answer(svc, "alice", "1: rest")
    answer(svc, "bob", "2: rest")  # alice's turn again: question 3
    cal = calendar_of(last_mail(svc, "alice@example.org"))
    assert str(cal["method"]) == "PUBLISH"
    assert {uid: e["status"] for uid, e in events(cal).items()} == {"deadline.autumn.3.alice@example.org": "CONFIRMED"}
    answer(svc, "alice", "3: rest")
    answer(svc, "bob", "4: rest")
    cal = calendar_of(last_mail(svc, "alice@example.org"))
    assert {uid: e["status"] for uid, e in events(cal).items()} == {"deadline.autumn.5.alice@example.org": "CONFIRMED"}


def test_the_outage_guard_holding_a_deadline_raises_its_sequence(make_service):
    clk = StillClock(T0)
    svc = make_service(engine=fake_engine, clock=clk)
    for n in ("one", "two"):
        newgame.create(svc, game_config(name=n, pace=PACE, players=[(f"{n}1", f"{n}1@example.org"),
                                                                    (f"{n}2", f"{n}2@example.org")]))
    clk.t = T0 + timedelta(hours=48)
    assert deadlines.tick(svc)["held"] == 2
    [row] = svc.store.deadlines("one", "one1")
    assert (row["guard"], row["sequence"]) == ("held", 1)
    handle(svc, mail(["status"], sender="one1@example.org", tok=token(svc, "one", "one1"), game="one"))
    [e] = events(calendar_of(last_mail(svc, "one1@example.org"))).values()
    assert (e["seq"], e["status"]) == (1, "TENTATIVE")


def test_the_feed_serves_the_seats_deadlines_at_a_secret_of_its_own(paced):
    svc, clk = paced
    alice = svc.store.player("autumn", "alice")
    feed = links.calendar_path(svc, alice)
    assert feed.endswith(".ics") and links.calendar_secret(svc, alice) != links.seat_secret(svc, alice)
    client = TestClient(create_app(lambda: open_service(settings=svc.settings, engine=fake_engine, clock=clk)),
                        base_url=BASE)
    got = client.get(feed)
    assert got.status_code == 200 and got.headers["content-type"].startswith("text/calendar")
    cal = Calendar.from_ical(got.content)
    assert "method" not in cal  # a feed is no iTIP message
    assert events(cal)["deadline.autumn.1.alice@example.org"]["seq"] == 0
    deadlines.extend(svc, "autumn", "alice", timedelta(hours=6))
    moved = events(Calendar.from_ical(client.get(feed).content))["deadline.autumn.1.alice@example.org"]
    assert (moved["seq"], moved["due"]) == (1, T0 + timedelta(hours=54))
    answer(svc, "alice", "1: rest")
    closed = events(Calendar.from_ical(client.get(feed).content))
    assert closed["deadline.autumn.1.alice@example.org"]["status"] == "CANCELLED"
    # the seat page's secret opens no feed, the feed's opens no page, and a wrong one is a 404
    seat = links.seat_path(svc, alice)
    assert client.get(seat.replace("/s/", "/c/") + ".ics").status_code == 404
    assert client.get(feed.replace("/c/", "/s/").removesuffix(".ics")).status_code == 404
    assert client.get(feed.replace(feed[-8:-4], "0000")).status_code == 404
    page = client.get(seat).text
    assert feed in page  # the seat's page links its feed


def test_a_withdrawn_report_never_counts_as_mailed(paced):
    """alice's first report (question 1's event) waits in the outbox; a standing order she files
    answers question 1 before it goes, so it is withdrawn. She never got the event: no later mail
    cancels it (a cancellation or a SEQUENCE only for events the reader got)."""
    svc, _ = paced
    kind = svc.store.deadlines("autumn", "alice")[0]["kind"]
    answer(svc, "alice", f"standing: when {kind} answer rest")
    first = [r for r in svc.store.outbox_rows() if r["to_addr"] == "alice@example.org" and r["kind"] == "report"][0]
    assert first["status"] == "withdrawn" and svc.store.deadlines("autumn", "alice") == []
    assert calendar_of(last_mail(svc, "alice@example.org", ("receipt",))) is None  # no CANCEL of question 1
    answer(svc, "bob", "2: rest")  # alice is asked question 3, and her standing order answers it too
    answer(svc, "alice", "status")
    went = [outbox.build(svc, outbox.mail(svc, r["id"])) for r in svc.store.outbox_rows()
            if r["to_addr"] == "alice@example.org" and r["status"] != "withdrawn"]
    assert len(went) >= 3 and not any(calendar_of(m) for m in went)



def test_a_cancellation_a_withdrawn_mail_was_to_carry_is_owed_again(paced):
    """alice got question 1's event; the moderator answers it for her, and the report that tells
    her (carrying the cancellation) is withdrawn before it goes (as `withdraw_answered` does to a
    report whose question was answered): the cancellation is owed again, and her next mail carries it."""
    svc, _ = paced
    first = [r for r in svc.store.outbox_rows() if r["to_addr"] == "alice@example.org" and r["kind"] == "report"][0]
    svc.store._run("UPDATE outbox SET status = 'sent' WHERE id = ?", (first["id"],))  # as the sender marks it
    moderator.answer(svc, "autumn", "alice", "1: rest")
    told = [r for r in svc.store.outbox_rows() if r["to_addr"] == "alice@example.org"][-1]
    assert str(calendar_of(last_mail(svc, "alice@example.org"))["method"]) == "CANCEL"
    svc.store._run("UPDATE outbox SET status = 'withdrawn' WHERE id = ?", (told["id"],))
    calendar.not_received(svc, "autumn", "alice", svc.store._all("SELECT to_addr, calendar FROM outbox WHERE id = ?",
                                                                  (told["id"],)))
    answer(svc, "alice", "status")
    assert events(calendar_of(last_mail(svc, "alice@example.org", ("receipt", "report", "status")))) == {
        "deadline.autumn.1.alice@example.org": {"seq": 1, "due": T0 + timedelta(hours=48), "status": "CANCELLED",
                                                "summary": "Talisman autumn: answer question 1"}}


def test_a_withdrawn_mail_finds_the_event_its_reader_got_however_many_mails_came_between(paced):
    """As above, with 60 mails to alice between the report that carried question 1's event and the
    withdrawn one (the check looked back 50): what she has is still found (that report's
    SEQUENCE), so the cancellation is owed again and her next mail carries it."""
    svc, _ = paced
    first = [r for r in svc.store.outbox_rows() if r["to_addr"] == "alice@example.org" and r["kind"] == "report"][0]
    svc.store._run("UPDATE outbox SET status = 'sent' WHERE id = ?", (first["id"],))
    other = svc.store.outbox_mail(first["id"])["calendar"].replace("deadline.autumn.1.", "deadline.winter.1.")
    for i in range(60):  # another game's mails to her address, each with its own event
        svc.store.add_outbox(message_id=f"<pad.{i}@example.org>", kind="report", to_addr="alice@example.org",
                             subject="winter", headers={}, text="winter", calendar=other)
    moderator.answer(svc, "autumn", "alice", "1: rest")
    told = [r for r in svc.store.outbox_rows() if r["to_addr"] == "alice@example.org"][-1]
    assert str(calendar_of(last_mail(svc, "alice@example.org"))["method"]) == "CANCEL"
    svc.store._run("UPDATE outbox SET status = 'withdrawn' WHERE id = ?", (told["id"],))
    calendar.not_received(svc, "autumn", "alice", svc.store._all("SELECT to_addr, calendar FROM outbox WHERE id = ?",
                                                                  (told["id"],)))
    answer(svc, "alice", "status")
    assert events(calendar_of(last_mail(svc, "alice@example.org", ("receipt", "report", "status"))))[
        "deadline.autumn.1.alice@example.org"]["status"] == "CANCELLED"

"""Fewer mails, by choice (issue 29): an address's `mail: each | digest | both`, its `zone:` and
the hour of its digest (`digest: 08:00`), set once for every game it plays -- by a mail line from
any of its seats, on a seat's page, or by the moderator (`pbem player mail`) -- kept in the store
on SQLite and PostgreSQL, shown by `pbem player show`.

Then through the real pipeline (mails in by `handle`, out through the outbox, the daemon's
cycle on a clock that stands still): a player in three games with `mail: digest` gets one
digest a day listing them by time left, answers two games in one reply (a block per game)
and both moves are played, with one receipt; reminders merged per address."""
from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from email.message import EmailMessage

import pytest
from click.testing import CliRunner
from conftest import StillClock, game_config, legal, mail, token
from test_web import hidden, seat_url, web  # noqa: F401 -- the fixture

from pbem import daemon
from pbem.cli import main
from pbem.core import games, people
from pbem.inbound.process import handle
from pbem.moderate import newgame, people as moderate_people
from pbem.outbound import outbox, turnmail
from pbem.pace import seats

PACE = {"deadline": "48h"}
GAMES = ("autumn", "winter", "spring")


def league_of(svc):
    """anna plays in three games (one address), each against another player."""
    for name in GAMES:
        newgame.create(svc, game_config(name=name, seed=f"digest-{name}", pace=PACE,
                                        players=[("anna", "anna@example.org"), ("bob", f"bob-{name}@example.org")]))
    return svc


@pytest.fixture
def league(make_service):
    return league_of(make_service())


def cli(svc, *args, code=0):
    result = CliRunner().invoke(main, ["--home", svc.settings.home, *args])
    assert result.exit_code == code, (result.output, result.exception)
    return result.stdout if code == 0 else result.stderr


def receipts(svc, to):
    return [outbox.mail(svc, r["id"])["text"] for r in svc.store.outbox_rows()
            if r["to_addr"] == to and r["kind"] == "receipt"]



def play_winter_until_bob_asks_anna(svc) -> None:
    """Winter played on by mail until a move of bob's asks anna."""
    for _ in range(40):
        player, line = legal(svc, "winter")
        sender = "anna@example.org" if player == "anna" else "bob-winter@example.org"
        handle(svc, mail([line], sender=sender, tok=token(svc, "winter", player), game="winter"))
        if player == "bob" and svc.engine.waiting_for(games.state(svc, games.get(svc, "winter"))) == ["anna"]:
            return
    raise AssertionError("bob's moves never asked anna")

def test_a_mail_line_from_one_seat_sets_every_game_of_the_address(make_service, db_setting):
    svc = league_of(make_service(**db_setting))  # migration 18 on both stores
    assert people.mail_choice(svc, "anna@example.org") == people.EACH
    handle(svc, mail(["mail: digest", "zone: Europe/Berlin", "digest: 7:30"], sender="anna@example.org",
                     tok=token(svc, "winter", "anna"), game="winter"))
    assert people.mail_choice(svc, "ANNA@example.org") == people.DIGEST
    tz, at = people.digest_time(svc, "anna@example.org")
    assert (tz, f"{at:%H:%M}") == ("Europe/Berlin", "07:30")
    note = receipts(svc, "anna@example.org")[-1]
    assert "mail: you get one mail a day listing every game that waits for you" in note
    assert "at 07:30, Europe/Berlin" in note
    assert moderate_people.person(svc, "anna@example.org")["settings"] == {
        "language": None, "mail": "digest", "zone": "Europe/Berlin", "digest_at": "07:30", "digest_day": None}


def test_the_german_words_and_bad_values(league):
    handle(league, mail(["post: beides", "ortszeit: Berlin", "tagesmail: 25:00"], sender="anna@example.org",
                        tok=token(league, "autumn", "anna")))
    assert people.mail_choice(league, "anna@example.org") == people.BOTH  # the good line kept
    note = receipts(league, "anna@example.org")[-1]
    assert "'Berlin' is not a time zone (write e.g. Europe/Berlin)" in note
    assert "'25:00' is not an hour of the day" in note
    assert people.digest_time(league, "anna@example.org")[0] is None  # nothing half-set
    handle(league, mail(["mail: weekly"], sender="anna@example.org", tok=token(league, "autumn", "anna")))
    assert "'weekly' is not a way to get mail: write each, digest or both" in receipts(league, "anna@example.org")[-1]
    assert people.mail_choice(league, "anna@example.org") == people.BOTH


def test_the_moderator_sets_an_address_mail(league):
    out = cli(league, "player", "mail", "anna@example.org", "digest", "--zone", "America/New_York", "--at", "20:00")
    assert "mail: digest; digest at 20:00 America/New_York" in out
    assert people.mail_choice(league, "anna@example.org") == people.DIGEST
    assert "is not a time zone" in cli(league, "player", "mail", "anna@example.org", "each", "--zone", "Mars/Base",
                                       code=1)
    assert people.mail_choice(league, "anna@example.org") == people.DIGEST  # a bad zone: nothing changed
    assert "mail: digest; digest at 20:00 America/New_York" in cli(league, "player", "mail", "anna@example.org")
    assert "mail: digest; digest at 20:00 America/New_York" in cli(league, "player", "show", "anna@example.org")


def test_the_seat_page_sets_the_address_mail(web):  # noqa: F811
    svc, client = web
    league_of(svc)
    url = seat_url(svc, "spring", "anna")
    page = client.get(url).text
    assert '<option value="mail: each" selected>' in page
    done = client.post(url, data={"action": "lines", "lines": "mail: digest", "csrf": hidden(page, "csrf"),
                                  "prompt": hidden(page, "prompt"), "form": hidden(page, "form")})
    assert done.status_code == 200
    assert people.mail_choice(svc, "anna@example.org") == people.DIGEST
    assert '<option value="mail: digest" selected>' in client.get(seat_url(svc, "autumn", "anna")).text


# -- the digest through the pipeline ---------------------------------------------------------

T0 = datetime(2026, 10, 23, 5, 0, tzinfo=UTC)  # 07:00 in Berlin (summer time)
DEADLINES = {"autumn": "72h", "winter": "24h", "spring": "48h"}  # the digest lists winter, spring, autumn


@pytest.fixture
def paced(make_service):
    return paced_league(make_service)


def paced_league(make_service, **db):
    """anna in three games, asked first in each, each game with its own deadline."""
    clk = StillClock(T0)
    svc = make_service(clock=clk, **db)
    for name in GAMES:
        newgame.create(svc, game_config(name=name, seed=f"digest-{name}-seed-long", pace={
            "deadline": DEADLINES[name], "reminders": ["12h"]},
            players=[("anna", "anna@example.org"), ("bob", f"bob-{name}@example.org")]))
        assert svc.engine.waiting_for(games.state(svc, games.get(svc, name))) == ["anna"]
    return svc, clk


def rows_to(svc, to, kind=None):
    return [r for r in svc.store.outbox_rows() if r["to_addr"] == to and (kind is None or r["kind"] == kind)]


def reply(svc, digest_row, body, sender="anna@example.org"):
    """anna's reply to a mail, as her mail program sends it: to its Reply-To, quoting it."""
    sent = outbox.build(svc, outbox.mail(svc, digest_row["id"]))
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, sent["Reply-To"], "Re: " + sent["Subject"]
    msg["Message-ID"], msg["In-Reply-To"] = f"<r{digest_row['id']}.{len(body)}@example.org>", sent["Message-ID"]
    quoted = "\n".join("> " + ln for ln in outbox.mail(svc, digest_row["id"])["text"].splitlines())
    msg.set_content(body + "\n\nAm Freitag schrieb Talisman:\n" + quoted + "\n")
    return handle(svc, bytes(msg))


def test_three_games_one_digest_a_day_two_answered_in_one_reply(paced):
    svc, clk = paced
    handle(svc, mail(["mail: digest", "zone: Europe/Berlin"], sender="anna@example.org",
                     tok=token(svc, "autumn", "anna")))
    reports_before = len(rows_to(svc, "anna@example.org", "report"))
    asyncio.run(daemon.cycle(svc))
    assert rows_to(svc, "anna@example.org", "daily") == []  # 07:00 in Berlin: not yet
    clk.at(hours=1)  # 08:00 in Berlin
    asyncio.run(daemon.cycle(svc))
    clk.at(hours=5)
    asyncio.run(daemon.cycle(svc))
    digests = rows_to(svc, "anna@example.org", "daily")
    assert len(digests) == 1, "one digest a day, not one a cycle"
    text = outbox.mail(svc, digests[0]["id"])["text"]
    assert [text.index(f"[{g}] anna, turn 1, question 1:") for g in ("winter", "spring", "autumn")] == sorted(
        text.index(f"[{g}] anna, turn 1, question 1:") for g in ("winter", "spring", "autumn"))  # least time first
    assert "in 23 hours" in text and "1: left" in text and "Sunday 25 October 2026" in text
    sent = outbox.build(svc, outbox.mail(svc, digests[0]["id"]))
    assert sent["Reply-To"].startswith("talisman+") and sent["Content-Language"] == "en"
    assert not any(token(svc, g, "anna") in sent.as_string() for g in GAMES)  # no seat's token: the address's
    moves = {g: games.get(svc, g)["moves"] for g in GAMES}
    before = {r["id"] for r in rows_to(svc, "anna@example.org")}
    result = reply(svc, digests[0], "[winter]\n1: right\n\n[autumn] anna, turn 1, question 1\nleft\n"
                                    "[nowhere]\n1: left\n\nViele Grüße\nAnna")
    assert result.status == "partial", result
    after = {g: games.get(svc, g)["moves"] for g in GAMES}
    assert after["winter"] > moves["winter"] and after["autumn"] > moves["autumn"]
    assert after["spring"] == moves["spring"]
    assert [m["line"] for m in svc.store.moves("winter") if m["player"] == "anna"] == ["anna: 1: right"]
    assert [m["line"] for m in svc.store.moves("autumn") if m["player"] == "anna"] == ["anna: 1: left"]
    answered = [r for r in rows_to(svc, "anna@example.org") if r["id"] not in before]
    assert [r["kind"] for r in answered] == ["daily"], "one receipt for the whole reply"
    receipt = outbox.mail(svc, answered[0]["id"])["text"]
    assert "[winter] anna: applied" in receipt and "applied: anna: 1: right" in receipt
    assert "[autumn] anna: applied" in receipt
    assert "You have no seat in the game nowhere: nothing of its block was played." in receipt
    assert "[spring] anna, turn 1, question 1:" in receipt  # what still waits
    play_winter_until_bob_asks_anna(svc)
    assert rows_to(svc, "bob-winter@example.org", "report"), "bob (each report) gets his"
    assert len(rows_to(svc, "anna@example.org", "report")) == reports_before  # no report one by one
    clk.at(days=1, hours=1)  # the next day at 08:00: the next digest
    asyncio.run(daemon.cycle(svc))
    assert len([r for r in rows_to(svc, "anna@example.org", "daily") if "games wait for you" in r["subject"]]) == 2


def test_a_digest_reply_is_as_safe_as_a_report_reply(paced):
    svc, clk = paced
    people.set_mail(svc, "anna@example.org", "digest")
    clk.at(hours=3)
    asyncio.run(daemon.cycle(svc))
    digest = rows_to(svc, "anna@example.org", "daily")[0]
    moves = {g: games.get(svc, g)["moves"] for g in GAMES}
    forged = reply(svc, digest, "[winter]\n1: right", sender="bob-winter@example.org")  # her token, his From
    assert forged.status == "refused"
    bobs = people.digest_token(svc, "bob-winter@example.org")  # another address's digest token: not hers
    assert handle(svc, mail(["[winter]", "1: right"], sender="anna@example.org", tok=bobs)).status == "refused"
    assert {g: games.get(svc, g)["moves"] for g in GAMES} == moves
    assert all(people.digest_token(svc, "anna@example.org").encode() not in r["raw"]
               for r in map(svc.store.inbox, (r["id"] for r in svc.store.inbox_rows())))  # none at rest


def test_reminders_merged_per_address(make_service):
    """anna (each report, the default) is near three deadlines at once: one reminder names them
    all, with every deadline in its calendar part; a single game near its deadline keeps its
    own reminder (tests/test_deadlines.py)."""
    from icalendar import Calendar
    clk = StillClock(T0)
    svc = make_service(clock=clk)
    for name in GAMES:
        newgame.create(svc, game_config(name=name, seed=f"digest-{name}-seed-long",
                                        pace={"deadline": "48h", "reminders": ["24h"]},
                                        players=[("anna", "anna@example.org"), ("bob", f"bob-{name}@example.org")]))
    clk.at(hours=24, minutes=1)
    asyncio.run(daemon.cycle(svc))
    reminders = [r for r in rows_to(svc, "anna@example.org") if r["kind"] in ("reminder", "daily")]
    assert [r["kind"] for r in reminders] == ["daily"], "one reminder for the address, not one a game"
    text = outbox.mail(svc, reminders[0]["id"])["text"]
    assert all(f"[{g}] anna, turn 1, question 1:" in text for g in GAMES) and "a reminder" in text
    sent = outbox.build(svc, outbox.mail(svc, reminders[0]["id"]))
    assert "a reminder, 3 games wait" in sent["Subject"]
    part = next(p for p in sent.walk() if p.get_content_type() == "text/calendar")
    cal = Calendar.from_ical(part.get_payload(decode=True))
    assert sorted(str(e["uid"]).split(".")[1] for e in cal.walk("VEVENT")) == sorted(GAMES)
    asyncio.run(daemon.cycle(svc))  # reminded once
    assert len([r for r in rows_to(svc, "anna@example.org") if r["kind"] in ("reminder", "daily")]) == 1


def test_a_german_digest(paced):
    svc, clk = paced
    handle(svc, mail(["sprache: de", "post: täglich"], sender="anna@example.org", tok=token(svc, "spring", "anna"),
                     game="spring"))
    clk.at(hours=3)
    asyncio.run(daemon.cycle(svc))
    row = rows_to(svc, "anna@example.org", "daily")[0]
    sent = outbox.build(svc, outbox.mail(svc, row["id"]))
    text = outbox.mail(svc, row["id"])["text"]
    assert sent["Content-Language"] == "de" and sent["Subject"] == "Talisman: 3 Spiele warten auf Sie"
    assert "[winter] anna, Runde 1, Frage 1:" in text and "Frist: Samstag, 24. Oktober 2026" in text
    assert "Which way do you move?" not in text, text  # the engine's question in German too


def test_a_report_answered_for_the_player_before_it_went_is_not_sent(paced):
    """anna's first reports wait in the outbox; a standing order she files in autumn answers its
    question, a bot the moderator puts in her winter seat answers winter's: those two reports
    never go (a reply to one would answer the next question), spring's does."""
    svc, clk = paced
    queued = {r["game"]: r for r in rows_to(svc, "anna@example.org", "report")}
    assert {r["status"] for r in queued.values()} == {"queued"}
    kind = svc.store.deadlines("autumn", "anna")[0]["kind"]
    handle(svc, mail([f"standing: when {kind} answer left"], sender="anna@example.org",
                     tok=token(svc, "autumn", "anna")))
    assert [m["actor"] for m in svc.store.moves("autumn") if m["player"] == "anna"] == ["standing"]
    seats.moderator_bot(svc, "winter", "anna", "greedy")
    assert [m["actor"] for m in svc.store.moves("winter") if m["player"] == "anna"][:1] == ["bot"]
    asyncio.run(daemon.cycle(svc))
    status = {r["game"]: r["status"] for r in svc.store.outbox_rows() if r["id"] in {q["id"] for q in queued.values()}}
    assert status == {"autumn": "withdrawn", "winter": "withdrawn", "spring": "sent"}


def test_both_brings_each_report_and_the_digest(paced):
    svc, clk = paced
    handle(svc, mail(["mail: both"], sender="anna@example.org", tok=token(svc, "autumn", "anna")))
    reports_before = len(rows_to(svc, "anna@example.org", "report"))
    play_winter_until_bob_asks_anna(svc)
    assert len(rows_to(svc, "anna@example.org", "report")) == reports_before + 1  # the report, one by one
    clk.at(hours=3)  # 08:00 UTC: no zone chosen
    asyncio.run(daemon.cycle(svc))
    assert len(rows_to(svc, "anna@example.org", "daily")) == 1  # and the digest


def test_the_digest_tells_what_happened_since_the_seats_last_mail(paced):
    """anna (digest only) gets no report of bob's moves in winter: her digest tells them, as she
    may see them (the engine's filter: never another's hidden cards), once."""
    svc, clk = paced
    handle(svc, mail(["mail: digest"], sender="anna@example.org", tok=token(svc, "autumn", "anna")))
    play_winter_until_bob_asks_anna(svc)
    told, now = svc.store.player("winter", "anna")["reported_seq"], games.get(svc, "winter")["moves"]
    assert told < now  # bob's last moves: no mail told her
    missed = svc.engine.filter_events([e for r in svc.store.move_events("winter", told, now)
                                       for e in turnmail.decode(svc.engine, r["events"])], "anna")
    hidden = [e.text for r in svc.store.move_events("winter", told, now)
              for e in turnmail.decode(svc.engine, r["events"]) if e.to and "anna" not in e.to]
    assert missed
    clk.at(hours=3)  # 08:00 UTC
    asyncio.run(daemon.cycle(svc))
    [row] = rows_to(svc, "anna@example.org", "daily")
    text, html = outbox.mail(svc, row["id"])["text"], outbox.mail(svc, row["id"])["html"]
    winter = text[text.index("[winter]"):]
    winter = winter[:winter.index("Your answer:")]
    assert "Since your last mail of this game:" in winter
    flat = " ".join(winter.split())
    assert all(" ".join(e.text.split()) in flat for e in missed if e.kind not in ("turn", "rollback")), winter
    assert not any(" ".join(t.split()) in flat for t in hidden)
    assert text.count("Since your last mail of this game:") == 1  # autumn, spring: nothing since their reports
    assert "Since your last mail of this game:" in html
    assert svc.store.player("winter", "anna")["reported_seq"] == now  # told: the next mail starts from here
    clk.at(days=1, hours=3)
    asyncio.run(daemon.cycle(svc))
    assert "Since your last mail" not in outbox.mail(svc, rows_to(svc, "anna@example.org", "daily")[-1]["id"])["text"]


def test_a_bounced_digest_tells_again_what_it_lost(make_service, db_setting):
    """anna's digest tells what happened in winter since her last mail, and bounces: winter's
    seat is rewound to where it was (as a bounced report's is), her seats are marked
    undeliverable, and her next digest tells those moves again."""
    from test_smtp import bounce_of

    from pbem.inbound.process import handle as handle_mail
    from pbem.outbound import sending

    svc, clk = paced_league(make_service, **db_setting)  # migration 20 on both stores
    handle(svc, mail(["mail: digest"], sender="anna@example.org", tok=token(svc, "autumn", "anna")))
    play_winter_until_bob_asks_anna(svc)
    told, now = svc.store.player("winter", "anna")["reported_seq"], games.get(svc, "winter")["moves"]
    assert told < now
    clk.at(hours=3)
    asyncio.run(daemon.cycle(svc))
    [row] = rows_to(svc, "anna@example.org", "daily")
    lost = outbox.mail(svc, row["id"])["text"]
    lost = lost[lost.index("[winter]"):lost.index("Your answer:", lost.index("[winter]"))]
    assert "Since your last mail of this game:" in lost and svc.store.player("winter", "anna")["reported_seq"] == now
    asyncio.run(sending.send_due(svc))
    result = handle_mail(svc, bounce_of(svc, svc.store.outbox_mail(row["id"])))
    assert result.status == "bounce", result.outcome
    assert svc.store.player("winter", "anna")["reported_seq"] == told  # rewound: the moves are untold again
    assert all(svc.store.player(g, "anna")["undeliverable"] for g in GAMES)
    # her next digest, before winter's deadline plays for her: she moves its hour to 00:30 (UTC)
    handle(svc, mail(["digest: 00:30"], sender="anna@example.org", tok=token(svc, "autumn", "anna")))
    clk.at(hours=19, minutes=40)  # 00:40 UTC the next day
    asyncio.run(daemon.cycle(svc))
    assert len(rows_to(svc, "anna@example.org", "daily")) == 2
    again = outbox.mail(svc, rows_to(svc, "anna@example.org", "daily")[-1]["id"])["text"]
    again = again[again.index("[winter]"):again.index("Your answer:", again.index("[winter]"))]
    events = [ln.strip() for ln in lost.splitlines() if ln.strip().startswith("-")]
    assert events and all(ln in again for ln in events), (events, again)


def test_the_address_zone_is_the_default_of_each_seats_timezone(paced):
    """One setting for a person: `zone:` (the address's) shows the deadlines of every game in
    that zone; a seat's own `timezone:` still wins in its game."""
    svc, _ = paced

    def deadline(game: str) -> str:
        handle(svc, mail(["status"], sender="anna@example.org", tok=token(svc, game, "anna"), game=game))
        text = outbox.mail(svc, rows_to(svc, "anna@example.org")[-1]["id"])["text"]
        return next(ln for ln in text.splitlines() if "DEADLINE" in ln)
    assert deadline("autumn").endswith("Monday 26 October 2026, 05:00 UTC, in 3 days.")
    handle(svc, mail(["zone: Europe/Berlin"], sender="anna@example.org", tok=token(svc, "autumn", "anna")))
    assert "06:00 CET (05:00 UTC)" in deadline("autumn")
    assert "06:00 CET (05:00 UTC)" in deadline("spring")  # every game of the address
    handle(svc, mail(["timezone: America/New_York"], sender="anna@example.org", tok=token(svc, "spring", "anna"),
                     game="spring"))
    assert "01:00 EDT (05:00 UTC)" in deadline("spring")  # the seat's own wins in its game
    assert "06:00 CET (05:00 UTC)" in deadline("autumn")

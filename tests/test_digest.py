"""Fewer mails, by choice (issue 29): an address's `mail: each | digest | both`, its `zone:` and
the hour of its digest (`digest: 08:00`), set once for every game it plays -- by a mail line from
any of its seats, on a seat's page, or by the moderator (`pbem player mail`) -- kept in the store
on SQLite and PostgreSQL, shown by `pbem player show`."""
from __future__ import annotations

import pytest
from click.testing import CliRunner
from conftest import game_config, mail, token
from test_web import hidden, seat_url, web  # noqa: F401 -- the fixture

from pbem.cli import main
from pbem.core import people
from pbem.inbound.process import handle
from pbem.moderate import newgame, people as moderate_people
from pbem.outbound import outbox

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

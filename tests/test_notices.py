"""The moderator's mail is a digest (issue 26): notices are batched into at most one mail per
`notice_every` to each moderator address, never one per incoming mail. On both stores."""
from __future__ import annotations

import asyncio
import functools
from datetime import timedelta

import fake_engine
import pytest
from conftest import Clock, game_config, mail

from pbem import daemon
from pbem.base import settings as settings_mod
from pbem.inbound.process import handle
from pbem.moderate import newgame
from pbem.outbound import bounces, notices, outbox


@pytest.fixture
def make_service(make_service, db_setting):
    return functools.partial(make_service, **db_setting)


@pytest.fixture
def clk():
    return Clock()


@pytest.fixture
def svc(make_service, clk):
    return make_service(engine=fake_engine, clock=clk, moderator="mod@example.org")


def digests(svc) -> list[dict]:
    return [r for r in svc.store.outbox_rows() if r["kind"] == "digest"]


def to_moderator(svc) -> list[dict]:
    return [r for r in svc.store.outbox_rows() if r["to_addr"] == "mod@example.org"]


def test_a_flood_of_strangers_costs_the_moderator_one_mail_an_hour(svc, clk):
    """Forty-two strangers' mails, a daemon cycle after each: every stranger gets the service's
    reply, the moderator the first notice at once and then nothing until the hour has passed;
    then one digest lists twenty of the rest and counts the others, and one address written
    from three times is one line "(3 times)"."""
    senders = [f"spam{i}@example.net" for i in range(40)] + ["spam7@example.net"] * 2
    for sender in senders:
        handle(svc, mail(["hello"], sender=sender))
        asyncio.run(daemon.cycle(svc))
    [first] = to_moderator(svc)
    assert first["status"] == "sent" and first["subject"] == "Talisman moderator: spam0@example.net: no token"
    assert len([r for r in svc.store.outbox_rows() if r["kind"] == "stranger"]) == 42  # the strangers' replies
    clk.t += timedelta(hours=1)
    asyncio.run(daemon.cycle(svc))
    first, digest = to_moderator(svc)
    assert digest["kind"] == "digest" and digest["status"] == "sent"
    assert digest["subject"] == "Talisman moderator: 39 notices (39 strangers' mails)"
    text = outbox.mail(svc, digest["id"])["text"]
    assert "Mail from addresses that opened no seat" in text and "spam0@" not in text
    assert "spam7@example.net: no token (3 times)" in text
    assert text.count("@example.net: no token") == notices.SHOWN
    assert "... and 19 more (`pbem inbox list`)" in text
    clk.t += timedelta(hours=3)
    asyncio.run(daemon.cycle(svc))
    assert len(to_moderator(svc)) == 2


def test_notices_within_the_hour_wait_for_the_next_digest(svc, clk):
    """The first notice after a quiet spell goes at once; later ones wait until `notice_every`
    has passed since the last digest, then go together; a notice once told is not told again."""
    assert notices.add(svc, "limit", "the web face refused 50 uploads", key="web.1")
    assert notices.send_due(svc) == 1
    assert notices.add(svc, "limit", "mail from x@example.net was throttled", key="mail.1")
    assert notices.add(svc, "gave-up", "a mail to y@example.net was given up", key=7)
    assert not notices.add(svc, "gave-up", "a mail to y@example.net was given up", key=7)  # counted, not repeated
    clk.t += timedelta(minutes=59)
    assert notices.send_due(svc) == 0
    assert notices.next_due(svc) == clock_parse(digests(svc)[0]["created_at"]) + timedelta(hours=1)
    clk.t += timedelta(minutes=1)
    assert notices.send_due(svc) == 1
    first, second = digests(svc)
    assert "web face refused" in outbox.mail(svc, first["id"])["text"]
    text = outbox.mail(svc, second["id"])["text"]
    assert "web face refused" not in text and "throttled" in text
    assert "given up (2 times)" in text
    assert second["subject"] == "Talisman moderator: 2 notices (1 mails given up, 1 limits reached)"
    assert not notices.add(svc, "limit", "the web face refused 50 uploads", key="web.1")  # told: nothing
    clk.t += timedelta(hours=2)
    assert notices.send_due(svc) == 0 and notices.next_due(svc) is None


def clock_parse(text):
    from pbem.base import clock
    return clock.parse(text)


def test_a_games_notices_go_to_its_own_moderator_with_the_game_as_it_is_now(make_service, clk):
    svc = make_service(engine=fake_engine, clock=clk, moderator="service-mod@example.org")
    g = newgame.create(svc, game_config(moderator="league-mod@example.org"))
    bounces.mark_undeliverable(svc, g, "bob", "SMTPRecipientsRefused: 550 5.1.1 no such user")
    notices.add(svc, "waiting", "3 mail(s) wait to be sent", key=1)  # no game: the service's moderator
    assert notices.send_due(svc) == 2
    [league] = [r for r in digests(svc) if r["to_addr"] == "league-mod@example.org"]
    [service] = [r for r in digests(svc) if r["to_addr"] == "service-mod@example.org"]
    text = outbox.mail(svc, league["id"])["text"]
    assert "[autumn] Mail to bob cannot be delivered (bob@example.org)" in text
    assert "The game autumn now, turn" in text and "bob <bob@example.org>: SMTPRecipientsRefused" in text
    assert "3 mail(s) wait" in outbox.mail(svc, service["id"])["text"] and "autumn" not in service["subject"]


def test_a_strangers_address_reaches_the_digest_clean(svc):
    notices.add(svc, "stranger", "eve\x00\x1b[31m@example.net\u202e: no token " + "a" * 3000, key="eve")
    notices.send_due(svc)
    [digest] = digests(svc)
    text = outbox.mail(svc, digest["id"])["text"]
    assert "\x00" not in text and "\x1b" not in text and "eve??[31m@example.net?: no token" in text  # bidi too
    assert len(text) < 2000


def test_an_unknown_kind_is_refused_and_no_moderator_means_only_a_log_line(make_service, clk):
    svc = make_service(engine=fake_engine, clock=clk)  # no moderator address
    with pytest.raises(ValueError, match="unknown notice kind 'limits'"):
        notices.add(svc, "limits", "x", key=1)
    assert not notices.add(svc, "limit", "x", key=1)
    assert notices.send_due(svc) == 0 and svc.store.notice_recipients() == []


def test_notice_every_is_a_setting(make_service, clk, tmp_path):
    svc = make_service(engine=fake_engine, clock=clk, moderator="mod@example.org", notice_every="0")
    for i in range(3):
        notices.add(svc, "limit", f"limit {i}", key=i)
        assert notices.send_due(svc) == 1  # "0": every cycle that has one
    home = tmp_path / "h"
    home.mkdir()
    (home / "pbem.toml").write_text('notice_every = "every hour"\n')
    with pytest.raises(settings_mod.SettingsError, match="notice_every: 'every hour' is not a duration"):
        settings_mod.load(home)
    (home / "pbem.toml").write_text('notice_every = "1d"\n')
    assert settings_mod.load(home).notice_interval == timedelta(days=1)


def test_a_second_daemon_queues_no_second_digest(svc, make_service, clk):
    """Two services on one store (two daemons): the digest is queued once; a daemon that read
    the same notices before the other marked them queues the same Message-ID, dropped."""
    other = make_service(engine=fake_engine, clock=clk, moderator="mod@example.org")
    notices.add(svc, "limit", "one", key=1)
    rows = svc.store.waiting_notices("mod@example.org", notices.SHOWN)
    assert notices.send_due(svc) == 1 and notices.send_due(other) == 0
    mid = digests(svc)[0]["message_id"]
    assert mid == notices.reports.message_id(svc, None, "digest", rows[0]["id"])
    assert outbox.enqueue(other, kind="digest", message_id=mid, sender="a@x", to="mod@example.org",
                          to_name=None, subject="s", context={}, counted=True) is False
    assert len(digests(svc)) == 1


def test_the_moderators_mail_is_english_whatever_the_readers_languages(make_service, clk):
    """The moderator's digest is English (docs/architecture.md: its notices are stored as English
    text and quote the command line): a league moderator whose own address reads German as a
    player, and a daemon that last wrote a German player's mail, still send it in English."""
    from pbem.base import i18n
    from pbem.core import people

    svc = make_service(engine=fake_engine, clock=clk)
    g = newgame.create(svc, game_config(moderator="bob@example.org"))
    people.set_language(svc, "bob@example.org", "de")
    bounces.mark_undeliverable(svc, g, "alice", "550 5.1.1 no such user")
    with i18n.using("de"):
        assert notices.send_due(svc) == 1
    [digest] = digests(svc)
    assert outbox.build(svc, outbox.mail(svc, digest["id"]))["Content-Language"] == "en"
    assert "Mail to alice cannot be delivered" in outbox.mail(svc, digest["id"])["text"]
    assert "The game autumn now, turn" in outbox.mail(svc, digest["id"])["text"]

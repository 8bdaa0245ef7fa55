"""The campaign's mail half (issue 27): each attack by mail that got through, run through the
service at a bounded size, and what must hold against it. tests/test_hostile_web.py is the web
half; bench/hostile.py runs the fan-out attacks at full size.

2, 10  a seat's page link quoted back is masked at rest like a token, and press masks it too
4, 8   every fan-out and intake has a limit: press per mail and per seat a day, an observer's
       `status` a day, mails per seat an hour, strangers' replies; what is over is kept and
       refused with a reply saying so, once, and the moderator is told once
5      text from outside never reaches the moderator's terminal raw (escapes, rich markup)
6      no mail loops (RFC 3834): automatic mail is stored, never answered, nothing applied
7      a reply to a press mail or a digest is never played as an answer
32     a mail is parsed once
"""
from __future__ import annotations

import email
import email.parser
import io
from datetime import timedelta
from email import policy
from email.message import EmailMessage

import fake_engine
import pytest
from click.testing import CliRunner
from conftest import game_config, legal, mail, token
from test_at_rest import dump, every_form
from test_commands import last_id, mails

from pbem.base import log, settings as settings_mod
from pbem.core import games
from pbem.inbound.process import handle
from pbem.moderate import newgame
from pbem.outbound import links, outbox, reports
from pbem.sources import dropfolder

PLAYERS3 = [("alice", "alice@example.org"), ("bob", "bob@example.org"), ("carol", "carol@example.org")]
MODERATOR = "mod@example.org"
WEB = settings_mod.HttpSettings(url="https://talisman.example.org")


def three(svc, **game) -> str:
    return newgame.create(svc, game_config(players=PLAYERS3, moderator=MODERATOR, **game))


def write(svc, g, sender, lines, **kw):
    return handle(svc, mail(lines, sender=f"{sender}@example.org", tok=token(svc, g, sender), game=g, **kw))


def to(svc, address, since=0, kind=None):
    return [(r, t) for r, t in mails(svc, since) if r["to_addr"] == address and kind in (None, r["kind"])]


def told(svc, kind="limit"):
    """What waits to be told to the moderator in the next digest (pbem/outbound/notices.py)."""
    return svc.store.query("SELECT text, count FROM notices WHERE kind = ? ORDER BY id", (kind,))


def played(svc, g) -> int:
    return games.get(svc, g)["moves"]


# -- 2: a seat's link is masked at rest, like a token ------------------------------------------

def seat_link(svc, g, name) -> tuple[str, str]:
    """(the seat's page link as its reports carry it, the secret in it)."""
    seat = svc.store.player(g, name)
    return links.base_url(svc) + links.seat_path(svc, seat), links.seat_secret(svc, seat)


def quoting_report(sender: str, tok: str, answer: str, link: str, html: bool, cte: str) -> bytes:
    """A reply that quotes the report's link under the answer, as Gmail sends it."""
    msg = EmailMessage()
    msg["From"], msg["To"] = sender, f"talisman+{tok}@example.org"
    msg["Subject"], msg["Message-ID"] = "Re: [autumn] Turn 1 report", f"<quote-{html}-{cte}@example.org>"
    text = f"{answer}\n\n> Your own page (answer there too):\n>   {link}\n"
    msg.set_content(text, cte=None if cte == "8bit" else cte)
    if html:
        msg.add_alternative(f"<p>{answer}</p><blockquote>Your own page: <a href=\"{link}\">{link}</a></blockquote>",
                            subtype="html", cte=None if cte == "8bit" else cte)
    return bytes(msg)


@pytest.mark.parametrize("cte", ["8bit", "base64", "quoted-printable"])
@pytest.mark.parametrize("html", [False, True], ids=["plain", "html"])
def test_a_reply_quoting_the_seat_link_keeps_no_link_at_rest(make_service, cte, html):
    svc = make_service(engine=fake_engine, http=WEB)
    g = newgame.create(svc, game_config())
    player, line = legal(svc, g)
    link, secret = seat_link(svc, g, player)
    report = [r for r in svc.store.outbox_rows() if r["player"] == player][-1]
    assert link.encode() in outbox.wire(svc, svc.store.outbox_mail(report["id"]))  # what is quoted back
    stream = io.StringIO()
    log.configure("json", stream=stream)
    try:
        folder = dropfolder.ensure(svc.settings.inbox_path)
        dropfolder.drop(folder, "reply.eml", quoting_report(f"{player}@example.org", token(svc, g, player), line,
                                                            link, html, cte))
        [result] = dropfolder.poll(svc, folder)
        log.get().info("a line holding a link", text=f"see {link}")
    finally:
        log.configure()
    assert result.status == "applied", result.outcome
    stored = svc.store.inbox(result.inbox_id)["raw"]
    assert secret.encode() not in every_form(stored) and b"[link]" in every_form(stored)
    assert secret.encode() not in dump(svc)
    [kept] = (folder / "cur").iterdir()  # the drop folder's copy is the stored form
    assert secret.encode() not in every_form(kept.read_bytes())
    assert secret not in stream.getvalue() and "[link]" in stream.getvalue()


def test_press_masks_seat_links_and_addresses_without_a_dot(make_service):
    """10: `clean` masked tokens and user@host.tld, not a seat's link nor user@localhost."""
    svc = make_service(engine=fake_engine, http=WEB)
    g = three(svc)
    link, secret = seat_link(svc, g, "alice")
    since = last_id(svc)
    assert write(svc, g, "alice", ["to: bob", f"my page: {link}", "mail me at alice@localhost or root@mailhost",
                                   "or alice@example.org"]).status == "applied"
    [(row, text)] = to(svc, "bob@example.org", since, "press")
    assert secret not in text and "alice@localhost" not in text and "root@mailhost" not in text
    assert "alice@example.org" not in text and text.count("[address]") == 3 and "[link]" in text


# -- 4: press fans out within limits ---------------------------------------------------------------

def test_one_mail_of_a_hundred_to_all_lines_sends_at_most_press_per_mail(make_service):
    """The attack: a 2.5 KB mail of 100 `to: all` lines made 300 press mails."""
    svc = make_service(engine=fake_engine)
    g = three(svc)
    since, moves = last_id(svc), played(svc, g)
    attack = [line for i in range(100) for line in ("to: all", f"message {i}")]
    result = write(svc, g, "alice", attack)
    assert result.status == "applied", result.outcome
    press = [r for r, _ in mails(svc, since) if r["kind"] == "press"]
    limit = svc.settings.press_per_mail
    assert len(press) == 2 * limit  # each message to the two others
    [(_, receipt)] = to(svc, "alice@example.org", since)
    assert f"90 more messages were not sent: at most {limit} messages in one mail (press_per_mail)" in receipt
    assert played(svc, g) == moves and svc.store.inbox(result.inbox_id)["raw"].count(b"to: all") == 100  # kept


def test_press_per_seat_per_day_is_a_limit_told_once_to_the_moderator(make_service):
    svc = make_service(engine=fake_engine, press_per_day=3)
    g = three(svc)
    start = last_id(svc)
    for i in range(5):
        since = last_id(svc)
        write(svc, g, "alice", ["to: bob", f"note {i}"])
        [(_, receipt)] = to(svc, "alice@example.org", since)
        if i < 3:
            assert "Sent to bob." in receipt
        else:
            assert "Not sent to bob: you have sent 3 messages in the last 24 hours" in receipt
            assert "(press_per_day)" in receipt
    assert len(to(svc, "bob@example.org", start, "press")) == 3
    [notice] = told(svc)  # once, however often it was hit
    assert "autumn/alice" in notice["text"] and "press_per_day" in notice["text"] and notice["count"] == 2
    svc.store.clock.t += timedelta(days=1)  # a day later the seat may write again
    since = last_id(svc)
    write(svc, g, "alice", ["to: bob", "a new day"])
    assert len(to(svc, "bob@example.org", since, "press")) == 1


def test_the_limits_are_settings_with_their_defaults():
    s = settings_mod.Settings()
    assert (s.press_per_mail, s.press_per_day, s.observer_status_per_day, s.mails_per_hour, s.stranger_replies) == \
        (10, 40, 6, 60, 3)
    for key in ("press_per_mail", "press_per_day", "observer_status_per_day", "mails_per_hour"):
        assert f"# {key} = " in settings_mod.sample()


# -- 8: observers cannot be mail-bombed ---------------------------------------------------------------

def test_forged_status_mails_from_an_observers_address_bring_at_most_the_daily_limit(make_service):
    svc = make_service(engine=fake_engine, observer_status_per_day=3)
    g = newgame.create(svc, {**game_config(moderator=MODERATOR), "observers": [{"name": "wanda",
                                                                                 "email": "wanda@example.org"}]})
    since = last_id(svc)
    results = [handle(svc, mail(["status"], sender="wanda@example.org", game=g)) for _ in range(10)]
    got = to(svc, "wanda@example.org", since)
    assert [r["kind"] for r, _ in got] == ["report"] * 3 + ["notice"]  # the fourth is told why, once
    assert "3 times in the last 24 hours" in got[-1][1] and "observer_status_per_day" in got[-1][1]
    assert len(svc.store.inbox_rows()) >= 10 and all(r.inbox_id for r in results)  # every mail kept
    [notice] = told(svc)
    assert "wanda@example.org" in notice["text"] and notice["count"] == 7


# -- 4, 9: mails per seat per hour -------------------------------------------------------------------

def test_a_seat_past_its_hourly_limit_is_kept_not_played_and_told_once(make_service):
    svc = make_service(engine=fake_engine, mails_per_hour=3)
    g = three(svc)
    player, line = legal(svc, g)
    since = last_id(svc)
    for _ in range(3):
        assert write(svc, g, player, ["status"]).status == "applied"
    moves = played(svc, g)
    over = [write(svc, g, player, [line]) for _ in range(4)]
    assert [r.status for r in over] == ["refused"] * 4 and played(svc, g) == moves
    assert all(svc.store.inbox(r.inbox_id)["outcome"].startswith("refused: over the limit") for r in over)
    kinds = [r["kind"] for r, _ in to(svc, f"{player}@example.org", since)]
    assert kinds == ["report"] * 3 + ["notice"]  # the first mail over the limit is answered, no more
    notice = to(svc, f"{player}@example.org", since)[-1][1]
    assert "3 mails in the last hour" in notice and "mails_per_hour" in notice
    assert len(told(svc)) == 1
    svc.store.clock.t += timedelta(hours=1)
    assert write(svc, g, player, [line]).status == "applied" and played(svc, g) == moves + 1


def test_a_stranger_is_answered_at_most_stranger_replies_a_day_and_the_moderator_told_once(make_service):
    svc = make_service(engine=fake_engine, moderator=MODERATOR)
    three(svc)
    since = last_id(svc)
    for _ in range(6):
        handle(svc, mail(["hello"], sender="eve@example.net"))
    assert len(to(svc, "eve@example.net", since)) == 3
    [notice] = told(svc, "stranger")  # one line, counted
    assert "eve@example.net" in notice["text"] and notice["count"] == 6


# -- 6: no mail loops ------------------------------------------------------------------------------

AUTOMATIC = {"auto-replied": {"Auto-Submitted": "auto-replied"}, "auto-generated": {"Auto-Submitted": "auto-generated"},
             "bulk": {"Precedence": "bulk"}, "junk": {"Precedence": "junk"}, "list": {"Precedence": "list"},
             "list-id": {"List-Id": "<talisman.lists.example.org>"}, "x-autoreply": {"X-Autoreply": "yes"}}


@pytest.mark.parametrize("case", AUTOMATIC)
def test_an_automatic_mail_from_a_seat_is_kept_never_answered_and_told_once(make_service, case):
    """A vacation responder replying to a report (its token in To, the player's From) got a
    12 KB error report each time: a loop with any responder that ignores Auto-Submitted."""
    svc = make_service(engine=fake_engine)
    g = three(svc)
    player, line = legal(svc, g)
    since, moves = last_id(svc), played(svc, g)
    result = write(svc, g, player, [line, "I am away until Monday."], headers=AUTOMATIC[case])
    assert result.status == "ignored" and played(svc, g) == moves
    assert mails(svc, since) == []  # not answered
    assert svc.store.inbox(result.inbox_id)["outcome"].startswith("ignored: an automatic mail")
    write(svc, g, player, ["status"])
    [(_, report)] = to(svc, f"{player}@example.org", since)
    assert "An automatic mail" in report and "nothing in it was played" in report
    since = last_id(svc)
    write(svc, g, player, ["status"])
    [(_, again)] = to(svc, f"{player}@example.org", since)
    assert "An automatic mail" not in again  # once


@pytest.mark.parametrize("sender", ["mailer-daemon@example.org", "postmaster@example.org", "noreply@example.org",
                                    "no-reply@example.org", "MAILER-DAEMON@mx.example.org"])
def test_mail_from_a_machine_is_never_answered(make_service, sender):
    svc = make_service(engine=fake_engine)
    g = three(svc)
    since = last_id(svc)
    result = handle(svc, mail(["left"], sender=sender, game=g))
    assert result.status in ("ignored", "refused") and mails(svc, since) == []


def test_mail_the_service_sends_says_auto_generated_or_auto_replied(make_service):
    svc = make_service(engine=fake_engine)
    g = three(svc)
    player, line = legal(svc, g)
    write(svc, g, player, [line])
    write(svc, g, player, ["no-such-answer"])
    handle(svc, mail(["hello"], sender="eve@example.net"))
    replies, sent = {"receipt", "error", "stranger"}, set()
    for row in svc.store.outbox_rows():
        msg = email.message_from_bytes(outbox.wire(svc, svc.store.outbox_mail(row["id"])), policy=policy.default)
        want = "auto-replied" if row["kind"] in replies else "auto-generated"
        assert msg["Auto-Submitted"] == want, row["kind"]
        sent.add(row["kind"])
    assert replies <= sent and {"welcome", "report"} <= sent


# -- 7: threads keep their meaning -------------------------------------------------------------------

def test_a_one_word_reply_to_a_press_message_is_not_played(make_service):
    svc = make_service(engine=fake_engine)
    g = three(svc)
    player, line = legal(svc, g)
    other = next(n for n, _ in PLAYERS3 if n != player)
    since = last_id(svc)
    write(svc, g, other, ["to: all", "shall we gang up on the Dragon?"])
    [(press, _)] = to(svc, f"{player}@example.org", since, "press")
    key = line.split(": ")[1]
    since, moves = last_id(svc), played(svc, g)
    root = reports.thread_root(svc, games.get(svc, g), player)
    result = write(svc, g, player, [key], headers={"In-Reply-To": press["message_id"],
                                                   "References": f"{root} {press['message_id']}"})
    assert played(svc, g) == moves and result.status == "rejected"
    [(row, note)] = to(svc, f"{player}@example.org", since)
    assert "replies to a message from another player" in note and "nothing in it was played" in note
    assert "reply to your latest report" in note
    assert write(svc, g, player, [line]).status == "applied"  # the same answer, not in that thread, plays


def test_a_reply_to_the_moderators_digest_is_not_played(make_service):
    """The moderator who also plays replies to a digest with their token: no answer is played."""
    from pbem.outbound import notices
    svc = make_service(engine=fake_engine)
    g = newgame.create(svc, game_config(moderator="alice@example.org"))
    notices.add(svc, "stuck", "The game waits for you.", key="test", game=g)
    assert notices.send_due(svc) == 1
    [digest] = [r for r in svc.store.outbox_rows() if r["kind"] == "digest"]
    player, line = legal(svc, g)
    since, moves = last_id(svc), played(svc, g)
    result = handle(svc, mail([line], sender=f"{player}@example.org", tok=token(svc, g, player), game=g,
                              headers={"In-Reply-To": digest["message_id"]}))
    assert result.status == "rejected" and played(svc, g) == moves
    assert "replies to the moderator's digest" in to(svc, f"{player}@example.org", since)[0][1]


# -- 5: terminal output is inert ----------------------------------------------------------------------

HOSTILE_NAME = "[bold red]x[/] \x1b]0;pwned\x07\x1b[2J[/link].toml"


def hostile_attachment(tok: str, sender: str) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"] = sender, f"talisman+{tok}@example.org"
    msg["Subject"], msg["Message-ID"] = "Re: [autumn] \x1b[31mred", "<hostile@example.org>"
    msg.set_content("see attached\n")
    msg.add_attachment(b"answers = [", maintype="application", subtype="toml", filename=HOSTILE_NAME)
    return bytes(msg)


def test_outside_text_reaches_the_terminal_inert(tmp_path, monkeypatch):
    """An attachment name with rich markup crashed `inbox list`, and escapes went through raw."""
    from test_cli import CONFIG

    from pbem.cli import common, main
    home = tmp_path / "var"

    def run(*args, code=None, tty=False):
        monkeypatch.setattr(common, "terminal", lambda: tty)
        result = CliRunner().invoke(main, ["--home", str(home), *map(str, args)])
        assert code is None or result.exit_code == code, (result.output, result.exception)
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        return result.stdout + result.stderr

    run("init", code=0)
    (tmp_path / "game.toml").write_text(CONFIG)
    run("game", "new", tmp_path / "game.toml", code=0)
    from pbem.core.service import open_service
    svc = open_service(home)
    try:
        tok = token(svc, "autumn", "alice")
    finally:
        svc.store.close()
    eml = tmp_path / "hostile.eml"
    eml.write_bytes(hostile_attachment(tok, "alice@example.org"))
    outputs = [run("ingest", eml), run("inbox", "list", tty=True), run("inbox", "list"), run("inbox", "list", "--json"),
               run("outbox", "list", tty=True), run("outbox", "list", "--json")]
    for out in outputs:
        assert "\x1b]0;pwned" not in out and "\x1b[2J" not in out and "\x07" not in out
    assert "received_at" in outputs[1] and "┃ id ┃ status" in outputs[4]  # the tables were drawn, no crash
    for out in (outputs[0], outputs[2]):  # the outcome names the file: as written, its escapes as text
        assert "[bold red]x[/] " in out and "]0;pwned" in out and "[2J[/link].toml" in out


def test_table_and_json_escape_every_control_character(capsys, monkeypatch):
    from pbem.cli import common
    row = {"a": "x\x1b[31m\x9b2J\x7f\u202e", "b": "[red]not markup[/red] [/]"}
    for tty in (True, False):
        monkeypatch.setattr(common, "terminal", lambda tty=tty: tty)
        common.table([row], ["a", "b"])
        out = capsys.readouterr().out
        for raw in ("\x1b", "\x9b", "\x7f", "\u202e"):
            assert raw not in out
        assert "[red]not markup[/red]" in out
    common.echo_json([row])
    out = capsys.readouterr().out
    assert not any(c in out for c in ("\x1b", "\x9b", "\x7f", "\u202e"))


# -- 32: a mail is parsed once ---------------------------------------------------------------------

def test_a_mail_is_parsed_once_from_storing_to_answering(make_service, monkeypatch):
    svc = make_service(engine=fake_engine)
    g = three(svc)
    player, line = legal(svc, g)
    raw = mail([line, "to: all", "hello"], sender=f"{player}@example.org", tok=token(svc, g, player), game=g)
    parses = []
    original = email.parser.Parser.parse
    monkeypatch.setattr(email.parser.Parser, "parse", lambda self, *a, **k: parses.append(1) or original(self, *a, **k))
    assert handle(svc, raw).status == "applied"
    assert len(parses) == 1


def test_bounces_to_the_verp_address_are_still_read(fake_svc):
    """The loop guard must not swallow delivery reports (From MAILER-DAEMON, Auto-Submitted)."""
    from test_smtp import bounce_of, sent_report
    g = newgame.create(fake_svc, game_config(moderator=MODERATOR))
    result = handle(fake_svc, bounce_of(fake_svc, sent_report(fake_svc, "bob")))
    assert result.status == "bounce" and fake_svc.store.player(g, "bob")["undeliverable"]


def test_a_reply_to_a_reminder_answers_the_question_it_reminds_of_only(make_service):
    """A reminder shows the question and its reply lines, so a reply to it answers that
    question (it carries it, as a report does); once the question has closed it plays nothing."""
    from conftest import StillClock
    from test_deadlines import PACE
    clk = StillClock()
    svc = make_service(engine=fake_engine, clock=clk)
    g = newgame.create(svc, game_config(pace=PACE, moderator=MODERATOR))
    from pbem.pace import deadlines
    clk.at(hours=24)
    deadlines.tick(svc)
    [reminder] = [r for r in svc.store.outbox_rows() if r["kind"] == "reminder"]
    player = reminder["player"]
    moves = played(svc, g)
    answer = write(svc, g, player, ["left"], headers={"In-Reply-To": reminder["message_id"]})
    assert answer.status == "applied" and played(svc, g) == moves + 1
    since = last_id(svc)
    again = write(svc, g, player, ["right"], headers={"In-Reply-To": reminder["message_id"]})
    assert again.status == "rejected" and played(svc, g) == moves + 1
    assert "has closed since" in to(svc, f"{player}@example.org", since)[0][1]

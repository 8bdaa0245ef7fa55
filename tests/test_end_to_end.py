"""A whole game by mail over real servers on loopback: players read their reports from an
SMTP server (aiosmtpd) and reply into the game's IMAP mailbox (Dovecot), as a mail client
would, with nothing but what the mail itself carries: the Reply-To (the token) and the lines
the report says to reply with. `pbem serve --once` does the rest, with the real engine."""
import asyncio
import re
from email.message import EmailMessage

import pytest
from aiosmtpd.controller import Controller
from conftest import game_config
from test_imap import DOVECOT, Dovecot  # noqa: F401  (the skip reason and the server)
from test_smtp import Handler, free_port  # noqa: F401

from pbem import daemon
from pbem.base import settings as settings_mod
from pbem.moderate import newgame

pytestmark = pytest.mark.skipif(DOVECOT is None, reason="needs Dovecot (apt-get install dovecot-imapd)")
REPLY_LINE = re.compile(r"^\s+(\d+: [a-z0-9][a-z0-9-]*)\s*$", re.M)


def reply_to(report: EmailMessage, n: int) -> bytes | None:
    """What the player sends back: the first line the report offers, to its Reply-To."""
    text = report.get_body(("plain",)).get_content()
    lines = REPLY_LINE.findall(text.split("Reply with", 1)[-1]) if "Reply with" in text else []
    if not lines:
        return None
    msg = EmailMessage()
    msg["From"] = str(report["To"])
    msg["To"] = str(report["Reply-To"])
    msg["Subject"] = f"Re: {report['Subject']}"
    msg["Message-ID"] = f"<e2e-{n}@example.org>"
    msg["In-Reply-To"] = report["Message-ID"]
    msg.set_content(f"{lines[0]}\n\nOn a day, Talisman wrote:\n> {text.splitlines()[0]}\n")
    return bytes(msg)


def test_a_game_runs_over_real_smtp_and_imap(make_service):
    dovecot = Dovecot()
    dovecot.start()
    handler = Handler()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        smtp = settings_mod.SmtpSettings(host="127.0.0.1", port=controller.port, starttls=False, timeout=5)
        svc = make_service(smtp=smtp, imap=dovecot.settings("user0"))
        game = newgame.create(svc, game_config(name="e2e", seed="e2e-seed"))
        answered, seen = 0, 0
        for n in range(30):
            asyncio.run(daemon.serve(svc, once=True))  # read the mailbox, process, send
            new, seen = handler.received[seen:], len(handler.received)
            asked = [m for m in new if "Reply with" in m.get_body(("plain",)).get_content()]
            if not asked:
                break
            with dovecot.box("user0") as box:
                box.append(reply_to(asked[-1], n), "INBOX")
            answered += 1
        asyncio.run(daemon.serve(svc, once=True))
        assert answered == 30  # the game went on as long as we played
        assert len(svc.store.moves(game)) == answered  # every reply played once, in the log
        assert all(r["status"] == "processed" for r in svc.store.inbox_rows())
        rows = svc.store.outbox_rows()
        got = [m["Message-ID"] for m in handler.received]
        assert rows and all(r["status"] == "sent" for r in rows)
        assert sorted(got) == sorted(r["message_id"] for r in rows)  # each mail arrived exactly once
    finally:
        controller.stop()
        dovecot.close()

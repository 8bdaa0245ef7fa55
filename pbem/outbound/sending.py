"""Sending what the outbox holds: `send_due` claims each due row and hands it to a sender
(`FileSender` writes home/outbox/<id>.eml, the embedded default; `SmtpSender` speaks SMTP with
aiosmtplib); `verdict` says which failures are final, `backoff` when to try again; a mail given
up is told to the moderator (pbem/outbound/notices.py) or marks its player undeliverable
(pbem/outbound/bounces.py). Kept apart from the queue (pbem/outbound/outbox.py), which the
reports write to, so that neither imports the other's importers.
"""
from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import socket
import threading
from datetime import datetime, timedelta
from email.utils import parseaddr
from pathlib import Path
from typing import TYPE_CHECKING

import aiosmtplib

from pbem.base import log, tokens
from pbem.outbound import bounces, notices
from pbem.outbound.outbox import rendered, wire
from pbem.store import iso

if TYPE_CHECKING:
    from pbem.core.service import Service


# -- senders ---------------------------------------------------------------------------

def eml_name(outbox_id: int) -> str:
    """The file FileSender writes an outbox row to, in the outbox folder."""
    return f"{outbox_id:06d}.eml"


class FileSender:
    """Writes each mail to <folder>/<id>.eml (write to a temporary name, then rename)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    async def send(self, row: dict, raw: bytes) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        final = self.folder / eml_name(row["id"])
        tmp = self.folder / f".{row['id']:06d}.eml.tmp"
        tmp.write_bytes(raw)
        os.replace(tmp, final)  # the same row sent again overwrites: one file per mail

    async def close(self) -> None:
        pass


class SmtpSender:
    """One SMTP connection for a batch of mails (aiosmtplib): STARTTLS or TLS, login."""

    def __init__(self, smtp):
        self.cfg = smtp
        self.client: aiosmtplib.SMTP | None = None

    async def _connect(self) -> aiosmtplib.SMTP:
        client = aiosmtplib.SMTP(hostname=self.cfg.host, port=self.cfg.port, use_tls=self.cfg.tls,
                                 start_tls=self.cfg.starttls and not self.cfg.tls, timeout=self.cfg.timeout,
                                 cert_bundle=self.cfg.cert_bundle)
        await client.connect()
        if self.cfg.username:
            await client.login(self.cfg.username, self.cfg.password or "")
        return client

    async def send(self, row: dict, raw: bytes) -> None:
        reused = self.client is not None and self.client.is_connected
        if not reused:
            self.client = await self._connect()
        assert self.client is not None
        sender = row.get("return_path") or parseaddr(json.loads(row["headers"]).get("From", ""))[1]
        try:  # the bytes as written (7-bit clean: any server takes them), not serialised again
            await self.client.sendmail(sender, [row["to_addr"]], raw)
        except aiosmtplib.SMTPServerDisconnected:
            if not reused:
                raise
            # a kept connection the server closed while idle: once more on a new one
            self.client = await self._connect()
            await self.client.sendmail(sender, [row["to_addr"]], raw)

    async def close(self) -> None:
        if self.client is not None and self.client.is_connected:
            try:
                await self.client.quit()
            except (aiosmtplib.SMTPException, OSError):
                pass
        self.client = None


def sender_for(settings):
    return SmtpSender(settings.smtp) if settings.smtp else FileSender(settings.outbox_path)


def backoff(attempts: int) -> timedelta:
    """1, 2, 4 ... minutes (at most 6 hours), each stretched by up to a fifth at random, so
    mails that failed together do not all come back at once."""
    return timedelta(minutes=min(2 ** attempts, 360) * random.uniform(1.0, 1.2))


def verdict(exc: BaseException) -> tuple[bool, bool]:
    """(permanent, about the recipient) of a failed send. Only a 5xx answer to RCPT or DATA
    is final; a 4xx, a lost or timed-out link (after DATA the mail may have gone: the row's
    fixed Message-ID makes the retry the same mail) and the server's refusal of our own
    login or sender address are tried again later."""
    if isinstance(exc, aiosmtplib.SMTPRecipientsRefused):
        codes = [r.code for r in exc.recipients]
        return bool(codes) and all(500 <= c < 600 for c in codes), True
    if isinstance(exc, (aiosmtplib.SMTPRecipientRefused, aiosmtplib.SMTPDataError)):
        return 500 <= exc.code < 600, True
    return False, False


SEND_ERRORS = (OSError, aiosmtplib.SMTPException, asyncio.TimeoutError)
OWNER = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"  # this process, as a claimer of rows


def return_path(svc: Service, row: dict) -> str:
    """The envelope sender of a mail (VERP): the game address with a tag naming the row,
    keyed so no one who has not seen the mail can make one. A bounce is believed only when it
    comes back to such an address (pbem/outbound/bounces.py)."""
    sender = parseaddr(json.loads(row["headers"]).get("From", ""))[1] or svc.settings.address
    local, _, domain = sender.partition("@")
    return f"{local.split('+')[0]}+{tokens.bounce_tag(svc.key, row['id'], row['message_id'])}@{domain}"


def lease_seconds(svc: Service) -> float:
    """How long a claimed row is this sender's: longer than one send can take (a connection
    and a mail, each within the SMTP timeout)."""
    timeout = svc.settings.smtp.timeout if svc.settings.smtp else 0.0
    return max(svc.settings.send_lease_seconds, 2 * timeout + 1.0)


async def send_due(svc: Service, sender=None, stop: asyncio.Event | threading.Event | None = None) -> int:
    """Send every due outbox row; returns how many went. Each row is claimed first (with a
    lease: Store.claim_outbox), so any number of daemons send each mail once. A failure is
    kept on the row and tried again later with backoff; a final one (a 5xx, or a mail that
    waited `send_for_hours`) marks the row failed and, when it was about the recipient, the
    player undeliverable. When the link or the server fails, the round ends. A fault of ours
    with one mail (its template, building or handing it over, marking it sent) goes on its row,
    which is due again at the next round, and the round goes on with the others.

    At least once at the edge: a sender killed after the server took a mail and before the
    row is marked sent leaves the row claimed; once the lease runs out it is sent again, once,
    under the same Message-ID, by which the receiving side can drop the second copy."""
    sender = sender or sender_for(svc.settings)
    logger, sent = log.get(), 0
    skipped: list[int] = []  # rows claimed and put back this round
    try:
        while not (stop is not None and stop.is_set()):
            row = svc.store.claim_outbox(OWNER, lease_seconds(svc), skip=skipped)
            if row is None:
                break
            try:
                row = rendered(svc, row)
            except Exception as e:  # noqa: BLE001  (logged by _put_back) a template fault: this mail waits
                _put_back(svc, row, "rendering failed", e, skipped)
                continue
            try:
                await sender.send({**row, "return_path": return_path(svc, row)}, wire(svc, row))
            except Exception as e:  # noqa: BLE001  (logged by _put_back or _failed)
                if not isinstance(e, SEND_ERRORS):  # a fault of ours with this mail, not the link's: as above
                    await sender.close()  # the link may be in the middle of a mail
                    _put_back(svc, row, "sending failed", e, skipped)
                    continue
                await sender.close()  # a broken link is not reused
                _failed(svc, row, e)
                if not verdict(e)[1]:  # the link or the server: the round ends, the rest fails with it, untried
                    for other in svc.store.outbox_due():
                        _failed(svc, other, e)
                    break
                continue
            try:
                with svc.store.transaction():
                    svc.store.outbox_sent(row["id"], row["text"], row["html"])  # the rendered text stays
            except Exception as e:  # noqa: BLE001  it went, unmarked: it goes again (the same Message-ID)
                _put_back(svc, row, "sent, but not marked sent", e, skipped)
                continue
            sent += 1
            logger.info("sent", outbox=row["id"], kind=row["kind"], game=row["game"], to=row["to_addr"])
    finally:
        await sender.close()
    waiting(svc)
    return sent


def _put_back(svc: Service, row: dict, what: str, exc: Exception, skipped: list[int]) -> None:
    """A fault of ours with one mail (its template, its building, marking it sent): the reason
    goes on the row (so `serve --once` reports it), the row is released and due again at once,
    for the next round; this round goes on with the others."""
    log.get().exception(what, outbox=row["id"], kind=row["kind"])
    skipped.append(row["id"])
    with svc.store.transaction():
        svc.store.outbox_attempt_failed(row["id"], log.scrub(f"{what}: {type(exc).__name__}: {exc}"),
                                        svc.store.now(), owner=OWNER)


def waiting(svc: Service) -> dict:
    """What still waits: logged for `serve`; one notice to the moderator when the oldest mail
    has waited `outbox_alert_hours` (once per oldest mail: one per outage)."""
    w = svc.store.outbox_waiting()
    if not w["n"]:
        return w
    log.get().info("mail waiting", mails=w["n"], oldest=w["oldest"], next_try=w["next_try"],
                   last_error=w["last_error"])
    if w["oldest"] <= iso(svc.now() - timedelta(hours=svc.settings.outbox_alert_hours)):
        with svc.store.transaction():
            notices.add(svc, "waiting", (
                f"{w['n']} mail(s) wait to be sent; the oldest since {w['oldest']}. "
                f"The last error: {w['last_error'] or 'none (not tried yet)'}; the next try at {w['next_try']}. "
                f"Sending goes on trying for {svc.settings.send_for_hours:g} hours per mail; "
                "`pbem outbox list` shows each mail and why it waits."), key=w["oldest_id"])
    return w


def _failed(svc: Service, row: dict, exc: BaseException) -> None:
    permanent, recipient = verdict(exc)
    waited = svc.now() - parsedate(row["created_at"])
    final = permanent or (row["attempts"] + 1 >= svc.settings.send_attempts
                          and waited >= timedelta(hours=svc.settings.send_for_hours))
    error = log.scrub(f"{type(exc).__name__}: {exc}")
    with svc.store.transaction():
        if not svc.store.outbox_attempt_failed(row["id"], error, None if final else
                                               iso(svc.now() + backoff(row["attempts"])), OWNER):
            return  # another sender holds it now
        if final and recipient and row["game"] and row["player"]:
            bounces.mark_undeliverable(svc, row["game"], row["player"], error)
        elif final and row["kind"] not in ("notice", "digest"):  # no notices about notices
            notices.add(svc, "gave-up", (
                f"Outbox mail {row['id']} ({row['kind']}, {row['subject']}) to {row['to_addr']} could not be sent "
                f"since {row['created_at']}: {error}. `pbem outbox retry` queues it again."), key=row["id"],
                game=row["game"])
    log.get().warning("send failed", outbox=row["id"], error=error, final=final)


def parsedate(text: str) -> datetime:
    return datetime.fromisoformat(text)

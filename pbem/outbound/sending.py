"""Sending what the outbox holds: `send_due` claims each due row and hands it to a sender
(`FileSender` writes home/outbox/<id>.eml, the embedded default; `SmtpSender` speaks SMTP with
aiosmtplib); `verdict` says which failures are final, `backoff` when to try again; a mail given
up is told to the moderator (pbem/outbound/notices.py) or marks its player undeliverable
(pbem/outbound/bounces.py). Kept apart from the queue (pbem/outbound/outbox.py), which the
reports write to, so that neither imports the other's importers.
"""
from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import random
import secrets
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from email.utils import parseaddr
from pathlib import Path
from time import monotonic
from typing import TYPE_CHECKING, NamedTuple

import aiosmtplib

from pbem.base import log, tokens
from pbem.outbound import bounces, notices
from pbem.outbound.outbox import headers_of, rendered, wire
from pbem.store import iso

if TYPE_CHECKING:
    from pbem.core.service import Service


# -- senders ---------------------------------------------------------------------------

def eml_name(outbox_id: int) -> str:
    """The file FileSender writes an outbox row to, in the outbox folder."""
    return f"{outbox_id:06d}.eml"


class FileSender:
    """Writes each mail to <folder>/<id>.eml, whole or not at all: the file has no name until
    its bytes are written (Linux's O_TMPFILE, then linked under its name), so a reader of the
    folder never sees half a mail, and no temporary file is written and renamed for each. The
    same row sent again (a lease that ran out) replaces its file; where O_TMPFILE is not
    supported, every mail takes that way: a temporary name, then a rename.

    A file written is not yet durable: `sync` makes every file written since the last one
    durable (each file's data, then the folder's names, one fsync for the folder), and
    `send_due` calls it before it marks those mails sent, once a batch -- a power cut cannot
    leave a row marked sent whose file is empty or missing."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self._dir: int | None = None  # the folder, opened once per sender
        self._unsynced: list[int] = []  # the open files written since the last sync

    def _folder(self) -> int:
        if self._dir is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._dir = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY)
        return self._dir

    async def send(self, row: dict, raw: bytes) -> None:
        folder, name = self._folder(), eml_name(row["id"])
        if _TMPFILE:
            try:
                fd = os.open(".", _TMPFILE | os.O_WRONLY, 0o600, dir_fd=folder)
            except OSError:  # not on this file system
                pass
            else:
                try:
                    _write_all(fd, raw)
                    # linkat(AT_SYMLINK_FOLLOW) of the open file: os.link without dir fds would not follow it
                    os.link(f"/proc/self/fd/{fd}", name, src_dir_fd=folder, dst_dir_fd=folder)
                except OSError:  # sent before (FileExistsError: replaced below, whole), or no /proc
                    os.close(fd)
                else:
                    self._unsynced.append(fd)
                    return
        tmp = f".{name}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600, dir_fd=folder)
        try:
            _write_all(fd, raw)
            os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)  # the same row sent again overwrites
        except BaseException:
            os.close(fd)
            raise
        self._unsynced.append(fd)

    async def sync(self) -> None:
        """Every file written since the last sync made durable: its data (fdatasync), then the
        folder's entries (one fsync of the folder). OSError when the disk refuses. A batch's
        files are synced side by side: the file system commits them together, in about the time
        of one (3.7 ms each, one after another, here), for the same CPU. The first in this thread,
        the others in a kept pool, waited for here: an executor of the event loop cost 150-250 us
        more CPU a batch (its futures and wake-ups), and the sender blocks while it writes anyway."""
        try:
            fds = self._unsynced
            others = [_syncing().submit(os.fdatasync, fd) for fd in fds[1:]]
            failed: OSError | None = None
            try:
                if fds:
                    os.fdatasync(fds[0])
            except OSError as e:
                failed = e
            for done in others:  # every one finished before any is closed
                try:
                    done.result()
                except OSError as e:
                    failed = failed or e
            if failed is not None:
                raise failed
            if fds:
                os.fsync(self._folder())
        finally:
            self._drop()

    def _drop(self) -> None:
        for fd in self._unsynced:
            os.close(fd)
        self._unsynced.clear()

    async def close(self) -> None:
        self._drop()  # written, never synced: their rows are not marked sent, so they go again
        if self._dir is not None:
            os.close(self._dir)
            self._dir = None


_TMPFILE = getattr(os, "O_TMPFILE", 0)
_pool: ThreadPoolExecutor | None = None


def _syncing() -> ThreadPoolExecutor:
    """The threads that fdatasync a batch's files beside the sender's own, made at first use."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=BATCH - 1, thread_name_prefix="eml-sync")
    return _pool


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


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
        sender = row.get("return_path") or parseaddr(headers_of(row).get("From", ""))[1]
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


@functools.lru_cache(maxsize=256)
def _address(header: str) -> str:
    return parseaddr(header)[1]


def return_path(svc: Service, row: dict, headers: dict[str, str] | None = None) -> str:
    """The envelope sender of a mail (VERP): the game address with a tag naming the row,
    keyed so no one who has not seen the mail can make one. A bounce is believed only when it
    comes back to such an address (pbem/outbound/bounces.py). `headers`: the row's, if read."""
    headers = headers_of(row) if headers is None else headers
    sender = _address(headers.get("From", "")) or svc.settings.address
    local, _, domain = sender.partition("@")
    return f"{local.split('+')[0]}+{tokens.bounce_tag(svc.key, row['id'], row['message_id'])}@{domain}"


def one_send_seconds(svc: Service) -> float:
    """The longest one send can take: a connection and a mail, each within the SMTP timeout."""
    timeout = svc.settings.smtp.timeout if svc.settings.smtp else 0.0
    return 2 * timeout + 1.0


def lease_seconds(svc: Service) -> float:
    """How long a claimed row is this sender's: longer than one send can take."""
    return max(svc.settings.send_lease_seconds, one_send_seconds(svc))


BATCH = 20  # rows claimed at once (one commit); another daemon takes the next ones meanwhile


class Unsent(NamedTuple):
    """A mail this round tried and could not send: failed for good, or waiting for a retry."""
    id: int
    kind: str
    to_addr: str
    final: bool
    error: str


async def send_due(svc: Service, sender=None, stop: asyncio.Event | threading.Event | None = None,
                   unsent: list[Unsent] | None = None) -> int:
    """Send every due outbox row; returns how many went; `unsent` gathers the mails it tried
    and could not send (`serve --once` names them: it reads no other row). Rows are claimed first, a batch at
    a time (with a lease: Store.claim_outbox_rows), so any number of daemons send each mail
    once. A failure is kept on the row and tried again later with backoff; a final one (a
    5xx, or a mail that waited `send_for_hours`) marks the row failed and, when it was about
    the recipient, the player undeliverable. When the link or the server fails, the round
    ends. A fault of ours with one mail (its template, building or handing it over, marking it
    sent) goes on its row, which is due again at the next round, and the round goes on with
    the others.

    The mails of one game that follow each other in a batch (a move's reports) read their seat
    rows and deadlines once (Store.read_once: one statement, a round trip on PostgreSQL, for all
    of them, as the seats were when the first of them went), not once a mail.

    A batch is one durable commit: its claim and each mail's mark "sent" are commits of their
    own (so a sender killed loses none of them), made durable by one fsync when the batch is
    done (`Store.group_commit`), not one each. A batch claims no more rows than its lease
    covers at one send's longest; a mail that could outlast the claim is given back unsent.
    A sender whose mails are durable only once it syncs (`FileSender`: the .eml files) has its
    batch's mails marked after its `sync`, never before, all in one statement and one commit
    (Store.outbox_sent_rows): a power cut cannot keep a mark whose file it lost, and a kill
    before the marks writes the batch's files again, in place.

    At least once at the edge: a sender killed after the server took a mail and before the
    row is marked sent leaves the row claimed; once the lease runs out it is sent again, once,
    under the same Message-ID, by which the receiving side can drop the second copy. (A power
    cut may also undo the marks of the batch it cut: its mails go again, the same way.)

    `sender`: one kept by the caller for its next rounds (a daemon: one SMTP connection, TLS
    and login while it has mail to send, not one a round); it stays open after a round that
    sent, and is closed after one that sent nothing (idle: no connection held) or whose link
    failed (the next round connects again). Without it, one is made and closed for this round."""
    own = sender is None
    sender = sender or sender_for(svc.settings)
    logger, sent = log.get(), 0
    skipped: list[int] = []  # rows claimed and put back this round
    unsent = [] if unsent is None else unsent
    frames: dict[int, str] = {}  # the report frames read this round: a move's readers share one
    held: list[dict] | None = [] if hasattr(sender, "sync") else None  # written, to mark once synced
    lease, one = lease_seconds(svc), one_send_seconds(svc)
    size = max(1, min(BATCH, int(lease // one)))
    more, failed, kept = True, False, False
    try:
        while more and not _stopped(stop):
            with svc.store.group_commit(), contextlib.ExitStack() as seats:
                batch = svc.store.claim_outbox_rows(OWNER, lease, size, skip=skipped)
                more = len(batch) == size  # fewer: none was left due and free (what comes later, the next round)
                last_start = monotonic() + lease - one  # a send begun later might outlast the claim
                game = None
                for n, row in enumerate(batch):
                    if row["game"] != game:  # a move's mails come together: their seats read once for them
                        seats.close()
                        game = row["game"]
                        if game:
                            seats.enter_context(svc.store.read_once(game))
                    if n and (_stopped(stop) or monotonic() > last_start):
                        with svc.store.transaction():
                            svc.store.release_outbox(OWNER, [r["id"] for r in batch[n:]])
                        break
                    went = await _send(svc, sender, row, skipped, unsent, logger, frames, held)
                    if went is None:  # the link or the server failed: the round ends
                        more, failed = False, True
                        break
                    sent += went
                marked = await _settle(svc, sender, held, skipped, unsent, logger)
                if marked is None:  # the disk refused to make them durable: the round ends
                    more, failed = False, True
                sent += marked or 0
        kept = not own and not failed and sent > 0
    finally:
        if not kept:  # this round's own, idle, its link failed, or it raised
            await sender.close()
    waiting(svc)
    return sent


def _stopped(stop: asyncio.Event | threading.Event | None) -> bool:
    return stop is not None and stop.is_set()


async def _send(svc: Service, sender, row: dict, skipped: list[int], unsent: list[Unsent], logger,
                frames: dict[int, str], held: list[dict] | None = None) -> bool | None:
    """One claimed row rendered, sent and marked sent: True if it went, False if it waits
    (put back, or failed for now, or `held`: written, to be marked once the sender has synced),
    None if the link failed (every due row failed with it, but those held)."""
    try:
        row = rendered(svc, row, frames)
    except Exception as e:  # noqa: BLE001  (logged by _put_back) a template fault: this mail waits
        _put_back(svc, row, "rendering failed", e, skipped, unsent)
        return False
    try:
        headers = headers_of(row)  # read once for the envelope and the mail
        await sender.send({**row, "return_path": return_path(svc, row, headers)}, wire(svc, row, headers))
    except Exception as e:  # noqa: BLE001  (logged by _put_back or _failed)
        if held is None:  # a link in the middle of a mail, or broken, is not reused (files: no link;
            await sender.close()  # those written stay open for the batch's sync)
        if not isinstance(e, SEND_ERRORS):  # a fault of ours with this mail, not the link's: as above
            _put_back(svc, row, "sending failed", e, skipped, unsent)
            return False
        _failed(svc, row, e, unsent)
        if not verdict(e)[1]:  # the link or the server: the rest fails with it, untried
            written = {r["id"] for r in held or ()}
            for other in svc.store.outbox_due():
                if other["id"] not in written:
                    _failed(svc, other, e, unsent)
            return None
        return False
    if held is not None:
        held.append(row)
        return False
    return _mark(svc, [row], skipped, unsent, logger) == 1


async def _settle(svc: Service, sender, held: list[dict] | None, skipped: list[int], unsent: list[Unsent],
                  logger) -> int | None:
    """The mails `held` (written by a sender that syncs) made durable, then marked sent: how
    many were; None when the sync failed (each of them failed for now, to go again)."""
    if not held:
        return 0
    rows = list(held)
    held.clear()
    try:
        await sender.sync()
    except SEND_ERRORS as e:
        for row in rows:
            _failed(svc, row, e, unsent)
        return None
    return _mark(svc, rows, skipped, unsent, logger)  # all at once: the batch's files are durable together


def _mark(svc: Service, rows: list[dict], skipped: list[int], unsent: list[Unsent], logger) -> int:
    """Mails that went marked sent, with their rendered text (the context goes), in one statement,
    its own commit (no BEGIN and COMMIT around it): how many were marked."""
    try:
        marked = svc.store.outbox_sent_rows([(row["id"], row["text"], row["html"]) for row in rows], OWNER)
    except Exception as e:  # noqa: BLE001  they went, unmarked: they go again (the same Message-IDs, in place)
        for row in rows:
            _put_back(svc, row, "sent, but not marked sent", e, skipped, unsent)
        return 0
    for row in rows:
        if row["id"] not in marked:  # our lease ran out and another sender claimed it: theirs to send and mark
            logger.warning("sent, but another sender holds the mail now", outbox=row["id"], kind=row["kind"])
        else:
            logger.info("sent", outbox=row["id"], kind=row["kind"], game=row["game"], to=row["to_addr"])
    return len(marked)


def _put_back(svc: Service, row: dict, what: str, exc: Exception, skipped: list[int], unsent: list[Unsent]) -> None:
    """A fault of ours with one mail (its template, its building, marking it sent): the reason
    goes on the row (so `serve --once` reports it), the row is released and due again at once,
    for the next round; this round goes on with the others."""
    log.get().exception(what, outbox=row["id"], kind=row["kind"])
    skipped.append(row["id"])
    error = log.scrub(f"{what}: {type(exc).__name__}: {exc}")
    with svc.store.transaction():
        if svc.store.outbox_attempt_failed(row["id"], error, svc.store.now(), owner=OWNER):
            unsent.append(Unsent(row["id"], row["kind"], row["to_addr"], False, error))


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


def _failed(svc: Service, row: dict, exc: BaseException, unsent: list[Unsent]) -> None:
    permanent, recipient = verdict(exc)
    waited = svc.now() - parsedate(row["created_at"])
    final = permanent or (row["attempts"] + 1 >= svc.settings.send_attempts
                          and waited >= timedelta(hours=svc.settings.send_for_hours))
    error = log.scrub(f"{type(exc).__name__}: {exc}")
    with svc.store.transaction():
        if not svc.store.outbox_attempt_failed(row["id"], error, None if final else
                                               iso(svc.now() + backoff(row["attempts"])), OWNER):
            return  # another sender holds it now
        unsent.append(Unsent(row["id"], row["kind"], row["to_addr"], final, error))
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

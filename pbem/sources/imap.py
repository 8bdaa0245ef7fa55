"""A hosted mailbox over IMAP (imap-tools), for games whose address is such a mailbox.

`ImapSource.poll` runs in the daemon's cycle, like the other sources: it lists the folder by
UID, claims each message in the store (by its UID, under the folder's UIDVALIDITY) before it
fetches it, hands it to `process.handle` and, once stored, moves it to the processed folder.
So several daemons may read one folder (over one PostgreSQL, or on one home): each message is
taken by one of them; the others pass it over while its claim holds (Store.claim_imap). A
worker thread keeps a second connection in IDLE and wakes the daemon when mail arrives
(imap-tools is synchronous, and aioimaplib's IDLE can hang when the server drops the link).

A dropped link is reopened at the next poll. A claim records when its message is stored, and
`handle` deduplicates by Message-ID and content, so a drop, or a daemon killed, at any point
loses nothing and applies nothing twice: a stored message left in the folder is only moved
(by its daemon's next poll, or once the lease ran out by any), one not yet stored is fetched
again.
"""
from __future__ import annotations

import imaplib
import re
import socket
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from imap_tools import BaseMailBox, MailBox, MailBoxStartTls, MailBoxUnencrypted
from imap_tools.errors import MailboxLoginError, UnexpectedCommandStatusError

from pbem.base import log
from pbem.inbound import orders
from pbem.inbound.process import Result, handle
from pbem.outbound.sending import OWNER  # this process, as a claimer of rows

if TYPE_CHECKING:
    from pbem.core.service import Service

ERRORS = (OSError, socket.timeout, imaplib.IMAP4.error, UnexpectedCommandStatusError, MailboxLoginError)


def connect(cfg) -> BaseMailBox:
    """A logged-in imap-tools mailbox with `cfg.folder` selected."""
    box: BaseMailBox
    if cfg.tls:
        box = MailBox(cfg.host, cfg.port, timeout=cfg.timeout)
    elif cfg.starttls:
        box = MailBoxStartTls(cfg.host, cfg.port, timeout=cfg.timeout)
    else:  # plain IMAP: for a server on the same machine (or tests) only
        box = MailBoxUnencrypted(cfg.host, cfg.port, timeout=cfg.timeout)
    return box.login(cfg.username, cfg.password, initial_folder=cfg.folder)


def _close(box) -> None:
    try:
        box.logout()
    except Exception:  # noqa: BLE001 -- the link may be gone already
        try:
            box.client.shutdown()
        except Exception:  # noqa: BLE001, S110 -- closing a link already gone: nothing to tell
            pass


class ImapSource:
    def __init__(self, cfg):
        self.cfg = cfg
        self.key = f"{cfg.username}@{cfg.host}:{cfg.port}/{cfg.folder}"
        self.box: BaseMailBox | None = None
        self.watcher: Watcher | None = None

    def poll(self, svc: Service, stop: threading.Event | None = None) -> list[Result]:
        """Store and process what arrived; a lost link ends this poll (the next reconnects)."""
        results: list[Result] = []
        try:
            self._poll(svc, stop, results)
        except ERRORS as e:
            log.get().warning("imap: link lost", mailbox=self.key, error=str(e))
            self.close()
        return results

    def _poll(self, svc: Service, stop: threading.Event | None, results: list[Result]) -> None:
        if self.box is None:
            self.box = connect(self.cfg)
            if not self.box.folder.exists(self.cfg.processed):
                self.box.folder.create(self.cfg.processed)
        box = self.box
        box.client.noop()  # the server shows mail that came since the last command only after one
        validity = int(box.folder.status(self.cfg.folder, ["UIDVALIDITY"])["UIDVALIDITY"])
        store, lease = svc.store, svc.settings.send_lease_seconds
        done: list[int] = []  # stored (now, or before a link was lost): to move; gone: only let go
        with store.group_commit():  # one fsync for the batch, before any mail is moved
            for uid in sorted(int(u) for u in box.uids("ALL")):  # what is still in the folder
                if stop is not None and stop.is_set():
                    break
                taken = store.claim_imap(self.key, validity, uid, OWNER, lease)
                if taken is None or taken == 2:  # another daemon is taking it; or it was moved meanwhile
                    continue
                fetched = fetch(box, uid) if taken == 0 else None
                if fetched is not None:
                    result = handle(svc, fetched[0], "mail", source="imap", size=fetched[1])
                    results.append(result)
                    store.imap_stored(self.key, validity, uid)
                    log.get(inbox=result.inbox_id).info("imap: taken", mailbox=self.key, uid=uid,
                                                        status=result.status)
                done.append(uid)
        if done:  # a link lost before this: the next poll moves them (their claims say stored)
            box.move([str(u) for u in done], self.cfg.processed)
            store.imap_moved(self.key, validity, done, lease)

    def watch(self, wake: Callable[[], None]) -> None:
        """Start the IDLE worker: it calls `wake` when mail arrives."""
        self.watcher = Watcher(self.cfg, wake)
        self.watcher.start()

    def close(self) -> None:
        if self.box is not None:
            _close(self.box)
            self.box = None

    def stop(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None
        self.close()


def fetch(box, uid: int) -> tuple[bytes, int] | None:
    """(the message's exact bytes, its size), not marked seen; None if it is gone. A message
    over the size limit is not downloaded: only its header is, to answer it."""
    size = _size(box, uid)
    if size is None:
        return None
    part = "BODY.PEEK[]" if size <= orders.MAX_BYTES else "BODY.PEEK[HEADER]"
    typ, data = box.client.uid("FETCH", str(uid), f"({part})")
    if typ != "OK":
        raise imaplib.IMAP4.error(f"FETCH {uid}: {typ}")
    parts = [item[1] for item in data if isinstance(item, tuple) and len(item) == 2]
    return (parts[0], max(size, len(parts[0]))) if parts else None


_SIZE = re.compile(rb"RFC822\.SIZE (\d+)")


def _size(box, uid: int) -> int | None:
    typ, data = box.client.uid("FETCH", str(uid), "(RFC822.SIZE)")
    if typ != "OK":
        raise imaplib.IMAP4.error(f"FETCH {uid}: {typ}")
    for item in data:
        m = _SIZE.search(item if isinstance(item, bytes) else item[0] if isinstance(item, tuple) else b"")
        if m:
            return int(m.group(1))
    return None


class Watcher(threading.Thread):
    """IDLE on its own connection; wake the daemon on any news; reconnect after a drop."""

    WAIT = 60.0  # one IDLE round; servers drop IDLE after 30 minutes, proxies sooner

    def __init__(self, cfg, wake: Callable[[], None]):
        super().__init__(name="imap-idle", daemon=True)
        self.cfg, self.wake = cfg, wake
        self.stopping = threading.Event()
        self.box: BaseMailBox | None = None

    def run(self) -> None:
        delay = 1.0
        while not self.stopping.is_set():
            try:
                self.box = box = connect(self.cfg)
                delay = 1.0
                self.wake()  # anything that came while the link was down
                while not self.stopping.is_set():
                    if box.idle.wait(timeout=min(self.WAIT, self.cfg.idle_seconds)):
                        self.wake()
            except Exception as e:  # noqa: BLE001 -- the worker must outlive any error
                if not self.stopping.is_set():
                    log.get().warning("imap idle: link lost", error=str(e), retry_in=delay)
            finally:
                if self.box is not None:
                    _close(self.box)
                    self.box = None
            self.stopping.wait(delay)
            delay = min(delay * 2, 60.0)

    def stop(self) -> None:
        self.stopping.set()
        box = self.box
        if box is not None:
            try:
                box.client.sock.shutdown(socket.SHUT_RDWR)  # ends a blocking IDLE wait at once
            except OSError:
                pass
        self.join(timeout=5)

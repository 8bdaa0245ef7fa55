"""`pbem serve`: the loop over the sources and the outbox.

Each cycle processes what waits (messages left `received` by a crash, the drop folder, the
configured Maildir and IMAP mailbox), plays the deadlines due, queues the moderator's digest
when one is due (pbem/outbound/notices.py), then sends due mail. Between cycles it sleeps until a
file arrives (watchfiles), the IMAP worker's IDLE reports mail, or `poll_seconds` pass.
SIGTERM or SIGINT sets a flag that is looked at between messages: the message in hand is
finished, then the daemon stops.

On PostgreSQL, where several daemons share the work, each LISTENs: work another daemon or
`pbem ingest` queued (a stored message, a mail, a deadline) wakes it at once, and without it
the daemon sleeps until its next timed work (a deadline, a retry, a lease running out)
instead of polling.
"""
from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import watchfiles

from pbem.base import clock, log
from pbem.inbound import process
from pbem.outbound import notices, sending
from pbem.pace import deadlines
from pbem.sources import dropfolder, imap, maildir, pipe

if TYPE_CHECKING:
    from pbem.core.service import Service


@contextlib.contextmanager
def _stop_on_signals(stop: threading.Event):
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handler = lambda *_: stop.set()  # only a flag: never interrupts a transaction
    old = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)


async def cycle(svc: Service, stop: threading.Event | None = None,
                mailbox: imap.ImapSource | None = None, failed: list[str] | None = None) -> list[process.Result]:
    """Process everything waiting, play the deadlines due, then send what is due.
    `mailbox`: the IMAP source `serve` keeps open (without it, one is opened for this cycle).
    A step that fails is logged and the others go on; its name is added to `failed`."""
    stop = stop or threading.Event()
    logger, results = log.get(), []
    failed = [] if failed is None else failed
    steps = [("pending", lambda: process.retry_pending(svc)),
             ("pipe spool", lambda: pipe.poll(svc, stop)),
             ("drop folder", lambda: dropfolder.poll(svc, svc.settings.inbox_path, stop))]
    maildir_path = svc.settings.maildir_path
    if maildir_path:
        steps.append(("maildir", lambda: maildir.poll(svc, maildir_path, stop)))
    own_mailbox = mailbox is None and svc.settings.imap is not None
    if own_mailbox:
        mailbox = imap.ImapSource(svc.settings.imap)
    if mailbox is not None:
        steps.append(("imap", lambda: mailbox.poll(svc, stop)))
    for name, step in steps:
        if stop.is_set():
            break
        try:
            results += step()
        except Exception:  # one broken source must not stop the others
            logger.exception("source failed", source=name)
            failed.append(name)
    if own_mailbox and mailbox is not None:  # opened above
        mailbox.close()
    if not stop.is_set():  # after the mail in hand: an answer that came in time is never defaulted
        try:
            deadlines.tick(svc)
        except Exception:
            logger.exception("deadlines failed")
            failed.append("deadlines")
    if not stop.is_set():  # before sending: a digest queued now goes in this cycle
        try:
            notices.send_due(svc)
        except Exception:
            logger.exception("the moderator's digest failed")
            failed.append("notices")
    if not stop.is_set():
        try:
            await sending.send_due(svc, stop=stop)
        except Exception:
            logger.exception("sending failed")
            failed.append("sending")
    return results


def _watched(svc: Service) -> list[Path]:
    paths = [dropfolder.ensure(svc.settings.inbox_path)]
    if svc.settings.maildir_path:
        maildir.open_maildir(svc.settings.maildir_path)
        paths.append(svc.settings.maildir_path / "new")
    return paths


def _arrivals(change, path: str) -> bool:
    # the folder the file is in, not any part of the path: a home under /tmp is watched too
    return Path(path).parent.name not in ("cur", "tmp") and not Path(path).name.startswith(".")


IDLE_MAX = 60.0  # a daemon woken by its store still looks this often (a crashed peer's leftovers)


def idle_seconds(svc: Service) -> float:
    """How long an idle daemon waits: poll_seconds; on a store that wakes it (NOTIFY), until
    its next timed work, at most IDLE_MAX."""
    if not svc.store.notifies:
        return svc.settings.poll_seconds
    longest = max(IDLE_MAX, svc.settings.poll_seconds)
    stored, digest = svc.store.next_wakeup(), notices.next_due(svc)
    times = [t for t in (clock.parse(stored) if stored else None, digest) if t is not None]
    if not times:
        return longest
    return min(max((min(times) - svc.now()).total_seconds() + 0.05, 0.05), longest)


async def _wait(svc: Service, stop: threading.Event, wake: threading.Event | None = None) -> None:
    """Until a file arrives, the idle time passes, stop is set or `wake` (IMAP mail, the
    store's notice) is set."""
    stopped = asyncio.Event()
    wake = wake or threading.Event()

    async def watch_flag():
        while not stop.is_set() and not wake.is_set():
            await asyncio.sleep(0.1)
        stopped.set()

    flag = asyncio.create_task(watch_flag())
    try:
        async for _ in watchfiles.awatch(*_watched(svc), watch_filter=_arrivals, stop_event=stopped,
                                         rust_timeout=int(idle_seconds(svc) * 1000), yield_on_timeout=True):
            break
    finally:
        flag.cancel()


async def serve(svc: Service, *, once: bool = False, stop: threading.Event | None = None,
                failed: list[str] | None = None) -> int:
    """Run until stopped (or one cycle with `once`); returns how many messages were handled.
    `failed` gathers the steps that failed (a source, the deadlines, the sending)."""
    stop = stop or threading.Event()
    logger, handled = log.get(), 0
    dropfolder.ensure(svc.settings.inbox_path)
    wake, mailbox = threading.Event(), None
    if svc.settings.imap is not None:
        mailbox = imap.ImapSource(svc.settings.imap)
        if not once:
            mailbox.watch(wake.set)
    listening = None if once else svc.store.watch(wake.set)
    with _stop_on_signals(stop), (contextlib.nullcontext() if once else pipe.serving(svc.settings)):
        logger.info("serving", home=str(svc.settings.home), once=once)
        try:
            while True:
                wake.clear()
                handled += len(await cycle(svc, stop, mailbox, failed))
                if once or stop.is_set():
                    break
                if not pipe.arrived_since_poll(svc.settings):  # spooled while the cycle ran: no watcher saw it
                    await _wait(svc, stop, wake)
        finally:
            if mailbox is not None:
                mailbox.stop()
            if listening is not None:
                svc.store.stop_watching(listening)
    logger.info("stopped", handled=handled)
    return handled

"""`pbem serve`: the loop over the sources and the outbox.

Each cycle processes what waits (messages left `received` by a crash, the drop folder, the
configured Maildir and IMAP mailbox), plays the deadlines due, queues the moderator's digest
when one is due (pbem/outbound/notices.py), then sends due mail. Between cycles it sleeps until a
file arrives (watchfiles), the IMAP worker's IDLE reports mail, or `poll_seconds` pass.
SIGTERM or SIGINT sets a flag that is looked at between messages: the message in hand is
finished, then the daemon stops.

Every `serve`, `--once` too, holds the home's lock shared while it runs (pbem/base/daemonlock.py:
`restore` and `key rotate` refuse meanwhile), writes with the umask 077 (its files are its
user's alone), looks before each cycle that the store still names its key (another machine may
have rotated it: then it stops, saying so), and after each cycle writes its heartbeat, which
`pbem status` and `GET /healthz` read (pbem/core/health.py).

On PostgreSQL, where several daemons share the work, each LISTENs: work another daemon or
`pbem ingest` queued (a stored message, a mail, a deadline) wakes it at once, and without it
the daemon sleeps until its next timed work (a deadline, a retry, a lease running out)
instead of polling.
"""
from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import watchfiles

from pbem.base import clock, log
from pbem.core import health, home as home_mod, keys
from pbem.inbound import process
from pbem.outbound import notices, sending
from pbem.pace import daily, deadlines, seats
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
                mailbox: imap.ImapSource | None = None, failed: list[str] | None = None,
                unsent: list[sending.Unsent] | None = None, sender=None) -> list[process.Result]:
    """Process everything waiting, play the deadlines due, then send what is due.
    `mailbox`: the IMAP source `serve` keeps open (without it, one is opened for this cycle);
    `sender`: the one `serve` keeps (sending.send_due: its connection lives while mail goes).
    A step that fails is logged and the others go on; its name is added to `failed`; a mail
    tried and not sent, to `unsent`."""
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
    if not stop.is_set():  # what bots still have to answer (a batch per mail was played with it)
        try:
            seats.play_due(svc)
        except Exception:
            logger.exception("seat bots failed")
            failed.append("bots")
    if not stop.is_set():  # the players' daily mails whose hour has come (pbem/pace/daily.py)
        try:
            daily.tick(svc)
        except Exception:
            logger.exception("the players' digests failed")
            failed.append("daily")
    if not stop.is_set():  # before sending: a digest queued now goes in this cycle
        try:
            notices.send_due(svc)
        except Exception:
            logger.exception("the moderator's digest failed")
            failed.append("notices")
    if not stop.is_set():
        try:
            await sending.send_due(svc, sender, stop=stop, unsent=unsent)
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


async def _wait(svc: Service, stop: threading.Event, wake: threading.Event | None = None,
                seconds: float | None = None) -> None:
    """Until a file arrives, `seconds` (default: the idle time) pass, stop is set or `wake` (IMAP
    mail, the store's notice) is set."""
    stopped = asyncio.Event()
    wake = wake or threading.Event()
    seconds = idle_seconds(svc) if seconds is None else seconds

    async def watch_flag():
        while not stop.is_set() and not wake.is_set():
            await asyncio.sleep(0.1)
        stopped.set()

    flag = asyncio.create_task(watch_flag())
    try:
        async for _ in watchfiles.awatch(*_watched(svc), watch_filter=_arrivals, stop_event=stopped,
                                         rust_timeout=int(seconds * 1000), yield_on_timeout=True):
            break
    finally:
        flag.cancel()


SHOWN_EXPOSED = 10  # paths named one by one; a whole outbox made 0644 by an old version is one line more


def warn_exposed(svc: Service) -> list[Path]:
    """Log what of the home other users may read (the store holds every game's secrets, outbox
    mails hold tokens); `pbem init HOME` makes it private again."""
    loose, logger = home_mod.exposed(svc.settings), log.get()
    for path in loose[:SHOWN_EXPOSED]:
        with contextlib.suppress(OSError):
            logger.warning(f"other users may read this: `pbem init {svc.settings.home}` makes the home private",
                           path=str(path), mode=oct(path.lstat().st_mode & 0o777))
    if len(loose) > SHOWN_EXPOSED:
        logger.warning("other users may read more of this home", more=len(loose) - SHOWN_EXPOSED)
    return loose


PRIVATE_UMASK = 0o077  # what the daemon writes (outbox mails, copies, archives, the heartbeat) is its user's alone


async def serve(svc: Service, *, once: bool = False, stop: threading.Event | None = None,
                failed: list[str] | None = None, unsent: list[sending.Unsent] | None = None) -> int:
    """Run until stopped (or one cycle with `once`); returns how many messages were handled.
    `failed` gathers the steps that failed (a source, the deadlines, the sending), `unsent`
    the mails tried and not sent. Raises keys.KeyMismatch when the store no longer names this
    process's key."""
    umask = os.umask(PRIVATE_UMASK)  # first: the folders made below are private too
    try:
        return await _serve(svc, once, stop or threading.Event(), [] if failed is None else failed, unsent)
    finally:
        os.umask(umask)


async def _serve(svc: Service, once: bool, stop: threading.Event, failed: list[str],
                 unsent: list[sending.Unsent] | None) -> int:
    logger, handled = log.get(), 0
    warn_exposed(svc)
    dropfolder.ensure(svc.settings.inbox_path)
    wake, mailbox = threading.Event(), None
    if svc.settings.imap is not None:
        mailbox = imap.ImapSource(svc.settings.imap)
        if not once:
            mailbox.watch(wake.set)
    listening = None if once else svc.store.watch(wake.set)
    if not once:  # a daemon compiles its templates before its first claim, outside any lease
        from pbem.outbound import render
        render.warm(svc)
    heartbeat = health.Heartbeat(svc.settings)
    sender = sending.sender_for(svc.settings)  # one SMTP connection and login while mail goes, not one a cycle
    with _stop_on_signals(stop), pipe.serving(svc.settings):
        logger.info("serving", home=str(svc.settings.home), once=once, key=svc.key_fingerprint)
        try:
            while True:
                wake.clear()
                keys.still_current(svc.store, svc.settings.key_path)
                polled, before = datetime.now(UTC), len(failed)
                handled += len(await cycle(svc, stop, mailbox, failed, unsent, sender))
                if once or stop.is_set():
                    heartbeat.beat(polled, 0.0, failed[before:], handled)
                    break
                arrived = pipe.arrived_since_poll(svc.settings)  # spooled while the cycle ran: no watcher saw it
                seconds = 0.0 if arrived else idle_seconds(svc)
                heartbeat.beat(polled, seconds, failed[before:], handled)
                if not arrived:
                    await _wait(svc, stop, wake, seconds)
        except keys.KeyMismatch as e:
            logger.error("the store no longer names this daemon's key: stopping", reason=str(e))
            raise
        finally:
            heartbeat.close()
            await sender.close()
            if mailbox is not None:
                mailbox.stop()
            if listening is not None:
                svc.store.stop_watching(listening)
    logger.info("stopped", handled=handled)
    return handled

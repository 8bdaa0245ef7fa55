"""PostgreSQL's NOTIFY and LISTEN: work queued by one process wakes the other daemons, so an
idle daemon need not poll. NOTIFY is transactional (heard once, at the commit; undone with a
savepoint), so a transaction queues what it tells and sends it once (postgres.py's commit, or
pg_statements.py's `_flush(notify=True)`).
"""
from __future__ import annotations

import threading

import psycopg

from pbem.store.base import Store

CHANNEL = "pbem"


class Notifications(Store):
    # set by PostgresStore.__init__ (_local: the transaction's state, per thread)
    _local: threading.local
    origin: str
    target: str

    def notify(self, what: str) -> None:
        """Wake the other listening daemons at commit. A transaction sends one NOTIFY just
        before its COMMIT, naming every `what` it queued ("inbox outbox ORIGIN": a statement
        for each kind was a statement more for every answer); outside one, a statement of its
        own. The payload ends with this store's `origin`: its own listener passes it over (watch)."""
        if self.in_transaction:
            self._local.told.add(what)
            return
        self._write("SELECT pg_notify(?, ?)", (CHANNEL, f"{what} {self.origin}"))

    def watch(self, wake) -> object:
        """A thread on its own connection that LISTENs and calls `wake()` on each notification
        of another store (another daemon, the web pages, a command); stop_watching(handle) ends
        it. A daemon's own work notifies too, and that cycle takes what it queued itself (its
        sending comes last; what is timed, its idle time reads from the store): woken by its
        own, it ran a second, empty cycle after each answer (7 statements, 2-3 ms CPU)."""
        stop = threading.Event()
        conn = psycopg.connect(self.target, autocommit=True)
        conn.execute(f"LISTEN {CHANNEL}")
        own = f" {self.origin}"

        def listen():
            try:
                while not stop.is_set():
                    for note in conn.notifies(timeout=0.5):
                        if not note.payload.endswith(own):
                            wake()
            except psycopg.Error:  # the server went away: the daemon's poll carries on
                if not stop.is_set():
                    wake()
            finally:
                conn.close()

        thread = threading.Thread(target=listen, name="pbem-listen", daemon=True)
        thread.start()
        return stop, thread

    def stop_watching(self, handle) -> None:
        stop, thread = handle
        stop.set()
        thread.join(timeout=2)

"""The store on PostgreSQL: several daemons on several machines over one database.

psycopg 3 with its connection pool. A transaction holds one pooled connection for its whole
length (per thread); a read outside a transaction borrows one for that statement
(autocommit). The SQL is Store's (pbem/store/core.py and tables_*.py), its `?` placeholders
turned into psycopg's `%s`.

What SQLite's one writer gave for free is locked here (base.py says what): a game with an
advisory lock for the length of the transaction, claimed rows with FOR UPDATE SKIP LOCKED.
Inbox dedupe holds under concurrent inserts by the unique keys (ON CONFLICT DO NOTHING waits
for the other insert and then finds its row). Work queued by one process wakes the others
with NOTIFY (delivered when the transaction commits), so an idle daemon need not poll.

Here: the pool, the transaction (its pipeline, savepoints, the held RELEASE) and the locks.
The rest, a mixin a mechanism composed into `PostgresStore`: pg_statements.py (the statement
path: pipelined, joined writes), pg_ahead.py (reads made ahead of being asked), pg_frames.py
(report frames kept), pg_notify.py (NOTIFY, LISTEN).
"""
from __future__ import annotations

import contextlib
import secrets
import threading
import weakref
from collections.abc import Iterator

import psycopg
import psycopg_pool
from psycopg.rows import DictRow, dict_row

from pbem.store.common import Clock, StoreUnavailable, utcnow
from pbem.store.pg_frames import KeptFrames
from pbem.store.pg_notify import CHANNEL, Notifications
from pbem.store.pg_statements import Statements

__all__ = ["CHANNEL", "MIGRATION_LOCK", "PostgresStore"]

_OPEN = (psycopg.pq.TransactionStatus.INTRANS, psycopg.pq.TransactionStatus.INERROR)
MIGRATION_LOCK = 0x7062656D  # "pbem": the advisory lock key held while migrating


class PostgresStore(Notifications, KeptFrames, Statements):
    dialect = "postgresql"
    FOR_UPDATE = " FOR UPDATE"
    SKIP_LOCKED = " FOR UPDATE SKIP LOCKED"
    notifies = True
    errors = (psycopg.Error, psycopg_pool.PoolTimeout)

    def __init__(self, url: str, clock: Clock = utcnow, timeout: float = 10.0, pool_size: int = 4):
        self.clock = clock
        self.path = None
        self.target = url
        self.origin = secrets.token_hex(6)  # names this store's NOTIFYs, which its own listener passes over
        self._local = threading.local()
        self._cursors: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # _cursor
        self._many: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # _readers
        self._frames: dict[int, str] = {}  # add_frame: what this store stored, by id
        self._frame_ids: list[int] = []  # add_frame: ids reserved for the frames it will store
        self.pool: psycopg_pool.ConnectionPool[psycopg.Connection[DictRow]] = psycopg_pool.ConnectionPool(
            url, min_size=1, max_size=pool_size, open=False, timeout=timeout, name="pbem",
            kwargs={"autocommit": True, "row_factory": dict_row})
        try:
            self.pool.open(wait=True, timeout=timeout)
            self.migrate()
        except (psycopg.Error, psycopg_pool.PoolTimeout) as e:
            self.pool.close()
            raise StoreUnavailable(f"PostgreSQL: {e}") from e

    def close(self) -> None:
        self.pool.close()

    @property
    def in_transaction(self) -> bool:
        return getattr(self._local, "conn", None) is not None

    @contextlib.contextmanager
    def transaction(self, redoable: bool = False, savepoint: bool = False) -> Iterator[PostgresStore]:
        """As SqliteStore.transaction; `redoable`: committed without waiting for the WAL
        flush (synchronous_commit off: a crash of the server may lose it, never corrupt it)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            if savepoint:
                yield from self._savepoint(conn)
            else:
                yield self
            return
        self._local.loose = None  # _loose: a read ahead outside a transaction is for the next statement only
        with self.pool.connection() as conn:
            self._local.conn = conn
            self._local.told = set()  # what this transaction notifies at its commit (notify)
            self._local.notified = set()  # what of it a statement of it notified already (_flush)
            self._local.heads = {}  # Store._heads
            self._local.pending, self._local.tables = [], set()  # _pend: writes not yet sent, their tables
            self._local.ahead, self._local.locked = {}, set()  # _read_ahead: reads made before they were asked
            self._local.then = None  # add_inbox: the token whose reads go with its INSERT
            self._local.unreleased = None  # _savepoint: the savepoint whose RELEASE is held back
            try:
                # pipeline mode: BEGIN, the writes whose count nobody reads (_write) and COMMIT go
                # without waiting for their answers; a read or a counted write waits for all
                # before it. One round trip where there were one a statement; the commit is
                # the same commit, as durable (its error, or an earlier write's, raised here).
                with conn.pipeline() as self._local.pipe:
                    unread = self._cursor(conn, 1)
                    unread.execute("BEGIN")
                    if redoable:
                        unread.execute("SET LOCAL synchronous_commit = off")
                    yield self
                    self._flush(notify=True)
                    if self._local.told - self._local.notified:  # one NOTIFY for all it queued, at the commit
                        kinds = " ".join(sorted(self._local.told - self._local.notified))
                        self._write("SELECT pg_notify(?, ?)", (CHANNEL, f"{kinds} {self.origin}"))
                    unread.execute("COMMIT")
            finally:
                self._local.conn = self._local.pipe = self._local.heads = self._local.then = None
                self._local.unreleased = None
                self._local.pending, self._local.tables = [], set()
                self._local.ahead, self._local.locked = {}, set()
                if conn.info.transaction_status in _OPEN:
                    conn.execute("ROLLBACK")  # an error, or an exception out of the block

    def _heads(self) -> dict | None:
        return getattr(self._local, "heads", None)

    def _savepoint(self, conn: psycopg.Connection[DictRow]) -> Iterator[PostgresStore]:
        """A savepoint within the open transaction: SAVEPOINT sent without waiting (after a sync
        only when a statement before it is not yet answered: its error is the transaction's, not
        the savepoint's to undo), one sync at its end (its own errors raised within it), RELEASE
        held back (at its end, below). psycopg's `conn.transaction()` synced three times (its nested
        pipelines), two waits more an answered mail. On a failure: a sync (the server skips what
        follows an error until one), ROLLBACK TO and RELEASE, waited for."""
        local = self._local
        pipe, writes = local.pipe, self._cursor(conn, 1)
        self._flush()  # the rows before it are not the savepoint's to undo
        told, notified = set(local.told), set(local.notified)
        if local.unreleased:  # an earlier one's RELEASE, held back: sent now, so that none stays open
            writes.execute(f"RELEASE SAVEPOINT {local.unreleased}")
            local.unreleased = None
        if pipe.command_queue or pipe.result_queue:
            pipe.sync()
        local.depth = depth = getattr(local, "depth", 0) + 1
        name = f"pbem_{depth}"
        writes.execute(f"SAVEPOINT {name}")
        try:
            yield self
            self._flush(notify=True)
            pipe.sync()
        except BaseException:
            local.pending, local.tables = [], set()  # its writes not yet sent go with it
            local.ahead, local.locked = {}, set()  # what it undid may be in them: read and locked again
            local.told, local.notified = told, notified  # its NOTIFYs were undone with it
            local.unreleased = None  # one within it: undone and released with it
            self._undone()
            with contextlib.suppress(psycopg.Error):  # the error raised already, or the statements it skipped
                pipe.sync()
            writes.execute(f"ROLLBACK TO SAVEPOINT {name}")
            writes.execute(f"RELEASE SAVEPOINT {name}")
            pipe.sync()
            raise
        finally:
            local.depth = depth - 1
        # Its RELEASE is held back until another savepoint begins (which sends it first) and is
        # never sent when the transaction commits next (an answered mail's case): COMMIT
        # commits what is within it with the rest, and a statement between runs within it,
        # where it fails the transaction as it would have after it. It releases one within it too.
        local.unreleased = name

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[PostgresStore]:
        """Reads that see one state (REPEATABLE READ, read only)."""
        with self.transaction():
            self._run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            yield self

    def _after_copy(self) -> None:
        # rows came with their ids: the identity columns go on after the largest
        for table in ("inbox", "outbox", "report_frames", "vacations", "notices"):
            self._run(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE(MAX(id), 0) + 1, false) "
                      f"FROM {table}")

    @contextlib.contextmanager
    def group_commit(self) -> Iterator[PostgresStore]:
        yield self  # every commit waits for its WAL flush: nothing to sync after the batch

    def sync(self) -> None:
        pass

    def _lock_game(self, game: str) -> None:
        # held until the transaction ends; two games may share a key (a hash): they then wait
        # for each other, which is only slower. Taken already by a read ahead: not again.
        if game in getattr(self._local, "locked", ()):
            return
        self._write("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", (game,))  # the server takes it in order

    def _lock_migrations(self) -> None:
        self._run("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))

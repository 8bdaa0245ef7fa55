"""The embedded store: one SQLite file in the home, in WAL mode.

Writes happen inside `transaction()`, which opens `BEGIN IMMEDIATE`: a deferred BEGIN in WAL
mode that reads first fails at once with "database is locked" when another connection wrote
in between. One writer at a time also serialises games, claims and stored messages, so the
locks PostgreSQL needs (base.py) are nothing here.
"""
from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pbem.store.base import Store, rows_insert
from pbem.store.common import Clock, StoreUnavailable, storable_params, utcnow

if TYPE_CHECKING:
    import sqlite_utils


class SqliteStore(Store):
    dialect = "sqlite"
    errors = (sqlite3.Error,)

    def __init__(self, path: str | Path, clock: Clock = utcnow, timeout: float = 10.0):
        self.clock = clock
        self.path = Path(path)
        self.target = str(path)
        self._grouped = 0  # depth of group_commit(): commits skip their fsync, sync() does it
        self._tx_heads: dict | None = None  # Store._heads, while a transaction() is open
        self._rows: list = []  # the rows of one INSERT kept to go as one statement (_write_row)
        self._rows_of: tuple[str, str, str] | None = None
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            self.conn = conn = sqlite3.connect(str(path), isolation_level=None, timeout=timeout,
                                               check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            # FULL: a mail acknowledged to the MTA survives a power cut, not only a crash
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA secure_delete=ON")  # a masked token leaves no old bytes behind
            # a savepoint's journal (every message is processed in one) in memory, not a temp
            # file: marking a message processed cost 70 us CPU a mail in its writes, now 20
            conn.execute("PRAGMA temp_store=MEMORY")
            self.migrate()
        except (sqlite3.Error, OSError) as e:
            raise StoreUnavailable(str(e)) from e

    @functools.cached_property
    def db(self) -> sqlite_utils.Database:
        """The connection as sqlite-utils' Database, for tests and tools; the store's own SQL goes
        to the connection. Made on first use: sqlite-utils (with pluggy and dateutil) cost a
        process that never needs it about a tenth of a second to import."""
        import sqlite_utils
        return sqlite_utils.Database(self.conn)

    def close(self) -> None:
        self.conn.close()

    @property
    def in_transaction(self) -> bool:
        return self.conn.in_transaction

    @contextlib.contextmanager
    def transaction(self, redoable: bool = False, savepoint: bool = False) -> Iterator[SqliteStore]:
        """One write transaction; a nested call joins the one already open (`savepoint`: as
        a savepoint, so that its failure undoes its own work and leaves the outer one's).

        `redoable`: work that can be done again from what is already stored durably (the
        processing of a stored message). Its commit skips the fsync (WAL, synchronous=NORMAL):
        a power cut may lose it, never corrupt it, and the message is then processed again."""
        conn = self.conn
        if conn.in_transaction:
            if savepoint:
                self._flush()  # the rows kept before it are not the savepoint's to undo
                conn.execute("SAVEPOINT nested")
                try:
                    yield self
                    self._flush()
                except BaseException:
                    self._rows = []
                    conn.execute("ROLLBACK TO nested")
                    conn.execute("RELEASE nested")
                    self._undone()
                    raise
                conn.execute("RELEASE nested")
            else:
                yield self
            return
        redoable = redoable and not self._grouped  # a group has set NORMAL for all of it
        if redoable:
            conn.execute("PRAGMA synchronous=NORMAL")
        try:
            conn.execute("BEGIN IMMEDIATE")
            self._tx_heads = {}
            try:
                yield self
                self._flush()
            except BaseException:  # a crash of any kind leaves nothing half-written
                self._rows = []
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        finally:
            self._rows = []
            self._tx_heads = None
            if redoable:
                conn.execute("PRAGMA synchronous=FULL")

    def _heads(self) -> dict | None:
        return self._tx_heads

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[SqliteStore]:
        """Reads that see one state: a read transaction (WAL: writers go on meanwhile)."""
        conn = self.conn
        conn.execute("BEGIN")
        try:
            yield self
        finally:
            self._rows = []  # a write within it is rolled back with it, kept (_write_row) or not
            conn.execute("ROLLBACK")

    @contextlib.contextmanager
    def group_commit(self) -> Iterator[SqliteStore]:
        """Group commit for a source that takes a batch of messages: inside, every commit
        skips its fsync (still atomic, and safe from a crash of this process); on the way out
        one fsync makes them all durable. The source acknowledges its messages (moves the
        files, flags the mail) only after this block, so a power cut inside it loses nothing:
        the unacknowledged messages are read again and known again by their hashes."""
        if not self._grouped:
            self.conn.execute("PRAGMA synchronous=NORMAL")
            changes = self.conn.total_changes
        self._grouped += 1
        try:
            yield self
        finally:
            self._grouped -= 1
            if not self._grouped:
                self.conn.execute("PRAGMA synchronous=FULL")
                # no row written (an idle send round, an empty poll): nothing to make durable, no
                # fsync (a daemon's idle cycle paid one, about 3 ms of waiting); DDL runs at open
                if self.conn.total_changes != changes:
                    self.sync()

    def sync(self) -> None:
        """Make every committed transaction durable: they are all in the write-ahead log,
        so one fsync of it does (a checkpoint syncs what it moves into the database itself)."""
        wal = self.path.with_name(self.path.name + "-wal")
        try:
            fd = os.open(wal, os.O_RDONLY)
        except FileNotFoundError:  # nothing written since the last checkpoint emptied it
            return
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def compact(self) -> bool:
        """VACUUM, then a checkpoint that empties the write-ahead log (which VACUUM filled with
        a copy of the database); False when another connection's transaction prevents it."""
        try:
            self.conn.execute("VACUUM")
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.OperationalError:  # busy: the space is reused by later rows meanwhile
            return False
        return True

    def scrub(self) -> None:
        """The write-ahead log copied into the database and emptied: the pages it held with
        overwritten secrets are gone (the database's own were zeroed as freed: secure_delete)."""
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def _write_row(self, insert: tuple[str, str, str], params) -> None:
        """Within a transaction, the row is kept until the next statement (or the savepoint's end,
        or the commit), and the rows of the same INSERT that follow it go with it as one
        statement: a move's mails queued (3-4 an answer) one INSERT, not one each (as
        PostgresStore does). ON CONFLICT DO NOTHING takes a row of the same key twice in one
        statement as it took it in two; an error comes at the next statement, within the
        transaction, which fails as it would have."""
        if not self.conn.in_transaction:
            super()._write_row(insert, params)
            return
        if self._once is not None:
            self._written(insert[0])
        if self._rows and self._rows_of != insert:
            self._flush()
        self._rows_of = insert
        self._rows.append(params)

    _MAX_PARAMS = 999  # SQLite before 3.32 takes no more in one statement

    def _flush(self) -> None:
        rows, self._rows = self._rows, []
        if not rows:
            return
        assert self._rows_of is not None
        per = max(1, self._MAX_PARAMS // len(rows[0]))
        for i in range(0, len(rows), per):
            chunk = rows[i:i + per]
            self.conn.execute(rows_insert(self._rows_of, len(chunk)),
                              storable_params([p for row in chunk for p in row]))

    def _all(self, sql: str, params=()) -> list[dict]:
        if self._rows:
            self._flush()
        if self._once is not None:
            self._written(sql)
        # the connection itself: sqlite-utils' query() wraps every read in a SAVEPOINT
        cur = self.conn.execute(sql, storable_params(params))
        if cur.description is None:
            return []
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]

    def _run(self, sql: str, params=()) -> int:
        if self._rows:
            self._flush()
        if self._once is not None:
            self._written(sql)
        return self.conn.execute(sql, storable_params(params)).rowcount

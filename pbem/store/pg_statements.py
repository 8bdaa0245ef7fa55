"""PostgreSQL's statement path: how `_all`, `_run` and `_write` reach the server.

Within a transaction everything goes through the connection's pipeline (postgres.py opens it):
a write nobody reads is not waited for, and the writes next to each other are joined into one
statement (`_write_row`: the rows of one INSERT; `_pend`: writes of distinct tables, each but
the last in a data-modifying WITH), sent by `_flush` before the next statement, a savepoint's
edge or the commit. Reads sent together wait once (`_all_at_once`); the message's INSERT
brings the reads made ahead (pg_ahead.py). Each saves a round trip (or psycopg's CPU a
statement) an answered mail; tests/test_pg_statements.py and tests/test_pg_round_trips.py count them.

What keeps the joined writes correct: a kept write is of a table no other kept write writes and
reads no other table (`_joinable`), so the one snapshot a WITH's parts share cannot tell them
from separate statements; anything else flushes them first. The server runs the pipeline in
order, so an error is found at the next wait, failing the transaction as it would have.
Outside a transaction a statement borrows a pooled connection (autocommit).
"""
from __future__ import annotations

import functools
import re
import weakref

import psycopg
import psycopg_pool
from psycopg.rows import DictRow

from pbem.store.base import rows_insert
from pbem.store.common import storable_params
from pbem.store.pg_ahead import ReadAhead
from pbem.store.pg_notify import CHANNEL

_ROWS = psycopg.pq.ExecStatus.TUPLES_OK


@functools.lru_cache(maxsize=512)
def _pg(sql: str) -> str:
    """base.py's SQL for psycopg: `?` placeholders as %s (none of it has a '?' in a literal)."""
    return sql.replace("%", "%%").replace("?", "%s")


def _statement(sql: str, params) -> tuple:
    """`cursor.execute`'s arguments: a statement without parameters goes as it is (no %
    doubled, none to adapt)."""
    return (_pg(sql), storable_params(params)) if params else (sql, None)


_WRITE = re.compile(r"\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)\s", re.IGNORECASE)
_READS = re.compile(r"\b(?:SELECT|RETURNING|FROM|USING|WITH)\b", re.IGNORECASE)


@functools.lru_cache(maxsize=512)
def _joinable(sql: str) -> str | None:
    """The table `sql` writes when it may share one statement with the writes next to it
    (`PostgresStore._pend`): an INSERT, UPDATE or DELETE of one table that reads no other table
    (no subquery, FROM or USING) and returns nothing; else None."""
    m = _WRITE.match(sql)
    return None if m is None or _READS.search(sql, m.end()) else m[1].lower()


class Statements(ReadAhead):
    # set by PostgresStore.__init__
    pool: psycopg_pool.ConnectionPool[psycopg.Connection[DictRow]]
    origin: str
    _cursors: weakref.WeakKeyDictionary
    _many: weakref.WeakKeyDictionary

    def _cursor(self, conn: psycopg.Connection[DictRow], which: int) -> psycopg.Cursor[DictRow]:
        """The connection's own cursors, kept: 0 reads (each read fetched before the next) and
        counted writes, 1 the writes nobody reads (in a pipeline their results come back later,
        so they never land on the reader's cursor). A cursor a statement was about 10 us of CPU
        a statement, an answered mail runs about 35."""
        kept = self._cursors.get(conn)
        if kept is None:
            kept = self._cursors[conn] = (conn.cursor(), conn.cursor())
        return kept[which]

    def _readers(self, conn: psycopg.Connection[DictRow], n: int) -> list[psycopg.Cursor[DictRow]]:
        """`n` cursors of the connection for reads sent together (`_all_at_once`), kept."""
        kept = self._many.get(conn)
        if kept is None:
            kept = self._many[conn] = []
        while len(kept) < n:
            kept.append(conn.cursor())
        return kept[:n]

    def _write_row(self, insert: tuple[str, str, str], params) -> None:
        """Within a transaction, the row is kept until the next statement (or the commit), and the
        rows of the same INSERT that follow it go with it as one statement: a move's mails queued
        (3-4 an answered mail, outbox.enqueue) one statement, not one each. ON CONFLICT DO
        NOTHING takes a row of the same key twice in one statement as it took it in two."""
        local = self._local
        if getattr(local, "conn", None) is None:
            super()._write_row(insert, params)
            return
        if self._once is not None:
            self._written(insert[0])
        self._stale(insert[0])
        last = local.pending[-1] if local.pending else None
        if last is not None and last[0] == insert:
            last[1].append(params)
        else:
            self._pend(_joinable(rows_insert(insert)), (insert, [params]))

    def _pend(self, table: str | None, write: tuple) -> None:
        """A write nobody reads, kept to go with the ones next to it as one statement (_flush): a
        move's row, its events, the game's state, its frame and the seats' marks were a statement
        each, an answered mail about 25 where 20 do (each one psycopg's CPU, about 50 us, and the
        server's). A write of a table another kept write writes (an UPDATE of a row written, rows
        of a key) or one that reads (`_joinable`: None) goes after them, not with them."""
        local = self._local
        if table is None or table in local.tables or None in local.tables:
            self._flush()
        local.pending.append(write)
        local.tables.add(table)

    def _flush(self, notify: bool = False) -> None:
        """The writes kept (`_pend`) sent, in the pipeline, not waited for: one alone as it is,
        several as one statement, each but the last in a WITH of its own. A WITH's writes see the
        one snapshot the statement began with and none sees another's rows: kept writes are of
        tables no other of them writes, and read none they do not write (_joinable); foreign keys
        are checked when the statement ends, every row of it in. An error in any fails the one
        statement, found where it would have been: at the next wait. `notify` (a savepoint's end,
        the commit): the NOTIFY of what the transaction queued so far is the statement's SELECT,
        not a statement of its own at the commit; undone with the savepoint, as it was."""
        local = self._local
        pending = getattr(local, "pending", None)
        if not pending:
            return
        local.pending, local.tables = [], set()
        parts: list[tuple[str, list]] = []
        for write, params in pending:
            if isinstance(write, tuple):  # an INSERT's rows (_write_row)
                parts.append((rows_insert(write, len(params)), [p for row in params for p in row]))
            else:
                parts.append((write, list(params)))
        told = local.told - local.notified if notify else ()
        if told:
            parts.append(("SELECT pg_notify(?, ?)", [CHANNEL, f"{' '.join(sorted(told))} {self.origin}"]))
            local.notified |= told
        sql = parts[-1][0]
        if len(parts) > 1:
            sql = "WITH " + ", ".join(f"w{i} AS ({part})" for i, (part, _) in enumerate(parts[:-1])) + " " + sql
        values = [p for _, params in parts for p in params]
        self._cursor(local.conn, 1).execute(*_statement(sql, values))

    def _all_at_once(self, reads) -> list[list[dict]]:
        """Within a transaction, the reads sent one after the other, each on a cursor of its own,
        and one wait for all (a Sync): a round trip each was about 50 us of this process's CPU
        and as much of the server's (woken, and its answer written, once a read). Those read
        ahead (`_ahead`) are not sent."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            return super()._all_at_once(reads)
        got: list[list[dict] | None] = [self._ahead(sql, params) for sql, params in reads]
        unread = [read for read, rows in zip(reads, got) if rows is None]
        if len(unread) < 2:
            return [self._all(*read) if rows is None else rows for read, rows in zip(reads, got)]
        self._flush()
        cursors = iter(self._readers(conn, len(unread)))
        sent = []
        for (sql, params), rows in zip(reads, got):
            if self._once is not None:
                self._written(sql)
            if rows is None:
                cur = next(cursors)
                cur.execute(_pg(sql), storable_params(params))
                sent.append(cur)
        self._local.pipe.sync()
        fetched = iter(sent)
        return [next(fetched).fetchall() if rows is None else rows for rows in got]

    def _all(self, sql: str, params=()) -> list[dict]:
        """A read, by one of three ways, each the fewest waits for it: within a transaction, its
        rows made ahead (`_ahead`) or it sent after the kept writes, and a token mail's INSERT
        sent with the reads made ahead for it (one Sync for all); outside one, its rows read
        loose with the statement before (`_loose`) or it on a pooled connection, with the loose
        reads that go with it (a claim brings its seats within its own statement)."""
        if self._once is not None:
            self._written(sql)
        conn = getattr(self._local, "conn", None)
        if conn is not None:  # a transaction's pipeline: fetching waits for what was sent before
            kept = self._ahead(sql, params)
            if kept is not None:
                return kept
            self._stale(sql)
            self._flush()
            cur = self._cursor(conn, 0)
            cur.execute(_pg(sql), storable_params(params))
            then = self._local.then  # add_inbox: the reads that follow the message's INSERT, sent with it
            if then is not None:
                self._local.then = None
                reads = self._read_ahead(then)
                readers = self._readers(conn, len(reads))
                for reader, (ahead, ahead_params) in zip(readers, reads):
                    reader.execute(_pg(ahead), storable_params(ahead_params))
                self._local.pipe.sync()
                rows = cur.fetchall()
                self._kept_ahead(then, [reader.fetchall() for reader in readers])
                return rows
            try:
                return cur.fetchall()
            except psycopg.ProgrammingError as e:
                if e.sqlstate is None:  # a statement that returns no rows
                    return []
                raise
        kept = self._loose(sql, params)
        if kept is not None:
            return kept
        claiming = getattr(self._local, "claiming", False)
        if claiming:
            sql = self._with_seats(sql)
        reads = self._loose_reads()
        with self.pool.connection() as conn:
            cur = self._cursor(conn, 0)
            if reads:  # sent together, the pipeline's one Sync at its end: one implicit transaction, committed there
                readers = self._readers(conn, len(reads))
                with conn.pipeline():
                    cur.execute(_pg(sql), storable_params(params))
                    for reader, (ahead, ahead_params) in zip(readers, reads):
                        reader.execute(_pg(ahead), ahead_params)
                rows = cur.fetchall()
                self._keep_loose(reads, [reader.fetchall() for reader in readers])
                return rows
            cur.execute(_pg(sql), storable_params(params))
            # the result's status, not cur.description: that makes a Column object for every
            # column of every statement (1.5 ms CPU an answer mail), which dict_row does not need
            rows = cur.fetchall() if cur.pgresult is not None and cur.pgresult.status == _ROWS else []
            if claiming:
                self._keep_seats(rows)
            return rows

    def _run(self, sql: str, params=()) -> int:
        conn = self._writing(sql)
        if conn is None:
            return self._pooled(sql, params, 0)
        self._flush()
        cur = self._cursor(conn, 0)
        cur.execute(*_statement(sql, params))
        self._local.pipe.sync()  # its count is read: wait for it
        return cur.rowcount

    def _write(self, sql: str, params=()) -> None:
        conn = self._writing(sql)
        if conn is None:
            self._pooled(sql, params, 1)
            return
        table = _joinable(sql)
        if table is not None:
            self._pend(table, (sql, params))
            return
        self._flush()
        self._cursor(conn, 1).execute(*_statement(sql, params))

    def _writing(self, sql: str) -> psycopg.Connection[DictRow] | None:
        """A write about to run: what `read_once` and the reads made ahead held of its tables
        dropped; the transaction's connection, or None outside one."""
        if self._once is not None:
            self._written(sql)
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            self._stale(sql)
        return conn

    def _pooled(self, sql: str, params, which: int) -> int:
        """A write outside a transaction, on a pooled connection (autocommit): its row count."""
        self._local.loose = None
        with self.pool.connection() as conn:
            cur = self._cursor(conn, which)
            cur.execute(*_statement(sql, params))
            return cur.rowcount

"""The store on PostgreSQL: several daemons on several machines over one database.

psycopg 3 with its connection pool. A transaction holds one pooled connection for its whole
length (per thread); a read outside a transaction borrows one for that statement
(autocommit). The SQL is base.py's, its `?` placeholders turned into psycopg's `%s`.

What SQLite's one writer gave for free is locked here (base.py says what): a game with an
advisory lock for the length of the transaction, claimed rows with FOR UPDATE SKIP LOCKED.
Inbox dedupe holds under concurrent inserts by the unique keys (ON CONFLICT DO NOTHING waits
for the other insert and then finds its row). Work queued by one process wakes the others
with NOTIFY (delivered when the transaction commits), so an idle daemon need not poll.
"""
from __future__ import annotations

import contextlib
import functools
import re
import secrets
import threading
import weakref
from collections.abc import Iterator

import psycopg
import psycopg_pool
from psycopg.rows import DictRow, dict_row

from pbem.store.base import Store, _tables_written, rows_insert
from pbem.store.common import Clock, StoreUnavailable, storable_params, utcnow

CHANNEL = "pbem"
_ROWS = psycopg.pq.ExecStatus.TUPLES_OK
_OPEN = (psycopg.pq.TransactionStatus.INTRANS, psycopg.pq.TransactionStatus.INERROR)
MIGRATION_LOCK = 0x7062656D  # "pbem": the advisory lock key held while migrating


@functools.lru_cache(maxsize=512)
def _pg(sql: str) -> str:
    """base.py's SQL for psycopg: `?` placeholders as %s (none of it has a '?' in a literal)."""
    return sql.replace("%", "%%").replace("?", "%s")


_WRITE = re.compile(r"\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)\s", re.IGNORECASE)
_READS = re.compile(r"\b(?:SELECT|RETURNING|FROM|USING|WITH)\b", re.IGNORECASE)


@functools.lru_cache(maxsize=512)
def _joinable(sql: str) -> str | None:
    """The table `sql` writes when it may share one statement with the writes next to it
    (`PostgresStore._pend`): an INSERT, UPDATE or DELETE of one table that reads no other table
    (no subquery, FROM or USING) and returns nothing; else None."""
    m = _WRITE.match(sql)
    return None if m is None or _READS.search(sql, m.end()) else m[1].lower()


class PostgresStore(Store):
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

    # -- an answer's first reads, made with the message's INSERT ------------------------------

    # The one game whose active seat the token opens, once the lock below took it (for the
    # length of the transaction); none when it opens none, or seats of several games.
    _AHEAD = "current_setting('pbem.ahead', true)"

    def add_inbox(self, raw: bytes, **kwargs) -> int:
        """Within a transaction, a message with a token is stored and, in the same round trip,
        what processing it reads first (`_read_ahead`): a mail answered waited for the server
        six times before its move was made, once."""
        local = self._local
        if kwargs.get("token_hash") and getattr(local, "conn", None) is not None:
            local.then = kwargs["token_hash"]
        try:
            return super().add_inbox(raw, **kwargs)
        finally:
            local.then = None

    # The reads ahead are filed under the store's own statements (base.py's _GAME_SQL, _SEATS_SQL,
    # _DEADLINES_SQL, _ORDERS_SQL, _TOKEN_SQL, _WAITING_SQL) and served only to exactly those.

    def _read_ahead(self, token_hash: str) -> list[tuple[str, tuple]]:
        """The reads sent after the message's INSERT, before its answer is awaited: in one
        statement the seats the token opens (as JSON) and the game of its one active seat locked
        (the game's advisory lock, `game`'s) and named for the read after it; then, in one, that game's row with its
        chain's head and, as JSON, its seats, deadlines, standing orders and the address
        settings of its active seats (each the rows of the read `_kept_ahead` files it under:
        their columns are text and integers, which JSON gives back as they were). What
        processing the answer reads next; an answer that reads them finds them read (`_ahead`),
        one that does not (a refusal, a duplicate) cost the server a few reads of rows it has at
        hand. The lock is the one `game` would take a moment later, after the INSERT as there
        (the order every process takes them in); the reads come after it, as each statement
        reads what was committed when it began."""
        active = "FROM players WHERE game = games.id AND status = 'active' AND email <> ''"
        return [
            ("SELECT (SELECT json_agg(p) FROM players AS p WHERE p.token_hash = ?) AS seats, lock.game "
             "FROM (SELECT 1) AS one LEFT JOIN LATERAL (SELECT game, "
             "pg_advisory_xact_lock(hashtextextended(game, 0)) IS NULL AS locked, "
             "set_config('pbem.ahead', game, true) IS NULL AS named FROM (SELECT min(game) AS game FROM players "
             "WHERE token_hash = ? AND status = 'active' HAVING count(DISTINCT game) = 1) AS seat) AS lock ON true",
             (token_hash, token_hash)),
            (f"SELECT *, ({self._HEAD}) AS chain_head, "
             "(SELECT json_agg(p) FROM players AS p WHERE p.game = games.id) AS pbem_players, "
             "(SELECT json_agg(d ORDER BY d.due_at, d.prompt, d.player) FROM deadlines AS d WHERE d.game = games.id "
             "AND (d.status = 'open' OR d.mailed IS NOT NULL)) AS pbem_deadlines, "
             "(SELECT json_agg(o ORDER BY o.n) FROM (SELECT player, n, text, uses, filed_at FROM standing_orders "
             "WHERE game = games.id AND status = 'active') AS o) AS pbem_orders, "
             f"(SELECT array_agg(lower(email) ORDER BY seat) {active}) AS pbem_emails, "
             f"(SELECT json_agg(a) FROM address_settings AS a WHERE a.address IN (SELECT lower(email) {active})) "
             f"AS pbem_addresses FROM games WHERE id = {self._AHEAD}", ()),
        ]

    def _kept_ahead(self, token_hash: str, got: list[list[dict]]) -> None:
        """The reads ahead filed under the statements processing will make (each served once)."""
        (token,), game = got
        local = self._local
        ahead = local.ahead
        ahead[(self._TOKEN_SQL, (token_hash,))] = (("players",), token["seats"] or [])
        id = token["game"]
        if id is None:  # no game of one active seat: nothing else was read
            return
        local.locked.add(id)
        if not game:
            return
        row = game[0]
        players, emails, addresses = row.pop("pbem_players") or [], row.pop("pbem_emails"), row.pop("pbem_addresses")
        deadlines, orders = row.pop("pbem_deadlines") or [], row.pop("pbem_orders") or []
        key = (id,)
        ahead[(self._GAME_SQL, key)] = (("games", "moves"), game)
        ahead[(self._SEATS_SQL, key)] = (("players",), players)
        ahead[(self._DEADLINES_SQL, key)] = (("deadlines",), deadlines)
        ahead[(self._ORDERS_SQL, key)] = (("standing_orders",), orders)
        # read_once's addresses: the active seats', in their order, as Store.read_once makes them
        wanted = [p["email"].lower() for p in sorted(players, key=lambda p: p["seat"])
                  if p["status"] == "active" and p["email"]]
        if wanted and emails == wanted:  # lowered alike (the server's lower() is ASCII's here)
            ahead[(f"SELECT * FROM address_settings WHERE address IN ({', '.join('?' * len(wanted))})",
                   tuple(wanted))] = (("address_settings",), addresses or [])

    def _ahead(self, sql: str, params) -> list[dict] | None:
        """The rows of a read made ahead (`_read_ahead`), once; None: not made, or made stale by
        a write of its tables since (`_stale`)."""
        ahead = getattr(self._local, "ahead", None)
        if not ahead:
            return None
        got = ahead.pop((sql, tuple(params)), None)
        return None if got is None else got[1]

    # -- sending: a read ahead with the claim, and with a round's last marks ---------------------

    def claim_outbox_rows(self, owner: str, lease_seconds: float, limit: int, skip=()) -> list[dict]:
        """As Store's; outside a transaction, the seats of the first claimed mail's game come with
        the claim, as a JSON column of its first row (`_all`: the sender reads them next,
        `read_once`; a statement and a wait an answered mail). When
        the claim took fewer than `limit` (none left due: the round's last batch), the ids are
        kept, so that the marks of the last of them bring `outbox_waiting` (read next, at the
        round's end)."""
        local = self._local
        local.claiming = getattr(local, "conn", None) is None
        try:
            rows = super().claim_outbox_rows(owner, lease_seconds, limit, skip)
        finally:
            local.claiming = False
        local.claimed = {r["id"] for r in rows} if len(rows) < limit else None
        return rows

    def outbox_sent_rows(self, rows, owner: str) -> set[int]:
        claimed = getattr(self._local, "claimed", None)
        if claimed and getattr(self._local, "conn", None) is None:
            claimed.difference_update(id for id, _, _ in rows)
            self._local.last = not claimed  # the round's last marks: what waits is read next
        try:
            return super().outbox_sent_rows(rows, owner)
        finally:
            self._local.last = False

    def _loose_reads(self) -> list[tuple[str, tuple]]:
        """The reads that go with a statement outside a transaction (its own commit): after a
        round's last marks, what still waits."""
        return [(self._WAITING_SQL, ())] if getattr(self._local, "last", False) else []

    def _keep_loose(self, reads: list[tuple[str, tuple]], got: list[list[dict]]) -> None:
        """The loose reads filed for the next statement (`_loose`), under the read it will make."""
        self._local.loose = {(sql, tuple(params)): rows for (sql, params), rows in zip(reads, got)} or None

    @staticmethod
    def _with_seats(claim: str) -> str:
        """The claim, its rows returned with the seats of the first one's game as JSON (a column
        of that row alone): the rows as the claim returns them; the seats as the sender's
        `read_once` reads them (text and integers: the same values from JSON), in the one
        statement, as the claimed rows were when it began."""
        return (f"WITH pbem_claim AS ({claim}) SELECT *, CASE WHEN row_number() OVER "
                "(ORDER BY next_attempt_at, id) = 1 THEN (SELECT json_agg(p) FROM players AS p "
                "WHERE p.game = pbem_claim.game) END AS pbem_seats FROM pbem_claim")

    def _keep_seats(self, rows: list[dict]) -> None:
        """The claim's rows without the seats' column, the seats filed for the next statement."""
        loose = None
        for row in rows:
            seats = row.pop("pbem_seats")
            if seats:
                loose = {(self._SEATS_SQL, (seats[0]["game"],)): seats}
        self._local.loose = loose

    def _loose(self, sql: str, params) -> list[dict] | None:
        """Outside a transaction, a read made ahead with the statement before (`_loose_reads`): served
        to the next statement if it is that read, else dropped (it was made for that moment only)."""
        loose = getattr(self._local, "loose", None)
        if not loose:
            return None
        self._local.loose = None
        return loose.get((sql, tuple(params)))

    def _stale(self, sql: str) -> None:
        """A statement of this transaction: the reads made ahead of the tables it writes are dropped."""
        ahead = getattr(self._local, "ahead", None)
        if ahead:
            for table in _tables_written(sql):
                for key in [k for k, (tables, _) in ahead.items() if table in tables]:
                    del ahead[key]

    def add_frame(self, frame: str) -> int:
        """Within a transaction under an id taken from the ones this store reserved (the identity's
        sequence, 16 at a time): a write sent without waiting, not an INSERT ... RETURNING read
        back (a wait, half of the answered mails). A reserved id is used once or never: unique
        across processes (nextval), never one of a row rolled back (see frame)."""
        if self.in_transaction:
            try:
                id = self._frame_ids.pop()  # atomic: threads may share the store
            except IndexError:
                ids = [r["id"] for r in self._all(
                    "SELECT nextval(pg_get_serial_sequence('report_frames', 'id')) AS id FROM generate_series(1, 16)")]
                id = ids.pop()
                self._frame_ids.extend(ids)
            self._write("INSERT INTO report_frames (id, frame) VALUES (?, ?)", (id, frame))
        else:
            id = super().add_frame(frame)
        if len(self._frames) >= 32:
            self._frames.clear()
        self._frames[id] = frame
        return id

    def frame(self, id: int) -> str:
        """A move's reports are sent by the process that queued them, most often: what it stored
        is kept (the last 32), not read back (a statement an answered mail). Safe here, not on
        SQLite: an identity column never gives a rolled-back row's id again, so a kept id is
        that row or no row anyone refers to."""
        kept = self._frames.get(id)
        return super().frame(id) if kept is None else kept

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
        self._cursor(local.conn, 1).execute(_pg(sql) if values else sql, storable_params(values) if values else None)

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
        if self._once is not None:
            self._written(sql)
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            self._stale(sql)
            self._flush()
            cur = self._cursor(conn, 0)
            cur.execute(_pg(sql) if params else sql, storable_params(params) if params else None)
            self._local.pipe.sync()  # its count is read: wait for it
            return cur.rowcount
        self._local.loose = None
        with self.pool.connection() as conn:
            cur = self._cursor(conn, 0)
            cur.execute(_pg(sql) if params else sql, storable_params(params) if params else None)
            return cur.rowcount

    def _write(self, sql: str, params=()) -> None:
        if self._once is not None:
            self._written(sql)
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            self._stale(sql)
            table = _joinable(sql)
            if table is not None:
                self._pend(table, (sql, params))
                return
            self._flush()
            self._cursor(conn, 1).execute(_pg(sql) if params else sql, storable_params(params) if params else None)
            return
        self._local.loose = None
        with self.pool.connection() as conn:
            self._cursor(conn, 1).execute(_pg(sql) if params else sql, storable_params(params) if params else None)

    def _lock_game(self, game: str) -> None:
        # held until the transaction ends; two games may share a key (a hash): they then wait
        # for each other, which is only slower. Taken already by a read ahead: not again.
        if game in getattr(self._local, "locked", ()):
            return
        self._write("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", (game,))  # the server takes it in order

    def _lock_migrations(self) -> None:
        self._run("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))

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

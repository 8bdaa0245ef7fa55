"""The store's core, under every area's queries: the primitives a dialect provides (`_all`,
`_run`, `_write`, transactions), the few helpers on them (`_one`, `_the_one`, `_insert`,
`_update`), the reads of a move's reports made once for all their readers (`read_once`), the
schema and the service's facts, and the statements kept by name that PostgreSQL reads ahead.
Each area's queries are a mixin of `StoreCore` (pbem/store/tables_*.py); pbem/store/base.py
composes them into `Store`.
"""
from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Sequence

from pbem.base import tokens
from pbem.store import migrations
from pbem.store.common import Clock, iso


def rows_insert(insert: tuple[str, str, str], n: int = 1) -> str:
    """The INSERT `insert` (its head, its row of VALUES, its tail) of `n` rows."""
    head, values, tail = insert
    return f"{head} VALUES {', '.join([values] * n)}{tail}"


def _literals(words: Sequence[str]) -> str:
    """Words of our own (a mail's kind) as SQL literals, for a query a partial index serves."""
    if not all(re.fullmatch(r"[a-z_]+", w) for w in words):
        raise ValueError(f"not a kind of mail: {words!r}")
    return ", ".join(f"'{w}'" for w in words)


class StoreCore:
    SNAPSHOT_EVERY = 100
    dialect = ""
    FOR_UPDATE = ""  # a read inside a transaction that will write what it read
    SKIP_LOCKED = ""  # a claim: rows another transaction holds are passed over
    notifies = False  # True: watch() wakes an idle daemon when another process queues work
    errors: tuple[type[BaseException], ...] = ()  # what the database raises when it fails
    clock: Clock  # set by the dialect's __init__

    # what a dialect provides
    def close(self) -> None: ...
    def transaction(self, redoable: bool = False, savepoint: bool = False): ...
    def group_commit(self): ...
    def sync(self) -> None: ...
    def _all(self, sql: str, params=()) -> list[dict]:
        raise NotImplementedError

    def _run(self, sql: str, params=()) -> int:  # the number of rows changed
        raise NotImplementedError

    def _write(self, sql: str, params=()) -> None:
        """A write whose count nobody reads: PostgreSQL sends it within a transaction without
        waiting for its answer (pipeline mode: its error, if any, comes at the next read or
        the commit, and the transaction fails as it would have)."""
        self._run(sql, params)

    def _lock_game(self, game: str) -> None: ...
    def _lock_migrations(self) -> None: ...
    def notify(self, what: str) -> None: ...
    def snapshot(self): ...  # a read-only view that stays as it was while others write

    def _after_copy(self) -> None:
        """After rows came in with their keys (pbem/store/copy.py)."""

    def compact(self) -> bool:
        """Give the room of forgotten rows back to the file system (after `pbem prune`); False
        where the database does it itself (PostgreSQL's autovacuum) or could not now."""
        return False

    @property
    def in_transaction(self) -> bool:
        raise NotImplementedError

    def watch(self, wake) -> object | None:
        """Call `wake()` whenever another process queues work; returns what stop_watching takes."""
        return None

    def stop_watching(self, handle) -> None: ...

    def now(self) -> str:
        return iso(self.clock())

    def query(self, sql: str, params=()) -> list[dict]:
        """Rows of a read, as dicts: for tests and tools; the service's own code calls the
        methods below."""
        return self._all(sql, params)

    def _one(self, sql: str, params=()) -> dict | None:
        rows = self._all(sql, params)
        return rows[0] if rows else None

    # -- the reads of a move's reports, once for all their readers ---------------------------

    _once: dict | None = None  # while `read_once`: what it read, by (table, what) and seat

    @contextlib.contextmanager
    def read_once(self, game: str, addresses: Sequence[str | None] = ()) -> Iterator[None]:
        """Within it, the reads each report of `game` makes for its reader (the seat's row, open
        deadlines, the calendar's cancellations owed, standing orders, vacations; the address
        settings of `addresses`) are one read for all seats each, made at first use: a move's
        reports cost a few statements, not six for each reader (on PostgreSQL a round trip each).
        A write to a table drops what was read of it, so a read after a write reads again.
        Within one for the same game (an answer's, around its move and its reports) it goes on
        with what that one read, its addresses added."""
        outer = self._once
        if outer is not None and outer["game"] == game:
            more = [a.lower() for a in addresses if a and a.lower() not in outer["addresses"]]
            if more:
                outer["addresses"] = [*outer["addresses"], *more]
                outer.pop(("address_settings", "all"), None)
            yield
            return
        self._once = {"game": game, "addresses": [a.lower() for a in addresses if a]}
        try:
            yield
        finally:
            self._once = outer

    def _by_seat(self, table: str, what: str, game: str, sql: str) -> dict[str, list[dict]] | None:
        """The game-wide read `sql` (one parameter: the game) made once within `read_once`, its
        rows by seat (each seat's in the read's order); None outside it."""
        once = self._once
        if once is None or once["game"] != game:
            return None
        by_seat = once.get((table, what))
        if by_seat is None:
            by_seat = once[(table, what)] = self._seats(table, self._all(sql, (game,)))
        return by_seat

    @staticmethod
    def _seats(table: str, rows: list[dict]) -> dict[str, list[dict]]:
        by_seat: dict[str, list[dict]] = {}
        for row in rows:
            by_seat.setdefault(row["name" if table == "players" else "player"], []).append(row)
        return by_seat

    def _all_at_once(self, reads: list[tuple[str, Sequence]]) -> list[list[dict]]:
        """The rows of each read, in order; PostgreSQL sends them together and waits once."""
        return [self._all(sql, params) for sql, params in reads]

    def _seat_rows(self, table: str, what: str, game: str, seat: str, sql: str) -> list[dict] | None:
        """`seat`'s rows of `game` from the game-wide read `sql` (`_by_seat`); None outside `read_once`."""
        by_seat = self._by_seat(table, what, game, sql)
        return None if by_seat is None else [dict(row) for row in by_seat.get(seat, ())]

    def _heads(self) -> dict[str, tuple[int, str]] | None:
        """Within a write transaction (the dialect's, reset at its start): each game's move count
        and the hash its chain ends with, as `game` read them under the game's lock and
        `append_move` left them; None outside one."""
        return None

    def _undone(self) -> None:
        """A savepoint rolled back (its exception caught inside): what was read within `read_once`,
        and the chains' heads, may hold what it undid, so they are read again."""
        heads = self._heads()
        if heads:
            heads.clear()
        if self._once is not None:
            for key in [k for k in self._once if isinstance(k, tuple)]:
                del self._once[key]

    def _the_one(self, sql: str, params=()) -> dict:
        """A read that always finds its row: an aggregate, or a row the caller knows is there."""
        row = self._one(sql, params)
        assert row is not None, sql
        return row

    # plain SQL for the writes of every move. Column names come from this class, never from input.
    def _insert(self, table: str, row: dict) -> None:
        self._write(f"INSERT INTO {table} ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", list(row.values()))

    def _update(self, table: str, where: str, params: tuple, fields: dict) -> int:
        return self._run(*self._setting(table, where, params, fields))

    @staticmethod
    def _setting(table: str, where: str, params: tuple, fields: dict) -> tuple[str, list]:
        """The UPDATE of `fields` in the rows `where` picks, and its parameters."""
        sets = ", ".join(f"{k} = ?" for k in fields)
        return f"UPDATE {table} SET {sets} WHERE {where}", [*fields.values(), *params]

    # -- schema ---------------------------------------------------------------------

    def _applied(self) -> set[int]:
        return {r["version"] for r in self._all("SELECT version FROM schema_migrations")}

    def migrate(self) -> list[int]:
        """Apply the migrations not yet applied, in one transaction; returns their numbers.
        Several processes starting at once: one migrates, the others wait and find it done."""
        try:
            if self._applied() >= {v for v, *_ in migrations.MIGRATIONS}:
                return []
        except self.errors:  # no schema yet
            pass
        applied = []
        with self.transaction():
            self._lock_migrations()
            self._run(migrations.SCHEMA_TABLE)
            done, now = self._applied(), self.now()  # one reading: the clock is no migration counter
            for version, name, _ in migrations.MIGRATIONS:
                if version in done:
                    continue
                for stmt in migrations.statements(version, self.dialect):
                    self._run(stmt)
                self._run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                          (version, name, now))
                applied.append(version)
        if {9, 14} & set(applied):  # 9 masked tokens, 14 seat links too
            self._mask_stored_messages()
        return applied

    def _mask_stored_messages(self) -> None:
        """Once, with migration 9 (and 14): messages stored before it may hold a token (or a
        seat link) in clear (one refused, or in an encoded part); mask them as new ones are
        (pbem/base/tokens.py)."""
        ids = [r["id"] for r in self._all("SELECT id FROM inbox")]
        for id in ids:
            with self.transaction():
                row = self._the_one("SELECT kind, raw FROM inbox WHERE id = ?", (id,))
                raw = bytes(row["raw"])
                masked = tokens.mask_message(raw) if row["kind"] == "mail" else tokens.mask_bytes(raw)
                if masked != raw:
                    self._run("UPDATE inbox SET raw = ? WHERE id = ?", (masked, id))

    def schema_version(self) -> int:
        row = self._the_one("SELECT MAX(version) AS v FROM schema_migrations")
        return row["v"] or 0

    # -- facts about the service (pbem/core/keys.py) ------------------------------------

    def meta(self, name: str) -> str | None:
        row = self._one("SELECT value FROM service_meta WHERE name = ?", (name,))
        return row["value"] if row else None

    def set_meta(self, name: str, value: str) -> None:
        self._run("INSERT INTO service_meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE "
                  "SET value = excluded.value", (name, value))

    def swap_meta(self, name: str, old: str, new: str) -> bool:
        """`name` set to `new` if it is `old`: False if another process changed it first (on
        PostgreSQL this waits for that process's transaction, then sees its value)."""
        return 1 == self._run("UPDATE service_meta SET value = ? WHERE name = ? AND value = ?", (new, name, old))

    def claim_meta(self, name: str, value: str) -> str:
        """`value` recorded under `name` unless one is already (the first process to claim
        wins, however many start at once); the value recorded now."""
        self._run("INSERT INTO service_meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", (name, value))
        recorded = self.meta(name)
        assert recorded is not None, name
        return recorded

    # Statements kept by name: read_once's game-wide reads, and those PostgresStore makes ahead
    # (pg_ahead.py `_read_ahead`, `_loose_reads`), which it serves to exactly these.
    _HEAD = "SELECT hash FROM moves WHERE game = games.id ORDER BY seq DESC LIMIT 1"
    _GAME_SQL = f"SELECT *, ({_HEAD}) AS chain_head FROM games WHERE id = ?"  # within a transaction
    _SEATS_SQL = "SELECT * FROM players WHERE game = ?"
    _TOKEN_SQL = "SELECT * FROM players WHERE token_hash = ?"
    _DEADLINES_SQL = ("SELECT * FROM deadlines WHERE game = ? AND (status = 'open' OR mailed IS NOT NULL) "
                      "ORDER BY due_at, prompt, player")
    _WAITING_SQL = ("SELECT COUNT(*) AS n, MIN(created_at) AS oldest, MIN(next_attempt_at) AS next_try, "
                    "MIN(id) AS oldest_id, (SELECT last_error FROM outbox WHERE status = 'queued' "
                    "AND last_error IS NOT NULL ORDER BY id DESC LIMIT 1) AS last_error "
                    "FROM outbox WHERE status = 'queued' AND kind != 'digest'")
    _ORDERS_SQL = ("SELECT player, n, text, uses, filed_at FROM standing_orders WHERE game = ? AND status = 'active' "
                   "ORDER BY n")  # within read_once: every seat's, read once (with the address settings)

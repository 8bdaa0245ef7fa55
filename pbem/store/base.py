"""The store's interface and the SQL both databases run: `Store` holds every query, written
once with `?` placeholders; pbem/store/sqlite.py and pbem/store/postgres.py give it a
connection, transactions and the few spots where the dialects differ (`_lock_game`,
`FOR_UPDATE`, `SKIP_LOCKED`, `notify`).

Concurrency, the same on both: a write happens inside `transaction()`. SQLite has one writer
at a time (BEGIN IMMEDIATE), so a transaction sees nothing change under it. PostgreSQL runs
them side by side (READ COMMITTED), so what must not interleave is locked explicitly: a game
(an advisory lock, taken when a transaction first reads the game: one answer after the other,
one hash chain), a stored message being processed (its row, FOR UPDATE), and the outbox and
deadline rows a daemon claims (FOR UPDATE SKIP LOCKED: another daemon takes the next one).
"""
from __future__ import annotations

import contextlib
import functools
import json
import re
from collections.abc import Iterator, Sequence
from datetime import timedelta

import msgspec

from pbem.base import tokens
from pbem.store import migrations
from pbem.store.common import _CHAINED, Clock, chain_hash, iso, storable


def rows_insert(insert: tuple[str, str, str], n: int = 1) -> str:
    """The INSERT `insert` (its head, its row of VALUES, its tail) of `n` rows."""
    head, values, tail = insert
    return f"{head} VALUES {', '.join([values] * n)}{tail}"


def _literals(words: Sequence[str]) -> str:
    """Words of our own (a mail's kind) as SQL literals, for a query a partial index serves."""
    if not all(re.fullmatch(r"[a-z_]+", w) for w in words):
        raise ValueError(f"not a kind of mail: {words!r}")
    return ", ".join(f"'{w}'" for w in words)


@functools.lru_cache(maxsize=1024)  # a few dozen statements, each run many times (issue 28: 13 an answer)
def _tables_written(sql: str) -> tuple[str, ...]:
    return tuple(table.lower() for table in Store._WRITES.findall(sql))


class Store:
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

    _WRITES = re.compile(r"\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)", re.IGNORECASE)

    def _written(self, sql: str) -> None:
        """A statement run within `read_once`: what was read of the tables it writes is dropped."""
        once = self._once
        if once is not None:
            for table in _tables_written(sql):
                for key in [k for k in once if isinstance(k, tuple) and k[0] == table]:
                    del once[key]

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
    # -- games and players ----------------------------------------------------------

    def add_game(self, id: str, config: dict, seed: str, seed_commitment: str, state: bytes,
                 engine_version: str, status: str) -> None:
        now = self.now()
        self._insert("games", {
            "id": id, "config": json.dumps(config, sort_keys=True), "status": status, "engine_version": engine_version,
            "seed": seed, "seed_commitment": seed_commitment, "state": state, "moves": 0, "created_at": now,
            "updated_at": now})

    def game(self, id: str) -> dict | None:
        """The game; inside a transaction, locked for it (PostgreSQL): whatever this
        transaction does with the game, no other does at the same time."""
        heads = self._heads()
        if self.in_transaction:
            self._lock_game(id)
        if heads is None:
            row = self._one("SELECT * FROM games WHERE id = ?", (id,))
        else:  # the chain's head too, for append_move (a statement and a wait an answer on PostgreSQL)
            row = self._one(self._GAME_SQL, (id,))
            if row:
                heads[id] = (row["moves"], row.pop("chain_head") or row["seed_commitment"])
        if row:
            row["config"] = json.loads(row["config"])
        return row

    _HEAD = "SELECT hash FROM moves WHERE game = games.id ORDER BY seq DESC LIMIT 1"
    _GAME_SQL = f"SELECT *, ({_HEAD}) AS chain_head FROM games WHERE id = ?"  # within a transaction

    def games(self) -> list[dict]:
        rows = self._all("SELECT id, status, engine_version, moves, created_at, updated_at FROM games "
                         "ORDER BY created_at, id")
        return rows

    def update_game(self, id: str, **fields) -> None:
        if "config" in fields:
            fields["config"] = json.dumps(fields["config"], sort_keys=True)
        heads = self._heads()
        if heads and id in heads and fields.get("moves", heads[id][0]) != heads[id][0]:
            del heads[id]  # not the count append_move left: read the chain again
        fields["updated_at"] = self.now()
        self._write(*self._setting("games", "id = ?", (id,), fields))

    # a game's seed is kept sealed (pbem/base/sealed.py, pbem/core/games.py): these only move it
    def games_with_clear_seeds(self) -> list[str]:
        """Games whose seed was stored before seeds were sealed."""
        return [r["id"] for r in self._all("SELECT id FROM games WHERE seed NOT LIKE 'sealed:%' ORDER BY id")]

    def sealed_seeds(self) -> list[dict]:
        """Every game's id and sealed seed (a key rotation seals them again)."""
        return self._all("SELECT id, seed FROM games ORDER BY id" + self.FOR_UPDATE)

    def set_seed(self, id: str, seed: str, state: bytes | None = None) -> None:
        """The sealed seed (and the state without it), leaving the game's `updated_at` as it was."""
        self._update("games", "id = ?", (id,), {"seed": seed} if state is None else {"seed": seed, "state": state})

    def scrub(self) -> None:
        """After secrets were overwritten: nothing of them left in the files this store keeps
        (SQLite: its pages are zeroed as freed, `secure_delete`; the write-ahead log is emptied)."""

    def add_player(self, game: str, name: str, seat: int, email: str, token_hash: str, token_salt: str,
                   role: str = "hero", character: str | None = None, bot: str | None = None) -> None:
        """A seat; a bot seat (`bot`: its level) has no person: status `bot`, no address."""
        self._insert("players", {"game": game, "name": name, "seat": seat, "email": email, "token_hash": token_hash,
                                 "token_salt": token_salt, "role": role, "character": character,
                                 "status": "bot" if bot else "active", "bot": bot, "bot_by": "seat" if bot else None})

    # Statements kept by name: read_once's game-wide reads, and those PostgresStore makes ahead
    # (postgres.py `_read_ahead`, `_loose_reads`), which it serves to exactly these.
    _SEATS_SQL = "SELECT * FROM players WHERE game = ?"
    _TOKEN_SQL = "SELECT * FROM players WHERE token_hash = ?"
    _DEADLINES_SQL = ("SELECT * FROM deadlines WHERE game = ? AND (status = 'open' OR mailed IS NOT NULL) "
                      "ORDER BY due_at, prompt, player")
    _WAITING_SQL = ("SELECT COUNT(*) AS n, MIN(created_at) AS oldest, MIN(next_attempt_at) AS next_try, "
                    "MIN(id) AS oldest_id, (SELECT last_error FROM outbox WHERE status = 'queued' "
                    "AND last_error IS NOT NULL ORDER BY id DESC LIMIT 1) AS last_error "
                    "FROM outbox WHERE status = 'queued' AND kind != 'digest'")

    def player(self, game: str, name: str) -> dict | None:
        once = self._seat_rows("players", "all", game, name, self._SEATS_SQL)
        if once is not None:
            return once[0] if once else None
        return self._one("SELECT * FROM players WHERE game = ? AND name = ?", (game, name))

    def players(self, game: str, active_only: bool = False) -> list[dict]:
        by_seat = self._by_seat("players", "all", game, self._SEATS_SQL)
        if by_seat is not None:  # read_once: the seats' one read
            return sorted((dict(r) for rows in by_seat.values() for r in rows
                           if not active_only or r["status"] == "active"), key=lambda r: r["seat"])
        sql = self._SEATS_SQL + (" AND status = 'active'" if active_only else "")
        return self._all(sql + " ORDER BY seat", (game,))

    def players_by_token_hash(self, token_hash: str) -> list[dict]:
        return self._all(self._TOKEN_SQL, (token_hash,))

    def update_player(self, game: str, name: str, **fields) -> None:
        self._update("players", "game = ? AND name = ?", (game, name), fields)

    # -- a person's settings across games (pbem/core/people.py) ------------------------

    ADDRESS_FIELDS = ("language", "mail", "zone", "digest_at", "digest_day", "digest_salt")

    def address_settings(self, address: str) -> dict | None:
        address, once = address.lower(), self._once
        if once is not None and address in once["addresses"]:  # read_once: all of them in one read
            rows = once.get(("address_settings", "all"))
            if rows is None:
                wanted = once["addresses"]
                reads = [(f"SELECT * FROM address_settings WHERE address IN ({', '.join('?' * len(wanted))})", wanted)]
                orders = ("standing_orders", "active") not in once
                if orders:  # a move's reports read both: one wait for the two on PostgreSQL
                    reads.append((self._ORDERS_SQL, (once["game"],)))
                got = self._all_at_once(reads)
                rows = once[("address_settings", "all")] = {r["address"]: r for r in got[0]}
                if orders:
                    once[("standing_orders", "active")] = self._seats("standing_orders", got[1])
            return dict(rows[address]) if address in rows else None
        return self._one("SELECT * FROM address_settings WHERE address = ?", (address,))

    def set_address_settings(self, address: str, **fields) -> None:
        """Set some of an address's settings (ADDRESS_FIELDS), the others kept."""
        assert fields and set(fields) <= set(self.ADDRESS_FIELDS), fields
        names = ", ".join(fields)
        self._run(f"INSERT INTO address_settings (address, {names}, updated_at) VALUES (?, "
                  f"{', '.join('?' * len(fields))}, ?) ON CONFLICT (address) DO UPDATE SET "
                  + ", ".join(f"{k} = excluded.{k}" for k in fields) + ", updated_at = excluded.updated_at",
                  (address.lower(), *fields.values(), self.now()))

    def addresses_by_mail(self, choices: tuple[str, ...]) -> list[dict]:
        """The settings of every address whose `mail` is one of `choices` (pbem/pace/daily.py)."""
        marks = ", ".join("?" * len(choices))
        return self._all(f"SELECT * FROM address_settings WHERE mail IN ({marks}) ORDER BY address", choices)

    def claim_digest_day(self, address: str, day: str) -> bool:
        """Mark `day` (the address's local date) as the one its digest went on; False when it had
        been marked already (another daemon, or an earlier cycle), so one digest goes a day."""
        return self._run("UPDATE address_settings SET digest_day = ? WHERE address = ? AND "
                         "(digest_day IS NULL OR digest_day <> ?)", (day, address.lower(), day)) == 1

    def delete_player(self, game: str, name: str) -> None:
        """Only for a game that has not started: a started game keeps its seats."""
        self._run("DELETE FROM players WHERE game = ? AND name = ?", (game, name))

    # -- the move log ----------------------------------------------------------------

    def append_move(self, game: str, *, kind: str, player: str | None, actor: str, line: str,
                    state_hash: str, prompt: int | None = None, message_id: str | None = None,
                    inbox_id: int | None = None, count: bool = True) -> dict:
        """Append one hash-chained row; returns it (with its seq). `count` False: the caller
        sets the game's `moves` to it in its own update of the game row (one write, not two).
        The chain's head is read, unless this transaction read it with the game (`game`, under
        the game's lock: no one else appends meanwhile) or appended the last move itself."""
        heads = self._heads()
        head = heads.get(game) if heads is not None else None
        if head is None:
            g = self._the_one(f"SELECT moves, seed_commitment, ({self._HEAD}) AS last FROM games WHERE id = ?", (game,))
            head = (g["moves"], g["last"] or g["seed_commitment"])  # the chain starts at the seed's commitment
        moves, prev = head
        row = {"game": game, "seq": moves + 1, "kind": kind, "player": player, "actor": actor, "line": line,
               "prompt": prompt, "message_id": message_id, "inbox_id": inbox_id, "at": self.now()}
        row = {k: storable(v) if isinstance(v, str) else v for k, v in row.items()}  # hashed as it is stored
        digest = chain_hash(prev, {k: row[k] for k in _CHAINED}, state_hash)
        row.update(state_hash=state_hash, prev_hash=prev, hash=digest)
        self._insert("moves", row)
        if heads is not None:
            heads[game] = (moves + 1, digest)
        if count:
            self._write("UPDATE games SET moves = ?, updated_at = ? WHERE id = ?", (row["seq"], row["at"], game))
        return row

    def moves(self, game: str, after: int = 0, upto: int | None = None) -> list[dict]:
        sql, params = "SELECT * FROM moves WHERE game = ? AND seq > ?", [game, after]
        if upto is not None:
            sql += " AND seq <= ?"
            params.append(upto)
        return self._all(sql + " ORDER BY seq", params)

    def add_move_events(self, game: str, seq: int, events: str) -> None:
        """What move `seq` showed (JSON, see pbem/outbound/turnmail.py); outside the hash chain:
        the engine derives it again from the log."""
        once = self._once
        kept = once.get(("move_events", "written")) if once is not None and once["game"] == game else None
        self._write("INSERT INTO move_events (game, seq, events) VALUES (?, ?, ?)", (game, seq, events))
        if once is not None and once["game"] == game:  # the move's reports read them next: kept, as stored
            once[("move_events", "written")] = {**(kept or {}), seq: storable(events)}  # rows are never changed

    def move_events(self, game: str, after: int, upto: int) -> list[dict]:
        """The events of moves after `after` up to `upto`. Within `read_once`, those of moves it
        stored itself come from what it stored: a move's reports read the move just played (a
        statement an answered mail)."""
        once = self._once
        written = once.get(("move_events", "written")) if once is not None and once["game"] == game else None
        if written and all(seq in written for seq in range(after + 1, upto + 1)):
            return [{"seq": seq, "events": written[seq]} for seq in range(after + 1, upto + 1)]
        return self._all("SELECT seq, events FROM move_events WHERE game = ? AND seq > ? AND seq <= ? ORDER BY seq",
                         (game, after, upto))

    def set_reported(self, game: str, names: str | Sequence[str], seq: int) -> None:
        """The reports of `names` (one name, or several in one statement) have shown the
        events up to move `seq`."""
        names = [names] if isinstance(names, str) else list(names)
        if names:
            once = self._once
            seats = once.get(("players", "all")) if once is not None and once["game"] == game else None
            marks = ", ".join("?" * len(names))
            self._write(f"UPDATE players SET reported_seq = ? WHERE game = ? AND name IN ({marks})",
                        (seq, game, *names))
            if seats is not None and once is not None and self._once is once:  # read_once: the seats stay read
                once[("players", "all")] = {name: [{**r, "reported_seq": seq} if name in names else r for r in rows]
                                            for name, rows in seats.items()}

    def rewind_reported(self, game: str, name: str, seq: int) -> None:
        """A report that began at move `seq` was not delivered: the next one starts there again."""
        self._run("UPDATE players SET reported_seq = ? WHERE game = ? AND name = ? AND reported_seq > ?",
                  (seq, game, name, seq))

    def verify_chain(self, game: str) -> list[str]:
        """What is wrong with the move log of `game` (empty: the chain holds)."""
        g = self._the_one("SELECT moves, seed_commitment FROM games WHERE id = ?", (game,))
        problems, prev = [], g["seed_commitment"]
        rows = self.moves(game)
        for expected, row in enumerate(rows, 1):
            if row["seq"] != expected:
                problems.append(f"move {expected} is missing (found {row['seq']})")
                break
            if row["prev_hash"] != prev:
                problems.append(f"move {row['seq']}: does not follow move {row['seq'] - 1}")
            if chain_hash(row["prev_hash"], {k: row[k] for k in _CHAINED}, row["state_hash"]) != row["hash"]:
                problems.append(f"move {row['seq']}: its record was changed")
            prev = row["hash"]
        if len(rows) != g["moves"]:
            problems.append(f"the game counts {g['moves']} moves, the log holds {len(rows)}")
        return problems

    def save_snapshot(self, game: str, seq: int, state: bytes, replace: bool = False) -> None:
        """`replace`: only for seq 0 of a game that has not started (its seats changed)."""
        action = "UPDATE SET state = excluded.state" if replace else "NOTHING"
        self._run(f"INSERT INTO snapshots (game, seq, state) VALUES (?, ?, ?) "
                        f"ON CONFLICT (game, seq) DO {action}", (game, seq, state))

    def snapshots(self, game: str) -> list[dict]:
        return self._all("SELECT seq, state FROM snapshots WHERE game = ? ORDER BY seq", (game,))

    def snapshot_before(self, game: str, seq: int) -> dict | None:
        """The latest snapshot at or before `seq`."""
        return self._one("SELECT seq, state FROM snapshots WHERE game = ? AND seq <= ? ORDER BY seq DESC LIMIT 1",
                         (game, seq))

    # -- inbox -----------------------------------------------------------------------

    def find_inbox(self, message_id: str | None, content_hash: str) -> dict | None:
        """The stored message with this content, else with this Message-ID (one query)."""
        return self._one("SELECT * FROM inbox WHERE content_hash = ? OR message_id = ? "
                         "ORDER BY content_hash = ? DESC LIMIT 1", (content_hash, message_id, content_hash))

    def add_inbox(self, raw: bytes, *, source: str, kind: str, content_hash: str,
                  message_id: str | None = None, filename: str | None = None, token_hash: str | None = None,
                  stored: dict | None = None) -> int:
        """Store a message (`raw` with its tokens masked; `token_hash`: sha256 of the one it
        carried). `stored`, if given, is filled with the new row as `inbox()` would read it, so
        the caller that processes it next need not read it back (left empty when the message
        was stored meanwhile by another process)."""
        rows = self._all(
            "INSERT INTO inbox (received_at, source, kind, filename, raw, message_id, content_hash, token_hash, "
            "status, attempts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'received', 0) ON CONFLICT DO NOTHING RETURNING *",
            (self.now(), source, kind, filename, raw, message_id, content_hash, token_hash))
        if not rows:  # stored meanwhile by another process (the unique keys): that one is it
            found = self.find_inbox(message_id, content_hash)
            assert found is not None  # the conflict was with it
            return found["id"]
        self.notify("inbox")
        if stored is not None:
            stored.update(rows[0])
        return rows[0]["id"]

    def inbox(self, id: int) -> dict | None:
        """The stored message; inside a transaction, locked for it (one process handles it)."""
        return self._one("SELECT * FROM inbox WHERE id = ?" + (self.FOR_UPDATE if self.in_transaction else ""), (id,))

    def retoken_inbox(self, old_hash: str, new_hash: str) -> int:
        """Messages stored but not yet processed that carried the token `old_hash` now count as
        carrying `new_hash` (the key was rotated under them: they were sent in good faith)."""
        return self._run("UPDATE inbox SET token_hash = ? WHERE token_hash = ? AND status = 'received'",
                         (new_hash, old_hash))

    def inbox_rows(self, status: str | None = None, limit: int = 1000) -> list[dict]:
        sql = ("SELECT id, received_at, source, kind, filename, message_id, status, outcome, game, player, attempts "
               "FROM inbox")
        params: list = []
        if status:
            sql += " WHERE status = ?"
            params.append(status)
        return self._all(sql + " ORDER BY id LIMIT ?", params + [limit])

    def finish_inbox(self, id: int, status: str, outcome: str, game: str | None = None,
                     player: str | None = None, raw: bytes | None = None) -> None:
        """Mark a message done; `raw`: the message as kept from now on (its token masked)."""
        self._write("UPDATE inbox SET status = ?, outcome = ?, game = ?, player = ?, processed_at = ?, "
                    "raw = COALESCE(?, raw) WHERE id = ?", (status, outcome, game, player, self.now(), raw, id))

    def inbox_attempt_failed(self, id: int, error: str, max_attempts: int) -> bool:
        """Processing raised: count it; after `max_attempts` stop retrying (status failed).
        True when this attempt was the last."""
        self._run(
            "UPDATE inbox SET attempts = attempts + 1, outcome = ?, "
            "status = CASE WHEN attempts + 1 >= ? THEN 'failed' ELSE status END WHERE id = ? AND status = 'received'",
            (f"error: {error}", max_attempts, id))
        row = self._one("SELECT status, attempts FROM inbox WHERE id = ?", (id,))
        return row is not None and row["status"] == "failed" and row["attempts"] == max_attempts

    # -- outbox ----------------------------------------------------------------------

    def add_outbox(self, *, message_id: str, kind: str, to_addr: str, subject: str, headers: dict,
                   text: str, html: str | None = None, game: str | None = None, player: str | None = None,
                   token_marker: str | None = None, inbox_id: int | None = None, context: str | None = None,
                   since_seq: int | None = None, calendar: str | None = None, told: str | None = None,
                   counted: bool = True) -> bool | None:
        """Queue a mail (`context`: JSON it is rendered from when sent, pbem/outbound/outbox.py;
        `calendar`: its text/calendar part; `told`: a digest's seats and where each was before it);
        a second row with the same Message-ID is the same mail and is dropped. `counted`: say
        whether it was queued (else None: on PostgreSQL the row then goes without waiting, and
        the outbox is notified either way)."""
        now = self.now()
        sql = rows_insert(self._OUTBOX_ROW)
        params = (message_id, game, player, kind, to_addr, subject, msgspec.json.encode(headers).decode(), text, html,
                  token_marker, inbox_id, context, since_seq, calendar, told, now, now)
        if not counted:
            self._write_row(self._OUTBOX_ROW, params)
            self.notify("outbox")  # a mail queued before: a daemon woken for nothing
            return None
        n = self._run(sql, params)
        if n:
            self.notify("outbox")
        return n == 1

    _OUTBOX_ROW = ("INSERT INTO outbox (message_id, game, player, kind, to_addr, subject, headers, text, html, "
                   "token_marker, inbox_id, context, since_seq, calendar, told, status, attempts, created_at, "
                   "next_attempt_at)", "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', 0, ?, ?)",
                   " ON CONFLICT (message_id) DO NOTHING")

    def _write_row(self, insert: tuple[str, str, str], params: Sequence) -> None:
        """The INSERT `insert` (its head, its row of VALUES, its tail) of one row, a write nobody
        reads (`_write`). PostgreSQL sends the rows of one INSERT that follow each other in a
        transaction as one statement (PostgresStore._write_row)."""
        self._write(rows_insert(insert), params)

    def add_frame(self, frame: str) -> int:
        """Store what a move's reports are made from (JSON, contexts.store_made), which several
        queued mails share; its id. The table is still named for the frame it once held."""
        return self._all("INSERT INTO report_frames (frame) VALUES (?) RETURNING id", (frame,))[0]["id"]

    def frame(self, id: int) -> str:
        return self._the_one("SELECT frame FROM report_frames WHERE id = ?", (id,))["frame"]

    def outbox_due(self, page: int = 200) -> Iterator[dict]:
        """The rows due now, fetched `page` at a time (a burst of thousands is never all in memory)."""
        now, after = self.now(), 0
        while True:
            rows = self._all("SELECT * FROM outbox WHERE status = 'queued' AND next_attempt_at <= ? AND id > ? "
                             "ORDER BY id LIMIT ?", (now, after, page))
            yield from rows
            if len(rows) < page:
                return
            after = rows[-1]["id"]

    # Exactly-once sending: a sender claims rows before it sends them, with a lease. Another
    # sender (a second daemon, `serve --once`) skips a claimed row until its lease has run
    # out, which happens only if its sender died. The claim is one UPDATE ... RETURNING over
    # a subselect, inside BEGIN IMMEDIATE (SQLite's one writer); PostgreSQL takes the same
    # statement with FOR UPDATE SKIP LOCKED in the subselect (a row another daemon is
    # claiming is passed over, not waited for). A sender claims a batch of rows in one
    # statement and one commit (pbem/outbound/sending.py), not a commit per mail.
    CLAIM_SQL = ("UPDATE outbox SET claimed_by = ?, claim_until = ? WHERE id IN ("
                 "SELECT id FROM outbox WHERE status = 'queued' AND next_attempt_at <= ? "
                 "AND (claim_until IS NULL OR claim_until <= ?){skip} ORDER BY next_attempt_at, id LIMIT ?{lock}) "
                 "RETURNING *")  # the index outbox_queue's order: the first free rows, never a sort of the queue
    # A sender fills each mail's token in with its own key: one whose key is no longer the
    # service's (another machine ran `pbem key rotate`) claims nothing (pbem/core/keys.py).
    KEY_SQL = " AND EXISTS (SELECT 1 FROM service_meta WHERE name = 'key_fingerprint' AND value = ?)"
    key_fingerprint: str | None = None  # the key this process sends with, once checked (pbem/core/keys.py)

    def claim_outbox_rows(self, owner: str, lease_seconds: float, limit: int, skip: Sequence[int] = ()) -> list[dict]:
        """The next `limit` due rows at most (none of `skip`), in the order they are due, claimed
        by `owner` for `lease_seconds`; none when the service's key is no longer
        `key_fingerprint`."""
        skip_sql = f" AND id NOT IN ({', '.join('?' * len(skip))})" if skip else ""
        key = (self.key_fingerprint,) if self.key_fingerprint else ()
        now = self.clock()
        until = iso(now + timedelta(seconds=lease_seconds))
        # one statement, its own transaction (outside one, no BEGIN and COMMIT around it): a write
        # statement takes the write lock before it reads (SQLite), FOR UPDATE SKIP LOCKED (PostgreSQL)
        rows = self._all(self.CLAIM_SQL.format(skip=(self.KEY_SQL if key else "") + skip_sql, lock=self.SKIP_LOCKED),
                         (owner, until, iso(now), iso(now), *key, *skip, limit))
        return sorted(rows, key=lambda r: (r["next_attempt_at"], r["id"]))  # RETURNING keeps no order

    def claim_outbox(self, owner: str, lease_seconds: float, skip: Sequence[int] = ()) -> dict | None:
        """The next due row (not one of `skip`), claimed by `owner` for `lease_seconds`; None
        when none is free, or when the service's key is no longer `key_fingerprint`."""
        rows = self.claim_outbox_rows(owner, lease_seconds, 1, skip)
        return rows[0] if rows else None

    def release_outbox(self, owner: str, ids: Sequence[int]) -> int:
        """`owner`'s claims on rows `ids` given up, unsent (a stop, or a batch whose lease would
        not cover them): another sender may take them at once."""
        if not ids:
            return 0
        return self._run(f"UPDATE outbox SET claimed_by = NULL, claim_until = NULL WHERE claimed_by = ? "
                         f"AND status = 'queued' AND id IN ({', '.join('?' * len(ids))})", (owner, *ids))

    def outbox_waiting(self) -> dict:
        """What waits to be sent (the moderator's notices about it aside), for `serve` and
        `outbox list`: how many, since when, the next try and the last error."""
        return self._the_one(self._WAITING_SQL)

    def outbox_health(self) -> dict:
        """For `pbem status`: mails waiting and since when, how many are due now and since when
        the oldest of them is, how many were given up."""
        now = self.now()
        return self._the_one(
            "SELECT COUNT(*) AS waiting, MIN(created_at) AS oldest, "
            "COALESCE(SUM(CASE WHEN next_attempt_at <= ? THEN 1 ELSE 0 END), 0) AS due, "
            "MIN(CASE WHEN next_attempt_at <= ? THEN next_attempt_at END) AS oldest_due, "
            "(SELECT COUNT(*) FROM outbox WHERE status = 'failed') AS failed "
            "FROM outbox WHERE status = 'queued'", (now, now))

    def uses(self, what: str, who: str, since: str) -> int:
        """How many `what` `who` made the service do since `since` (pbem/outbound/limits.py)."""
        return self._the_one("SELECT COALESCE(SUM(n), 0) AS n FROM uses WHERE what = ? AND who = ? AND at >= ?",
                             (what, who, since))["n"]

    # A use's row holds the running total of its (what, who) (migration 22), so the count since a
    # time is the latest total less the total before the first row since then: two seeks in the
    # key's b-tree, however many rows the window holds, and no DELETE an answer (rows too old to
    # count are read by nothing; they go when a key's total passes a multiple of FORGET_EVERY).
    # `at` never goes back within a key (a clock set back counts from the latest row's time), so
    # the totals rise in the key's order and the difference is the window's sum.
    _TAKE = ("INSERT INTO uses (what, who, at, n, total) SELECT ?, ?, CASE WHEN last_at > ? THEN last_at ELSE ? END, "
             "fits, last + fits FROM (SELECT CASE WHEN ? - (last - first) < ? THEN ? - (last - first) ELSE ? END "
             "AS fits, last, last_at FROM (SELECT COALESCE(l.total, 0) AS last, l.at AS last_at, "
             "COALESCE(f.before, l.total, 0) AS first FROM (SELECT 1 AS one) AS o "
             "LEFT JOIN (SELECT total, at FROM uses WHERE what = ? AND who = ? ORDER BY at DESC, total DESC LIMIT 1) "
             "AS l ON 1 = 1 LEFT JOIN (SELECT total - n AS before FROM uses WHERE what = ? AND who = ? AND at >= ? "
             "ORDER BY at, total LIMIT 1) AS f ON 1 = 1) AS t) AS room WHERE fits > 0 RETURNING n, total")
    FORGET_EVERY = 64
    UNLIMITED = 2 ** 62

    def take_uses(self, what: str, who: str, n: int, allowed: int, since: str, forget_before: str | None = None) -> int:
        """Count as many of `n` more `what` as fit under `allowed` since `since`, and say how many:
        one statement. Rows older than `forget_before` (else `since`) no longer count and go
        now and then (FORGET_EVERY)."""
        now = self.now()
        row = self._one(self._TAKE, (what, who, now, now, allowed, n, allowed, n, what, who, what, who, since))
        if row is None:
            return 0
        if row["total"] // self.FORGET_EVERY != (row["total"] - row["n"]) // self.FORGET_EVERY:
            self._write("DELETE FROM uses WHERE what = ? AND who = ? AND at < ?", (what, who, forget_before or since))
        return row["n"]

    def add_uses(self, what: str, who: str, n: int, forget_before: str) -> None:
        """Count `n` more; what is older than `forget_before` no longer counts and goes (now and then)."""
        self.take_uses(what, who, n, self.UNLIMITED, forget_before)

    def count_mail_to(self, to_addr: str, kinds: tuple[str, ...], since: str) -> int:
        """How many mails of `kinds` were queued to `to_addr` since `since`. The kinds are written
        into the statement: a partial index serves only a query that names its rows (migration 22)."""
        return self._the_one(f"SELECT COUNT(*) AS n FROM outbox WHERE lower(to_addr) = lower(?) AND "
                             f"kind IN ({_literals(kinds)}) AND created_at >= ?", (to_addr, since))["n"]

    def withdraw_queued(self, game: str, player: str, kinds: tuple[str, ...], headers_hold: str) -> int:
        """The seat's mails of `kinds` not sent yet whose stored headers hold `headers_hold` (a
        question they ask, answered meanwhile) are never sent: status 'withdrawn'."""
        marks = ", ".join("?" * len(kinds))
        return self._run(f"UPDATE outbox SET status = 'withdrawn' WHERE status = 'queued' AND game = ? AND player = ? "
                         f"AND kind IN ({marks}) AND headers LIKE ?", (game, player, *kinds, f"%{headers_hold}%"))

    def withdrawn_calendars(self, game: str, player: str, kinds: tuple[str, ...], headers_hold: str) -> list[dict]:
        """The calendar parts of the seat's withdrawn mails of `kinds` whose headers hold `headers_hold`."""
        marks = ", ".join("?" * len(kinds))
        return self._all(f"SELECT to_addr, calendar FROM outbox WHERE status = 'withdrawn' AND game = ? AND player = ? "
                         f"AND kind IN ({marks}) AND headers LIKE ? AND calendar IS NOT NULL",
                         (game, player, *kinds, f"%{headers_hold}%"))

    def calendars_to(self, to_addr: str, since: str) -> list[str]:
        """The calendar parts of the mails to `to_addr` made at or after `since` that went or
        will go (not withdrawn), newest first."""
        return [r["calendar"] for r in self._all(
            "SELECT calendar FROM outbox WHERE to_addr = ? AND created_at >= ? AND calendar IS NOT NULL "
            "AND status != 'withdrawn' ORDER BY id DESC", (to_addr, since))]

    def outbox_rows(self, status: str | None = None) -> list[dict]:
        sql = ("SELECT id, message_id, game, player, kind, to_addr, subject, status, attempts, last_error, "
               "created_at, next_attempt_at, sent_at FROM outbox")
        if status:
            return self._all(sql + " WHERE status = ? ORDER BY id", (status,))
        return self._all(sql + " ORDER BY id")

    def outbox_queued_contexts(self, per_kind: int) -> list[dict]:
        """The newest queued mails still held as their context, at most `per_kind` of each kind
        (pbem/outbound/overrides.py renders them with a home's templates)."""
        rows = self._all("SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY kind ORDER BY id DESC) AS nth "
                         "FROM outbox WHERE context IS NOT NULL) AS queued WHERE nth <= ? ORDER BY id DESC",
                         (per_kind,))  # only those: a queue of thousands is not read whole
        for row in rows:
            del row["nth"]
        return rows

    def outbox_mail(self, id: int) -> dict | None:
        return self._one("SELECT * FROM outbox WHERE id = ?", (id,))

    def last_outbox(self, game: str, player: str, kinds: tuple[str, ...]) -> dict | None:
        marks = ", ".join("?" * len(kinds))
        return self._one(f"SELECT * FROM outbox WHERE game = ? AND player = ? AND kind IN ({marks}) "
                         "ORDER BY id DESC LIMIT 1", (game, player, *kinds))

    def count_outbox(self, game: str, player: str, kind: str) -> int:
        return self._the_one("SELECT COUNT(*) AS n FROM outbox WHERE game = ? AND player = ? AND kind = ?",
                         (game, player, kind))["n"]

    def outbox_rendered(self, id: int, text: str, html: str | None) -> None:
        """The row's text and HTML, rendered from its context, which it needs no more."""
        self._run("UPDATE outbox SET text = ?, html = ?, context = NULL WHERE id = ?", (text, html, id))

    def outbox_sent(self, id: int, text: str | None = None, html: str | None = None, owner: str | None = None) -> bool:
        """Sent; `text` and `html`, when given, as rendered for it (as outbox_rendered: the
        context goes), in the same statement. With `owner`: only while `owner` still holds the
        row's claim (False: another sender took it when the lease ran out, and sends it)."""
        rendered = "text = ?, html = ?, context = NULL, " if text is not None else ""
        held = " AND claimed_by = ?" if owner is not None else ""
        return 1 == self._run(f"UPDATE outbox SET {rendered}status = 'sent', attempts = attempts + 1, sent_at = ?, "
                              f"last_error = NULL, claimed_by = NULL, claim_until = NULL WHERE id = ?{held}",
                              ((text, html) if text is not None else ()) + (self.now(), id)
                              + ((owner,) if owner is not None else ()))

    def outbox_sent_rows(self, rows: Sequence[tuple[int, str, str | None]], owner: str) -> set[int]:
        """A batch of rows sent, each (id, text, html) as rendered for it (as outbox_sent), in one
        statement, its own commit: only those `owner` still holds (another sender took the others
        when the lease ran out); the ids it marked. A mark a statement was a commit a mail, and on
        PostgreSQL about a third of the server's work of an answered mail (issue 28)."""
        if not rows:
            return set()
        # VALUES, each text a parameter of its own: three arrays unnested (one statement's text for
        # any count) cost PostgreSQL twice the server's CPU and 40 % more of psycopg's than a
        # statement a row (each array's text escaped, then parsed), VALUES a third less of both
        values = ", ".join(["(?, ?, ?)"] * len(rows))
        return {r["id"] for r in self._all(
            f"WITH m (mark_id, mark_text, mark_html) AS (VALUES {values}) UPDATE outbox SET text = m.mark_text, "
            "html = m.mark_html, context = NULL, status = 'sent', attempts = attempts + 1, sent_at = ?, "
            "last_error = NULL, claimed_by = NULL, claim_until = NULL FROM m "
            "WHERE outbox.id = m.mark_id AND outbox.claimed_by = ? RETURNING outbox.id",
            (*[v for row in rows for v in row], self.now(), owner))}

    def outbox_attempt_failed(self, id: int, error: str, retry_at: str | None, owner: str | None = None) -> bool:
        """A send failed: try again at `retry_at`, or give up (None). Only for a row `owner`
        holds, or one no live claim holds (False: another sender has it now)."""
        return 1 == self._run("UPDATE outbox SET attempts = attempts + 1, last_error = ?, status = ?, "
                              "next_attempt_at = COALESCE(?, next_attempt_at), claimed_by = NULL, claim_until = NULL "
                              "WHERE id = ? AND status = 'queued' AND (claimed_by IS NULL OR claimed_by = ? "
                              "OR claim_until <= ?)",
                              (error, "queued" if retry_at else "failed", retry_at, id, owner, self.now()))

    def outbox_retry_failed(self) -> int:
        return self._run("UPDATE outbox SET status = 'queued', next_attempt_at = ? WHERE status = 'failed'",
                         (self.now(),))

    # -- the moderator's notices (pbem/outbound/notices.py) ---------------------------------

    def add_notice(self, *, key: str, kind: str, game: str | None, to_addr: str, text: str) -> bool:
        """A notice for `to_addr`; True if it is new. The same `key` while it waits is counted
        (the digest says how often); once told, it adds nothing."""
        rows = self._all("INSERT INTO notices (key, kind, game, to_addr, text, count, created_at) "
                         "VALUES (?, ?, ?, ?, ?, 1, ?) ON CONFLICT (key) DO UPDATE SET count = notices.count + 1 "
                         "WHERE notices.told_in IS NULL RETURNING count", (key, kind, game, to_addr, text, self.now()))
        if rows:
            self.notify("notice")
        return bool(rows) and rows[0]["count"] == 1

    def notice_recipients(self) -> list[str]:
        """The addresses some notice waits for."""
        return [r["to_addr"] for r in self._all("SELECT DISTINCT to_addr FROM notices WHERE told_in IS NULL "
                                                "ORDER BY to_addr")]

    def waiting_notices(self, to_addr: str, per_kind: int) -> list[dict]:
        """The notices waiting for `to_addr`, the first `per_kind` of each kind, each with how
        many of its kind wait (`of_kind`) and the newest id of them all (`last`)."""
        return self._all("SELECT * FROM (SELECT n.*, ROW_NUMBER() OVER (PARTITION BY kind ORDER BY id) AS nth, "
                         "COUNT(*) OVER (PARTITION BY kind) AS of_kind, MAX(id) OVER () AS last FROM notices n "
                         "WHERE to_addr = ? AND told_in IS NULL) t WHERE nth <= ? ORDER BY id", (to_addr, per_kind))

    def notices_told(self, to_addr: str, last: int, message_id: str) -> int:
        """The notices for `to_addr` up to id `last` were told in the digest `message_id`."""
        return self._run("UPDATE notices SET told_in = ? WHERE to_addr = ? AND told_in IS NULL AND id <= ?",
                         (message_id, to_addr, last))

    def last_mail_to(self, to_addr: str, kind: str) -> str | None:
        """When the last mail of `kind` to `to_addr` was queued (the index outbox_digests for digests)."""
        return self._the_one(f"SELECT MAX(created_at) AS at FROM outbox WHERE to_addr = ? AND "
                             f"kind = {_literals((kind,))}", (to_addr,))["at"]

    def lock_notices(self, to_addr: str) -> None:
        """Inside a transaction: one digest for `to_addr` at a time (PostgreSQL: the game lock's
        advisory lock under a name no game id has; SQLite has one writer anyway)."""
        self._lock_game(f"notices\n{to_addr}")

    # -- a season's chores: `pbem prune` (pbem/moderate/prune.py) ------------------------------

    RESENT = ("report", "receipt", "error", "resend")  # what `player resend` sends again (the last of them)

    @staticmethod
    def _of_games(column: str, games: Sequence[str] | None) -> tuple[str, list]:
        if games is None:
            return "", []
        return f" AND {column} IN ({', '.join('?' * len(games)) or 'NULL'})", list(games)

    def prune_inbox(self, before: str, games: Sequence[str] | None = None) -> dict:
        """Forget the raw bytes of the messages processed before `before` (of `games`, if
        given); every row stays (its Message-ID and content hash still know a redelivery).
        {rows, bytes} forgotten."""
        where, params = self._of_games("game", games)
        where = "status = 'processed' AND received_at < ? AND length(raw) > 0" + where
        found = self._the_one(f"SELECT COUNT(*) AS rows, COALESCE(SUM(length(raw)), 0) AS bytes FROM inbox "
                              f"WHERE {where}", (before, *params))
        self._run(f"UPDATE inbox SET raw = ? WHERE {where}", (b"", before, *params))
        return found

    def prune_outbox(self, before: str, games: Sequence[str] | None = None) -> dict:
        """Forget the bodies of the mails sent (or withdrawn) before `before` (of `games`, if given), but the
        last of RESENT to each seat of a game not ended (`player resend`); every row stays (a
        bounce names it, a stranger's replies are counted). {rows, bytes, ids} forgotten."""
        where, params = self._of_games("game", games)
        marks = ", ".join("?" * len(self.RESENT))
        where = ("status IN ('sent', 'withdrawn') AND created_at < ? "
                 "AND (text != '' OR html IS NOT NULL OR context IS NOT NULL) "
                 "AND id NOT IN (SELECT MAX(o.id) FROM outbox o JOIN games g ON g.id = o.game "
                 f"WHERE g.status != 'ended' AND o.player IS NOT NULL AND o.kind IN ({marks}) "
                 "GROUP BY o.game, o.player)" + where)
        params = [before, *self.RESENT, *params]
        found = self._all(f"SELECT id, length(text) + COALESCE(length(html), 0) + COALESCE(length(context), 0) AS n "
                          f"FROM outbox WHERE {where}", params)
        self._run(f"UPDATE outbox SET text = '', html = NULL, context = NULL, calendar = NULL WHERE {where}", params)
        return {"rows": len(found), "bytes": sum(r["n"] for r in found), "ids": [r["id"] for r in found]}

    def prune_frames(self) -> int:
        """Delete the report frames no mail still held as its context names (a queued mail's
        `{"board": {"stored": id}}`); how many."""
        used = {int(m) for r in self._all("SELECT context FROM outbox WHERE context IS NOT NULL")
                for m in re.findall(r'"stored":(\d+)', r["context"])}
        unused = [r["id"] for r in self._all("SELECT id FROM report_frames ORDER BY id") if r["id"] not in used]
        for i in range(0, len(unused), 500):
            chunk = unused[i:i + 500]
            self._run(f"DELETE FROM report_frames WHERE id IN ({', '.join('?' * len(chunk))})", chunk)
        return len(unused)

    def unsent_games(self) -> set[str]:
        """The games some mail of which is not sent yet (queued, or failed for `outbox retry`)."""
        return {r["game"] for r in self._all("SELECT DISTINCT game FROM outbox WHERE status NOT IN "
                                             "('sent', 'withdrawn') AND game IS NOT NULL")}

    # -- delivery: bounces, IMAP claims ------------------------------------------------

    def outbox_by_message_id(self, message_id: str) -> dict | None:
        return self._one("SELECT * FROM outbox WHERE message_id = ?", (message_id,))

    def outbox_replied(self, message_id: str) -> dict | None:
        """What a mail that replies to ours asks of it (its game, reader, kind, headers): not the
        rendered text and HTML a sent mail's row holds (issue 28)."""
        return self._one("SELECT game, player, kind, headers FROM outbox WHERE message_id = ?", (message_id,))

    # Several daemons may read one IMAP folder: a daemon claims a message by its UID (under the
    # folder's UIDVALIDITY) before it fetches it, with a lease, as a mail is claimed before it is
    # sent; another daemon passes it over while the lease holds. The claim stays a lease longer
    # once the message is moved away (stored = 2), so a daemon that listed the folder before the
    # move does not take it again; a daemon that dies leaves its claims to run out, and the next
    # daemon takes the message again, or only moves it if it was stored (stored = 1).
    def claim_imap(self, mailbox: str, uidvalidity: int, uid: int, owner: str, lease_seconds: float) -> int | None:
        """Message `uid` claimed by `owner` for `lease_seconds`: what was done with it (0:
        nothing yet, 1: stored, only its move is left, 2: moved), or None while another
        daemon's claim holds it."""
        with self.transaction():
            now = self.clock()
            row = self._one(
                "INSERT INTO imap_claims (mailbox, uidvalidity, uid, claimed_by, claim_until, stored) "
                "VALUES (?, ?, ?, ?, ?, 0) ON CONFLICT (mailbox, uidvalidity, uid) DO UPDATE "
                "SET claimed_by = excluded.claimed_by, claim_until = excluded.claim_until "
                "WHERE imap_claims.claimed_by = excluded.claimed_by OR imap_claims.claim_until <= ? RETURNING stored",
                (mailbox, uidvalidity, uid, owner, iso(now + timedelta(seconds=lease_seconds)), iso(now)))
        return None if row is None else row["stored"]

    def imap_stored(self, mailbox: str, uidvalidity: int, uid: int) -> None:
        self._run("UPDATE imap_claims SET stored = 1 WHERE mailbox = ? AND uidvalidity = ? AND uid = ?",
                  (mailbox, uidvalidity, uid))

    def imap_moved(self, mailbox: str, uidvalidity: int, uids: Sequence[int], lease_seconds: float) -> None:
        """The messages `uids` left the folder (moved, or gone): their claims hold one lease
        more, then go, with any of an older UIDVALIDITY (its UIDs name other messages now)."""
        with self.transaction():
            now = self.clock()
            self._run("DELETE FROM imap_claims WHERE mailbox = ? AND (uidvalidity != ? "
                      "OR (stored = 2 AND claim_until <= ?))", (mailbox, uidvalidity, iso(now)))
            self._run(f"UPDATE imap_claims SET stored = 2, claim_until = ? WHERE mailbox = ? AND uidvalidity = ? "
                      f"AND uid IN ({', '.join('?' * len(uids))})",
                      (iso(now + timedelta(seconds=lease_seconds)), mailbox, uidvalidity, *uids))

    def seats_by_email(self, email: str) -> list[dict]:
        """Every seat of an address in every game, with its game's status, oldest game first."""
        return self._all("SELECT p.*, g.status AS game_status FROM players p JOIN games g ON g.id = p.game "
                         "WHERE lower(p.email) = lower(?) ORDER BY g.created_at, p.game", (email,))

    def readdress_outbox(self, game: str, player: str, to_addr: str, to_header: str) -> int:
        """The seat's mail not sent yet (queued, or failed and waiting for `outbox retry`) goes
        to its new address; how many."""
        rows = self._all("SELECT id, headers FROM outbox WHERE game = ? AND player = ? "
                         "AND status IN ('queued', 'failed')", (game, player))
        for row in rows:
            headers = msgspec.json.encode({**json.loads(row["headers"]), "To": to_header}).decode()
            self._run("UPDATE outbox SET to_addr = ?, headers = ? WHERE id = ?", (to_addr, headers, row["id"]))
        return len(rows)

    # -- pace: deadlines (pbem/pace/deadlines.py) -------------------------------------------

    def deadlines(self, game: str, player: str | None = None, open_only: bool = True,
                  order: str = "due_at, prompt, player") -> list[dict]:
        if player and open_only and order == "due_at, prompt, player":
            once = self._once_deadlines(game, player, "open")
            if once is not None:
                return once
        sql, params = "SELECT * FROM deadlines WHERE game = ?", [game]
        if open_only:
            sql += " AND status = 'open'"
        if player:
            sql += " AND player = ?"
            params.append(player)
        return self._all(f"{sql} ORDER BY {order}", params)

    def _once_deadlines(self, game: str, seat: str, what: str) -> list[dict] | None:
        """Within `read_once`: `seat`'s open deadlines ("open") or cancellations owed ("owed"),
        both read in one statement the first time either is wanted (every report asks for both:
        two statements a move were one); None outside it. Both are in the order of `deadlines`
        (a seat's rows have one player, so "owed"'s `due_at, prompt` is the same order)."""
        once = self._once
        if once is None or once["game"] != game:
            return None
        if ("deadlines", "open") not in once or ("deadlines", "owed") not in once:
            kept: dict[str, dict[str, list[dict]]] = {"open": {}, "owed": {}}
            for row in self._all(self._DEADLINES_SQL, (game,)):
                kept["open" if row["status"] == "open" else "owed"].setdefault(row["player"], []).append(row)
            once[("deadlines", "open")], once[("deadlines", "owed")] = kept["open"], kept["owed"]
        return [dict(row) for row in once[("deadlines", what)].get(seat, ())]

    def open_deadline(self, game: str, prompt: int, player: str, *, kind: str, default_key: str, opened_at: str,
                      due_at: str, reminded: str, next_at: str, email: str | None = None) -> None:
        """A deadline for a question now asked (of the seat's person at `email`); a rollback can
        reopen a question: its row comes back to life with a new deadline."""
        self._run("INSERT INTO deadlines (game, prompt, player, kind, default_key, opened_at, due_at, reminded, "
                  "next_at, status, guard, email) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', '', ?) "
                  "ON CONFLICT (game, prompt, player) DO UPDATE SET "
                  "kind = excluded.kind, default_key = excluded.default_key, opened_at = excluded.opened_at, "
                  "due_at = excluded.due_at, reminded = excluded.reminded, next_at = excluded.next_at, "
                  "status = 'open', guard = '', closed_at = NULL, closed_by = NULL, email = excluded.email, "
                  "sequence = deadlines.sequence + 1",
                  (game, prompt, player, kind, default_key, opened_at, due_at, reminded, next_at, email))
        self.notify("deadline")

    def update_deadline(self, game: str, prompt: int, player: str, *, moved: bool = False, **fields) -> int:
        """`moved`: its calendar event changes (its time or whether it stands): its SEQUENCE
        rises, so a calendar moves the event it has rather than adding one."""
        sets = [*(f"{k} = ?" for k in fields), *(["sequence = sequence + 1"] if moved else [])]
        return self._run(f"UPDATE deadlines SET {', '.join(sets)} WHERE game = ? AND prompt = ? AND player = ?",
                         [*fields.values(), game, prompt, player])

    def set_guard(self, game: str, new: str, old: str, due_by: str | None = None) -> int:
        """The open deadlines of `game` whose guard is `old` (and due by `due_by`) get `new`
        (their calendar events change: held, or let go)."""
        sql, params = ("UPDATE deadlines SET guard = ?, sequence = sequence + 1 WHERE game = ? AND status = 'open' "
                       "AND guard = ?"), [new, game, old]
        if due_by:
            sql += " AND due_at <= ?"
            params.append(due_by)
        return self._run(sql, params)

    def held_deadlines(self, game: str) -> list[dict]:
        return self._all("SELECT player, prompt FROM deadlines WHERE game = ? AND guard = 'held' AND status = 'open' "
                         "ORDER BY prompt, player", (game,))

    def deadlines_to_look_at(self, now: str) -> list[dict]:
        """The open deadlines whose next time (a reminder's, else the deadline's) has come, in
        active games: read through the index on next_at, so a poll costs what is due, not
        what is open."""
        return self._all("SELECT d.* FROM deadlines d JOIN games g ON g.id = d.game WHERE d.status = 'open' "
                         "AND d.next_at <= ? AND d.guard != 'held' AND g.status = 'active' ORDER BY d.next_at", (now,))

    def claim_deadline(self, row: dict) -> dict | None:
        """Inside a transaction: the row as it is now, locked, if it is still open and
        unchanged since `row` was read; None if another process answered, moved or holds it
        (PostgreSQL: SKIP LOCKED, no waiting). A reminder is queued once however many daemons."""
        return self._one("SELECT * FROM deadlines WHERE game = ? AND prompt = ? AND player = ? AND due_at = ? "
                         "AND reminded = ? AND status = 'open'" + self.SKIP_LOCKED,
                         (row["game"], row["prompt"], row["player"], row["due_at"], row["reminded"]))

    def calendar_owed(self, game: str, player: str) -> list[dict]:
        """The player's deadlines in `game` whose calendar event a mail has carried and that are
        closed since: their cancellation is owed (the partial index deadlines_mailed)."""
        once = self._once_deadlines(game, player, "owed")
        if once is not None:
            return once
        return self._all("SELECT * FROM deadlines WHERE game = ? AND player = ? AND mailed IS NOT NULL "
                         "AND status != 'open' ORDER BY due_at, prompt", (game, player))

    def deadlines_closed_since(self, game: str, player: str, since: str) -> list[dict]:
        """The player's deadlines in `game` closed since `since` (a calendar feed's cancellations)."""
        return self._all("SELECT * FROM deadlines WHERE game = ? AND player = ? AND status != 'open' "
                         "AND closed_at >= ? ORDER BY due_at, prompt", (game, player, since))

    def calendar_mailed(self, game: str, player: str, told: Sequence[tuple[int, int | None]]) -> None:
        """What a mail's calendar part told: (prompt, SEQUENCE) of each event, None once cancelled.
        Within `read_once` the deadlines read stay read, marked as this writes them: each reader's
        calendar part marks what it carried, and reading the game's deadlines again after each
        was most of a move's deadline reads."""
        once = self._once
        kept = {k: once[k] for k in (("deadlines", "open"), ("deadlines", "owed")) if k in once} \
            if once is not None and once["game"] == game else {}
        for prompt, seq in told:
            self._run("UPDATE deadlines SET mailed = ? WHERE game = ? AND prompt = ? AND player = ?",
                      (seq, game, prompt, player))
        if kept and once is not None and self._once is once:
            once.update(_marked_mailed(kept, player, dict(told)))

    def deadlines_passed(self, game: str, now: str) -> list[dict]:
        return self._all("SELECT * FROM deadlines WHERE game = ? AND status = 'open' AND guard != 'held' "
                         "AND due_at <= ? ORDER BY due_at, prompt, player", (game, now))

    def deadlines_in_window(self, since: str, until: str) -> list[dict]:
        """For the outage guard: in every active game, the deadlines of active players open
        and passed by `until`, defaulted between `since` and `until`, or answered by the
        player themselves after `since`."""
        return self._all("SELECT d.player, d.game, d.status, d.guard FROM deadlines d "
                         "JOIN players p ON p.game = d.game AND p.name = d.player JOIN games g ON g.id = d.game "
                         "WHERE p.status = 'active' AND g.status = 'active' "
                         "AND ((d.status = 'open' AND d.due_at <= ?) "
                         "OR (d.status = 'defaulted' AND d.due_at > ? AND d.due_at <= ?) "
                         "OR (d.status = 'answered' AND d.closed_by = d.player AND d.closed_at > ?))",
                         (until, since, until, since))

    def next_wakeup(self) -> str | None:
        """The next time after now that a daemon has timed work: a deadline's next time, a
        mail's next try, a claim's lease running out: a mail's, or an IMAP message's not yet moved
        (a daemon that died holding it: another takes it then, not at its next look a minute
        later). What is due already, the cycle that just ran took or left to another daemon."""
        now = self.now()
        row = self._the_one("SELECT (SELECT MIN(next_at) FROM deadlines WHERE status = 'open' AND next_at > ?) AS d, "
                        "(SELECT MIN(next_attempt_at) FROM outbox WHERE status = 'queued' "
                        "AND next_attempt_at > ?) AS o, "
                        "(SELECT MIN(claim_until) FROM outbox WHERE status = 'queued' AND claim_until > ?) AS c, "
                        "(SELECT MIN(claim_until) FROM imap_claims WHERE stored < 2 AND claim_until > ?) AS i",
                        (now, now, now, now))
        times = [t for t in (row["d"], row["o"], row["c"], row["i"]) if t]
        return min(times) if times else None

    # -- pace: seat bots, misses, reliability (pbem/pace/misses.py, pbem/pace/answering.py) --------

    def set_bot(self, game: str, name: str, level: str | None, by: str | None) -> None:
        """A bot of `level` plays the seat from now (None: its person plays again)."""
        self._update("players", "game = ? AND name = ?", (game, name), {"bot": level, "bot_by": by})

    def games_with_bots(self) -> list[str]:
        """Active games where a bot plays a seat."""
        return [r["game"] for r in self._all(
            "SELECT DISTINCT p.game FROM players p JOIN games g ON g.id = p.game "
            "WHERE p.bot IS NOT NULL AND g.status = 'active' ORDER BY p.game")]

    def add_miss(self, game: str, prompt: int, player: str, *, email: str, due_at: str, missed_at: str,
                 charged: bool, reason: str) -> None:
        self._run("INSERT INTO misses (game, prompt, player, email, due_at, missed_at, charged, reason) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game, prompt, player) DO NOTHING",
                  (game, prompt, player, email, due_at, missed_at, int(charged), reason))

    def misses(self, game: str | None = None, player: str | None = None, email: str | None = None) -> list[dict]:
        """Missed deadlines, oldest first: of a game (and seat), or of a person."""
        where, params = [], []
        for column, value in (("game", game), ("player", player)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if email is not None:
            where.append("lower(email) = lower(?)")
            params.append(email)
        sql = "SELECT * FROM misses" + (" WHERE " + " AND ".join(where) if where else "")
        return self._all(sql + " ORDER BY due_at, game, prompt, player", params)

    def closed_deadlines(self, game: str, player: str) -> list[dict]:
        """A seat's questions no longer open, the latest first (how its misses run)."""
        return self._all("SELECT * FROM deadlines WHERE game = ? AND player = ? AND status != 'open' "
                         "ORDER BY closed_at DESC, prompt DESC", (game, player))

    def questions_of(self, email: str) -> list[dict]:
        """When each question put to a person (by the address that held the seat) opened."""
        return self._all("SELECT game, prompt, opened_at FROM deadlines WHERE lower(email) = lower(?)", (email,))

    def mail_to_seat(self, game: str, player: str, since: str, until: str) -> list[dict]:
        """The mails queued for a seat between two times: their status and when they were sent."""
        return self._all("SELECT id, kind, status, created_at, sent_at FROM outbox WHERE game = ? AND player = ? "
                         "AND created_at >= ? AND created_at <= ? ORDER BY id", (game, player, since, until))

    def add_downtime(self, since: str, until: str) -> None:
        self._run("INSERT INTO downtime (since, until) VALUES (?, ?) ON CONFLICT (since) DO NOTHING", (since, until))

    def downtime(self, since: str, until: str) -> list[dict]:
        """The spans no daemon ran that overlap [since, until]."""
        return self._all("SELECT * FROM downtime WHERE until > ? AND since < ? ORDER BY since", (since, until))

    # -- a seat offered to substitutes (pbem/moderate/offers.py) -----------------------------------

    def add_offer(self, game: str, player: str, email: str, salt: str, made_at: str) -> None:
        """Offer the seat to `email` (again: a new salt, so the code mailed before is void)."""
        self._run("INSERT INTO offers (game, player, email, salt, made_at) VALUES (?, ?, ?, ?, ?) "
                  "ON CONFLICT (game, player, email) DO UPDATE SET salt = excluded.salt, made_at = excluded.made_at",
                  (game, player, email, salt, made_at))

    def offers(self, game: str, player: str | None = None) -> list[dict]:
        """The open offers of a game (of one seat), oldest first."""
        if player is None:
            return self._all("SELECT * FROM offers WHERE game = ? ORDER BY made_at, player, email", (game,))
        return self._all("SELECT * FROM offers WHERE game = ? AND player = ? ORDER BY made_at, email", (game, player))

    def end_offers(self, game: str, player: str) -> int:
        """The seat is offered no more: every code for it is void. How many offers ended."""
        return self._run("DELETE FROM offers WHERE game = ? AND player = ?", (game, player))

    # -- pace: standing orders (pbem/pace/standing.py), vacations (pbem/pace/vacation.py) ---------

    _ORDERS_SQL = ("SELECT player, n, text, uses, filed_at FROM standing_orders WHERE game = ? AND status = 'active' "
                   "ORDER BY n")  # within read_once: every seat's, read once (with the address settings)

    def standing_orders(self, game: str, player: str | None = None) -> list[dict]:
        """The active orders of `player`, or of every active player of `game`."""
        once = self._by_seat("standing_orders", "active", game, self._ORDERS_SQL)
        if once is not None:  # read_once: the game's one read
            if player is not None:
                return [dict(r) for r in once.get(player, ())]
            seats = self._by_seat("players", "all", game, self._SEATS_SQL) or {}
            return sorted(({"player": r["player"], "n": r["n"], "text": r["text"]} for name, rows in once.items()
                           if name in seats and seats[name][0]["status"] == "active" for r in rows),
                          key=lambda r: r["n"])
        if player is not None:
            return self._all("SELECT player, n, text, uses, filed_at FROM standing_orders WHERE game = ? "
                             "AND player = ? AND status = 'active' ORDER BY n", (game, player))
        return self._all("SELECT o.player, o.n, o.text FROM standing_orders o JOIN players p ON p.game = o.game "
                         "AND p.name = o.player WHERE o.game = ? AND o.status = 'active' AND p.status = 'active' "
                         "ORDER BY o.n", (game,))

    def file_standing_order(self, game: str, player: str, text: str) -> int:
        """File an order; its number (per player and game, never reused)."""
        with self.transaction():
            n = self._the_one("SELECT COALESCE(MAX(n), 0) + 1 AS n FROM standing_orders WHERE game = ? AND player = ?",
                          (game, player))["n"]
            self._run("INSERT INTO standing_orders (game, player, n, text, status, uses, filed_at) "
                      "VALUES (?, ?, ?, ?, 'active', 0, ?)", (game, player, n, text, self.now()))
        return n

    def cancel_standing_orders(self, game: str, player: str, n: int | None = None) -> int:
        """Cancel order `n`, or all of the player's; how many were cancelled."""
        sql = ("UPDATE standing_orders SET status = 'cancelled', cancelled_at = ? WHERE game = ? "
               "AND player = ? AND status = 'active'")
        params: list[str | int] = [self.now(), game, player]
        if n is not None:
            sql += " AND n = ?"
            params.append(n)
        return self._run(sql, params)

    def standing_order_used(self, game: str, player: str, n: int) -> None:
        self._run("UPDATE standing_orders SET uses = uses + 1 WHERE game = ? AND player = ? AND n = ?",
                  (game, player, n))

    def vacations(self, game: str, player: str) -> list[dict]:
        once = self._seat_rows("vacations", "all", game, player,
                               "SELECT * FROM vacations WHERE game = ? ORDER BY starts_at, id")
        if once is not None:
            return once
        return self._all("SELECT * FROM vacations WHERE game = ? AND player = ? ORDER BY starts_at, id", (game, player))

    def add_vacation(self, game: str, player: str, starts_at: str, ends_at: str, set_by: str) -> None:
        self._run("INSERT INTO vacations (game, player, starts_at, ends_at, set_by, created_at) "
                  "VALUES (?, ?, ?, ?, ?, ?)", (game, player, starts_at, ends_at, set_by, self.now()))

    def end_vacation_at(self, id: int, ends_at: str) -> None:
        self._run("UPDATE vacations SET ends_at = ? WHERE id = ?", (ends_at, id))

    # -- for the moderator and the shell -------------------------------------------------

    def last_mail(self, game: str, player: str) -> tuple[str | None, str | None]:
        """When the player's last mail came in, and when the last one to them went out."""
        row = self._the_one("SELECT (SELECT MAX(received_at) FROM inbox WHERE game = ? AND player = ?) AS i, "
                        "(SELECT MAX(sent_at) FROM outbox WHERE game = ? AND player = ?) AS o",
                        (game, player, game, player))
        return row["i"], row["o"]

    def game_ids(self, prefix: str = "") -> list[str]:
        return [r["id"] for r in self._all("SELECT id FROM games WHERE id LIKE ? ORDER BY id", (prefix + "%",))]

    def player_names(self, game: str, prefix: str = "") -> list[str]:
        return [r["name"] for r in self._all("SELECT name FROM players WHERE game = ? AND name LIKE ? ORDER BY seat",
                                             (game, prefix + "%"))]


def _marked_mailed(kept: dict, player: str, told: dict[int, int | None]) -> dict:
    """The deadlines `read_once` read (`kept`: its "open" and "owed" reads, by seat) as they are
    once `player`'s rows of `told` (prompt: SEQUENCE, None for a cancellation) are marked
    mailed; the owed read is left out (read again) when a row it may now hold was not read."""
    out = {}
    opened = kept.get(("deadlines", "open"))
    if opened is not None:
        out[("deadlines", "open")] = {**opened, player: [
            {**r, "mailed": told[r["prompt"]]} if r["prompt"] in told else r for r in opened.get(player, ())]}
    owed = kept.get(("deadlines", "owed"))
    if owed is not None:
        rows = owed.get(player, [])
        known = {r["prompt"] for r in rows} | {r["prompt"] for r in (opened or {}).get(player, ())}
        if all(seq is None or prompt in known for prompt, seq in told.items()):  # no closed row newly owed
            out[("deadlines", "owed")] = {**owed, player: [
                {**r, "mailed": told.get(r["prompt"], r["mailed"])} for r in rows
                if told.get(r["prompt"], r["mailed"]) is not None]}
    return out

"""The service's storage: one small class over sqlite-utils, so another (PostgreSQL) can
take its place. Callers see plain dicts and never write SQL.

Writes happen inside `transaction()`, which opens `BEGIN IMMEDIATE`: sqlite-utils'
`atomic()` is a deferred BEGIN, and in WAL mode a deferred transaction that reads first
fails at once with "database is locked" when another connection wrote in between.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

import msgspec
import sqlite_utils

from pbem import migrations, tokens

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


class StoreUnavailable(Exception):
    """The database cannot be opened or written now: a mail pipe should say 'try later'."""


def chain_hash(prev_hash: str, record: dict[str, Any], state_hash: str) -> str:
    body = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{prev_hash}\n{body}\n{state_hash}".encode()).hexdigest()


_CHAINED = ("game", "seq", "kind", "player", "actor", "line", "prompt", "message_id", "inbox_id", "at")


class Store:
    SNAPSHOT_EVERY = 100

    def __init__(self, path: str | Path, clock: Clock = utcnow, timeout: float = 10.0):
        self.clock = clock
        self.path = Path(path)
        self._grouped = 0  # depth of group_commit(): commits skip their fsync, sync() does it
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(path), isolation_level=None, timeout=timeout, check_same_thread=False)
            self.db = sqlite_utils.Database(conn)
            self.db.conn.execute("PRAGMA journal_mode=WAL")
            # FULL: a mail acknowledged to the MTA survives a power cut, not only a crash
            self.db.conn.execute("PRAGMA synchronous=FULL")
            self.db.conn.execute("PRAGMA foreign_keys=ON")
            self.db.conn.execute("PRAGMA secure_delete=ON")  # a masked token leaves no old bytes behind
            self.migrate()
        except (sqlite3.Error, OSError) as e:
            raise StoreUnavailable(str(e)) from e

    def close(self) -> None:
        self.db.close()

    def now(self) -> str:
        return iso(self.clock())

    @contextlib.contextmanager
    def transaction(self, redoable: bool = False, savepoint: bool = False) -> Iterator["Store"]:
        """One write transaction; a nested call joins the one already open (`savepoint`: as
        a savepoint, so that its failure undoes its own work and leaves the outer one's).

        `redoable`: work that can be done again from what is already stored durably (the
        processing of a stored message). Its commit skips the fsync (WAL, synchronous=NORMAL):
        a power cut may lose it, never corrupt it, and the message is then processed again."""
        conn = self.db.conn
        if conn.in_transaction:
            if savepoint:
                conn.execute("SAVEPOINT nested")
                try:
                    yield self
                except BaseException:
                    conn.execute("ROLLBACK TO nested")
                    conn.execute("RELEASE nested")
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
            try:
                yield self
            except BaseException:  # a crash of any kind leaves nothing half-written
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        finally:
            if redoable:
                conn.execute("PRAGMA synchronous=FULL")

    @contextlib.contextmanager
    def group_commit(self) -> Iterator["Store"]:
        """Group commit for a source that takes a batch of messages: inside, every commit
        skips its fsync (still atomic, and safe from a crash of this process); on the way out
        one fsync makes them all durable. The source acknowledges its messages (moves the
        files, flags the mail) only after this block, so a power cut inside it loses nothing:
        the unacknowledged messages are read again and known again by their hashes."""
        if not self._grouped:
            self.db.conn.execute("PRAGMA synchronous=NORMAL")
        self._grouped += 1
        try:
            yield self
        finally:
            self._grouped -= 1
            if not self._grouped:
                self.db.conn.execute("PRAGMA synchronous=FULL")
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

    def query(self, sql: str, params=()) -> list[dict]:
        """Rows of a read, as dicts: for the modules that keep their own tables (pace,
        standing orders); unlike sqlite-utils' query(), no SAVEPOINT around it."""
        return self._all(sql, params)

    def _one(self, sql: str, params=()) -> dict | None:
        rows = self._all(sql, params)
        return rows[0] if rows else None

    def _all(self, sql: str, params=()) -> list[dict]:
        # the connection itself: sqlite-utils' query() wraps every read in a SAVEPOINT
        cur = self.db.conn.execute(sql, params)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]

    # plain SQL for the writes of every move: sqlite-utils' insert() and update() look the
    # table's schema up each time, which cost more than the writes. Column names come from
    # this class, never from input.
    def _insert(self, table: str, row: dict) -> None:
        self.db.execute(f"INSERT INTO {table} ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                        list(row.values()))

    def _update(self, table: str, where: str, params: tuple, fields: dict) -> None:
        sets = ", ".join(f"{k} = ?" for k in fields)
        self.db.execute(f"UPDATE {table} SET {sets} WHERE {where}", [*fields.values(), *params])

    # -- schema ---------------------------------------------------------------------

    def migrate(self) -> list[int]:
        """Apply the migrations not yet applied; returns their numbers."""
        self.db.conn.execute(migrations.SCHEMA_TABLE)
        done = {r["version"] for r in self.db.query("SELECT version FROM schema_migrations")}
        applied, now = [], None
        for version, name, _ in migrations.MIGRATIONS:
            if version in done:
                continue
            now = now or self.now()  # one reading for the run: the clock is not a migration counter
            with self.transaction():
                for stmt in migrations.statements(version, "sqlite"):
                    self.db.conn.execute(stmt)
                self.db.conn.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    (version, name, now))
            applied.append(version)
        if 9 in applied:
            self._mask_stored_messages()
        return applied

    def _mask_stored_messages(self) -> None:
        """Once, with migration 9: messages stored before it may hold a token in clear (one
        refused, or in an encoded part); mask them as new ones are (pbem/tokens.py)."""
        ids = [r["id"] for r in self._all("SELECT id FROM inbox")]
        for id in ids:
            with self.transaction():
                row = self._one("SELECT kind, raw FROM inbox WHERE id = ?", (id,))
                raw = bytes(row["raw"])
                masked = tokens.mask_message(raw) if row["kind"] == "mail" else tokens.mask_bytes(raw)
                if masked != raw:
                    self.db.execute("UPDATE inbox SET raw = ? WHERE id = ?", (masked, id))

    def schema_version(self) -> int:
        row = self._one("SELECT MAX(version) AS v FROM schema_migrations")
        return row["v"] or 0

    # -- games and players ----------------------------------------------------------

    def add_game(self, id: str, config: dict, seed: str, seed_commitment: str, state: bytes,
                 engine_version: str, status: str) -> None:
        now = self.now()
        self.db["games"].insert(dict(
            id=id, config=json.dumps(config, sort_keys=True), status=status, engine_version=engine_version,
            seed=seed, seed_commitment=seed_commitment, state=state, moves=0, created_at=now, updated_at=now))

    def game(self, id: str) -> dict | None:
        row = self._one("SELECT * FROM games WHERE id = ?", (id,))
        if row:
            row["config"] = json.loads(row["config"])
        return row

    def games(self) -> list[dict]:
        rows = self._all("SELECT id, status, engine_version, moves, created_at, updated_at FROM games "
                         "ORDER BY created_at, id")
        return rows

    def update_game(self, id: str, **fields) -> None:
        if "config" in fields:
            fields["config"] = json.dumps(fields["config"], sort_keys=True)
        fields["updated_at"] = self.now()
        self._update("games", "id = ?", (id,), fields)

    def add_player(self, game: str, name: str, seat: int, email: str, token_hash: str, token_salt: str,
                   role: str = "hero", character: str | None = None) -> None:
        self.db["players"].insert(dict(game=game, name=name, seat=seat, email=email, token_hash=token_hash,
                                       token_salt=token_salt, role=role, character=character, status="active"))

    def player(self, game: str, name: str) -> dict | None:
        return self._one("SELECT * FROM players WHERE game = ? AND name = ?", (game, name))

    def players(self, game: str, active_only: bool = False) -> list[dict]:
        sql = "SELECT * FROM players WHERE game = ?" + (" AND status = 'active'" if active_only else "")
        return self._all(sql + " ORDER BY seat", (game,))

    def players_by_token_hash(self, token_hash: str) -> list[dict]:
        return self._all("SELECT * FROM players WHERE token_hash = ?", (token_hash,))

    def update_player(self, game: str, name: str, **fields) -> None:
        self.db["players"].update((game, name), fields)

    def delete_player(self, game: str, name: str) -> None:
        """Only for a game that has not started: a started game keeps its seats."""
        self.db.execute("DELETE FROM players WHERE game = ? AND name = ?", (game, name))

    # -- the move log ----------------------------------------------------------------

    def append_move(self, game: str, *, kind: str, player: str | None, actor: str, line: str,
                    state_hash: str, prompt: int | None = None, message_id: str | None = None,
                    inbox_id: int | None = None) -> dict:
        """Append one hash-chained row; returns it (with its seq)."""
        g = self._one("SELECT moves, seed_commitment, "
                      "(SELECT hash FROM moves WHERE game = games.id ORDER BY seq DESC LIMIT 1) AS last "
                      "FROM games WHERE id = ?", (game,))
        prev = g["last"] or g["seed_commitment"]  # the chain starts at the seed's commitment
        row = dict(game=game, seq=g["moves"] + 1, kind=kind, player=player, actor=actor, line=line,
                   prompt=prompt, message_id=message_id, inbox_id=inbox_id, at=self.now())
        row.update(state_hash=state_hash, prev_hash=prev,
                   hash=chain_hash(prev, {k: row[k] for k in _CHAINED}, state_hash))
        self._insert("moves", row)
        self.db.execute("UPDATE games SET moves = ?, updated_at = ? WHERE id = ?", (row["seq"], row["at"], game))
        return row

    def moves(self, game: str, after: int = 0, upto: int | None = None) -> list[dict]:
        sql, params = "SELECT * FROM moves WHERE game = ? AND seq > ?", [game, after]
        if upto is not None:
            sql += " AND seq <= ?"
            params.append(upto)
        return self._all(sql + " ORDER BY seq", params)

    def add_move_events(self, game: str, seq: int, events: str) -> None:
        """What move `seq` showed (JSON, see pbem/turnmail.py); outside the hash chain:
        the engine derives it again from the log."""
        self.db.execute("INSERT INTO move_events (game, seq, events) VALUES (?, ?, ?)", (game, seq, events))

    def move_events(self, game: str, after: int, upto: int) -> list[dict]:
        return self._all("SELECT seq, events FROM move_events WHERE game = ? AND seq > ? AND seq <= ? ORDER BY seq",
                         (game, after, upto))

    def set_reported(self, game: str, name: str, seq: int) -> None:
        """`name`'s reports have shown the events up to move `seq`."""
        self.db.execute("UPDATE players SET reported_seq = ? WHERE game = ? AND name = ?", (seq, game, name))

    def rewind_reported(self, game: str, name: str, seq: int) -> None:
        """A report that began at move `seq` was not delivered: the next one starts there again."""
        self.db.execute("UPDATE players SET reported_seq = MIN(reported_seq, ?) WHERE game = ? AND name = ?",
                        (seq, game, name))

    def verify_chain(self, game: str) -> list[str]:
        """What is wrong with the move log of `game` (empty: the chain holds)."""
        g = self._one("SELECT moves, seed_commitment FROM games WHERE id = ?", (game,))
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
        self.db.execute(f"INSERT INTO snapshots (game, seq, state) VALUES (?, ?, ?) "
                        f"ON CONFLICT (game, seq) DO {action}", (game, seq, state))

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
                  message_id: str | None = None, filename: str | None = None, token_hash: str | None = None) -> int:
        """Store a message (`raw` with its tokens masked; `token_hash`: sha256 of the one it carried)."""
        cur = self.db.execute(
            "INSERT INTO inbox (received_at, source, kind, filename, raw, message_id, content_hash, token_hash, "
            "status, attempts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'received', 0)",
            (self.now(), source, kind, filename, raw, message_id, content_hash, token_hash))
        return cur.lastrowid

    def inbox(self, id: int) -> dict | None:
        return self._one("SELECT * FROM inbox WHERE id = ?", (id,))

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
        self.db.execute("UPDATE inbox SET status = ?, outcome = ?, game = ?, player = ?, processed_at = ?, "
                        "raw = COALESCE(?, raw) WHERE id = ?", (status, outcome, game, player, self.now(), raw, id))

    def inbox_attempt_failed(self, id: int, error: str, max_attempts: int) -> bool:
        """Processing raised: count it; after `max_attempts` stop retrying (status failed).
        True when this attempt was the last."""
        self.db.execute(
            "UPDATE inbox SET attempts = attempts + 1, outcome = ?, "
            "status = CASE WHEN attempts + 1 >= ? THEN 'failed' ELSE status END WHERE id = ? AND status = 'received'",
            (f"error: {error}", max_attempts, id))
        row = self._one("SELECT status, attempts FROM inbox WHERE id = ?", (id,))
        return row is not None and row["status"] == "failed" and row["attempts"] == max_attempts

    # -- outbox ----------------------------------------------------------------------

    def add_outbox(self, *, message_id: str, kind: str, to_addr: str, subject: str, headers: dict,
                   text: str, html: str | None = None, game: str | None = None, player: str | None = None,
                   token_marker: str | None = None, inbox_id: int | None = None, context: str | None = None,
                   since_seq: int | None = None) -> bool:
        """Queue a mail (`context`: JSON it is rendered from when sent, pbem/outbox.py); a second
        row with the same Message-ID is the same mail and is dropped."""
        now = self.now()
        cur = self.db.execute(
            "INSERT INTO outbox (message_id, game, player, kind, to_addr, subject, headers, text, html, token_marker, "
            "inbox_id, context, since_seq, status, attempts, created_at, next_attempt_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', 0, ?, ?) ON CONFLICT (message_id) DO NOTHING",
            (message_id, game, player, kind, to_addr, subject, msgspec.json.encode(headers).decode(), text, html,
             token_marker, inbox_id, context, since_seq, now, now))
        return cur.rowcount == 1

    def add_frame(self, frame: str) -> int:
        """Store a report frame (JSON) that several queued mails share; its id."""
        return self.db.execute("INSERT INTO report_frames (frame) VALUES (?)", (frame,)).lastrowid

    def frame(self, id: int) -> str:
        return self._one("SELECT frame FROM report_frames WHERE id = ?", (id,))["frame"]

    def outbox_due(self) -> list[dict]:
        return self._all("SELECT * FROM outbox WHERE status = 'queued' AND next_attempt_at <= ? ORDER BY id",
                         (self.now(),))

    # Exactly-once sending: a sender claims a row before it sends it, with a lease. Another
    # sender (a second daemon, `serve --once`) skips a claimed row until its lease has run
    # out, which happens only if its sender died. The claim is one UPDATE ... RETURNING over
    # a subselect, inside BEGIN IMMEDIATE (SQLite's one writer); PostgreSQL takes the same
    # statement with FOR UPDATE SKIP LOCKED in the subselect.
    CLAIM_SQL = ("UPDATE outbox SET claimed_by = ?, claim_until = ? WHERE id = ("
                 "SELECT id FROM outbox WHERE status = 'queued' AND next_attempt_at <= ? "
                 "AND (claim_until IS NULL OR claim_until <= ?){skip} ORDER BY id LIMIT 1{lock}) RETURNING *")

    def claim_outbox(self, owner: str, lease_seconds: float, skip: list[int] = ()) -> dict | None:
        """The next due row (not one of `skip`), claimed by `owner` for `lease_seconds`; None
        when none is free."""
        skip_sql = f" AND id NOT IN ({', '.join('?' * len(skip))})" if skip else ""
        with self.transaction():
            now = self.clock()
            until = iso(now + timedelta(seconds=lease_seconds))
            rows = self._all(self.CLAIM_SQL.format(skip=skip_sql, lock=""), (owner, until, iso(now), iso(now), *skip))
        return rows[0] if rows else None

    def release_outbox(self, id: int, owner: str) -> None:
        """Give a claimed row back before its lease runs out (its send failed on our side)."""
        self.db.execute("UPDATE outbox SET claimed_by = NULL, claim_until = NULL WHERE id = ? AND claimed_by = ?",
                        (id, owner))

    def outbox_waiting(self) -> dict:
        """What waits to be sent (the moderator's notices about it aside), for `serve` and
        `outbox list`: how many, since when, the next try and the last error."""
        row = self._one("SELECT COUNT(*) AS n, MIN(created_at) AS oldest, MIN(next_attempt_at) AS next_try, "
                        "MIN(id) AS oldest_id FROM outbox WHERE status = 'queued' AND kind != 'notice'")
        last = self._one("SELECT last_error FROM outbox WHERE status = 'queued' AND last_error IS NOT NULL "
                         "ORDER BY id DESC LIMIT 1")
        return {**row, "last_error": last["last_error"] if last else None}

    def count_mail_to(self, to_addr: str, kinds: tuple[str, ...], since: str) -> int:
        """How many mails of `kinds` were queued to `to_addr` since `since`."""
        marks = ", ".join("?" * len(kinds))
        return self._one(f"SELECT COUNT(*) AS n FROM outbox WHERE lower(to_addr) = lower(?) AND kind IN ({marks}) "
                         "AND created_at >= ?", (to_addr, *kinds, since))["n"]

    def outbox_rows(self, status: str | None = None) -> list[dict]:
        sql = ("SELECT id, message_id, game, player, kind, to_addr, subject, status, attempts, last_error, "
               "created_at, next_attempt_at, sent_at FROM outbox")
        if status:
            return self._all(sql + " WHERE status = ? ORDER BY id", (status,))
        return self._all(sql + " ORDER BY id")

    def outbox_mail(self, id: int) -> dict | None:
        return self._one("SELECT * FROM outbox WHERE id = ?", (id,))

    def last_outbox(self, game: str, player: str, kinds: tuple[str, ...]) -> dict | None:
        marks = ", ".join("?" * len(kinds))
        return self._one(f"SELECT * FROM outbox WHERE game = ? AND player = ? AND kind IN ({marks}) "
                         "ORDER BY id DESC LIMIT 1", (game, player, *kinds))

    def count_outbox(self, game: str, player: str, kind: str) -> int:
        return self._one("SELECT COUNT(*) AS n FROM outbox WHERE game = ? AND player = ? AND kind = ?",
                         (game, player, kind))["n"]

    def outbox_rendered(self, id: int, text: str, html: str | None) -> None:
        """The row's text and HTML, rendered from its context, which it needs no more."""
        self.db.execute("UPDATE outbox SET text = ?, html = ?, context = NULL WHERE id = ?", (text, html, id))

    def outbox_sent(self, id: int, text: str | None = None, html: str | None = None) -> None:
        """Sent; `text` and `html`, when given, as rendered for it (outbox_rendered)."""
        if text is not None:
            self.outbox_rendered(id, text, html)
        self.db.execute("UPDATE outbox SET status = 'sent', attempts = attempts + 1, sent_at = ?, last_error = NULL, "
                        "claimed_by = NULL, claim_until = NULL WHERE id = ?", (self.now(), id))

    def outbox_attempt_failed(self, id: int, error: str, retry_at: str | None, owner: str | None = None) -> bool:
        """A send failed: try again at `retry_at`, or give up (None). Only for a row `owner`
        holds, or one no live claim holds (False: another sender has it now)."""
        cur = self.db.execute("UPDATE outbox SET attempts = attempts + 1, last_error = ?, status = ?, "
                              "next_attempt_at = COALESCE(?, next_attempt_at), claimed_by = NULL, claim_until = NULL "
                              "WHERE id = ? AND status = 'queued' AND (claimed_by IS NULL OR claimed_by = ? "
                              "OR claim_until <= ?)",
                              (error, "queued" if retry_at else "failed", retry_at, id, owner, self.now()))
        return cur.rowcount == 1

    def outbox_retry_failed(self) -> int:
        cur = self.db.execute("UPDATE outbox SET status = 'queued', next_attempt_at = ? WHERE status = 'failed'",
                              (self.now(),))
        return cur.rowcount

    # -- delivery: bounces, IMAP positions ---------------------------------------------

    def outbox_by_message_id(self, message_id: str) -> dict | None:
        return self._one("SELECT * FROM outbox WHERE message_id = ?", (message_id,))

    def imap_position(self, mailbox: str) -> dict | None:
        return self._one("SELECT uidvalidity, last_uid FROM imap_state WHERE mailbox = ?", (mailbox,))

    def set_imap_position(self, mailbox: str, uidvalidity: int, last_uid: int) -> None:
        self.db.execute("INSERT INTO imap_state (mailbox, uidvalidity, last_uid) VALUES (?, ?, ?) "
                        "ON CONFLICT (mailbox) DO UPDATE SET uidvalidity = excluded.uidvalidity, "
                        "last_uid = excluded.last_uid", (mailbox, uidvalidity, last_uid))

    def players_by_email(self, email: str) -> list[dict]:
        return self._all("SELECT * FROM players WHERE lower(email) = lower(?) AND status = 'active'", (email,))

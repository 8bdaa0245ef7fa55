"""The outbox: mails queued, looked up, withdrawn and readdressed, and the frames a move's reports
are made from (pbem/outbound/outbox.py). Sending them is tables_sending.py."""
from __future__ import annotations

import json
from collections.abc import Sequence

import msgspec

from pbem.store.core import StoreCore, _literals, rows_insert


class OutboxTables(StoreCore):
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

    # -- delivery: bounces, a new address ----------------------------------------------

    def outbox_by_message_id(self, message_id: str) -> dict | None:
        return self._one("SELECT * FROM outbox WHERE message_id = ?", (message_id,))

    def outbox_replied(self, message_id: str) -> dict | None:
        """What a mail that replies to ours asks of it (its game, reader, kind, headers): not the
        rendered text and HTML a sent mail's row holds (issue 28)."""
        return self._one("SELECT game, player, kind, headers FROM outbox WHERE message_id = ?", (message_id,))

    def readdress_outbox(self, game: str, player: str, to_addr: str, to_header: str) -> int:
        """The seat's mail not sent yet (queued, or failed and waiting for `outbox retry`) goes
        to its new address; how many."""
        rows = self._all("SELECT id, headers FROM outbox WHERE game = ? AND player = ? "
                         "AND status IN ('queued', 'failed')", (game, player))
        for row in rows:
            headers = msgspec.json.encode({**json.loads(row["headers"]), "To": to_header}).decode()
            self._run("UPDATE outbox SET to_addr = ?, headers = ? WHERE id = ?", (to_addr, headers, row["id"]))
        return len(rows)

"""Sending the outbox exactly once: due rows claimed with a lease, then marked sent or failed
(pbem/outbound/sending.py)."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import timedelta

from pbem.store.common import iso
from pbem.store.core import StoreCore


class SendingTables(StoreCore):
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

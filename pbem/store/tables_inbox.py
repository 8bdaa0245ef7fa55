"""What comes in: stored messages (pbem/inbound/), and the claims of daemons that read one IMAP
folder (pbem/sources/imap.py)."""
from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from pbem.store.common import iso
from pbem.store.core import StoreCore


class InboxTables(StoreCore):
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

    # -- IMAP claims -------------------------------------------------------------------

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

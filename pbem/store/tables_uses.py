"""What each person made the service do, counted against its limits (pbem/outbound/limits.py)."""
from __future__ import annotations

from pbem.store.core import StoreCore


class UseTables(StoreCore):
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

"""The moderator's notices, kept as rows and told in one digest (pbem/outbound/notices.py)."""
from __future__ import annotations

from pbem.store.core import StoreCore, _literals


class NoticeTables(StoreCore):
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

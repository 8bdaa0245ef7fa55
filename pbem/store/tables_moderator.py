"""The moderator's queries: `pbem prune`'s season chores, seats offered to substitutes, and the
shell's look-ups (pbem/moderate/)."""
from __future__ import annotations

import re
from collections.abc import Sequence

from pbem.store.core import StoreCore


class ModeratorTables(StoreCore):
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

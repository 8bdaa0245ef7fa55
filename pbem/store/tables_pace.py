"""A seat's pace besides its deadlines: bots, misses, downtime, standing orders and vacations
(pbem/pace/)."""
from __future__ import annotations

from pbem.store.core import StoreCore


class PaceTables(StoreCore):
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

    # -- pace: standing orders (pbem/pace/standing.py), vacations (pbem/pace/vacation.py) ---------

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

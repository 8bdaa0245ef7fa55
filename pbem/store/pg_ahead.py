"""PostgreSQL's reads made ahead: a read sent in the round trip of the statement before it, kept
until the store asks for exactly that read (same SQL, same parameters), then served once.

Within a transaction, a message stored with a token (`add_inbox`) brings what processing its
answer reads first: the token's seats, its game locked, that game's row, seats, deadlines,
standing orders and addresses' settings (`_read_ahead`, filed by `_kept_ahead`, served by
`_ahead`): an answered mail waited for the server six times before its move, now once. Outside
a transaction, sending's statements bring the read the sender makes next (the "loose" reads): a
claim the seats of its first mail's game (`_with_seats`, `_keep_seats`), a round's last marks
what still waits (`_loose_reads`, `_keep_loose`); such a read serves only the very next
statement (`_loose`).

What keeps them correct: a read ahead is served only in place of the very statement it was
filed under, once. Within a transaction the game's reads come after its advisory lock, taken
after the INSERT as `game` would take it a moment later (the order every process takes them
in), so they read what was committed once the lock was held; a write of one of their tables
(`_stale`), a savepoint undone (postgres.py) or the transaction's end drops them. A loose read
serves only the statement right after it and any other statement drops it, so the sender reads
what it would have read a moment later with nothing of its own between. pg_statements.py sends
each with the statement it goes with.
"""
from __future__ import annotations

import threading

from pbem.store.base import Store, _tables_written


class ReadAhead(Store):
    # set by PostgresStore.__init__: the transaction's state, per thread (postgres.py's transaction)
    _local: threading.local

    # -- an answer's first reads, made with the message's INSERT ------------------------------

    # The one game whose active seat the token opens, once the lock below took it (for the
    # length of the transaction); none when it opens none, or seats of several games.
    _AHEAD = "current_setting('pbem.ahead', true)"

    def add_inbox(self, raw: bytes, **kwargs) -> int:
        """Within a transaction, a message with a token is stored and, in the same round trip,
        what processing it reads first (`_read_ahead`): a mail answered waited for the server
        six times before its move was made, once."""
        local = self._local
        if kwargs.get("token_hash") and getattr(local, "conn", None) is not None:
            local.then = kwargs["token_hash"]
        try:
            return super().add_inbox(raw, **kwargs)
        finally:
            local.then = None

    # The reads ahead are filed under the store's own statements (base.py's _GAME_SQL, _SEATS_SQL,
    # _DEADLINES_SQL, _ORDERS_SQL, _TOKEN_SQL, _WAITING_SQL) and served only to exactly those.

    def _read_ahead(self, token_hash: str) -> list[tuple[str, tuple]]:
        """The reads sent after the message's INSERT, before its answer is awaited: in one
        statement the seats the token opens (as JSON) and the game of its one active seat locked
        (the game's advisory lock, `game`'s) and named for the read after it; then, in one, that game's row with its
        chain's head and, as JSON, its seats, deadlines, standing orders and the address
        settings of its active seats (each the rows of the read `_kept_ahead` files it under:
        their columns are text and integers, which JSON gives back as they were). What
        processing the answer reads next; an answer that reads them finds them read (`_ahead`),
        one that does not (a refusal, a duplicate) cost the server a few reads of rows it has at
        hand. The lock is the one `game` would take a moment later, after the INSERT as there
        (the order every process takes them in); the reads come after it, as each statement
        reads what was committed when it began."""
        active = "FROM players WHERE game = games.id AND status = 'active' AND email <> ''"
        return [
            ("SELECT (SELECT json_agg(p) FROM players AS p WHERE p.token_hash = ?) AS seats, lock.game "
             "FROM (SELECT 1) AS one LEFT JOIN LATERAL (SELECT game, "
             "pg_advisory_xact_lock(hashtextextended(game, 0)) IS NULL AS locked, "
             "set_config('pbem.ahead', game, true) IS NULL AS named FROM (SELECT min(game) AS game FROM players "
             "WHERE token_hash = ? AND status = 'active' HAVING count(DISTINCT game) = 1) AS seat) AS lock ON true",
             (token_hash, token_hash)),
            (f"SELECT *, ({self._HEAD}) AS chain_head, "
             "(SELECT json_agg(p) FROM players AS p WHERE p.game = games.id) AS pbem_players, "
             "(SELECT json_agg(d ORDER BY d.due_at, d.prompt, d.player) FROM deadlines AS d WHERE d.game = games.id "
             "AND (d.status = 'open' OR d.mailed IS NOT NULL)) AS pbem_deadlines, "
             "(SELECT json_agg(o ORDER BY o.n) FROM (SELECT player, n, text, uses, filed_at FROM standing_orders "
             "WHERE game = games.id AND status = 'active') AS o) AS pbem_orders, "
             f"(SELECT array_agg(lower(email) ORDER BY seat) {active}) AS pbem_emails, "
             f"(SELECT json_agg(a) FROM address_settings AS a WHERE a.address IN (SELECT lower(email) {active})) "
             f"AS pbem_addresses FROM games WHERE id = {self._AHEAD}", ()),
        ]

    def _kept_ahead(self, token_hash: str, got: list[list[dict]]) -> None:
        """The reads ahead filed under the statements processing will make (each served once)."""
        (token,), game = got
        local = self._local
        ahead = local.ahead
        ahead[(self._TOKEN_SQL, (token_hash,))] = (("players",), token["seats"] or [])
        id = token["game"]
        if id is None:  # no game of one active seat: nothing else was read
            return
        local.locked.add(id)
        if not game:
            return
        row = game[0]
        players, emails, addresses = row.pop("pbem_players") or [], row.pop("pbem_emails"), row.pop("pbem_addresses")
        deadlines, orders = row.pop("pbem_deadlines") or [], row.pop("pbem_orders") or []
        key = (id,)
        ahead[(self._GAME_SQL, key)] = (("games", "moves"), game)
        ahead[(self._SEATS_SQL, key)] = (("players",), players)
        ahead[(self._DEADLINES_SQL, key)] = (("deadlines",), deadlines)
        ahead[(self._ORDERS_SQL, key)] = (("standing_orders",), orders)
        # read_once's addresses: the active seats', in their order, as Store.read_once makes them
        wanted = [p["email"].lower() for p in sorted(players, key=lambda p: p["seat"])
                  if p["status"] == "active" and p["email"]]
        if wanted and emails == wanted:  # lowered alike (the server's lower() is ASCII's here)
            ahead[(f"SELECT * FROM address_settings WHERE address IN ({', '.join('?' * len(wanted))})",
                   tuple(wanted))] = (("address_settings",), addresses or [])

    def _ahead(self, sql: str, params) -> list[dict] | None:
        """The rows of a read made ahead (`_read_ahead`), once; None: not made, or made stale by
        a write of its tables since (`_stale`)."""
        ahead = getattr(self._local, "ahead", None)
        if not ahead:
            return None
        got = ahead.pop((sql, tuple(params)), None)
        return None if got is None else got[1]

    # -- sending: a read ahead with the claim, and with a round's last marks ---------------------

    def claim_outbox_rows(self, owner: str, lease_seconds: float, limit: int, skip=()) -> list[dict]:
        """As Store's; outside a transaction, the seats of the first claimed mail's game come with
        the claim, as a JSON column of its first row (`_all`: the sender reads them next,
        `read_once`; a statement and a wait an answered mail). When
        the claim took fewer than `limit` (none left due: the round's last batch), the ids are
        kept, so that the marks of the last of them bring `outbox_waiting` (read next, at the
        round's end)."""
        local = self._local
        local.claiming = getattr(local, "conn", None) is None
        try:
            rows = super().claim_outbox_rows(owner, lease_seconds, limit, skip)
        finally:
            local.claiming = False
        local.claimed = {r["id"] for r in rows} if len(rows) < limit else None
        return rows

    def outbox_sent_rows(self, rows, owner: str) -> set[int]:
        claimed = getattr(self._local, "claimed", None)
        if claimed and getattr(self._local, "conn", None) is None:
            claimed.difference_update(id for id, _, _ in rows)
            self._local.last = not claimed  # the round's last marks: what waits is read next
        try:
            return super().outbox_sent_rows(rows, owner)
        finally:
            self._local.last = False

    def _loose_reads(self) -> list[tuple[str, tuple]]:
        """The reads that go with a statement outside a transaction (its own commit): after a
        round's last marks, what still waits."""
        return [(self._WAITING_SQL, ())] if getattr(self._local, "last", False) else []

    def _keep_loose(self, reads: list[tuple[str, tuple]], got: list[list[dict]]) -> None:
        """The loose reads filed for the next statement (`_loose`), under the read it will make."""
        self._local.loose = {(sql, tuple(params)): rows for (sql, params), rows in zip(reads, got)} or None

    @staticmethod
    def _with_seats(claim: str) -> str:
        """The claim, its rows returned with the seats of the first one's game as JSON (a column
        of that row alone): the rows as the claim returns them; the seats as the sender's
        `read_once` reads them (text and integers: the same values from JSON), in the one
        statement, as the claimed rows were when it began."""
        return (f"WITH pbem_claim AS ({claim}) SELECT *, CASE WHEN row_number() OVER "
                "(ORDER BY next_attempt_at, id) = 1 THEN (SELECT json_agg(p) FROM players AS p "
                "WHERE p.game = pbem_claim.game) END AS pbem_seats FROM pbem_claim")

    def _keep_seats(self, rows: list[dict]) -> None:
        """The claim's rows without the seats' column, the seats filed for the next statement."""
        loose = None
        for row in rows:
            seats = row.pop("pbem_seats")
            if seats:
                loose = {(self._SEATS_SQL, (seats[0]["game"],)): seats}
        self._local.loose = loose

    def _loose(self, sql: str, params) -> list[dict] | None:
        """Outside a transaction, a read made ahead with the statement before (`_loose_reads`): served
        to the next statement if it is that read, else dropped (it was made for that moment only)."""
        loose = getattr(self._local, "loose", None)
        if not loose:
            return None
        self._local.loose = None
        return loose.get((sql, tuple(params)))

    def _stale(self, sql: str) -> None:
        """A statement of this transaction: the reads made ahead of the tables it writes are dropped."""
        ahead = getattr(self._local, "ahead", None)
        if ahead:
            for table in _tables_written(sql):
                for key in [k for k, (tables, _) in ahead.items() if table in tables]:
                    del ahead[key]

"""Games and their seats, and a person's settings across games (pbem/core/games.py,
pbem/core/people.py)."""
from __future__ import annotations

import json

from pbem.store.core import StoreCore


class GameTables(StoreCore):
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

    def seats_by_email(self, email: str) -> list[dict]:
        """Every seat of an address in every game, with its game's status, oldest game first."""
        return self._all("SELECT p.*, g.status AS game_status FROM players p JOIN games g ON g.id = p.game "
                         "WHERE lower(p.email) = lower(?) ORDER BY g.created_at, p.game", (email,))

"""The move log: each game's hash-chained moves, what each showed, how far each seat's reports
went, and the snapshots of its state."""
from __future__ import annotations

from collections.abc import Sequence

from pbem.store.common import _CHAINED, chain_hash, storable
from pbem.store.core import StoreCore


class MoveTables(StoreCore):
    # -- the move log ----------------------------------------------------------------

    def append_move(self, game: str, *, kind: str, player: str | None, actor: str, line: str,
                    state_hash: str, prompt: int | None = None, message_id: str | None = None,
                    inbox_id: int | None = None, count: bool = True) -> dict:
        """Append one hash-chained row; returns it (with its seq). `count` False: the caller
        sets the game's `moves` to it in its own update of the game row (one write, not two).
        The chain's head is read, unless this transaction read it with the game (`game`, under
        the game's lock: no one else appends meanwhile) or appended the last move itself."""
        heads = self._heads()
        head = heads.get(game) if heads is not None else None
        if head is None:
            g = self._the_one(f"SELECT moves, seed_commitment, ({self._HEAD}) AS last FROM games WHERE id = ?", (game,))
            head = (g["moves"], g["last"] or g["seed_commitment"])  # the chain starts at the seed's commitment
        moves, prev = head
        row = {"game": game, "seq": moves + 1, "kind": kind, "player": player, "actor": actor, "line": line,
               "prompt": prompt, "message_id": message_id, "inbox_id": inbox_id, "at": self.now()}
        row = {k: storable(v) if isinstance(v, str) else v for k, v in row.items()}  # hashed as it is stored
        digest = chain_hash(prev, {k: row[k] for k in _CHAINED}, state_hash)
        row.update(state_hash=state_hash, prev_hash=prev, hash=digest)
        self._insert("moves", row)
        if heads is not None:
            heads[game] = (moves + 1, digest)
        if count:
            self._write("UPDATE games SET moves = ?, updated_at = ? WHERE id = ?", (row["seq"], row["at"], game))
        return row

    def moves(self, game: str, after: int = 0, upto: int | None = None) -> list[dict]:
        sql, params = "SELECT * FROM moves WHERE game = ? AND seq > ?", [game, after]
        if upto is not None:
            sql += " AND seq <= ?"
            params.append(upto)
        return self._all(sql + " ORDER BY seq", params)

    def add_move_events(self, game: str, seq: int, events: str) -> None:
        """What move `seq` showed (JSON, see pbem/outbound/turnmail.py); outside the hash chain:
        the engine derives it again from the log."""
        once = self._once
        kept = once.get(("move_events", "written")) if once is not None and once["game"] == game else None
        self._write("INSERT INTO move_events (game, seq, events) VALUES (?, ?, ?)", (game, seq, events))
        if once is not None and once["game"] == game:  # the move's reports read them next: kept, as stored
            once[("move_events", "written")] = {**(kept or {}), seq: storable(events)}  # rows are never changed

    def move_events(self, game: str, after: int, upto: int) -> list[dict]:
        """The events of moves after `after` up to `upto`. Within `read_once`, those of moves it
        stored itself come from what it stored: a move's reports read the move just played (a
        statement an answered mail)."""
        once = self._once
        written = once.get(("move_events", "written")) if once is not None and once["game"] == game else None
        if written and all(seq in written for seq in range(after + 1, upto + 1)):
            return [{"seq": seq, "events": written[seq]} for seq in range(after + 1, upto + 1)]
        return self._all("SELECT seq, events FROM move_events WHERE game = ? AND seq > ? AND seq <= ? ORDER BY seq",
                         (game, after, upto))

    def set_reported(self, game: str, names: str | Sequence[str], seq: int) -> None:
        """The reports of `names` (one name, or several in one statement) have shown the
        events up to move `seq`."""
        names = [names] if isinstance(names, str) else list(names)
        if names:
            once = self._once
            seats = once.get(("players", "all")) if once is not None and once["game"] == game else None
            marks = ", ".join("?" * len(names))
            self._write(f"UPDATE players SET reported_seq = ? WHERE game = ? AND name IN ({marks})",
                        (seq, game, *names))
            if seats is not None and once is not None and self._once is once:  # read_once: the seats stay read
                once[("players", "all")] = {name: [{**r, "reported_seq": seq} if name in names else r for r in rows]
                                            for name, rows in seats.items()}

    def rewind_reported(self, game: str, name: str, seq: int) -> None:
        """A report that began at move `seq` was not delivered: the next one starts there again."""
        self._run("UPDATE players SET reported_seq = ? WHERE game = ? AND name = ? AND reported_seq > ?",
                  (seq, game, name, seq))

    def verify_chain(self, game: str) -> list[str]:
        """What is wrong with the move log of `game` (empty: the chain holds)."""
        g = self._the_one("SELECT moves, seed_commitment FROM games WHERE id = ?", (game,))
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
        self._run(f"INSERT INTO snapshots (game, seq, state) VALUES (?, ?, ?) "
                        f"ON CONFLICT (game, seq) DO {action}", (game, seq, state))

    def snapshots(self, game: str) -> list[dict]:
        return self._all("SELECT seq, state FROM snapshots WHERE game = ? ORDER BY seq", (game,))

    def snapshot_before(self, game: str, seq: int) -> dict | None:
        """The latest snapshot at or before `seq`."""
        return self._one("SELECT seq, state FROM snapshots WHERE game = ? AND seq <= ? ORDER BY seq DESC LIMIT 1",
                         (game, seq))

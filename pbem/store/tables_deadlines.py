"""Deadlines: questions' time limits, their calendar events, and a daemon's next timed work
(pbem/pace/deadlines.py)."""
from __future__ import annotations

from collections.abc import Sequence

from pbem.store.core import StoreCore


class DeadlineTables(StoreCore):
    # -- pace: deadlines (pbem/pace/deadlines.py) -------------------------------------------

    def deadlines(self, game: str, player: str | None = None, open_only: bool = True,
                  order: str = "due_at, prompt, player") -> list[dict]:
        if player and open_only and order == "due_at, prompt, player":
            once = self._once_deadlines(game, player, "open")
            if once is not None:
                return once
        sql, params = "SELECT * FROM deadlines WHERE game = ?", [game]
        if open_only:
            sql += " AND status = 'open'"
        if player:
            sql += " AND player = ?"
            params.append(player)
        return self._all(f"{sql} ORDER BY {order}", params)

    def _once_deadlines(self, game: str, seat: str, what: str) -> list[dict] | None:
        """Within `read_once`: `seat`'s open deadlines ("open") or cancellations owed ("owed"),
        both read in one statement the first time either is wanted (every report asks for both:
        two statements a move were one); None outside it. Both are in the order of `deadlines`
        (a seat's rows have one player, so "owed"'s `due_at, prompt` is the same order)."""
        once = self._once
        if once is None or once["game"] != game:
            return None
        if ("deadlines", "open") not in once or ("deadlines", "owed") not in once:
            kept: dict[str, dict[str, list[dict]]] = {"open": {}, "owed": {}}
            for row in self._all(self._DEADLINES_SQL, (game,)):
                kept["open" if row["status"] == "open" else "owed"].setdefault(row["player"], []).append(row)
            once[("deadlines", "open")], once[("deadlines", "owed")] = kept["open"], kept["owed"]
        return [dict(row) for row in once[("deadlines", what)].get(seat, ())]

    def open_deadline(self, game: str, prompt: int, player: str, *, kind: str, default_key: str, opened_at: str,
                      due_at: str, reminded: str, next_at: str, email: str | None = None) -> None:
        """A deadline for a question now asked (of the seat's person at `email`); a rollback can
        reopen a question: its row comes back to life with a new deadline."""
        self._run("INSERT INTO deadlines (game, prompt, player, kind, default_key, opened_at, due_at, reminded, "
                  "next_at, status, guard, email) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', '', ?) "
                  "ON CONFLICT (game, prompt, player) DO UPDATE SET "
                  "kind = excluded.kind, default_key = excluded.default_key, opened_at = excluded.opened_at, "
                  "due_at = excluded.due_at, reminded = excluded.reminded, next_at = excluded.next_at, "
                  "status = 'open', guard = '', closed_at = NULL, closed_by = NULL, email = excluded.email, "
                  "sequence = deadlines.sequence + 1",
                  (game, prompt, player, kind, default_key, opened_at, due_at, reminded, next_at, email))
        self.notify("deadline")

    def update_deadline(self, game: str, prompt: int, player: str, *, moved: bool = False, **fields) -> int:
        """`moved`: its calendar event changes (its time or whether it stands): its SEQUENCE
        rises, so a calendar moves the event it has rather than adding one."""
        sets = [*(f"{k} = ?" for k in fields), *(["sequence = sequence + 1"] if moved else [])]
        return self._run(f"UPDATE deadlines SET {', '.join(sets)} WHERE game = ? AND prompt = ? AND player = ?",
                         [*fields.values(), game, prompt, player])

    def set_guard(self, game: str, new: str, old: str, due_by: str | None = None) -> int:
        """The open deadlines of `game` whose guard is `old` (and due by `due_by`) get `new`
        (their calendar events change: held, or let go)."""
        sql, params = ("UPDATE deadlines SET guard = ?, sequence = sequence + 1 WHERE game = ? AND status = 'open' "
                       "AND guard = ?"), [new, game, old]
        if due_by:
            sql += " AND due_at <= ?"
            params.append(due_by)
        return self._run(sql, params)

    def held_deadlines(self, game: str) -> list[dict]:
        return self._all("SELECT player, prompt FROM deadlines WHERE game = ? AND guard = 'held' AND status = 'open' "
                         "ORDER BY prompt, player", (game,))

    def deadlines_to_look_at(self, now: str) -> list[dict]:
        """The open deadlines whose next time (a reminder's, else the deadline's) has come, in
        active games: read through the index on next_at, so a poll costs what is due, not
        what is open."""
        return self._all("SELECT d.* FROM deadlines d JOIN games g ON g.id = d.game WHERE d.status = 'open' "
                         "AND d.next_at <= ? AND d.guard != 'held' AND g.status = 'active' ORDER BY d.next_at", (now,))

    def claim_deadline(self, row: dict) -> dict | None:
        """Inside a transaction: the row as it is now, locked, if it is still open and
        unchanged since `row` was read; None if another process answered, moved or holds it
        (PostgreSQL: SKIP LOCKED, no waiting). A reminder is queued once however many daemons."""
        return self._one("SELECT * FROM deadlines WHERE game = ? AND prompt = ? AND player = ? AND due_at = ? "
                         "AND reminded = ? AND status = 'open'" + self.SKIP_LOCKED,
                         (row["game"], row["prompt"], row["player"], row["due_at"], row["reminded"]))

    def calendar_owed(self, game: str, player: str) -> list[dict]:
        """The player's deadlines in `game` whose calendar event a mail has carried and that are
        closed since: their cancellation is owed (the partial index deadlines_mailed)."""
        once = self._once_deadlines(game, player, "owed")
        if once is not None:
            return once
        return self._all("SELECT * FROM deadlines WHERE game = ? AND player = ? AND mailed IS NOT NULL "
                         "AND status != 'open' ORDER BY due_at, prompt", (game, player))

    def deadlines_closed_since(self, game: str, player: str, since: str) -> list[dict]:
        """The player's deadlines in `game` closed since `since` (a calendar feed's cancellations)."""
        return self._all("SELECT * FROM deadlines WHERE game = ? AND player = ? AND status != 'open' "
                         "AND closed_at >= ? ORDER BY due_at, prompt", (game, player, since))

    def calendar_mailed(self, game: str, player: str, told: Sequence[tuple[int, int | None]]) -> None:
        """What a mail's calendar part told: (prompt, SEQUENCE) of each event, None once cancelled.
        Within `read_once` the deadlines read stay read, marked as this writes them: each reader's
        calendar part marks what it carried, and reading the game's deadlines again after each
        was most of a move's deadline reads."""
        once = self._once
        kept = {k: once[k] for k in (("deadlines", "open"), ("deadlines", "owed")) if k in once} \
            if once is not None and once["game"] == game else {}
        for prompt, seq in told:
            self._run("UPDATE deadlines SET mailed = ? WHERE game = ? AND prompt = ? AND player = ?",
                      (seq, game, prompt, player))
        if kept and once is not None and self._once is once:
            once.update(_marked_mailed(kept, player, dict(told)))

    def deadlines_passed(self, game: str, now: str) -> list[dict]:
        return self._all("SELECT * FROM deadlines WHERE game = ? AND status = 'open' AND guard != 'held' "
                         "AND due_at <= ? ORDER BY due_at, prompt, player", (game, now))

    def deadlines_in_window(self, since: str, until: str) -> list[dict]:
        """For the outage guard: in every active game, the deadlines of active players open
        and passed by `until`, defaulted between `since` and `until`, or answered by the
        player themselves after `since`."""
        return self._all("SELECT d.player, d.game, d.status, d.guard FROM deadlines d "
                         "JOIN players p ON p.game = d.game AND p.name = d.player JOIN games g ON g.id = d.game "
                         "WHERE p.status = 'active' AND g.status = 'active' "
                         "AND ((d.status = 'open' AND d.due_at <= ?) "
                         "OR (d.status = 'defaulted' AND d.due_at > ? AND d.due_at <= ?) "
                         "OR (d.status = 'answered' AND d.closed_by = d.player AND d.closed_at > ?))",
                         (until, since, until, since))

    def next_wakeup(self) -> str | None:
        """The next time after now that a daemon has timed work: a deadline's next time, a
        mail's next try, a claim's lease running out: a mail's, or an IMAP message's not yet moved
        (a daemon that died holding it: another takes it then, not at its next look a minute
        later). What is due already, the cycle that just ran took or left to another daemon."""
        now = self.now()
        row = self._the_one("SELECT (SELECT MIN(next_at) FROM deadlines WHERE status = 'open' AND next_at > ?) AS d, "
                        "(SELECT MIN(next_attempt_at) FROM outbox WHERE status = 'queued' "
                        "AND next_attempt_at > ?) AS o, "
                        "(SELECT MIN(claim_until) FROM outbox WHERE status = 'queued' AND claim_until > ?) AS c, "
                        "(SELECT MIN(claim_until) FROM imap_claims WHERE stored < 2 AND claim_until > ?) AS i",
                        (now, now, now, now))
        times = [t for t in (row["d"], row["o"], row["c"], row["i"]) if t]
        return min(times) if times else None


def _marked_mailed(kept: dict, player: str, told: dict[int, int | None]) -> dict:
    """The deadlines `read_once` read (`kept`: its "open" and "owed" reads, by seat) as they are
    once `player`'s rows of `told` (prompt: SEQUENCE, None for a cancellation) are marked
    mailed; the owed read is left out (read again) when a row it may now hold was not read."""
    out = {}
    opened = kept.get(("deadlines", "open"))
    if opened is not None:
        out[("deadlines", "open")] = {**opened, player: [
            {**r, "mailed": told[r["prompt"]]} if r["prompt"] in told else r for r in opened.get(player, ())]}
    owed = kept.get(("deadlines", "owed"))
    if owed is not None:
        rows = owed.get(player, [])
        known = {r["prompt"] for r in rows} | {r["prompt"] for r in (opened or {}).get(player, ())}
        if all(seq is None or prompt in known for prompt, seq in told.items()):  # no closed row newly owed
            out[("deadlines", "owed")] = {**owed, player: [
                {**r, "mailed": told.get(r["prompt"], r["mailed"])} for r in rows
                if told.get(r["prompt"], r["mailed"]) is not None]}
    return out

"""The store's interface and the SQL both databases run: `Store` holds every query, written
once with `?` placeholders; pbem/store/sqlite.py and pbem/store/postgres.py give it a
connection, transactions and the few spots where the dialects differ (`_lock_game`,
`FOR_UPDATE`, `SKIP_LOCKED`, `notify`).

Concurrency, the same on both: a write happens inside `transaction()`. SQLite has one writer
at a time (BEGIN IMMEDIATE), so a transaction sees nothing change under it. PostgreSQL runs
them side by side (READ COMMITTED), so what must not interleave is locked explicitly: a game
(an advisory lock, taken when a transaction first reads the game: one answer after the other,
one hash chain), a stored message being processed (its row, FOR UPDATE), and the outbox and
deadline rows a daemon claims (FOR UPDATE SKIP LOCKED: another daemon takes the next one).

The queries live by area, each a mixin of pbem/store/core.py's `StoreCore` (its primitives,
`read_once`, the schema, the statements kept by name) in its own module: tables_games.py (games,
seats, address settings), tables_moves.py (the move log), tables_inbox.py (stored messages, IMAP
claims), tables_outbox.py and tables_sending.py (mail queued, then sent), tables_uses.py (limits),
tables_notices.py, tables_deadlines.py, tables_pace.py (bots, misses, standing orders,
vacations), tables_moderator.py (prune, offers); `Store` is all of them.
"""
from __future__ import annotations

import functools
import re

from pbem.store.core import StoreCore, rows_insert
from pbem.store.tables_deadlines import DeadlineTables
from pbem.store.tables_games import GameTables
from pbem.store.tables_inbox import InboxTables
from pbem.store.tables_moderator import ModeratorTables
from pbem.store.tables_moves import MoveTables
from pbem.store.tables_notices import NoticeTables
from pbem.store.tables_outbox import OutboxTables
from pbem.store.tables_pace import PaceTables
from pbem.store.tables_sending import SendingTables
from pbem.store.tables_uses import UseTables

__all__ = ["Store", "StoreCore", "rows_insert"]


@functools.lru_cache(maxsize=1024)  # a few dozen statements, each run many times (issue 28: 13 an answer)
def _tables_written(sql: str) -> tuple[str, ...]:
    return tuple(table.lower() for table in Store._WRITES.findall(sql))


class Store(GameTables, MoveTables, InboxTables, OutboxTables, SendingTables,
            UseTables, NoticeTables, DeadlineTables, PaceTables, ModeratorTables):
    # what a write drops of `read_once`: here, with `_tables_written`, which searches each statement
    # once with the composed class's pattern (`Store._WRITES`, as a subclass or a test sets it)
    _WRITES = re.compile(r"\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)", re.IGNORECASE)

    def _written(self, sql: str) -> None:
        """A statement run within `read_once`: what was read of the tables it writes is dropped."""
        once = self._once
        if once is not None:
            for table in _tables_written(sql):
                for key in [k for k in once if isinstance(k, tuple) and k[0] == table]:
                    del once[key]

"""PostgreSQL's report frames: stored under ids reserved beforehand (no INSERT ... RETURNING
waited for) and kept by the process that stored them (no read back when it sends them)."""
from __future__ import annotations

from pbem.store.base import Store


class KeptFrames(Store):
    # set by PostgresStore.__init__
    _frames: dict[int, str]
    _frame_ids: list[int]

    def add_frame(self, frame: str) -> int:
        """Within a transaction under an id taken from the ones this store reserved (the identity's
        sequence, 16 at a time): a write sent without waiting, not an INSERT ... RETURNING read
        back (a wait, half of the answered mails). A reserved id is used once or never: unique
        across processes (nextval), never one of a row rolled back (see frame)."""
        if self.in_transaction:
            try:
                id = self._frame_ids.pop()  # atomic: threads may share the store
            except IndexError:
                ids = [r["id"] for r in self._all(
                    "SELECT nextval(pg_get_serial_sequence('report_frames', 'id')) AS id FROM generate_series(1, 16)")]
                id = ids.pop()
                self._frame_ids.extend(ids)
            self._write("INSERT INTO report_frames (id, frame) VALUES (?, ?)", (id, frame))
        else:
            id = super().add_frame(frame)
        if len(self._frames) >= 32:
            self._frames.clear()
        self._frames[id] = frame
        return id

    def frame(self, id: int) -> str:
        """A move's reports are sent by the process that queued them, most often: what it stored
        is kept (the last 32), not read back (a statement an answered mail). Safe here, not on
        SQLite: an identity column never gives a rolled-back row's id again, so a kept id is
        that row or no row anyone refers to."""
        kept = self._frames.get(id)
        return super().frame(id) if kept is None else kept

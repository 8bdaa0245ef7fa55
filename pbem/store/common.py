"""What every store and its callers share: the clock, times as text, the chain's hash."""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(t: datetime) -> str:
    return t.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


# The service_meta row a restore sets to a new random value: every Message-ID made after a
# restore carries it, so no mail reuses the id of one sent before with other content.
EPOCH = "epoch"
KEY_FINGERPRINT = "key_fingerprint"  # the service_meta row naming the service's key (pbem/core/keys.py)


class StoreUnavailable(Exception):
    """The database cannot be opened or written now: a mail pipe should say 'try later'."""


def chain_hash(prev_hash: str, record: dict[str, Any], state_hash: str) -> str:
    body = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{prev_hash}\n{body}\n{state_hash}".encode()).hexdigest()


_CHAINED = ("game", "seq", "kind", "player", "actor", "line", "prompt", "message_id", "inbox_id", "at")


def is_url(target) -> bool:
    """A PostgreSQL connection URL (pbem.toml `db = "postgresql://…"`), not a SQLite file."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))

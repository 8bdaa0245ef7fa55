"""What every store and its callers share: the clock, times as text, the chain's hash, text
made storable."""
from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import msgspec

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(t: datetime) -> str:
    """`t` as the store writes a time: UTC to the second, `Z`. The last one made is kept (by its
    second, its zone UTC): an answer asks about nine times within one second, at 2.5 us each."""
    global _last_iso
    if t.tzinfo is UTC:
        second, last = t.replace(microsecond=0), _last_iso  # one read of the pair: threads may replace it
        if second == last[0]:
            return last[1]
        text = second.isoformat().replace("+00:00", "Z")
        _last_iso = (second, text)
        return text
    return t.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


_last_iso: tuple = (None, "")


# The service_meta row a restore sets to a new random value: every Message-ID made after a
# restore carries it, so no mail reuses the id of one sent before with other content.
EPOCH = "epoch"
KEY_FINGERPRINT = "key_fingerprint"  # the service_meta row naming the service's key (pbem/core/keys.py)


class StoreUnavailable(Exception):
    """The database cannot be opened or written now: a mail pipe should say 'try later'."""


_PLAIN = (str, int, type(None))  # what a chained record holds (bool is an int)


def chain_hash(prev_hash: str, record: dict[str, Any], state_hash: str) -> str:
    """The move log's link: the previous hash, the record as JSON (keys sorted, compact,
    non-ASCII as it is: json.dumps's), the state's hash. For strings, integers and null msgspec
    writes those same bytes (every code point: tests/test_store.py) in a fifth of the time, and
    `verify` hashes every move again; anything else goes through json.dumps as it always did."""
    if all(isinstance(v, _PLAIN) for v in record.values()):
        body = msgspec.json.encode(record, order="sorted")
    else:
        body = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    return hashlib.sha256(b"%s\n%s\n%s" % (prev_hash.encode(), body, state_hash.encode())).hexdigest()


_CHAINED = ("game", "seq", "kind", "player", "actor", "line", "prompt", "message_id", "inbox_id", "at")


def is_url(target) -> bool:
    """A PostgreSQL connection URL (pbem.toml `db = "postgresql://…"`), not a SQLite file."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


# Text from outside (a Message-ID, a file name, a line of a mail, a name on the command line)
# may hold what a database cannot take: PostgreSQL refuses NUL in text, and neither store
# takes a lone surrogate (a byte that was not UTF-8, as the email parser keeps it). Every
# text a statement binds is made storable here, the same on both stores, so a value is
# stored, found again and copied from one store to the other alike. Raw mail stays bytes.
_C0 = "".join(chr(c) for c in range(32) if chr(c) not in "\t\n\r")
_C0_BYTES = _C0.encode()
_UNSTORABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff]")


def _visible(m: re.Match) -> str:
    c = m.group()
    return chr(0x2400 + ord(c)) if c < " " else "\ufffd"


def _storable_already(text: str) -> bool:
    """No C0 control but tab, newline and CR, no lone surrogate: the cheapest test found (a
    C loop each: UTF-8 refuses a surrogate, and a C0 byte is never part of another character)."""
    try:
        data = text.encode()
    except UnicodeEncodeError:
        return False
    return len(data.translate(None, _C0_BYTES)) == len(data)


def storable(text: str) -> str:
    """`text` as every store keeps it: a C0 control other than tab, newline and carriage
    return as its visible picture (U+2400 plus its code: NUL is "␀"), a lone surrogate
    as U+FFFD. What it returns it returns unchanged (so a value cleaned before it was hashed, as
    a move's, is stored as hashed)."""
    return text if _storable_already(text) else _UNSTORABLE.sub(_visible, text)


def storable_params(params):
    """A statement's parameters with every text storable (bytes and numbers as they are):
    one test of all its texts at once, the usual case (about 40 us of CPU a mail)."""
    texts = [p for p in params if isinstance(p, str)]
    if not texts or _storable_already("".join(texts)):
        return params
    return [storable(p) if isinstance(p, str) else p for p in params]


def storable_data(value):
    """`value` with every text in it storable: a text, or lists, tuples, dicts and dataclasses
    of texts (an order read from a mail: what it quotes back, stores and logs is then clean).
    `value` itself when nothing in it needs it, the usual case (its texts tested at once)."""
    return value if _storable_already("".join(_texts(value, []))) else _cleaned(value)


def _texts(value, out: list[str]) -> list[str]:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _texts(v, out)
    elif isinstance(value, dict):
        for k, v in value.items():
            _texts(k, out)
            _texts(v, out)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _texts(getattr(value, f.name), out)
    return out


def _cleaned(value):
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_cleaned(v) for v in value)
    if isinstance(value, dict):
        return {_cleaned(k): _cleaned(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(value, **{f.name: _cleaned(getattr(value, f.name))
                                             for f in dataclasses.fields(value) if f.init})
    return value

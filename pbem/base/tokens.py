"""Players' tokens and games' seeds: made, hashed, compared; never stored in clear.

Every mail the service sends a player carries that player's token in its Reply-To, so the
service must be able to produce a token long after the player joined, yet the database
holds only sha256(token). A token is therefore derived: HMAC-SHA256 of the service key
(home/secret.key, outside the database) over (game, player, salt), cut to 20 lowercase hex
characters -- as strong as `secrets.token_hex(10)`. The salt is random per player and
changes when a seat is given to someone else, which revokes the old token. The key is one
per service: the store records its `fingerprint` (pbem/core/keys.py), and a new key
(`pbem key rotate`) changes every token at once.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Iterable
from pathlib import Path


class BadKey(ValueError):
    """A key file that holds no key."""


def new_key() -> bytes:
    return secrets.token_bytes(32)


def read_key(path: Path) -> bytes:
    """The key in the file `path` (hex digits, as `write_key` writes them); BadKey if it holds none."""
    return parse_key(Path(path).read_text("ascii", errors="replace"), str(path))


def parse_key(text: str, where: str) -> bytes:
    """The key a key file's `text` holds; BadKey (naming `where`) if none."""
    try:
        key = bytes.fromhex(text.strip())
    except ValueError:
        key = b""
    if len(key) < 16:
        raise BadKey(f"{where} holds no pbem key (a secret.key is 64 hex digits on one line)")
    return key


def write_key(path: Path, key: bytes) -> None:
    """Write `key` into the new file `path` (0600 whatever the umask, fsynced); FileExistsError
    if there is one: a key is never overwritten in place."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(key.hex() + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.chmod(path, 0o600)


def load_key(path: Path) -> bytes:
    """The service key, created (mode 0600) on first use."""
    path = Path(path)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_key(path, new_key())
    return read_key(path)


def fingerprint(key: bytes) -> str:
    """What names a key in the store, logs and messages: 16 hex digits of the SHA-256 of a
    value derived from it (an HMAC of a fixed label), which tells nothing about the key."""
    derived = hmac.new(key, b"pbem key fingerprint", hashlib.sha256).digest()
    return hashlib.sha256(derived).hexdigest()[:16]


def new_salt() -> str:
    return secrets.token_hex(8)


def token_for(key: bytes, game: str, player: str, salt: str) -> str:
    msg = f"{game}\n{player}\n{salt}".encode()
    return hmac.new(key, msg, hashlib.sha256).hexdigest()[:20]


def offer_code(key: bytes, game: str, player: str, email: str, salt: str) -> str:
    """The code that takes seat `player` of `game` offered to `email` (pbem/moderate/offers.py):
    token-shaped (20 hex), so a reply quoting it is stored masked like a token."""
    msg = f"offer\n{game}\n{player}\n{email.strip().lower()}\n{salt}".encode()
    return hmac.new(key, msg, hashlib.sha256).hexdigest()[:20]


def hash_token(token: str) -> str:
    return hashlib.sha256(token.strip().lower().encode()).hexdigest()


def matches(token: str | None, token_hash: str) -> bool:
    """Constant-time: does `token` belong to `token_hash`?"""
    if not token:
        return False
    return hmac.compare_digest(hash_token(token), token_hash)


def plus_address(address: str, token: str) -> str:
    """`talisman@example.org` + token -> `talisman+<token>@example.org`."""
    local, _, domain = address.partition("@")
    return f"{local.split('+')[0]}+{token}@{domain}"


def new_seed() -> str:
    return secrets.token_hex(32)


def commitment(seed: str) -> str:
    """Published when a game starts; the seed itself is revealed only when it ends."""
    return hashlib.sha256(seed.encode()).hexdigest()


# -- no token at rest ---------------------------------------------------------------------
# A message is stored with every token-shaped run masked, in every form a reader could
# decode: the headers, each text part, and base64 or quoted-printable parts decoded, masked
# and encoded again (a token quoted from the welcome mail by Gmail or Apple Mail). Tokens
# are exactly 20 hex characters; Message-ID, In-Reply-To and References are left as they
# are (ids may hold hex, and a reply must still find its thread). What authenticated the
# message is kept as sha256(token) beside it (inbox.token_hash), like the players table.
# A seat's page link plays the seat as well as its token does (pbem/outbound/links.py): its
# secret, exactly 32 hex characters, is masked the same way wherever a token is.

MASK = "[token]"
LINK_MASK = "[link]"
_TOKEN_TEXT = re.compile(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{20}(?![0-9A-Fa-f])")
_SECRET_TEXT = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{32}|[0-9A-Fa-f]{20})(?![0-9A-Fa-f])")
_SECRET_BYTES = re.compile(_SECRET_TEXT.pattern.encode())
_ID_HEADERS = {b"message-id", b"in-reply-to", b"references"}


def _mask(run: str) -> str:
    return MASK if len(run) == 20 else LINK_MASK


def mask_text(text: str) -> str:
    """`text` with every token and seat-link secret masked."""
    return _SECRET_TEXT.sub(lambda m: _mask(m.group()), text)


def mask_tokens(text: str) -> str:
    """`text` with every token masked (an id header: a seat link is never in one, and masking
    any 32-hex run there would break the threads of clients whose ids hold one)."""
    return _TOKEN_TEXT.sub(MASK, text)


def mask_bytes(data: bytes) -> bytes:
    return _SECRET_BYTES.sub(lambda m: _mask(m.group().decode()).encode(), data)


def holds_secret(data: bytes) -> bool:
    return _SECRET_BYTES.search(data) is not None


def token_runs(text: str) -> list[str]:
    """The token-shaped runs in `text`."""
    return _TOKEN_TEXT.findall(text)


def _mask_headers(head: bytes, known: tuple[bytes, ...]) -> bytes:
    lines, keep = [], False
    for line in _LINE.findall(head):  # split as the parser splits (a bare CR ends a line too)
        if line[:1] not in (b" ", b"\t"):
            keep = line.partition(b":")[0].strip().lower() in _ID_HEADERS
        lines.append(_mask_known(line, known) if keep else mask_bytes(line))
    return b"".join(lines)


def _mask_known(data: bytes, known: tuple[bytes, ...]) -> bytes:
    for tok in known:
        data = re.sub(re.escape(tok), MASK.encode(), data, flags=re.IGNORECASE)
    return data


# The headers end where the email parser ends them (email.feedparser): at the first line that
# is neither a header, a continuation nor "From " -- the empty line, or any other line (the
# body then starts with it). Split by any other rule, a "Message-ID:" line of the body would be
# kept as an id header, whose tokens are masked only when the parsed headers name them.
_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_HEADER_LINE = re.compile(rb"From |[\041-\071\073-\176]*:|[\t ]")


def _split_head(raw: bytes) -> tuple[bytes, bytes]:
    """(the headers, the rest: the empty line if there is one, and the body)."""
    end = 0
    for line in _LINE.finditer(raw):
        if not _HEADER_LINE.match(line.group()):
            break
        end = line.end()
    return raw[:end], raw[end:]


def mask_message(raw: bytes, known: Iterable[str] = (), decoded: Iterable[bytes] | None = None) -> bytes:
    """The message as it may be stored: no token or seat link in clear in any decoded form.
    `known`: runs known to be tokens, masked in the id headers too. `decoded`: the message's
    base64 and quoted-printable parts decoded, when the caller has read them (an inbound
    `Mail`): only if one holds a secret is the message parsed again and rewritten. A message
    the MIME parser cannot take is masked as plain bytes throughout."""
    known_b = tuple(t.encode() for t in known if t)
    head, body = _split_head(raw)
    masked = None
    if decoded is None or any(holds_secret(part) for part in decoded):
        try:
            masked = _mask_parts(raw, known_b)
        except Exception:  # noqa: BLE001 -- any parser failure: the plain-bytes mask still holds
            masked = None
    if masked is None:  # nothing decoded needed masking: keep the bytes as they came
        return _mask_headers(head, known_b) + mask_bytes(body)
    return masked


def _mask_parts(raw: bytes, known: tuple[bytes, ...] = ()) -> bytes | None:
    """The message rewritten with its encoded parts masked, or None if none held a secret."""
    import base64
    import email
    import io
    import quopri
    from email.generator import BytesGenerator
    from email.policy import compat32

    msg = email.message_from_bytes(raw, policy=compat32)
    changed = False
    for part in msg.walk():
        if part.is_multipart():
            continue
        cte = str(part.get("Content-Transfer-Encoding", "")).strip().lower()
        if cte not in ("base64", "quoted-printable"):
            continue
        body = part.get_payload(decode=True) or b""
        assert isinstance(body, bytes), "a leaf part decodes to bytes"
        masked = mask_bytes(body)
        if masked != body:
            encoded = base64.encodebytes(masked) if cte == "base64" else quopri.encodestring(masked)
            part.set_payload(encoded.decode("ascii"))
            changed = True
    if not changed:
        return None
    out = io.BytesIO()
    BytesGenerator(out, mangle_from_=False, maxheaderlen=0).flatten(msg)
    head, body = _split_head(out.getvalue())
    return _mask_headers(head, known) + mask_bytes(body)


# -- seeds ---------------------------------------------------------------------------------

MIN_SEED_CHARS = 16


def seed_weakness(seed: str) -> str | None:
    """Why a moderator-chosen seed is weak (anyone who guesses it foresees every die), or None.
    A generated seed (`new_seed`) is 64 hex characters."""
    if len(seed) < MIN_SEED_CHARS:
        return f"it is {len(seed)} characters long (at least {MIN_SEED_CHARS} are wanted)"
    if len(set(seed)) < 8:
        return "it repeats too few different characters"
    return None


# -- bounces -------------------------------------------------------------------------------

def bounce_tag(key: bytes, row_id: int, message_id: str) -> str:
    """`bounce-<row>-<mac>`: the plus part of a sent mail's envelope sender (VERP). The MAC
    (keyed by the service key) makes it unguessable to anyone who did not get the mail."""
    mac = hmac.new(key, f"bounce\n{row_id}\n{message_id}".encode(), hashlib.sha256).hexdigest()[:16]
    return f"bounce-{row_id}-{mac}"


BOUNCE_TAG = re.compile(r"\+bounce-(\d+)-([0-9a-f]{16})@", re.IGNORECASE)

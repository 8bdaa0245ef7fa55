"""Players' tokens and games' seeds: made, hashed, compared; never stored in clear.

Every mail the service sends a player carries that player's token in its Reply-To, so the
service must be able to produce a token long after the player joined, yet the database
holds only sha256(token). A token is therefore derived: HMAC-SHA256 of the service key
(home/secret.key, outside the database) over (game, player, salt), cut to 20 lowercase hex
characters -- as strong as `secrets.token_hex(10)`. The salt is random per player and
changes when a seat is given to someone else, which revokes the old token.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

TOKEN_RE = re.compile(r"\b[0-9a-f]{20}\b")


def load_key(path: Path) -> bytes:
    """The service key, created (mode 0600) on first use."""
    path = Path(path)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32) + "\n")
    return bytes.fromhex(path.read_text().strip())


def new_salt() -> str:
    return secrets.token_hex(8)


def token_for(key: bytes, game: str, player: str, salt: str) -> str:
    msg = f"{game}\n{player}\n{salt}".encode()
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

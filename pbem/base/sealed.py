"""A secret kept at rest sealed under the service key: a game's seed (issue 27).

Whoever reads a running game's seed foresees every die, so the store never holds it in clear:
the games row keeps it sealed (AES-256-GCM, `cryptography`), the saved states and snapshots
keep none (pbem/core/games.py), and it is opened only where a move is played or the game is
over and its archive reveals it. Sealed, not derived from the key: a moderator may choose a
game's seed (scenarios, tests), and a key can be rotated (`reseal`) without changing any die.

The AES key is the service key (home/secret.key) through HMAC with a label of its own, so it
is never the key tokens are made with. A sealed value names its game as associated data: it
does not open in another game's row. A random 96-bit nonce per seal; text form:
`sealed:1:<base64url of nonce and ciphertext>`.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

PREFIX = "sealed:1:"
_NONCE = 12


class SealError(ValueError):
    """A sealed value that does not open: another key (a secret.key not this home's), or a
    value changed or copied from another game."""


@functools.lru_cache(maxsize=8)
def _aead(key: bytes) -> AESGCM:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # 17 ms: only where a seed is opened
    return AESGCM(hmac.new(key, b"pbem sealed secrets v1", hashlib.sha256).digest())


def is_sealed(value: str) -> bool:
    return value.startswith(PREFIX)


def seal(key: bytes, secret: str, context: str) -> str:
    """`secret` sealed under `key`, bound to `context` (the game's id)."""
    nonce = secrets.token_bytes(_NONCE)
    box = _aead(key).encrypt(nonce, secret.encode(), context.encode())
    return PREFIX + base64.urlsafe_b64encode(nonce + box).decode("ascii")


@functools.lru_cache(maxsize=1024)
def unseal(key: bytes, sealed: str, context: str) -> str:
    """The secret; opened once per process and value (a state is decoded at every answer)."""
    from cryptography.exceptions import InvalidTag
    if not is_sealed(sealed):
        raise SealError(f"{context}: not a sealed value")
    try:
        data = base64.urlsafe_b64decode(sealed[len(PREFIX):])
        return _aead(key).decrypt(data[:_NONCE], data[_NONCE:], context.encode()).decode()
    except (InvalidTag, ValueError) as e:
        raise SealError(f"{context}: the sealed seed does not open with this key (is secret.key this "
                        "home's?)") from e


def reseal(old_key: bytes, new_key: bytes, sealed: str, context: str) -> str:
    """The same secret sealed under `new_key` (a key rotation)."""
    return seal(new_key, unseal(old_key, sealed, context), context)

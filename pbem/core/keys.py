"""One key per service: the store records the fingerprint of the key its tokens are made with
(never the key itself), and a process whose secret.key is another refuses to start, naming both.

Tokens, seat links and bounce tags are HMACs under secret.key, and the store keeps only their
hashes; a process with another key -- a second machine on a shared PostgreSQL store that
`pbem init` gave a key of its own, a key file copied over the wrong one -- would mail tokens
that open no seat, and nothing would say why. So the first process to open a store records
its key's fingerprint; every later one compares (`check`, in `open_service`), a daemon again
before each cycle (`still_current`: another machine may have rotated the key), and a sender
claims a mail only while the store names its key (`Store.claim_outbox`).

`pbem key rotate` (pbem/moderate/rekey.py) writes the new key beside the old one
(`secret.key.new`), commits the new fingerprint with the new tokens, then puts the new key in
place, keeping the old one as `secret.key.<fingerprint>.old` (a backup taken before needs it).
A rotation stopped between its commit and that last step is finished by the next process to
open the home (`check`); one stopped before its commit leaves a `.new` file that goes.
"""
from __future__ import annotations

import os
from pathlib import Path

from pbem.base import tokens
from pbem.store import Store
from pbem.store.common import KEY_FINGERPRINT as FINGERPRINT


class KeyMismatch(Exception):
    """This process's key is not the one the store's tokens were made with."""


def fingerprint(key: bytes) -> str:
    return tokens.fingerprint(key)


def mismatch(key_path: Path, key_fp: str, store_fp: str) -> KeyMismatch:
    return KeyMismatch(
        f"{key_path} is key {key_fp}, but this service's store was made with key {store_fp}: every token and "
        f"seat link it knows comes from that key, so this process would mail tokens that open no seat. Put "
        f"that key back (a copy kept apart; after `pbem key rotate`, the secret.key of the machine that ran it), "
        f"or, for a second machine on a shared store, make the home with the first one's key: "
        f"`pbem init DIR --key FILE`")


def check(store: Store, key: bytes, key_path: Path) -> bytes:
    """The key to run with: `key`, recorded as the service's if the store names none yet.
    Raises KeyMismatch if the store names another (after finishing an interrupted rotation,
    whose new key it may be). Arms the store's outbox claim with the key's fingerprint."""
    fp = fingerprint(key)
    stored = store.meta(FINGERPRINT) or store.claim_meta(FINGERPRINT, fp)
    if stored != fp:
        if not settle(Path(key_path), store):
            raise mismatch(key_path, fp, stored)
        key, fp = tokens.read_key(key_path), stored
    store.key_fingerprint = fp
    return key


def still_current(store: Store, key_path: Path) -> None:
    """Raise KeyMismatch if the store no longer names the key this process runs with (a
    rotation on another machine): a daemon looks before each cycle."""
    stored = store.meta(FINGERPRINT)
    if store.key_fingerprint and stored != store.key_fingerprint:
        raise mismatch(key_path, store.key_fingerprint, stored or "(none)")


# -- a rotation's key files --------------------------------------------------------------

def pending_path(key_path: Path) -> Path:
    """Where a rotation writes the new key before its commit."""
    return key_path.with_name(key_path.name + ".new")


def retired_path(key_path: Path, fp: str) -> Path:
    """Where a rotated-out key is kept: backups taken before the rotation need it."""
    return key_path.with_name(f"{key_path.name}.{fp}.old")


def settle(key_path: Path, store: Store) -> bool:
    """A rotation that stopped half-way, put right: True when the store names the key in
    `secret.key.new` (it committed: that key goes in place); a `.new` key it does not name
    (it stopped before its commit) is removed."""
    new = pending_path(key_path)
    if not new.exists():
        return False
    if store.meta(FINGERPRINT) == fingerprint(tokens.read_key(new)):
        install(key_path, new)
        return True
    new.unlink()
    return False


def install(key_path: Path, new: Path) -> Path:
    """Put the key in the file `new` in place of `key_path`; the old key is kept beside it
    (`retired_path`), and `key_path` names a whole key at every moment. Returns where the old went."""
    retired = retired_path(key_path, fingerprint(tokens.read_key(key_path)))
    if not retired.exists():
        os.link(key_path, retired)
    os.replace(new, key_path)
    fd = os.open(key_path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return retired

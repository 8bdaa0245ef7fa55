"""`pbem key rotate`: a new service key, every seat a new token, no game lost.

Every token and seat link is derived from the key (pbem/base/tokens.py, pbem/outbound/links.py),
so a new key makes them all new at once: the store's token hashes are made again under it,
messages stored but not yet processed keep counting as their seat's, and each active seat of
every game not ended is mailed its new token and link (mails still queued carry the new ones
when they are sent, since a mail's token is filled in then). The old ones open nothing from
the commit on. What the store keeps sealed under the key is sealed again under the new one in
the same transaction (`reseal_secrets`).

The order keeps a crash harmless (pbem/core/keys.py): the new key is written beside the old
(`secret.key.new`), the store commits the new fingerprint with the new hashes and the mails,
then the new key goes in place and the old is kept as `secret.key.<fingerprint>.old`. A
daemon must not run meanwhile (it would send with the old key): the home is held alone, and a
daemon on another machine of a shared store stops at its next cycle, and sends nothing before,
since it claims mail only while the store names its key.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from pbem.base import daemonlock, tokens
from pbem.core import games, keys
from pbem.outbound import links, outbox, reports

if TYPE_CHECKING:
    from pbem.core.service import Service


class Rotated(NamedTuple):
    old: str  # the fingerprints
    new: str
    seats: int  # token hashes made again
    mailed: int  # seats told their new token
    retired: str  # where the old key is kept


def rotate(svc: Service) -> Rotated:
    """Rotate the service key of `svc`'s home. Raises daemonlock.DaemonRunning, and
    keys.KeyMismatch when the store no longer names `svc`'s key (another machine rotated it)."""
    cfg = svc.settings
    with daemonlock.alone(cfg, "rotate the key"):
        old_key, new_key = svc.key, tokens.new_key()
        old, new = keys.fingerprint(old_key), keys.fingerprint(new_key)
        pending = keys.pending_path(cfg.key_path)
        pending.unlink(missing_ok=True)  # a rotation that stopped before its commit: never the store's
        tokens.write_key(pending, new_key)
        try:
            with svc.store.transaction():
                if not svc.store.swap_meta(keys.FINGERPRINT, old, new):
                    raise keys.mismatch(cfg.key_path, old, svc.store.meta(keys.FINGERPRINT) or "(none)")
                svc.key = new_key  # from here svc.token() derives the new tokens
                seats, mailed = _retoken(svc)
                reseal_secrets(svc, old_key, new_key)
        except BaseException:
            svc.key = old_key
            pending.unlink(missing_ok=True)
            raise
        svc.store.scrub()  # the seeds sealed under the old key overwritten in the files too
        retired = keys.install(cfg.key_path, pending)
        svc.store.key_fingerprint = new
    return Rotated(old, new, seats, mailed, str(retired))


def _retoken(svc: Service) -> tuple[int, int]:
    """Every seat's token hash made again under the new key; each active seat of a game not
    ended mailed its new token. (seats, mailed)."""
    seats = mailed = 0
    for row in svc.store.games():
        game = svc.store.game(row["id"])
        assert game is not None
        for player in svc.store.players(game["id"]):
            new_hash = tokens.hash_token(svc.token(player))
            svc.store.update_player(game["id"], player["name"], token_hash=new_hash)
            svc.store.retoken_inbox(player["token_hash"], new_hash)
            seats += 1
            if game["status"] != "ended" and player["status"] == "active":
                _queue_new_token(svc, game, player, keys.fingerprint(svc.key))
                mailed += 1
    return seats, mailed


def _queue_new_token(svc: Service, game: dict, player: dict, fingerprint: str) -> None:
    """The mail that gives a seat its new token and link (as the outbox marker until sent)."""
    marker = outbox.new_marker()
    ctx = {"game": {"id": game["id"], "address": reports.game_address(svc, game)}, "me": player["name"],
           "token": marker, "links": links.mail_links(svc, game, marker)}
    root = reports.thread_root(svc, game, player["name"])
    outbox.enqueue(svc, kind="newkey", message_id=reports.message_id(svc, game, player["name"], "key", fingerprint),
                   sender=reports.game_address(svc, game), to=player["email"], to_name=player["name"],
                   subject=f"[{game['id']}] Your new token, {player['name']}", context=ctx, game=game["id"],
                   player=player, marker=marker, in_reply_to=root, references=[root])


def reseal_secrets(svc: Service, old_key: bytes, new_key: bytes) -> None:
    """Whatever the store keeps sealed under the service key, sealed again under the new one,
    inside the rotation's transaction: every game's seed (pbem/core/games.py)."""
    games.reseal_seeds(svc.store, old_key, new_key)

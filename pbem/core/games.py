"""Games as stored: reading a game, its state (at any move) and its config.

What the layers above play into a game is elsewhere: a new game is pbem/moderate/newgame.py, a
move entering the log is pbem/pace/moves.py (deadlines and standing orders follow it).
"""
from __future__ import annotations

import tomllib
from email.headerregistry import Address
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from pbem.base import sealed

if TYPE_CHECKING:
    from pbem.core.service import Service
    from pbem.store import Store


class GameError(ValueError):
    """A request that cannot be done (a refused input, exit code 1)."""


# -- configuration -----------------------------------------------------------------------

def load_config(path: str | Path) -> dict:
    try:
        return tomllib.loads(Path(path).read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise GameError(f"{path}: {e}") from None


def _check_email(addr: str, what: str) -> str:
    if not isinstance(addr, str) or any(c in addr for c in "\r\n\0"):
        raise GameError(f"{what}: not a mail address")
    try:
        parsed = Address(addr_spec=addr.strip())
    except (ValueError, IndexError):
        raise GameError(f"{what}: {addr!r} is not a mail address") from None
    if not parsed.domain:
        raise GameError(f"{what}: {addr!r} has no domain")
    return parsed.addr_spec


def engine_config(config: dict) -> dict:
    """The [game] table the engine takes (docs/interfaces.md), from a service config."""
    g = config.get("game", {})
    return {
        "edition": g.get("edition", "revised4"),
        "packs": list(g.get("packs", [])),
        "options": dict(g.get("options", {})),
        "ending": g.get("ending"),
        "players": [{k: p[k] for k in ("name", "character", "role") if p.get(k) is not None}
                    for p in config.get("players", []) if p.get("status", "active") == "active"],
    }


def seat_config(game: dict, player: str) -> dict:
    """The player's [[players]] table in the game's config (timezone, vacation_days, reports)."""
    return next((p for p in game["config"].get("players", []) if p.get("name") == player), {})


# -- state --------------------------------------------------------------------------------

def get(svc: Service, game_id: str) -> dict:
    game = svc.store.game(game_id)
    if game is None:
        raise GameError(f"no game {game_id!r}")
    return game


# The seed of a game is secret until it ends (whoever has it foresees every die): the row keeps
# it sealed under the service key (pbem/base/sealed.py), and a state is stored without it, then
# given it back when decoded to be played. So no backup, copy or export of a running game holds it.

def seed(svc: Service, game: dict) -> str:
    """The game's seed, opened (to play a move, or to reveal it when the game is over)."""
    return sealed.unseal(svc.key, game["seed"], game["id"])


def state(svc: Service, game: dict):
    """The state kept on the game row, with its seed: ready to play."""
    st = svc.engine.decode(game["state"])
    st.seed = seed(svc, game)
    return st


def encode(svc: Service, state) -> bytes:
    """A state as the store keeps it (the game row, snapshots): without its seed."""
    kept, state.seed = state.seed, ""
    try:
        return svc.engine.encode(state)
    finally:
        state.seed = kept


def state_at(svc: Service, game: dict, seq: int):
    """The state after move `seq`: from the snapshot at or before it, replaying the rest."""
    eng = svc.engine
    snap = svc.store.snapshot_before(game["id"], seq)
    if snap is None:
        raise GameError(f"{game['id']}: no snapshot at or before move {seq}")
    current = eng.decode(snap["state"])
    current.seed = seed(svc, game)
    for row in svc.store.moves(game["id"], after=snap["seq"], upto=seq):
        if row["kind"] == "rollback":
            current = state_at(svc, game, int(row["line"].split()[1]))
        else:
            current, _ = eng.apply(current, eng.parse_move(row["line"]), copy=False)  # decoded here: ours to change
    return current


def reseal_seeds(store: Store, old_key: bytes, new_key: bytes) -> int:
    """Every game's sealed seed sealed again under `new_key` (`pbem key rotate`), in one
    transaction (the caller's, if one is open): a seed that does not open with `old_key` stops
    it before anything changed. Returns the number of games. The values sealed under the old key
    are overwritten, in the files too once the transaction is committed (`Store.scrub`: by the
    caller, when it opened the transaction)."""
    outer = store.in_transaction
    with store.transaction():
        rows = store.sealed_seeds()
        for row in rows:
            store.set_seed(row["id"], sealed.reseal(old_key, new_key, row["seed"], row["id"]))
    if not outer:
        store.scrub()
    return len(rows)


def summary_json(svc: Service, game: dict) -> dict:
    return svc.engine.summary(state(svc, game))


def view_json(svc: Service, game: dict, player: str | None) -> dict:
    if player not in (None, svc.engine.MODERATOR) and svc.store.player(game["id"], player) is None:
        raise GameError(f"{game['id']}: no player {player!r}")
    return svc.engine.view(state(svc, game), player)


def listing(svc: Service, ended: bool = False) -> list[dict]:
    """The games, oldest first; those that ended only with `ended` (a season's league keeps
    its finished games, and the list is for the ones that still run)."""
    out = []
    for row in svc.store.games():
        if row["status"] == "ended" and not ended:
            continue
        game = get(svc, row["id"])
        st = state(svc, game)
        out.append({"id": game["id"], "status": game["status"], "moves": game["moves"],
                    "turn": getattr(st, "turn", None), "players": [p["name"] for p in svc.store.players(game["id"])],
                    "waiting": svc.engine.waiting_for(st), "updated": game["updated_at"]})
    return out


def move_log(svc: Service, game: dict) -> list[dict]:
    keep = ("seq", "at", "kind", "actor", "player", "line", "prompt", "message_id", "state_hash", "hash")
    return [{k: row[k] for k in keep} for row in svc.store.moves(game["id"])]


def to_builtins(obj):
    """Engine values (msgspec Structs) as JSON-ready data."""
    return msgspec.to_builtins(obj)

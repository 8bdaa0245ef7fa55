"""`pbem upgrade-check`: which running games the engine installed here would play differently.

Every game records the engine version it started on (`games.engine_version`) and, in its hash
chain, the hash of the state after each move. A release that changes how a game plays (a rule
fixed, a state encoded otherwise) changes some of those states: replaying each game that has
not ended from its seed on this engine, and comparing every state's hash with the recorded
one, finds the first move it would play differently. Such a game, moved to the release, would
go on by other rules than it began with, and its archive would no longer re-run on any one
engine: finish it on the old release first (or accept that). Run it from the new release's
install, on the home, before the daemon moves.

The check changes nothing: a new release may bring migrations of the store, and opening the
store applies them, after which the old release could no longer open it — the very release
the check may tell the moderator to stay on. So when this release's schema is ahead of the
store's, a SQLite store is checked on a copy (SQLite's backup API, in the home, removed
after), and a PostgreSQL one is refused with how to check a copy.
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import msgspec

from engine import api
from pbem.archive import archive
from pbem.core import games
from pbem.store import migrations, schema_of
from pbem.store.backup import copy_sqlite

if TYPE_CHECKING:
    from pbem.core.service import Service


class Finding(NamedTuple):
    game: str
    status: str
    moves: int
    started_on: str  # the engine version the game started with
    engine: str  # the engine version installed here
    same: bool  # every recorded state is the one this engine makes
    diverges_at: int | None  # the first move it would play differently (0: the set-up)
    what: str | None  # how ("state hash differs", "cannot be applied (...)")
    content_changed: bool  # the content files differ from those the game recorded at its start


class UpgradeError(Exception):
    pass


def check_home(cfg) -> list[Finding]:
    """`check` for the home of settings `cfg`, leaving its store as it was (above)."""
    from pbem.core.service import open_service
    have, want = schema_of(cfg.store_target), max(v for v, *_ in migrations.MIGRATIONS)
    if have >= want:
        return _checked(open_service(settings=cfg))
    if cfg.db_url:
        raise UpgradeError(f"this release would migrate the store (schema {have} -> {want}), and the release "
                           "you run now could not open it after: check a copy instead (pg_dump it into a new "
                           "database, and run upgrade-check from a home whose `db` names that one)")
    with tempfile.TemporaryDirectory(prefix="upgrade-check-", dir=cfg.home) as scratch:
        copy = Path(scratch) / "pbem.db"
        copy_sqlite(cfg.db_path, copy)
        return _checked(open_service(settings=msgspec.structs.replace(cfg, db=str(copy))))


def _checked(svc: Service) -> list[Finding]:
    try:
        return check(svc)
    finally:
        svc.store.close()


def check(svc: Service) -> list[Finding]:
    """Every game not ended, replayed on this engine against its log."""
    return [check_game(svc, row["id"]) for row in svc.store.games() if row["status"] != "ended"]


def check_game(svc: Service, game_id: str) -> Finding:
    game = games.get(svc, game_id)
    config = games.engine_config(game["config"])
    at, what = None, None
    try:
        for step in archive.replay(config, games.seed(svc, game), svc.store.moves(game_id)):
            logged = step.row["state_hash"] if step.row else archive.setup_hash(svc, game_id)
            if step.state_hash != logged:
                raise archive.Divergence(step.seq, "state hash differs")
    except archive.Divergence as e:
        at, what = e.seq, e.what
    recorded = game["config"].get("versions", {}).get("content")
    return Finding(game_id, game["status"], game["moves"], game["engine_version"], api.ENGINE_VERSION, at is None,
                   at, what, recorded is not None and recorded != archive.content_version(config["packs"]))


def line(f: Finding) -> str:
    """One game's finding, for the terminal."""
    head = f"{f.game} ({f.status}, {f.moves} moves, started on engine {f.started_on})"
    content = "; its content files changed since it started" if f.content_changed else ""
    if f.same:
        return f"{head}: plays the same on engine {f.engine}{content}"
    where = "its set-up" if f.diverges_at == 0 else f"move {f.diverges_at}"
    return (f"{head}: plays differently on engine {f.engine} from {where} ({f.what}){content}: finish it on "
            f"engine {f.started_on}, or its archive will re-run on no single engine")

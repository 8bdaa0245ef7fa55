"""Archives: a game as one self-contained JSON file, and the replay of its moves.

An archive holds the config, the engine and content versions, every logged move (who, when,
the canonical line, the message it came from, its place in the hash chain) and what the
replay of each move showed: its events and where the characters stood. Once the game has
ended it also holds the seed and, per move, every random value the engine drew, so anyone
can re-derive the dice (tools/verify_dice.py, docs/fairness.md). A player's export holds
only what that player may see, and never the seed.

Checking an archive (`pbem verify`) is pbem/archive/verify.py's; it re-runs the moves with
`replay` and compares them with what `export` wrote (`positions`, `shown_events`).
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from engine import api, rng
from pbem.core import games
from pbem.core.games import GameError
from pbem.store import _CHAINED

if TYPE_CHECKING:
    from pbem.core.service import Service

FORMAT = "talisman-pbem-archive"
VERSION = 1
BASE_PACK = "revised4"  # engine/content.py reads the base game's data for every edition

Progress = Callable[[int, int], None]  # (done, total)


def no_progress(done: int, total: int) -> None:
    pass


# -- versions ------------------------------------------------------------------------------

def content_files(packs=()) -> dict[str, str]:
    """The moderator's overlay files (docs/content.md) a game of these packs reads, by path."""
    from engine import content
    folders = {BASE_PACK, *packs}  # a pack's content folder is named as the pack
    return {k: v for k, v in sorted(content.overlay().items()) if k.split("/", 1)[0] in folders}


def content_version(packs=()) -> str:
    """SHA-256 over the content files a game reads (engine/content/<pack>/*.toml): each
    file's pack/name and the SHA-256 of its bytes, in a fixed order; then each overlay file's
    path and SHA-256 (none: the package's hash alone, as before overlays)."""
    from pbem.base.content_overlay import fingerprint
    h = hashlib.sha256()
    root = resources.files("engine").joinpath("content")
    for pack in [BASE_PACK, *sorted(set(packs) - {BASE_PACK})]:
        folder = root.joinpath(pack)
        if not folder.is_dir():
            continue
        for f in sorted((f for f in folder.iterdir() if f.name.endswith(".toml")), key=lambda f: f.name):
            h.update(f"{pack}/{f.name} {hashlib.sha256(f.read_bytes()).hexdigest()}\n".encode())
    for path, sha in fingerprint(content_files(packs)).items():
        h.update(f"overlay/{path} {sha}\n".encode())
    return h.hexdigest()


# -- replaying a log ---------------------------------------------------------------------------

class Divergence(Exception):
    """The replay cannot follow the log at move `seq` (0: the setup)."""

    def __init__(self, seq: int, what: str):
        self.seq, self.what = seq, what
        super().__init__(f"move {seq}: {what}" if seq else f"setup: {what}")


@dataclass(slots=True)
class Step:
    seq: int  # 0: the game as set up, before any move
    row: dict | None  # the logged move (None for the setup)
    state: Any  # the state after it
    state_hash: str
    events: list  # engine Events
    draws: list  # the random draws it made
    rng_from: int  # the counter before it


def replay(config: dict, seed: str, rows: list[dict]) -> Iterator[Step]:
    """Re-run logged moves (store rows or archive moves) from the seed. A rollback row
    ("rollback N") restores the state after move N, as games.state_at does.

    One state is folded over the moves (apply with copy=False): a Step's state is the
    replay's own and changes at the next step, so a caller reads it before asking for the
    next. Only the states a rollback returns to are kept (encoded)."""
    with rng.tracing() as trace:  # one trace for the whole replay, each move's draws sliced off it
        try:
            state = api.new_game(config, seed)
        except (ValueError, KeyError) as e:
            raise Divergence(0, f"the config does not set up a game ({e})") from None
        targets = {rollback_target(row) for row in rows if row["kind"] == "rollback"}
        kept = {0: api.encode(state)} if 0 in targets else {}
        yield Step(0, None, state, api.state_hash(state), [], trace[:], 0)
        expected = 1
        events: Sequence[Any]
        for row in rows:
            seq, before, drawn = row["seq"], state.rng, len(trace)
            if seq != expected:
                raise Divergence(expected, f"missing (the next move logged is {seq})")
            try:
                if row["kind"] == "rollback":
                    state, events = api.decode(kept[rollback_to(row)]), []
                else:
                    state, events = api.apply(state, api.parse_move(row["line"]), copy=False)
            except api.IllegalMove as e:
                raise Divergence(seq, f"cannot be applied ({e.reason})") from None
            if seq in targets:
                kept[seq] = api.encode(state)
            expected += 1
            yield Step(seq, row, state, api.state_hash(state), events, trace[drawn:], before)


def rollback_target(row: dict) -> int | None:
    words = row["line"].split()
    if len(words) != 2 or words[0] != "rollback" or not words[1].isdigit() or int(words[1]) >= row["seq"]:
        return None
    return int(words[1])


def rollback_to(row: dict) -> int:
    target = rollback_target(row)
    if target is None:
        raise Divergence(row["seq"], f"not a rollback to an earlier move: {row['line']!r}")
    return target


# -- export ------------------------------------------------------------------------------------

def positions(state) -> dict:
    """Where each character stands: public, as in the summary."""
    return {p.name: {"space": p.space, "character": p.character, "life": p.life, "alive": p.alive}
            for p in state.players}


def shown_events(events: list, player: str | None) -> list[dict]:
    return msgspec.to_builtins(api.filter_events(events, player))


def step_draws(step: Step) -> dict:
    return {"from": step.rng_from, "to": step.state.rng, "draws": step.draws}


def _player_view(state, player: str) -> dict:
    """The player's own view; a question put to someone else shows only who is asked, since
    its options can name that player's Spells."""
    view = msgspec.to_builtins(api.view(state, player))
    view["prompt"] = [q if player in q["players"] else {"id": q["id"], "players": q["players"]}
                      for q in view["prompt"]]
    return view


def export(svc: Service, game_id: str, as_player: str | None = None, progress: Progress = no_progress) -> dict:
    """The archive of a game: everything (`as_player` None), or what `as_player` may see.
    The seed is in it only when the game has ended and the export is not a player's."""
    game = games.get(svc, game_id)
    if as_player is not None and svc.store.player(game_id, as_player) is None:
        raise GameError(f"{game_id}: no player {as_player!r}")
    rows = svc.store.moves(game_id)
    config = games.engine_config(game["config"])
    reveal = as_player is None and game["status"] == "ended"
    recorded = game["config"].get("versions", {})
    out: dict[str, Any] = {
        "format": FORMAT, "version": VERSION, "game": game_id,
        "scope": "player" if as_player else "full", "player": as_player, "status": game["status"],
        "exported_at": svc.store.now(),
        "engine_version": game["engine_version"], "content_version": recorded.get("content"),
        "exported_with": {"engine": api.ENGINE_VERSION, "content": content_version(config["packs"])},
        "config": config, "seed_commitment": game["seed_commitment"],
    }
    overlay = content_files(config["packs"])
    if overlay or recorded.get("content_files"):  # the moderator's files travel with the game
        out["content_files"] = overlay
        out["content_files_at_start"] = recorded.get("content_files", {})
    seed = games.seed(svc, game)
    if reveal:
        out["seed"] = seed
    out["moves"] = []
    try:
        for step in replay(config, seed, rows):
            logged = step.row["state_hash"] if step.row else setup_hash(svc, game_id)
            if step.state_hash != logged:
                raise Divergence(step.seq, "state hash differs")
            if step.row is None:
                view = api.view(step.state, None)
                out["board"] = {"rings": view["board"], "names": view["space_names"]}
                out["start"] = {"state_hash": step.state_hash, "turn": step.state.turn,
                                "positions": positions(step.state)}
                if reveal:
                    out["start"]["rng"] = step_draws(step)
            else:
                out["moves"].append(_move(step, as_player, reveal))
            progress(step.seq, len(rows))
    except Divergence as e:  # the rules changed under a running game, or the log was damaged
        made, now = out["engine_version"], out["exported_with"]
        raise GameError(f"{game_id}: the log does not replay: {e} (the game started with engine {made}, content "
                        f"{str(out['content_version'])[:12]}; this is engine {now['engine']}, content "
                        f"{now['content'][:12]})") from None
    final = step.state
    out["final"] = {"state_hash": step.state_hash, "turn": final.turn, "over": final.over,
                    "winners": list(final.winners)}
    if as_player:
        out["final"]["view"] = _player_view(final, as_player)
    return out


def setup_hash(svc: Service, game_id: str) -> str:
    """The hash of the game as set up, before its first move: its snapshot 0 with its seed
    (stored without it)."""
    try:
        return api.state_hash(games.state_at(svc, games.get(svc, game_id), 0))
    except GameError:  # no snapshot
        return ""


def _move(step: Step, player: str | None, reveal: bool) -> dict:
    row = step.row
    assert row is not None  # a logged move: the setup (seq 0) is no move
    m = {k: row[k] for k in _CHAINED if k != "game"}
    m.update(state_hash=row["state_hash"], prev_hash=row["prev_hash"], hash=row["hash"],
             turn=step.state.turn, positions=positions(step.state), events=shown_events(step.events, player))
    if reveal:
        m["rng"] = step_draws(step)
    return scoped(m, player)


def scoped(m: dict, reader: str | None) -> dict:
    """A logged move as `reader` may see it (None: everything). Another player's answer (or
    the moderator's) is shown only as its public events: its line can name a private choice
    (which Boon a hero took), and its Message-ID where they mail from. Rollbacks are public."""
    if reader is None or m["kind"] != "move" or m["player"] == reader:
        return m
    return {**m, "line": f"({m['player']} answered)", "message_id": None, "hidden": True}


def dumps(archive: dict) -> str:
    """JSON with one top-level key, and one move, per line: readable and easy to diff."""
    def one(v) -> str:
        return json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    parts = []
    for k, v in archive.items():
        if k == "moves" and v:
            v = "[\n" + ",\n".join(f"  {one(m)}" for m in v) + "\n ]"
        else:
            v = one(v)
        parts.append(f" {one(k)}: {v}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def attachment(svc: Service, game_id: str) -> tuple[str, bytes]:
    """(file name, bytes) of an ended game's archive as its game-over mail attaches it: what
    `pbem export` writes, made once per game and move count and kept in home/archives/ (each
    player's mail carries the same file, and a game's replay costs what its moves cost)."""
    game = games.get(svc, game_id)
    if game["status"] != "ended":
        raise GameError(f"{game_id}: the game has not ended: its archive would not hold the seed")
    name = f"talisman-{game_id}.json"
    kept = Path(svc.settings.home) / "archives" / f"{game_id}-{game['moves']}.json"
    if not kept.is_file():
        kept.parent.mkdir(parents=True, exist_ok=True)
        tmp = kept.with_name(f".{kept.name}.tmp")
        tmp.write_text(dumps(export(svc, game_id)), encoding="utf-8")
        tmp.replace(kept)
    return name, kept.read_bytes()


def save(archive: dict, path: str | Path) -> None:
    Path(path).write_text(dumps(archive), encoding="utf-8")


def load(path: str | Path, *, first: Callable[[bytes], dict | None] | None = None) -> dict:
    """An archive file. `first`: a reader of its bytes tried before the plain one (None: not
    shaped for it; pbem/archive/verify.py's `read` keeps the moves' JSON so)."""
    try:  # msgspec: a long game's archive is megabytes, and the stdlib's parser was a third of verify
        raw = Path(path).read_bytes()
        data = (first and first(raw)) or msgspec.json.decode(raw)
    except (OSError, msgspec.DecodeError) as e:
        raise GameError(f"{path}: not a readable archive ({e})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise GameError(f"{path}: not a Talisman archive")
    if not isinstance(data.get("version"), int) or data["version"] > VERSION:
        raise GameError(f"{path}: archive version {data.get('version')!r}; this program reads up to {VERSION}")
    return data

"""`pbem verify`: an archive checked. The hash chain always; with the seed (a game that has
ended), also the seed's commitment and every move re-run through the engine -- state hashes,
events, positions, random draws -- against what `export` wrote (pbem/archive/archive.py).

`read` loads an archive for checking only: each move's events, positions and dice kept as
the JSON they were written as and compared as bytes with the replay's, since making Python
objects of a long game's events was most of reading it.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from engine import api, rng
from pbem.archive.archive import (
    Divergence,
    Progress,
    content_version,
    load,
    no_progress,
    positions,
    replay,
    rollback_target,
    rollback_to,
    shown_events,
    step_draws,
)
from pbem.store import _CHAINED, chain_hash

TICK = 64  # verify tells its progress every TICK moves and at the last: a terminal's bar costs a microsecond a call


class _Checked(msgspec.Struct, gc=False):  # strings, numbers and Raw: no cycles for the collector to find
    """A logged move as `verify` reads it: what it compares whole (events, positions, dice)
    kept as the JSON it was written as, compared as bytes with the replay's (see `_equal`).
    Making Python objects of a long game's events and positions was most of reading it.
    `_fold` reads its attributes; read as a mapping (m["line"], m.get, {**m}) it is the dict
    `archive.load` gives, for the checks that read moves so (the chain alone, `_rerun`)."""
    seq: int
    kind: str
    line: str
    state_hash: str
    prev_hash: str
    hash: str
    turn: int
    positions: msgspec.Raw
    events: msgspec.Raw
    player: str | None = None
    actor: str | None = None
    prompt: int | None = None
    message_id: str | None = None
    inbox_id: int | None = None
    at: str | None = None
    rng: msgspec.Raw = msgspec.Raw(b"null")
    hidden: bool = False

    def __getitem__(self, key: str) -> Any:
        if key not in self.__struct_fields__:
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key) if key in self.__struct_fields__ else default

    def keys(self) -> tuple[str, ...]:
        return self.__struct_fields__


class _Plain(list):
    """Moves read as _Checked: their chained fields are known to be strings, integers or null."""


class _Link(msgspec.Struct):
    """A move's chained record (pbem/store `_CHAINED`), its fields in sorted order: encoded, it
    is the JSON `chain_hash` writes for plain values, without building and sorting a dict."""
    actor: str | None
    at: str | None
    game: str
    inbox_id: int | None
    kind: str
    line: str
    message_id: str | None
    player: str | None
    prompt: int | None
    seq: int


_JSON = msgspec.json.Encoder()


_ANY: Any = msgspec.UNSET  # a top-level field the file does not hold: left out of read's dict


class _Archive(msgspec.Struct):
    """An archive as `verify` reads it, in one pass over the file (reading the top level as Raw
    first and the moves after was a second scan of its megabytes): every top-level key `export`
    writes (others are not read: verify reads none), its moves as _Checked."""
    format: Any = _ANY
    version: Any = _ANY
    game: Any = _ANY
    scope: Any = _ANY
    player: Any = _ANY
    status: Any = _ANY
    exported_at: Any = _ANY
    engine_version: Any = _ANY
    content_version: Any = _ANY
    exported_with: Any = _ANY
    config: Any = _ANY
    seed_commitment: Any = _ANY
    content_files: Any = _ANY
    content_files_at_start: Any = _ANY
    seed: Any = _ANY
    board: Any = _ANY
    start: Any = _ANY
    final: Any = _ANY
    moves: list[_Checked] = []


def _for_checking(raw: bytes) -> dict | None:
    """The archive with its moves as _Checked; None if it is not shaped so (then the
    plain reading lets verify say what is wrong)."""
    try:
        top = msgspec.json.decode(raw, type=_Archive)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    data = {k: v for k in top.__struct_fields__ if (v := getattr(top, k)) is not msgspec.UNSET}
    data["moves"] = _Plain(top.moves)  # as Structs: a dict each was 0.8 us a move
    return data


def read(path: str | Path) -> dict:
    """An archive file read for `verify` only: its moves as _Checked where it is shaped as
    `export` writes (a replay or a page needs them read: `archive.load`)."""
    return load(path, first=_for_checking)


@dataclass
class Verdict:
    ok: bool = True
    problem: str | None = None  # the first divergence, e.g. "move 17: state hash differs"
    notes: list[str] = field(default_factory=list)
    moves: int = 0  # moves checked
    rerun: bool = False  # re-run from the seed (else only the chain was checked)


def verify(archive: dict, progress: Progress = no_progress) -> Verdict:
    """Check an archive: the hash chain always; with the seed, also the commitment and every
    move re-run through the engine (state hashes, events, positions, random draws)."""
    from engine import content
    files = archive.get("content_files") or {}  # the game's own texts
    if files == content.overlay():  # already read: swapping would only empty the engine's content caches
        return _verify(archive, progress)
    previous = content.use_overlay(files)
    try:
        return _verify(archive, progress)
    finally:
        content.use_overlay(previous)


def _verify(archive: dict, progress: Progress) -> Verdict:
    v = Verdict()
    moves = archive.get("moves", [])
    seed = archive.get("seed")
    try:
        v.notes += _versions(archive)
        if seed is None:
            v.notes.append("no seed (the game has not ended, or this is a player's export): "
                           "only the hash chain was checked; the moves were not re-run")
            hidden = sum(1 for m in moves if m.get("hidden"))
            if hidden:
                v.notes.append(f"{hidden} other players' move(s) hidden: their links followed, their hashes "
                               "not recomputed")
            _chain(archive, moves, progress)
            last = moves[-1]["state_hash"] if moves else archive["start"]["state_hash"]
            _same(len(moves), "final state hash differs", archive["final"]["state_hash"], last)
            v.moves = len(moves)
        else:
            if hashlib.sha256(seed.encode()).hexdigest() != archive.get("seed_commitment"):
                raise Divergence(0, "the seed does not match its commitment")
            v.rerun = True
            _rerun(archive, moves, seed, progress, v)
    except Divergence as e:
        v.ok, v.problem = False, str(e)
        hint = _which_engine(archive) if v.rerun else None
        if hint:
            v.problem += f" ({hint})"
    except (KeyError, IndexError, TypeError, AttributeError, ValueError) as e:
        v.ok, v.problem = False, f"the archive is malformed ({type(e).__name__}: {e})"
    return v


def _which_engine(archive: dict) -> str | None:
    """For a re-run that diverged: the engine version that re-runs the archive, when it is
    not this one (or why none does)."""
    made = archive.get("engine_version")
    exported = (archive.get("exported_with") or {}).get("engine")
    if made == api.ENGINE_VERSION and exported in (None, made):
        return ("made with other content files: see the notes" if any(n.startswith("made with content")
                                                                       for n in _versions(archive)) else None)
    if exported not in (None, made):
        return (f"the game started on engine {made} and went on under engine {exported}: played by both, "
                "it re-runs on neither alone")
    return (f"the game was played by engine {made}: verify it with a pbem whose engine is {made} "
            f"(`pbem --version` names it); this one is engine {api.ENGINE_VERSION}")


def _versions(archive: dict) -> list[str]:
    """Notes when the archive was made by another engine or content than this one."""
    notes = []
    if archive.get("engine_version") != api.ENGINE_VERSION:
        notes.append(f"made by engine {archive.get('engine_version')}, checked with engine {api.ENGINE_VERSION}")
    made = archive.get("content_version")
    now = content_version(archive.get("config", {}).get("packs", []))
    if made is None:
        notes.append("the game did not record its content version")
    elif made != now:
        notes.append(f"made with content {made[:12]}, checked with content {now[:12]}")
    files = archive.get("content_files") or {}
    if files:
        notes.append(f"checked with the {len(files)} moderator's content file(s) it carries: " + ", ".join(files))
    from pbem.base.content_overlay import fingerprint
    if "content_files_at_start" in archive and fingerprint(files) != archive["content_files_at_start"]:
        notes.append("the moderator's content files changed after the game started: it carries those of its export")
    return notes


def _check_link(archive: dict, m: dict, seq: int, prev: str) -> str:
    """The move's link checked against `prev` (a move read as a dict: chain_hash's way)."""
    if m.get("seq") != seq:
        raise Divergence(seq, f"missing (the next move in the archive is {m.get('seq')})")
    if m.get("hidden"):  # a player's export hides others' lines: only the links can be followed
        if m["prev_hash"] != prev:
            raise Divergence(seq, "chain broken")
        return m["hash"]
    record = {k: m[k] for k in _CHAINED if k != "game"} | {"game": archive["game"]}
    if m["prev_hash"] != prev or chain_hash(prev, record, m["state_hash"]) != m["hash"]:
        raise Divergence(seq, "chain broken")
    return m["hash"]


def _link(prev: str, record: _Link, state_hash: str) -> str:
    """chain_hash's bytes in half its time (no dict built, checked and sorted): verify links every move."""
    return hashlib.sha256(b"%s\n%s\n%s" % (prev.encode(), _JSON.encode(record), state_hash.encode())).hexdigest()


def _check_checked_link(game: str, m: _Checked, seq: int, prev: str) -> str:
    """_check_link of a move read as _Checked (its chained fields known to be strings, integers
    or null), by its attributes, its link hashed from one encoded _Link."""
    if m.seq != seq:
        raise Divergence(seq, f"missing (the next move in the archive is {m.seq})")
    if m.hidden:
        if m.prev_hash != prev:
            raise Divergence(seq, "chain broken")
        return m.hash
    link = _link(prev, _Link(m.actor, m.at, game, m.inbox_id, m.kind, m.line, m.message_id, m.player, m.prompt,
                             m.seq), m.state_hash)
    if m.prev_hash != prev or link != m.hash:
        raise Divergence(seq, "chain broken")
    return m.hash


def _chain(archive: dict, moves: list, progress: Progress) -> None:
    prev = archive["seed_commitment"]  # the chain starts at the commitment published at the start
    game = archive.get("game")
    for seq, m in enumerate(moves, 1):
        if isinstance(m, _Checked) and isinstance(game, str):
            prev = _check_checked_link(game, m, seq, prev)
        else:
            prev = _check_link(archive, m, seq, prev)
        if seq % TICK == 0 or seq == len(moves):
            progress(seq, len(moves))


def _rerun(archive: dict, moves: list[dict], seed: str, progress: Progress, v: Verdict) -> None:
    if isinstance(moves, _Plain) and isinstance(archive.get("game"), str):
        return _fold(archive, moves, seed, progress, v)
    prev = archive["seed_commitment"]
    player = archive.get("player")
    steps = replay(archive["config"], seed, moves)
    start = next(steps)
    _check_start(archive, start.state, start.state_hash, step_draws(start))
    last = start
    n = len(moves)
    for seq, m in enumerate(moves, 1):
        prev = _check_link(archive, m, seq, prev)  # the chain first: a changed line shows as such
        try:
            last = next(steps)
        except StopIteration:  # cannot happen: one step per move
            raise Divergence(seq, "missing") from None
        if m["state_hash"] != last.state_hash:
            raise Divergence(seq, "state hash differs")
        if m["turn"] != last.state.turn:
            raise Divergence(seq, "turn differs")
        _check_apart(archive, m, seq, last.events, last.state, step_draws(last), player, v)
        v.moves = seq
        if seq % TICK == 0 or seq == n:
            progress(seq, n)
    _check_final(archive, n, last.state, last.state_hash)


def _fold(archive: dict, moves: _Plain, seed: str, progress: Progress, v: Verdict) -> None:
    """_rerun of moves read as _Checked, `replay` folded in: the same checks in the same
    order, without a generator and a Step a move (2 us of 60). Rollbacks are taken as
    `replay` takes them (archive.rollback_target and rollback_to)."""
    game, player, prev, n = archive["game"], archive.get("player"), archive["seed_commitment"], len(moves)
    with rng.tracing() as trace:
        try:
            state = api.new_game(archive["config"], seed)
        except (ValueError, KeyError) as e:
            raise Divergence(0, f"the config does not set up a game ({e})") from None
        targets = {rollback_target(m) for m in moves if m.kind == "rollback"}
        kept = {0: api.encode(state)} if 0 in targets else {}
        state_hash = api.state_hash(state)
        _check_start(archive, state, state_hash, {"from": 0, "to": state.rng, "draws": trace[:]})
        events: list
        shown = bytearray()  # what the replay shows of each move, encoded into one buffer
        for seq, m in enumerate(moves, 1):
            prev = _check_checked_link(game, m, seq, prev)  # the chain first: a changed line shows as such
            before, drawn = state.rng, len(trace)
            try:
                if m.kind == "rollback":
                    state, events = api.decode(kept[rollback_to(m)]), []
                else:
                    state, events = api.apply(state, api.parse_move(m.line), copy=False)
            except api.IllegalMove as e:
                raise Divergence(seq, f"cannot be applied ({e.reason})") from None
            if seq in targets:
                kept[seq] = api.encode(state)
            state_hash = api.state_hash(state)
            if m.state_hash != state_hash:
                raise Divergence(seq, "state hash differs")
            if m.turn != state.turn:
                raise Divergence(seq, "turn differs")
            dice = {"from": before, "to": state.rng, "draws": trace[drawn:]}
            if not _as_written(m, events, state, dice, player, shown):  # the usual case: one comparison of bytes
                _check_apart(archive, m, seq, events, state, dice, player, v)
            v.moves = seq
            if seq % TICK == 0 or seq == n:
                progress(seq, n)
    _check_final(archive, n, state, state_hash)


def _check_start(archive: dict, state, state_hash: str, dice: dict) -> None:
    """The game as set up: its hash, positions, draws and board."""
    _same(0, "state hash differs", archive["start"]["state_hash"], state_hash)
    _same(0, "positions differ", archive["start"]["positions"], positions(state))
    _same(0, "random draws differ", archive["start"].get("rng"), dice)
    view = api.view(state, None)
    _same(0, "board differs", archive.get("board"), {"rings": view["board"], "names": view["space_names"]})


def _check_apart(archive: dict, m, seq: int, events: list, state, dice: dict, player: str | None,
                 v: Verdict) -> None:
    """A move not written as `dumps` writes it: its events, positions and dice compared one by one."""
    shown = shown_events(events, player)
    if not _equal(m["events"], shown):
        # Event wording belongs to the engine version that wrote it; the state hash, not
        # the text, is what decides. Under the same engine, though, the text must match.
        if archive.get("engine_version") == api.ENGINE_VERSION:
            raise Divergence(seq, "events differ")
        if not any(n.startswith("event wording") for n in v.notes):
            v.notes.append(f"event wording differs from engine {archive.get('engine_version')} "
                           f"(first at move {seq}); states and dice agree")
    _same(seq, "positions differ", m["positions"], positions(state))
    _same(seq, "random draws differ", m.get("rng"), dice)


def _check_final(archive: dict, n: int, state, state_hash: str) -> None:
    final = archive["final"]
    _same(n, "final state hash differs", final["state_hash"], state_hash)
    _same(n, "final result differs", [final["over"], final["winners"]], [state.over, list(state.winners)])


def _as_written(m: _Checked, events: list, state, dice: dict, player: str | None, shown: bytearray) -> bool:
    """Whether a move read by `read` holds, byte for byte, the events, positions and dice
    the replay shows, as `dumps` would write them (the events encoded from the engine's
    Structs, as to_builtins would give them), encoded into `shown`. False: compare them one
    by one."""
    where = {p.name: _Where(p.space, p.character, p.life, p.alive) for p in state.players}
    # everyone (None) sees every event (visibility.may_see): export wrote them all
    _JSON.encode_into([events if player is None else api.filter_events(events, player), where, dice], shown)
    return shown == b"".join((b"[", m.events, b",", m.positions, b",", m.rng, b"]"))


class _Where(msgspec.Struct):
    """Where a character stands, encoded as `positions` writes it (the same keys in the same
    order), made faster than its dict: `_as_written` encodes one per player per move."""
    space: str | None
    character: str | None
    life: int
    alive: bool


def _equal(recorded, replayed) -> bool:
    """Whether what the archive recorded is what the replay shows. Recorded JSON (`read`) is
    first compared as bytes: an archive written by `dumps` holds exactly what msgspec writes;
    else it is read and compared as data."""
    if isinstance(recorded, msgspec.Raw):
        if bytes(recorded) == msgspec.json.encode(replayed):
            return True
        recorded = msgspec.json.decode(recorded)
    return recorded == replayed


def _same(seq: int, problem: str, recorded, replayed) -> None:
    if not _equal(recorded, replayed):
        raise Divergence(seq, problem)

"""Games: creating them, their state, and playing moves into their log.

`play` is the one way a move enters a game, whoever sends it (a player's mail, a turn file,
the moderator): each move is applied by the engine, appended to the hash-chained log, and
the state after it is kept on the game row, with a snapshot every Store.SNAPSHOT_EVERY
moves -- so no move ever needs the game replayed from its start.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from email.headerregistry import Address
from pathlib import Path
from typing import Any

import msgspec

from pbem import configkeys, log, reports, tokens, turnmail

_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")


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


# The keys a game config may hold (docs/game-config.md); anything else is a typo, refused
# with the nearest known key. [game.pace]'s own keys are pbem/pace.py's.
TOP_KEYS = ("game", "players", "observers")  # observers: pbem/observers.py
GAME_KEYS = ("name", "edition", "packs", "options", "ending", "seed", "address", "moderator", "pace",
             "unlisted", "press")  # unlisted: not in the web index (pbem/web/pages.py); press: pbem/press.py
PLAYER_KEYS = ("name", "email", "character", "role", "timezone", "reports", "vacation_days")
_TYPES: dict[str, type | tuple[type, ...]] = {"name": str, "edition": str, "ending": str, "address": str, "moderator": str, "email": str,
          "character": str, "role": str, "timezone": str, "reports": str, "packs": list, "options": dict,
          "pace": dict, "seed": (str, int), "vacation_days": int, "press": str}
MIN_PLAYERS = 2  # Talisman is played by 2 to 6 (a Nemesis game: the Nemesis and 1 to 5 heroes)


_TYPE_NAMES: dict[type | tuple[type, ...], str] = {str: "a string", list: "a list", dict: "a table", int: "a whole number", (str, int): "a string"}


def _typed(table: dict, where: str) -> None:
    for key, want in _TYPES.items():
        value = table.get(key)
        if key in table and (not isinstance(value, want) or isinstance(value, bool)):
            shown = "" if key == "seed" else f", not {value!r}"  # a seed is never echoed
            raise GameError(f"{where}: `{key}` must be {_TYPE_NAMES[want]}{shown}")


def check_addresses(players: list[dict]) -> None:
    """Refuse two seats with one address: replies could not tell the seats apart by sender."""
    seen: dict[str, str] = {}
    for p in players:
        addr = str(p.get("email", "")).lower()
        if addr in seen:
            raise GameError(f"players {seen[addr]!r} and {p.get('name')!r} have the same address {p['email']!r}: "
                            "each seat needs its own")
        seen[addr] = str(p.get("name"))


def check_player_count(n: int) -> None:
    if n < MIN_PLAYERS:
        raise GameError(f"a game needs at least {MIN_PLAYERS} players, not {n} (with `game new --wait`, "
                        "add seats with `player add` before `game start`)")


def check_config(config) -> None:
    """The config's shape: tables where tables belong, no unknown keys, values of the right
    type. Raises GameError naming the key (and the nearest known one)."""
    from pbem.pace import _PACE_KEYS  # here: pace imports this module
    if not isinstance(config, dict):
        raise GameError("a game config is a TOML document with a [game] table")
    wrong = configkeys.problems(config, TOP_KEYS, "the config")
    g = config.get("game")
    if g is None:
        raise GameError("the config needs a [game] table")
    if not isinstance(g, dict):
        raise GameError("[game] must be one table (`[game]`, not `[[game]]`)")
    if "players" in g:
        raise GameError("[game]: players go in `[[players]]` tables after [game], one per player, with their email "
                        "(a `players = …` line in [game] is a scenario's)")
    wrong += configkeys.problems(g, GAME_KEYS, "[game]")
    if isinstance(g.get("pace"), dict):
        wrong += configkeys.problems(g["pace"], _PACE_KEYS, "[game.pace]")
    players = config.get("players", [])
    if not isinstance(players, list) or not all(isinstance(p, dict) for p in players):
        raise GameError("players are tables, one per player: `[[players]]` (not `[players]` or `players = …`)")
    for i, p in enumerate(players):
        wrong += configkeys.problems(p, PLAYER_KEYS, f"[[players]] {p.get('name') or i + 1}")
    if wrong:
        raise GameError("; ".join(wrong))
    _typed(g, "[game]")
    for i, p in enumerate(players):
        _typed(p, f"[[players]] {p.get('name') or i + 1}")


def _checked(config: dict, store, *, wait: bool = False) -> dict:
    """The config, checked; raises GameError saying what is wrong."""
    check_config(config)
    config = {"game": dict(config["game"]), "players": [dict(p) for p in config.get("players", [])],
              **({"observers": [dict(o) for o in config["observers"]]} if isinstance(config.get("observers"), list)
                 else {"observers": config["observers"]} if "observers" in config else {})}
    g = config["game"]
    name = g.get("name") or f"game-{tokens.new_salt()[:6]}"
    if not _SLUG.match(name):
        raise GameError(f"game name {name!r}: use lower-case letters, digits and '-'")
    if store.game(name):
        raise GameError(f"a game named {name!r} exists already")
    g["name"] = name
    for key in ("address", "moderator"):
        if g.get(key):
            g[key] = _check_email(g[key], f"game.{key}")
    from pbem import observers, press  # here: they import this module
    observers.check(config)
    if g.get("press", press.DEFAULT) not in press.MODES:
        raise GameError(f"game.press {g['press']!r}: one of {', '.join(press.MODES)}")
    if not config["players"]:
        raise GameError("the config needs one [[players]] table per player")
    for i, p in enumerate(config["players"]):
        if "name" not in p or "email" not in p:
            raise GameError(f"players[{i}] needs a name and an email")
        p["email"] = _check_email(p["email"], f"player {p['name']!r}")
    check_addresses(config["players"])
    if not wait:
        check_player_count(len(config["players"]))
    from pbem import pace  # here: pace imports this module
    pace.check_config(config)  # [game.pace] and players' time zones
    return config


# -- state --------------------------------------------------------------------------------

def get(svc, game_id: str) -> dict:
    game = svc.store.game(game_id)
    if game is None:
        raise GameError(f"no game {game_id!r}")
    return game


def state(svc, game: dict):
    return svc.engine.decode(game["state"])


def state_at(svc, game: dict, seq: int):
    """The state after move `seq`: from the snapshot at or before it, replaying the rest."""
    eng = svc.engine
    snap = svc.store.snapshot_before(game["id"], seq)
    if snap is None:
        raise GameError(f"{game['id']}: no snapshot at or before move {seq}")
    current = eng.decode(snap["state"])
    for row in svc.store.moves(game["id"], after=snap["seq"], upto=seq):
        if row["kind"] == "rollback":
            current = state_at(svc, game, int(row["line"].split()[1]))
        else:
            current, _ = eng.apply(current, eng.parse_move(row["line"]), copy=False)  # decoded here: ours to change
    return current


def create(svc, config: dict, *, wait: bool = False) -> str:
    """Create a game from a config (DESIGN.md), queue a welcome per player and, unless
    `wait`, start it. Returns the game's id."""
    eng = svc.engine
    with svc.store.transaction():
        config = _checked(config, svc.store, wait=wait)
        g = config["game"]
        seed = str(g.pop("seed", None) or tokens.new_seed())  # kept in its own column only
        log.forget(seed)
        from pbem.archive import content_files, content_version  # here: archive imports this module
        from pbem.content_overlay import fingerprint
        # what the game starts with, so an archive can say what made it (no column for content)
        config["versions"] = {"engine": eng.ENGINE_VERSION, "content": content_version(g.get("packs", []))}
        if content_files(g.get("packs", [])):  # the moderator's files it starts with (docs/content.md)
            config["versions"]["content_files"] = fingerprint(content_files(g.get("packs", [])))
        try:
            first = eng.new_game(engine_config(config), seed)
        except (ValueError, KeyError) as e:
            raise GameError(log.scrub(str(e))) from None
        svc.store.add_game(g["name"], config, seed, tokens.commitment(seed), eng.encode(first),
                           eng.ENGINE_VERSION, "waiting" if wait else "active")
        svc.store.save_snapshot(g["name"], 0, eng.encode(first))
        for seat, p in enumerate(config["players"]):
            _seat(svc, g["name"], p["name"], seat, p["email"], p.get("role", "hero"), p.get("character"))
        game = get(svc, g["name"])
        for player in svc.store.players(game["id"]):
            reports.queue_welcome(svc, game, player, first)
        if not wait:
            _first_reports(svc, game, first)
    log.get(game=game["id"]).info("game created", players=len(config["players"]), status=game["status"])
    return game["id"]


def _seat(svc, game_id, name, seat, email, role, character) -> dict:
    salt = tokens.new_salt()
    token = tokens.token_for(svc.key, game_id, name, salt)
    log.forget(token)
    svc.store.add_player(game_id, name, seat, email, tokens.hash_token(token), salt, role, character)
    return svc.store.player(game_id, name)


def _first_reports(svc, game: dict, first) -> None:
    from pbem import deadlines  # here: deadlines imports this module
    deadlines.sync(svc, game, first)  # the first question's deadline
    for player in svc.store.players(game["id"], active_only=True):
        reports.queue_report(svc, game, player, first, mid_parts=(0,))
    from pbem import observers  # here: observers imports this module
    observers.queue(svc, game, first, key=0)


# -- playing moves --------------------------------------------------------------------------

@dataclass
class Played:
    """What became of a list of answers."""
    applied: list[str] = field(default_factory=list)  # canonical lines, as logged
    failed: dict | None = None  # {"line", "reason", "options"} of the line that stopped it
    unused: list[str] = field(default_factory=list)  # lines after the one that failed
    standing: list[str] = field(default_factory=list)  # lines played by standing orders (pbem/standing.py)
    events: list = field(default_factory=list)
    state: Any = None
    seq: int = 0  # the last move's seq
    start: Any = None  # the state the moves were played from (None: not known, e.g. a rollback)

    @property
    def status(self) -> str:
        if self.failed is None:
            return "applied"
        return "partial" if self.applied else "rejected"


def _open_prompt(eng, st, player: str) -> int | None:
    return next((p.id for p in eng.prompts(st) if player in p.players), None)


def play(svc, game: dict, player: str, lines: list[str], *, actor: str | None = None, check: bool = False,
         message_id: str | None = None, inbox_id: int | None = None) -> Played:
    """Try `lines` in order as `player`'s answers; stop at the first that does not fit.
    Applied moves are logged and the game row updated; `check`: on a copy, nothing kept.
    Standing orders answer a question a line does not fit, then the line is tried again, and
    the questions left open at the end (never in a check)."""
    from pbem import standing  # here: standing imports this module
    eng = svc.engine
    out = Played(state=state(svc, game), seq=game["moves"])
    out.start = out.state
    moves: list[tuple[Any, Any, str, list]] = []  # (move, state after it, who played it, its events)
    auto = None if check else standing.Answerer(svc, game)
    i = 0
    while i < len(lines):
        line = lines[i]
        try:
            parsed = eng.parse_move(line, player=player)
            prompt = parsed.prompt or _open_prompt(eng, out.state, player)
            move = eng.Move(player, parsed.key, prompt, parsed.arg)  # always the authenticated player
            new, events = eng.apply(out.state, move)
        except eng.IllegalMove as e:
            if auto and auto.step(out, moves):
                continue
            out.failed = {"line": line, "reason": e.reason, "options": list(e.options)}
            out.unused = lines[i + 1:]
            break
        out.applied.append(str(move))
        moves.append((move, new, actor or player, events))
        out.state = new
        out.events += events
        i += 1
        if check:  # what follows depends on dice and cards not yet seen: only read it
            out.unused = [ln for ln in lines[i:] if _readable(eng, ln, player, out)]
            break
    while auto and auto.step(out, moves):
        pass
    if not check:
        for move, st, who, events in moves:
            out.seq = record(svc, game, move, st, events, actor=who, message_id=message_id, inbox_id=inbox_id)["seq"]
    return out


def _readable(eng, line: str, player: str, out: Played) -> bool:
    try:
        eng.parse_move(line, player=player)
        return True
    except eng.IllegalMove as e:
        if out.failed is None:
            out.failed = {"line": line, "reason": e.reason, "options": []}
        return False


def record(svc, game: dict, move, new_state, events: list, *, actor: str, kind: str = "move",
           line: str | None = None, message_id: str | None = None, inbox_id: int | None = None) -> dict:
    """Append one move to the log and keep the state after it and its events (for the
    reports of players not mailed at this move: pbem/turnmail.py)."""
    eng = svc.engine
    row = svc.store.append_move(game["id"], kind=kind, player=move.player if move else None, actor=actor,
                                line=line or str(move), prompt=move.prompt if move else None,
                                state_hash=eng.state_hash(new_state), message_id=message_id, inbox_id=inbox_id)
    svc.store.add_move_events(game["id"], row["seq"], turnmail.encode(events))
    blob = eng.encode(new_state)
    if row["seq"] % svc.store.SNAPSHOT_EVERY == 0:
        svc.store.save_snapshot(game["id"], row["seq"], blob)
    fields = {"state": blob}
    if getattr(new_state, "over", False):
        fields["status"] = "ended"
    svc.store.update_game(game["id"], **fields)
    game.update(fields, moves=row["seq"])
    from pbem import deadlines  # here: deadlines imports this module
    deadlines.sync(svc, game, new_state, actor)  # deadlines follow the questions open now
    return row


def summary_json(svc, game: dict) -> dict:
    return svc.engine.summary(state(svc, game))


def view_json(svc, game: dict, player: str | None) -> dict:
    if player not in (None, svc.engine.MODERATOR) and svc.store.player(game["id"], player) is None:
        raise GameError(f"{game['id']}: no player {player!r}")
    return svc.engine.view(state(svc, game), player)


def listing(svc) -> list[dict]:
    out = []
    for row in svc.store.games():
        game = get(svc, row["id"])
        st = state(svc, game)
        out.append({"id": game["id"], "status": game["status"], "moves": game["moves"],
                    "turn": getattr(st, "turn", None), "players": [p["name"] for p in svc.store.players(game["id"])],
                    "waiting": svc.engine.waiting_for(st), "updated": game["updated_at"]})
    return out


def move_log(svc, game: dict) -> list[dict]:
    keep = ("seq", "at", "kind", "actor", "player", "line", "prompt", "message_id", "state_hash", "hash")
    return [{k: row[k] for k in keep} for row in svc.store.moves(game["id"])]


def to_builtins(obj):
    """Engine values (msgspec Structs) as JSON-ready data."""
    return msgspec.to_builtins(obj)

"""A new game: its config checked (docs/game-config.md), its seats, its welcome mails and,
unless it waits for more players, its first reports and deadline."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pbem.archive.archive import content_files, content_version
from pbem.base import configkeys, i18n, log, sealed, tokens
from pbem.base.content_overlay import fingerprint
from pbem.core import games
from pbem.core.games import GameError, _check_email, engine_config, get
from pbem.outbound import observers, press, reports
from pbem.pace import misses, pace, reported, schedule, seats

if TYPE_CHECKING:
    from pbem.core.service import Service

_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")


# The keys a game config may hold (docs/game-config.md); anything else is a typo, refused
# with the nearest known key. [game.pace]'s own keys are pbem/pace/pace.py's.
TOP_KEYS = ("game", "players", "observers")  # observers: pbem/outbound/observers.py
GAME_KEYS = ("name", "edition", "packs", "options", "ending", "seed", "address", "moderator", "pace",
             "unlisted", "press", "language",  # unlisted: not in the web index (pbem/web/pages.py); press:
             # pbem/outbound/press.py; language: the mails' language where the reader chose none (pbem/core/people.py)
             "max_misses", "min_finished")  # who may join: pbem/pace/misses.py
PLAYER_KEYS = ("name", "email", "character", "role", "timezone", "reports", "vacation_days", "language",
               "bot")  # bot: a seat a bot plays, no person (pbem/pace/seats.py)
_TYPES: dict[str, type | tuple[type, ...]] = {"name": str, "edition": str, "ending": str, "address": str,
                                              "moderator": str, "email": str,
          "character": str, "role": str, "timezone": str, "reports": str, "packs": list, "options": dict,
          "pace": dict, "seed": (str, int), "vacation_days": int, "press": str, "language": str, "bot": str,
          "max_misses": (int, float), "min_finished": int}
MIN_PLAYERS = 2  # Talisman is played by 2 to 6 (a Nemesis game: the Nemesis and 1 to 5 heroes)


_TYPE_NAMES: dict[type | tuple[type, ...], str] = {str: "a string", list: "a list", dict: "a table",
                                                   int: "a whole number", (str, int): "a string",
                                                   (int, float): "a number"}


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
        if p.get("bot"):
            continue  # a bot seat has no address
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
        wrong += configkeys.problems(g["pace"], pace._PACE_KEYS, "[game.pace]")
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
    for where, table in [("[game]", g), *((f"[[players]] {p.get('name') or i + 1}", p) for i, p in enumerate(players))]:
        if "language" in table:
            try:
                i18n.language(table["language"])
            except ValueError as e:
                raise GameError(f"{where}: `language`: {e}") from None


def _checked(config: dict, store, *, wait: bool = False) -> dict:
    """The config, checked; raises GameError saying what is wrong."""
    check_config(config)
    config = {"game": dict(config["game"]), "players": [dict(p) for p in config.get("players", [])],
              **({"observers": observers.copied(config["observers"])} if "observers" in config else {})}
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
    observers.check(config)
    if g.get("press", press.DEFAULT) not in press.MODES:
        raise GameError(f"game.press {g['press']!r}: one of {', '.join(press.MODES)}")
    if not config["players"]:
        raise GameError("the config needs one [[players]] table per player")
    for i, p in enumerate(config["players"]):
        if "name" not in p:
            raise GameError(f"players[{i}] needs a name")
        if p.get("bot"):
            seats.check_level(p["bot"])
            if "email" in p:
                raise GameError(f"player {p['name']!r} is a bot seat (bot = {p['bot']!r}): a bot has no email")
            continue
        if "email" not in p:
            raise GameError(f"players[{i}] needs an email (or `bot = \"greedy\"`: a seat a bot plays)")
        p["email"] = _check_email(p["email"], f"player {p['name']!r}")
    check_addresses(config["players"])
    if not wait:
        check_player_count(len(config["players"]))
    pace.check_config(config)  # [game.pace] and players' time zones
    return config


def create(svc: Service, config: dict, *, wait: bool = False) -> str:
    """Create a game from a config (DESIGN.md), queue a welcome per player and, unless
    `wait`, start it. Returns the game's id."""
    eng = svc.engine
    with svc.store.transaction():
        config = _checked(config, svc.store, wait=wait)
        g = config["game"]
        for p in config["players"]:
            if not p.get("bot"):
                misses.check_minimum(svc, g, p["email"])  # max_misses, min_finished
        seed = str(g.pop("seed", None) or tokens.new_seed())  # kept in its own column only
        log.forget_seed(seed)
        # what the game starts with, so an archive can say what made it (no column for content)
        config["versions"] = {"engine": eng.ENGINE_VERSION, "content": content_version(g.get("packs", []))}
        if content_files(g.get("packs", [])):  # the moderator's files it starts with (docs/content.md)
            config["versions"]["content_files"] = fingerprint(content_files(g.get("packs", [])))
        try:
            first = eng.new_game(engine_config(config), seed)
        except (ValueError, KeyError) as e:
            raise GameError(log.scrub(str(e))) from None
        blob = games.encode(svc, first)  # the state is kept without its seed, the seed sealed
        svc.store.add_game(g["name"], config, sealed.seal(svc.key, seed, g["name"]), tokens.commitment(seed), blob,
                           eng.ENGINE_VERSION, "waiting" if wait else "active")
        svc.store.save_snapshot(g["name"], 0, blob)
        for seat, p in enumerate(config["players"]):
            _seat(svc, g["name"], p["name"], seat, p.get("email", ""), p.get("role", "hero"), p.get("character"),
                  p.get("bot"))
        game = get(svc, g["name"])
        for player in svc.store.players(game["id"], active_only=True):  # a bot seat has no one to welcome
            reports.queue_welcome(svc, game, player, first)
        if not wait:
            _first_reports(svc, game, first)
    log.get(game=game["id"]).info("game created", players=len(config["players"]), status=game["status"])
    return game["id"]


def _seat(svc: Service, game_id, name, seat, email, role, character, bot: str | None = None) -> dict:
    salt = tokens.new_salt()
    token = tokens.token_for(svc.key, game_id, name, salt)
    log.forget(token)
    svc.store.add_player(game_id, name, seat, email, tokens.hash_token(token), salt, role, character, bot)
    row = svc.store.player(game_id, name)
    assert row is not None  # just added
    return row


def _first_reports(svc: Service, game: dict, first) -> None:
    schedule.sync(svc, game, first)  # the first question's deadline
    for player in svc.store.players(game["id"], active_only=True):
        reports.queue_report(svc, game, player, first, mid_parts=(0,), pace=reported.part)
    observers.queue(svc, game, first, key=0)
    seats.play_now(svc, game)  # a bot asked first answers now (the players hear it in another report)



"""A game's rules configuration: edition, packs, options and players."""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import msgspec

EDITIONS = ("revised4", "fifth")
EDITION_TITLES = {"revised4": "Revised 4th Edition", "fifth": "Fifth Edition"}  # as printed

# Rule options of the base game (docs/rules-decisions.md) and their defaults; a pack's own
# options are declared on its Pack (engine/packs/base.py) and join these in `defaults()`.
BASE_OPTIONS: dict[str, Any] = {
    "trophy_threshold": 7,  # 7, or 6 / 5 for the faster-play variant
    "command_spell": "standard",  # "standard" or "easier" (wider range with 5+ players)
    "sudden_death": False,  # the first to reach the Crown wins
    "inherited_items": False,  # a new character inherits the items its predecessor left
    "starting_bonus": False,  # +1 Strength or Craft at the start (asked)
    "deal_choice": 1,  # characters dealt to choose from (3: the optional variant)
    "turn_cap": 0,  # 0: none; otherwise the game ends (no winner) after this many rounds
    # With a pack that brings Alternative Endings: "eternal-crown" (the Cataclysm's default ending),
    # or another Alternative Ending drawn at random, "revealed" (faceup) or "hidden" (facedown
    # until someone reaches the Crown). A pack's `default_ending` applies when it is not set; without
    # one (The Lost Realms alone) "revealed" (engine/rules/endings.py).
    "alternative_ending": "eternal-crown",
}
ENDING_VARIANTS = ("eternal-crown", "revealed", "hidden")


class RuleOption:
    """A rule option a pack brings: its name in [game.options], its default, what it does (for
    the docs), the values it may take (empty: any) and what a config with another is told."""

    def __init__(self, name: str, default: Any, doc: str, choices: tuple[Any, ...] = (), refused: str = "") -> None:
        self.name = name
        self.default = default
        self.doc = doc
        self.choices = choices
        self.refused = refused


class Declaration(Protocol):
    """What the checks read of a pack's declaration (engine/packs/base.py `Pack`): the packs a
    config is checked against are handed in (engine/registry.py `declared`), never looked up."""

    @property
    def name(self) -> str: ...
    @property
    def editions(self) -> tuple[str, ...]: ...
    @property
    def playable(self) -> bool: ...
    @property
    def sole(self) -> bool: ...
    @property
    def requires(self) -> tuple[str, ...]: ...
    @property
    def excludes(self) -> tuple[str, ...]: ...
    @property
    def roles(self) -> tuple[str, ...]: ...
    @property
    def options(self) -> tuple[RuleOption, ...]: ...
    @property
    def endings(self) -> bool: ...
    @property
    def default_ending(self) -> str: ...

    def check_config(self, config: GameConfig) -> None: ...


def defaults(packs: Iterable[Declaration]) -> dict[str, Any]:
    """Every rule option's default: the base game's and each of these packs'."""
    out = dict(BASE_OPTIONS)
    for pack in packs:
        out.update((o.name, o.default) for o in pack.options)
    return out


class ConfigError(ValueError):
    pass


class PlayerConfig(msgspec.Struct, forbid_unknown_fields=False):
    name: str
    character: str | None = None
    role: str = "hero"


class GameConfig(msgspec.Struct, forbid_unknown_fields=False):
    edition: str = "revised4"
    packs: list[str] = []
    players: list[PlayerConfig] = []
    options: dict[str, Any] = {}
    ending: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any], declared: Mapping[str, Declaration]) -> GameConfig:
        """A config read and checked against the packs `declared` (by name): engine.api's
        `game_config` hands in the listed packs and any a caller brings."""
        try:
            cfg = msgspec.convert(data, cls)
        except msgspec.ValidationError as e:
            raise ConfigError(f"game config: {e}") from None
        cfg.check(declared)
        return cfg

    def check(self, declared: Mapping[str, Declaration]) -> None:
        if self.edition not in EDITIONS:
            raise ConfigError(f"unknown edition {self.edition!r}; known: {', '.join(EDITIONS)}")
        for name in self.packs:
            if name not in declared:
                raise ConfigError(f"unknown pack {name!r}; known: {', '.join(declared)}")
        mine = [declared[name] for name in self.packs]
        for pack in mine:
            others = [p for p in self.packs if p != pack.name]
            if pack.sole and others:
                raise ConfigError(f"pack {pack.name!r} is played alone: it cannot go with {', '.join(others)}")
            if not pack.playable:
                raise ConfigError(f"pack {pack.name!r} is not playable yet in this version")
            if pack.editions and self.edition not in pack.editions:
                raise ConfigError(f"pack {pack.name!r} is an expansion for {' or '.join(pack.editions)}, "
                                  f"not {self.edition}")
            for other in pack.excludes:
                if other in self.packs:
                    raise ConfigError(f"pack {pack.name!r} cannot go with {other}")
            for other in pack.requires:
                if other not in self.packs:
                    raise ConfigError(f"pack {pack.name!r} needs the {other} pack")
        if not 1 <= len(self.players) <= 6:
            raise ConfigError("a game needs 1 to 6 players")
        roles = {r: p.name for p in declared.values() for r in p.roles}
        if any(pc.role != "hero" and pc.role not in roles for pc in self.players):
            raise ConfigError(f"a player's role is {' or '.join(repr(r) for r in ['hero', *roles])}")
        for pc in self.players:
            if pc.role != "hero" and roles[pc.role] not in self.packs:
                raise ConfigError(f"role = \"{pc.role}\" needs the {roles[pc.role]} pack")
        for pack in mine:
            pack.check_config(self)
        for pack in declared.values():
            for o in pack.options:
                if o.name in self.options and pack.name not in self.packs:
                    raise ConfigError(f"the {o.name} option needs the {pack.name} pack: set it only in a game "
                                      f"with the {pack.name} pack")
                if o.choices and self.options.get(o.name, o.default) not in o.choices:
                    raise ConfigError(o.refused or f"{o.name}: one of {', '.join(map(str, o.choices))}")
        names = [p.name for p in self.players]
        if len(set(names)) != len(names):
            raise ConfigError("player names must be different")
        for n in names:
            # Names are answer keys too ("encounter-alice"), so they are lower-case slugs.
            if not re.fullmatch(r"[a-z][a-z0-9-]*", n) or n == "moderator":
                raise ConfigError(f"player name {n!r}: use lower-case letters, digits and '-', "
                                  "starting with a letter ('moderator' is reserved)")
        unknown = set(self.options) - set(defaults(declared.values()))
        if unknown:
            raise ConfigError(f"unknown rule option(s): {', '.join(sorted(unknown))}")
        if (self.ending or "alternative_ending" in self.options) and not any(p.endings for p in mine):
            bringers = " pack or the ".join(p.name for p in declared.values() if p.endings)
            raise ConfigError(f"Alternative Endings need the {bringers} pack")
        if self.option("alternative_ending") not in ENDING_VARIANTS:
            raise ConfigError(f"alternative_ending: one of {', '.join(ENDING_VARIANTS)}")
        if self.options.get("alternative_ending") == "eternal-crown" \
                and not any(p.default_ending == "eternal-crown" for p in mine):
            owner = next(p.name for p in declared.values() if p.default_ending == "eternal-crown")
            raise ConfigError(f"alternative_ending = \"eternal-crown\" needs the {owner} pack "
                              "(The Eternal Crown is its card)")

    def option(self, name: str) -> Any:
        """A base game rule option, as set or its default (a pack reads its own through its
        declaration: `Pack.option`)."""
        return self.options[name] if name in self.options else BASE_OPTIONS[name]

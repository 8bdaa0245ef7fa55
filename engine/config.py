"""A game's rules configuration: edition, packs, options and players."""
from __future__ import annotations

import re
from typing import Any

import msgspec

EDITIONS = ("revised4", "fifth")
KNOWN_PACKS = ("cataclysm", "lost-realms", "timescape", "nemesis", "sea-voyage", "city")
# packs whose rules are implemented so far
PLAYABLE_PACKS: tuple[str, ...] = ("cataclysm", "lost-realms", "nemesis", "sea-voyage", "timescape", "city")
# the editions a pack is made for (default: any)
PACK_EDITIONS = {"cataclysm": ("revised4",), "lost-realms": ("revised4",), "nemesis": ("fifth",), "city": ("revised4",)}
SOLE_PACKS = ("nemesis",)  # packs played with no other pack (its own board and sides)

# Documented rule options (docs/rules-decisions.md) and their defaults.
DEFAULT_OPTIONS: dict[str, Any] = {
    "trophy_threshold": 7,  # 7, or 6 / 5 for the faster-play variant
    "command_spell": "standard",  # "standard" or "easier" (wider range with 5+ players)
    "sudden_death": False,  # the first to reach the Crown wins
    "inherited_items": False,  # a new character inherits the items its predecessor left
    "starting_bonus": False,  # +1 Strength or Craft at the start (asked)
    "deal_choice": 1,  # characters dealt to choose from (3: the optional variant)
    "turn_cap": 0,  # 0: none; otherwise the game ends (no winner) after this many rounds
    # The Cataclysm: "eternal-crown" (the default ending), or another Alternative Ending drawn
    # at random, "revealed" (faceup) or "hidden" (facedown until someone reaches the Crown).
    # Without the Cataclysm (The Lost Realms alone) the default is "revealed" (engine/rules/endings.py).
    "alternative_ending": "eternal-crown",
    # The Lost Realms, The Hunt: "open" (as printed: anyone may climb to the Crown; without four
    # Nether Enemies nothing happens there) or "four" (the climb is offered only with four).
    "hunt_crown": "open",
    "trial": 1,  # Nemesis: the Trial played (1 or 2; the third Trial's box is not known)
}
ENDING_VARIANTS = ("eternal-crown", "revealed", "hidden")
ENDING_PACKS = ("cataclysm", "lost-realms")  # packs that bring Alternative Ending cards
HUNT_CROWN = ("open", "four")


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
    def from_dict(cls, data: dict) -> "GameConfig":
        try:
            cfg = msgspec.convert(data, cls)
        except msgspec.ValidationError as e:
            raise ConfigError(f"game config: {e}") from None
        cfg.check()
        return cfg

    def check(self) -> None:
        if self.edition not in EDITIONS:
            raise ConfigError(f"unknown edition {self.edition!r}; known: {', '.join(EDITIONS)}")
        for pack in SOLE_PACKS:
            if pack in self.packs and len(self.packs) > 1:
                raise ConfigError(f"pack {pack!r} is played alone: it cannot go with "
                                  f"{', '.join(p for p in self.packs if p != pack)}")
        for pack in self.packs:
            if pack not in KNOWN_PACKS:
                raise ConfigError(f"unknown pack {pack!r}; known: {', '.join(KNOWN_PACKS)}")
            if pack not in PLAYABLE_PACKS:
                raise ConfigError(f"pack {pack!r} is not playable yet in this version")
            if self.edition not in PACK_EDITIONS.get(pack, EDITIONS):
                raise ConfigError(f"pack {pack!r} is an expansion for {' or '.join(PACK_EDITIONS[pack])}, "
                                  f"not {self.edition}")
        if not 1 <= len(self.players) <= 6:
            raise ConfigError("a game needs 1 to 6 players")
        roles = [p.role for p in self.players]
        if any(r not in ("hero", "nemesis") for r in roles):
            raise ConfigError("a player's role is 'hero' or 'nemesis'")
        if "nemesis" in self.packs:
            heroes = roles.count("hero")
            if roles.count("nemesis") != 1:
                raise ConfigError("a Nemesis game needs exactly one player with role = \"nemesis\"")
            if not 1 <= heroes <= 5:
                raise ConfigError(f"a Nemesis game needs 1 to 5 heroes, not {heroes}")
            if self.option("trial") not in (1, 2):
                raise ConfigError("trial: 1 or 2 (the content knows Trials 1 and 2)")
            if any(p.character for p in self.players if p.role == "nemesis"):
                raise ConfigError("the Nemesis player does not select a character")
        elif "nemesis" in roles:
            raise ConfigError("role = \"nemesis\" needs the nemesis pack")
        elif "trial" in self.options:
            raise ConfigError("the trial option needs the nemesis pack")
        names = [p.name for p in self.players]
        if len(set(names)) != len(names):
            raise ConfigError("player names must be different")
        for n in names:
            # Names are answer keys too ("encounter-alice"), so they are lower-case slugs.
            if not re.fullmatch(r"[a-z][a-z0-9-]*", n) or n == "moderator":
                raise ConfigError(f"player name {n!r}: use lower-case letters, digits and '-', "
                                  "starting with a letter ('moderator' is reserved)")
        unknown = set(self.options) - set(DEFAULT_OPTIONS)
        if unknown:
            raise ConfigError(f"unknown rule option(s): {', '.join(sorted(unknown))}")
        if (self.ending or "alternative_ending" in self.options) and not set(ENDING_PACKS) & set(self.packs):
            raise ConfigError("Alternative Endings need the cataclysm pack or the lost-realms pack")
        if self.option("alternative_ending") not in ENDING_VARIANTS:
            raise ConfigError(f"alternative_ending: one of {', '.join(ENDING_VARIANTS)}")
        if self.options.get("alternative_ending") == "eternal-crown" and "cataclysm" not in self.packs:
            raise ConfigError("alternative_ending = \"eternal-crown\" needs the cataclysm pack "
                              "(The Eternal Crown is its card)")
        if "hunt_crown" in self.options and ("lost-realms" not in self.packs
                                             or self.option("hunt_crown") not in HUNT_CROWN):
            raise ConfigError(f"hunt_crown: one of {', '.join(HUNT_CROWN)}, with the lost-realms pack")

    def option(self, name: str) -> Any:
        return self.options.get(name, DEFAULT_OPTIONS[name])

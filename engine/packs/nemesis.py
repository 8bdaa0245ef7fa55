"""Talisman Nemesis: Call of the Hunt (nemesis.txt): one Nemesis player against cooperating heroes.

The Nemesis is a player who is not a character (`role = "nemesis"`): no figure, a private
hand of Action cards (`Player.hand`), life and fate from the Trial card. Heroes share their
fate (`pools["shared_fate"]`, read through engine/rules/stats.py), hold at most one Boon
(`hand`) and one companion (`area`). Board tokens are cards in `piles`: "site@<space>",
"villain@<space>", "adversary@<space>"; the Trial card is the pile "trial" and cards
returned to the box lie in "box". The pack is `Nemesis` at the end of this module: its hooks,
which the core calls through the game's Hooks (engine/hooks.py), are written in the topic
modules, which register their tasks and answers on import; what content data says is in
engine/content/nemesis/.

  nemesis_board.py    who is who, the Trial card, tokens on the board
  nemesis_setup.py    Game Setup, companions: setup, first_player, start_space, seated
  nemesis_turn.py     the Nemesis's turns and actions: between_turns
  nemesis_boons.py    Boons shared and used: start_options, start_choice
  nemesis_companions.py  companions' levels and abilities: start_options, start_choice,
                      set_companion_level
  nemesis_heroes.py   a hero's moves, encounters, exchanges: move_options, move_choice,
                      arrived, encounter_options, encounter_choice
  nemesis_combat.py   villains, the adversary, sacred sites, fighting together: trophy_value,
                      trophy_spent, ask_helpers, foe_reroll
  nemesis_endings.py  Trial objectives, To the Death: killed
  nemesis_ops.py      the ops the stand-in cards are written in (docs/effects.md)

engine/registry.py imports this module (and so its topic modules) before any game runs.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.config import ConfigError
from engine.packs import (
    nemesis_boons,
    nemesis_combat,
    nemesis_companions,
    nemesis_endings,
    nemesis_heroes,
    nemesis_ops,  # noqa: F401  (registers its ops)
    nemesis_setup,
    nemesis_text,
    nemesis_turn,
)
from engine.packs.base import Pack, RuleOption
from engine.packs.nemesis_board import adversary_space, heroes, nemesis, tokens
from engine.rules.machine import Ctx
from engine.state import Option
from engine.text import Msg, Text


class Nemesis(Pack):
    name = "nemesis"
    title = "Nemesis: Call of the Hunt"
    editions = ("fifth",)
    sole = True  # its own board and sides
    roles = ("nemesis",)
    card_hooks = frozenset({"companion"})  # a companion's levels (nemesis_companions.py)
    side_victory = True  # the heroes win together, those who died on the way too
    props = frozenset({"trial", "adversary", "villain", "objective", "life", "fate", "sites", "value", "levels"})
    options = (RuleOption("trial", 1, "the Trial played: 1 or 2 (the third Trial's box is not known)", choices=(1, 2),
                          refused="trial: 1 or 2 (the content knows Trials 1 and 2)"),)

    def check_config(self, config: Any) -> None:
        roles = [p.role for p in config.players]
        n_heroes = roles.count("hero")
        if roles.count("nemesis") != 1:
            raise ConfigError("a Nemesis game needs exactly one player with role = \"nemesis\"")
        if not 1 <= n_heroes <= 5:
            raise ConfigError(f"a Nemesis game needs 1 to 5 heroes, not {n_heroes}")
        if any(p.character for p in config.players if p.role == "nemesis"):
            raise ConfigError("the Nemesis player does not select a character")

    def setup(self, ctx: Ctx, config: Any) -> None:
        nemesis_setup.setup(ctx, config, self.option(config.options, "trial"))

    def first_player(self, ctx: Ctx) -> int | None:
        return nemesis_setup.first_player(ctx)

    def start_space(self, ctx: Ctx, character: Any) -> str | None:
        return nemesis_setup.start_space(ctx, character)

    def seated(self, ctx: Ctx, config: Any) -> list[tuple]:
        return nemesis_setup.seated(ctx, config)

    def between_turns(self, ctx: Ctx, done: int, nxt: int) -> None:
        nemesis_turn.between_turns(ctx, done, nxt)

    def start_options(self, ctx: Ctx, i: int) -> list[Option] | None:
        return nemesis_boons.start_options(ctx, i) + nemesis_companions.start_options(ctx, i)

    def start_choice(self, ctx: Ctx, i: int, key: str) -> bool | None:
        return nemesis_boons.start_choice(ctx, i, key) or nemesis_companions.start_choice(ctx, i, key)

    def move_options(self, ctx: Ctx, i: int) -> list[Option] | None:
        return nemesis_heroes.move_options(ctx, i)

    def move_choice(self, ctx: Ctx, i: int, key: str) -> bool | None:
        return nemesis_heroes.move_choice(ctx, i, key)

    def arrived(self, ctx: Ctx, i: int) -> bool | None:
        return nemesis_heroes.arrived(ctx, i)

    def encounter_options(self, ctx: Ctx, i: int) -> list[Option] | None:
        return nemesis_heroes.encounter_options(ctx, i)

    def encounter_choice(self, ctx: Ctx, i: int, key: str) -> bool | None:
        return nemesis_heroes.encounter_choice(ctx, i, key)

    def quest_possible(self, ctx: Ctx, i: int, goal: str) -> bool | None:
        return nemesis_heroes.quest_possible(ctx, i, goal)

    def set_companion_level(self, ctx: Ctx, i: int, level: int) -> Text | bool | None:
        return nemesis_companions.set_companion_level(ctx, i, level)

    def trophy_value(self, ctx: Ctx, p: Any) -> Callable[[str, str], int] | None:
        return nemesis_combat.trophy_value(ctx, p)

    def trophy_spent(self, ctx: Ctx, p: Any, card: str, attr: str) -> None:
        nemesis_combat.trophy_spent(ctx, p, card, attr)

    def ask_helpers(self, ctx: Ctx, i: int, a: dict) -> bool | None:
        return nemesis_combat.ask_helpers(ctx, i, a)

    def foe_reroll(self, ctx: Ctx, i: int) -> bool | None:
        return nemesis_combat.foe_reroll(ctx, i)

    def scenario_setup(self, state: Any, content: Any, p: Any, key: str, value: Any) -> bool | None:
        """Scenario keys: the adversary's lives (`adversary_life`, under the Nemesis), a hero's
        companion level (`companion_level`) and who bears Trial 2's X token (`x_token = true`)."""
        if key == "adversary_life" and p.role == "nemesis":
            state.counters["adversary-life"] = int(value)
        elif key == "companion_level" and p.role == "hero":
            state.counters[f"companion@{p.name}"] = int(value)
        elif key == "x_token" and p.role == "hero" and value is True:
            state.counters["x-token"] = state.players.index(p)
        else:
            return None
        return True

    def killed(self, ctx: Ctx, i: int) -> None:
        nemesis_endings.killed(ctx, i)

    def public(self, ctx: Ctx) -> dict[str, Any]:
        """DESIGN.md: the Nemesis's hand as a count, life, fate, the board's tokens."""
        state, content = ctx.s, ctx.content
        k = nemesis(state)
        nem = state.players[k]
        adv = adversary_space(state)
        return {"player": nem.name, "trial": content.cards[state.piles["trial"][0]].prop("trial"),
                "hand": len(nem.hand), "life": nem.life, "fate": nem.fate,
                "sacred_sites": sorted(tokens(state, "site")), "adversary": adv,
                "adversary_life": state.counters.get("adversary-life", 0),
                "villains": {sp: list(v) for sp, v in sorted(tokens(state, "villain").items())},
                "hero_deaths": state.counters.get("hero-deaths", 0),
                "x_token": state.players[state.counters["x-token"]].name if "x-token" in state.counters else None,
                "boons": {state.players[i].name: len(state.players[i].hand) for i in heroes(state)},
                "companions": {state.players[i].name: {
                                   "card": state.players[i].area[0],
                                   "level": state.counters.get(f"companion@{state.players[i].name}", 1),
                                   "talisman": len(state.players[i].area) > 1}
                               for i in heroes(state) if state.players[i].area}}

    def public_text(self, ctx: Ctx) -> list[Msg]:
        return nemesis_text.text(ctx.s, ctx.content)

    def invariants(self, state: Any, content: Any) -> list[str]:
        """Private hands, companions, the shared pool, one adversary and one site a space."""
        out = []
        if state.pools.get("shared_fate", 0) < 0:
            out.append("the shared fate pool is negative")
        for p in state.players:
            decks = [content.cards[c].deck for c in p.hand]
            if p.role == "nemesis" and (set(decks) - {"action"} or p.character or p.area):
                out.append(f"{p.name}: the Nemesis holds {p.hand} / {p.area} or has a character")
            if p.role == "hero" and (set(decks) - {"boon"} or len(p.hand) > 1):
                out.append(f"{p.name}: a hero holds more than one Boon or other cards in hand: {p.hand}")
            if p.role == "hero" and p.area and (content.cards[p.area[0]].deck != "companion" or len(p.area) > 2
                                                or any(not content.cards[c].prop("talisman") for c in p.area[1:])):
                out.append(f"{p.name}: the companion area holds {p.area}")
            if p.role == "hero" and "shared_fate" in state.pools and p.fate:
                out.append(f"{p.name}: a hero holds fate outside the shared pool")
        if any(len(cards) > 1 for cards in tokens(state, "site").values()):
            out.append("two sacred sites on one space")
        if sum(len(cards) for cards in tokens(state, "adversary").values()) != 1:
            out.append("not exactly one adversary on the board")
        return out


PACK: Pack = Nemesis()

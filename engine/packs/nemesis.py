"""Talisman Nemesis: Call of the Hunt (nemesis.txt): one Nemesis player against cooperating heroes.

The Nemesis is a player who is not a character (`role = "nemesis"`): no figure, a private
hand of Action cards (`Player.hand`), life and fate from the Trial card. Heroes share their
fate (`pools["shared_fate"]`, read through engine/rules/stats.py), hold at most one Boon
(`hand`) and one companion (`area`). Board tokens are cards in `piles`: "site@<space>",
"villain@<space>", "adversary@<space>"; the Trial card is the pile "trial" and cards
returned to the box lie in "box". The core calls the named hooks listed below through
`engine.packs.call`; what content data says is in engine/content/nemesis/.

This module holds `public` and imports the named hooks from the topic modules, which register
their tasks and answers on import:

  nemesis_board.py    who is who, the Trial card, tokens on the board
  nemesis_setup.py    Game Setup, companions: setup, first_player, start_space, seated
  nemesis_turn.py     the Nemesis's turns and actions: between_turns
  nemesis_boons.py    Boons shared and used: start_options, start_choice
  nemesis_heroes.py   a hero's moves, encounters, exchanges: move_options, move_choice,
                      arrived, encounter_options, encounter_choice, set_companion_level
  nemesis_combat.py   villains, the adversary, sacred sites, fighting together: trophy_value,
                      trophy_spent, ask_helpers, foe_reroll
  nemesis_endings.py  Trial objectives, To the Death: killed

engine/registry.py imports this module (and so its topic modules) before any game runs.
"""
from __future__ import annotations

from typing import Any

from engine.packs.nemesis_board import adversary_space, heroes, nemesis, tokens
from engine.packs.nemesis_boons import start_choice, start_options  # noqa: F401
from engine.packs.nemesis_combat import ask_helpers, foe_reroll, trophy_spent, trophy_value  # noqa: F401
from engine.packs.nemesis_endings import killed  # noqa: F401
from engine.packs.nemesis_heroes import (arrived, encounter_choice, encounter_options, move_choice,  # noqa: F401
                                         move_options, quest_possible, set_companion_level)
from engine.packs.nemesis_setup import first_player, seated, setup, start_space  # noqa: F401
from engine.packs.nemesis_turn import between_turns  # noqa: F401


# -- what everyone sees --------------------------------------------------------------------------

def public(state, content) -> dict[str, Any]:
    """DESIGN.md: the Nemesis's hand as a count, life, fate, the board's tokens."""
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

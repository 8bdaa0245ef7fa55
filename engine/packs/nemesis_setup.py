"""Nemesis: Game Setup (nemesis.txt). The decks cut down and stacked, the Trial, the Nemesis's
life, fate and Action cards, sacred sites, villains and the adversary (`setup`); who goes first
and where heroes start (`first_player`, `start_space`); the shared fate pool and the companions
chosen after the characters (`seated`).
"""
from __future__ import annotations

from typing import Any

from engine import rng
from engine.config import GameConfig
from engine.content import Character
from engine.packs.nemesis_board import LAIR, heroes, nemesis, to_box
from engine.packs.nemesis_turn import draw_action
from engine.rules.machine import Ctx, on_answer, task
from engine.state import Option, Prompt, Task
from engine.text import msg

# Setup 5 and 6: removed from the 5th Edition Spell and Adventure decks, by name. Names the
# R4E stand-in content lacks (Calamity, Chalice of Life, Holy Symbol) are skipped.
SPELL_REMOVALS = ["acquisition", "counterspell", "counterspell", "destroy-magic", "destruction", "destruction",
                  "healing", "hex", "immobility", "immobility", "mesmerism", "nullify", "random", "temporal-warp"]
ADVENTURE_REMOVALS = ["dragon", "wraith", "angel", "blizzard", "book-of-spells", "calamity", "devil", "evil-darkness",
                      "imp", "magical-vortex", "market-day", "pestilence", "raiders", "siren", "storm", "gnome", "hag",
                      "mercenary", "pixie", "mule", "poltergeist", "prince", "princess", "magic-portal", "marsh",
                      "maze", "water-bottle", "helmet", "shield", "amulet", "chalice-of-life", "holy-lance",
                      "holy-symbol", "talisman", "healer", "hermit", "mage"]


def setup(ctx: Ctx, config: GameConfig, trial: int) -> None:
    s, cards = ctx.s, ctx.content.cards
    box = lambda deck, card: to_box(s, s.decks[deck], card)
    for card in SPELL_REMOVALS:  # steps 5, 8 (the Nemesis Spells joined the deck in content)
        if card in s.decks["spell"]:
            box("spell", card)
    adv = s.decks["adventure"]
    talisman = None
    for card in ADVENTURE_REMOVALS:  # steps 6, 7: the Talisman card is kept aside
        if card in adv:
            if card == "talisman":
                adv.remove(card)
                talisman = card
            else:
                box("adventure", card)
    rush = [c for c in adv if c == "trial-rush"]
    for c in rush + ["final-encounter"]:
        adv.remove(c)
    top = [adv.pop() for _ in range(min(10, len(adv)))] + rush + ([talisman] if talisman else [])
    rng.shuffle(s, top)  # steps 9, 10: 10 cards, the Talisman and 5 Trial Rush, on top
    adv.extend(top)
    adv.insert(len(adv) // 2, "final-encounter")  # step 11: cut into the middle
    t = f"trial-{trial}"  # step 19: the Trial's cards; the rest go back in the box
    s.piles["trial"] = [t]
    s.decks["trial"].remove(t)
    for c in list(s.decks["trial"]):
        box("trial", c)
    tc = cards[t]
    for deck in ("action", "villain", "adversary"):
        for c in [c for c in s.decks[deck] if cards[c].prop("trial", 0) not in (0, tc.prop("trial"))]:
            box(deck, c)
    k = nemesis(s)  # steps 20, 21
    nem = s.players[k]
    nem.life, nem.fate = tc.prop("life"), tc.prop("fate")
    nem.max_life, nem.max_fate = nem.life, nem.fate
    for _ in range(3):
        draw_action(ctx, k)
    n_sites = min(4, len(heroes(s)))  # steps 22, 23: one site per hero, at most 4, each with a villain
    for space in tc.prop("sites")[:n_sites]:
        s.piles[f"site@{space}"] = [s.decks["site"].pop()]
        s.piles[f"villain@{space}"] = [s.decks["villain"].pop()]
    for c in list(s.decks["site"]):
        box("site", c)
    s.piles[f"adversary@{LAIR}"] = [s.decks["adversary"].pop()]  # step 24
    s.counters["adversary-life"] = cards[s.piles[f"adversary@{LAIR}"][0]].prop("life")
    if tc.prop("objective") == "kill-x":  # Trial 2: who bears the X token is not known; dealt at random
        hs = heroes(s)
        s.counters["x-token"] = hs[rng.below(s, len(hs))]


def first_player(ctx: Ctx) -> int:
    """The player sitting to the left of the Nemesis goes first; play moves to the left."""
    return heroes(ctx.s)[0]


def start_space(ctx: Ctx, character: Character) -> str:
    return "tavern"  # Setup 14: all hero characters begin on the Tavern


def seated(ctx: Ctx, config: GameConfig) -> list[tuple[str, int, dict[str, Any]]]:
    """After the characters: the shared fate pool (14), the level token, and the companions
    (16, 17): the last hero to choose their character picks first, then to the right."""
    s = ctx.s
    s.pools["shared_fate"] = sum(s.players[i].fate for i in heroes(s))
    s.counters["shared-fate-start"] = s.pools["shared_fate"]
    for i in heroes(s):
        s.players[i].fate = 0
    # Characters are chosen in turn order, so the last to choose sits to the Nemesis's right;
    # "to the right" goes against the turn order.
    return [("choose-companion", i, {}) for i in reversed(heroes(s))]


@task("choose-companion")
def choose_companion(ctx: Ctx, t: Task) -> None:
    left = ctx.s.decks["companion"]
    ctx.ask(t.p, "companion", msg("Choose your companion."),
            [Option(c, ctx.content.cards[c].name) for c in dict.fromkeys(left)])


@on_answer("companion", "which companion to take: a card slug", default=())
def companion_chosen(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    p = ctx.player(ctx.index(who))
    ctx.s.decks["companion"].remove(key)
    p.area.append(key)
    ctx.s.counters[f"companion@{who}"] = 1  # the level token on 1 (Setup 18)
    ctx.emit("companion",
             msg("{player} takes {card} as companion (level 1).", player=who,
                 card=ctx.content.cards[key].name), player=who)

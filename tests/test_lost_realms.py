"""The Lost Realms pack beyond what scenario files show: hidden information in views, config
checks, the healing lock of Pandora's Box, The Hunt's play area, deaths, coverage, and random
games played from positions near the Crown so that every ending's paths are exercised."""
import json
import random

import pytest

from engine import api, coverage, scenario
from engine.config import ConfigError
from engine.content import load
from engine.invariants import violations
from engine.ops import OPS
from engine.rules.machine import run
from pbem.bot import choose

HEROES = [{"name": "alice", "character": "thief"}, {"name": "bob", "character": "troll"},
          {"name": "carol", "character": "wizard"}]


def game(ending: str, players=HEROES[:2], **extra) -> dict:
    return {"game": {"packs": ["lost-realms"], "seed": "t", "ending": ending, "players": players}, **extra}


def texts(state, who) -> str:
    return json.dumps(api.view(state, who)) + json.dumps(api.summary(state))


NETHER_NAMES = ("Nether Enemy", "nether-enemy", "Nether Encounter", "nether-encounter")


# -- hidden information ----------------------------------------------------------------------

def test_the_gauntlets_facedown_cards_are_hidden_in_every_view():
    state = api.new_game({"packs": ["lost-realms"], "ending": "the-gauntlet", "players": HEROES}, "t")
    assert sum(len(v) for k, v in state.piles.items() if k.startswith("nether@")) == 10  # 8 spaces + 2 on the Crown
    for who in ("alice", "bob", "carol", None):
        text = texts(state, who)
        assert not any(n in text for n in NETHER_NAMES)
        assert api.view(state, who)["lost-realms"]["gauntlet"]["crown-of-command"] == {"facedown": 2, "faceup": []}


def test_the_hunts_facedown_cards_show_to_their_owner_only():
    state = scenario.build(game("the-hunt",
                                setup={"alice": {"area": ["nether-enemy-craft-8", "nether-enemy-strength-6"]}}))
    mine = api.view(state, "alice")["players"]["alice"]
    assert mine["area"] == ["Nether Enemy (Craft 8)", "Nether Enemy (Strength 6)"]
    theirs = api.view(state, "bob")["players"]["alice"]
    assert theirs["area"] == [] and theirs["area_facedown"] == 2
    assert not any(n in texts(state, "bob") for n in NETHER_NAMES)
    assert api.summary(state)["lost-realms"]["hunt"] == {"alice": 2, "bob": 0}


def test_pandoras_pile_is_a_count_and_the_six_taken_are_told_to_their_holder_only():
    data = game("pandoras-box", players=HEROES, setup={"alice": {"space": "valley-of-fire", "objects": ["talisman"]}})
    state = scenario.build(data)
    state, events = api.apply(state, api.Move("alice", "crown"))
    assert api.summary(state)["lost-realms"]["pandora"] == {"holder": "alice", "pile": 18}  # 6 + 6 for each other
    private = [e for e in events if e.kind == "pandora-hand"]
    assert private and private[0].to == ["alice"]
    assert all(e.kind != "pandora-hand" for e in api.filter_events(events, "bob"))
    # three characters: the holder chooses a target, or keeps the card for later this turn
    assert [o.key for o in state.prompt.options] == ["on-bob", "on-carol", "later"]
    assert api.view(state, "bob")["prompt"][0]["options"] == []  # bob sees only whom the game waits for


def test_a_hidden_pandoras_box_is_shown_once_the_crown_is_reached():
    data = {"game": {"packs": ["lost-realms"], "seed": "t", "players": HEROES[:2],
                     "options": {"alternative_ending": "hidden"}},
            "setup": {"alice": {"space": "valley-of-fire", "objects": ["talisman"]}}}
    state = scenario.build(data)
    assert all("Pandora" not in texts(state, w) and "pandoras-box" not in texts(state, w)
               for w in ("alice", "bob", None))
    state, _ = api.apply(state, api.Move("alice", "crown"))
    assert api.summary(state)["lost-realms"]["ending"] == "pandoras-box"


# -- config ----------------------------------------------------------------------------------

@pytest.mark.parametrize("cfg,why", [
    ({"options": {"alternative_ending": "eternal-crown"}}, "needs the cataclysm pack"),
    ({"ending": "the-eternal-crown"}, "unknown ending"),
    ({"ending": "pandoras-box", "packs": []}, "need the cataclysm pack or the lost-realms pack"),
    ({"options": {"hunt_crown": "sometimes"}}, "hunt_crown: one of open, four"),
    ({"options": {"hunt_crown": "four"}, "packs": ["cataclysm"]}, "with the lost-realms pack"),
    ({"edition": "fifth"}, "expansion for revised4"),
])
def test_config_checks(cfg, why):
    with pytest.raises(ConfigError) as err:
        api.new_game({"packs": ["lost-realms"], "players": HEROES[:2], **cfg}, "t")
    assert why in str(err.value)


def test_the_cataclysms_endings_and_the_lost_realms_endings_share_one_deck():
    content = load("revised4", ("cataclysm", "lost-realms"))
    assert {"the-eternal-crown", "pandoras-box", "the-gauntlet", "the-hunt"} <= set(content.decks["ending"])
    seen = {api.new_game({"packs": ["cataclysm", "lost-realms"], "players": HEROES[:1],
                          "options": {"alternative_ending": "revealed"}}, f"mix-{i}").piles["ending"][0]
            for i in range(40)}
    assert ({"pandoras-box", "the-gauntlet", "the-hunt"} <= seen
            and seen & {"cult-of-the-damned", "alternative-ending-a"})
    assert "the-eternal-crown" not in seen


# -- Pandora's Box ---------------------------------------------------------------------------

def sealed(players=HEROES[:2], **extra):
    """Alice has opened Pandora's Box; the game waits on the use of her first card."""
    data = game("pandoras-box", players=players, setup={"alice": {"space": "valley-of-fire", "objects": ["talisman"]},
                                                        **extra.pop("setup", {})}, **extra)
    state = scenario.build(data)
    state, _ = api.apply(state, api.Move("alice", "crown"))
    return state


def test_nobody_heals_or_gains_life_once_pandoras_box_is_open():
    state = sealed(setup={"bob": {"life": 3, "gold": 5}})
    ctx = api.context(state)
    for o in ({"op": "heal", "n": "full"}, {"op": "gain", "what": "life", "n": 2}, {"op": "pay-heal", "price": 1}):
        state.prompt, state.stack = None, []
        OPS[o["op"]](ctx, 1, o, {})
        run(ctx)
        assert state.players[1].life == 3 and state.prompt is None  # no healer is even offered
    from engine.rules.machine import ANSWERS
    from engine.state import Prompt
    healing = Prompt(0, ["alice"], "spell-healing", "", [])
    ANSWERS["spell-healing"](ctx, healing, "bob", None, "alice")  # the Healing Spell cast on bob
    assert state.players[1].life == 3


def test_the_holders_death_ends_the_game_for_the_survivors():
    state = sealed(players=HEROES)
    from engine.rules.turn import kill
    ctx = api.context(state)
    kill(ctx, 0)
    assert state.over and state.winners == ["bob", "carol"]
    assert "nether@crown-of-command" not in state.piles and not violations(state)


# -- The Hunt --------------------------------------------------------------------------------

def test_a_traded_nether_trophy_goes_facedown_into_the_play_area_and_a_dead_characters_are_lost():
    state = scenario.build(game("the-hunt",
                                setup={"alice": {"miss": 1, "trophies": ["nether-enemy-strength-8", "ogre"]}}))
    alice = state.players[0]
    assert alice.area == ["nether-enemy-strength-8"] and "nether-enemy-strength-8" not in state.discards["nether"]
    assert alice.trophies == ["ogre"] and alice.strength == 4  # Strength 8 + 5: one counter; the Ogre stays
    from engine.rules.turn import kill
    kill(api.context(state), 0)
    assert state.players[0].area == [] and state.discards["nether"] == ["nether-enemy-strength-8"]
    assert not violations(state)


def test_without_the_hunt_a_traded_nether_trophy_is_discarded():
    state = scenario.build(game("the-gauntlet", setup={"alice": {"miss": 1, "trophies": ["nether-enemy-strength-8"]}}))
    assert state.players[0].area == [] and state.discards["nether"] == ["nether-enemy-strength-8"]


# -- coverage, and random games near the Crown -----------------------------------------------

def test_coverage_lists_every_lost_realms_card():
    rows = {r["slug"]: r for r in coverage.report("lost-realms")}
    for ending in ("pandoras-box", "the-gauntlet", "the-hunt"):
        assert rows[ending]["automated"] and rows[ending]["confirmed"]
    assert not rows["nether-encounter"]["automated"] and not rows["nether-encounter"]["confirmed"]
    assert rows["nether-enemy-strength-6"]["automated"] and not rows["nether-enemy-strength-6"]["confirmed"]
    nether = load("revised4", ("lost-realms",)).decks["nether"]
    assert sum(nether.count(s) for s in rows if s.startswith("nether-")) == 36


def near_the_crown(ending: str, n: int, seed: int, packs=("lost-realms",)) -> dict:
    """Every character strong, with a Talisman, spread over the Inner Region (and the Portal)."""
    spots = ["valley-of-fire", "plain-of-peril", "portal-of-power", "pits", "crypt", "valley-of-fire"]
    chars = ["troll", "warrior", "wizard", "dwarf", "priest", "elf"]
    players = [{"name": f"p{i}", "character": chars[i]} for i in range(n)]
    # the scenario takes Talismans from the Adventure deck
    setup = {f"p{i}": {"space": spots[(i + seed) % len(spots)], "strength": 8, "craft": 8, "life": 6,
                       "objects": ["talisman"] if i < 2 else []} for i in range(n)}
    return {"game": {"packs": list(packs), "seed": f"near-{seed}", "ending": ending, "players": players,
                     "options": {"turn_cap": 60}}, "setup": setup}


@pytest.mark.parametrize("ending", ["pandoras-box", "the-gauntlet", "the-hunt"])
@pytest.mark.parametrize("packs", [("lost-realms",), ("cataclysm", "lost-realms")])
def test_random_games_near_the_crown_keep_the_invariants_and_end(ending, packs):
    ended = 0
    for seed in range(8):
        state = scenario.build(near_the_crown(ending, 2 + seed % 4, seed, packs))
        rnd = random.Random(seed)
        for _ in range(6000):
            if state.over:
                break
            state, _ = api.apply(state, choose(state, rnd))
            bad = violations(state)
            assert not bad, bad
        ended += state.over
    assert ended >= 6


def test_the_pandora_holders_death_is_decided_after_the_effect_that_killed_them():
    """lost-realms.txt Pandora's Box: the holder killed, the surviving characters share the
    victory; when one effect kills the holder and another character, only those alive after
    it survive (issue 13: simultaneous deaths)."""
    state = scenario.build(game("pandoras-box", players=HEROES,
                                setup={"alice": {"space": "crown-of-command", "life": 1}, "bob": {"life": 1}}))
    ctx = api.context(state)
    state.crown_reached = True
    state.counters["pandora-holder"] = 1  # alice holds the Box
    state.prompt, state.stack = None, []
    OPS["lose"](ctx, 0, {"op": "lose", "what": "life", "who": "all"}, {})
    assert state.over and state.winners == ["carol"]
    assert not violations(state)


def test_the_gauntlet_report_counts_facedown_cards_and_names_no_faceup_when_none():
    """Issue 31: each Inner space's Nether cards in words; ", ... faceup" only where some are."""
    from engine.packs.lost_realms import LostRealms
    state = scenario.build(game("the-gauntlet"))
    line = next(x for x in (m.english() for m in LostRealms().public_text(api.context(state)))
                if x.startswith("The Gauntlet: "))
    assert "Mines 1 facedown;" in line and "faceup" not in line

"""The Sea Voyage pack beyond what scenario files show: the order monsters are met in, hidden
information in views, the moderator's words, death in prison, the Cataclysm's Terrain on the
harbour, config checks, the coverage report, and random games begun at sea."""
import json
import random

import pytest

from engine import api, coverage, scenario
from engine.config import ConfigError
from engine.invariants import all_cards, expected_cards, violations
from engine.packs import sea_voyage
from engine.rules.machine import run
from pbem.bot import choose

ALICE_AT_SEA = {"fate": 0, "spells": [], "voyage": {"phase": "out", "ship": "kogge", "rations": 5, "cargo": 2}}


def game(packs=("sea-voyage",), **extra):
    data = {"game": {"packs": list(packs), "seed": "t", "players": [{"name": "alice", "character": "elf"},
                                                                     {"name": "bob", "character": "troll"}]}}
    data.update(extra)
    return scenario.build(data)


def test_monsters_are_met_first_when_several_cards_are_drawn():
    state = game(setup={"alice": ALICE_AT_SEA})
    ctx = api.context(state)
    state.prompt, state.stack = None, []
    for card in ("clear-skies", "sea-demons"):
        state.decks["captain"].remove(card)
    state.piles["captain"] = ["clear-skies", "sea-demons"]
    sea_voyage.resolve_cards(ctx, 0, ["clear-skies", "sea-demons"])
    run(ctx)
    assert state.prompt.players == ["moderator"] and "Sea-Demons" in state.prompt.question
    assert not any("Clear Skies" in e.text for e in ctx.events)
    state, events = api.apply(state, api.Move("moderator", "skip"))
    assert any("Clear Skies: nothing happens" in e.text for e in events)
    content = api.context(state).content
    assert state.piles.get("captain") is None and all_cards(state, content) == expected_cards(content)


def test_the_captains_deck_is_hidden_and_voyages_are_public():
    state = game(setup={"alice": ALICE_AT_SEA})
    order = state.decks["captain"]
    for who in ("alice", "bob", None):
        view = api.view(state, who)
        assert view["decks"]["captain"] == len(order)
        assert view["sea-voyage"]["at_sea"]["alice"]["ship"] == "kogge"
        assert view["players"]["alice"]["space"] is None
        text = json.dumps(view)
        assert json.dumps(order) not in text and json.dumps(order[-3:]) not in text
    assert api.summary(state)["sea-voyage"]["at_sea"]["alice"]["rations"] == 5


def test_a_state_at_sea_encodes_and_decodes():
    state = game(setup={"alice": {**ALICE_AT_SEA, "voyage": {**ALICE_AT_SEA["voyage"], "prisoners": 1, "attacks": 1}}})
    again = api.decode(api.encode(state))
    assert api.encode(again) == api.encode(state) and again.players[0].flags["sea"] == "out"


def test_moderator_words_are_checked():
    state = game(setup={"alice": ALICE_AT_SEA})
    for text, why in (("alice rations many", "takes a number"), ("bob shipwreck 1", "not aboard"),
                      ("alice sea-follower dragon", "not set aside")):
        with pytest.raises(api.IllegalMove, match=why):
            api.apply(state, api.Move("moderator", "adjudicate", arg=text))
    state, _ = api.apply(state, api.Move("moderator", "adjudicate", arg="alice shipwreck duel"))
    alice = state.players[0]
    assert alice.flags["sea"] == "wreck" and alice.flags["sea-fed"] == 1 and alice.objects == ["sea-raft"]
    assert not violations(state)


def test_dying_in_prison_leaves_the_belongings_at_the_harbour():
    state = game(setup={"alice": {"objects": ["sword"], "gold": 2, "voyage": {"phase": "prison", "prison": 3}}})
    ctx = api.context(state)
    from engine.rules.turn import kill
    kill(ctx, 0)
    assert "sword" in state.spaces["city"] and state.space_gold["city"] == 2
    assert None not in state.spaces and not violations(state)


def test_terrain_on_the_city_covers_the_harbour():
    data = {"dice": [1], "moves": ["alice: right"],
            "game": {"packs": ["cataclysm", "sea-voyage"], "seed": "t",
                     "players": [{"name": "alice", "character": "troll"}]},
            "setup": {"alice": {"space": "fields-3", "gold": 9, "fate": 0}}}
    state, _ = scenario.run(data)
    assert "harbour" in [o.key for o in state.prompt.options]
    state, _ = scenario.run({**data, "piles": {"terrain@city": ["monastery"]}})
    assert state.prompt is None or "harbour" not in [o.key for o in state.prompt.options]


def test_config():
    api.game_config({"packs": ["cataclysm", "sea-voyage"], "players": [{"name": "a"}]})
    with pytest.raises(ConfigError, match="played alone"):
        api.game_config({"edition": "fifth", "packs": ["nemesis", "sea-voyage"], "players": [{"name": "a"}]})


def test_coverage_lists_the_placeholders():
    rows = coverage.report("sea-voyage")
    assert {r["slug"] for r in rows if not r["automated"]} == {"hurricane", "wizards-isle", "amazons", "sea-demons"}
    assert all(not r["confirmed"] for r in rows)


@pytest.mark.parametrize("packs", [["sea-voyage"], ["cataclysm", "sea-voyage"], ["sea-voyage", "timescape"]])
def test_random_games_begun_at_sea_keep_the_invariants_and_replay(packs):
    """Every seat starts at sea, on the way home, adrift or in prison: the bots meet every table."""
    phases = [{"phase": "out", "ship": "kogge", "rations": 1, "cargo": 2},
              {"phase": "home", "home": 2, "ship": "karavelle", "rations": 0, "cargo": 1},
              {"phase": "wreck", "home": 3}, {"phase": "out", "ship": "galeone", "rations": 0, "cargo": 3},
              {"phase": "prison", "prison": 2}]
    chars = ["assassin", "troll", "elf", "thief", "wizard"]
    for seed in range(8):
        n = 2 + seed % 4
        data = {"game": {"packs": packs, "seed": f"sea{seed}", "options": {"turn_cap": 25},
                         "players": [{"name": f"p{i}", "character": chars[i]} for i in range(n)]},
                "setup": {f"p{i}": {"gold": 3 + i, "voyage": phases[(i + seed) % len(phases)]} for i in range(n)}}
        state = scenario.build(data)
        start = api.encode(state)
        rnd, moves = random.Random(seed), []
        while not state.over and len(moves) < 20000:
            move = choose(state, rnd)
            state, _ = api.apply(state, move)
            moves.append(move)
            assert not violations(state), (seed, len(moves), violations(state))
        assert state.over
        assert api.encode(api.replay(api.decode(start), moves)) == api.encode(state)


def test_landing_counts_from_the_city_toward_the_chapel():
    for packs in (("sea-voyage",), ("cataclysm", "sea-voyage")):
        ctx = api.context(game(packs))
        assert [sea_voyage.landing_space(ctx, r) for r in range(1, 7)] == \
            ["city", "woods-2", "plains", "crags", "fields-2", "chapel"]


def test_the_pirate_character_adds_one_to_the_ship(monkeypatch):
    state = game(setup={"alice": ALICE_AT_SEA, "bob": {"voyage": {"phase": "out", "ship": "kogge", "rations": 1}}})
    ctx = api.context(state)
    assert sea_voyage.ship_strength(ctx, 1) == 1 + 1  # the troll's Strength 6: +1
    monkeypatch.setitem(sea_voyage.settings(), "pirate_characters", ["troll"])
    assert sea_voyage.ship_strength(ctx, 1) == 1 + 1 + 1


def test_the_report_says_each_voyage_in_words():
    """Issue 31: the prison's turns left, and which way a ship sails (home, with its turns)."""
    state = game(setup={"alice": {"voyage": {"phase": "prison", "prison": 3}},
                        "bob": {"voyage": {"phase": "home", "ship": "kogge", "rations": 3, "cargo": 1, "home": 2}}})
    lines = [line.english() for line in sea_voyage.SeaVoyage().public_text(api.context(state))]
    assert "alice sits in prison, 2 turn(s) to go." in lines
    assert any(line.startswith("bob sails home on the Kogge") and "2 turn(s) from home" in line for line in lines)

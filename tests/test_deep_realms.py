"""The Deep Realms (lost-realms.txt, "The Deep Realms"; engine/packs/deep_realms*.py): what the
scenarios (tests/scenarios/deep-realms-*.toml, one or more per paragraph) do not say: the pack's
declaration and content, the hidden Tunnel stack in views and previews, the places a Realm space
refuses (Terrain, a Hex), the stack's end when its owner dies, and random play from inside."""
import random

import pytest

from engine import api, scenario
from engine.config import ConfigError
from engine.content import load
from engine.invariants import violations
from engine.ops import OPS
from engine.rules import boardcards, stats
from pbem.bot import choose

DEEP = ["city", "dungeon", "deep-realms"]
REALM_SPACES = {"rat-lair": ["rat-run", "old-sewers", "rats-nest"],
                "wraith-domain": ["skull-passage", "catacombs", "throne-room"]}
KNOWN_BRIDGE = ["Turncoat", "Sneakthief", "The Geminax", "Falling Slab", "Akbar's Revenge", "Jinx", "Broken Sword"]


def game(setup=None, decks=None, packs=DEEP, players=("troll", "warrior"), dice=()):
    names = ["alice", "bob", "carol"][:len(players)]
    return scenario.build({"game": {"packs": packs, "seed": "s",
                                    "players": [{"name": n, "character": c} for n, c in zip(names, players)]},
                           "setup": setup or {}, "decks": decks or {}, "dice": list(dice)})


def test_the_pack_needs_the_city_and_the_dungeon():
    players = [{"name": "alice"}, {"name": "bob"}]
    for missing in ("city", "dungeon"):
        with pytest.raises(ConfigError, match=f"needs the {missing} pack"):
            api.game_config({"packs": [p for p in DEEP if p != missing], "players": players})
    assert api.game_config({"packs": DEEP, "players": players}).packs == DEEP


def test_each_realm_is_a_ring_and_so_a_region_of_its_own():
    content = load("revised4", tuple(DEEP))
    for ring, spaces in REALM_SPACES.items():
        assert content.board.rings[ring] == spaces
    state = game({"alice": {"space": "rats-nest"}})
    ctx = api.context(state)
    assert stats.region(ctx, "rats-nest") == "rat-lair" != stats.region(ctx, "skull-passage")


def test_the_decks_are_stand_ins_with_the_seven_known_bridge_cards():
    content = load("revised4", tuple(DEEP))
    bridge = {content.cards[c].name for c in content.decks["bridge"]}
    assert set(KNOWN_BRIDGE) <= bridge and len(content.decks["bridge"]) == 15
    assert len(content.decks["tunnel"]) == 16
    for deck in ("bridge", "tunnel"):
        assert all(not content.cards[c].confirmed for c in content.decks[deck]), deck
        assert deck in content.shuffled and deck in content.adventure_decks  # Adventure cards once placed
    tunnel = [content.cards[c] for c in content.decks["tunnel"]]
    assert any(c.prop("talisman") for c in tunnel) and any(c.prop("trap") for c in tunnel)


def test_the_loot_piles_are_random_cards_of_their_decks():
    content = load("revised4", tuple(DEEP))
    piles = {}
    for seed in ("a", "b", "c"):
        state = api.new_game({"packs": DEEP, "players": [{"name": "alice"}, {"name": "bob"}]}, seed)
        throne, nest = state.spaces["throne-room"], state.spaces["rats-nest"]
        assert len(throne) == 3 and all(content.cards[c].deck == "treasure" for c in throne)
        assert sorted(content.cards[c].deck for c in nest) == ["armoury", "armoury", "magic-emporium", "magic-emporium"]
        piles[seed] = (tuple(throne), tuple(nest))
    assert len(set(piles.values())) > 1  # random, not the decks' first cards


def test_entry_is_offered_only_where_a_realm_joins():
    realm = [f"enter-{s}" for spaces in REALM_SPACES.values() for s in spaces]
    for space, offered in (("sewer-grate", ["enter-rat-run", "enter-old-sewers"]),
                           ("crypt-stair", ["enter-skull-passage", "enter-catacombs"]), ("rats-road", []),
                           ("hall-of-darkness", []), ("chapel", [])):
        state = game({"alice": {"space": space, "fate": 0}})
        assert [o.key for o in api.prompts(state)[0].options if o.key in realm] == offered, space


def stack_names(state, name):
    content = load(state.edition, tuple(state.packs))
    return [content.cards[c].name for c in state.decks[f"tunnel-stack-{name}"]]


def test_nobody_sees_the_facedown_stack_its_owner_included():
    state = game({"alice": {"space": "old-sewers", "fate": 0, "tunnel_stack": ["tunnel-talisman", "spiked-snare"]}})
    hidden = stack_names(state, "alice")
    for reader in ("alice", "bob", None):
        view = api.view(state, reader) if reader else api.summary(state)
        text = repr(view)
        assert not [n for n in hidden if n in text], reader
    assert api.view(state, "alice")["decks"]["tunnel-stack-alice"] == 2
    assert api.summary(state)["deep-realms"]["stacks"] == {"alice": {"cards": 2, "faceup": []}}


def test_the_preview_of_pressing_on_does_not_turn_the_card():
    """engine/preview.py plays an answer up to the first thing nobody may know: the top card of a
    stack is one (its deck's size changes), so the preview stops before it."""
    state = game({"alice": {"space": "old-sewers", "fate": 0, "tunnel_stack": ["tunnel-talisman", "spiked-snare"]}})
    outcome = api.preview(state, "alice")
    assert outcome["press-on"]["stop"] == "unknown"
    assert "Talisman" not in repr(outcome) and "Spiked Snare" not in repr(outcome)


def test_turning_the_card_shows_it_to_everyone():
    state = game({"alice": {"space": "old-sewers", "fate": 0, "tunnel_stack": ["sewer-purse", "spiked-snare"]}})
    state, events = api.apply(state, api.parse_move("alice: press-on"))
    for reader in ("alice", "bob"):
        assert any("Sewer Purse" in e.text for e in api.filter_events(events, reader))
        assert not any("Spiked Snare" in e.text for e in api.filter_events(events, reader))


def test_a_dead_characters_stack_is_discarded():
    state = game({"alice": {"space": "old-sewers", "fate": 0, "life": 1,
                            "tunnel_stack": ["spiked-snare", "giant-rat", "lost-soul"]}}, dice=[1, 6])
    state, _ = api.apply(state, api.parse_move("alice: press-on"))  # the Snare (Strength 4) kills her
    assert not state.players[0].alive
    assert "tunnel-stack-alice" not in state.decks and not violations(state)
    assert len(state.decks["tunnel"]) == 16  # the Snare and the two facedown cards are back in the deck


def test_a_stack_left_behind_by_a_teleport_is_discarded_at_the_turn_end():
    state = game({"alice": {"space": "old-sewers", "fate": 0, "tunnel_stack": ["giant-rat", "lost-soul"]}})
    ctx = api.context(state)
    ctx.player(0).space = "chapel"  # as a card's teleport would
    from engine.packs import deep_realms_spaces
    deep_realms_spaces.tidy(ctx)
    assert "tunnel-stack-alice" not in state.decks and len(state.decks["tunnel"]) == 16


def test_escaping_past_the_dungeon_entrance_leads_out_to_the_ruins(monkeypatch):
    """The stand-in Crypt Stair lies too deep for a die to carry anyone past the Entrance: with the
    Realm joined to the Dungeon's second space instead, a 3 does, and the Ruins are met as such."""
    from engine.packs.deep_realms_state import tables
    monkeypatch.setitem(tables()["escape"], "wraith-domain", {**tables()["escape"]["wraith-domain"],
                                                              "space": "passage"})
    state = game({"alice": {"space": "skull-passage", "fate": 0}}, dice=[3])
    state, events = api.apply(state, api.parse_move("alice: escape"))
    assert state.players[0].space == "ruins"
    assert any("moves on to Ruins" in e.text for e in events)
    assert not any(e.kind == "dungeon-enter" for e in events) and (state.prompt is None
                                                                   or state.prompt.kind != "dungeon-enter")


def test_terrain_is_never_placed_on_a_realm_space():
    state = game({"alice": {"space": "rat-run", "fate": 0}}, packs=["cataclysm", *DEEP])
    ctx = api.context(state)
    kind = state.decks["terrain"][0]
    for space in [s for spaces in REALM_SPACES.values() for s in spaces]:
        o = {"op": "terrain", "type": kind, "space": space}
        assert not boardcards.terrain_useful(ctx, 0, o)
        OPS["terrain"](ctx, 0, o, {})
        assert f"terrain@{space}" not in state.piles and state.prompt is None or state.prompt.kind != "terrain-move"


def test_a_trap_is_fought_where_another_enemy_could_be_evaded():
    """The control of deep-realms-trap.toml: the same Wizard with Invisibility is offered it against
    the Bridge Troll, not a Trap."""
    state = game({"alice": {"space": "skull-passage", "fate": 0, "spells": ["invisibility"]}},
                 decks={"bridge": ["bridge-troll", "guiding-light"]}, players=("wizard", "warrior"))
    state, _ = api.apply(state, api.parse_move("alice: press-on"))
    assert "cast-invisibility" in [o.key for o in api.prompts(state)[0].options]


def test_the_rulers_cannot_be_evaded():
    state = game({"alice": {"space": "old-sewers", "fate": 0, "spells": ["invisibility"]}},
                 players=("wizard", "warrior"), dice=[6, 1])
    state, events = api.apply(state, api.parse_move("alice: press-on"))
    assert any("the Rat Queen rolls 1" in e.text for e in events)  # no question: fight was the only answer


def test_the_invariants_catch_a_stack_gone_wrong():
    state = game({"alice": {"space": "old-sewers", "tunnel_stack": ["giant-rat"]}})
    assert not violations(state)
    state.players[0].flags["dr-faceup"] = 2
    assert "alice: more faceup cards than the stack holds" in violations(state)
    state.players[0].alive = False
    assert "tunnel-stack-alice: a stack without a living owner" in violations(state)


def test_the_invariants_catch_a_stack_of_other_cards_or_too_many():
    """Either fault alone is a violation: a card from another deck, or more cards than dealt."""
    state = game({"alice": {"space": "old-sewers", "tunnel_stack": ["giant-rat"]}})
    state.decks["tunnel-stack-alice"] = ["sword"]
    assert any("not a stack of at most" in v for v in violations(state))
    state.decks["tunnel-stack-alice"] = ["giant-rat"] * 9
    assert any("not a stack of at most" in v for v in violations(state))


def test_the_report_says_a_looted_lair_holds_nothing():
    """Issue 31: each ruler's lair and its loot in words; emptied, it says so."""
    from engine.packs.deep_realms import public_text
    state = game()
    state.spaces["rats-nest"] = []
    lines = [line.english() for line in public_text(state, load("revised4", tuple(state.packs)))]
    assert "On Rat's Nest: nothing." in lines
    assert any(line.startswith("On Throne Room: Onyx Circlet") for line in lines)


def test_a_tunnel_stack_in_a_scenario_takes_only_tunnel_cards():
    with pytest.raises(ConfigError, match="not in the Tunnel deck"):
        game({"alice": {"space": "old-sewers", "tunnel_stack": ["sword"]}})


def test_random_play_from_inside_the_realms_keeps_the_invariants():
    """Random bots seldom reach the rulers from the main board: these games start with characters
    on every kind of Realm space (the rulers' piles, the bridge, a stack) and play 300 moves each."""
    spaces = ["rats-nest", "throne-room", "old-sewers", "skull-passage", "catacombs", "rat-run"]
    seen: set[str] = set()
    for seed in range(6):
        setup = {n: {"space": spaces[(seed + k) % len(spaces)]} for k, n in enumerate(["alice", "bob", "carol"])}
        state = game(setup, players=("troll", "wizard", "warrior"))
        rnd = random.Random(seed)
        for _ in range(300):
            if state.over:
                break
            state, events = api.apply(state, choose(state, rnd))
            seen.update(e.text for e in events if e.kind == "lose-fight")
            assert not violations(state), violations(state)
    # the rulers were fought and won (their wins are scenarios': Strength 7 and Craft 7 seldom fall)
    assert any(t.startswith("the Rat Queen beats") for t in seen) and any(
        t.startswith("the Wraith Lord beats") for t in seen)

"""The Cataclysm pack beyond what scenario files show: ops no card data uses yet, hidden
information in views, config checks and the coverage report."""
import json

import pytest

from engine import api, coverage, scenario
from engine.config import ConfigError
from engine.content import load
from engine.invariants import violations
from engine.ops import OPS
from engine.rules.machine import run

GAME = {"packs": ["cataclysm"], "seed": "t",
        "players": [{"name": "alice", "character": "thief"}, {"name": "bob", "character": "troll"}]}


def position(**extra):
    state = scenario.build({"game": GAME, **extra})
    return state, api.context(state)


def do(state, ctx, o, i=0):
    """Run one op for player i, alone, to its next question."""
    state.prompt, state.stack = None, []
    OPS[o["op"]](ctx, i, o, {})
    run(ctx)


def test_visit_a_named_denizen_anywhere():
    state, ctx = position(setup={"alice": {"life": 2, "gold": 5, "space": "fields"}},
                          piles={"denizen@chapel": ["doctor"]})
    do(state, ctx, {"op": "visit", "name": "Doctor"})
    assert [o.key for o in state.prompt.options] == ["heal-2", "heal-1", "none"]
    state, _ = api.apply(state, api.Move("alice", "heal-2"))
    assert state.players[0].life == 4
    assert state.piles["denizen@chapel"] == []  # its trait (City) is not the visitor's space


def test_roll_as_another_space_visits_a_denizen_there_or_nothing():
    state, ctx = position(setup={"alice": {"life": 2, "gold": 5}}, piles={"denizen@city": ["doctor", "enchantress"]})
    do(state, ctx, {"op": "visit", "space": "city"})
    assert [o.key for o in state.prompt.options] == ["doctor", "enchantress"]
    state, ctx = position(piles={"terrain@city": ["monastery"], "denizen@city": ["doctor"]})
    do(state, ctx, {"op": "visit", "space": "city"})  # covered by Terrain: ignored
    assert state.prompt is None


def test_removing_terrain_discards_the_denizens_and_returns_the_card():
    state, ctx = position(setup={"alice": {"space": "fields"}},
                          piles={"terrain@fields": ["settlement"], "denizen@fields": ["doctor"]})
    do(state, ctx, {"op": "remove-terrain"})
    assert "terrain@fields" not in state.piles and "denizen@fields" not in state.piles
    assert state.discards["denizen"] == ["doctor"] and "settlement" in state.decks["terrain"]
    assert not violations(api.new_game(GAME, "t")) and api.summary(state)["cataclysm"]["terrain"] == {}


def test_terrain_in_the_inner_region_is_ignored():
    state, ctx = position(setup={"alice": {"space": "plain-of-peril"}})
    do(state, ctx, {"op": "terrain", "type": "settlement"})
    assert not any(k.startswith("terrain@") for k in state.piles)


def test_facedown_remnants_and_a_hidden_ending_are_hidden_in_every_view():
    state = api.new_game({**GAME, "ending": "cult-of-the-damned", "options": {"alternative_ending": "hidden"}}, "t")
    names = {load("revised4", ("cataclysm",)).cards[c].name for c in state.piles["remnant@ruins"]}
    for who in ("alice", "bob", None):
        text = json.dumps(api.view(state, who)) + json.dumps(api.summary(state))
        assert "cult-of-the-damned" not in text and "Cult of the Damned" not in text
        assert not any(n in text for n in names)
        assert api.view(state, who)["cataclysm"]["remnants"]["ruins"] == 2


def test_talisman_cards_go_to_their_own_discard_pile_and_come_back():
    state, ctx = position()
    state.decks["talisman"], state.discards["talisman"] = [], ["talisman-card"]
    do(state, ctx, {"op": "talisman"})
    assert state.players[0].objects == ["talisman-card"] and state.discards["talisman"] == []
    from engine.rules.items import discard
    discard(ctx, "talisman-card")
    assert state.discards["talisman"] == ["talisman-card"]


@pytest.mark.parametrize("game,why", [
    ({"ending": "the-eternal-crown", "packs": []}, "need the cataclysm pack"),
    ({"options": {"alternative_ending": "sideways"}}, "alternative_ending: one of"),
    ({"ending": "no-such-ending"}, "unknown ending"),
    ({"edition": "fifth"}, "expansion for revised4"),
])
def test_config_checks(game, why):
    with pytest.raises(ConfigError) as err:
        api.new_game({**GAME, **game}, "t")
    assert why in str(err.value)


def test_coverage_lists_every_cataclysm_card_and_space():
    content = load("revised4", ("cataclysm",))
    rows = coverage.report("cataclysm")
    slugs = {r["slug"] for r in rows}
    assert {c.slug for c in content.cards.values() if c.pack == "cataclysm"} <= slugs
    assert set(content.board.spaces) <= slugs
    manual = {r["slug"] for r in rows if not r["automated"]}
    assert {"cult-of-the-damned", "alternative-ending-a", "alternative-ending-b"} <= manual
    assert "the-eternal-crown" not in manual and "doctor" not in manual


@pytest.mark.parametrize("packs", [[], ["cataclysm"]])
def test_an_event_that_ends_the_turn_is_still_discarded(packs):
    """cataclysm.txt, Cards Remaining on Spaces (and the base rules): Events are discarded."""
    game = {"packs": packs, "seed": "s", "players": [{"name": "alice", "character": "warrior"}]}
    state, _ = scenario.run({"game": game, "dice": [1], "moves": ["alice: right"],
                             "setup": {"alice": {"space": "village"}}, "decks": {"adventure": ["storm"]}})
    assert state.players[0].space == "fields" and state.players[0].miss == 0
    assert state.spaces["fields"] == [] and state.discards["adventure"] == ["storm"]


def test_a_denizen_whose_text_ends_the_turn_is_still_discarded():
    state, _ = scenario.run({"game": GAME, "dice": [1, 2], "moves": ["alice: left", "alice: keep"],
                             "setup": {"alice": {"space": "fields-5"}}, "decks": {"denizen": ["ranger"]}})
    assert state.players[0].space == "tavern" and "tavern" not in api.summary(state)["cataclysm"]["denizens"]
    assert state.discards["denizen"] == ["ranger"]


def test_a_terrain_card_renames_its_space_in_every_view():
    state, _ = scenario.run({"game": GAME, "setup": {"alice": {"space": "fields", "spells": ["arcane-construction"]}},
                             "moves": ["alice: cast-arcane-construction"]})
    assert api.view(state, "bob")["space_names"]["fields"] == "Settlement"
    assert api.summary(state)["players"]["alice"]["space_name"] == "Settlement"
    assert api.summary(state)["board"]["outer"][1] == "fields"  # ids never change


def test_a_next_move_to_a_space_under_terrain_is_ignored():
    """cataclysm.txt Terrain Cards: an effect naming a space under a Terrain card is ignored on
    every path: a trip to the Temple decided earlier (the Boatman, the Tavern's 6) and the
    Temple covered since: the character moves as usual (issue 13)."""
    state, ctx = position(setup={"alice": {"space": "tavern", "fate": 0}, "bob": {"fate": 0}},
                          piles={"terrain@temple": ["settlement"]})
    assert state.prompt.players == ["alice"]
    state.prompt, state.stack = None, []
    alice = ctx.player(0)
    alice.flags["next-move"] = "temple"
    ctx.push("move", 0)
    run(ctx)
    assert alice.space == "tavern" and state.prompt.kind == "direction"
    assert any("Temple lies under a Terrain card: alice moves as usual." in e.text for e in ctx.events)


def test_a_teleport_choice_leaves_out_spaces_under_terrain():
    """A `teleport` that names its spaces offers none under a Terrain card (cataclysm.txt Terrain
    Cards); with one left it is taken without asking."""
    state, ctx = position(piles={"terrain@temple": ["settlement"]})
    do(state, ctx, {"op": "teleport", "choose": ["temple", "oasis"], "encounter": False})
    assert ctx.player(0).space == "oasis"


def test_no_terrain_in_the_inner_region_nor_on_the_crown():
    """cataclysm.txt, Terrain Cards: never in the Inner Region, and the Crown of Command (a ring of
    its own) is no place for one either; a Middle Region space is."""
    from engine.rules.boardcards import terrain_allowed
    content = load("revised4", ("cataclysm",))
    assert not terrain_allowed(content, "crown-of-command")
    assert not terrain_allowed(content, "plain-of-peril")
    assert terrain_allowed(content, "hills-3")


def test_the_report_names_each_terrain_and_the_denizens_on_the_board():
    """What a player wants of the Cataclysm's board, in words (issue 31): each Terrain and where,
    each space's Denizens."""
    from engine.packs.cataclysm import Cataclysm
    state = scenario.build({"game": GAME, "piles": {"terrain@fields": ["settlement"],
                                                    "denizen@village": ["blacksmith"]}})
    lines = [line.english() for line in Cataclysm().public_text(api.context(state))]
    assert "Terrain: Settlement on Fields." in lines
    assert any(line.startswith("Denizens: Blacksmith at Village") for line in lines)

"""The Timescape pack beyond what scenario files show: hidden information in views, the Mystic's
once-each rule, cards left by the dead, a Toad's turn, the board beside the main board, the
prison roll's fate question, cards abandoned at the start of a turn, the Enchantress Denizen,
and random games with the pack."""
import pytest

from engine import api, scenario
from engine.config import ConfigError
from engine.content import load
from engine.invariants import violations
from pbem.bot import playout

GAME = {"packs": ["timescape"], "seed": "t", "players": [{"name": "alice", "character": "troll"},
                                                         {"name": "bob", "character": "warrior"}]}


def test_the_board_lies_beside_the_main_board_whatever_the_pack_order():
    for packs in (("timescape",), ("timescape", "cataclysm"), ("cataclysm", "timescape")):
        rings = load("revised4", packs).board.rings
        assert list(rings) == ["outer", "middle", "inner", "crown", "timescape"]
        assert rings["timescape"][0] == "warp-gate" and len(rings["timescape"]) == 12
    assert load("revised4", ("cataclysm", "timescape")).board.spaces["village"].pack == "cataclysm"
    with pytest.raises(ConfigError):
        api.new_game({**GAME, "packs": ["timescape", "nemesis"], "edition": "fifth"}, "t")


def test_every_warp_line_leads_to_a_timescape_space_and_the_vortex_to_the_board():
    c = load("revised4", ("timescape",))
    ring = c.board.rings["timescape"]
    for sid in ring:
        warp = c.board.spaces[sid].hook_args["warp"]
        assert sorted(warp) == ["1-2", "3-4", "5-6"] and all(d in ring for d in warp.values())
    vortex = c.board.spaces["vortex"].hook_args["table"]
    assert all(d in c.board.spaces for d in vortex.values()) and vortex["6"] == "warp-gate"
    assert len(c.decks["timescape"]) == 40 and len(c.decks["timescape-purchase"]) == 12


def test_the_mystic_sends_a_character_once():
    state = scenario.build({"game": GAME, "dice": [1], "setup": {"alice": {"space": "fields", "fate": 0}}})
    state, _ = api.apply(state, api.Move("alice", "left"))
    assert "warp-mystic" in [o.key for o in state.prompt.options]
    state = scenario.build({"game": GAME, "dice": [1], "setup": {"alice": {"space": "fields", "fate": 0}}})
    state.players[0].flags["warp-sent-mystic"] = 1
    state, _ = api.apply(state, api.Move("alice", "left"))
    assert [o.key for o in state.prompt.options] == ["blacksmith", "healer", "mystic"]


def test_cards_left_by_a_character_killed_in_the_timescape_are_discarded():
    state = scenario.build({"game": GAME, "dice": [5, 3], "setup": {"alice": {
        "space": "warp-gate", "fate": 0, "life": 2, "objects": ["sword"], "followers": ["guide"], "gold": 3}}})
    # 5: the warp line to the Rad Zone; 3: Radiation Poisoning, 2 lives: alice dies there.
    p = state.players[0]
    assert not p.alive and state.spaces.get("rad-zone", []) == [] and not state.space_gold.get("rad-zone")
    assert "sword" in state.discards["adventure"] + state.decks["purchase"] and "guide" in state.discards["adventure"]
    assert not violations(state)


def test_a_toad_in_the_timescape_reverts_at_its_next_turn():
    state = scenario.build({"game": GAME, "dice": [1, 1], "setup": {
        "alice": {"space": "warp-gate", "fate": 0, "toad": 3, "objects": ["warp-belt"]}}})
    assert state.players[0].toad == 0 and [o.key for o in state.prompt.options] == ["roll", "warp-belt"]


def test_the_timescape_deck_stays_hidden_and_the_public_state_shows_who_is_there():
    state = scenario.build({"game": GAME, "setup": {"alice": {"space": "nexus", "fate": 0, "objects": ["warp-belt"]}}})
    names = {c.name for c in load("revised4", ("timescape",)).cards.values() if c.deck == "timescape"}
    for who in ("bob", "alice"):
        view = api.view(state, who)
        assert view["decks"]["timescape"] == 39 and view["timescape"]["characters"] == {"alice": "nexus"}
        text = repr({k: v for k, v in view.items() if k != "players"})
        assert not any(n in text for n in names - {"Warp Belt"})
    assert "seed" not in repr(api.summary(state)) and api.summary(state)["timescape"]["purchase"]["jet-pack"] == 2


@pytest.mark.parametrize("packs", [["timescape"], ["timescape", "cataclysm"]])
def test_random_games_with_the_timescape_keep_the_invariants(packs):
    for seed in range(6):
        config = {"packs": packs, "players": [{"name": f"p{i}"} for i in range(2 + seed % 4)],
                  "options": {"turn_cap": 50}}
        final, moves = playout(config, f"ts-{seed}", bot_seed=seed, check=True)
        assert final.over


def test_coverage_counts_the_space_hooks_the_pack_module_registers():
    """`pbem rules coverage` imports each pack's module first: the Vortex's hook is automated
    (in a process of its own, where no game has imported the pack yet)."""
    import json
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "pbem.cli", "rules", "coverage", "--pack", "timescape", "--json"],
                         capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    rows = {r["slug"]: r for r in (data if isinstance(data, list) else data["rows"])}
    assert rows["vortex"]["automated"] and rows["warp-demon"]["automated"] and rows["warp-belt"]["automated"]


def test_a_prisoner_is_asked_to_spend_fate_only_on_a_failed_roll():
    def prisoner(character):
        game = {**GAME, "players": [{"name": "alice", "character": character}, GAME["players"][1]]}
        return scenario.build({"game": game, "dice": [2, 3], "setup": {"alice": {
            "space": "sentinel-outpost", "imprisoned": 2, "fate": 2, "objects": ["warp-belt"]}}})
    state = prisoner("troll")  # Craft 1: 2+3 fails, the reroll is offered
    assert state.prompt.kind == "dice-reroll" and state.players[0].flags["ts-prison"] == 2
    state = prisoner("wizard")  # Craft 5: 2+3 escapes; no question, fate kept, on to the warp line
    assert state.prompt.kind == "ts-warp" and state.players[0].fate == 2 and "ts-prison" not in state.players[0].flags
    with pytest.raises(ConfigError):
        scenario.build({"game": GAME, "setup": {"alice": {"space": "fields", "imprisoned": 0}}})


def test_a_card_left_in_the_start_window_is_discarded_not_left_for_others():
    state = scenario.build({"game": GAME, "dice": [5, 1], "moves": [], "setup": {
        "alice": {"space": "warp-gate", "fate": 0, "followers": ["alchemist"], "objects": ["sword", "helmet"]},
        "bob": {"miss": 9}}})
    assert [o.key for o in state.prompt.options] == ["use-alchemist", "ditch", "done"]
    for key in ("ditch sword", "done"):
        state, _ = api.apply(state, api.parse_move(f"alice: {key}"))
    assert state.players[0].space == "rad-zone" and state.players[0].objects == ["helmet"]
    assert "sword" in state.discards["adventure"] and not state.spaces.get("warp-gate")
    assert not violations(state)


def test_a_choice_made_visiting_the_enchantress_denizen_is_offered_the_warp_gate():
    """The pack's half of the Enchantress Denizen gap (docs/rules-decisions.md, Timescape): a
    choice met while visiting the Denizen named Enchantress (start_visit passes its name as
    `source`) gets the Warp Gate beside it. The Cataclysm's placeholder Enchantress is a bare
    roll, not a choice, so in play this is not reached until its data is one."""
    from engine.packs import timescape
    state = scenario.build({"game": {**GAME, "packs": ["cataclysm", "timescape"]},
                            "setup": {"alice": {"space": "city", "fate": 0}}})
    choice = {"op": "choose", "options": [{"key": "roll", "then": []}]}
    meta = {"source": "Enchantress", "card": "enchantress"}
    offered = timescape.PACK.choose_options(api.context(state), 0, choice, meta)
    assert [o["key"] for o in offered or []] == ["warp-enchantress"]
    state.players[0].flags["warp-sent-enchantress"] = 1  # the Enchantress sends a character once
    assert timescape.PACK.choose_options(api.context(state), 0, choice, meta) is None


def test_timescape_cards_on_a_space_are_met_in_the_printed_order():
    """timescape.txt §6: Hand of Fate, Strength Aliens, Craft Aliens, Objects, Followers, whatever
    order they lie in; a space with nothing on it has nothing to meet."""
    from engine.packs.timescape import order
    state = scenario.build({"game": GAME})
    state.spaces["warp-space"] = ["timescape-follower", "alien-craft-3", "timescape-object", "alien-strength-4",
                                  "hand-of-fate"]
    ctx = api.context(state)
    assert order(ctx, "warp-space", "timescape") == ["hand-of-fate", "alien-strength-4", "alien-craft-3",
                                                     "timescape-object", "timescape-follower"]
    assert order(ctx, "nexus", "timescape") == []

"""The City pack (issue 17): bots really go into the stand-in City, its shops, and come out
again; a game with the City plays to its end without a turn cap; the Wanted Posters are dealt;
other packs' movement options are offered before the City's roll; alignment posters pay."""
import pytest

from engine import api, content, registry, scenario
from engine.packs.base import Pack
from engine.rules import machine
from engine.state import Option
from pbem.bot import playout

TWO = {"packs": ["city"], "seed": "s",
       "players": [{"name": "alice", "character": "troll"}, {"name": "bob", "character": "warrior"}]}


def city_visits(config: dict, seed: str, bot_seed: int) -> tuple[set[str], bool]:
    """The City spaces any character stood on during a bot game, and whether the game ended."""
    ring = set(content.load("revised4", tuple(config["packs"])).board.rings["city"])
    final, moves = playout(config, seed, bot_seed=bot_seed)
    state, seen = api.new_game(config, seed), set()
    for move in moves:
        state, _ = api.apply(state, move)
        seen |= {p.space for p in state.players if p.space in ring}
    return seen, final.over


def test_bots_enter_the_city_and_its_shops_and_the_game_ends():
    config = {"packs": ["city"], "players": [{"name": f"p{i}"} for i in range(4)], "options": {"turn_cap": 60}}
    seen: set[str] = set()
    shops = {"armoury", "apothecary", "menagerie", "magic-emporium", "stables"}
    for seed in range(10):  # random bots: a few games each go in; one of them into a shop
        spaces, over = city_visits(config, f"city{seed}", seed)
        assert over
        seen |= spaces
        if seed >= 3 and seen & shops:
            break
    assert "city-gate" in seen and len(seen) >= 3, seen
    assert seen & shops, seen


def test_three_wanted_posters_lie_faceup_at_the_city_gate():
    state = api.new_game({"packs": ["city"], "players": [{"name": "a"}, {"name": "b"}]}, "posters")
    posters = api.summary(state)["city"]["posters"]
    assert len(posters) == 3
    assert all(content.load("revised4", ("city",)).cards[c].deck == "wanted-poster" for c in posters)


class Realm(Pack):
    """Stands for the Deep Realms: a way down offered only on the Sewer Grate."""
    name = "probe-realm"

    def move_options(self, ctx, i):
        return [Option("down", "climb down the grate")] if ctx.player(i).space == "sewer-grate" else None

    def move_choice(self, ctx, i, key):
        if key != "down":
            return None
        ctx.emit("probe", f"{ctx.name(i)} climbs down.")
        return True


REALM = (Realm(),)  # handed to the engine beside the City: no list of packs is changed


def realm_game(setup: dict):
    return scenario.build({"game": {**TWO, "packs": ["city", Realm.name]}, "setup": setup}, packs=REALM)


def run_task(state, task: str, dice: list[int], **args):
    """Run one of the engine's tasks for alice (player 0) on a scenario's state, dice forced."""
    state.stack.clear()
    state.prompt = None
    state.forced = list(dice)
    ctx = api.context(state, packs=REALM)
    ctx.push(task, 0, **args)
    machine.run(ctx)


def test_other_packs_move_options_are_asked_beside_the_roll():
    state = realm_game({"alice": {"space": "sewer-grate", "fate": 0}})
    run_task(state, "city-move", [])
    assert state.prompt.kind == "city-move"
    assert [o.key for o in state.prompt.options] == ["roll", "down"]
    state, events = api.apply(state, api.Move("alice", "down", state.prompt.id), packs=REALM)
    assert "alice climbs down." in [e.text for e in events]
    assert state.players[0].space == "sewer-grate"
    with pytest.raises(api.ConfigError, match="unknown pack 'probe-realm'"):  # not in the list: handed in each time
        api.apply(state, api.Move("alice", "roll"))
    assert Realm.name not in registry.declared()


def test_no_question_before_the_roll_where_no_pack_offers_anything():
    state = realm_game({"alice": {"space": "jail", "fate": 0}})
    run_task(state, "city-move", [1])
    assert state.players[0].space == "potion-lane"  # rolled and walked: no city-move question


def bounty_game(alignment: str):
    return scenario.build({"game": {**TWO},
                           "setup": {"alice": {"space": "town-square", "area": ["wanted-evil-characters"], "gold": 0},
                                     "bob": {"space": "town-square", "alignment": alignment}}})


@pytest.mark.parametrize("alignment,gold", [("evil", 5), ("good", 0)])
def test_an_alignment_poster_pays_a_die_of_gold_for_a_defeated_character_of_that_alignment(alignment, gold):
    state = bounty_game(alignment)
    state.forced = [5]
    ctx = api.context(state)
    registry.declared()["city"].duel_won(ctx, 0, 1)
    assert state.players[0].gold == gold
    assert (state.players[0].area == []) == (gold > 0)  # a paid poster is discarded


def test_an_alignment_poster_pays_after_a_real_duel():
    state = scenario.build({"game": {**TWO},
                            "setup": {"alice": {"space": "city", "area": ["wanted-evil-characters"], "gold": 0,
                                                "fate": 0},
                                      "bob": {"space": "city", "alignment": "evil", "fate": 0}}})
    # alice's die and the bounty's; bob immobile: no evading, no die
    run_task(state, "duel-roll", [6, 4], target=1, psychic=False, life_only=False, immobile=True)
    assert state.players[0].gold == 4


def test_the_city_invariants_catch_a_jailed_character_off_the_jail_and_a_fourth_poster():
    from engine.invariants import violations
    state = scenario.build({"game": {**TWO}, "setup": {"bob": {"space": "jail", "jailed": True}}})
    assert not violations(state)  # alice moves first: bob is still locked up
    state.players[1].space = "wharf"
    state.piles["wanted-poster@city-gate"].append(state.decks["wanted-poster"].pop())
    bad = violations(state)
    assert "bob: jailed off the Jail space" in bad
    assert "more than 3 Wanted Posters at the City Gate" in bad


def test_the_shop_and_poster_decks_hold_the_printed_counts():
    """city-and-dungeon.md, The City, Components: 12 Armoury, 12 Pet, 16 Magic Emporium, 16 Potion,
    8 Stables, 18 Wanted Poster cards (the cards themselves are stand-ins)."""
    decks = content.load("revised4", ("city",)).decks
    printed = {"armoury": 12, "pet": 12, "magic-emporium": 16, "potion": 16, "stables": 8, "wanted-poster": 18}
    assert {deck: len(decks[deck]) for deck in printed} == printed

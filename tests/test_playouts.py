"""Random playouts: seeded bots play whole games; invariants hold after every move and a
replay of the moves from the seed gives the identical final state (issue: engine core)."""
import random
from itertools import combinations

import pytest

from engine import api, registry, scenario
from engine.config import ConfigError
from engine.invariants import violations
from engine.packs.base import Pack
from pbem.bot import choose, playout


def game_config(packs: list[str], players: int, options: dict | None = None) -> dict:
    """A config for `players` seats; a Nemesis game seats the Nemesis first (a fifth-edition game)."""
    config = {"packs": packs, "players": [{"name": f"p{i}"} for i in range(players)], "options": options or {}}
    if "nemesis" in packs:
        config["edition"] = "fifth"
        config["players"][0]["role"] = "nemesis"
    return config


def pack_mixes(extra: tuple[Pack, ...] = (), sample: int = 4) -> list[list[str]]:
    """The mixes of packs the playouts play, read from the declarations (`extra`: packs handed
    in beside the listed ones): the base game; every pack alone; every pair; the mix of every
    pack that goes with the others; and `sample` more mixes of three or more, drawn with a fixed
    seed. Each with what it `requires` (the Deep Realms: the City and the Dungeon), in the order
    the packs are declared, and only mixes a config accepts (`sole`, `excludes`, editions). So one
    more pack adds its own games and its pairs', not a doubling of every subset."""
    declared = registry.declared(extra)
    order = list(declared)

    def closed(names) -> list[str]:
        want, todo = set(), list(names)
        while todo:
            n = todo.pop()
            if n not in want:
                want.add(n)
                todo += declared[n].requires
        return [n for n in order if n in want]

    def allowed(mix: list[str]) -> bool:
        try:
            api.game_config(game_config(mix, 3), extra)
        except ConfigError:
            return False
        return True

    playable = [n for n in order if declared[n].playable]
    mixes: list[list[str]] = [[]]
    for mix in [closed([n]) for n in playable] + [closed(pair) for pair in combinations(playable, 2)] \
            + [closed(n for n in playable if not declared[n].sole)]:
        if mix not in mixes and allowed(mix):
            mixes.append(mix)
    rnd = random.Random(32)  # drawn, not enumerated: the draws cost the same however many packs there are
    for _ in range(50 * sample):
        if not sample or len(playable) < 4:
            break
        mix = closed(rnd.sample(playable, rnd.randrange(3, len(playable))))
        if mix not in mixes and allowed(mix):
            mixes.append(mix)
            sample -= 1
    return mixes


PACK_SETS = pack_mixes()
# 100 games for the base game and each pack alone, 25 for each mix of packs (heavy: 2,000 more).
CONFIGS = [(n, seed, packs) for packs in PACK_SETS for seed in range(20 if len(packs) < 2 else 5) for n in range(2, 7)]
# Every rule option takes its turn: the option sets cycle with the seed.
OPTION_SETS = [{}, {"deal_choice": 3, "starting_bonus": True}, {"trophy_threshold": 5, "inherited_items": True},
               {"command_spell": "easier", "sudden_death": True}]
PACK_OPTIONS = {"cataclysm": [{"alternative_ending": v} for v in ("eternal-crown", "revealed", "hidden")],
                "lost-realms": [{"alternative_ending": "revealed"}, {"alternative_ending": "hidden"},
                                {"alternative_ending": "revealed", "hunt_crown": "four"}],
                "nemesis": [{"trial": 1}, {"trial": 2}]}


@pytest.mark.parametrize("players,seed,packs", CONFIGS, ids=[f"{n}-{s}-{'+'.join(p) or 'base'}" for n, s, p in CONFIGS])
def test_random_game_keeps_invariants_and_replays(players, seed, packs):
    options = {"turn_cap": 40, **OPTION_SETS[seed % len(OPTION_SETS)]}
    for pack in packs:
        sets = PACK_OPTIONS.get(pack, [{}])
        options.update(sets[(seed + players) % len(sets)])
    config = game_config(packs, players, options)
    final, moves = playout(config, f"playout-{seed}", bot_seed=seed, check=True)
    assert final.over
    start = api.new_game(config, f"playout-{seed}")
    before = api.encode(start)
    replay = api.replay(start, moves)  # folds the moves over one copy: the same game
    assert api.encode(replay) == api.encode(final)
    assert api.encode(start) == before


def test_four_player_game_plays_to_its_end():
    """No turn cap: someone reaches the Crown and is the last character standing."""
    config = {"players": [{"name": f"p{i}"} for i in range(4)]}
    # Random bots wander: some seeds never find a Talisman in 30,000 moves; most do.
    ended = []
    for seed in range(10):
        final, moves = playout(config, f"full{seed}", bot_seed=seed, max_moves=30000)
        if final.over:
            ended.append(final)
            if len(ended) == 2:
                break
    assert len(ended) == 2
    assert all(f.crown_reached and len(f.winners) == 1 for f in ended)
    assert all(not violations(f) for f in ended)  # the winner among them: alive


def test_a_dead_winner_is_caught():
    """The invariant the playouts assert: a winner is alive (issue 13: simultaneous deaths)."""
    state = scenario.build({"game": {"packs": ["cataclysm"], "seed": "s",
                                     "players": [{"name": "a", "character": "thief"}, {"name": "b"}]},
                            "setup": {"a": {"space": "crown-of-command", "life": 1}, "b": {"life": 1}},
                            "dice": [2]})  # the Eternal Crown: all characters lose 1 life
    assert state.over and state.winners == [] and not violations(state)
    state.winners = ["b"]
    assert "b: a winner who is dead" in violations(state)
    state.players[1].life = 3
    assert "b: dead with 3 life" in violations(state)


def test_cataclysm_game_plays_to_its_end():
    """The Eternal Crown ends a Cataclysm game: someone reaches the Crown and outlasts the rest."""
    config = {"packs": ["cataclysm"], "players": [{"name": f"p{i}"} for i in range(4)]}
    for seed in range(5):  # random bots may wander without a Talisman: the first that ends
        final, moves = playout(config, f"full{seed}", bot_seed=seed, max_moves=30000, check=True)
        if final.over:
            break
    assert final.over and final.crown_reached and len(final.winners) == 1
    assert final.piles["ending"] == ["the-eternal-crown"]


def test_nemesis_games_play_to_their_end():
    """No turn cap: every Nemesis game ends by a side's objective, for both Trials and 1-5 heroes
    (random heroes rarely clear the sacred sites in time; a heroes' win is a scenario file), and
    with no moderator at the table: every card, Boon, Spell and companion level is automated
    (issue 31), so the moderator is never asked (the bot would answer `skip`)."""
    played = set()
    for seed in range(20):
        heroes, trial = (2, 3, 5, 1, 4)[seed % 5], 1 + (seed // 5) % 2
        config = game_config(["nemesis"], heroes + 1, {"trial": trial})
        final, moves = playout(config, f"nemesis-full{seed}", bot_seed=seed, max_moves=30000, check=True)
        assert final.over and final.winners
        assert not [m for m in moves if m.player == api.MODERATOR], (heroes, trial)
        names = {p.name for p in final.players if p.role == "hero"}
        assert final.winners == ["p0"] or set(final.winners) == names
        played.add((heroes, trial))
    assert {(h, t) for h in (2, 3, 5) for t in (1, 2)} <= played


@pytest.mark.parametrize("packs", PACK_SETS)
def test_apply_never_mutates_its_input(packs):
    state = api.new_game(game_config(packs, 3), "pure")
    rnd = random.Random(3)
    for _ in range(300):
        before = api.encode(state)
        move = choose(state, rnd)
        new, _ = api.apply(state, move)
        assert api.encode(state) == before
        state = new
        if state.over:
            break


def test_illegal_move_says_why_and_lists_options():
    state = api.new_game({"players": [{"name": "a", "character": "thief"}, {"name": "b"}]}, "x")
    with pytest.raises(api.IllegalMove) as err:
        api.apply(state, api.Move("a", "sideways"))
    assert "left" in err.value.options and "sideways" in str(err.value)
    with pytest.raises(api.IllegalMove) as err:
        api.apply(state, api.Move("b", "left"))
    assert "waiting for a" in str(err.value)


@pytest.mark.heavy
@pytest.mark.timeout(3600)  # 2,000 games: about 4 minutes alone, far more on a shared machine
def test_many_playouts():
    for seed in range(2000):
        n = 2 + seed % 5
        playout(game_config(PACK_SETS[seed % len(PACK_SETS)], n, {"turn_cap": 60}), f"heavy-{seed}", bot_seed=seed,
                check=True)
    assert not violations(api.new_game({"players": [{"name": "a"}]}, "x"))


@pytest.mark.parametrize("text,want", [
    ("17: left", api.Move("zed", "left", 17)),
    ("17:left", api.Move("zed", "left", 17)),
    ("left", api.Move("zed", "left")),
    ("Alice: 17: Left", api.Move("alice", "left", 17)),
    ("bob: right", api.Move("bob", "right")),
    ("adjudicate alice life -1", api.Move("zed", "adjudicate", None, "alice life -1")),
])
def test_parse_move(text, want):
    assert api.parse_move(text, player="zed") == want

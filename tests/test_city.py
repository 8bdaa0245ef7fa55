"""The City pack (issue 17): bots really go into the stand-in City and come out again, and a
game with the City plays to its end without a turn cap."""
from engine import api, content
from pbem.bot import playout


def city_visits(config: dict, seed: str, bot_seed: int) -> tuple[set[str], bool]:
    """The City spaces any character stood on during a bot game, and whether the game ended."""
    ring = set(content.load("revised4", tuple(config["packs"])).board.rings["city"])
    final, moves = playout(config, seed, bot_seed=bot_seed)
    state, seen = api.new_game(config, seed), set()
    for move in moves:
        state, _ = api.apply(state, move)
        seen |= {p.space for p in state.players if p.space in ring}
    return seen, final.over


def test_bots_enter_the_city_and_the_game_ends():
    config = {"packs": ["city"], "players": [{"name": f"p{i}"} for i in range(4)], "options": {"turn_cap": 60}}
    seen: set[str] = set()
    for seed in range(4):
        spaces, over = city_visits(config, f"city{seed}", seed)
        assert over
        seen |= spaces
    assert "city-gate" in seen and len(seen) >= 3, seen

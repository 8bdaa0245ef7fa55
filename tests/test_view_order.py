"""A player's part of a view keeps its keys' order (engine/visibility.py makes it in one go since
issue 28; the frames and JSON views stored before keep the order they had)."""
from engine import api

ORDER = ["character", "space", "space_name", "region", "strength", "craft", "life", "fate", "gold", "alignment",
         "alive", "objects", "followers", "spells", "trophies", "toad", "role", "hand", "area", "character_name",
         "max_life", "max_fate", "miss", "quest", "quest_said"]


def test_a_players_view_keys_keep_their_order():
    state = api.new_game({"players": [{"name": "a"}, {"name": "b"}]}, "view-order")
    for reader in ("a", "b", None, "*spectator"):
        for name, d in api.view(state, reader)["players"].items():
            assert list(d) == ORDER, (reader, name)

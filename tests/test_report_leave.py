"""`moderator: leave-game <player>` (engine/rules/leave.py), the move a confirmed resignation
becomes: at any moment of the game the character leaves play with what it held, nothing is
lost from the box, and the game goes on without it (the pipeline's test is in test_commands)."""
import random

import pytest

from engine import api, invariants
from pbem import bot

PLAYERS = [{"name": "alice", "character": "wizard"}, {"name": "bob", "character": "priest"},
           {"name": "carol", "character": "troll"}]


def leave(state, name):
    return api.apply(state, api.parse_move(f"moderator: leave-game {name}"))


@pytest.mark.parametrize("seed", range(6))
def test_a_character_leaves_at_any_moment_and_the_game_goes_on(seed):
    rnd = random.Random(seed)
    state = api.new_game({"players": PLAYERS}, f"leave-{seed}")
    for _ in range(rnd.randrange(5, 60)):  # some moment of the game, perhaps in a fight or another's turn
        move = bot.choose(state, rnd)
        if move is None:
            break
        state, _ = api.apply(state, move)
    name = rnd.choice([p.name for p in state.players])
    state, events = leave(state, name)
    gone = next(p for p in state.players if p.name == name)
    assert gone.out and not gone.alive and gone.space is None and not (gone.objects or gone.spells or gone.gold)
    assert any(e.kind == "leave" and name in e.text for e in events)
    assert invariants.violations(state) == []  # every card is somewhere, none twice
    for _ in range(80):
        if state.over:
            break
        assert name not in api.waiting_for(state)
        move = bot.choose(state, rnd)
        if move is None:
            break
        state, _ = api.apply(state, move)
        assert invariants.violations(state) == []
    if not state.over:
        with pytest.raises(api.IllegalMove, match="left the game already"):
            leave(state, name)


def test_when_everyone_has_left_the_game_ends_with_no_winner_and_players_cannot_leave_by_themselves():
    state = api.new_game({"players": PLAYERS}, "leave-all")
    with pytest.raises(api.IllegalMove, match="only the moderator"):
        api.apply(state, api.Move("alice", "leave-game", state.prompt.id))
    with pytest.raises(api.IllegalMove, match="no player called"):
        leave(state, "dave")
    for p in PLAYERS:
        state, _ = leave(state, p["name"])
    assert state.over and state.winners == []

"""A random player: answers open prompts with random legal options (for playouts and demos)."""
from __future__ import annotations

import random
from collections.abc import Sequence

from engine import api
from engine.invariants import violations
from engine.packs.base import Pack


def choose(state, rnd: random.Random) -> api.Move | None:
    """A random legal move, or None when nothing is open. Moderator prompts are skipped."""
    open_ = api.prompts(state)
    if not open_:
        return None
    prompt = open_[0]
    player = prompt.players[0]
    if player == api.MODERATOR:
        return api.Move(api.MODERATOR, "skip", prompt.id)
    return api.Move(player, rnd.choice(prompt.options).key, prompt.id)


def asked_alone(state, rnd: random.Random, moves: int):
    """Along `moves` random moves from `state`: each state where one player, not the moderator,
    is asked, with that player (the positions a preview or a report's answers are made at)."""
    for _ in range(moves):
        move = choose(state, rnd)
        if move is None:
            return
        asked = state.prompt.players if state.prompt else []
        if len(asked) == 1 and asked[0] != api.MODERATOR:
            yield state, asked[0]
        state, _ = api.apply(state, move)


def playout(config: dict, seed: str, bot_seed: int = 0, max_moves: int = 20000, check: bool = False,
            packs: Sequence[Pack] = ()):
    """Play a whole game; returns (final state, moves). With check, asserts the invariants
    after every move, and that `apply` left the state before it unchanged. `packs`: packs
    handed to the engine beside its listed ones (a house rules pack)."""
    rnd = random.Random(bot_seed)
    state = api.new_game(config, seed, packs=packs)
    moves: list[api.Move] = []
    while not state.over and len(moves) < max_moves:
        move = choose(state, rnd)
        if move is None:
            raise AssertionError(f"game stuck with no prompt after {len(moves)} moves")
        before = api.encode(state) if check else b""
        new, _ = api.apply(state, move, packs=packs)
        moves.append(move)
        if check and api.encode(state) != before:
            raise AssertionError(f"move {len(moves)} ({move}) changed the state it was applied to")
        state = new
        if check:
            bad = violations(state, packs)
            if bad:
                raise AssertionError(f"after move {len(moves)} ({move}): {'; '.join(bad)}")
    return state, moves

"""Checks that hold after every move; the random playouts assert them."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine import registry
from engine.content import Content
from engine.packs.base import Pack
from engine.rules.boardcards import terrain_allowed
from engine.state import Game


def all_cards(state: Game, content: Content) -> Counter[str]:
    """Every card wherever it lies: decks, discards, spaces, hands."""
    c: Counter[str] = Counter()
    for pile in list(state.decks.items()) + list(state.discards.items()):
        if pile[0] != "character":
            c.update(pile[1])
    for cards in list(state.spaces.values()) + list(state.piles.values()):
        c.update(cards)
    for p in state.players:
        c.update(p.objects + p.followers + p.spells + p.trophies + p.hand + p.area)
        if p.quest in content.cards:  # a Warlock Quest card is held by its player
            c[p.quest] += 1
    return c


def expected_cards(content: Content) -> Counter[str]:
    c: Counter[str] = Counter()
    for cards in content.decks.values():
        c.update(cards)
    return c


def violations(state: Game, packs: Sequence[Pack] = ()) -> list[str]:
    """Every breach, one line each (`packs`: the game's packs declared outside the engine's list)."""
    out = []
    hooks = registry.hooks(state.packs, packs)
    content = hooks.content(state.edition)
    side_victory = hooks.side_victory()  # Nemesis: the heroes win as a side
    for p in state.players:
        for attr in ("life", "fate", "gold", "toad", "miss"):
            if getattr(p, attr) < 0:
                out.append(f"{p.name}: {attr} is negative")
        if p.character:
            ch = content.characters[p.character]
            if p.strength < ch.strength or p.craft < ch.craft:
                out.append(f"{p.name}: Strength or Craft below the printed value")
        if p.alive and p.character and p.life <= 0:
            out.append(f"{p.name}: alive with no life")
        if not p.alive and p.character and p.life:
            out.append(f"{p.name}: dead with {p.life} life")
        if p.name in state.winners and p.role == "hero" and not p.alive and not side_victory:
            out.append(f"{p.name}: a winner who is dead")
        if p.space is not None and p.space not in content.board.spaces:
            out.append(f"{p.name}: on unknown space {p.space}")
    for key, cards in state.piles.items():  # a pack's cards set aside on the board
        kind, _, space = key.partition("@")
        if space and space not in content.board.spaces:
            out.append(f"pile {key} on unknown space")
        elif kind == "terrain" and (len(cards) > 1 or (cards and not terrain_allowed(content, space))):
            out.append(f"Terrain misplaced: {key} = {cards}")
        elif kind != "box" and any(content.cards[c].deck != kind for c in cards):
            out.append(f"pile {key} holds a card of another deck: {cards}")  # "box": cards out of play
    out += hooks.invariants(state, content)  # a pack's own hands, areas, pools and tokens
    have, want = all_cards(state, content), expected_cards(content)
    if have != want:
        diff = (have - want) + (want - have)
        out.append(f"cards not conserved: {dict(diff)}")
    if not state.over and state.prompt is None:
        out.append("no prompt open in a running game")
    return out

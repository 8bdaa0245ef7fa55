"""Setting up a game and a character (base-game.md §2)."""
from __future__ import annotations

from engine import rng
from engine.config import ConfigError, GameConfig
from engine.content import load
from engine.state import Game, Player
from engine.rules.machine import Ctx, task


def new_game(config: GameConfig, seed: str) -> Game:
    content = load(config.edition, tuple(config.packs))
    options = {**config.options}
    state = Game(edition=config.edition, packs=list(config.packs), options=options, seed=seed)
    for deck in ("adventure", "spell"):
        cards = list(content.decks[deck])
        rng.shuffle(state, cards)
        state.decks[deck] = cards
        state.discards[deck] = []
    for deck in ("purchase", "talisman"):
        state.decks[deck] = list(content.decks[deck])  # faceup piles: order does not matter
    chosen = {p.character for p in config.players if p.character}
    for c in chosen:
        if c not in content.characters:
            raise ConfigError(f"unknown character {c!r}; known: {', '.join(sorted(content.characters))}")
    pool = [c for c in content.characters if c not in chosen]
    rng.shuffle(state, pool)
    state.decks["character"] = pool
    ctx = Ctx(state, [])
    for pc in config.players:
        state.players.append(Player(name=pc.name, role=pc.role))
        begin_character(ctx, len(state.players) - 1, pc.character)
    ctx.push("turn", 0)
    return state


def begin_character(ctx: Ctx, i: int, slug: str | None = None) -> None:
    """Give player i a character: printed values, 1 gold, its start space and starting Spells."""
    s = ctx.s
    if slug is None:
        slug = s.decks["character"].pop()
    elif slug in s.decks["character"]:
        s.decks["character"].remove(slug)
    c = ctx.content.characters[slug]
    old = s.players[i]
    p = Player(name=old.name, role=old.role, character=slug, space=c.start, strength=c.strength,
               craft=c.craft, life=c.life, max_life=c.life, fate=c.fate, max_fate=c.fate, gold=1,
               alignment=c.alignment)
    s.players[i] = p
    if ctx.s.options.get("inherited_items") and old.character:
        pile = f"inherit:{old.name}"
        for card in s.spaces.pop(pile, []):
            (p.followers if ctx.content.cards[card].type == "follower" else p.objects).append(card)
        p.gold += s.space_gold.pop(pile, 0)
    for _ in range(c.spells):
        draw_spell(ctx, i)
    ctx.emit("character", f"{p.name} plays the {c.name}, starting at {ctx.content.space(c.start).name}.",
             player=p.name, character=slug)


def draw_spell(ctx: Ctx, i: int) -> bool:
    s = ctx.s
    deck = s.decks["spell"]
    if not deck and s.discards["spell"]:
        deck.extend(s.discards["spell"])
        s.discards["spell"].clear()
        rng.shuffle(s, deck)
    if not deck:
        return False
    card = deck.pop()
    s.players[i].spells.append(card)
    ctx.emit("spell", f"{s.players[i].name} gains a Spell.", card=None)
    ctx.emit("spell-drawn", f"You draw the Spell {ctx.content.cards[card].name}.", to=[s.players[i].name], card=card)
    return True


@task("new-character")
def new_character(ctx: Ctx, t) -> None:
    begin_character(ctx, t.p)

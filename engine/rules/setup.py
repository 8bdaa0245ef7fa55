"""Setting up a game and a character (base-game.md §2)."""
from __future__ import annotations

from typing import Any

from engine import rng
from engine.config import ConfigError, GameConfig
from engine.hooks import Hooks
from engine.rules.machine import Ctx, on_answer, task
from engine.state import Game, Player, Prompt, Task, option
from engine.text import msg, word


def new_game(config: GameConfig, seed: str, hooks: Hooks) -> Ctx:
    """A game dealt, its setup work on the stack (the API runs it): the context it was made in."""
    content = hooks.content(config.edition)
    options = {**config.options}
    state = Game(edition=config.edition, packs=list(config.packs), options=options, seed=seed)
    for deck in content.shuffled:
        cards = list(content.decks[deck])
        rng.shuffle(state, cards)
        state.decks[deck] = cards
        state.discards[deck] = []
    for deck in content.decks:
        if deck not in content.shuffled:
            state.decks[deck] = list(content.decks[deck])  # faceup piles: order does not matter
    chosen = {p.character for p in config.players if p.character}
    for c in chosen:
        if c not in content.characters:
            raise ConfigError(f"unknown character {c!r}; known: {', '.join(sorted(content.characters))}")
    pool = [c for c in content.characters if c not in chosen]
    rng.shuffle(state, pool)
    state.decks["character"] = pool
    state.players = [Player(name=pc.name, role=pc.role) for pc in config.players]
    ctx = Ctx(state, [], hooks)
    hooks.setup(ctx, config)
    ctx.push("turn", hooks.first_player(ctx) or 0)
    setup_work: list[tuple[str, int, dict[str, Any]]] = []
    for i, pc in enumerate(config.players):
        if pc.role != "hero":
            continue  # the Nemesis is a player, not a character
        if pc.character or config.option("deal_choice") <= 1:
            begin_character(ctx, i, pc.character)
        else:
            setup_work.append(("choose-character", i, {}))
        if config.option("starting_bonus"):
            setup_work.append(("starting-bonus", i, {}))
    setup_work += hooks.seated(ctx, config)  # a pack's steps after the characters' (companions)
    ctx.push_all(setup_work)
    return ctx


def begin_character(ctx: Ctx, i: int, slug: str | None = None) -> None:
    """Give player i a character: printed values, 1 gold, its start space and starting Spells."""
    s = ctx.s
    if slug is None:
        slug = s.decks["character"].pop()
    elif slug in s.decks["character"]:
        s.decks["character"].remove(slug)
    c = ctx.content.characters[slug]
    old = ctx.player(i)  # its own copy: the new character keeps its hand and area
    # A shared fate pool (Nemesis) holds the heroes' fate: a later character brings none.
    fate = 0 if "shared_fate" in s.pools else c.fate
    start = ctx.hooks.start_space(ctx, c) or c.start
    p = Player(name=old.name, role=old.role, character=slug, space=start,
               strength=c.strength, craft=c.craft, life=c.life, max_life=c.life, fate=fate, max_fate=c.fate,
               gold=1, alignment=c.alignment, hand=old.hand, area=old.area)
    s.players[i] = p
    if ctx.s.options.get("inherited_items") and old.character:
        pile = f"inherit:{old.name}"
        for card in s.spaces.pop(pile, []):
            (p.followers if ctx.content.cards[card].type == "follower" else p.objects).append(card)
        p.gold += s.space_gold.pop(pile, 0)
    for _ in range(c.spells):
        draw_spell(ctx, i)
    ctx.emit("character",
             msg("{player} plays the {card}, starting at {space}.", player=p.name, card=c.name,
                 space=ctx.space(start).name),
             player=p.name, character=slug)


def draw_spell(ctx: Ctx, i: int) -> bool:
    card = ctx.draw("spell")
    if card is None:
        return False
    p = ctx.player(i)
    p.spells.append(card)
    ctx.emit("spell", msg("{player} gains a Spell.", player=p.name), card=None)
    ctx.emit("spell-drawn", msg("You draw the Spell {card}.", card=ctx.content.cards[card].name), to=[p.name],
             card=card)
    return True


@task("choose-character")
def choose_character(ctx: Ctx, t: Task) -> None:
    """The optional deal: N characters dealt, the player keeps one, the rest go back."""
    pool = ctx.s.decks["character"]
    n = max(1, min(ctx.s.options.get("deal_choice", 1), len(pool)))
    dealt = [pool.pop() for _ in range(n)]
    ctx.ask(t.p, "character", msg("Choose your character."),
            [option(c, msg("{character}", character=ctx.content.characters[c].name)) for c in dealt], dealt=dealt)


@on_answer("character", "which character to play: a character slug (of those dealt)", default=())
def character_chosen(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    for c in prompt.data["dealt"]:
        if c != key:
            ctx.s.decks["character"].insert(0, c)
    begin_character(ctx, ctx.index(who), key)


@task("starting-bonus")
def starting_bonus(ctx: Ctx, t: Task) -> None:
    ctx.ask(t.p, "starting-bonus", msg("Starting bonus: which do you gain?"),
            [option("strength", msg("+1 Strength")), option("craft", msg("+1 Craft"))])


@on_answer("starting-bonus", "the starting bonus: `strength` or `craft` (+1)", default=())
def starting_bonus_chosen(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    p = ctx.player(ctx.index(who))
    setattr(p, key, getattr(p, key) + 1)
    ctx.emit("bonus", msg("{player} starts with +1 {key}.", player=who, key=word(key)), player=who)

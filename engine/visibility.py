"""The one place that decides who sees what: summaries, per-player views, events.

Spells are held facedown: their owner (and the moderator) sees them, others see a count.
A player's hand (the Nemesis's Action cards, a hero's Boon) likewise; their area (a
companion) is public.
Deck order and the seed are never shown to anyone.

`redeal` is the other side of the same line: a game a player cannot tell from the real one,
everything they may not see dealt again at random (what a bot that plans reasons about,
engine/bots/).
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from engine import rng
from engine.clone import clone
from engine.content import Content, Source, generation, load
from engine.hooks import Hooks
from engine.rules import endings
from engine.rules.machine import Ctx
from engine.state import Event, Game, Player
from engine.text import Msg, Text, content_text, english

MODERATOR = "moderator"


def may_see(event: Event, player: str | None) -> bool:
    return event.to is None or player in (None, MODERATOR) or player in event.to


def _prompts(state: Game) -> list[dict]:
    if state.over or state.prompt is None:
        return []
    p = state.prompt
    return [{"id": p.id, "players": [n for n in p.players if n not in p.answers],
             "options": [o.key for o in p.options]}]


def _space_name(state: Game, content: Content, sid: str) -> str:
    """A Terrain card on a space gives it its name (the Cataclysm)."""
    terrain = state.piles.get(f"terrain@{sid}") if state.piles else None
    return content.cards[terrain[0]].name if terrain else content.board.spaces[sid].name


@functools.lru_cache(maxsize=16)
def _printed_names(edition: str, sources: tuple[Source, ...], generation: int) -> dict[str, str]:
    return {sid: space.name for sid, space in load(edition, sources).board.spaces.items()}


def _space_names(state: Game, content: Content, hooks: Hooks) -> dict[str, str]:
    """Every space's name as it stands: the printed names (worked out once per pack set and
    overlay), with the Terrain cards lying on the board (the Cataclysm) in place of theirs."""
    names = dict(_printed_names(state.edition, hooks.sources, generation()))
    for pile, cards in (state.piles.items() if state.piles else ()):
        if cards and pile.startswith("terrain@") and pile[8:] in names:
            names[pile[8:]] = content.cards[cards[0]].name
    return names


def _player(state: Game, content: Content, p: Player, spells: list[str] | int) -> dict[str, Any]:
    space = content.board.spaces.get(p.space) if p.space else None
    return {"character": p.character, "space": p.space,
            "space_name": _space_name(state, content, space.id) if space else None,
            "region": space.ring if space else None, "strength": p.strength, "craft": p.craft,
            "life": p.life, "fate": p.fate, "gold": p.gold, "alignment": p.alignment, "alive": p.alive,
            "objects": list(p.objects), "followers": list(p.followers), "spells": spells,
            "trophies": list(p.trophies), "toad": p.toad}


def _facedown(content: Content, card: str) -> bool:
    """A card kept facedown in a play area (its deck's `facedown_in_area`: The Hunt's Nether cards)."""
    return content.cards[card].deck in content.facedown_in_area


def summary(state: Game, hooks: Hooks) -> dict[str, Any]:
    content = hooks.content(state.edition)
    players = {p.name: _player(state, content, p, len(p.spells)) for p in state.players}
    out = {"turn": state.turn, "over": state.over, "winners": list(state.winners), "prompt": _prompts(state),
           "players": players, "board": {k: list(v) for k, v in content.board.rings.items()},
           "spaces": _space_cards(state, content, lambda c: c),
           "discards": {deck: len(cards) for deck, cards in sorted(state.discards.items())}}
    if state.pools:
        out.update(state.pools)
    out.update(hooks.public(Ctx(state, [], hooks)))  # each pack's public state, under a key named after the pack
    return out


def _space_cards(state: Game, content: Content, name: Callable[[str], str]) -> dict[str, list[str]]:
    """The cards lying faceup on each space of the board (those on none: not listed)."""
    return {sid: [name(c) for c in cards] for sid, cards in state.spaces.items()
            if cards and sid in content.board.spaces}


def view(state: Game, player: str | None, hooks: Hooks) -> dict[str, Any]:
    content = hooks.content(state.edition)
    ctx = Ctx(state, [], hooks)  # the packs' public state is read through it, never changed
    everything = player in (None, MODERATOR)
    players = {}
    cards = content.cards
    for p in state.players:
        own = everything or p.name == player
        # One dict in `_player`'s key order with the view's keys after it (made in one go: a dict
        # updated twice, and the slugs' lists that the names replace, were a sixth of a view)
        space = content.board.spaces.get(p.space) if p.space else None
        d = {"character": p.character, "space": p.space,
             "space_name": _space_name(state, content, space.id) if space else None,
             "region": space.ring if space else None, "strength": p.strength, "craft": p.craft,
             "life": p.life, "fate": p.fate, "gold": p.gold, "alignment": p.alignment, "alive": p.alive,
             "objects": [cards[o].name for o in p.objects], "followers": [cards[f].name for f in p.followers],
             "spells": [cards[s].name for s in p.spells] if own else len(p.spells),
             "trophies": [cards[t].name for t in p.trophies], "toad": p.toad, "role": p.role,
             "hand": [cards[c].name for c in p.hand] if own else len(p.hand),
             "area": [cards[c].name for c in p.area if own or not _facedown(content, c)]}
        if content.facedown_in_area and any(_facedown(content, c) for c in p.area):
            d["area_facedown"] = sum(1 for c in p.area if _facedown(content, c))  # The Hunt: others see a count
        ch = content.characters.get(p.character) if p.character else None
        d["character_name"] = ch.name if ch else None
        d["max_life"], d["max_fate"], d["miss"], d["quest"] = p.max_life, p.max_fate, p.miss, p.quest
        d["quest_said"] = _quest(content, p.quest)
        players[p.name] = d
    return {
        "turn": state.turn, "round": state.round, "over": state.over, "winners": list(state.winners),
        "me": None if everything else player,
        "players": players,
        "board": {k: list(v) for k, v in content.board.rings.items()},
        "space_names": _space_names(state, content, hooks),
        "space_cards": _space_cards(state, content, lambda c: content.cards[c].name),
        "space_gold": dict(state.space_gold),
        "decks": {k: len(v) for k, v in state.decks.items() if k != "character"},
        **hooks.public(ctx),
        **state.pools,
        "effects": [dict(e) for e in state.effects],
        **_pack_text(hooks.public_text(ctx)),
        **view_questions(state, player),
    }


def view_questions(state: Game, player: str | None) -> dict[str, Any]:
    """The fields of `player`'s view about the open questions: "over", "prompt" (each open question
    as they may see it) and "mine" (the one that asks them, with its options, or None)."""
    everything = player in (None, MODERATOR)
    prompt: list[dict[str, Any]] = []
    if state.prompt and not state.over:
        q = state.prompt
        waiting = [n for n in q.players if n not in q.answers]
        if everything or player in q.players:
            prompt = [{"id": q.id, "players": waiting, "kind": q.kind, "question": q.question,
                       "options": [{"key": o.key, "text": o.text} for o in q.options]}]
        else:
            # Another's question can name what they hold ("cast Teleport"): others see only
            # whom the game waits for.
            prompt = [{"id": q.id, "players": waiting, "kind": "", "question": "", "options": []}]
    mine = next((q for q in prompt if q["options"] and (everything or player in q["players"])), None)
    return {"over": state.over, "prompt": prompt, "mine": mine}


def _quest(content: Content, quest: str | None) -> list[Any] | None:
    """A Warlock quest held (a Quest card's slug, or the table's roll), as what it asks: a message
    whose id is its content file's text ([id, args], as JSON keeps it)."""
    if not quest:
        return None
    card = content.cards.get(quest)
    row = card.props if card else content.quests.get(int(quest), {}) if quest.isdigit() else {}
    said = (card.text if card else None) or row.get("text") or row.get("name")
    return msgspec.to_builtins(content_text(said)) if said else None


def _pack_text(said: dict[str, Sequence[Text]]) -> dict[str, Any]:
    """Each pack's public sentences: `pack_text` in English, `pack_said` the same as messages in
    plain data (`[id, args]`, as JSON keeps them), which a reader's language translates."""
    return {"pack_text": {pack: [english(t)[0] for t in lines] for pack, lines in said.items()},
            "pack_said": {pack: [msgspec.to_builtins(t if isinstance(t, Msg) else Msg(t)) for t in lines]
                          for pack, lines in said.items()}}


def _hidden_places(state: Game, player: str, content: Content, hooks: Hooks) -> list[tuple[list[str], list[int]]]:
    """Every list of cards in `state` with the positions in it `player` may not see: every deck
    (its order, and which of its cards are still in it), another player's Spells and hand, the
    facedown cards of their play area, the facedown part of a pile a pack keeps facedown (the
    bottom of it: a count of faceup cards on top is kept in `counters["<kind>-up@<space>"]`), and
    an Alternative Ending not yet turned faceup."""
    out: list[tuple[list[str], list[int]]] = [(cards, list(range(len(cards)))) for cards in state.decks.values()]
    for p in state.players:
        if p.name == player:
            continue
        out += [(p.spells, list(range(len(p.spells)))), (p.hand, list(range(len(p.hand))))]
        out.append((p.area, [k for k, c in enumerate(p.area) if _facedown(content, c)]))
    for key, cards in state.piles.items():
        kind, _, space = key.partition("@")
        if kind in hooks.facedown_piles:
            up = state.counters.get(f"{kind}-up@{space}", 0)
            out.append((cards, list(range(max(0, len(cards) - up)))))
        elif key == "ending" and not endings.shown(state, hooks.default_ending()):
            out.append((cards, list(range(len(cards)))))
    return [(cards, at) for cards, at in out if at]


def _deck_of(content: Content, card: str) -> str:
    """The deck a card comes from (the characters not dealt, which are not cards: "character")."""
    known = content.cards.get(card)
    return known.deck if known is not None else "character"


def redeal(state: Game, player: str, seed: str, hooks: Hooks) -> Game:
    """A copy of `state` that `player` cannot tell from it: a new seed (so new dice), no forced
    dice, and every card they may not see (`_hidden_places`) dealt again at random from all the
    cards they have not seen of the same deck, each place keeping its size. Deterministic from
    `seed`, and a function of what `player` sees only: two games `player` cannot tell apart
    (hidden cards swapped, another seed) give the same copy for the same `seed`
    (tests/test_bots.py), so a bot planning on it never reads what it may not see."""
    content = load(state.edition, hooks.sources)
    s = clone(state)
    s.seed, s.forced = seed, []
    places = _hidden_places(s, player, content, hooks)
    # A card in a deck is dealt again from that deck's pool, elsewhere from its own deck's: a
    # deck may hold another deck's cards (the Purchase stock and the Talisman pile hold
    # Adventure cards), and mixing them would put a Helmet among the Adventure cards and a
    # Dragon in the shop, a game no one could be in (and a Raft built from an empty stock).
    pile_of = {id(cards): deck for deck, cards in s.decks.items()}

    def pool(cards: list[str], k: int) -> str:
        return pile_of.get(id(cards)) or _deck_of(content, cards[k])
    unseen: dict[str, list[str]] = {}
    for cards, at in places:
        for k in at:
            unseen.setdefault(pool(cards, k), []).append(cards[k])
    n = 0
    for deck in sorted(unseen):  # sorted first: which place held which card says nothing
        unseen[deck].sort()
        n = rng.shuffled_apart(seed, n, unseen[deck])
    for cards, at in places:
        decks = [pool(cards, k) for k in at]
        for k, deck in zip(at, decks):
            cards[k] = unseen[deck].pop()
    return s

"""Words for the packs' public texts (`Pack.public_text`, engine/packs/base.py): the names players
read for the slugs a pack's public state holds, and lists as a sentence says them, as messages
(engine/text.py: a German reader reads "Kogge (2), Karavelle und Galeone")."""
from __future__ import annotations

from collections.abc import Iterable

from engine.content import Content
from engine.text import Msg, Text, msg


def listing(items: Iterable[Text]) -> Msg:
    """"a", "a and b", "a, b and c", as a message: each item a name or a message of its own."""
    out = list(items)
    if len(out) <= 1:
        return msg("{item}", item=out[0] if out else "")
    if len(out) == 2:
        return msg("{first} and {last}", first=out[0], last=out[1])
    return msg("{first}, {rest}", first=out[0], rest=listing(out[1:]))


def card(content: Content, slug: str) -> str:
    return content.cards[slug].name


def space(content: Content, sid: str) -> str:
    return content.board.spaces[sid].name


def counted(content: Content, slugs: Iterable[str]) -> Msg:
    """Card names with how many of each: "Kogge (2), Karavelle"."""
    seen: dict[str, int] = {}
    for s in slugs:
        seen[s] = seen.get(s, 0) + 1
    return listing(msg("{card} ({n})", card=card(content, s), n=n) if n > 1 else card(content, s)
                   for s, n in seen.items())


def placed(content: Content, who: dict[str, str]) -> Msg:
    """Characters and where each is: "alice (Rats' Nest), bob (Bridge)"."""
    return listing(msg("{player} ({space})", player=name, space=space(content, sp)) for name, sp in who.items())


def series(items: Iterable[Text]) -> Msg:
    """Parts that are lists themselves, one after another: "a and b at X; c at Y"."""
    out = list(items)
    if len(out) <= 1:
        return msg("{item}", item=out[0] if out else "")
    return msg("{first}; {rest}", first=out[0], rest=series(out[1:]))


# The foes a fight names in words of its own rather than a card's printed name (its `name`, English)
FOES = {"an Alien": msg("an Alien"), "the Alien": msg("the Alien"), "the Warp Demon": msg("the Warp Demon"),
        "the mutinous crew": msg("the mutinous crew"), "the Command Spell": msg("the Command Spell"),
        "the Lord of Darkness": msg("the Lord of Darkness"), "the Vampire": msg("the Vampire"),
        "the Lich": msg("the Lich"), "the Pirate": msg("the Pirate"), "the Pirate-Captain": msg("the Pirate-Captain"),
        "the hostile natives": msg("the hostile natives"), "the Rat Queen": msg("the Rat Queen"),
        "the Wraith Lord": msg("the Wraith Lord")}
# The same foes at the start of a sentence ("The Vampire drinks")
FOES_START = {"the Vampire": msg("The Vampire"), "the Lich": msg("The Lich")}


def joined(items: list[Text]) -> Msg:
    """"a and b and c", as a message (a group of Enemies met together)."""
    if len(items) <= 1:
        return msg("{item}", item=items[0] if items else "")
    return msg("{first} and {last}", first=items[0], last=joined(items[1:]))


def foe(content: Content, fight: dict) -> Text:
    """Whom a fight (a task's arguments: its English `name`, the `cards` met) is against, as a
    message says it: the cards met together, each by its name; a foe of FOES; else its name as
    printed (a name the reader's language translates)."""
    name, cards = fight.get("name", ""), fight.get("cards") or []
    if len(cards) > 1 and all(c in content.cards for c in cards) and \
            name == " and ".join(card(content, c) for c in cards):
        return joined([card(content, c) for c in cards])
    return FOES.get(name, name)


def foe_named(content: Content, name: str) -> Text:
    """A foe known only by the English `name` a fight gave it (why a life was lost, " to X"): Enemies
    met together ("Ape and Bandit") each by its name, joined by a message, when every part is a
    card's name; a foe of FOES; else the name as printed."""
    parts = name.split(" and ")
    names = {c.name for c in content.cards.values()} if len(parts) > 1 else set()
    if len(parts) > 1 and name not in names and all(part in names for part in parts):
        return joined(list(parts))
    return FOES.get(name, name)

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

"""Words for the packs' public texts (`Pack.public_text`, engine/packs/base.py): the names players
read for the slugs a pack's public state holds, and lists as a sentence says them."""
from __future__ import annotations

from collections.abc import Iterable

from engine.content import Content


def listing(items: Iterable[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    out = list(items)
    return out[0] if len(out) == 1 else ", ".join(out[:-1]) + " and " + out[-1] if out else ""


def card(content: Content, slug: str) -> str:
    return content.cards[slug].name


def space(content: Content, sid: str) -> str:
    return content.board.spaces[sid].name


def counted(content: Content, slugs: Iterable[str]) -> str:
    """Card names with how many of each: "Kogge (2), Karavelle"."""
    seen: dict[str, int] = {}
    for s in slugs:
        seen[s] = seen.get(s, 0) + 1
    return listing(f"{card(content, s)}{f' ({n})' if n > 1 else ''}" for s, n in seen.items())

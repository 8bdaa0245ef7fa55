"""What a card does, in one line, for the cards a report names: those in its reader's hand,
on their space, named in their question, and those drawn.

The line is the content's own words: a card's `summary` where its text is long, else its text
without the project's asides (a parenthesis after a sentence: "(Modelled as ...)"); for a reader
of another language, the words its texts file gives (pbem/base/printed_texts.py), else the
content's English. A card whose
content row is not confirmed (`confirmed = false`) is a stand-in, and says so; so do the spaces
and characters whose rows are stand-ins (`stand_ins`: the reports' sheet and map, the web pages).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from engine import content
from pbem.base import engine_text, i18n, printed_texts
from pbem.base.i18n import _

_ASIDE = re.compile(r"(?<=[.!?:;])\s*\([^()]*(?:\([^()]*\)[^()]*)*\)")
LONGEST = 220  # characters: a text longer than this is cut after a sentence, with "…"
STAND_IN = "stand-in"
EXPLAINED = ("draw", "denizen", "spell-drawn", "action-drawn", "sea-draw")  # events that bring a card in


def plain(text: str) -> str:
    """The content's words without the project's asides (a parenthesis after a sentence)."""
    return _ASIDE.sub("", text).strip()


def one_line(card, lang: str | None = None) -> str:
    """The card's line for a reader of `lang` (the current language if None)."""
    given = printed_texts.card(card.pack, card.name, lang or i18n.current(), card.text)
    text = (given.get("summary") or plain(given["text"]) if "text" in given
            else card.prop("summary") or plain(card.text))
    if len(text) > LONGEST:
        cut = text.rfind(". ", 0, LONGEST)
        text = (text[:cut + 1] if cut > 0 else text[:LONGEST].rsplit(" ", 1)[0]) + " …"
    return text


@lru_cache(maxsize=64)
def _cards(edition: str, packs: tuple[str, ...], generation: int) -> tuple[dict, dict]:
    """The cards in play by slug and by printed name (the first of a name), for the overlay of
    that `generation` (engine.content.generation)."""
    cards = content.load(edition, packs).cards
    by_name: dict = {}
    for card in cards.values():
        by_name.setdefault(card.name, card)
    return cards, by_name


class StandIns(NamedTuple):
    """What of a game's content is a stand-in (its row says `confirmed = false`)."""
    spaces: frozenset[str]  # space ids
    characters: frozenset[str]  # character slugs


def stand_ins(edition: str = "revised4", packs=()) -> StandIns:
    """The stand-in spaces and characters of the content of `edition` and `packs` (the moderator's
    content folder included: a row it confirms is no stand-in)."""
    return _stand_ins(edition, tuple(packs), content.generation())


@lru_cache(maxsize=64)
def _stand_ins(edition: str, packs: tuple[str, ...], generation: int) -> StandIns:
    c = content.load(edition, packs)
    return StandIns(frozenset(s.id for s in c.board.spaces.values() if not s.confirmed),
                    frozenset(ch.slug for ch in c.characters.values() if not ch.confirmed))


def state_stand_ins(state) -> StandIns:
    """The stand-ins of a game state's content (its edition and packs)."""
    return stand_ins(getattr(state, "edition", "revised4"), getattr(state, "packs", ()))


class Glossary:
    """The cards of one game, looked up by name or slug, each once per report."""

    def __init__(self, game: dict):
        g = game.get("config", {}).get("game", {})
        self.by_slug, self.by_name = _cards(g.get("edition", "revised4"), tuple(g.get("packs", [])),
                                            content.generation())
        self.named: dict[str, dict] = {}

    def entry(self, card) -> dict:
        return {"name": card.name, "text": one_line(card), "stand_in": not card.confirmed}

    def name(self, name: str) -> None:
        card = self.by_name.get(name)
        if card is not None and card.text:
            self.named.setdefault(card.name, self.entry(card))

    def option(self, key: str, text: str) -> None:
        """An option that names a card: key `ogre` or `cast-healing`, its text naming it (a wish's
        `teleport` is not the Teleport Spell)."""
        card = self.by_slug.get(key) or (self.by_slug.get(key[5:]) if key.startswith("cast-") else None)
        if card is not None and card.name in text:
            self.name(card.name)

    def drawn(self, event, text: str | None = None) -> str:
        """An event's text (`text`: as its reader reads it), with the card it brings in explained
        beside it (only a card its text names: a facedown card stays unnamed)."""
        text = event.text if text is None else text
        slug = (getattr(event, "data", None) or {}).get("card")
        card = self.by_slug.get(slug) if event.kind in EXPLAINED and isinstance(slug, str) else None
        if card is None or not card.text or (card.name not in text and engine_text.name(card.name) not in text):
            return text
        line = one_line(card) + (f" ({_(STAND_IN)})" if not card.confirmed else "")
        return f"{text.rstrip('.')} — {line}"

    def entries(self) -> list[dict]:
        return list(self.named.values())


def for_report(game: dict, sheet: dict | None, asked: dict | None, here: list[str]) -> Glossary:
    """The glossary of one report: the reader's cards, those on their space, their question's."""
    gl = Glossary(game)
    if sheet:
        for what in ("spells", "objects", "followers", "hand", "area"):
            for name in sheet.get(what) or []:
                gl.name(name)
    for name in here:
        gl.name(name)
    for o in (asked or {}).get("options", []):
        gl.option(o["key"], o.get("text", ""))
    return gl

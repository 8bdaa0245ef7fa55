"""The content files' texts a player reads, for the engine's catalogue.

A card's choice (`op = "choose"`: its `question` and each option's `text`) is said in the words of
its content file; the engine hands it on as a message whose id is that text (engine/text.py
`content_text`), so a reader's language translates it as it does the engine's own messages. So are
a few other texts the engine puts in a question, an event or a sheet: a Nemesis companion's levels
(`text`, `cost_text`), the Warlock's quests (the table's and the Quest cards'), the Naval Objects on
sale and the City's Potions (their cards' `text`: SAID_DECKS, SAID_HOOKS). This is the extractor
pybabel reads them with (babel-engine.cfg, `make locale`, into engine.pot). Names stay apart
(pbem/base/engine_text.py `name`), as does everything the engine only computes with, and the other
cards' rules texts (the glossary's: pbem/base/printed_texts.py).
"""
from __future__ import annotations

import tomllib
from collections.abc import Iterator
from typing import Any

SAID_DECKS = ("quest", "naval")  # cards whose `text` the engine shows: a Quest drawn, a Naval Object on sale
SAID_HOOKS = ("city-potion",)  # a Potion to drink (engine/packs/city.py)


def said(node: Any, deck: str | None = None) -> Iterator[str]:
    """The texts a player reads in a content file's data: each choice's question and options, a
    companion level's text and cost, a Warlock quest's text, the text of a card the engine shows."""
    if isinstance(node, dict):
        deck = node.get("deck", deck) if isinstance(node.get("deck", deck), str) else deck
        if node.get("op") == "choose":
            if isinstance(node.get("question"), str):
                yield node["question"]
            yield from (c["text"] for c in node.get("options", []) if isinstance(c.get("text"), str))
        for level in node.get("levels", []) if isinstance(node.get("levels"), list) else []:
            yield from (level[k] for k in ("cost_text", "text") if isinstance(level.get(k), str))
        for quest in node.get("quest", []) if isinstance(node.get("quest"), list) else []:
            yield from [quest["text"]] if isinstance(quest.get("text"), str) else []
        if "name" in node and isinstance(node.get("text"), str) and (
                node.get("deck", deck) in SAID_DECKS or node.get("hook") in SAID_HOOKS):
            yield node["text"]
        for value in node.values():
            yield from said(value, deck)
    elif isinstance(node, list):
        for value in node:
            yield from said(value, deck)


def extract(fileobj, keywords, comment_tags, options) -> Iterator[tuple[int, None, str, list[str]]]:
    """pybabel's extraction method for a content file (TOML): (line, None, text, [])."""
    source = fileobj.read().decode("utf-8")
    lines = source.splitlines()
    for text in said(tomllib.loads(source)):
        head = text[:40]
        yield next((n for n, line in enumerate(lines, 1) if head in line), 1), None, text, []

"""The content files' texts a player reads, for the engine's catalogue.

A card's choice (`op = "choose"`: its `question` and each option's `text`) is said in the words of
its content file; the engine hands it on as a message whose id is that text (engine/text.py
`content_text`), so a reader's language translates it as it does the engine's own messages. This
is the extractor pybabel reads them with (babel-engine.cfg, `make locale`, into engine.pot). Names
stay apart (pbem/base/engine_text.py `name`), as does everything the engine only computes with.
"""
from __future__ import annotations

import tomllib
from collections.abc import Iterator
from typing import Any


def said(node: Any) -> Iterator[str]:
    """The texts a player reads in a content file's data: each choice's question and options."""
    if isinstance(node, dict):
        if node.get("op") == "choose":
            if isinstance(node.get("question"), str):
                yield node["question"]
            yield from (c["text"] for c in node.get("options", []) if isinstance(c.get("text"), str))
        for value in node.values():
            yield from said(value)
    elif isinstance(node, list):
        for value in node:
            yield from said(value)


def extract(fileobj, keywords, comment_tags, options) -> Iterator[tuple[int, None, str, list[str]]]:
    """pybabel's extraction method for a content file (TOML): (line, None, text, [])."""
    source = fileobj.read().decode("utf-8")
    lines = source.splitlines()
    for text in said(tomllib.loads(source)):
        head = text[:40]
        yield next((n for n, line in enumerate(lines, 1) if head in line), 1), None, text, []

"""The packs: each one `Pack` (engine/packs/base.py) declared in engine/packs/<pack>.py and
listed once in `engine.registry.PACKS`. This file imports only the base class (which imports no
pack), so any pack module may be imported first; the list is read when first asked for."""
from __future__ import annotations

from typing import Any

from engine.packs.base import Pack, combine

_BY_NAME: dict[str, Pack] = {}


def get(name: str) -> Pack:
    """The declared pack called `name` (KeyError if none is)."""
    if not _BY_NAME:
        from engine.registry import PACKS  # here: the registry imports every pack module
        _BY_NAME.update((p.name, p) for p in PACKS)
    return _BY_NAME[name]


def call(state: Any, hook: str, *args: Any) -> Any:
    """The game's packs' answer to a hook, combined as the hook says (engine/packs/base.py)."""
    return combine([get(p) for p in state.packs], hook, args)

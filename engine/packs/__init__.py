"""Python hooks for what a pack needs beyond its data, one module per pack."""
import functools
import importlib


def call(state, hook: str, *args):
    """The first answer other than None of a named hook in the game's packs (None if no pack
    has it): how the core asks a pack to change one rule."""
    for pack in state.packs:
        fn = getattr(module(pack), hook, None)
        out = fn(*args) if fn else None
        if out is not None:
            return out
    return None


@functools.cache  # hooks are asked for many times a move: skip the import machinery
def module(pack: str):
    """The pack's hook module (engine/packs/<pack>.py), imported when first used."""
    return importlib.import_module(f"engine.packs.{pack.replace('-', '_')}")

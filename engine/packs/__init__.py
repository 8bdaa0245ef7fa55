"""Python hooks for what a pack needs beyond its data, one module per pack."""
import importlib


def module(pack: str):
    """The pack's hook module (engine/packs/<pack>.py), imported when first used."""
    return importlib.import_module(f"engine.packs.{pack.replace('-', '_')}")

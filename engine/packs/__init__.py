"""The packs: each one `Pack` (engine/packs/base.py) declared in engine/packs/<pack>.py and listed
once in `engine.registry.PACKS`, the one module that imports them all. This file imports nothing,
so any pack module may be imported first."""

"""The turn machine (machine.py) and the rules registered on it, one module per topic.
engine/registry.py imports them all, with the packs, so that every handler is registered."""

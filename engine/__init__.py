"""The Talisman rules engine: pure, deterministic, no I/O. Enter through engine.api."""
from engine import compiled as _compiled

BUILD = _compiled.choose()  # "compiled", "pure" or "sources": see engine/compiled.py

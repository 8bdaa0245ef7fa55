"""The Talisman rules engine: pure, deterministic, no I/O. Enter through engine.api."""

"""Where messages come from. Each source is small: it reads raw bytes, hands them to
`pbem.process.handle`, and only once that returned (the message is stored) moves or marks
its copy. Sources: stdin (an MTA pipe), files, a Maildir, the drop folder."""
from __future__ import annotations

from pathlib import Path

TURN_SUFFIXES = (".toml", ".json")


def kind_of(name: str | Path) -> str:
    """"turn" for a .toml/.json turn file, "mail" for anything else (.eml, Maildir names)."""
    return "turn" if str(name).lower().endswith(TURN_SUFFIXES) else "mail"

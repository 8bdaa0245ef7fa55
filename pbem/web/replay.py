"""A finished game's replay, served live: `pbem replay --html` (pbem/archive/replay.py) written once
per game and move count into the home's web cache, then served as files.

The pages are for anyone, so the archive is scoped to what every player may see: events
addressed to some players are left out, and a move shows who moved, not the line they sent
(a line can name a hidden card: `19: boon-1`). The seed is in it, as in the game-over mail.
"""
from __future__ import annotations

import base64
import hashlib
import shutil
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from pbem.archive import archive, replay

if TYPE_CHECKING:
    from pbem.core.service import Service

_lock = threading.Lock()


def public_archive(data: dict) -> dict:
    moves = [{**m, "line": f"{m['player'] or m['actor']} answered", "message_id": None,
              "events": [e for e in m["events"] if e["to"] is None]} for m in data["moves"]]
    return {**data, "moves": moves}


def folder(svc: Service, game: dict) -> Path:
    """The folder holding the game's replay pages, made if missing (once per move count)."""
    root = Path(svc.settings.home) / "web-cache" / "replay"
    here = root / f"{game['id']}-{game['moves']}"
    with _lock:
        if not (here / "index.html").is_file():
            for old in root.glob(f"{game['id']}-*"):
                shutil.rmtree(old, ignore_errors=True)
            tmp = root / f".{game['id']}-{game['moves']}.tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            replay.write_html(public_archive(archive.export(svc, game["id"])), tmp)
            tmp.rename(here)
    return here


def media_type(name: str) -> str | None:
    """What a replay file is served as: its pages and the board picture they share; None for
    anything else."""
    if name == replay.PICTURE:
        return "image/svg+xml"
    return "text/html; charset=utf-8" if name.endswith(".html") else None


def _sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


# the replay pages' one <style> and the colour of each legend's markers, and nothing else
CSP = ("default-src 'none'; img-src 'self' data:; style-src 'unsafe-hashes' " + _sha(replay.CSS) + " "
       + " ".join(_sha(f"color:{c}") for c in replay.COLOURS)
       + "; script-src 'none'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'")

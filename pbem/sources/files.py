"""Files named on the command line: .eml mails and .toml/.json turn files."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pbem.inbound.process import Result, handle
from pbem.sources import kind_of, read_capped, upload_id

if TYPE_CHECKING:
    from pbem.core.service import Service


def ingest(svc: Service, path: str | Path, source: str = "file") -> Result:
    """One file (`pbem ingest FILE`, `pbem submit FILE`): the same file given again, as after
    a kill, is known again (its upload id: its path and when it was written)."""
    path = Path(path)
    kind = kind_of(path)
    raw, size = read_capped(path)
    return handle(svc, raw, kind, source=source, filename=path.name if kind == "turn" else None,
                  upload_id=f"{path.resolve().parent}/{upload_id(path)}", size=size)

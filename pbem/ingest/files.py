"""Files named on the command line: .eml mails and .toml/.json turn files."""
from __future__ import annotations

from pathlib import Path

from pbem.ingest import kind_of
from pbem.process import Result, handle


def ingest(svc, path: str | Path, source: str = "file") -> Result:
    path = Path(path)
    kind = kind_of(path)
    return handle(svc, path.read_bytes(), kind, source=source, filename=path.name if kind == "turn" else None)

"""The drop folder (home/inbox): .eml mails and .toml/.json turn files, put there by hand,
by an upload form or by `pbem submit`.

Writers put a file in tmp/ and rename it into new/ (or straight into the folder itself),
so a half-written file is never read. A file is moved to cur/ once it is stored."""
from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

from pbem.ingest import kind_of
from pbem.process import Result, handle


def ensure(folder: str | Path) -> Path:
    folder = Path(folder)
    for sub in ("tmp", "new", "cur"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    return folder


def waiting(folder: str | Path) -> list[Path]:
    """Files to read: in new/ and at the top level, oldest first."""
    folder = ensure(folder)
    files = [p for d in (folder, folder / "new") for p in d.iterdir()
             if p.is_file() and not p.name.startswith(".")]
    return sorted(files, key=lambda p: (p.stat().st_mtime, p.name))


def drop(folder: str | Path, name: str, data: bytes) -> Path:
    """Put a file into the folder the safe way: write in tmp/, rename into new/."""
    folder = ensure(folder)
    unique = f"{time.time_ns()}.{secrets.token_hex(4)}.{Path(name).name}"  # sorts in arrival order
    tmp = folder / "tmp" / unique
    tmp.write_bytes(data)
    final = folder / "new" / unique
    os.replace(tmp, final)
    return final


def poll(svc, folder: str | Path, stop=None) -> list[Result]:
    stored = []
    with svc.store.group_commit():  # one fsync for the batch, before any file is moved to cur/
        for file in waiting(folder):
            if stop is not None and stop.is_set():
                break
            stored.append((file, read_one(svc, file)))
    for file, result in stored:
        archive(folder, file, result)
    return [result for _, result in stored]


def read_one(svc, file: Path) -> Result:
    kind = kind_of(file)
    return handle(svc, file.read_bytes(), kind, source="drop", filename=file.name if kind == "turn" else None)


def archive(folder: str | Path, file: Path, result: Result) -> Path:
    """Stored: move it to cur/, named after its inbox row so it can be found again."""
    base = Path(folder) / "cur" / f"{result.inbox_id:06d}-{file.name}"
    target, n = base, 1
    while target.exists():  # a duplicate of a file already kept
        target, n = base.with_name(f"{base.name}.{n}"), n + 1
    os.replace(file, target)
    return target

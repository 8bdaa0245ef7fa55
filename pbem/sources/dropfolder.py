"""The drop folder (home/inbox): .eml mails and .toml/.json turn files, put there by hand,
by an upload form or by `pbem submit`.

Writers put a file in tmp/ and rename it into new/ (or straight into the folder itself),
so a half-written file is never read. A file is moved to cur/ once it is stored, as the
store keeps it: its tokens masked."""
from __future__ import annotations

import os
import secrets
import time
from pathlib import Path
from typing import TYPE_CHECKING

from pbem.inbound.process import Result, handle
from pbem.sources import failed_source, kind_of, read_capped, replace_with_stored, upload_id
from pbem.store import StoreUnavailable

if TYPE_CHECKING:
    from pbem.core.service import Service


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


def poll(svc: Service, folder: str | Path, stop=None) -> list[Result]:
    """Store and process each waiting file, and move it to cur/ after its own durable commit,
    so a crash re-reads at most the file in hand, and that one is known again by its upload id
    (its name and when it was written). A file that cannot be read is logged and left; the
    next ones are read all the same."""
    results = []
    for file in waiting(folder):
        if stop is not None and stop.is_set():
            break
        try:
            result = read_one(svc, file)
        except StoreUnavailable:
            raise
        except Exception as e:  # noqa: BLE001 -- gone meanwhile (another daemon took it), or unreadable
            if file.exists():
                failed_source(file, e)
            continue
        try:  # its commit was made durable (synchronous=FULL) before handle returned
            archive(svc, folder, file, result)
        except FileNotFoundError:  # another daemon moved it: it is stored once all the same
            pass
        results.append(result)
    return results


def read_one(svc: Service, file: Path) -> Result:
    kind = kind_of(file)
    raw, size = read_capped(file)
    return handle(svc, raw, kind, source="drop", filename=file.name if kind == "turn" else None,
                  upload_id=upload_id(file), size=size)


def archive(svc: Service, folder: str | Path, file: Path, result: Result) -> Path:
    """Stored: move it to cur/, named after its inbox row so it can be found again, as the
    store keeps it (no token in clear)."""
    base = Path(folder) / "cur" / f"{(result.inbox_id or 0):06d}-{file.name}"
    if result.inbox_id and base.exists():  # kept already: a crash came between the copy and the removal
        os.unlink(file)
        return base
    target, n = base, 1
    while target.exists():  # a duplicate of a file already kept
        target, n = base.with_name(f"{base.name}.{n}"), n + 1
    return replace_with_stored(svc, file, target, result.inbox_id)

"""Where messages come from. Each source is small: it reads raw bytes, hands them to
`pbem.inbound.process.handle`, and only once that returned (the message is stored) moves or marks
its copy. Sources: stdin (an MTA pipe, or its spool: pipe.py), files, a Maildir, the drop
folder. Nothing is imported here at the top: the pipe's spool (pipe.py) imports this package
in a process that must start fast."""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # both import this package
    from pbem.core.service import Service
    from pbem.inbound.process import Result

TURN_SUFFIXES = (".toml", ".json")


def kind_of(name: str | Path) -> str:
    """"turn" for a .toml/.json turn file, "mail" for anything else (.eml, Maildir names)."""
    return "turn" if str(name).lower().endswith(TURN_SUFFIXES) else "mail"


def read_capped(path: Path) -> tuple[bytes, int]:
    """(the file's bytes, its size): no more than one byte over the size limit is read, so a
    30 MB mail costs no memory and is never stored (process.handle refuses it by `size`)."""
    from pbem.inbound import orders
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        return f.read(orders.MAX_BYTES + 1), size


def upload_id(path: Path) -> str:
    """What a file is, not when it was read: its name and the time it was last written (a
    file rewritten for the next turn is a new upload; one read again after a crash is not)."""
    st = path.stat()
    return f"{path.name}:{st.st_mtime_ns}:{st.st_size}"


def replace_with_stored(svc: Service, file: Path, target: Path, inbox_id: int | None) -> Path:
    """Move a stored file out of the way as the copy the store keeps (its tokens masked),
    written first under a temporary name; the original, token and all, is removed."""
    row = svc.store.inbox(inbox_id) if inbox_id is not None else None
    if row is None:  # nothing stored under it: keep the file as it is
        os.replace(file, target)
        return target
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_bytes(row["raw"])
    os.replace(tmp, target)
    os.unlink(file)
    return target


def take_batch(svc: Service, files: list[Path], source: str, stop=None) -> list[tuple[Path, Result]]:
    """Store and process `files` (mails) as a batch in one group commit: one fsync makes them
    all durable before any is acknowledged (each is known again by its Message-ID and content
    after a crash). (file, result) for each stored one; a file that cannot be read is logged
    and left."""
    from pbem.inbound.process import handle
    from pbem.store import StoreUnavailable
    taken: list[tuple[Path, Result]] = []
    with svc.store.group_commit():
        for file in files:
            if stop is not None and stop.is_set():
                break
            try:
                raw, size = read_capped(file)
                taken.append((file, handle(svc, raw, "mail", source=source, size=size)))
            except StoreUnavailable:
                raise
            except Exception as e:  # noqa: BLE001 -- one file must not block the others
                if file.exists():
                    failed_source(file, e)
    return taken


def failed_source(file: Path, error: BaseException) -> None:
    from pbem.base import log
    log.get().exception("could not read a file; it is left where it is", file=file.name, error=repr(error))

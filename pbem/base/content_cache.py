"""The engine's content files parsed once per text, not once per process (issue 28).

A process that plays a move (an MTA's `pbem ingest` with no daemon, `serve --once` from cron)
parsed the content's TOML every time: about a tenth of its start-up. Here each text's parsed
form is kept as msgpack in the home's `cache/content/` folder, named by the SHA-256 of the
text together with the parser's and the format's versions, so an edited file, another Python
or another msgspec never reads a form made by another (a form is never trusted across
versions: it is made again). The folder is the home's (0700, files 0600, written whole: a
temporary name, then a rename), as private as the store beside it. A text whose parsed form
msgpack does not give back exactly (TOML's dates) is parsed every time, as is every text when
the folder cannot be written.
"""
from __future__ import annotations

import hashlib
import os
import secrets
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from engine import content
from pbem.base.settings import Settings

FORMAT = 1  # the form's layout: raised when it changes


def folder(settings: Settings) -> Path:
    return Path(settings.home) / "cache" / "content"


_parse: Callable[[str], dict[str, Any]] = tomllib.loads  # the one `use` set


def use(settings: Settings) -> None:
    """The engine parses its content files through the home's cache from now on, and so do
    the service's own readers of content files (`parse`: the names files, read every process)."""
    global _parse
    _parse = parser(folder(settings))
    content.use_parser(_parse)


def parse(text: str) -> dict[str, Any]:
    """A content file's text parsed as the engine parses it now: through the home's cache once
    a service is open (tomllib.loads before)."""
    return _parse(text)


def parser(where: Path) -> Callable[[str], dict[str, Any]]:
    """tomllib.loads, read from `where` when the text was parsed before by the same versions."""
    versions = f"{FORMAT}\0{sys.version_info[0]}.{sys.version_info[1]}\0{msgspec.__version__}\0"

    def parse(text: str) -> dict[str, Any]:
        path = where / (hashlib.sha256((versions + text).encode()).hexdigest() + ".msgpack")
        try:
            return msgspec.msgpack.decode(path.read_bytes())
        except (OSError, msgspec.DecodeError):  # not parsed yet (or unreadable: parsed again, and replaced)
            pass
        data = tomllib.loads(text)
        _keep(path, data)
        return data
    return parse


def _keep(path: Path, data: dict[str, Any]) -> None:
    try:
        blob = msgspec.msgpack.encode(data)
        if msgspec.msgpack.decode(blob) != data:  # a type msgpack does not keep: parsed each time instead
            return
        for made in (path.parent.parent, path.parent):  # cache/ and cache/content/: the user's alone
            made.mkdir(mode=0o700, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(blob)
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    except (OSError, TypeError, ValueError, OverflowError):  # a read-only home, a value msgpack cannot hold
        pass

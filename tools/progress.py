"""A line every 25 s while a long step runs silently (mypyc's type check, the C compiler, a wheel
build behind `pip -q`), so no one watching a build wonders whether it hangs.

    with heartbeat("compiling the engine"): ...             # in a build script
    python tools/progress.py "building the wheel" CMD ...   # around a command (the Makefile)

Standard library only: setup.py loads it in pip's isolated build environment.
"""
from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

EVERY = 25.0  # seconds: under the 30 s a silent step may last


@contextmanager
def heartbeat(what: str, every: float = EVERY, stream: TextIO | None = None) -> Iterator[None]:
    out = stream or sys.__stderr__ or sys.stderr  # the process's own: setup.py captures sys.stderr meanwhile
    started, done = time.monotonic(), threading.Event()

    def beat() -> None:
        while not done.wait(every):
            print(f"  ... still {what} ({time.monotonic() - started:.0f} s)", file=out, flush=True)

    thread = threading.Thread(target=beat, name="heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: progress.py WHAT COMMAND [ARG ...]", file=sys.stderr)
        return 2
    with heartbeat(argv[0]):
        return subprocess.call(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

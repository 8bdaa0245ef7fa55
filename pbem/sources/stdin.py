"""One mail on standard input: what an MTA pipe (Postfix `pipe`) delivers.

Exit codes are what an MTA expects (README, "Deployment"; deploy/postfix-master.cf): 0 once
the message is stored, whatever became of it -- a refused answer or a stranger's mail is
answered by the service's own reply,
and any other code would make the MTA bounce it (to a forged sender: backscatter); 75
(EX_TEMPFAIL) only when it could not be stored (the store or the home is unavailable): the
MTA keeps it and tries again later, and the retry is recognised as the same message. A
message whose processing failed is stored: `pbem serve` processes it again."""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, BinaryIO

from pbem.base import log, settings as settings_mod, tokens
from pbem.base.terminal import inert
from pbem.core import home as home_mod, keys
from pbem.core.service import open_service
from pbem.inbound.process import Result, handle
from pbem.store import StoreUnavailable

if TYPE_CHECKING:
    from pbem.core.service import Service

EX_TEMPFAIL = 75
PRIVATE_UMASK = 0o077  # what this process writes is its user's alone, as every command's (pbem/cli/__init__.py)


def ingest(svc: Service, stream: BinaryIO | None = None) -> Result:
    raw = (stream or sys.stdin.buffer).read()
    return handle(svc, raw, "mail", source="stdin")


def exit_code(result: Result) -> int:
    """0: `result` exists only once its message is stored (the cases for 75 raise instead)."""
    return 0


def result_line(label: str, result: Result) -> str:
    """What became of a message, as `ingest` prints it: inert, as it may quote the message."""
    outcome = result.outcome.removeprefix(f"{result.status}: ")  # the outcome may start with its status
    return f"{inert(label)}: {result.status}: {inert(outcome)}"


def run(home: str, stream: BinaryIO | None = None) -> int:
    """`pbem ingest` with no FILE and no daemon running: the mail stored and processed in this
    process; its exit code. The console script calls it before the CLI is imported (an MTA
    starts a process per mail: click and the other commands' modules are not its cost), and
    the CLI's `ingest` the same."""
    old = os.umask(PRIVATE_UMASK)
    try:
        try:
            settings = settings_mod.load(home)
            home_mod.require(settings)
            log.configure(settings.log_format, settings.log_level)
            result = ingest(open_service(settings=settings), stream)
        except (StoreUnavailable, home_mod.NotAHome, settings_mod.SettingsError) as e:
            print(f"error: {e}; the mail was not stored: try again later", file=sys.stderr)
            return EX_TEMPFAIL
        except (keys.KeyMismatch, tokens.BadKey) as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        print(result_line("stdin", result))
        return exit_code(result)
    finally:
        os.umask(old)

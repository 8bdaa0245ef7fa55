"""One mail on standard input: what an MTA pipe (Postfix `pipe`) delivers.

Exit codes follow sysexits: 0 done, 1 refused, 75 (EX_TEMPFAIL) when the message could not
be stored or processing failed for now -- the MTA keeps it and tries again later, and the
retry is recognised as the same message."""
from __future__ import annotations

import sys
from typing import BinaryIO

from pbem.process import Result, handle

EX_TEMPFAIL = 75


def ingest(svc, stream: BinaryIO | None = None) -> Result:
    raw = (stream or sys.stdin.buffer).read()
    return handle(svc, raw, "mail", source="stdin")


def exit_code(result: Result) -> int:
    if result.status == "error":
        return EX_TEMPFAIL
    return 1 if result.refused else 0

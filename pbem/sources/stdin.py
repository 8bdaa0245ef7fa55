"""One mail on standard input: what an MTA pipe (Postfix `pipe`) delivers.

Exit codes are what an MTA expects (README, "Deployment"; deploy/postfix-master.cf): 0 once
the message is stored, whatever became of it -- a refused answer or a stranger's mail is
answered by the service's own reply,
and any other code would make the MTA bounce it (to a forged sender: backscatter); 75
(EX_TEMPFAIL) only when it could not be stored (the store or the home is unavailable): the
MTA keeps it and tries again later, and the retry is recognised as the same message. A
message whose processing failed is stored: `pbem serve` processes it again."""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, BinaryIO

from pbem.inbound.process import Result, handle

if TYPE_CHECKING:
    from pbem.core.service import Service

EX_TEMPFAIL = 75


def ingest(svc: Service, stream: BinaryIO | None = None) -> Result:
    raw = (stream or sys.stdin.buffer).read()
    return handle(svc, raw, "mail", source="stdin")


def exit_code(result: Result) -> int:
    """0: `result` exists only once its message is stored (the cases for 75 raise instead)."""
    return 0

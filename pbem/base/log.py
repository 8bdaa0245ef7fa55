"""Structured logs (structlog) that never carry a token or a seed.

Redaction is a processor, so it holds for every logger in the service whatever a caller
passes: anything shaped like a token (20 hex characters, or the token part of a
`local+TOKEN@domain` address) or a seat link's secret (32), and every secret registered with
`forget()` (`forget_seed()`) is replaced.
"""
from __future__ import annotations

import importlib
import logging
import re
import sys
from types import ModuleType

from pbem.base.tokens import mask_text, seed_weakness


class _Later(ModuleType):
    """A module imported when first used: structlog's `asyncio`, read only by its async
    loggers, which the service never makes."""

    def __getattr__(self, name: str):
        if sys.modules.get(self.__name__) is self:  # used while still standing in: the real one now
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), name)


def _structlog() -> ModuleType:
    """structlog, without rich unless stderr is a terminal: structlog imports rich (and rich
    pygments) when it is installed, for pretty tracebacks at a terminal, which cost a process
    about a tenth of a second to import -- a daemon's, a pipe's or cron's, whose logs are JSON
    lines, pays for nothing then. rich stays importable for what shows tables at a terminal.
    Nor asyncio unless something else imports it (about 50 ms of CPU a process: a pipe's
    `ingest` never runs a loop); a daemon, which does, has it already."""
    if "structlog" in sys.modules:
        import structlog
        return structlog
    stand_ins: dict[str, ModuleType | None] = {}
    if "asyncio" not in sys.modules:
        stand_ins["asyncio"] = _Later("asyncio")
    if not (sys.stderr is None or sys.stderr.isatty() or "rich" in sys.modules):
        stand_ins["rich"] = None  # structlog's `import rich` fails: plain tracebacks
    sys.modules.update(stand_ins)  # type: ignore[arg-type]
    try:
        import structlog
    finally:
        for name, module in stand_ins.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]
    return structlog


structlog = _structlog()

_PLUS = re.compile(r"\+[^@\s+]+@")
_secrets: set[str] = set()
_masks: tuple[int, re.Pattern] | None = None  # the secrets as one pattern (longest first), and how many it holds


def forget(secret: str) -> None:
    """Register a secret the service made (a token: 20 random hex characters) that no log
    line may show."""
    if secret:
        _secrets.add(secret)


def forget_seed(seed: str) -> None:
    """Register a game's seed, which a moderator may have chosen. A weak one (short, or of few
    letters) is never a mask pattern: "ab" would garble every line holding those letters, and
    the masks would show where it is. It is warned about. Only seeds are judged so: a token
    is random, and one in about 2,000 games has a seat's token of under 8 different hex digits,
    which is no weakness of a token."""
    weak = seed_weakness(seed)
    if weak:
        get().warning("weak seed: anyone who guesses it can foresee the dice; leave the seed out to have one "
                      "generated", why=weak)
        return
    forget(seed)


def scrub(text: str) -> str:
    global _masks
    if _secrets:  # one pass over the text, not a sort of every secret and a pass each (a season's process has hundreds)
        made = _masks  # read once: another thread may add a secret meanwhile (then the next line makes it again)
        if made is None or made[0] != len(_secrets):  # secrets are only added
            secrets = sorted(_secrets, key=len, reverse=True)  # longest first: no partial leaks
            made = _masks = (len(secrets), re.compile("|".join(re.escape(s) for s in secrets)))
        text = made[1].sub("[secret]", text)
    text = _PLUS.sub("+[token]@", text)
    return mask_text(text)


def _redact(value):
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {k: _redact(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_redact(v) for v in value)
    return value


def redact_processor(_logger, _name, event_dict):
    return {k: _redact(v) for k, v in event_dict.items()}


class _Stderr:
    """sys.stderr looked up at each write, so redirected or captured stderr is honoured."""

    def write(self, text):
        return sys.stderr.write(text)

    def flush(self):
        sys.stderr.flush()

    def isatty(self):
        return sys.stderr.isatty()


def configure(fmt: str = "auto", level: str = "info", stream=None) -> None:
    """JSON lines under systemd or when asked; readable lines on a terminal."""
    stream = stream or _Stderr()
    if fmt == "auto":
        fmt = "console" if stream.isatty() else "json"
    render = structlog.processors.JSONRenderer() if fmt == "json" else structlog.dev.ConsoleRenderer(colors=False)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            redact_processor,  # last before rendering: sees everything that is written
            render,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper(), logging.INFO)),
        logger_factory=structlog.PrintLoggerFactory(stream),
        cache_logger_on_first_use=False,
    )


def get(**bind):
    return structlog.get_logger("pbem").bind(**bind)


configure()  # redaction holds even for code that logs before the CLI configures

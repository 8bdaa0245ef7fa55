"""Errors the engine raises to its callers."""
from engine.text import Msg, Text, english

MODERATOR = "moderator"  # the name that answers for anyone and settles cards


class IllegalMove(ValueError):
    """A move that does not fit the open prompt; says why (`reason`, English, and `msg`, the
    same as a message a reader's language translates: engine/text.py) and what is open instead."""

    def __init__(self, reason: Text, options: list[str]):
        self.reason, self.msg = english(reason)
        self.options = options
        super().__init__(f"{self.reason}; open: {', '.join(options) if options else 'nothing'}")

    msg: Msg | None

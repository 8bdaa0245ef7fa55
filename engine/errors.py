"""Errors the engine raises to its callers."""

MODERATOR = "moderator"  # the name that answers for anyone and settles cards


class IllegalMove(ValueError):
    """A move that does not fit the open prompt; says why and what is open instead."""

    def __init__(self, reason: str, options: list[str]):
        self.reason = reason
        self.options = options
        super().__init__(f"{reason}; open: {', '.join(options) if options else 'nothing'}")

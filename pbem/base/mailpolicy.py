"""The email policy inbound mail is read with: `email.policy.default`, but each header value
is parsed once per process, not at every access.

The stdlib parses a structured header (Content-Type, From, ...) anew on every `msg[...]`,
`get_content_type()` or `get_filename()`, and most of reading a player's mail went there.
A parsed header depends on its name and value alone and is not changed by readers, so equal
headers -- most of them, from one mail to the next -- share one parse.
"""
from __future__ import annotations

import email.policy
from email.headerregistry import HeaderRegistry

MAX_VALUE = 1000  # longer values are parsed each time: the cache stays small
MAX_ENTRIES = 4096


class _Headers(HeaderRegistry):
    def __init__(self):
        super().__init__()
        self._parsed: dict[tuple[str, str], object] = {}

    def __call__(self, name, value):
        key = (name.lower(), value)
        header = self._parsed.get(key)
        if header is None:
            header = super().__call__(name, value)
            if len(value) <= MAX_VALUE:
                if len(self._parsed) >= MAX_ENTRIES:
                    self._parsed.clear()
                self._parsed[key] = header
        return header


POLICY = email.policy.default.clone(header_factory=_Headers())

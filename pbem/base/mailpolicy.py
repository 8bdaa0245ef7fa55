"""The email policy inbound mail is read with: `email.policy.default`, but each header value
is parsed once per process, not at every access.

The stdlib parses a structured header (Content-Type, From, ...) anew on every `msg[...]`,
`get_content_type()` or `get_filename()`, and most of reading a player's mail went there.
A parsed header depends on its name and value alone and is not changed by readers, so equal
headers -- most of them, from one mail to the next -- share one parse. So do the parameters
of a header's value (`_Message`: a part's charset and name, split by the stdlib at each ask).
"""
from __future__ import annotations

import email.policy
import functools
from email.headerregistry import HeaderRegistry
from email.message import EmailMessage, _parseparam  # type: ignore[attr-defined]  # the stdlib's own splitter
from email.utils import decode_params

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


class _Message(EmailMessage):
    """A message whose headers' parameters (a Content-Type's charset, a part's name) are read once
    per value too: the stdlib splits the value again at every `get_param`, `get_filename` and
    `get_content_charset`, three to four times a part."""

    def _get_params_preserve(self, failobj, header):
        value = self.get(header, _MISSING)
        if value is _MISSING:
            return failobj
        value = str(value)
        return list(_params(value) if len(value) <= MAX_VALUE else _parse_params(value))


_MISSING = object()


@functools.lru_cache(maxsize=MAX_ENTRIES)
def _params(value: str) -> tuple:
    return tuple(_parse_params(value))


def _parse_params(value: str) -> list:
    """The stdlib's `Message._get_params_preserve` of a header's value (email/message.py), as it is."""
    params = []
    for p in _parseparam(value):
        try:
            name, val = p.split("=", 1)
            name = name.strip()
            val = val.strip()
        except ValueError:  # a bare attribute
            name = p.strip()
            val = ""
        params.append((name, val))
    return decode_params(params)


POLICY = email.policy.default.clone(header_factory=_Headers(), message_factory=_Message)

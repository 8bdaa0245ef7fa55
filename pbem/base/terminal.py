"""Text from outside as a terminal may show it (issue 27): inert.

A name, a subject, an attachment's file name or a card text from an owner's folder can hold
escape sequences (clear the screen, set the window's title, hide what follows) or bidi
controls (show text in another order than it is): every command prints such values through
`inert`, which writes each control character as an escape (`\\x1b`), and rich is never asked
to read markup in them (pbem/cli/common.py `table`).
"""
from __future__ import annotations

import re

# C0 and C1 controls, DEL, and the bidi controls that reorder what is shown
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")
_CONTROL_IN_TEXT = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")  # keeps newlines and tabs
_JSON_UNSAFE = re.compile(f"[\x7f-\x9f{_BIDI}]")  # what json.dumps leaves as it is


def _escape(m: re.Match) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def inert(value: object, *, lines: bool = False) -> str:
    """`value` as text with every control character escaped (`lines`: newlines and tabs kept,
    for text of several lines; else they are escaped too, as in a table's cell)."""
    return (_CONTROL_IN_TEXT if lines else _CONTROL).sub(_escape, str(value))


def blanked(value: object) -> str:
    """`value` with each control character (newlines and tabs kept) written as "?": for text
    from outside put into a mail of ours (a moderator's notice), where an escape would read as
    noise and a bidi control could reorder what the reader sees."""
    return _CONTROL_IN_TEXT.sub("?", str(value))


def inert_json(text: str) -> str:
    """JSON text (json.dumps escapes C0 controls itself) with DEL, C1 and bidi controls as
    \\u escapes: the same JSON, inert on a terminal."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)

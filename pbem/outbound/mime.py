"""Outgoing mail written directly as bytes: headers, a text part, an HTML alternative and
attachments, 7-bit clean so any SMTP server takes it (no 8BITMIME needed).

`email.message.EmailMessage` parses every header it is given, picks encodings with
pure-Python quoted-printable and folds on serialising: that cost three times the rendering
of the templates it carried. Our headers are made by us (pbem/outbound/outbox.py `enqueue`) and the
parts are text we rendered, so they are written as they are: a header on one line unless it
is long (folded at spaces) or not ASCII (RFC 2047, addresses by their display names), a part
as it is (7bit) when it is ASCII with lines within RFC 5322's 998 characters (the HTML part's
lines are long, and its characters beyond ASCII are character references: quoted-printable
cost it three times its own writing), else quoted-printable (binascii, in C), an attachment in
base64. The result reads back with the standard library's parser unchanged
(tests/test_smtp.py checks it), which is how `outbox.build` gives tests a message object.
"""
from __future__ import annotations

import binascii
import secrets
from collections.abc import Sequence
from email.header import Header
from email.utils import formataddr, getaddresses
from typing import NamedTuple

MAX_LINE = 78  # RFC 5322's "should": headers are folded to it
MAX_7BIT = 998  # RFC 5322's "must" (and RFC 2045's 7bit): a part with longer lines is quoted-printable
ADDRESS_HEADERS = frozenset({"from", "to", "cc", "reply-to", "sender"})


class Attachment(NamedTuple):
    filename: str  # ASCII: we name our own files
    content_type: str  # e.g. "application/json"
    data: bytes


def _fold(name: str, value: str) -> str:
    """`Name: value`, folded at spaces so no line is longer than MAX_LINE where a space allows."""
    line = f"{name}: {value}"
    if len(line) <= MAX_LINE:
        return line
    out, current = [], f"{name}:"
    for word in value.split(" "):
        if len(current) + 1 + len(word) > MAX_LINE and current != f"{name}:":
            out.append(current)
            current = ""
        current += f" {word}"  # a continuation line starts with its space
    out.append(current)
    return "\n".join(out)


def header(name: str, value: str) -> str:
    """One header as written on the wire (its value has no line break: outbox.clean)."""
    if value.isascii():
        return _fold(name, value)
    if name.lower() in ADDRESS_HEADERS:
        value = ", ".join(formataddr(pair, charset="utf-8") for pair in getaddresses([value]))
        return _fold(name, value)
    return f"{name}: " + Header(value, "utf-8", header_name=name).encode(linesep="\n")


def _text(body: str, subtype: str) -> str:
    """A text part: its headers and body, the body as it is where it can be. An HTML part's
    characters beyond ASCII are written as character references (`&#8594;`), which every HTML
    reader shows as the characters: its arrows and accents cost it quoted-printable before."""
    if "\r" in body:  # rendered text has none (a search, where the two replaces cost 20-60 us a part)
        body = body.replace("\r\n", "\n").replace("\r", "\n")
    if subtype == "html" and not body.isascii():
        body = body.encode("ascii", "xmlcharrefreplace").decode("ascii")
    if not body.endswith("\n"):
        body += "\n"
    if body.isascii() and "\x00" not in body and max(map(len, body.split("\n"))) <= MAX_7BIT:
        return f'Content-Type: text/{subtype}; charset="utf-8"\nContent-Transfer-Encoding: 7bit\n\n{body}'
    encoded = binascii.b2a_qp(body.encode("utf-8"), istext=True).decode("ascii")
    return f'Content-Type: text/{subtype}; charset="utf-8"\nContent-Transfer-Encoding: quoted-printable\n\n{encoded}'


def _attachment(a: Attachment) -> str:
    data = binascii.b2a_base64(a.data, newline=False).decode("ascii")
    lines = "\n".join(data[i:i + 76] for i in range(0, len(data), 76))
    return (f'Content-Type: {a.content_type}; name="{a.filename}"\nContent-Transfer-Encoding: base64\n'
            f'Content-Disposition: attachment; filename="{a.filename}"\n\n{lines}\n')


def _multipart(subtype: str, parts: list[str]) -> str:
    boundary = "=_" + secrets.token_hex(12)  # "=_" is never in quoted-printable or base64 text
    while any(boundary in p for p in parts):  # a 7bit part could hold anything
        boundary = "=_" + secrets.token_hex(12)
    body = "".join(f"--{boundary}\n{p}\n" for p in parts)  # the line end before a boundary is the boundary's
    return f'Content-Type: multipart/{subtype}; boundary="{boundary}"\n\n{body}--{boundary}--\n'


def message(headers: dict[str, str], text: str, html: str | None = None,
            attachments: Sequence[Attachment] = ()) -> bytes:
    """The whole mail, LF line ends (an SMTP client sends them as CRLF)."""
    body = _text(text, "plain")
    if html:
        body = _multipart("alternative", [body, _text(html, "html")])
    if attachments:
        body = _multipart("mixed", [body, *(_attachment(a) for a in attachments)])
    head = "\n".join(header(k, v) for k, v in headers.items())
    return f"{head}\nMIME-Version: 1.0\n{body}".encode("ascii")

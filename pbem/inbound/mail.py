"""One inbound mail, read once: the `Mail` every later step takes.

The bytes are parsed here and nowhere else: storing (the Message-ID, the content hash),
deduplicating, masking (the decoded parts), the loop guard (RFC 3834 headers), bounces, the
orders (the player's own text, turn-file attachments) and threading (In-Reply-To,
References) all read this value. `read` never raises: what cannot be read says so in
`unreadable`, and the mail is refused with that reason.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from email.message import EmailMessage
from email.parser import BytesHeaderParser, BytesParser
from email.utils import getaddresses

from pbem.base import mailpolicy, tokens
from pbem.inbound import mailtext

MAX_BYTES = 1024 * 1024  # a larger message is not stored: its headers are kept, its sender told
# Where the plus address carrying a token may be (talisman+TOKEN@...), in the order looked at.
RECIPIENT_HEADERS = ("To", "Cc", "Delivered-To", "X-Original-To")
TRANSPORT_HEADERS = {"received", "delivered-to", "return-path", "x-original-to"}
TURN_SUFFIXES = (".toml", ".json")
# Senders that are machines: answering them starts a loop or goes nowhere (RFC 3834 5.1).
_MACHINE = re.compile(r"^(mailer-daemon|postmaster|no-?reply|do-?not-?reply|bounces?|auto-?reply|autoresponder)"
                      r"([+._-][^@]*)?@", re.IGNORECASE)
_HEADER_END = re.compile(rb"\r?\n\r?\n")


@dataclass(frozen=True, slots=True)
class Attachment:
    name: str  # as the sender wrote it: outside text
    data: bytes  # its transfer encoding undone

    @property
    def turn_file(self) -> bool:
        return self.name.lower().endswith(TURN_SUFFIXES)


@dataclass(frozen=True, slots=True)
class Mail:
    raw: bytes  # as it came, token and all: in memory only (what is stored is `tokens.mask_message`'s)
    message: EmailMessage | None  # the parsed message (headers only for one over MAX_BYTES)
    subject: str  # RFC 2047 decoded, on one line
    sender: str | None  # the From address, lower case
    recipients: tuple[str, ...]  # the addresses of RECIPIENT_HEADERS, in that order
    message_id: str | None  # <id@host>
    id_header: str | None  # the Message-ID header as written (folds joined): the store's dedupe key
    references: tuple[str, ...]  # the ids it replies to, newest first (In-Reply-To first)
    id_runs: frozenset[str]  # token-shaped runs in the id headers (masked there only if they are tokens)
    automatic: str | None  # why no one may answer it (RFC 3834), or None
    bounce: bool  # a delivery-status report (RFC 3464)
    body: str | None  # the text part (else the HTML one) as text; None when it is a turn file
    attachments: tuple[Attachment, ...]  # named parts
    decoded: tuple[bytes, ...] | None  # every base64 or quoted-printable part decoded (None: not read, as
    # when its MIME is broken): what masking must look into, so it need not parse the mail again
    content_hash: str  # what the same mail delivered twice shares (`content_hash`)
    unreadable: str | None = None  # why the message cannot be read as an email, or None

    @property
    def in_reply_to(self) -> str | None:
        return self.references[0] if self.references else None

    @property
    def head(self) -> str:
        """The header block as written (a bounce's return-path tag is read from it)."""
        end = _HEADER_END.search(self.raw, 0, 65536)
        return self.raw[:end.start() if end else 65536].decode("latin-1")

    def header(self, name: str) -> str:
        """A header's value as written, on one line ("" when it is absent)."""
        return " ".join(" ".join(_raw(_heads(self.message), name)).split()) if self.message is not None else ""


def read(raw: bytes, *, head_only: bool = False) -> Mail:
    """Parse one mail (`head_only`: its headers only: `raw` is the start of a message over the
    size limit). Never raises."""
    raw = bytes(raw)
    try:
        parser = BytesHeaderParser if head_only else BytesParser
        msg = parser(policy=mailpolicy.POLICY).parsebytes(raw)
        assert isinstance(msg, EmailMessage)  # the policy's message factory
    except Exception:  # noqa: BLE001 -- nothing the stdlib makes of it
        return _unreadable(raw)
    heads = _heads(msg)
    ids = [_msg_id([r]) for r in " ".join(_raw(heads, "References")).split()]
    in_reply_to = _msg_id(_raw(heads, "In-Reply-To"))
    sender = _sender(heads)
    body: str | None = None
    attachments: tuple[Attachment, ...] = ()
    decoded: tuple[bytes, ...] | None = None
    bounce, unreadable = False, None
    try:
        bounce = msg.get_content_type() == "multipart/report" and \
            str(msg.get_param("report-type", "")).lower() == "delivery-status"
        if not head_only:
            body, attachments, decoded = _parts(msg)
    except Exception:  # noqa: BLE001 -- the stdlib's email package raises assorted errors on broken MIME
        bounce, unreadable = False, "The message could not be read as an email."
        body, attachments, decoded = None, (), None
    return Mail(raw=raw, message=msg, subject=" ".join(_subject(msg, heads).split()), sender=sender,
                recipients=tuple(a.strip().lower() for h in RECIPIENT_HEADERS if h.lower() in heads
                                 for a in _addresses(_raw(heads, h)) if a.strip()),
                message_id=_msg_id(_raw(heads, "Message-ID")), id_header=_id_header(heads),
                references=tuple(dict.fromkeys(filter(None, [in_reply_to, *ids[::-1]]))), id_runs=_id_runs(heads),
                automatic=_automatic(heads, sender), bounce=bounce, body=body, attachments=attachments,
                decoded=decoded, content_hash=content_hash(raw), unreadable=unreadable)


def _unreadable(raw: bytes) -> Mail:
    return Mail(raw=raw, message=None, subject="", sender=None, recipients=(), message_id=None, id_header=None,
                references=(), id_runs=frozenset(), automatic="unreadable headers", bounce=False, body=None,
                attachments=(), decoded=None, content_hash=content_hash(raw),
                unreadable="The message could not be read as an email.")


def _parts(msg: EmailMessage) -> tuple[str | None, tuple[Attachment, ...], tuple[bytes, ...]]:
    """The body as text, the named parts, and every encoded part decoded (each decoded once, each
    part's name read once: the stdlib parses its headers again at every question)."""
    attachments, decoded, payloads, names = [], [], {}, {}
    for part in msg.walk():
        if part.is_multipart():
            continue
        cte = str(part.get("Content-Transfer-Encoding", "")).strip().lower()
        names[id(part)] = name = part.get_filename()
        if cte in ("base64", "quoted-printable") or name:
            payloads[id(part)] = data = mailtext.payload_bytes(part)
            if cte in ("base64", "quoted-printable"):
                decoded.append(data)
            if name:
                attachments.append(Attachment(str(name), data))
    body_part = msg.get_body(preferencelist=("plain", "html"))
    body = None
    if body_part is not None and not str(names.get(id(body_part)) or "").lower().endswith(TURN_SUFFIXES):
        body = mailtext.part_text(body_part, payloads.get(id(body_part)))
    return body, tuple(attachments), tuple(decoded)


# Address and id headers are read raw: the stdlib's structured header parser raises on
# some malformed values, and one broken Cc must not make a player's answers unreadable.
def _heads(msg) -> dict[str, list[str]]:
    """The headers as written, by lower-case name: gone through once, not once a header read."""
    heads: dict[str, list[str]] = {}
    for key, value in msg.raw_items():
        heads.setdefault(key.lower(), []).append(value)
    return heads


def _raw(heads: dict[str, list[str]], name: str) -> list[str]:
    return heads.get(name.lower(), [])


def _subject(msg, heads: dict[str, list[str]]) -> str:
    try:
        return str(msg.get("Subject", ""))  # decodes RFC 2047 encoded words
    except Exception:  # noqa: BLE001 -- a malformed encoded word, whichever error it raises: use it undecoded
        return " ".join(_raw(heads, "Subject"))


def _sender(heads: dict[str, list[str]]) -> str | None:
    for addr in _addresses(_raw(heads, "From")):
        if "@" in addr:
            return addr.strip().lower()
    return None


# An address header as nearly every mail program writes it: one `Name <addr>` or a bare addr, in
# plain atoms (no quotes, comments, folds or groups). Read by this pattern it gives what the
# stdlib's address parser gives, which took a fifth of reading a mail; anything else goes to it.
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_ADDR_SPEC = rf"{_ATOM}(?:\.{_ATOM})*@{_ATOM}(?:\.{_ATOM})*"
_PLAIN_ADDRESS = re.compile(rf"[ \t]*(?:(?:{_ATOM}[ \t]+)*(?:{_ATOM}[ \t]*)?<({_ADDR_SPEC})>|({_ADDR_SPEC}))[ \t]*")


def _addresses(values: list[str]) -> list[str]:
    """The addresses of one address header's `values` (email.utils.getaddresses' second halves)."""
    if len(values) == 1:
        plain = _PLAIN_ADDRESS.fullmatch(values[0])
        if plain:
            return [plain.group(1) or plain.group(2)]
    return [addr for _, addr in getaddresses(values)]


def _msg_id(values: list[str]) -> str | None:
    if not values:
        return None
    # a byte that is not UTF-8 arrives as a surrogate escape, which cannot be stored or hashed
    text = " ".join(values[0].encode("utf-8", "surrogateescape").decode("utf-8", "replace").split())
    m = re.search(r"<[^<>\s]+>", text)
    return m.group() if m else (text or None)


def _id_header(heads: dict[str, list[str]]) -> str | None:
    """The first Message-ID as written, folded lines joined (what the store knows a mail by)."""
    values = _raw(heads, "Message-ID")
    if not values:
        return None
    return " ".join(values[0].encode("ascii", "surrogateescape").decode("ascii", "replace").split()) or None


def _id_runs(heads: dict[str, list[str]]) -> frozenset[str]:
    text = " ".join(v for h in ("Message-ID", "In-Reply-To", "References") for v in _raw(heads, h))
    return frozenset(run.lower() for run in tokens.token_runs(text))


def _automatic(heads: dict[str, list[str]], sender: str | None) -> str | None:
    """Why this mail is one no one may answer (RFC 3834: auto-replies, lists, bulk, bounces,
    machines), or None: a short line, in text the store takes (a header's bytes that are not
    UTF-8 come as surrogate escapes)."""
    why = _automatic_header(heads, sender)
    return why[:100].encode("utf-8", "surrogateescape").decode("utf-8", "replace") if why else None


def _automatic_header(heads: dict[str, list[str]], sender: str | None) -> str | None:
    """A header that cannot be read counts as automatic: no reply then."""
    try:
        auto = " ".join(_raw(heads, "Auto-Submitted")).strip().lower().partition(";")[0].strip()
        if auto and auto != "no":
            return f"Auto-Submitted: {auto}"
        precedence = " ".join(_raw(heads, "Precedence")).strip().lower()
        if precedence in ("bulk", "junk", "list"):
            return f"Precedence: {precedence}"
        for header in ("List-Id", "X-Autoreply", "X-Autorespond"):
            if _raw(heads, header):
                return f"the {header} header"
        if " ".join(_raw(heads, "Return-Path")).strip() == "<>":
            return "an empty Return-Path"
    except Exception:  # noqa: BLE001
        return "unreadable headers"
    if sender and _MACHINE.match(sender):
        return f"sent by {sender}"
    return None


def content_hash(raw: bytes) -> str:
    """sha256 of a message without the headers each delivery adds, and with LF line ends,
    so the same mail delivered twice (or fetched once by pipe, once by IMAP) hashes the same."""
    raw = raw.replace(b"\r\n", b"\n")
    head, sep, body = raw.partition(b"\n\n")
    kept, skipping = [], False
    for i, line in enumerate(head.split(b"\n")):
        if i == 0 and line.startswith(b"From "):  # mbox envelope line
            continue
        if line[:1] in (b" ", b"\t"):  # a folded continuation belongs to the header above
            if not skipping:
                kept.append(line)
            continue
        name = line.partition(b":")[0].strip().lower()
        skipping = name.decode("latin-1") in TRANSPORT_HEADERS
        if not skipping:
            kept.append(line)
    return hashlib.sha256(b"\n".join(kept) + sep + body).hexdigest()

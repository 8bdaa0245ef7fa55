"""The text a player wrote in a mail: body decoding, HTML to text, quotes and signatures cut.

Pure functions over `email.message.EmailMessage` parts and strings; `pbem.inbound.orders` decides
which of the lines returned here are answers.
"""
from __future__ import annotations

import re
from email.message import Message

from mailparser_reply import EmailMessage as _ReplyParser

# Reply headers ("On ... wrote:", "Am ... schrieb ...:", Outlook "From:/Sent:" blocks,
# "-----Original Message-----") come from mail-parser-reply's maintained patterns. Polish is
# left out: its "From:" block pattern accepts a single line such as "Data: ...".
_LANGUAGES = ["en", "de", "fr", "es", "it", "nl", "da", "sv"]
_HEADER = _ReplyParser(text="", languages=_LANGUAGES).HEADER_REGEX
_HEADER_WINDOW = 3      # lines: a wrapped attribution, or a From:/Sent: block with a gap
_HEADER_LINE_MAX = 200  # chars: headers are short, and the patterns are quadratic in line length

# What ends the player's own text outright (our rules; the library's signature patterns also
# cut at "Thanks," or "- item", which players write above their answers).
_END = re.compile(
    r"^(--\s*"                                           # signature delimiter "-- "
    r"|_{10,}"                                           # Outlook separator before "From:"
    r"|-{5,}\s*(original|forwarded) message\s*-{5,}"
    r"|begin forwarded message:"
    r"|sent from (my|outlook|mail for|yahoo mail)\b.*|get outlook for\b.*"  # phones' lines
    r"|-{5,}\s*(urspr(ü|ue)ngliche nachricht|weitergeleitete nachricht)\s*-{5,}"  # German mail programs
    r"|anfang der weitergeleiteten (e-mail|nachricht):"
    r"|gesendet (von|mit) (meinem|outlook|der|mail)\b.*|von meinem \S+ gesendet\b.*"
    r"|outlook f(ü|ue)r (ios|android) (herunterladen|beziehen)\b.*)$",
    re.IGNORECASE,
)
# A short closing line ("Cheers,", "Best regards") followed by a name on the last line.
_SIGN_OFF = re.compile(
    r"^(thanks|thank you|many thanks|cheers|regards|best|best regards|kind regards|"
    r"best wishes|all the best|yours|ciao|bye|take care|greetings"
    r"|(viele|liebe|beste|herzliche|sch(ö|oe)ne|freundliche) gr(ü|ue)(ß|ss)e|mit freundlichen gr(ü|ue)(ß|ss)en"
    r"|gr(ü|ue)(ß|ss)e|gru(ß|ss)|lg|vg|mfg|danke|vielen dank|danke sch(ö|oe)n|tsch(ü|ue)ss|bis bald)\W*$",
    re.IGNORECASE,
)
_NAME = re.compile(r"^[A-Z][\w.'-]*( [A-Z][\w.'-]*)?$")
_COMMON_KEYS = {"left", "right", "reroll", "keep", "fight", "evade", "yes", "no", "done",
                "links", "rechts", "ja", "nein", "fertig", "kampf", "kaempfen", "behalten"}


def _has_class(name: str) -> str:
    return f"//*[contains(concat(' ', normalize-space(@class), ' '), ' {name} ')]"


# HTML parts that are quotes, attributions or signatures, not the player's new text.
_HTML_DROP = " | ".join(
    [_has_class(c) for c in ("gmail_attr", "gmail_signature", "moz-cite-prefix",
                             "moz-signature", "yahoo_quoted")]
    + ["//blockquote", "//*[@id='Signature']", "//*[@id='ms-outlook-mobile-signature']"]
)
# Gmail's quote container also holds answers typed between quoted paragraphs, so it goes
# only when it holds no blockquote (a forwarded message).
_GMAIL_FORWARD = _has_class("gmail_quote") + "[not(.//blockquote)]"
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_LATIN1 = {"iso-8859-1", "iso8859-1", "latin-1", "latin1", "l1", "iso_8859-1"}


def decode(payload: bytes, charset: str | None) -> str:
    """Bytes to text: the declared charset if it fits, else UTF-8, else Windows-1252."""
    # Mail labelled ISO-8859-1 is usually Windows-1252 (curly quotes); browsers agree.
    declared = "windows-1252" if charset and charset.lower() in _LATIN1 else charset
    for label in filter(None, (declared, "utf-8", "windows-1252")):
        try:
            return payload.decode(label)
        except (LookupError, UnicodeError, ValueError):  # unknown label, or bytes don't fit
            continue
    return payload.decode("latin-1")  # maps every byte


def payload_bytes(part: Message) -> bytes:
    """A leaf part's body with its transfer encoding undone (b"" for none)."""
    payload = part.get_payload(decode=True)
    assert payload is None or isinstance(payload, bytes), "not a leaf part"
    return payload or b""


def part_text(part: Message, payload: bytes | None = None) -> str:
    """A text/plain or text/html part as plain text, newline-separated, without BOM
    (`payload`: its bytes, when they were decoded already)."""
    text = decode(payload_bytes(part) if payload is None else payload, part.get_content_charset())
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "")
    if part.get_content_subtype() == "html":
        return html_to_text(text)
    if str(part.get_param("format") or "").lower() == "flowed":
        return unflow(text, delsp=str(part.get_param("delsp") or "").lower() == "yes")
    return text


def unflow(text: str, delsp: bool = False) -> str:
    """RFC 3676 format=flowed: join soft-broken lines so wrapped prose is one line."""
    out: list[list[str]] = []  # [quote marks, text]
    soft = False
    for raw in text.split("\n"):
        quote = raw[: len(raw) - len(raw.lstrip(">"))]
        body = raw[len(quote):]
        body = body.removeprefix(" ")  # space-stuffing
        if soft and out and out[-1][0] == quote:
            out[-1][1] += body
        else:
            out.append([quote, body])
        soft = body.endswith(" ") and body != "-- "
        if soft and delsp:
            out[-1][1] = out[-1][1][:-1]
    return "\n".join(q + " " + b if q else b for q, b in out)


def html_to_text(html: str) -> str:
    """HTML body to text, with quoted replies, attributions and signatures removed first."""
    import lxml.html  # an HTML-only mail's: lxml and inscriptis cost every other process 60 ms to import
    from inscriptis.html_engine import Inscriptis
    from lxml import etree
    html = _CONTROL.sub("", html)
    if not html.strip():
        return ""
    try:
        tree = lxml.html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return ""
    # Outlook puts the quoted mail *after* its header block, as siblings: cut it all.
    for el in tree.xpath("//*[@id='divRplyFwdMsg' or @id='appendonsend']"):
        _drop_from(el)
    for el in tree.xpath(_GMAIL_FORWARD) + tree.xpath(_HTML_DROP):
        if el.getparent() is not None:
            el.drop_tree()  # keeps the tail: text after a quote is the player's again
    return Inscriptis(tree).get_text()


def _drop_from(el) -> None:
    """Remove `el` and everything after it in document order."""
    node = el
    while node.getparent() is not None:
        parent = node.getparent()
        for sibling in list(node.itersiblings()):
            parent.remove(sibling)
        node.tail = None
        node = parent
    if el.getparent() is not None:
        el.getparent().remove(el)


def own_lines(text: str) -> list[str]:
    """The non-empty lines the player wrote, stripped: no quotes, reply headers, signature.

    A reply header followed by `>` lines introduces a quote, and unquoted text after that
    quote is the player's again (bottom-posting, interleaving). A header followed by unquoted
    text (Outlook's "From: ... Sent: ...") starts the quoted original: nothing after is theirs.
    """
    lines = [ln.replace("\u200b", "").strip() for ln in text.split("\n")]
    own: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(">"):
            i += 1
            continue
        if _END.match(line):
            break
        header_end = _header_end(lines, i)
        if header_end is not None:
            after = next((ln for ln in lines[header_end + 1:] if ln), None)
            if after is not None and not after.startswith(">"):
                break
            i = header_end + 1
            continue
        if line:
            own.append(line)
        i += 1
    return _drop_sign_off(own)


def _header_end(lines: list[str], i: int) -> int | None:
    """If a reply header starts at line i, the index of its last line."""
    if ":" not in "".join(lines[i:i + _HEADER_WINDOW]) or not lines[i]:
        return None
    window = "\n".join(ln[:_HEADER_LINE_MAX] for ln in lines[i:i + _HEADER_WINDOW])
    m = _HEADER.match(window)
    if not m or not m.group().strip():
        return None
    return i + m.group().rstrip().count("\n")


def _drop_sign_off(own: list[str]) -> list[str]:
    """Drop "Cheers," + "Alice" at the end: the name would otherwise look like an answer."""
    if (len(own) >= 2 and _SIGN_OFF.match(own[-2]) and _NAME.match(own[-1])
            and own[-1].lower() not in _COMMON_KEYS):
        return own[:-2]
    return own


def looks_like_name(line: str) -> bool:
    """A bare signed name on the last line ("Carol", "Alice Smith"): capitalised words, none a
    common option key."""
    return bool(_NAME.match(line)) and line.lower() not in _COMMON_KEYS and line[:1].isupper()

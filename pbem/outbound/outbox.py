"""Outgoing mail: a row first, a send second.

`enqueue` stores a mail's headers and the context its templates are rendered from;
`rendered` renders a row's text and HTML (pbem/outbound/render.py) when it is first sent, and the
row keeps them from then on. `wire` writes a row as the bytes sent (pbem/outbound/mime.py) at send
time, which is also when a player's token takes the place of the row's marker (the database
never holds a token); `build` reads them back as an EmailMessage. Sending them is pbem/outbound/sending.py.
"""
from __future__ import annotations

import email
import email.policy
import functools
import re
import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from typing import TYPE_CHECKING

import msgspec

from pbem.archive import archive
from pbem.base import i18n, log, tokens
from pbem.core import people
from pbem.outbound import calendar, contexts, links, mime

if TYPE_CHECKING:
    from pbem.core.service import Service

_LINEBREAK = re.compile(r"[\r\n\x00]+")


def clean(value: str) -> str:
    """A header value on one line: a newline in a name cannot start another header."""
    return _LINEBREAK.sub(" ", str(value)).strip()


@functools.lru_cache(maxsize=1024)  # a move's mails name the same few (issue 28: 2 a mail queued)
def mailbox(name: str | None, addr: str) -> str:
    """`Name <addr>`, quoted as needed."""
    return formataddr((clean(name or ""), clean(addr)))


def date_header(when: datetime) -> str:
    """The Date header of a mail made `when` (to the second: the mails of one move share one)."""
    return _date_header(when.replace(microsecond=0))


@functools.lru_cache(maxsize=8)
def _date_header(when: datetime) -> str:
    return format_datetime(when)


def domain_of(address: str) -> str:
    return address.rpartition("@")[2] or "localhost"


# The kinds of mail that answer a mail that came in (Auto-Submitted: auto-replied); the others
# report on their own (auto-generated).
REPLIES = frozenset({"receipt", "error", "stranger", "unprocessed"})


def new_marker() -> str:
    """Stands for a token in a queued mail; random, so no text a player wrote can hold it."""
    return "pbemtoken" + secrets.token_hex(8)


# -- a reply's receipts held back, to go as one mail (a digest reply: pbem/inbound/digest.py) --

HELD_KINDS = ("receipt", "error")
_holding: ContextVar[tuple[str, list[dict]] | None] = ContextVar("holding", default=None)


@contextmanager
def holding(address: str) -> Iterator[list[dict]]:
    """Within: the receipts and errors queued for `address` are not queued but collected in the
    list given (each as {"kind", "game", "context"}), for the caller to answer with one mail."""
    held: list[dict] = []
    reset = _holding.set((address.lower(), held))
    try:
        yield held
    finally:
        _holding.reset(reset)


def enqueue(svc: Service, *, kind: str, message_id: str, sender: str, to: str, to_name: str | None, subject: str,
            context: dict | None = None, text: str = "", html: str | None = None, game: str | None = None,
            player: dict | None = None, marker: str | None = None, in_reply_to: str | None = None,
            references: Sequence[str | None] = (), inbox_id: int | None = None, since_seq: int | None = None,
            extra_headers: dict | None = None, reply: bool = False, calendar: str | None = None,
            by_address: bool = False, offered: str | None = None,
            told: list[tuple[str, str, int]] | None = None, counted: bool = False) -> bool | None:
    """Queue one mail: the `context` template `kind` is rendered from when it is sent, or a
    `text` and `html` already made (a resent mail). `player` (a players row) gets a Reply-To
    carrying their token; `marker`, if given, is what the texts use in place of that token.
    `reply`: it answers a mail that came in (as every mail of the REPLIES kinds does); `calendar`:
    the reader's deadlines as a text/calendar part (pbem/outbound/calendar.py); `by_address`: its
    Reply-To carries the digest token of the address `to` (pbem/pace/daily.py); `offered`: the seat
    an invitation (kind `offer`) offers, `marker` in its texts standing for the reader's code to
    take it, filled in when it is sent (pbem/moderate/offers.py); `told`: the seats a digest
    tells what happened, each as (game, seat, its `reported_seq` before), which a bounce of it
    rewinds (pbem/outbound/bounces.py), as a report's `since_seq`. The mail is
    in the language texts are made in now (pbem/base/i18n.py `using`): it says so in
    `Content-Language`, and its context renders in it. `counted`: return whether it was queued
    (False: a mail of the same Message-ID was, before) -- on PostgreSQL a wait for the server;
    without it the row goes in the transaction's pipeline and None is returned."""
    held = _holding.get()
    if held is not None and kind in HELD_KINDS and to.lower() == held[0]:
        held[1].append({"kind": kind, "game": game, "context": context or {}})
        return False
    lang = i18n.current()
    if context is not None and "lang" not in context:
        context = {**context, "lang": lang}
    headers = {
        "From": mailbox(f"Talisman {game}" if game else "Talisman", sender),
        "To": mailbox(to_name, to),
        "Subject": clean(subject),
        "Date": date_header(svc.now()),
        "Message-ID": message_id,
        # RFC 3834: a well-behaved responder answers neither; ours tells a reply from a report
        "Auto-Submitted": "auto-replied" if reply or kind in REPLIES else "auto-generated",
        "Content-Language": (context or {}).get("lang") or lang,
        **(extra_headers or {}),
    }
    tokened = player is not None or by_address
    if tokened:
        marker = marker or new_marker()
        headers["Reply-To"] = tokens.plus_address(sender, marker)
    # ids quoted from inbound mail are kept but for a token-shaped run in them: none is stored in clear
    if in_reply_to:
        headers["In-Reply-To"] = tokens.mask_tokens(clean(in_reply_to))
    refs = [tokens.mask_tokens(clean(r)) for r in references if r]
    if refs:
        headers["References"] = " ".join(refs)
    return svc.store.add_outbox(message_id=message_id, kind=kind, to_addr=clean(to), subject=headers["Subject"],
                                headers=headers, text=text, html=html, game=game,
                                context=None if context is None else msgspec.json.encode(context).decode(),
                                player=player["name"] if player else offered,
                                token_marker=marker if tokened or offered else None, inbox_id=inbox_id,
                                since_seq=since_seq, calendar=calendar,
                                told=msgspec.json.encode(told).decode() if told else None, counted=counted)


QUESTION_HEADER = "X-Talisman-Question"  # the question a report asks (a reply to it answers that one only)
STALE_KINDS = ("report", "reminder")  # what only asks a question: its answer makes it pointless


def withdraw_answered(svc: Service, game: str, player: str, prompt: int) -> int:
    """A question of `player`'s answered by a standing order or a bot: the reports and reminders
    asking it that are not sent yet never go (a reply to one would be played against the next
    question). Returns how many were withdrawn."""
    header = msgspec.json.encode({QUESTION_HEADER: str(prompt)}).decode()[1:-1]  # as add_outbox stores it
    withdrawn = svc.store.withdraw_queued(game, player, STALE_KINDS, header)
    if withdrawn:  # the events they carried were not received: a later mail must not cancel or move them
        calendar.not_received(svc, game, player, svc.store.withdrawn_calendars(game, player, STALE_KINDS, header))
    return withdrawn


def rendered(svc: Service, row: dict, frames: dict[int, str] | None = None) -> dict:
    """The row with its text and HTML: rendered from its context if it has not been yet.
    `frames`: the report frames read so far by the caller's round (by id), to read each once
    (a move's readers share one)."""
    if row.get("context") is None:
        return row
    from pbem.outbound import render  # Jinja only where a mail is rendered: not in a process that only queues
    context = msgspec.json.decode(row["context"])
    board = context.get("board")
    if isinstance(board, dict) and "stored" in board:  # the move's shared frame, stored once
        frames = {} if frames is None else frames
        if board["stored"] not in frames:
            frames[board["stored"]] = svc.store.frame(board["stored"])
        context["board"] = render.StoredFrame(frames[board["stored"]])
    if contexts.MADE in context:  # a report queued as what it is made from: made whole now
        context = contexts.made(svc, context)
    text, html = render.render(svc, row["kind"], context)
    return {**row, "text": text, "html": html, "context": None}


def mail(svc: Service, id: int) -> dict | None:
    """Outbox row `id` as it will be sent (rendered, the token still a marker); a rendered
    row keeps its text from then on (a resend copies it)."""
    row = svc.store.outbox_mail(id)
    if row is None or row["context"] is None:
        return row
    row = rendered(svc, row)
    svc.store.outbox_rendered(id, row["text"], row["html"])
    return row


def build(svc: Service, row: dict) -> EmailMessage:
    """The mail of an outbox row as a message object, read back from the bytes `wire` sends."""
    return email.message_from_bytes(wire(svc, row), policy=email.policy.default)


def headers_of(row: dict) -> dict[str, str]:
    """An outbox row's headers (stored as JSON), as written when it was queued."""
    return msgspec.json.decode(row["headers"])


def wire(svc: Service, row: dict, headers: dict[str, str] | None = None) -> bytes:
    """The mail of an outbox row as it is sent (rendered, the token filled in, its attachments),
    written directly (pbem/outbound/mime.py); `headers`: the row's (`headers_of`), if read."""
    row = rendered(svc, row)
    headers, text, html = headers_of(row) if headers is None else headers, row["text"], row["html"]
    marker = row["token_marker"]
    if marker and row["player"] and row["kind"] == OFFER:
        text, html = (s.replace(marker, offer_code(svc, row)) if s else s for s in (text, html))
    elif marker and row["player"]:
        player = svc.store.player(row["game"], row["player"])
        token = svc.token(player) if player else "revoked"
        seat = links.seat_fill(svc, marker, player, token)  # the token made once a mail
        fill = lambda s: s.replace(*seat).replace(marker, token) if s and marker in s else s
        headers = {k: fill(v) for k, v in headers.items()}
        text, html = fill(text), fill(html)
    elif marker:  # a mail to an address about its games (a digest): its reply opens its seats
        token = people.digest_token(svc, row["to_addr"])
        headers = {k: v.replace(marker, token) if v else v for k, v in headers.items()}
    return mime.message(headers, text, html, attachments(svc, row))


OFFER = "offer"  # an invitation to take a seat: its code is filled in as a token is


def offer_code(svc: Service, row: dict) -> str:
    """The code of the invitation `row` (its seat, its reader), or "withdrawn" when the seat is
    no longer offered to them (taken, withdrawn, or offered again with a new code)."""
    offer = next((o for o in svc.store.offers(row["game"], row["player"])
                  if o["email"].lower() == row["to_addr"].lower()), None)
    if offer is None:
        return "withdrawn"
    return tokens.offer_code(svc.key, row["game"], row["player"], offer["email"], offer["salt"])


def attachments(svc: Service, row: dict) -> list[mime.Attachment]:
    """A report's calendar part (the reader's deadlines); the game-over mail carries the game's
    archive, which it tells its reader to verify (the file `pbem export` writes: the seed, every
    move, what each showed). A game whose archive cannot be made (its log no longer replays)
    sends the mail without it, logged."""
    parts = [calendar.attachment(row["calendar"])] if row.get("calendar") else []
    if row["kind"] != "gameover" or not row["game"]:
        return parts
    try:
        name, data = archive.attachment(svc, row["game"])
    except Exception:  # noqa: BLE001 -- the mail still goes: its text holds the seed
        log.get(outbox=row["id"], game=row["game"]).exception("the game's archive could not be made")
        return parts
    return [*parts, mime.Attachment(name, "application/json", data)]

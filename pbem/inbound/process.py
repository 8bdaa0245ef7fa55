"""One inbound message -> stored -> read -> authenticated -> applied -> logged -> replies.

"Nothing lost, nothing twice": one transaction stores the raw message (deduplicated by
Message-ID and content hash) and, in a savepoint within it, does all the rest and marks the
message processed. If processing fails, the savepoint is undone and the failure recorded
beside the stored message, which `retry_pending` (run by `pbem serve`) tries again. If the
process dies, nothing was committed and the source, which is told only after the commit
(the MTA by the exit code, a folder by moving the file), hands the message over again.
One commit per message, not two: the store's fsync is the costliest step of a move.
"""
from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Collection
from dataclasses import dataclass
from datetime import timedelta
from email.parser import BytesHeaderParser
from email.utils import parseaddr
from typing import TYPE_CHECKING

from pbem.base import log, mailpolicy, tokens
from pbem.core import games
from pbem.inbound import orders
from pbem.moderate import moderator
from pbem.outbound import announce, bounces, notices, observers, outbox, press, reports
from pbem.pace import moves, standing
from pbem.store import StoreUnavailable, iso, storable_data

if TYPE_CHECKING:
    from pbem.core.service import Service

MAX_ATTEMPTS = 5  # a message that makes processing raise this often is set aside (failed), its sender answered
REFUSED = ("refused", "rejected")


@dataclass
class Result:
    status: str  # applied | partial | rejected | checked | refused | duplicate | error
    outcome: str  # one line for the moderator's log: never a token or a seed
    inbox_id: int | None = None
    game: str | None = None
    player: str | None = None

    @property
    def refused(self) -> bool:
        return self.status in REFUSED


def handle(svc: Service, raw: bytes, kind: str = "mail", *, source: str = "stdin", filename: str | None = None,
           upload_id: str | None = None, size: int | None = None) -> Result:
    """Store and process one message (kind "mail") or turn file (kind "turn", `filename`
    says .toml or .json). Raises StoreUnavailable only if the message could not be stored;
    once it returns, the message is safe in the inbox whatever became of it (inside
    `Store.group_commit()`: once the group's closing fsync is done).

    `upload_id` names a turn file's upload (a drop-folder file's unique name, a file's path
    and change time): the same bytes under the same id are one message, read again or not.
    `size`: the message's full size when `raw` is only its start (a source that would not
    read a message over the limit); such a message is refused and only its headers kept."""
    if kind == "turn" and not filename:
        raise ValueError("a turn file needs its filename (.toml or .json)")
    raw = bytes(raw)
    size = len(raw) if size is None else size
    parsed = None if size > orders.MAX_BYTES else read_raw(raw, kind, filename)  # before the write lock
    try:
        with svc.store.transaction():  # one commit: the message and, in a savepoint, what it did
            if parsed is None:
                return _too_large(svc, raw, kind, source, filename, size)
            stored: dict = {}  # the new row, as stored: processing need not read it back
            inbox_id, earlier = receive(svc, raw, kind, source, filename, upload_id, parsed[0], stored)
            if earlier is not None and earlier["status"] != "received":
                return Result("duplicate", f"duplicate of message {inbox_id} ({earlier['status']})", inbox_id,
                              earlier["game"], earlier["player"])
            return process_inbox(svc, inbox_id, parsed if earlier is None else None, stored or None)
    except svc.store.errors as e:  # the message could not be stored: the source keeps it
        raise StoreUnavailable(str(e)) from e


_HEADER_END = re.compile(rb"\r?\n\r?\n")
_MESSAGE_ID = re.compile(rb"^message-id:[ \t]*(.*(?:\r?\n[ \t].*)*)", re.IGNORECASE | re.MULTILINE)
KEPT_HEAD = 64 * 1024  # of a message refused for its size, only this much of its headers is kept


def _message_id(raw: bytes) -> str | None:
    """The first Message-ID header as written (folded lines joined): read with a pattern, not
    a mail parser, because nothing is parsed before the message is stored."""
    end = _HEADER_END.search(raw)
    m = _MESSAGE_ID.search(raw, 0, end.start() if end else len(raw))
    if not m:
        return None
    return " ".join(m.group(1).decode("ascii", "replace").split()) or None


def _dedupe_hash(svc: Service, raw: bytes, kind: str, upload_id: str | None, order: orders.Order | None) -> str:
    """What makes two messages the same: a mail by its content (and, in find_inbox, its
    Message-ID); a turn file by its content and its upload id, never by when it came, so one
    read again after a crash is known again however far its game has got since. A caller
    that names no upload keeps the older rule: content and the game's move count."""
    content_hash = orders.content_hash(raw)
    if kind != "turn":
        return content_hash
    if upload_id is None:
        game = svc.store.game(order.game) if order is not None and order.game else None
        return f"{content_hash}@{game['moves']}" if game else content_hash
    return hashlib.sha256(f"turn\n{content_hash}\n{upload_id}".encode()).hexdigest()


def known_tokens(svc: Service, raw: bytes, token: str | None) -> set[str]:
    """The tokens the id headers may hold (which are masked only when known to be tokens):
    the message's own, and any run there that opens a seat."""
    runs = {run for run in tokens.id_header_runs(raw) if svc.store.players_by_token_hash(tokens.hash_token(run))}
    return runs | ({token} if token else set())


def stored_form(raw: bytes, kind: str, known: Collection[str] = frozenset()) -> bytes:
    """The message as kept: every token masked (pbem/base/tokens.py), decoded parts included."""
    return tokens.mask_message(raw, known) if kind == "mail" else tokens.mask_bytes(raw)


def _masked_id(message_id: str | None, known: set[str]) -> str | None:
    """The Message-ID as kept for dedupe: a token in it stands as part of its hash, so two ids
    that differ only in their tokens stay two (the hash of an 80-bit token gives nothing away)."""
    for tok in known:
        message_id = message_id and re.sub(re.escape(tok), f"[token:{tokens.hash_token(tok)[:12]}]", message_id,
                                           flags=re.IGNORECASE)
    return message_id


def receive(svc: Service, raw: bytes, kind: str, source: str, filename: str | None, upload_id: str | None = None,
            order: orders.Order | None = None, stored: dict | None = None) -> tuple[int, dict | None]:
    """Store the message unless it is known: (its inbox id, the earlier row or None). It is
    stored masked; the token it carried (read already: `order`) is kept only as its hash.
    `stored`, if given, is filled with the new row (Store.add_inbox). Inside the caller's
    transaction (`handle`'s, which turns a failure of the store into StoreUnavailable)."""
    known = known_tokens(svc, raw, order.token if order else None) if kind == "mail" else set()
    message_id = _masked_id(_message_id(raw), known) if kind == "mail" else None
    content_hash = _dedupe_hash(svc, raw, kind, upload_id, order)
    earlier = svc.store.find_inbox(message_id, content_hash)
    if earlier is not None:
        return earlier["id"], earlier
    token_hash = tokens.hash_token(order.token) if order is not None and order.token else None
    return svc.store.add_inbox(stored_form(raw, kind, known), source=source, kind=kind, content_hash=content_hash,
                               message_id=message_id, filename=filename, token_hash=token_hash, stored=stored), None


def _too_large(svc: Service, raw: bytes, kind: str, source: str, filename: str | None, size: int) -> Result:
    """A message over the limit: its headers are kept (to answer it and know it again), its
    body is never stored; the sender is told."""
    end = _HEADER_END.search(raw)
    head = raw[:min(end.start() if end else len(raw), KEPT_HEAD)] if kind == "mail" else b""
    note = f"\n\n[not stored: the message was {size} bytes, over the {orders.MAX_BYTES} byte limit]\n".encode()
    known = known_tokens(svc, raw, None) if kind == "mail" else set()
    message_id = _masked_id(_message_id(raw), known) if kind == "mail" else None
    content_hash = hashlib.sha256(b"too-large\n%d\n" % size + raw[:KEPT_HEAD]).hexdigest()
    earlier = svc.store.find_inbox(message_id, content_hash)
    if earlier is not None:
        return Result("duplicate", f"duplicate of message {earlier['id']} ({earlier['status']})", earlier["id"])
    inbox_id = svc.store.add_inbox(stored_form(head, "mail", known) + note, source=source, kind=kind,
                                   content_hash=content_hash, message_id=message_id, filename=filename)
    row = svc.store.inbox(inbox_id)
    assert row is not None  # stored just above
    _reply_unprocessed(svc, row, f"It is larger than {orders.MAX_BYTES // (1024 * 1024)} MB: please send your "
                                 "answers as text, without large attachments.", tell_moderator=False)
    outcome = f"refused: the message is {size // 1024} KB, over the {orders.MAX_BYTES // 1024} KB limit"
    svc.store.finish_inbox(inbox_id, "processed", outcome)
    log.get(inbox=inbox_id).info("processed", status="refused", outcome=outcome)
    return Result("refused", outcome, inbox_id)


def process_inbox(svc: Service, inbox_id: int, parsed: tuple | None = None, row: dict | None = None) -> Result:
    """Process a stored message that is still `received`, all or nothing. `parsed`: what
    `read_raw` made of it before it was stored (its token in clear, in memory only); `row`:
    the message as this transaction just stored it (else it is read, and locked)."""
    logger = log.get(inbox=inbox_id)
    try:
        with svc.store.transaction(redoable=True, savepoint=True):  # a failure undoes this, not the stored message
            row = row or svc.store.inbox(inbox_id)
            assert row is not None, f"no stored message {inbox_id}"
            if row["status"] != "received":
                return Result("duplicate", f"message {inbox_id} was {row['status']} already", inbox_id,
                              row["game"], row["player"])
            order, error = parsed if parsed is not None else read(row)
            result = _process(svc, row, order, error)
            svc.store.finish_inbox(inbox_id, "processed", result.outcome, result.game, result.player)
    except Exception as e:  # the message is kept; serve tries it again
        logger.exception("processing failed")
        reason = log.scrub(f"{type(e).__name__}: {e}")[:300]
        with svc.store.transaction():
            if svc.store.inbox_attempt_failed(inbox_id, reason, MAX_ATTEMPTS):
                _given_up(svc, inbox_id, reason)
        return Result("error", log.scrub(f"processing failed: {e!r}"), inbox_id)
    logger.info("processed", status=result.status, game=result.game, player=result.player, outcome=result.outcome)
    return result


def _given_up(svc: Service, inbox_id: int, reason: str) -> None:
    """Processing failed MAX_ATTEMPTS times: the sender is answered, the moderator told why."""
    try:
        with svc.store.transaction(savepoint=True):
            row = svc.store.inbox(inbox_id)
            assert row is not None  # its attempts were just counted
            _reply_unprocessed(svc, row, "Something went wrong on our side while processing it.", reason=reason)
    except Exception:  # noqa: BLE001 -- the failure stays recorded on the row; `pbem inbox list` shows it
        log.get(inbox=inbox_id).exception("could not tell anyone about a failed message")


def retry_pending(svc: Service) -> list[Result]:
    """Process the messages left `received` by a crash or an error."""
    return [process_inbox(svc, row["id"]) for row in svc.store.inbox_rows(status="received")]


# -- the steps ----------------------------------------------------------------------------

def read_raw(raw: bytes, kind: str, filename: str | None) -> tuple[orders.Order | None, orders.OrderError | None]:
    """The order in a message, or why it cannot be read: never raises (a reader's failure of
    any kind is a refusal with a reply, not a message that blocks its source)."""
    try:
        order = orders.parse_mail(raw) if kind == "mail" else orders.parse_turn_file(raw, filename or "")
    except orders.OrderError as e:
        return None, e
    except Exception:  # noqa: BLE001
        return None, orders.OrderError("The message could not be read.")
    return storable_data(order), None  # the sender's text as it is quoted, stored and logged: no NUL


def read(row: dict) -> tuple[orders.Order | None, orders.OrderError | None]:
    """The order in a stored message (its tokens masked: `row["token_hash"]` stands for them)."""
    return read_raw(row["raw"], row["kind"], row["filename"])


def authenticate(svc: Service, order: orders.Order, kind: str, token_hash: str | None = None) -> tuple[dict,
                                                                                                       dict] | str:
    """(game, player) of the seat the order's token opens, or why none does (`token_hash`: of
    the token a stored message carried, for one read back masked). A mail must also come from
    the player's address; a turn file (upload) needs the token only."""
    token_hash = tokens.hash_token(order.token) if order.token else token_hash
    if not token_hash:
        return "no token"
    seats = [p for p in svc.store.players_by_token_hash(token_hash)
             if hmac.compare_digest(p["token_hash"], token_hash)]
    if order.game and not any(p["game"] == order.game for p in seats):
        return f"the token opens no seat in game {order.game!r}" if svc.store.game(order.game) else \
            f"unknown game {order.game!r}"
    seats = [p for p in seats if order.game in (None, p["game"]) and order.player in (None, p["name"])]
    if not seats:
        return "the token opens no seat" + (f" for player {order.player!r}" if order.player else "")
    seat = seats[0]
    if seat["status"] != "active":
        return f"{seat['game']}/{seat['name']}: the seat was taken away"
    if kind == "mail" and (order.sender or "").lower() != seat["email"].lower():
        return f"{seat['game']}/{seat['name']}: sender {order.sender!r} is not the player's address"
    return games.get(svc, seat["game"]), seat


def _headers(raw: bytes):
    return BytesHeaderParser(policy=mailpolicy.POLICY).parsebytes(raw)


def _header_sender(raw: bytes) -> str | None:
    """The From address of a mail too broken to read as an order."""
    try:
        return parseaddr(str(_headers(raw).get("From", "")))[1].lower() or None
    except Exception:  # noqa: BLE001 -- no reply then
        return None


def _is_automatic(raw: bytes) -> bool:
    """Mail no one should answer: auto-replies, bounces, lists (no mail loops); and mail whose
    headers cannot be read."""
    try:
        h = _headers(raw)
    except Exception:  # noqa: BLE001
        return True
    auto = str(h.get("Auto-Submitted", "no")).strip().lower()
    return (auto != "no" or str(h.get("Precedence", "")).strip().lower() in ("bulk", "junk", "list")
            or "List-Id" in h or str(h.get("Return-Path", "")).strip() == "<>")


def _reply_to(svc: Service, row: dict, order: orders.Order | None) -> str | None:
    """Whom a refusal may answer: the sender of a mail that is not automatic and not our own,
    at most `stranger_replies` times a day per address (From can be forged: no backscatter)."""
    if row["kind"] != "mail":
        return None
    sender = order.sender if order else _header_sender(row["raw"])
    if not sender or sender.lower() == svc.settings.address.lower() or _is_automatic(row["raw"]):
        return None
    if not sender.isascii():
        return None  # bytes that were not ASCII, or control characters (pbem/store/common.py): no one to answer
    since = iso(svc.now() - timedelta(days=1))
    if svc.store.count_mail_to(sender, ("stranger", "unprocessed"), since) >= svc.settings.stranger_replies:
        log.get(inbox=row["id"]).info("no reply: the daily limit of replies to this address is reached")
        return None
    return sender


def _refuse(svc: Service, row: dict, order: orders.Order | None, reason: str) -> Result:
    """Nothing is applied; a stranger learns nothing about any game (no names, no state). The
    moderator hears of it in the next digest (one line a day per address, counted)."""
    who = (order.sender if order else None) or (_header_sender(row["raw"]) if row["kind"] == "mail" else None)
    notices.add(svc, "stranger", f"{who or 'a ' + row['kind'] + ' from ' + row['source']}: {reason}",
                key=f"{(who or row['source']).lower()}.{svc.now():%Y-%m-%d}")
    sender = _reply_to(svc, row, order)
    if sender:
        reports.queue_stranger(svc, sender, inbox_id=row["id"],
                               in_reply_to=order.message_id if order else _message_id(row["raw"]))
    return Result("refused", log.scrub(f"refused: {reason}"), row["id"])


def _reply_unprocessed(svc: Service, row: dict, why: str, *, reason: str | None = None,
                       tell_moderator: bool = True) -> None:
    """Tell the sender we could not process their message (with `tell_moderator`: that the
    moderator knows, and tell the moderator `reason`). A turn file's sender is the seat its
    token opened, if any; a mail's, its From (rate-limited like any refusal)."""
    order, _ = read(row)
    seat = authenticate(svc, order, row["kind"], row.get("token_hash")) if order is not None else "unread"
    game = seat[0] if not isinstance(seat, str) else None
    to = seat[1]["email"] if not isinstance(seat, str) else _reply_to(svc, row, order)
    in_reply_to = order.message_id if order else _message_id(row["raw"])
    if to:
        ctx = {"address": svc.settings.address, "why": why, "moderator_told": tell_moderator}
        outbox.enqueue(svc, kind="unprocessed",
                       message_id=reports.message_id(svc, None, f"in{row['id']}", "unprocessed"),
                       sender=svc.settings.address, to=to, to_name=None,
                       subject="Your message to the Talisman service could not be processed", context=ctx,
                       in_reply_to=in_reply_to, references=[in_reply_to], inbox_id=row["id"])
    if tell_moderator:
        lines = [(f"Message {row['id']} ({row['kind']} from {row['source']}, received {row['received_at']}) could "
                 f"not be processed after {MAX_ATTEMPTS} attempts: {reason}"),
                 "The sender was answered that we could not process it." if to else
                 "The sender could not be answered (no address, or the daily limit of replies).",
                 "It is kept in the inbox as failed (`pbem inbox list`)."]
        notices.add(svc, "unprocessed", " ".join(lines), key=row["id"], game=game["id"] if game else None)


def _reply_error(svc: Service, game, player, row, order, reason: str) -> Result:
    extra = {"failed": {"line": None, "reason": reason, "options": []}, "check": order.check,
             "attempts": order.attempts}
    reports.queue_report(svc, game, player, games.state(svc, game), kind="error",
                         mid_parts=(f"in{row['id']}",), extra=extra, in_reply_to=order.message_id, inbox_id=row["id"])
    return Result("rejected", f"rejected: {reason}", row["id"], game["id"], player["name"])


def _process(svc: Service, row: dict, order: orders.Order | None, error: orders.OrderError | None) -> Result:
    if row["kind"] == "mail" and bounces.is_report(row["raw"]):  # a bounce: mark whom it names, answer nothing
        outcome, bounced_game, bounced_player = bounces.handle(svc, row["raw"])
        return Result("bounce", outcome, row["id"], bounced_game, bounced_player)
    if error is not None:
        return _refuse(svc, row, None, f"unreadable: {error}")
    assert order is not None  # read_raw gives an order or an error
    seat = authenticate(svc, order, row["kind"], row.get("token_hash"))
    if seat == "no token" and row["kind"] == "mail" and order.game:
        watched = _observer(svc, row, order)
        if watched is not None:
            return watched
    if isinstance(seat, str):
        return _refuse(svc, row, order, seat)
    game, player = seat
    bounces.heard_from(svc, player)
    if game["status"] != "active":
        return _reply_error(svc, game, player, row, order,
                            f"The game {game['id']} is {game['status']}: it takes no answers now.")
    if "resign" in order.commands:
        return _resign(svc, game, player, row, order)
    if order.press:
        order.press_notes = press.send(svc, game, player, order.press, row["id"])
        if not order.lines and not order.directives and "status" not in order.commands:
            reports.queue_report(svc, game, player, games.state(svc, game), kind="receipt",
                                 mid_parts=(f"in{row['id']}",), extra={"press_notes": order.press_notes},
                                 in_reply_to=order.message_id, inbox_id=row["id"], catch_up=False)
            return Result("applied", log.scrub("press: " + " ".join(order.press_notes)), row["id"], game["id"],
                          player["name"])
    if not order.lines and not order.directives:
        if "status" in order.commands:
            return _status(svc, game, player, row, order)
        return _reply_error(svc, game, player, row, order, "No answers were found in your message.")
    return apply_order(svc, game, player, row, order)


def _observer(svc: Service, row: dict, order: orders.Order) -> Result | None:
    """A mail from an observer of the game its subject names: `status` brings the public
    report; anything else is answered that observers may send only that. None: no observer."""
    game = svc.store.game(order.game) if order.game else None
    observer = observers.find(game, order.sender) if game else None
    if game is None or observer is None or _is_automatic(row["raw"]):
        return None
    if order.commands == ["status"] and not (order.lines or order.directives or order.press):
        observers.status(svc, game, observer, row["id"], order.message_id)
        return Result("applied", "status: the public report sent to an observer", row["id"], game["id"])
    ctx = {"address": reports.game_address(svc, game), "subject": f"You watch the game {game['id']}",
           "lines": [(f"You watch the game {game['id']} as an observer, so your mail plays nothing and "
                     "reaches no one."), ("A mail with the word \"status\" (a line, or the subject) brings the "
                     "report again at once.")]}
    outbox.enqueue(svc, kind="notice", message_id=reports.message_id(svc, game, f"in{row['id']}", "observer"),
                   sender=reports.game_address(svc, game), to=observer["email"], to_name=observer["name"],
                   subject=f"[{game['id']}] Observers may send status only", context=ctx, game=game["id"],
                   in_reply_to=order.message_id, references=[order.message_id], inbox_id=row["id"])
    return Result("rejected", "rejected: an observer may send status only", row["id"], game["id"])


def resign_code(svc: Service, player: dict) -> str:
    """The code that confirms a seat's `resign`: derived, never stored; a replaced seat (new
    salt) has a new one."""
    msg = f"resign\0{player['game']}\0{player['name']}\0{player['token_salt']}".encode()
    return hmac.new(svc.key, msg, hashlib.sha256).hexdigest()[:8]


def _resign(svc: Service, game: dict, player: dict, row: dict, order: orders.Order) -> Result:
    """`resign` asks for a confirmation; `resign CODE` takes the seat out: it takes no orders and
    gets no mail, and its character leaves play by the engine's `leave-game` move."""
    code, name = resign_code(svc, player), player["name"]
    confirmed = order.resign_code is not None and hmac.compare_digest(order.resign_code, code)
    if confirmed:
        svc.store.update_player(game["id"], name, status="removed")
        left = _leave_play(svc, game, name)
        lines = [(f"You have left the game {game['id']}. You get no more mail from it and it takes no more "
                 "answers from you."), "Thank you for playing."]
        subject, outcome = "You have left the game", "resigned"
        notices.add(svc, "resigned", f"{name} resigned by mail (confirmed with the code sent to them). " + (
            f"Their character has left play (the move `leave-game {name}` is in the log) and the game goes on."
            if left else f"Their character could not leave play ({left.reason}): the seat stays in the game "
            "and you answer for it (`pbem game answer`)."), key=name, game=game["id"])
    else:
        wrong = "That code is not the one we sent you. " if order.resign_code else ""
        lines = [f"{wrong}To leave the game {game['id']} for good, reply with this line:", f"resign {code}",
                 "Nothing changes until you do; your character then leaves play and the game goes on without it."]
        subject, outcome = "Confirm that you resign", "resign: confirmation asked"
    ctx = {"address": reports.game_address(svc, game), "subject": subject, "lines": lines}
    outbox.enqueue(svc, kind="notice", message_id=reports.message_id(svc, game, f"in{row['id']}", name, "resign"),
                   sender=reports.game_address(svc, game), to=player["email"], to_name=name,
                   subject=f"[{game['id']}] {subject}", context=ctx, game=game["id"],
                   player=None if confirmed else player, in_reply_to=order.message_id,
                   references=[order.message_id], inbox_id=row["id"])
    return Result("applied", outcome, row["id"], game["id"], name)


@dataclass
class _Left:
    reason: str | None = None

    def __bool__(self) -> bool:
        return self.reason is None


def _leave_play(svc: Service, game: dict, name: str) -> _Left:
    """A confirmed resign plays `moderator: leave-game NAME` (engine/rules/leave.py): the
    character leaves play, everyone hears it, the turns pass it by."""
    try:
        played = moderator.answer(svc, game["id"], svc.engine.MODERATOR, f"leave-game {name}")
    except games.GameError as e:  # the game cannot take it (over meanwhile): the moderator is told
        return _Left(str(e))
    return _Left(played.failed["reason"] if played.failed else None)


def _status(svc: Service, game: dict, player: dict, row: dict, order: orders.Order) -> Result:
    """`status`: the reader's report again, at once (with what happened since their last)."""
    reports.queue_report(svc, game, player, games.state(svc, game), kind="report",
                         mid_parts=(f"in{row['id']}", "status"), in_reply_to=order.message_id, inbox_id=row["id"],
                         extra={"press_notes": order.press_notes})
    return Result("applied", "status: the report sent again", row["id"], game["id"], player["name"])


_NUMBERED = re.compile(r"^\d+:")


def _stale(svc: Service, game: dict, player: dict, state, order: orders.Order, lines: list[str]) -> dict | None:
    """Why the order's unnumbered lines must not be played: they reply to a report whose
    question has closed since (a new one would take them for its own), or None."""
    asked = reports.question_replied_to(svc, game, player["name"], order.references)
    unnumbered = [line for line in lines if not _NUMBERED.match(line)]
    if asked is None or not unnumbered:
        return None
    mine = svc.engine.view(state, player["name"]).get("mine")
    if mine is not None and str(mine["id"]) == asked:
        return None
    now = f"The question open for you now is {mine['id']}: see below." if mine else "No question is open for you now."
    return {"line": unnumbered[0], "options": [o["key"] for o in mine["options"]] if mine else [],
            "reason": f"Your reply answers the report that asked question {asked}, which has closed since: "
                      f"nothing in it was played. {now} Reply to this mail, or number your answer "
                      f"({mine['id'] if mine else 'N'}: key)."}


def apply_order(svc: Service, game: dict, player: dict, row: dict, order: orders.Order) -> Result:
    blob, before = game["state"], games.state(svc, game)
    lines = [orders.redact(line, order.token) for line in order.lines]  # a token is never logged nor echoed
    # standing:, vacation:, timezone: lines first, so an order filed now answers this mail's questions
    notes = standing.directives(svc, game, player["name"], [orders.redact(d, order.token) for d in order.directives],
                                check=order.check)
    stale = _stale(svc, game, player, before, order, lines)
    if stale:
        extra = {"failed": stale, "unused": [ln for ln in lines if ln != stale["line"]], "check": order.check,
                 "pace_notes": notes, "attempts": order.attempts}
        reports.queue_report(svc, game, player, before, kind="error", mid_parts=(f"in{row['id']}",), extra=extra,
                             in_reply_to=order.message_id, inbox_id=row["id"])
        return Result("rejected", f"rejected: replies to closed question; {len(lines)} line(s) not played",
                      row["id"], game["id"], player["name"])
    played = moves.play(svc, game, player["name"], lines, check=order.check, message_id=order.message_id,
                        inbox_id=row["id"], start=before if game["state"] is blob else None)  # not decoded twice
    if played.failed and not played.unused and order.signature and \
            played.failed["line"] == orders.redact(order.signature, order.token):
        played.failed = None  # the last line was the player's name, not an answer
        if not played.applied and not played.standing and not notes:
            return _reply_error(svc, game, player, row, order, "No answers were found in your message "
                                f"(the last line, {order.signature!r}, reads as your name).")
    extra = {"applied": played.applied, "failed": played.failed, "unused": played.unused, "check": order.check,
             "pace_notes": notes, "attempts": order.attempts, "press_notes": order.press_notes}
    kind = "error" if played.failed else "receipt"
    if order.check:  # the reply shows the state as it is: a trial's dice stay unseen
        reports.queue_report(svc, game, player, before, kind=kind, mid_parts=(f"in{row['id']}", "check"),
                             extra=extra, in_reply_to=order.message_id, inbox_id=row["id"])
        status = "checked"
    elif played.applied or played.standing:
        announce.queue_reports(svc, game, played, sender=player["name"],
                              sender_kind=kind, sender_extra=extra, in_reply_to=order.message_id, inbox_id=row["id"])
        status = played.status
    else:  # nothing played: only the sender hears (a receipt for settings, else an error)
        reports.queue_report(svc, game, player, before, kind=kind if notes else "error",
                             mid_parts=(f"in{row['id']}",), extra=extra, in_reply_to=order.message_id,
                             inbox_id=row["id"])
        status = played.status if lines else "applied"
    outcome = f"{status}: {len(played.applied)} of {len(lines)} line(s)"
    if played.standing:
        outcome += f", {len(played.standing)} by standing orders"
    if notes:
        outcome += f", {len(notes)} setting line(s)"
    if played.failed:
        outcome += f"; stopped at {played.failed['line']!r}: {played.failed['reason']}"
    return Result(status, log.scrub(outcome), row["id"], game["id"], player["name"])

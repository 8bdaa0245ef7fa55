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

import re
import sqlite3
from dataclasses import dataclass
from email.parser import BytesHeaderParser
from email.utils import parseaddr

from pbem import bounces, games, log, mailpolicy, orders, reports, tokens
from pbem.store import StoreUnavailable
from pbem import standing  # standing orders and the other settings lines (docs/pace.md)

MAX_ATTEMPTS = 5  # a message that makes processing raise this often is set aside (failed)
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


def handle(svc, raw: bytes, kind: str = "mail", *, source: str = "stdin", filename: str | None = None) -> Result:
    """Store and process one message (kind "mail") or turn file (kind "turn", `filename`
    says .toml or .json). Raises StoreUnavailable only if the message could not be stored;
    once it returns, the message is safe in the inbox whatever became of it (inside
    `Store.group_commit()`: once the group's closing fsync is done)."""
    if kind == "turn" and not filename:
        raise ValueError("a turn file needs its filename (.toml or .json)")
    try:
        with svc.store.transaction():  # one commit: the message and, in a savepoint, what it did
            inbox_id, earlier = receive(svc, bytes(raw), kind, source, filename)
            if earlier is not None and earlier["status"] != "received":
                return Result("duplicate", f"duplicate of message {inbox_id} ({earlier['status']})", inbox_id,
                              earlier["game"], earlier["player"])
            return process_inbox(svc, inbox_id)
    except sqlite3.Error as e:  # the message could not be stored: the source keeps it
        raise StoreUnavailable(str(e)) from e


_HEADER_END = re.compile(rb"\r?\n\r?\n")
_MESSAGE_ID = re.compile(rb"^message-id:[ \t]*(.*(?:\r?\n[ \t].*)*)", re.IGNORECASE | re.MULTILINE)


def _message_id(raw: bytes) -> str | None:
    """The first Message-ID header as written (folded lines joined): read with a pattern, not
    a mail parser, because nothing is parsed before the message is stored."""
    end = _HEADER_END.search(raw)
    m = _MESSAGE_ID.search(raw, 0, end.start() if end else len(raw))
    if not m:
        return None
    return " ".join(m.group(1).decode("ascii", "replace").split()) or None


def _dedupe_hash(svc, raw: bytes, kind: str, filename: str | None) -> str:
    """What makes two messages the same. A turn file has no Message-ID and the same answers
    (`answers = ["left"]`) may rightly come again a turn later, so its hash also holds how
    far its game had got: the same upload twice in one turn is a duplicate, a turn later not."""
    content_hash = orders.content_hash(raw)
    if kind != "turn":
        return content_hash
    try:
        game = svc.store.game(orders.parse_turn_file(raw, filename).game or "")
    except orders.OrderError:
        game = None
    return f"{content_hash}@{game['moves']}" if game else content_hash


def receive(svc, raw: bytes, kind: str, source: str, filename: str | None) -> tuple[int, dict | None]:
    """Store the raw message unless it is known: (its inbox id, the earlier row or None)."""
    message_id = _message_id(raw) if kind == "mail" else None
    try:
        with svc.store.transaction():
            content_hash = _dedupe_hash(svc, raw, kind, filename)
            earlier = svc.store.find_inbox(message_id, content_hash)
            if earlier is not None:
                return earlier["id"], earlier
            return svc.store.add_inbox(raw, source=source, kind=kind, content_hash=content_hash,
                                       message_id=message_id, filename=filename), None
    except sqlite3.Error as e:
        raise StoreUnavailable(str(e)) from e


def process_inbox(svc, inbox_id: int) -> Result:
    """Process a stored message that is still `received`, all or nothing."""
    logger = log.get(inbox=inbox_id)
    try:
        with svc.store.transaction(redoable=True, savepoint=True):  # a failure undoes this, not the stored message
            row = svc.store.inbox(inbox_id)
            if row["status"] != "received":
                return Result("duplicate", f"message {inbox_id} was {row['status']} already", inbox_id,
                              row["game"], row["player"])
            order, error = read(row)
            result = _process(svc, row, order, error)
            svc.store.finish_inbox(inbox_id, "processed", result.outcome, result.game, result.player,
                                   raw=without_token(row["raw"], order.token if order else None))
    except Exception as e:  # noqa: BLE001 -- the message is kept; serve tries it again
        logger.exception("processing failed")
        with svc.store.transaction():
            svc.store.inbox_attempt_failed(inbox_id, log.scrub(repr(e)), MAX_ATTEMPTS)
        return Result("error", log.scrub(f"processing failed: {e!r}"), inbox_id)
    logger.info("processed", status=result.status, game=result.game, player=result.player, outcome=result.outcome)
    return result


def retry_pending(svc) -> list[Result]:
    """Process the messages left `received` by a crash or an error."""
    return [process_inbox(svc, row["id"]) for row in svc.store.inbox_rows(status="received")]


# -- the steps ----------------------------------------------------------------------------

def read(row: dict) -> tuple[orders.Order | None, orders.OrderError | None]:
    """The order in a stored message, or why it cannot be read. An unreadable mail is still
    read as far as its sender and Message-ID, to whom the reply goes."""
    try:
        if row["kind"] == "mail":
            return orders.parse_mail(row["raw"]), None
        return orders.parse_turn_file(row["raw"], row["filename"]), None
    except orders.OrderError as e:
        return None, e


def without_token(raw: bytes, token: str | None) -> bytes:
    """The message as kept once processed: its token masked, so none is stored in clear."""
    if not token:
        return raw
    return orders.redact(raw.decode("latin-1"), token).encode("latin-1")


def authenticate(svc, order: orders.Order, kind: str) -> tuple[dict, dict] | str:
    """(game, player) of the seat the order's token opens, or why none does. A mail must also
    come from the player's address; a turn file (upload) needs the token only."""
    if not order.token:
        return "no token"
    seats = [p for p in svc.store.players_by_token_hash(tokens.hash_token(order.token))
             if tokens.matches(order.token, p["token_hash"])]
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
    """Mail no one should answer: auto-replies, bounces, lists (no mail loops)."""
    h = _headers(raw)
    auto = str(h.get("Auto-Submitted", "no")).strip().lower()
    return (auto != "no" or str(h.get("Precedence", "")).strip().lower() in ("bulk", "junk", "list")
            or "List-Id" in h or str(h.get("Return-Path", "")).strip() == "<>")


def _refuse(svc, row: dict, order: orders.Order | None, reason: str) -> Result:
    """Nothing is applied; a stranger learns nothing about any game (no names, no state)."""
    sender = order.sender if order else _header_sender(row["raw"]) if row["kind"] == "mail" else None
    ours = {svc.settings.address.lower()}
    if (row["kind"] == "mail" and sender and sender.lower() not in ours and not _is_automatic(row["raw"])):
        reports.queue_stranger(svc, sender, inbox_id=row["id"],
                               in_reply_to=order.message_id if order else _message_id(row["raw"]))
    return Result("refused", log.scrub(f"refused: {reason}"), row["id"])


def _reply_error(svc, game, player, row, order, reason: str) -> Result:
    extra = {"failed": {"line": None, "reason": reason, "options": []}, "check": order.check}
    reports.queue_report(svc, game, player, games.state(svc, game), kind="error",
                         mid_parts=(f"in{row['id']}",), extra=extra, in_reply_to=order.message_id, inbox_id=row["id"])
    return Result("rejected", f"rejected: {reason}", row["id"], game["id"], player["name"])


def _process(svc, row: dict, order: orders.Order | None, error: orders.OrderError | None) -> Result:
    if row["kind"] == "mail" and bounces.is_report(row["raw"]):  # a bounce: mark whom it names, answer nothing
        outcome, game, player = bounces.handle(svc, row["raw"])
        return Result("bounce", outcome, row["id"], game, player)
    if error is not None:
        return _refuse(svc, row, None, f"unreadable: {error}")
    seat = authenticate(svc, order, row["kind"])
    if isinstance(seat, str):
        return _refuse(svc, row, order, seat)
    game, player = seat
    bounces.heard_from(svc, player)
    if game["status"] != "active":
        return _reply_error(svc, game, player, row, order,
                            f"The game {game['id']} is {game['status']}: it takes no answers now.")
    if not order.lines and not order.directives:
        return _reply_error(svc, game, player, row, order, "No answers were found in your message.")
    return apply_order(svc, game, player, row, order)


def apply_order(svc, game: dict, player: dict, row: dict, order: orders.Order) -> Result:
    before = games.state(svc, game)
    lines = [orders.redact(line, order.token) for line in order.lines]  # a token is never logged nor echoed
    # standing:, vacation:, timezone: lines first, so an order filed now answers this mail's questions
    notes = standing.directives(svc, game, player["name"], [orders.redact(d, order.token) for d in order.directives],
                                check=order.check)
    played = games.play(svc, game, player["name"], lines, check=order.check,
                        message_id=order.message_id, inbox_id=row["id"])
    extra = {"applied": played.applied, "failed": played.failed, "unused": played.unused, "check": order.check,
             "pace_notes": notes}
    kind = "error" if played.failed else "receipt"
    if order.check:  # the reply shows the state as it is: a trial's dice stay unseen
        reports.queue_report(svc, game, player, before, kind=kind, mid_parts=(f"in{row['id']}", "check"),
                             extra=extra, in_reply_to=order.message_id, inbox_id=row["id"])
        status = "checked"
    elif played.applied or played.standing:
        reports.queue_reports(svc, game, played, sender=player["name"],
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

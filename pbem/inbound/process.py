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
from typing import TYPE_CHECKING

from pbem.base import i18n, log, option_keys, tokens
from pbem.base.i18n import N_, _
from pbem.core import games, people
from pbem.inbound import commands, digest, mail as mail_mod, orders
from pbem.inbound.commands import Form, Stage
from pbem.inbound.mail import Mail
from pbem.moderate import offers
from pbem.outbound import announce, bounces, limits, notices, observers, outbox, reports
from pbem.pace import daily, moves, reported
from pbem.store import StoreUnavailable, iso, storable_data

if TYPE_CHECKING:
    from pbem.core.service import Service

MAX_ATTEMPTS = 5  # a message that makes processing raise this often is set aside (failed), its sender answered
REFUSED = ("refused", "rejected")


@dataclass
class Result:
    status: str  # applied | partial | rejected | checked | refused | ignored | duplicate | bounce | error
    outcome: str  # one line for the moderator's log: never a token or a seed
    inbox_id: int | None = None
    game: str | None = None
    player: str | None = None
    said: str | None = None  # why it was refused, in the sender's language (the web page shows it)

    @property
    def refused(self) -> bool:
        return self.status in REFUSED


@dataclass(frozen=True)
class Reading:
    """What was read of a message: the mail (None for a turn file), and its order or why it
    has none. Made once, before the message is stored, and read by every step after."""
    mail: Mail | None
    order: orders.Order | None
    error: orders.OrderError | None = None


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
    too_large = size > orders.MAX_BYTES
    reading = read_message(raw, kind, filename, head_only=too_large)  # before the write lock
    try:
        with svc.store.transaction():  # one commit: the message and, in a savepoint, what it did
            if too_large:
                return _too_large(svc, raw, reading, kind, source, filename, size)
            stored: dict = {}  # the new row, as stored: processing need not read it back
            inbox_id, earlier = receive(svc, raw, kind, source, filename, upload_id, reading, stored)
            if earlier is not None and earlier["status"] != "received":
                return Result("duplicate", f"duplicate of message {inbox_id} ({earlier['status']})", inbox_id,
                              earlier["game"], earlier["player"])
            return process_inbox(svc, inbox_id, reading if earlier is None else None, stored or None)
    except svc.store.errors as e:  # the message could not be stored: the source keeps it
        raise StoreUnavailable(str(e)) from e


KEPT_HEAD = 64 * 1024  # of a message refused for its size, only this much of its headers is kept


def _dedupe_hash(svc: Service, raw: bytes, reading: Reading, upload_id: str | None) -> str:
    """What makes two messages the same: a mail by its content (and, in find_inbox, its
    Message-ID); a turn file by its content and its upload id, never by when it came, so one
    read again after a crash is known again however far its game has got since. A caller
    that names no upload keeps the older rule: content and the game's move count."""
    if reading.mail is not None:
        return reading.mail.content_hash
    content_hash, order = mail_mod.content_hash(raw), reading.order
    if upload_id is None:
        game = svc.store.game(order.game) if order is not None and order.game else None
        return f"{content_hash}@{game['moves']}" if game else content_hash
    return hashlib.sha256(f"turn\n{content_hash}\n{upload_id}".encode()).hexdigest()


def known_tokens(svc: Service, mail: Mail, token: str | None) -> set[str]:
    """The tokens the id headers may hold (which are masked only when known to be tokens):
    the message's own, and any run there that opens a seat."""
    runs = {run for run in mail.id_runs if svc.store.players_by_token_hash(tokens.hash_token(run))}
    return runs | ({token} if token else set())


def stored_form(raw: bytes, mail: Mail | None, known: Collection[str] = frozenset()) -> bytes:
    """The message as kept: every token and seat link masked (pbem/base/tokens.py), decoded
    parts included (the mail's own decoding says whether any needs it)."""
    return tokens.mask_message(raw, known, decoded=mail.decoded) if mail is not None else tokens.mask_bytes(raw)


def _masked_id(message_id: str | None, known: set[str]) -> str | None:
    """The Message-ID as kept for dedupe: a token in it stands as part of its hash, so two ids
    that differ only in their tokens stay two (the hash of an 80-bit token gives nothing away)."""
    for tok in known:
        message_id = message_id and re.sub(re.escape(tok), f"[token:{tokens.hash_token(tok)[:12]}]", message_id,
                                           flags=re.IGNORECASE)
    return message_id


def receive(svc: Service, raw: bytes, kind: str, source: str, filename: str | None, upload_id: str | None,
            reading: Reading, stored: dict | None = None) -> tuple[int, dict | None]:
    """Store the message unless it is known: (its inbox id, the earlier row or None). It is
    stored masked; the token it carried (read already: `reading`) is kept only as its hash.
    `stored`, if given, is filled with the new row (Store.add_inbox). Inside the caller's
    transaction (`handle`'s, which turns a failure of the store into StoreUnavailable)."""
    mail, order = reading.mail, reading.order
    known = known_tokens(svc, mail, order.token if order else None) if mail is not None else set()
    message_id = _masked_id(mail.id_header, known) if mail is not None else None
    content_hash = _dedupe_hash(svc, raw, reading, upload_id)
    token_hash = tokens.hash_token(order.token) if order is not None and order.token else None
    # Stored first, looked for only when its unique keys (the content, the Message-ID) say it is
    # known: a new message, nearly every one, costs no read (issue 28).
    stored = {} if stored is None else stored
    inbox_id = svc.store.add_inbox(stored_form(raw, mail, known), source=source, kind=kind, content_hash=content_hash,
                                   message_id=message_id, filename=filename, token_hash=token_hash, stored=stored)
    if stored:
        return inbox_id, None
    earlier = svc.store.find_inbox(message_id, content_hash)
    assert earlier is not None  # what it conflicted with
    return earlier["id"], earlier


def _too_large(svc: Service, raw: bytes, reading: Reading, kind: str, source: str, filename: str | None,
               size: int) -> Result:
    """A message over the limit: its headers are kept (to answer it and know it again), its
    body is never stored; the sender is told."""
    mail = reading.mail
    head = mail.head.encode("latin-1")[:KEPT_HEAD] if mail is not None else b""
    note = f"\n\n[not stored: the message was {size} bytes, over the {orders.MAX_BYTES} byte limit]\n".encode()
    known = known_tokens(svc, mail, None) if mail is not None else set()
    message_id = _masked_id(mail.id_header, known) if mail is not None else None
    content_hash = hashlib.sha256(b"too-large\n%d\n" % size + raw[:KEPT_HEAD]).hexdigest()
    earlier = svc.store.find_inbox(message_id, content_hash)
    if earlier is not None:
        return Result("duplicate", f"duplicate of message {earlier['id']} ({earlier['status']})", earlier["id"])
    inbox_id = svc.store.add_inbox(tokens.mask_message(head, known) + note, source=source, kind=kind,
                                   content_hash=content_hash, message_id=message_id, filename=filename)
    row = svc.store.inbox(inbox_id)
    assert row is not None  # stored just above
    _reply_unprocessed(svc, row, N_("It is larger than %(mb)s MB: please send your answers as text, without large "
                                    "attachments."), {"mb": orders.MAX_BYTES // (1024 * 1024)}, tell_moderator=False,
                       reading=reading)
    outcome = f"refused: the message is {size // 1024} KB, over the {orders.MAX_BYTES // 1024} KB limit"
    svc.store.finish_inbox(inbox_id, "processed", outcome)
    log.get(inbox=inbox_id).info("processed", status="refused", outcome=outcome)
    return Result("refused", outcome, inbox_id)


def process_inbox(svc: Service, inbox_id: int, reading: Reading | None = None, row: dict | None = None) -> Result:
    """Process a stored message that is still `received`, all or nothing. `reading`: what
    `read_message` made of it before it was stored (its token in clear, in memory only); `row`:
    the message as this transaction just stored it (else it is read, and locked)."""
    logger = log.get(inbox=inbox_id)
    try:
        with svc.store.transaction(redoable=True, savepoint=True):  # a failure undoes this, not the stored message
            row = row or svc.store.inbox(inbox_id)
            assert row is not None, f"no stored message {inbox_id}"
            if row["status"] != "received":
                return Result("duplicate", f"message {inbox_id} was {row['status']} already", inbox_id,
                              row["game"], row["player"])
            result = _process(svc, row, reading or read(row))
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
            _reply_unprocessed(svc, row, N_("Something went wrong on our side while processing it."), reason=reason)
    except Exception:  # noqa: BLE001 -- the failure stays recorded on the row; `pbem inbox list` shows it
        log.get(inbox=inbox_id).exception("could not tell anyone about a failed message")


def retry_pending(svc: Service) -> list[Result]:
    """Process the messages left `received` by a crash or an error."""
    return [process_inbox(svc, row["id"]) for row in svc.store.inbox_rows(status="received")]


# -- the steps ----------------------------------------------------------------------------

def read_message(raw: bytes, kind: str, filename: str | None, *, head_only: bool = False) -> Reading:
    """The message read once (pbem/inbound/mail.py) and the order in it, or why it has none:
    never raises (a reader's failure of any kind is a refusal with a reply, not a message that
    blocks its source). `head_only`: the start of a message over the size limit."""
    mail = mail_mod.read(raw, head_only=head_only) if kind == "mail" else None
    if head_only:
        return Reading(mail, None, orders.OrderError("The message is larger than 1 MB."))
    try:
        order = orders.read(mail) if mail is not None else orders.parse_turn_file(raw, filename or "")
    except orders.OrderError as e:
        return Reading(mail, None, e)
    except Exception:  # noqa: BLE001
        return Reading(mail, None, orders.OrderError("The message could not be read."))
    return Reading(mail, storable_data(order))  # the sender's text as it is quoted, stored and logged: no NUL


def read(row: dict) -> Reading:
    """A stored message read (its tokens masked: `row["token_hash"]` stands for them)."""
    return read_message(row["raw"], row["kind"], row["filename"])


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


def _reply_to(svc: Service, row: dict, reading: Reading) -> str | None:
    """Whom a refusal may answer: the sender of a mail that is not automatic and not our own,
    at most `stranger_replies` times a day per address (From can be forged: no backscatter)."""
    mail = reading.mail
    if mail is None or mail.automatic:
        return None
    sender = reading.order.sender if reading.order else mail.sender
    if not sender or sender.lower() == svc.settings.address.lower():
        return None
    if not sender.isascii():
        return None  # bytes that were not ASCII, or control characters (pbem/store/common.py): no one to answer
    since = iso(svc.now() - timedelta(days=1))
    if svc.store.count_mail_to(sender, ("stranger", "unprocessed"), since) >= svc.settings.stranger_replies:
        log.get(inbox=row["id"]).info("no reply: the daily limit of replies to this address is reached")
        return None
    return sender


def _refuse(svc: Service, row: dict, reading: Reading, reason: str) -> Result:
    """Nothing is applied; a stranger learns nothing about any game (no names, no state). The
    moderator hears of it in the next digest (one line a day per address, counted)."""
    who = (reading.order.sender if reading.order else None) or (reading.mail.sender if reading.mail else None)
    notices.add(svc, "stranger", f"{who or 'a ' + row['kind'] + ' from ' + row['source']}: {reason}",
                key=f"{(who or row['source']).lower()}.{svc.now():%Y-%m-%d}")
    sender = _reply_to(svc, row, reading)
    if sender:
        assert reading.mail is not None  # only a mail's sender is answered
        reports.queue_stranger(svc, sender, inbox_id=row["id"], in_reply_to=reading.mail.message_id,
                               lang=daily.language(svc, sender))
    return Result("refused", log.scrub(f"refused: {reason}"), row["id"])


def _reply_unprocessed(svc: Service, row: dict, why: str, values: dict | None = None, *, reason: str | None = None,
                       tell_moderator: bool = True, reading: Reading | None = None) -> None:
    """Tell the sender we could not process their message (with `tell_moderator`: that the
    moderator knows, and tell the moderator `reason`): `why`, a message (N_) and its `values`,
    in the sender's language (the seat's, else what the address chose). A turn file's sender is
    the seat its token opened, if any; a mail's, its From (rate-limited like any refusal)."""
    reading = reading or read(row)
    order = reading.order
    seat = authenticate(svc, order, row["kind"], row.get("token_hash")) if order is not None else "unread"
    game = seat[0] if not isinstance(seat, str) else None
    to = seat[1]["email"] if not isinstance(seat, str) else _reply_to(svc, row, reading)
    in_reply_to = reading.mail.message_id if reading.mail is not None else None
    if to:
        # the seat's language; a mail not read far enough to know its seat: its address's (daily.language)
        lang = people.language(svc, game, seat[1]["name"], to) if not isinstance(seat, str) else daily.language(svc, to)
        with i18n.using(lang):
            ctx = {"address": svc.settings.address, "why": _(why, **(values or {})), "moderator_told": tell_moderator}
            outbox.enqueue(svc, kind="unprocessed",
                           message_id=reports.message_id(svc, None, f"in{row['id']}", "unprocessed"),
                           sender=svc.settings.address, to=to, to_name=None,
                           subject=_("Your message to the Talisman service could not be processed"), context=ctx,
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
                         mid_parts=(f"in{row['id']}",), extra=extra, in_reply_to=order.message_id, inbox_id=row["id"],
                         pace=reported.part)
    return Result("rejected", f"rejected: {reason}", row["id"], game["id"], player["name"], said=reason)


def _process(svc: Service, row: dict, reading: Reading) -> Result:
    mail, order = reading.mail, reading.order
    if mail is not None and mail.bounce:  # a bounce: mark whom it names, answer nothing
        outcome, bounced_game, bounced_player = bounces.handle(svc, mail.message, mail.head)
        return Result("bounce", outcome, row["id"], bounced_game, bounced_player)
    if mail is not None and mail.automatic:
        return _automatic(svc, row, mail, order)
    if order is None:
        return _refuse(svc, row, reading, f"unreadable: {reading.error}")
    seat = authenticate(svc, order, row["kind"], row.get("token_hash"))
    if seat == "no token" and mail is not None and order.game:
        watched = _observer(svc, row, order) or _taker(svc, row, order)
        if watched is not None:
            return watched
    if isinstance(seat, str):
        if mail is not None and digest.opens(svc, order, row.get("token_hash")):  # several games in one reply
            status, outcome = digest.answer(svc, row, order, _carry_out)
            return Result(status, log.scrub(outcome), row["id"])
        return _refuse(svc, row, reading, seat)
    game, player = seat
    bounces.heard_from(svc, player)
    if mail is not None and not limits.take(svc, limits.MAILS_PER_HOUR, limits.seat(player)):
        return _over_hourly(svc, game, player, row, order)
    # The seats' rows and their addresses' settings read once for all this mail does: the sender's
    # language here, then each reader's report (announce.queue_reports goes on with this read_once).
    with svc.store.read_once(game["id"]), \
            svc.store.read_once(game["id"], [p["email"] for p in svc.store.players(game["id"], active_only=True)]), \
            i18n.using(people.language(svc, game, player["name"], player["email"])):  # the notes of its replies
        if game["status"] != "active":
            why = _("The game %(game)s is %(status)s: it takes no answers now.", game=game["id"],
                    status=_(game["status"]))
            return _reply_error(svc, game, player, row, order, why)
        return _carry_out(svc, game, player, row, order)


def _automatic(svc: Service, row: dict, mail: Mail, order: orders.Order | None) -> Result:
    """Mail no one may answer (RFC 3834: an auto-reply, a list, bulk, a machine): kept, never
    answered, nothing in it applied (a vacation responder would otherwise start a loop). When
    it comes from a seat, the player's next report says so, once."""
    seat = authenticate(svc, order, "mail", row.get("token_hash")) if order is not None else "unread"
    outcome = log.scrub(f"ignored: an automatic mail ({mail.automatic}): not answered, nothing applied")
    if isinstance(seat, str):
        return Result("ignored", outcome, row["id"])
    game, player = seat
    with i18n.using(people.language(svc, game, player["name"], player["email"])):  # said in her next report
        when = svc.now().strftime("%Y-%m-%d %H:%M")
        reports.tell_next(svc, player, _("An automatic mail (%(why)s) came from your address on %(when)s UTC: it was "
                                         "kept, not answered, and nothing in it was played. If it held your answers, "
                                         "send them again in a mail of your own.", why=mail.automatic, when=when))
    return Result("ignored", outcome, row["id"], game["id"], player["name"])


def _over_hourly(svc: Service, game: dict, player: dict, row: dict, order: orders.Order) -> Result:
    """A seat past its mails an hour: the mail is kept and nothing in it done; the player is
    told the first time in the hour, the moderator in the digest."""
    limit = limits.MAILS_PER_HOUR
    n = limit.allowed(svc)
    if limits.over(svc, limit, limits.seat(player), game=game["id"]):
        with i18n.using(people.language(svc, game, player["name"], player["email"])):
            lines = [_("You have sent %(n)s mails in the last hour (%(key)s), the most this game takes from one seat "
                       "in an hour. This mail, and any more this hour, are kept but nothing in them is done.",
                       n=n, key=limit.key),
                     _("Send your answers again in an hour.")]
            _notice(svc, game, player, row, order, _("Too many mails this hour: not played"), lines)
    return Result("refused", f"refused: over the limit of {n} mails an hour from this seat ({limit.key})",
                  row["id"], game["id"], player["name"])


def _notice(svc: Service, game: dict, reader: dict, row: dict, order: orders.Order, subject: str,
            lines: list[str]) -> None:
    """A short notice to a seat or an observer (`reader`: its name and email), in reply to its mail."""
    ctx = {"address": reports.game_address(svc, game), "subject": subject, "lines": lines}
    outbox.enqueue(svc, kind="notice", message_id=reports.message_id(svc, game, f"in{row['id']}", reader["name"],
                                                                      "notice"),
                   sender=reports.game_address(svc, game), to=reader["email"], to_name=reader["name"],
                   subject=f"[{game['id']}] {subject}", context=ctx, game=game["id"], in_reply_to=order.message_id,
                   references=[order.message_id], inbox_id=row["id"], reply=True)


def _observer(svc: Service, row: dict, order: orders.Order) -> Result | None:
    """A mail from an observer of the game its subject names: `status` brings the public
    report (so many a day); anything else is answered that observers may send only that.
    None: no observer."""
    game = svc.store.game(order.game) if order.game else None
    observer = observers.find(game, order.sender) if game else None
    if game is None or observer is None:
        return None
    asks = [commands.command(c.command) for c in order.calls]
    if asks and all(c.observers for c in asks) and not order.lines:
        if observers.status(svc, game, observer, row["id"], order.message_id):
            return Result("applied", "status: the public report sent to an observer", row["id"], game["id"])
        return Result("refused", f"refused: an observer over {limits.OBSERVER_STATUS.key}", row["id"], game["id"])
    with i18n.using(people.language(svc, game, None, observer["email"])):
        _notice(svc, game, observer, row, order, _("Observers may send status only"),
                [_("You watch the game %(game)s as an observer, so your mail plays nothing and reaches no one.",
                   game=game["id"]),
                 _("A mail with the word \"status\" (a line, or the subject) brings the report again at once.")])
    return Result("rejected", "rejected: an observer may send status only", row["id"], game["id"])


def _taker(svc: Service, row: dict, order: orders.Order) -> Result | None:
    """`take CODE` from someone a seat of the game its subject names was offered to
    (pbem/moderate/offers.py): the seat is theirs if the code is, else they are told it is gone.
    None: no `take` in the mail."""
    game = svc.store.game(order.game) if order.game else None
    call = next((c for c in order.calls if c.command == offers.TAKE), None)
    if game is None or call is None or not order.sender:
        return None
    with i18n.using(people.language(svc, game, None, order.sender)):
        seat, note = offers.take(svc, game, order.sender, call.value)
        reader = {"name": seat or "offer", "email": order.sender}
        subject = _("The seat is yours") if seat else _("The seat is not offered to you now")
        _notice(svc, game, reader, row, order, subject, [note])
    return Result("applied" if seat else "rejected", note, row["id"], game["id"], seat)


# What a mail of ours is, when a reply to it cannot be an answer: it asked no question.
ASKS_NOTHING = {"press": N_("a message from another player"), "digest": N_("the moderator's digest"),
                "notice": N_("a notice from the service"), "stranger": N_("a reply from the service"),
                "unprocessed": N_("a reply from the service")}


def _astray(svc: Service, game: dict, order: orders.Order, read: dict[str, dict | None]) -> str | None:
    """Why the order's answers must not be played, as a note: the mail replies to one of ours
    that asked no question (a press message, the digest, a notice), where a one-word reply
    means something else. None: it may answer. `read`: the rows read (reports.replied_row)."""
    for mid in order.references:  # newest first: the one it replies to
        row = reports.replied_row(svc, mid, read)
        if row is not None and row["game"] in (None, game["id"]):
            what = ASKS_NOTHING.get(row["kind"])
            if what is None:
                return None
            return _("Your mail replies to %(what)s, not to a report, so nothing in it was played as an answer. "
                     "Answers go in a reply to your latest report (or write them on the game's page).", what=_(what))
    return None


def _carry_out(svc: Service, game: dict, player: dict, row: dict, order: orders.Order) -> Result:
    """An authenticated seat's mail, by the mail commands' table (pbem/inbound/commands.py): a
    command that goes alone (resign); else the messages and settings, then the answers, or
    the reply a mail that answers nothing asks for (status)."""
    req = commands.Request(svc, game, player, row["id"], order.message_id, order.check)
    alone = [c for c in order.calls if commands.command(c.command).stage is Stage.ALONE]
    if alone:  # the one with a value (a code) first: a subject's word must not hide the body's
        call = next((c for c in alone if c.value), alone[0])
        return Result("applied", commands.command(call.command).run(req, call), row["id"], game["id"], player["name"])
    press_notes, pace_notes = commands.before(req, order.calls)
    lines = order.lines
    replied: dict[str, dict | None] = {}  # our mails it replies to, read once for both questions
    astray = _astray(svc, game, order, replied) if lines else None
    if astray:
        press_notes.append(astray)
        lines = []
    if not lines and not order.called(Form.SETTING):
        reply = next((c for c in order.calls if commands.command(c.command).stage is Stage.REPLY), None)
        if reply is not None:
            req.notes = press_notes
            return Result("applied", commands.command(reply.command).run(req, reply), row["id"], game["id"],
                          player["name"])
        if astray and press_notes == [astray]:
            _notice(svc, game, player, row, order, _("Your reply was not played"), [astray])
            return Result("rejected", "rejected: a reply to a mail that asks nothing", row["id"], game["id"],
                          player["name"])
        if press_notes:
            reports.queue_report(svc, game, player, games.state(svc, game), kind="receipt",
                                 mid_parts=(f"in{row['id']}",), extra={"press_notes": press_notes},
                                 in_reply_to=order.message_id, inbox_id=row["id"], catch_up=False, pace=reported.part)
            return Result("applied", log.scrub("press: " + " ".join(press_notes)), row["id"], game["id"],
                          player["name"])
        return _reply_error(svc, game, player, row, order, _("No answers were found in your message."))
    with svc.store.read_once(game["id"]):  # the answer's reads of the game's seats, deadlines...: one each
        return apply_order(svc, game, player, row, order, lines, press_notes, pace_notes, replied)


_NUMBERED = re.compile(r"^\d+:")


def _stale(svc: Service, game: dict, player: dict, state, order: orders.Order, lines: list[str],
           replied: dict[str, dict | None] | None = None) -> dict | None:
    """Why the order's unnumbered lines must not be played: they reply to a report whose
    question has closed since (a new one would take them for its own), or None."""
    asked = reports.question_replied_to(svc, game, player["name"], order.references, replied)
    unnumbered = [line for line in lines if not _NUMBERED.match(line)]
    if asked is None or not unnumbered:
        return None
    mine = svc.engine.view(state, player["name"]).get("mine")
    if mine is not None and str(mine["id"]) == asked:
        return None
    # in the sender's language (the caller's `i18n.using`)
    now = _("The question open for you now is %(id)s: see below.", id=mine["id"]) if mine else \
        _("No question is open for you now.")
    return {"line": unnumbered[0], "options": [o["key"] for o in mine["options"]] if mine else [],
            "reason": _("Your reply answers the report that asked question %(asked)s, which has closed since: "
                        "nothing in it was played. %(now)s Reply to this mail, or number your answer "
                        "(%(id)s: key).", asked=asked, now=now, id=mine["id"] if mine else "N")}


def apply_order(svc: Service, game: dict, player: dict, row: dict, order: orders.Order, lines: list[str],
                press_notes: list[str], notes: list[str], replied: dict[str, dict | None] | None = None) -> Result:
    """Play the order's answer `lines` (its settings lines were carried out first, `notes` says
    how, so an order filed now answers this mail's questions; `press_notes`: its messages;
    `replied`: our mails it replies to, as read already)."""
    blob, before = game["state"], games.state(svc, game)
    lines = [orders.redact(line, order.token) for line in lines]  # a token is never logged nor echoed
    stale = _stale(svc, game, player, before, order, lines, replied)
    if stale:
        extra = option_keys.in_words({"failed": stale, "unused": [ln for ln in lines if ln != stale["line"]],
                                      "check": order.check, "pace_notes": notes, "attempts": order.attempts,
                                      "press_notes": press_notes}, i18n.current())
        reports.queue_report(svc, game, player, before, kind="error", mid_parts=(f"in{row['id']}",), extra=extra,
                             in_reply_to=order.message_id, inbox_id=row["id"], pace=reported.part)
        return Result("rejected", f"rejected: replies to closed question; {len(lines)} line(s) not played",
                      row["id"], game["id"], player["name"], said=stale["reason"])
    played = moves.play(svc, game, player["name"], lines, check=order.check, message_id=order.message_id,
                        inbox_id=row["id"], start=before if game["state"] is blob else None)  # not decoded twice
    if played.failed and not played.unused and order.signature and \
            played.failed["line"] == orders.redact(order.signature, order.token):
        played.failed = None  # the last line was the player's name, not an answer
        if not played.applied and not played.standing and not notes:
            return _reply_error(svc, game, player, row, order, _("No answers were found in your message "
                                "(the last line, %(line)s, reads as your name).", line=repr(order.signature)))
    extra = option_keys.in_words({"applied": played.applied, "failed": played.failed, "unused": played.unused,
                                  "check": order.check, "pace_notes": notes, "attempts": order.attempts,
                                  "press_notes": press_notes}, i18n.current())  # keys in the reader's words
    kind = "error" if played.failed else "receipt"
    if order.check:  # the reply shows the state as it is: a trial's dice stay unseen
        reports.queue_report(svc, game, player, before, kind=kind, mid_parts=(f"in{row['id']}", "check"),
                             extra=extra, in_reply_to=order.message_id, inbox_id=row["id"], pace=reported.part)
        status = "checked"
    elif played.applied or played.standing or played.bots:
        announce.queue_reports(svc, game, played, sender=player["name"],
                               sender_kind=kind, sender_extra=extra, in_reply_to=order.message_id, inbox_id=row["id"],
                               pace=reported.part)
        status = played.status
    else:  # nothing played: only the sender hears (a receipt for settings, else an error)
        reports.queue_report(svc, game, player, before, kind=kind if notes else "error",
                             mid_parts=(f"in{row['id']}",), extra=extra, in_reply_to=order.message_id,
                             inbox_id=row["id"], pace=reported.part)
        status = played.status if lines else "applied"
    outcome = f"{status}: {len(played.applied)} of {len(lines)} line(s)"
    if played.standing:
        outcome += f", {len(played.standing)} by standing orders"
    if played.bots:
        outcome += f", {len(played.bots)} by bots"
    if notes:
        outcome += f", {len(notes)} setting line(s)"
    if played.failed:
        outcome += f"; stopped at {played.failed['line']!r}: {played.failed['reason']}"
    return Result(status, log.scrub(outcome), row["id"], game["id"], player["name"],
                  said=reports.refused_why(played.failed) if played.failed else None)

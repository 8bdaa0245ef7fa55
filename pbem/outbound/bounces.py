"""Mail that does not arrive: SMTP refusals and bounces mark a player undeliverable.

A bounce is a delivery-status notification (RFC 3464: `multipart/report;
report-type=delivery-status`) that the recipient's server sends to the envelope sender,
which is the game address with a keyed tag naming the outbox row (VERP), so it arrives
like any other mail and says which mail failed. A report that does not come back to such a
tag is not believed: anyone can write a mail shaped as a bounce. The flag is only a notice:
mail to the player is still sent (an address may recover), and it is cleared when the player
writes in or their seat gets a new address.
"""
from __future__ import annotations

import hmac
from email.message import Message
from email.utils import parseaddr
from typing import TYPE_CHECKING

import msgspec

from pbem.base import log, tokens
from pbem.outbound import notices

if TYPE_CHECKING:
    from pbem.core.service import Service


def failures(msg: Message) -> list[tuple[str, str]]:
    """[(recipient, why)] of the recipients whose delivery failed, in a report read already
    (pbem/inbound/mail.py says whether a mail is one: multipart/report, delivery-status)."""
    failed = []
    for part in msg.walk():
        if part.get_content_type() == "message/delivery-status":
            for block in part.get_payload():  # the per-recipient header blocks
                if not isinstance(block, Message) or str(block.get("Action", "")).strip().lower() != "failed":
                    continue
                rcpt = str(block.get("Final-Recipient") or block.get("Original-Recipient") or "")
                why = " ".join(str(block.get(h, "")) for h in ("Status", "Diagnostic-Code")).strip()
                failed.append((parseaddr(rcpt.rpartition(";")[2])[1].lower(), why or "failed"))
    return failed


def sent_mail(svc: Service, head: str) -> dict | None:
    """The outbox row a bounce came back for: named by the keyed tag of the envelope sender it
    was sent with (VERP, sending.return_path), which the receiving MTA writes into the
    bounce's delivery headers (`head`: its header block). Anything else (a stranger's forged
    report naming a guessable Message-ID, an address) names nothing."""
    for m in tokens.BOUNCE_TAG.finditer(head):
        row = svc.store.outbox_mail(int(m.group(1)))
        if row is not None and row["status"] == "sent" and hmac.compare_digest(
                tokens.bounce_tag(svc.key, row["id"], row["message_id"]), f"bounce-{m.group(1)}-{m.group(2).lower()}"):
            return row
    return None


def handle(svc: Service, msg: Message | None, head: str) -> tuple[str, str | None, str | None]:
    """A bounce received (`msg` parsed, `head` its header block as written): mark whom it
    names. Returns (outcome, game, player)."""
    row = sent_mail(svc, head)
    if row is None:
        return "bounce not believed: it names no mail we sent (no valid return-path tag)", None, None
    try:
        failed = [(addr, why) for addr, why in failures(msg) if addr == row["to_addr"].lower()] if msg else []
    except Exception:  # noqa: BLE001 -- a report too broken to read names no failure
        failed = []
    if not failed:
        return f"bounce for outbox mail {row['id']}: no failure of its recipient (a delay notice?)", None, None
    if row.get("told"):  # a digest: each game it told comes again in that seat's next mail
        seats = msgspec.json.decode(row["told"])
        with svc.store.transaction():
            for game, seat, since in seats:
                svc.store.rewind_reported(game, seat, since)
        for game, seat, _since in seats:
            mark_undeliverable(svc, game, seat, f"bounced: {failed[0][1]}")
        return log.scrub(f"bounce: digest {row['id']} to {row['to_addr']} undeliverable"), None, None
    if not (row["game"] and row["player"]):
        return log.scrub(f"bounce: outbox mail {row['id']} to {row['to_addr']} undeliverable"), None, None
    if row.get("since_seq") is not None:
        with svc.store.transaction():  # its events come again in the next report that gets through
            svc.store.rewind_reported(row["game"], row["player"], row["since_seq"])
    mark_undeliverable(svc, row["game"], row["player"], f"bounced: {failed[0][1]}")
    return log.scrub(f"bounce: {row['game']}/{row['player']} undeliverable"), row["game"], row["player"]


def mark_undeliverable(svc: Service, game_id: str, name: str, reason: str) -> None:
    """Flag the player; the first time, tell the moderator (pbem/outbound/notices.py)."""
    player = svc.store.player(game_id, name)
    if player is None:
        return
    with svc.store.transaction():
        svc.store.update_player(game_id, name, undeliverable=f"{reason[:400]} (since {svc.store.now()})")
        log.get(game=game_id, player=name).warning("undeliverable", reason=reason)
        if not player["undeliverable"]:
            notices.add(svc, "undeliverable", f"Mail to {name} cannot be delivered ({player['email']}): {reason[:200]}",
                        key=f"{name}.{svc.now():%Y%m%dT%H%M%S}", game=game_id)


def heard_from(svc: Service, player: dict) -> None:
    """The player wrote in: their address works again."""
    if player.get("undeliverable"):
        svc.store.update_player(player["game"], player["name"], undeliverable=None)

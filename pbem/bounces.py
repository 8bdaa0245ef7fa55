"""Mail that does not arrive: SMTP refusals and bounces mark a player undeliverable.

A bounce is a delivery-status notification (RFC 3464: `multipart/report;
report-type=delivery-status`) that the recipient's server sends to the envelope sender,
which is the game address, so it arrives like any other mail. It names the failed
recipient and usually carries the headers of the mail that failed, whose Message-ID is an
outbox row's. The flag is only a notice: mail to the player is still sent (an address may
recover), and it is cleared when the player writes in or their seat gets a new address.
"""
from __future__ import annotations

import email
import re
from email.utils import parseaddr

from pbem import games, log, mailpolicy, reports

_HEADER_END = re.compile(rb"\r?\n\r?\n")


def is_report(raw: bytes) -> bool:
    """Is this mail a delivery-status notification? (Looks at its top header only.)"""
    head = _HEADER_END.split(raw[:65536], 1)[0].lower()
    if b"multipart/report" not in head:  # cheap: most mail stops here
        return False
    msg = email.message_from_bytes(_HEADER_END.split(raw, 1)[0] + b"\n\n", policy=mailpolicy.POLICY)
    return msg.get_content_type() == "multipart/report" and \
        str(msg.get_param("report-type", "")).lower() == "delivery-status"


def failures(raw: bytes) -> tuple[list[tuple[str, str]], str | None]:
    """([(recipient, why)] of the recipients whose delivery failed, the failed mail's Message-ID)."""
    msg = email.message_from_bytes(raw, policy=mailpolicy.POLICY)
    failed, original = [], None
    for part in msg.walk():
        kind = part.get_content_type()
        if kind == "message/delivery-status":
            for block in part.get_payload():
                if str(block.get("Action", "")).strip().lower() != "failed":
                    continue
                rcpt = str(block.get("Final-Recipient") or block.get("Original-Recipient") or "")
                why = " ".join(str(block.get(h, "")) for h in ("Status", "Diagnostic-Code")).strip()
                failed.append((parseaddr(rcpt.rpartition(";")[2])[1].lower(), why or "failed"))
        elif kind in ("message/rfc822", "text/rfc822-headers") and original is None:
            inner = part.get_payload()[0] if kind == "message/rfc822" else \
                email.message_from_string(part.get_content(), policy=mailpolicy.POLICY)
            original = " ".join(str(inner.get("Message-ID", "")).split()) or None
    return failed, original


def handle(svc, raw: bytes) -> tuple[str, str | None, str | None]:
    """A bounce received: mark whom it names. Returns (outcome, game, player)."""
    failed, original = failures(raw)
    if not failed:
        return "bounce: no failed recipient (a delay notice?)", None, None
    row = svc.store.outbox_by_message_id(original) if original else None
    seats = [(row["game"], row["player"])] if row and row["game"] and row["player"] else \
        [(p["game"], p["name"]) for addr, _ in failed for p in svc.store.players_by_email(addr)]
    why = dict(failed)
    if row and row["game"] and row["player"] and row.get("since_seq") is not None:
        with svc.store.transaction():  # its events come again in the next report that gets through
            svc.store.rewind_reported(row["game"], row["player"], row["since_seq"])
    for game, name in seats:
        player = svc.store.player(game, name)
        mark_undeliverable(svc, game, name, f"bounced: {why.get(player['email'].lower(), failed[0][1])}")
    if not seats:
        return log.scrub(f"bounce for {', '.join(a for a, _ in failed)}: no player has that address"), None, None
    return log.scrub(f"bounce: {', '.join(f'{g}/{n}' for g, n in seats)} undeliverable"), seats[0][0], seats[0][1]


def mark_undeliverable(svc, game_id: str, name: str, reason: str) -> None:
    """Flag the player; the first time, tell the moderator (a digest)."""
    player = svc.store.player(game_id, name)
    if player is None:
        return
    with svc.store.transaction():
        svc.store.update_player(game_id, name, undeliverable=f"{reason[:400]} (since {svc.store.now()})")
        log.get(game=game_id, player=name).warning("undeliverable", reason=reason)
        if not player["undeliverable"]:
            game = games.get(svc, game_id)
            reports.queue_digest(svc, game, games.state(svc, game), f"Mail to {name} cannot be delivered.",
                                 key=f"undeliverable.{name}.{svc.now():%Y%m%dT%H%M%S}")


def heard_from(svc, player: dict) -> None:
    """The player wrote in: their address works again."""
    if player.get("undeliverable"):
        svc.store.update_player(player["game"], player["name"], undeliverable=None)

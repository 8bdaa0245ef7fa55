"""A reply to a digest (pbem/pace/daily.py): several games answered in one mail, a block per game.

A block starts at a line naming its game in brackets (`[autumn]`, or the digest's header line
copied whole), and holds that game's answer lines and mail commands, as a mail to that game
would (pbem/inbound/orders.py reads the blocks). The reply is as safe as a report's reply: its
Reply-To carried the address's digest token (`people.digest_token`: the service's key, the
address, a salt of its own), and it must come From that address; each block is then carried
out as a mail of that address's seat in that game would be (its limits, its language, its
notes), through the same `carry_out`. A block for a game the address has no seat in is
refused, the others still played. One receipt answers the whole reply, each game's outcome in
it, then the games that still wait (`daily.queue`).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pbem.base import i18n, tokens
from pbem.base.i18n import _
from pbem.core import games, people
from pbem.inbound import orders
from pbem.outbound import bounces, limits, outbox
from pbem.pace import daily

if TYPE_CHECKING:
    from pbem.core.service import Service

CarryOut = Callable[["Service", dict, dict, dict, orders.Order], Any]  # process._carry_out: a Result


def opens(svc: Service, order: orders.Order, token_hash: str | None) -> bool:
    """Is this mail a reply to its sender's digest (the token it came with is the address's)?"""
    token_hash = tokens.hash_token(order.token) if order.token else token_hash
    return bool(order.sender and token_hash) and people.digest_token_matches(svc, order.sender or "",
                                                                             token_hash or "")


def answer(svc: Service, row: dict, order: orders.Order, carry_out: CarryOut) -> tuple[str, str]:
    """Carry out each block of a digest reply as its game's seat's mail; queue one receipt.
    Returns (status, outcome) for the inbox: applied when every block was, partial when some."""
    address = (order.sender or "").lower()
    with i18n.using(daily.language(svc, address)):
        outcomes, played = [], []
        if not order.blocks:
            outcomes.append(_note("-", _("No game was named: write the game's line in brackets, e.g. [autumn], "
                                         "and its answer lines under it.")))
        for block in order.blocks:
            outcome, status = _block(svc, row, order, block, address, carry_out)
            outcomes.append(outcome)
            played.append(status)
        daily.queue(svc, address, mid_parts=(f"in{row['id']}",), outcomes=outcomes, in_reply_to=order.message_id,
                    inbox_id=row["id"])
    good = [s for s in played if s in ("applied", "partial")]
    status = "applied" if good and len(good) == len(played) else "partial" if good else "rejected"
    return status, f"{status}: a digest reply, {len(order.blocks)} game(s): " + ", ".join(
        f"{b.game} {s}" for b, s in zip(order.blocks, played, strict=True))


def _block(svc: Service, row: dict, order: orders.Order, block: orders.Block, address: str,
           carry_out: CarryOut) -> tuple[dict, str]:
    seats = [s for s in svc.store.seats_by_email(address) if s["game"] == block.game and s["status"] == "active"]
    if len(seats) != 1:
        why = _("You have no seat in the game %(game)s: nothing of its block was played.", game=block.game) \
            if not seats else _("You have several seats in the game %(game)s: answer them in the game's own mails.",
                                game=block.game)
        return _note(block.game, why), "refused"
    seat = seats[0]
    game = games.get(svc, block.game)
    if game["status"] != "active":
        return _note(block.game, _("The game %(game)s is %(status)s: it takes no answers now.", game=block.game,
                                   status=_(game["status"]))), "rejected"
    bounces.heard_from(svc, seat)
    if not limits.take(svc, limits.MAILS_PER_HOUR, limits.seat(seat)):
        return _note(block.game, _("This seat has sent more mail in the last hour than it may: its block was not "
                                   "played. Send it again later.")), "rejected"
    mine = dataclasses.replace(order, game=block.game, player=seat["name"], lines=block.lines, calls=block.calls,
                               blocks=[], references=[],
                               signature=order.signature if block is order.blocks[-1] else None)
    with outbox.holding(address) as held, i18n.using(people.language(svc, game, seat["name"], address)):
        result = carry_out(svc, game, seat, row, mine)
    ctx: dict = next((h["context"] for h in held if h["game"] == block.game), {})
    failed = ctx.get("failed")
    notes = [*ctx.get("pace_notes", []), *ctx.get("press_notes", [])]
    if not ctx and result.status in ("applied", "partial"):  # no receipt was made: a command's own note
        notes.append(result.outcome)
    return {"game": block.game, "me": seat["name"], "said": _said(result.status), "applied": ctx.get("applied", []),
            "failed": {"line": failed.get("line"), "reason": failed.get("reason")} if failed else None,
            "notes": notes}, result.status


def _said(status: str) -> str:
    return {"applied": _("applied"), "partial": _("partly applied"), "checked": _("checked, nothing played")}.get(
        status, _("not played"))


def _note(game: str, text: str) -> dict:
    return {"game": game, "me": None, "said": _("not played"), "applied": [], "failed": None, "notes": [text]}

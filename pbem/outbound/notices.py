"""The moderator's notices, told in a digest: at most one mail per `notice_every` to each
moderator address, never one per incoming mail.

Whatever the moderator should hear of (a card waits for a ruling, a game cannot go on by
itself, a seat's mail does not arrive, a mail was given up, a stranger wrote, a message could
not be processed, a limit was hit) is `add`ed: a row of `notices`, keyed by its occasion. The
same key added again while it waits is counted (the digest says "3 times"); once told, it adds
nothing. `send_due`, a step of every daemon cycle (and of `serve --once`), queues one digest per
address whose last digest is at least `notice_every` old, with everything waiting for it: the
first notice after a quiet spell goes out at the next cycle, a flood goes out as one mail an
hour. The digest ends with each named game as it is now (whom it waits for, the card to rule
on and the commands that settle it, the seats whose mail does not arrive), so a notice that
waited an hour is not read as stale news.
"""
from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

from pbem.base import clock, i18n, log, terminal
from pbem.base.i18n import N_
from pbem.core import games
from pbem.outbound import outbox, reports

if TYPE_CHECKING:
    from pbem.core.service import Service


class Kind(NamedTuple):
    title: str  # the digest's heading over notices of this kind
    counted: str  # "3 ..." in the subject


# The kinds there are, in the order the digest tells them. A caller names one of these.
KINDS: dict[str, Kind] = {
    "ruling": Kind(N_("Cards waiting for your ruling"), "cards to rule on"),
    "stuck": Kind(N_("Games that cannot go on by themselves"), "stuck games"),
    "undeliverable": Kind(N_("Players whose mail does not arrive"), "undeliverable seats"),
    "resigned": Kind(N_("Players who resigned"), "resignations"),
    "disorder": Kind(N_("Seats in civil disorder: a bot plays them"), "seats in civil disorder"),
    "unprocessed": Kind(N_("Messages that could not be processed"), "unprocessed messages"),
    "gave-up": Kind(N_("Mail given up"), "mails given up"),
    "waiting": Kind(N_("Mail waiting to be sent"), "outbox alerts"),
    "limit": Kind(N_("Limits reached"), "limits reached"),
    "stranger": Kind(N_("Mail from addresses that opened no seat"), "strangers' mails"),
}
SHOWN = 20  # notices of one kind a digest lists; the rest are counted


def add(svc: Service, kind: str, text: str, *, key: object, game: str | None = None, to: str | None = None) -> bool:
    """Tell the moderator `text` in the next digest; True if it is new. `key` names the occasion
    (with `kind` and `game`): the same occasion again is counted, not repeated. `game`: the game
    it is about (its own moderator is told, else pbem.toml's `moderator`; `to` overrides both).
    Only logged where no moderator address is set."""
    if kind not in KINDS:
        raise ValueError(f"unknown notice kind {kind!r} (pbem/outbound/notices.py KINDS)")
    if to is None and game is not None:
        row = svc.store.game(game)
        to = reports.moderator_address(svc, row) if row else None
    to = to or svc.settings.moderator
    text = log.scrub(terminal.blanked(text)[:1000])  # a stranger's address: clean, and no token
    if not to:
        log.get(game=game).warning("no moderator address: notice not sent", kind=kind, text=text)
        return False
    return svc.store.add_notice(key=f"{kind}:{game or ''}:{key}", kind=kind, game=game, to_addr=outbox.clean(to),
                                text=text)


def next_due(svc: Service) -> datetime | None:
    """When the next digest may go (now or later), or None when no notice waits."""
    every, times = svc.settings.notice_interval, []
    for to in svc.store.notice_recipients():
        last = svc.store.last_mail_to(to, "digest")
        times.append(clock.parse(last) + every if last else svc.now())
    return min(times) if times else None


def send_due(svc: Service) -> int:
    """Queue a digest to every moderator whose notices wait and whose last digest is
    `notice_every` old; how many were queued. Several daemons queue each digest once (the
    address is locked while its digest is made, and its Message-ID names its first notice)."""
    every, queued = svc.settings.notice_interval, 0
    for to in svc.store.notice_recipients():
        with svc.store.transaction():
            svc.store.lock_notices(to)
            last = svc.store.last_mail_to(to, "digest")
            if last and clock.parse(last) + every > svc.now():
                continue
            rows = svc.store.waiting_notices(to, SHOWN)
            if not rows:  # told meanwhile by another daemon
                continue
            mid = reports.message_id(svc, None, "digest", rows[0]["id"])
            root = reports.message_id(svc, None, "moderator", "digests")  # one thread of digests
            ctx = context(svc, rows)
            with i18n.using(i18n.DEFAULT):  # the moderator's mail is English (docs/architecture.md)
                queued_now = outbox.enqueue(svc, kind="digest", message_id=mid, sender=svc.settings.address, to=to,
                                            to_name=None, subject=subject(rows), context=ctx, in_reply_to=root,
                                            references=[root], counted=True)
            if queued_now:
                svc.store.notices_told(to, rows[0]["last"], mid)
                queued += 1
    return queued


def _totals(rows: list[dict]) -> dict[str, int]:
    return {r["kind"]: r["of_kind"] for r in rows}


def subject(rows: list[dict]) -> str:
    totals = _totals(rows)
    if sum(totals.values()) == 1:
        only = rows[0]
        text = f"[{only['game']}] {only['text']}" if only["game"] else only["text"]
        return f"Talisman moderator: {text[:120]}"
    counts = ", ".join(f"{totals[k]} {KINDS[k].counted}" for k in KINDS if k in totals)
    return f"Talisman moderator: {sum(totals.values())} notices ({counts})"


def context(svc: Service, rows: list[dict]) -> dict:
    """What a digest shows, as data (templates/digest.*.j2): the notices by kind, then each
    game they name as it is now."""
    totals = _totals(rows)
    sections = []
    for kind, about in KINDS.items():
        mine = [r for r in rows if r["kind"] == kind]
        if mine:
            sections.append({"kind": kind, "title": about.title, "more": totals[kind] - len(mine),
                             "notices": [{"text": r["text"], "count": r["count"], "game": r["game"],
                                          "at": r["created_at"]} for r in mine]})
    named = list(dict.fromkeys(r["game"] for r in rows if r["game"]))
    return {"address": svc.settings.address, "count": sum(totals.values()),
            "since": clock.local(clock.parse(min(r["created_at"] for r in rows)), None),
            "sections": sections, "games": [g for g in (game_now(svc, gid) for gid in named) if g]}


def game_now(svc: Service, game_id: str) -> dict | None:
    """A game as the moderator should see it now: whom it waits for, a card to rule on and the
    commands that settle it, the seats whose mail does not arrive."""
    game = svc.store.game(game_id)
    if game is None:
        return None
    eng = svc.engine
    view = eng.view(games.state(svc, game), None)
    prompts = view.get("prompt", []) if game["status"] == "active" else []
    card = next((p for p in prompts if eng.MODERATOR in p["players"]), None)
    commands = []
    if card:
        commands = [f'pbem game adjudicate {game_id} "EFFECTS"   (e.g. "NAME life -1, NAME gold +2")'] + \
            [f'pbem game answer {game_id} moderator "{card["id"]}: {o["key"]}"' for o in card["options"]
             if o["key"] != "adjudicate"]
    return {"id": game_id, "status": game["status"], "turn": view["turn"], "adjudicate": card, "commands": commands,
            "waiting": [n for p in prompts for n in p["players"]],
            "question": prompts[0].get("question") if prompts else None,
            "undeliverable": [{"name": p["name"], "email": p["email"], "reason": p["undeliverable"]}
                              for p in svc.store.players(game_id, active_only=True) if p.get("undeliverable")]}


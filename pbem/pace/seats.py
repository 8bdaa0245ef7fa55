"""Where a bot sits (docs/pace.md, "Seat bots"): a seat made a bot seat at the game's creation
(`[[players]] bot = "greedy"`, pbem/moderate/newgame.py), put in a bot's hands on the
moderator's word (`pbem player bot`) or by civil disorder (pbem/pace/misses.py), and taken back
by its person (`back`, a mail command). A bot answers as soon as its seat is asked, in the same
transaction as the move that asked it (the `Answerer`, pbem/pace/answering.py), a bounded batch
at a time; `play_due` goes on in each daemon round.

Who plays the seat is the players row's `bot` (the level; NULL: its person) and `bot_by` (seat,
moderator, disorder). A bot seat has no person: status `bot`, no address, no mail. A seat in a
bot's hands keeps its person, address and token: they still get the reports, and have no
deadline (a bot does not miss).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine import bots
from pbem.base import i18n, log, tokens
from pbem.base.i18n import _
from pbem.core import games, people
from pbem.core.games import GameError
from pbem.outbound import announce, outbox, reports
from pbem.pace import moves, reported, schedule

if TYPE_CHECKING:
    from pbem.core.service import Service

LEVELS = bots.LEVELS
SEAT, MODERATOR, DISORDER = "seat", "moderator", "disorder"  # bot_by: why a bot plays the seat
OFF = "off"  # `pbem player bot GAME NAME off`: its person plays again
WITHDRAWN, TAKEN, BACK = "withdrawn", "taken", "back"  # why an offer of a seat ends (`end_offers`)


def check_level(level: str) -> str:
    if level not in LEVELS:
        raise GameError(f"no bot level {level!r}: one of {', '.join(LEVELS)}")
    return level


def play_now(svc: Service, game: dict) -> moves.Played | None:
    """Let the bots (and standing orders) answer what the game asks now, a batch at most, and
    tell the players; None when nothing was played."""
    played = moves.play(svc, game, svc.engine.MODERATOR, [])
    if not (played.bots or played.standing):
        return None
    announce.queue_reports(svc, game, played, pace=reported.part)
    return played


def play_due(svc: Service) -> int:
    """Each daemon round: in every active game where a bot is asked, a batch of bot answers
    (each game in its own transaction). Returns how many answers were played."""
    done = 0
    for game_id in svc.store.games_with_bots():
        try:
            with svc.store.transaction():
                game = games.get(svc, game_id)
                if game["status"] != "active":
                    continue
                played = play_now(svc, game)
                done += len(played.bots) + len(played.standing) if played else 0
        except Exception:  # noqa: BLE001 -- one game's trouble must not stop the others
            log.get(game=game_id).exception("bots failed")
    return done


def put(svc: Service, game: dict, name: str, level: str | None, by: str, *, play: bool = True) -> None:
    """A bot of `level` plays seat `name` from now on (None: its person plays again); what it
    is asked now, it answers at once (`play` False: the caller lets it, after its own reports).
    Inside a transaction."""
    seat = svc.store.player(game["id"], name)
    if seat is None:
        raise GameError(f"{game['id']}: no player {name!r}")
    if level is None and seat["status"] == "bot":
        raise GameError(f"{game['id']}: {name} is a bot seat: it has no person to play it (`pbem player replace` "
                        "gives it one)")
    svc.store.set_bot(game["id"], name, level and check_level(level), by if level else None)
    if level is None:
        end_offers(svc, game, name, BACK)  # its person plays it: an offer to substitutes ends
    state = games.state(svc, game)
    schedule.sync(svc, game, state)  # no deadline while a bot plays it; one again when its person does
    log.get(game=game["id"], player=name).info("seat bot", level=level, by=by)
    if play and level and game["status"] == "active":
        play_now(svc, game)


def end_offers(svc: Service, game: dict, name: str, why: str, *, taker: str | None = None) -> int:
    """Seat `name` is offered to substitutes no more (pbem/moderate/offers.py): every code for it
    is void, and each person it was offered to is told why (`why`: WITHDRAWN, TAKEN, BACK), as
    their invitation promised; `taker`, who now holds the seat, gets their welcome instead. How
    many offers ended. Inside a transaction."""
    ended = svc.store.offers(game["id"], name)
    svc.store.end_offers(game["id"], name)
    for o in ended:
        if taker is not None and o["email"].lower() == taker.lower():
            continue
        with i18n.using(people.language(svc, game, None, o["email"])):  # the invitation's language
            subject = _("The seat %(name)s of %(game)s is no longer offered", name=name, game=game["id"])
            reason = {WITHDRAWN: _("The moderator has withdrawn the offer of the seat %(name)s in the Talisman game "
                                   "%(game)s.", name=name, game=game["id"]),
                      TAKEN: _("The seat %(name)s in the Talisman game %(game)s has been given to someone else.",
                               name=name, game=game["id"]),
                      BACK: _("The player of the seat %(name)s in the Talisman game %(game)s plays it again.",
                              name=name, game=game["id"])}[why]
            lines = [reason, _("The code you were sent no longer takes it. Thank you for your interest.")]
            ctx = {"address": reports.game_address(svc, game), "subject": subject, "lines": lines}
            offer_id = tokens.hash_token(o["salt"])[:12]  # the invitation's own id: one notice per invitation
            outbox.enqueue(svc, kind="notice", message_id=reports.message_id(svc, game, name, "offer-end", offer_id),
                           sender=reports.game_address(svc, game), to=o["email"], to_name=None,
                           subject=f"[{game['id']}] {subject}", context=ctx, game=game["id"])
    if ended:
        log.get(game=game["id"], player=name).info("seat offer ended", why=why, invited=len(ended))
    return len(ended)


def moderator_bot(svc: Service, game_id: str, name: str, level: str) -> None:
    """`pbem player bot GAME NAME LEVEL`: the moderator's word; `off` gives the seat back to its
    person."""
    with svc.store.transaction():
        game = games.get(svc, game_id)
        if game["status"] == "ended":
            raise GameError(f"{game_id} has ended")
        put(svc, game, name, None if level == OFF else level, MODERATOR)


def take_back(svc: Service, game: dict, name: str) -> str:
    """`back` from the seat's person: a seat in civil disorder is theirs again. The note says
    what became of it, in the language of the mail's replies."""
    seat = svc.store.player(game["id"], name)
    assert seat is not None  # the mail authenticated as this seat
    if not seat["bot"]:
        return _("back: your seat is yours already (no bot plays it)")
    if seat["bot_by"] != DISORDER:
        return _("back: the moderator put a bot on your seat; write to them to have it back")
    put(svc, game, name, None, DISORDER)
    return _("back: your seat is yours again; the game waits for your answers (your deadlines run again)")

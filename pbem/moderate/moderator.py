"""What the moderator does from the command line: start and end games, answer for a
player, settle a card, roll back, and manage seats. Every change to play is a recorded
move; nothing is ever deleted from a game's log."""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.base import log, tokens
from pbem.core import games
from pbem.core.games import GameError
from pbem.moderate import newgame
from pbem.outbound import announce, outbox, reports, turnmail
from pbem.pace import (
    briefing,  # substitutes
    misses,  # reliability: who may join
    moves,
    pace,
    reported,
    schedule,
    seats,  # seat bots
    standing,  # standing orders (docs/pace.md)
    vacation,
)
from pbem.pace.moves import Played
from pbem.store import storable

if TYPE_CHECKING:
    from pbem.core.service import Service


def _active(svc: Service, game_id: str) -> dict:
    game = games.get(svc, game_id)
    if game["status"] != "active":
        raise GameError(f"{game_id} is {game['status']}, not active")
    return game


def _after(svc: Service, game: dict, played: Played, *, also=()) -> None:
    if played.applied or played.standing or played.bots:
        announce.queue_reports(svc, game, played, also=also, pace=reported.part)


def start(svc: Service, game_id: str) -> None:
    with svc.store.transaction():
        game = games.get(svc, game_id)
        if game["status"] != "waiting":
            raise GameError(f"{game_id} is {game['status']}; only a waiting game can start")
        newgame.check_player_count(len(svc.store.players(game_id)))
        svc.store.update_game(game_id, status="active")
        game["status"] = "active"
        newgame._first_reports(svc, game, games.state(svc, game))


def end(svc: Service, game_id: str) -> None:
    """End a game early: no more orders are taken."""
    with svc.store.transaction():
        game = games.get(svc, game_id)
        if game["status"] == "ended":
            raise GameError(f"{game_id} has ended already")
        svc.store.update_game(game_id, status="ended")
        if game["status"] == "active":  # the players learn the end and the seed
            announce.queue_game_over(svc, {**game, "status": "ended"}, games.state(svc, game), ended_by_moderator=True,
                                     pace=reported.part)
    log.get(game=game_id).info("game ended by the moderator")


def answer(svc: Service, game_id: str, player: str, line: str) -> Played:
    """The moderator answers in a player's place, or a prompt put to the moderator
    (player "moderator"); logged with actor moderator."""
    with svc.store.transaction():
        game = _active(svc, game_id)
        if player != svc.engine.MODERATOR and svc.store.player(game_id, player) is None:
            raise GameError(f"{game_id}: no player {player!r}")
        played = moves.play(svc, game, player, [line], actor=svc.engine.MODERATOR)
        _after(svc, game, played, also=(player,))  # the player hears what was answered for them
    return played


def adjudicate(svc: Service, game_id: str, text: str) -> Played:
    """Settle a card whose effect the engine does not know: a moderator move in the log."""
    eng = svc.engine
    with svc.store.transaction():
        game = _active(svc, game_id)
        move = eng.Move(eng.MODERATOR, "adjudicate", None, storable(text))  # played as the log keeps it
        played = Played(state=games.state(svc, game))
        played.start = played.state
        try:
            played.state, events = eng.apply(played.state, move)
        except eng.IllegalMove as e:
            raise GameError(e.reason) from None
        played.events = list(events)
        played.applied = [str(move)]
        played.seq = moves.record(svc, game, move, played.state, played.events, actor=eng.MODERATOR)["seq"]
        standing.settle(svc, game, played)  # what the ruling opened, standing orders may answer
        _after(svc, game, played)
    return played


def rollback(svc: Service, game_id: str, seq: int) -> Played:
    """Put the game back to how it was after move `seq`. The moves after it stay in the
    log; the rollback is a move of its own, so a replay reaches the same state."""
    with svc.store.transaction():
        game = _active(svc, game_id)
        if not 0 <= seq < game["moves"]:
            raise GameError(f"{game_id}: move {seq} is not before the last move ({game['moves']})")
        # start None: the game may be anywhere now, so everyone gets a report
        played = Played(state=games.state_at(svc, game, seq), applied=[f"rollback {seq}"],
                        events=[turnmail.rollback_note(seq)])
        played.seq = moves.record(svc, game, None, played.state, played.events, actor=svc.engine.MODERATOR,
                                  kind="rollback", line=f"rollback {seq}")["seq"]
        _after(svc, game, played)
    return played


# -- seats ------------------------------------------------------------------------------

def _rebuild(svc: Service, game: dict, config: dict) -> None:
    """Before the start, seats can change: set the game up again from its config."""
    eng = svc.engine
    first = eng.new_game(games.engine_config(config), games.seed(svc, game))
    blob = games.encode(svc, first)
    svc.store.update_game(game["id"], config=config, state=blob)
    svc.store.save_snapshot(game["id"], 0, blob, replace=True)


def add_player(svc: Service, game_id: str, name: str, email: str | None, character: str | None = None,
               role: str = "hero", bot: str | None = None) -> None:
    """A seat before the game starts: a person at `email` (refused, saying why, when their
    record is below the game's minimum: pbem/pace/misses.py), or a bot of level `bot`."""
    with svc.store.transaction():
        game = games.get(svc, game_id)
        if game["status"] != "waiting":
            raise GameError("players can join only before the game starts (game new --wait)")
        if svc.store.player(game_id, name):
            raise GameError(f"{game_id}: {name!r} plays already")
        if (email is None) == (bot is None):
            raise GameError(f"give {name!r} an address, or make it a bot seat (--bot LEVEL), not both")
        config = game["config"]
        if bot is None:
            email = games._check_email(email or "", f"player {name!r}")
            newgame.check_addresses([*config["players"], {"name": name, "email": email}])
            misses.check_minimum(svc, config["game"], email)
        else:
            seats.check_level(bot)
        config["players"].append({k: v for k, v in {"name": name, "email": email, "character": character,
                                                    "role": role, "bot": bot}.items()
                                  if v})
        try:
            _rebuild(svc, game, config)
        except (ValueError, KeyError) as e:
            raise GameError(str(e)) from None
        player = newgame._seat(svc, game_id, name, len(config["players"]) - 1, email or "", role, character, bot)
        if bot is None:
            reports.queue_welcome(svc, games.get(svc, game_id), player, games.state(svc, games.get(svc, game_id)))


def replace_player(svc: Service, game_id: str, name: str, email: str) -> None:
    """Give a seat to someone else (or a new address): a new token, the old one is void."""
    with svc.store.transaction():
        game = games.get(svc, game_id)
        if svc.store.player(game_id, name) is None:
            raise GameError(f"{game_id}: no player {name!r}")
        email = games._check_email(email, f"player {name!r}")
        newgame.check_addresses([p if p["name"] != name else {**p, "email": email} for p in game["config"]["players"]
                               if p.get("status", "active") == "active"])
        salt = tokens.new_salt()
        token = tokens.token_for(svc.key, game_id, name, salt)
        log.forget(token)
        svc.store.update_player(game_id, name, email=email, token_salt=salt, token_hash=tokens.hash_token(token),
                                status="active", undeliverable=None, bot=None, bot_by=None)  # a bot's seat too
        briefing.note_predecessor(svc, game, name, email)  # the history keeps both
        seats.end_offers(svc, game, name, seats.TAKEN, taker=email)  # given to someone: any offer of it ends
        for p in game["config"]["players"]:
            if p["name"] == name:
                p["email"] = email
                p.pop("bot", None)
        svc.store.update_game(game_id, config=game["config"])
        state = games.state(svc, game)
        schedule.sync(svc, game, state)  # a seat a bot played has deadlines again
        player = svc.store.player(game_id, name)
        assert player is not None  # the seat updated above
        reports.queue_welcome(svc, game, player, state)
        if game["status"] == "active":  # sheet, hand, recent events; the last holder's orders end
            briefing.hand_over(svc, game, player, state, mid_parts=(game["moves"], f"s{salt}"))


def remove_player(svc: Service, game_id: str, name: str) -> None:
    """Before the start the seat goes; after it the seat stays in the game (the moderator
    answers for it with `game answer`), but it takes no orders and gets no mail."""
    with svc.store.transaction():
        game = games.get(svc, game_id)
        if svc.store.player(game_id, name) is None:
            raise GameError(f"{game_id}: no player {name!r}")
        if game["status"] == "waiting":
            config = game["config"]
            config["players"] = [p for p in config["players"] if p["name"] != name]
            if not config["players"]:
                raise GameError("a game needs players")
            _rebuild(svc, game, config)
            svc.store.delete_player(game_id, name)
        else:
            svc.store.update_player(game_id, name, status="removed")


def resend(svc: Service, game_id: str, name: str) -> None:
    """Send a player their last report again (the same text, a new Message-ID)."""
    with svc.store.transaction():
        game = games.get(svc, game_id)
        player = svc.store.player(game_id, name)
        if player is None or player["status"] != "active":
            raise GameError(f"{game_id}: no active player {name!r}")
        last = svc.store.last_outbox(game_id, name, svc.store.RESENT)
        if last is None:
            reports.queue_report(svc, game, player, games.state(svc, game), kind="report",
                                 mid_parts=(game["moves"], "r1"), pace=reported.part)
            return
        last = outbox.rendered(svc, last)  # a report not sent yet is rendered now
        n = svc.store.count_outbox(game_id, name, "resend") + 1
        headers = outbox.headers_of(last)
        outbox.enqueue(svc, kind="resend", message_id=reports.message_id(svc, game, name, f"r{n}", "resend"),
                       sender=reports.game_address(svc, game), to=player["email"], to_name=name,
                       subject=last["subject"], text=last["text"], html=last["html"], game=game_id, player=player,
                       marker=last["token_marker"], in_reply_to=headers.get("In-Reply-To"),
                       references=headers.get("References", "").split())


def roster(svc: Service, game_id: str) -> list[dict]:
    """The seats of a game as the moderator needs them: address, state, undeliverable, the
    vacation left and any running, standing orders, the last mail in and out."""
    game = games.get(svc, game_id)
    return [seat_summary(svc, game, p) for p in svc.store.players(game_id)]


def seat_summary(svc: Service, game: dict, p: dict) -> dict:
    """One seat (a players row of `game`) as `player list` and `player show` show it."""
    name, now = p["name"], svc.now()
    away = vacation.on_vacation(svc, game["id"], name, now)
    last_in, last_out = svc.store.last_mail(game["id"], name)
    record = misses.reliability(svc, p["email"]) if p["email"] else None
    return {"name": name, "email": p["email"], "role": p["role"], "character": p["character"],
            "status": p["status"], "undeliverable": p["undeliverable"], "bot": p["bot"], "bot_by": p["bot_by"],
            "offered_to": [o["email"] for o in svc.store.offers(game["id"], name)],  # pbem/moderate/offers.py
            "misses": [{"prompt": m["prompt"], "due_at": m["due_at"], "charged": bool(m["charged"]),
                        "reason": m["reason"]} for m in svc.store.misses(game["id"], name)],
            "finished": record["finished"] if record else None,
            "misses_per_100": record["misses_per_100"] if record else None,
            "vacation_left_days": round(vacation.left(svc, game, name, now).total_seconds() / 86400, 1)
            if pace.pace_of(game) is not None else None,
            "on_vacation_until": away["ends_at"] if away else None,
            "standing_orders": [o["text"] for o in standing.listing(svc, game["id"], name)],
            "last_mail_in": last_in, "last_mail_out": last_out}

"""Observers: people who watch a game. They get the public report (what every player may see,
no one's hidden cards) when a turn begins and when the game ends, and may send `status` (the
report again) from their address, nothing else. They hold no token: what they can ask for is
public. They are kept in the game's config (`[[observers]]`, or `pbem observer add`), each
with the last move a report showed them (`reported_seq`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.base import configkeys
from pbem.core import games
from pbem.outbound import limits, links as web_links, outbox, reports, turnmail

if TYPE_CHECKING:
    from pbem.core.service import Service

KEYS = ("name", "email")


def of(game: dict) -> list[dict]:
    return list(game["config"].get("observers", []))


def copied(table):
    """A config's `observers` with each table copied; anything that is not a table is left
    as it is, for check() to refuse with a message (not a traceback)."""
    return [dict(o) if isinstance(o, dict) else o for o in table] if isinstance(table, list) else table


def check(config: dict) -> None:
    """The `[[observers]]` tables: a name and an address each, neither a player's."""
    seats = {p.get("name") for p in config.get("players", [])}
    table = config.get("observers", [])
    if not isinstance(table, list) or not all(isinstance(o, dict) for o in table):
        raise games.GameError("observers are tables, one per observer: `[[observers]]`")
    for i, o in enumerate(table):
        where = f"[[observers]] {o.get('name') or i + 1}"
        wrong = configkeys.problems(o, KEYS, where)
        if wrong:
            raise games.GameError("; ".join(wrong))
        if not isinstance(o.get("name"), str) or not isinstance(o.get("email"), str):
            raise games.GameError(f"{where} needs a name and an email")
        if not o["name"].strip() or not o["name"].isprintable():  # it heads their reports
            raise games.GameError(f"[[observers]] {o['name']!r}: a name is one line of printable text")
        if o["name"] in seats:
            raise games.GameError(f"{where}: {o['name']!r} is a player's name")
        o["email"] = games._check_email(o["email"], where)


def add(svc: Service, game_id: str, name: str, email: str) -> dict:
    """Add an observer to a game; they get the public report at once."""
    with svc.store.transaction():
        game = games.get(svc, game_id)
        config = dict(game["config"])
        if any(o["name"] == name for o in of(game)):
            raise games.GameError(f"{game_id}: observer {name!r} exists already")
        new = {"name": name, "email": email}
        check({"observers": [new], "players": [{"name": p["name"]} for p in svc.store.players(game_id)]})
        config["observers"] = of(game) + [new]
        svc.store.update_game(game_id, config=config)
        game["config"] = config
        observer = config["observers"][-1]
        queue(svc, game, games.state(svc, game), [observer], key="added")
    return observer


def find(game: dict, email: str | None) -> dict | None:
    return next((o for o in of(game) if email and o["email"].lower() == email.lower()), None)


def queue(svc: Service, game: dict, state, who: list[dict] | None = None, *, key, frame: dict | None = None,
          in_reply_to: str | None = None) -> None:
    """The public report to each observer (`who`: these only), with the public events since
    the last one each had (`in_reply_to`: the observer's mail it answers)."""
    who = of(game) if who is None else who
    if not who:
        return
    seq, eng = game["moves"], svc.engine
    view = eng.view(state, reports.SPECTATOR)
    frame = frame or reports.make_frame(svc, state, view)  # from the same view, not a second
    seen = {o["name"]: o.get("reported_seq", seq) for o in who}
    backlog = turnmail.Backlog(svc, game["id"], min(seen.values()), seq)
    for o in who:
        events = backlog.since(seen[o["name"]], reports.SPECTATOR)
        ctx = reports.report_context(svc, game, reports.SPECTATOR, view, events, frame, state, pace=reports.no_seat)
        ctx.update(me=o["name"], observer=True, links=web_links.mail_links(svc, game, None))
        root = reports.thread_root(svc, game, f"observer.{o['name']}")
        outbox.enqueue(svc, kind="report", message_id=reports.message_id(svc, game, key, "observer", o["name"]),
                       sender=reports.game_address(svc, game), to=o["email"], to_name=o["name"],
                       subject=reports.subject(game, ctx, "report"), context=ctx, game=game["id"],
                       in_reply_to=in_reply_to or root, references=[root, in_reply_to], reply=in_reply_to is not None)
    config = dict(game["config"])
    config["observers"] = [{**o, "reported_seq": seq} if o["name"] in seen else o for o in of(game)]
    svc.store.update_game(game["id"], config=config)
    game["config"] = config


def status(svc: Service, game: dict, observer: dict, inbox_id: int, message_id: str | None) -> bool:
    """`status` from an observer's address: the public report again, at most
    `observer_status_per_day` times a day (a From is easily forged: each would be a full
    report). False when over it: the observer is told so once, the moderator once a day."""
    limit, who = limits.OBSERVER_STATUS, observer["email"].lower()
    if limits.take(svc, limit, who):
        queue(svc, game, games.state(svc, game), [observer], key=f"in{inbox_id}", in_reply_to=message_id)
        return True
    if limits.over(svc, limit, who, game=game["id"]):
        n = limit.allowed(svc)
        ctx = {"address": reports.game_address(svc, game), "subject": f"The game {game['id']}'s report",
               "lines": [f"You have asked for the report of the game {game['id']} {n} times in the last 24 hours "
                         f"({limit.key}), the most an observer may; this mail and any more today bring none.",
                         "You still get the report each time a turn begins."]}
        outbox.enqueue(svc, kind="notice", message_id=reports.message_id(svc, game, f"in{inbox_id}", "observer"),
                       sender=reports.game_address(svc, game), to=observer["email"], to_name=observer["name"],
                       subject=f"[{game['id']}] No more reports today", context=ctx, game=game["id"],
                       in_reply_to=message_id, references=[message_id], inbox_id=inbox_id, reply=True)
    return False

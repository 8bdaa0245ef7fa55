"""`pbem player ...` and `pbem observer ...`: the seats of a game and who watches it."""
from __future__ import annotations

import click

from pbem.cli.common import (
    GameError,
    Group,
    duration,
    echo_json,
    game_arg,
    player_arg,
    service,
    table,
)
from pbem.core import games
from pbem.moderate import moderator
from pbem.pace import seats

# -- players ---------------------------------------------------------------------------------

@click.group(cls=Group)
def player():
    """Seats and the people in them, across games."""


@player.command("list", short_help="The seats: address, state, vacation, mail.")
@game_arg()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def player_list(ctx, game_id, as_json):
    """GAME's seats: address, state, undeliverable, vacation, standing orders, last mail."""
    rows = moderator.roster(service(ctx), game_id)
    if as_json:
        return echo_json(rows)
    table([_shown(r) for r in rows], ["name", "email", "status", "bot", "offered_to", "undeliverable", "missed",
                                      "finished", "misses_per_100", "vacation_left_days", "on_vacation_until",
                                      "standing_orders", "last_mail_in", "last_mail_out"])


def _shown(r: dict) -> dict:
    """A seat's row as a table shows it: counts for lists, the bot with why it plays, misses in
    this game charged + excused."""
    charged = sum(m["charged"] for m in r["misses"])
    return {**r, "standing_orders": len(r["standing_orders"]), "undeliverable": r["undeliverable"] or "",
            "bot": f"{r['bot']} ({r['bot_by']})" if r["bot"] else "", "offered_to": ", ".join(r["offered_to"]),
            "missed": f"{charged}+{len(r['misses']) - charged}" if r["misses"] else "",
            "finished": "" if r["finished"] is None else r["finished"],
            "misses_per_100": "" if r["misses_per_100"] is None else r["misses_per_100"]}


@player.command("show", short_help="One person across all games, by address.")
@click.argument("email")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def player_show(ctx, email, as_json):
    """Every seat EMAIL holds or held, in every game (state, undeliverable, vacation, standing
    orders, last mail), and the games it watches."""
    from pbem.moderate import people
    found = people.person(service(ctx), email)
    if as_json:
        return echo_json(found)
    if not found["seats"] and not found["observing"] and not found["offered"]:
        raise GameError(f"no seat and no observer has the address {email!r}, and no seat is offered to it")
    if found["seats"]:
        table([_shown(r) for r in found["seats"]], ["game", "game_status", "turn", "name", "email", "status", "bot",
                                                    "offered_to", "undeliverable", "missed", "vacation_left_days",
                                                    "on_vacation_until", "standing_orders", "last_mail_in",
                                                    "last_mail_out"])
    c = found["settings"]
    click.echo(f"mail: {c['mail']}; digest at {c['digest_at']} {c['zone']}; "
               f"language: {c['language'] or '(not chosen)'}")
    r = found["reliability"]
    per = "no question yet" if r["misses_per_100"] is None else f"{r['misses_per_100']} misses per 100 questions"
    click.echo(f"reliability: {r['finished']} game(s) finished of {r['games']}; {r['questions']} question(s), "
               f"{r['charged']} missed (charged), {r['excused']} excused; {per} (weighed by age)")
    for o in found["observing"]:
        click.echo(f"watches {o['game']} ({o['game_status']}) as {o['name']}")
    for o in found["offered"]:
        click.echo(f"offered the seat {o['seat']} of {o['game']} since {o['offered_at']} (not taken yet)")


@player.command("add", short_help="Add a player (or a bot) before the game starts.")
@game_arg()
@player_arg()
@click.argument("email", required=False)
@click.option("--character", help="The character to play (dealt at random when absent).")
@click.option("--role", default="hero", show_default=True)
@click.option("--bot", "level", type=click.Choice(seats.LEVELS), help="A seat a bot of this level plays (no EMAIL).")
@click.pass_context
def player_add(ctx, game_id, name, email, character, role, level):
    """Add a player to a game that has not started; they get a welcome mail. Refused, saying
    why, when the person's record is below the game's minimum (max_misses, min_finished).
    --bot LEVEL: a seat a bot plays (a short table filled up)."""
    moderator.add_player(service(ctx), game_id, name, email, character, role, bot=level)


@player.command("bot", short_help="A bot plays a seat (or `off`: its person again).")
@game_arg()
@player_arg()
@click.argument("level", type=click.Choice([*seats.LEVELS, seats.OFF]))
@click.pass_context
def player_bot(ctx, game_id, name, level):
    """A bot of LEVEL (random, greedy, planner) plays NAME's seat from now on, answering at once;
    `off` gives the seat back to its person. The person keeps the seat's reports."""
    seats.moderator_bot(service(ctx), game_id, name, level)
    click.echo(f"{game_id}: {name} is played by {'its person' if level == seats.OFF else f'a {level} bot'}")


@player.command("replace", short_help="Give a seat to someone else: a new token.")
@game_arg()
@player_arg()
@click.argument("email")
@click.pass_context
def player_replace(ctx, game_id, name, email):
    """Give NAME's seat to EMAIL with a new token; the old token stops working."""
    moderator.replace_player(service(ctx), game_id, name, email)


@player.command("offer", short_help="Offer a seat a bot holds to substitutes, by mail.")
@game_arg()
@player_arg()
@click.option("--to", "emails", multiple=True, metavar="EMAIL", help="Whom to invite (as many as you like).")
@click.option("--withdraw", is_flag=True, help="End the offer: every code sent for the seat is void.")
@click.pass_context
def player_offer(ctx, game_id, name, emails, withdraw):
    """Mail each EMAIL an invitation to take NAME's seat (the game, the seat's character and
    where it stands, and a code of their own); the first to reply `take CODE` plays the seat
    (as `player replace` gives it), later takers are told it is gone. The offer ends when it is
    taken, when the seat's person writes `back`, or with --withdraw."""
    from pbem.moderate import offers
    if withdraw:
        click.echo(f"{game_id}: {name}: offer withdrawn ({offers.withdraw(service(ctx), game_id, name)} code(s) void)")
        return
    for email in offers.offer(service(ctx), game_id, name, list(emails)):
        click.echo(f"{game_id}: {name} offered to {email}")


@player.command("email", short_help="A seat's new address; its token stays.")
@click.argument("words", nargs=-1, metavar="GAME NAME NEW | --all NAME|OLD NEW")
@click.option("--all", "everywhere", is_flag=True,
              help="Every running game's seat of NAME (or of the address OLD).")
@click.pass_context
def player_email(ctx, words, everywhere):
    """Give NAME's seat in GAME the address NEW, keeping its token (both addresses are told,
    mail waiting for the seat goes to NEW); --all: every seat of NAME, or of the address OLD,
    in every game not ended."""
    from pbem.moderate import people
    if len(words) != (2 if everywhere else 3):
        raise click.UsageError("give GAME NAME NEW, or --all NAME NEW (NAME, or the old address)")
    game_id, who, new = (None, *words) if everywhere else words
    for game, name, old in people.change_email(service(ctx), game_id, who, new):
        click.echo(f"{game}: {name}: {old} -> {new}")


@player.command("mail", short_help="How an address gets its mail: each, digest, both.")
@click.argument("email")
@click.argument("how", required=False, metavar="[each|digest|both]")
@click.option("--zone", help="The address's time zone (e.g. Europe/Berlin).")
@click.option("--at", "at", metavar="HH:MM", help="The hour its digest goes, in its zone.")
@click.pass_context
def player_mail(ctx, email, how, zone, at):
    """EMAIL's mail in every game: `each` report as it comes, one `digest` a day listing every game
    that waits for it, or `both`; --zone and --at set when the digest goes. With nothing to set,
    shows what EMAIL chose."""
    from pbem.moderate import people
    try:
        c = people.set_mail(service(ctx), email, how, zone, at)
    except ValueError as e:
        raise GameError(str(e)) from None
    click.echo(f"{email}: mail: {c['mail']}; digest at {c['digest_at']} {c['zone']}")


@player.command("remove", short_help="Remove a player from a game.")
@game_arg()
@player_arg()
@click.pass_context
def player_remove(ctx, game_id, name):
    """Remove a player (after the start the seat stays; the moderator answers for it)."""
    moderator.remove_player(service(ctx), game_id, name)


@player.command("resend")
@game_arg()
@player_arg()
@click.pass_context
def player_resend(ctx, game_id, name):
    """Mail NAME their last report again."""
    moderator.resend(service(ctx), game_id, name)


@player.command("vacation", short_help="Pause a player's deadlines for some days.")
@game_arg()
@player_arg()
@click.argument("days", required=False)
@click.option("--allowance", type=click.IntRange(min=0), metavar="N", help="Set NAME's vacation days in this game.")
@click.pass_context
def player_vacation(ctx, game_id, name, days, allowance):
    """Pause NAME's deadlines for DAYS (e.g. 5, or 36h), past their allowance if need be;
    0 ends a vacation now. --allowance N: the days NAME may take by mail in this game."""
    from pbem.base import clock
    from pbem.pace import vacation
    if days is None and allowance is None:
        raise click.UsageError("give DAYS, --allowance N, or both")
    svc = service(ctx)
    with svc.store.transaction():
        g = games.get(svc, game_id)
        if svc.store.player(game_id, name) is None:
            raise GameError(f"{game_id}: no player {name!r}")
        if allowance is not None:
            vacation.set_allowance(svc, g, name, allowance)
            click.echo(f"{name}: {allowance} vacation day(s) in this game")
        if days is None:
            return
        if days.strip() in ("0", "end"):
            vacation.end(svc, g, name)
            return click.echo(f"{name}: back from vacation")
        end = vacation.start(svc, g, name, duration(days, "d"), by=svc.engine.MODERATOR)
    click.echo(f"{name}: on vacation until {clock.local(end, None)}")


# -- observers -------------------------------------------------------------------------------

@click.group(cls=Group)
def observer():
    """Observers: add (the public report each turn)."""


@observer.command("add", short_help="Let someone watch a game.")
@game_arg()
@click.argument("name")
@click.argument("email")
@click.pass_context
def observer_add(ctx, game_id, name, email):
    """NAME (at EMAIL) gets GAME's public report now and when each turn begins; they may
    mail `status`, nothing else."""
    from pbem.outbound import observers
    observers.add(service(ctx), game_id, name, email)
    click.echo(f"{game_id}: {name} watches the game")

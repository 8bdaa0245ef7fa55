"""`pbem game ...` and `pbem log`: create, inspect and moderate games (pbem/moderate/)."""
from __future__ import annotations

import click

from pbem.base.terminal import inert
from pbem.cli.common import (
    Group,
    Later,
    duration,
    echo_json,
    game_arg,
    player_arg,
    service,
    table,
)
from pbem.core import games

moderator, newgame = Later("pbem.moderate.moderator"), Later("pbem.moderate.newgame")
reports = Later("pbem.outbound.reports")

# -- games -----------------------------------------------------------------------------------

@click.group(cls=Group)
def game():
    """Create, inspect and moderate games."""


@game.command("new", short_help="Create a game from CONFIG.toml; mail welcomes.")
@click.argument("config", type=click.Path(exists=True, dir_okay=False))
@click.option("--wait", is_flag=True, help="Do not start yet: seats can change until `game start`.")
@click.pass_context
def game_new(ctx, config, wait):
    """Create a game from CONFIG.toml, print its id, and mail each player a welcome."""
    click.echo(newgame.create(service(ctx), games.load_config(config), wait=wait))


@game.command("list", short_help="The games running or waiting; --all: ended too.")
@click.option("--all", "everything", is_flag=True, help="Also the games that have ended.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def game_list(ctx, everything, as_json):
    """The games still running or waiting, their status and whom they wait for; --all: the
    ended ones too."""
    rows = games.listing(service(ctx), ended=everything)
    if as_json:
        return echo_json(rows)
    table([{**r, "players": ",".join(r["players"]), "waiting": ",".join(r["waiting"])} for r in rows],
           ["id", "status", "turn", "moves", "players", "waiting"])


@game.command("show")
@game_arg()
@click.option("--json", "as_json", is_flag=True, help="Print JSON (the public summary, or the view with --as).")
@click.option("--as", "as_player", metavar="PLAYER", help="What PLAYER may see (moderator: everything).")
@click.pass_context
def game_show(ctx, game_id, as_json, as_player):
    """The public summary of GAME, or one player's view of it."""
    svc = service(ctx)
    g = games.get(svc, game_id)
    if as_json:
        data = games.view_json(svc, g, as_player) if as_player else games.summary_json(svc, g)
        return echo_json(games.to_builtins(data))
    games.view_json(svc, g, as_player or svc.engine.MODERATOR)  # refuses a player not in the game
    click.echo(f"{g['id']} ({g['status']}), move {g['moves']}")
    from pbem.pace import reported
    text = reports.show_text(svc, g, as_player or svc.engine.MODERATOR, pace=reported.part)
    click.echo(inert(text, lines=True), nl=False)


def _played(played) -> None:
    for line in played.applied:
        click.echo(f"applied: {inert(line)}")
    if played.failed:
        click.echo(inert(f"refused: {played.failed['line']}: {played.failed['reason']}"), err=True)
        if played.failed["options"]:
            click.echo(inert(f"open: {', '.join(played.failed['options'])}"), err=True)
        raise click.exceptions.Exit(1)


@game.command("start", short_help="Start a game made with `game new --wait`.")
@game_arg()
@click.pass_context
def game_start(ctx, game_id):
    """Start a game made with `game new --wait`: the first reports go out."""
    moderator.start(service(ctx), game_id)


@game.command("end")
@game_arg()
@click.pass_context
def game_end(ctx, game_id):
    """End GAME now: it takes no more orders."""
    moderator.end(service(ctx), game_id)


@game.command("answer", short_help="Answer for a player (or the moderator).")
@game_arg()
@player_arg("player")
@click.argument("line")
@click.pass_context
def game_answer(ctx, game_id, player, line):
    """Answer for PLAYER with LINE (e.g. "17: left"); logged as the moderator's move."""
    _played(moderator.answer(service(ctx), game_id, player, line))


@game.command("adjudicate", short_help="Settle a card's effect by hand.")
@game_arg()
@click.argument("text")
@click.pass_context
def game_adjudicate(ctx, game_id, text):
    """Settle a card's effect by hand, e.g. "alice life -1, alice gold +2"."""
    _played(moderator.adjudicate(service(ctx), game_id, text))


@game.command("rollback", short_help="Put GAME back to how it was after move N.")
@game_arg()
@click.argument("n", type=click.IntRange(min=0))
@click.pass_context
def game_rollback(ctx, game_id, n):
    """Put GAME back to how it was after move N (a logged move; nothing is deleted)."""
    _played(moderator.rollback(service(ctx), game_id, n))


# -- pace (pbem/pace/deadlines.py, docs/pace.md) ----------------------------------------------------

@game.command("extend", short_help="Move open deadlines later, e.g. 24h.")
@game_arg()
@click.argument("args", metavar="[PLAYER] DURATION", nargs=-1, required=True)
@click.pass_context
def game_extend(ctx, game_id, args):
    """Give more time: move GAME's open deadlines (or PLAYER's) DURATION later, e.g. 24h or 2d;
    reminders are sent again for the new deadline."""
    from pbem.pace import deadlines
    if len(args) > 2:
        raise click.UsageError("give at most a PLAYER and a DURATION")
    for row in deadlines.extend(service(ctx), game_id, args[0] if len(args) == 2 else None, duration(args[-1])):
        click.echo(f"{row['player']}: question {row['prompt']} due {row['due_at']}")


@game.command("resume", short_help="Play the defaults the outage guard held.")
@game_arg()
@click.pass_context
def game_resume(ctx, game_id):
    """Play the defaults the outage guard held (the misses were real); `game extend` gives time instead."""
    from pbem.pace import deadlines
    click.echo(f"{deadlines.resume(service(ctx), game_id)} deadline(s) released")


@game.command("deadlines", short_help="Whom GAME waits for, until when (UTC).")
@game_arg()
@click.option("--all", "everything", is_flag=True, help="Also the deadlines already closed.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def game_deadlines(ctx, game_id, everything, as_json):
    """GAME's deadlines (UTC): whom it waits for, until when, and what a miss plays."""
    svc = service(ctx)
    games.get(svc, game_id)
    rows = svc.store.deadlines(game_id, open_only=not everything, order="prompt, player")
    if as_json:
        return echo_json(rows)
    table(rows, ["prompt", "player", "kind", "due_at", "default_key", "status", "guard", "reminded"])


@click.command("log")
@game_arg()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def log_cmd(ctx, game_id, as_json):
    """The move log of GAME (hash-chained)."""
    svc = service(ctx)
    g = games.get(svc, game_id)
    rows = games.move_log(svc, g)
    if as_json:
        return echo_json(rows)
    table([{**r, "hash": r["hash"][:12]} for r in rows], ["seq", "at", "actor", "line", "hash"])
    problems = svc.store.verify_chain(game_id)
    for p in problems:
        click.echo(f"warning: {p}", err=True)

"""A season's chores: `prune` (mail no game needs, pbem/moderate/prune.py) and `upgrade-check`
(which running games a release would play differently, pbem/archive/upgrade.py)."""
from __future__ import annotations

from datetime import UTC, datetime

import click

from pbem.cli.common import echo_json, home_settings, service


def _before(ctx, param, value: str | None) -> datetime | None:
    """--before: a date or time (UTC unless it says), or a duration ago ("30d")."""
    if value is None:
        return None
    from pbem.base import clock
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        try:
            return service(ctx).now() - clock.duration(value, "d")
        except ValueError:
            raise click.BadParameter(f"{value!r} is neither a date (2026-05-31) nor a time ago (30d)") from None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def _size(n: int | float) -> str:
    for unit in ("bytes", "KB", "MB"):
        if n < 1024 or unit == "MB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024
    raise AssertionError


@click.command("prune", short_help="Forget the mail no game still needs.")
@click.option("--before", callback=_before, metavar="DATE|AGO",
              help="Only what came or went before DATE (2026-05-31), or this long ago (30d). Default: now.")
@click.option("--finished", is_flag=True, help="Only the games that have ended (their last reports too).")
@click.pass_context
def prune_cmd(ctx, before, finished):
    """Forget the raw mail processed and the bodies of the mail sent (and their .eml copies),
    keeping every row, the move log (export, verify and replay work as before), what is not
    processed or sent yet, and each running seat's last report (player resend)."""
    from pbem.moderate import prune
    done = prune.prune(service(ctx), before, finished=finished)
    click.echo(f"{done.messages} message(s) received: {_size(done.message_bytes)} of raw mail forgotten")
    click.echo(f"{done.mails} mail(s) sent: {_size(done.mail_chars)} of bodies forgotten")
    click.echo(f"{done.files} file(s) removed ({_size(done.file_bytes)}), {done.frames} report frame(s) deleted")
    if done.store_before is not None and done.store_after is not None:
        click.echo(f"the store: {_size(done.store_before)} -> {_size(done.store_after)}"
                   + ("" if done.compacted else " (busy: the room is reused by new rows; run prune again to compact)"))


@click.command("upgrade-check", short_help="Which running games this release plays differently.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def upgrade_check_cmd(ctx, as_json):
    """Replay every running game's log on the engine installed here and compare each state
    with the hash the log recorded: run it from a new release, on the home, before the daemon
    moves to it. Exit 1 when a game would play differently."""
    from pbem.archive import upgrade
    try:
        found = upgrade.check_home(home_settings(ctx))
    except upgrade.UpgradeError as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        echo_json([f._asdict() for f in found])
    else:
        for f in found:
            click.echo(upgrade.line(f))
        if not found:
            click.echo("no running game")
    if any(not f.same for f in found):
        ctx.exit(1)

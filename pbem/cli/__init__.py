"""`pbem`: the moderator's command line (README, "The command line"). Each command is a thin face on a
library call, in the module of its topic; this module is the root group and lists them all.
Exit codes: 0 done, 1 refused input, 2 usage, 75 try again later (stdin)."""
from __future__ import annotations

import os

import click

from pbem.base import tokens
from pbem.cli import archives, games, mail, rules, season, seats, storage, templates, upkeep
from pbem.cli.common import Group, Home
from pbem.core import home as home_mod


def _version() -> str:
    from importlib import metadata
    try:
        return metadata.version("talisman-pbem")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def _print_version(ctx, param, value) -> None:
    if not value or ctx.resilient_parsing:
        return
    import engine
    from engine.api import ENGINE_VERSION
    click.echo(f"pbem {_version()} (engine: {engine.BUILD}; engine version {ENGINE_VERSION})")
    ctx.exit(0)


PRIVATE_UMASK = 0o077  # every file a command or the daemon writes is its user's alone (pbem/core/home.py)


@click.group(cls=Group)
@click.option("--home", envvar="PBEM_HOME", default="var", show_default=True, type=click.Path(file_okay=False),
              help="The state folder (database, inbox, outbox, pbem.toml); or $PBEM_HOME.")
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Print the version and which build of the engine runs, and exit.")
@click.pass_context
def main(ctx, home):
    """Talisman by mail: play-by-mail games run by a deterministic rules engine."""
    ctx.obj = Home(home)
    old = os.umask(PRIVATE_UMASK)
    ctx.call_on_close(lambda: os.umask(old))  # a caller that runs the CLI in its own process gets its own back


@main.command("init", short_help="Make a home: store, key, pbem.toml (0600).")
@click.argument("folder", metavar="[DIR]", required=False, type=click.Path(file_okay=False))
@click.option("--key", "key_file", metavar="FILE", type=click.File("r"),
              help="Use the service key in FILE (another machine's secret.key; - reads it from stdin) "
                   "instead of a new one.")
@click.option("--db", metavar="URL", help="The store pbem.toml names: a shared postgresql:// database.")
@click.pass_context
def init_cmd(ctx, folder, key_file, db):
    """Make DIR (default: --home) a home: its store, key and a commented pbem.toml, each 0600, in a
    folder 0700 (a folder others may read is tightened).

    A home made already is left as it is; what is missing is added, and modes tightened.
    A second machine over a shared PostgreSQL store: `pbem init DIR --key FIRST.key --db URL`,
    FIRST.key a copy of the first machine's secret.key (its tokens need that key)."""
    folder = folder or ctx.find_object(Home).home
    key = tokens.parse_key(key_file.read(), key_file.name) if key_file else None
    done = home_mod.init(folder, key=key, db=db)
    for line in done:
        click.echo(line)
    click.echo(f"{folder}: a pbem home" + ("" if done else " already; nothing changed"))


for command in (games.game, games.log_cmd, seats.player, seats.observer, mail.ingest_cmd, mail.submit_cmd,
                mail.serve_cmd, mail.outbox_group, mail.inbox_group, storage.backup_cmd, storage.restore_cmd,
                storage.store_group, archives.export_cmd, archives.verify_cmd, archives.replay_cmd,
                rules.scenario_cmd, rules.rules_group, templates.templates_group, upkeep.status_cmd,
                upkeep.key_group, season.prune_cmd, season.upgrade_check_cmd):
    main.add_command(command)

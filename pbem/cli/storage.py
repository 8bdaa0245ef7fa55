"""The store itself: `backup`, `restore`, `store copy`."""
from __future__ import annotations

import click

from pbem.base import settings as settings_mod
from pbem.cli.common import (
    GameError,
    Group,
    home_settings,
    service,
)
from pbem.store import StoreUnavailable


@click.command("backup", short_help="Copy the store to FILE while the daemon runs.")
@click.argument("path", metavar="FILE", type=click.Path(dir_okay=False))
@click.pass_context
def backup_cmd(ctx, path):
    """Copy the store to FILE, consistent while the daemon runs; 0600, and checked."""
    from pbem.store import backup
    try:
        counts = backup.backup(service(ctx).settings.store_target, path)
    except backup.BackupError as e:
        raise GameError(str(e)) from None
    click.echo(f"{path}: {counts['games']} game(s), {counts['moves']} move(s); the key "
               f"({service(ctx).settings.key_path}) is not in it: keep a copy of it apart")


@click.command("restore", short_help="Replace the store by a backup that verifies.")
@click.argument("path", metavar="FILE", type=click.Path(exists=True, dir_okay=False))
@click.option("--yes", is_flag=True, help="Do not ask: the store is replaced.")
@click.pass_context
def restore_cmd(ctx, path, yes):
    """Replace the store by the backup FILE once it verifies and was made under this home's
    key. Refused while `pbem serve` runs on the home: stop it first."""
    from pbem.base import daemonlock
    from pbem.store import backup
    cfg = home_settings(ctx)
    if not yes:
        click.confirm(f"Replace {cfg.db_path} by {path}? What happened since the backup is lost", abort=True)
    try:
        counts = backup.restore(path, cfg)
    except (backup.BackupError, daemonlock.DaemonRunning) as e:
        raise GameError(str(e)) from None
    click.echo(f"{cfg.db_path}: restored, {counts['games']} game(s), {counts['moves']} move(s), every chain "
               "verified; mails from now on have new Message-IDs. Tell the players which move each game is back at")


@click.group(cls=Group, name="store")
def store_group():
    """The store itself: copy it between SQLite and PostgreSQL."""


@store_group.command("copy", short_help="Copy a whole store into an empty one, verified.")
@click.argument("src", metavar="SRC")
@click.argument("dst", metavar="DST")
def store_copy(src, dst):
    """Copy the store SRC into the empty store DST, each a home folder, a SQLite file or a
    postgresql:// URL; every game's chain is verified before the copy commits."""
    from pbem.store import copy as copy_mod
    try:
        source, target = copy_mod.open_target(src), copy_mod.open_target(dst)
    except (StoreUnavailable, settings_mod.SettingsError, OSError) as e:
        raise GameError(str(e)) from None
    try:
        counts = copy_mod.copy(source, target)
    except copy_mod.CopyError as e:
        raise GameError(str(e)) from None
    finally:
        source.close()
        target.close()
    click.echo(f"copied {counts['games']} game(s), {counts['moves']} move(s), {counts['inbox']} message(s), "
               f"{counts['outbox']} mail(s); every chain verified")

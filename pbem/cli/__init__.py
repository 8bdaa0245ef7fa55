"""`pbem`: the moderator's command line (README, "The command line"). Each command is a thin face on a
library call, in the module of its topic; this module is the root group and lists them all.
Exit codes: 0 done, 1 refused input, 2 usage, 75 try again later (stdin)."""
from __future__ import annotations

import importlib
import os

import click

from pbem.base import tokens
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


# Each command's module is imported when the command runs (or help lists it): importing them all
# took the whole service and engine into every command, `pbem --version` and `status` too.
LAZY = {
    "game": ("games", "game"), "log": ("games", "log_cmd"), "player": ("seats", "player"),
    "observer": ("seats", "observer"), "ingest": ("mail", "ingest_cmd"), "submit": ("mail", "submit_cmd"),
    "serve": ("mail", "serve_cmd"), "outbox": ("mail", "outbox_group"), "inbox": ("mail", "inbox_group"),
    "backup": ("storage", "backup_cmd"), "restore": ("storage", "restore_cmd"), "store": ("storage", "store_group"),
    "export": ("archives", "export_cmd"), "verify": ("archives", "verify_cmd"), "replay": ("archives", "replay_cmd"),
    "scenario": ("rules", "scenario_cmd"), "rules": ("rules", "rules_group"),
    "templates": ("templates", "templates_group"), "status": ("upkeep", "status_cmd"), "key": ("upkeep", "key_group"),
    "prune": ("season", "prune_cmd"), "upgrade-check": ("season", "upgrade_check_cmd"),
}


class Root(Group):
    """The root group: its commands in LAZY imported on first use. `commands` (what a caller
    reads to walk them all: tests/test_docs.py) imports every one."""

    def __init__(self, *args, lazy: dict[str, tuple[str, str]], **kwargs):
        self._lazy = dict(lazy)
        super().__init__(*args, **kwargs)

    @property  # type: ignore[override]
    def commands(self) -> dict[str, click.Command]:
        for name in list(self._lazy):
            self._load(name)
        return self._commands

    @commands.setter
    def commands(self, value: dict[str, click.Command]) -> None:
        self._commands = value

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        self._commands[name or cmd.name or ""] = cmd  # not through `commands`, which loads them all

    def _load(self, name: str) -> click.Command:
        module, attr = self._lazy.pop(name)
        command = self._commands[name] = getattr(importlib.import_module(f"pbem.cli.{module}"), attr)
        return command

    def get_command(self, ctx, cmd_name):
        if cmd_name in self._lazy:
            return self._load(cmd_name)
        return self._commands.get(cmd_name)

    def list_commands(self, ctx):
        return sorted({*self._commands, *self._lazy})


@click.group(cls=Root, lazy=LAZY)
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



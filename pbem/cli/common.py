"""What every command shares: the home it runs on, refusals made messages, JSON and tables,
shell completion of game ids and player names."""
from __future__ import annotations

import importlib
import json
import sys
from datetime import UTC, datetime

import click

from pbem.base import settings as settings_mod, tokens
from pbem.base.terminal import inert, inert_json
from pbem.core import home as home_mod, keys
from pbem.core.games import GameError
from pbem.core.service import Service, open_service
from pbem.sources.pipe import EX_TEMPFAIL
from pbem.store import Clock, StoreUnavailable

CONTEXT = {"help_option_names": ["-h", "--help"]}


class Later:
    """A module imported at its first use: a command imports what it runs, not what the other
    commands of its group run (`game list` imported the moderator's side, game creation and
    the reports with it, for a listing)."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        return getattr(importlib.import_module(self._name), attr)


class Home:
    """The --home folder; the service over it is opened on first use, only where `pbem init`
    made a home (home_mod.require)."""

    def __init__(self, home: str):
        self.home = home
        self.settings: settings_mod.Settings | None = None
        self._svc: Service | None = None

    def load(self) -> settings_mod.Settings:
        """The home's settings, once the folder is known to be a home (no store opened)."""
        settings = self.settings = self.settings or settings_mod.load(self.home)
        home_mod.require(settings)
        return settings

    def service(self, clock: Clock | None = None) -> Service:
        if self._svc is None:
            settings = self.load()
            from pbem.base import log
            log.configure(settings.log_format, settings.log_level)
            self._svc = open_service(settings=settings, clock=clock)
        return self._svc


class Group(click.Group):
    """Turns the library's refusals into a message and exit code 1; -h is --help everywhere."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("context_settings", CONTEXT)
        super().__init__(*args, **kwargs)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (GameError, settings_mod.SettingsError, home_mod.NotAHome, home_mod.InitRefused, keys.KeyMismatch,
                tokens.BadKey) as e:
            click.echo(f"error: {e}", err=True)
            ctx.exit(1)
        except StoreUnavailable as e:
            click.echo(f"error: the store is unavailable: {e}", err=True)
            ctx.exit(EX_TEMPFAIL)


Group.group_class = Group  # subgroups too


def service(ctx: click.Context, clock=None):
    home = ctx.find_object(Home)
    assert home is not None  # main() puts the Home on the context before any command runs
    return home.service(clock)


def home_settings(ctx: click.Context) -> settings_mod.Settings:
    """The home's settings, for a command that must not open the service (restore, status)."""
    home = ctx.find_object(Home)
    assert home is not None
    return home.load()


def echo_json(data) -> None:
    """JSON, inert on a terminal (pbem/base/terminal.py): the values may come from outside."""
    click.echo(inert_json(json.dumps(data, indent=2, ensure_ascii=False, default=str)))


def terminal() -> bool:
    return sys.stdout.isatty()


def table(rows: list[dict], columns: list[str]) -> None:
    """A rich table on a terminal, tab-separated lines otherwise; each value inert (a name or a
    subject from outside is shown as written, never read as markup or escape sequences)."""
    if terminal():
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text
        table = Table(*columns)
        for r in rows:
            table.add_row(*(Text(inert(r.get(c, ""))) for c in columns))
        Console(markup=False, emoji=False, highlight=False).print(table)
        return
    click.echo("\t".join(columns))
    for r in rows:
        click.echo("\t".join(inert(r.get(c, "")) for c in columns))


# -- shell completion (README): game ids and player names from the store, read-only ------

def _complete(ctx: click.Context, names) -> list[str]:
    """names(store): the completions, [] when the home or its store cannot be opened."""
    from pbem.store import open_store
    home = ctx.find_root().params.get("home") or str(settings_mod.default_home())
    try:
        cfg = settings_mod.load(home)
        if cfg.db_url is None and not cfg.db_path.is_file():
            return []
        store = open_store(cfg.store_target)
    except (settings_mod.SettingsError, StoreUnavailable, OSError):
        return []
    try:
        return names(store)
    except store.errors:
        return []
    finally:
        store.close()


def complete_game(ctx, param, incomplete: str) -> list[str]:
    return _complete(ctx, lambda store: store.game_ids(incomplete))


def complete_player(ctx, param, incomplete: str) -> list[str]:
    return _complete(ctx, lambda store: store.player_names(ctx.params.get("game_id") or "", incomplete))


def game_arg():
    return click.argument("game_id", metavar="GAME", shell_complete=complete_game)


def player_arg(name="name"):
    return click.argument(name, shell_complete=complete_player)




def duration(value: str, unit: str = "h"):
    from pbem.base import clock
    try:
        return clock.duration(value, unit)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None
    except OverflowError:
        raise click.BadParameter(f"{value!r} is longer than any game") from None


def report_result(label: str, result) -> None:
    from pbem.sources import stdin as stdin_source  # here: it imports the whole of processing
    click.echo(stdin_source.result_line(label, result))



def parse_now(value: str | None):
    if value is None:
        return None
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not an ISO 8601 time", param_hint="--now") from None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


"""What the rules engine knows: `scenario`, `rules coverage`, `rules check`."""
from __future__ import annotations

from pathlib import Path

import click

from pbem.base import settings as settings_mod
from pbem.base.terminal import inert
from pbem.cli.common import (
    GameError,
    Group,
    Home,
    echo_json,
    table,
)
from pbem.core import games

# -- the rules ---------------------------------------------------------------------------------

@click.command("scenario")
@click.argument("path", metavar="FILE", type=click.Path(exists=True, dir_okay=False))
def scenario_cmd(path):
    """Run a scenario file and print the summary as JSON."""
    from engine import scenario
    try:
        summary = scenario.run_file(path)
    except (ValueError, KeyError) as e:
        raise GameError(str(e)) from None
    echo_json(games.to_builtins(summary))


@click.group(cls=Group, name="rules")
def rules_group():
    """What the rules engine knows."""


@rules_group.command("coverage", short_help="Which cards the engine plays by itself.")
@click.option("--pack", help="Only this rules pack.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def rules_coverage(ctx, pack, as_json):
    """Which cards, spaces and characters the engine plays by itself, with the home's content folder."""
    from engine import coverage
    from pbem.base import content_overlay
    content_overlay.use(settings_mod.load(ctx.find_object(Home).home))  # its `content` folder (docs/content.md)
    rows = coverage.report(pack)
    if as_json:
        return echo_json(rows)
    rows = sorted(rows, key=lambda r: not r["confirmed"])  # confirmed rows first, then the stand-ins
    table([{**r, "confirmed": "yes" if r["confirmed"] else "stand-in"} for r in rows],
           ["pack", "kind", "slug", "name", "automated", "confirmed"])
    done = sum(1 for r in rows if r["automated"])
    click.echo(f"{done} of {len(rows)} automated")
    for name, counts in coverage.stand_in_counts(rows).items():
        click.echo(f"{name}: {counts['confirmed']} confirmed, {counts['stand-in']} stand-in")


@rules_group.command("check", short_help="Check a content folder (docs/content.md).")
@click.argument("folder", metavar="[DIR]", required=False, type=click.Path(file_okay=False))
@click.pass_context
def rules_check(ctx, folder):
    """Check DIR (default: the home's `content` folder) against the content schema."""
    from pbem.base import content_overlay
    if folder is None:
        home = ctx.find_object(Home)
        settings = settings_mod.load(home.home)
        if settings.content_path is None:
            raise GameError("no DIR given and pbem.toml names no `content` folder")
        folder = settings.content_path
    if not Path(folder).is_dir():
        raise GameError(f"{folder}: not a folder")
    files = content_overlay.read(folder)
    wrong = content_overlay.problems(files)
    for line in wrong:
        click.echo(inert(f"{folder}/{line}"), err=True)  # it may quote the owner's files
    if wrong:
        ctx.exit(1)
    click.echo(f"{folder}: {content_overlay.summary(files)}")

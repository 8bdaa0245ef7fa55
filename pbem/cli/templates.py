"""`pbem templates check`: a home's own templates (docs/architecture.md, "Templates") tried first."""
from __future__ import annotations

import click

from pbem.cli.common import Group, service


@click.group(cls=Group, name="templates")
def templates_group():
    """The home's own mail and page templates."""


@templates_group.command("check", short_help="Compile the home's templates; render queued mail with them.")
@click.pass_context
def templates_check(ctx):
    """Compile every file in the home's `templates/` folder and render every mail still queued
    with them, as it would be sent; exit 1 naming what fails."""
    from pbem.outbound import overrides
    svc = service(ctx)
    names, problems = overrides.check(svc)
    if not names:
        click.echo(f"{svc.settings.templates_path}: no templates of the home's own; the packaged ones are used")
        return
    for line in problems:
        click.echo(f"error: {line}", err=True)
    if problems:
        ctx.exit(1)
    click.echo(f"{len(names)} template(s) of the home's own compile and render the queued mail")

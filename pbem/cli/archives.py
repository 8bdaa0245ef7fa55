"""Games as files: `export`, `verify`, `replay` (pbem/archive/)."""
from __future__ import annotations

import click

from pbem.cli.common import (
    game_arg,
    service,
)

# -- archives and replays (pbem/archive/archive.py, pbem/archive/replay.py) ----------------------------------

@click.command("export", short_help="Write GAME as a self-contained JSON archive.")
@game_arg()
@click.option("-o", "--output", "path", required=True, type=click.Path(dir_okay=False), help="The archive to write.")
@click.option("--as", "as_player", metavar="PLAYER", help="Only what PLAYER may see (never the seed).")
@click.pass_context
def export_cmd(ctx, game_id, path, as_player):
    """Write GAME as one self-contained JSON archive; it holds the seed once the game has ended."""
    from pbem.archive import archive, replay
    with replay.progress("exporting") as tick:
        data = archive.export(service(ctx), game_id, as_player, progress=tick)
    archive.save(data, path)
    click.echo(f"{path}: {len(data['moves'])} moves" + (", seed included" if "seed" in data else ""))


@click.command("verify", short_help="Re-run an archive; exit 1 at a divergence.")
@click.argument("path", metavar="FILE", type=click.Path(exists=True, dir_okay=False))
@click.pass_context
def verify_cmd(ctx, path):
    """Re-run an archive from its seed and moves; exit 1 naming the first divergence."""
    from pbem.archive import replay, verify
    with replay.progress("verifying") as tick:
        verdict = verify.verify(verify.read(path), progress=tick)
    for note in verdict.notes:
        click.echo(f"note: {note}")
    if not verdict.ok:
        click.echo(f"{path}: {verdict.problem}", err=True)
        ctx.exit(1)
    what = "re-run from the seed" if verdict.rerun else "hash chain"
    click.echo(f"{path}: ok ({verdict.moves} moves, {what})")


@click.command("replay", short_help="Step through a game, or write it as pages.")
@click.argument("source", metavar="GAME|FILE")
@click.option("--to", "upto", type=click.IntRange(min=0), help="Stop after move N.")
@click.option("--as", "as_player", metavar="PLAYER", help="Only the events PLAYER may see.")
@click.option("--html", "html_dir", type=click.Path(file_okay=False), help="Write a static site to DIR instead.")
@click.option("--step", is_flag=True, help="On a terminal: wait for Enter after each turn.")
@click.pass_context
def replay_cmd(ctx, source, upto, as_player, html_dir, step):
    """Step through a game (from the store or an archive file) as it was played."""
    from pbem.archive import replay
    with replay.progress("reading") as tick:
        data = replay.source(lambda: service(ctx), source, as_player, progress=tick)
    if html_dir:
        with replay.progress("writing pages") as tick:
            pages = replay.write_html(data, html_dir, as_player, upto, progress=tick)
        click.echo(f"{pages[0]}: {len(pages) - 1} turn pages")
    else:
        replay.show(data, as_player, upto, step=step)

"""Messages in and out: `ingest`, `submit`, the daemon (`serve`), `inbox` and `outbox`."""
from __future__ import annotations

import asyncio
from pathlib import Path

import click

from pbem.base.terminal import inert
from pbem.cli.common import (
    Group,
    echo_json,
    parse_now,
    report_result,
    service,
    table,
)
from pbem.sources import files as file_source, pipe as pipe_source, stdin as stdin_source


@click.command("ingest", short_help="Process mails or turn files; no FILE: stdin.")
@click.argument("paths", metavar="[FILE]...", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.pass_context
def ingest_cmd(ctx, paths):
    """Process mails (.eml) or turn files (.toml, .json) now; no FILE: one mail on stdin
    (an MTA pipe: exit 75 asks it to retry later)."""
    if not paths:  # an MTA's pipe: 0 once stored, whatever became of it; 75 when it cannot be
        code = pipe_source.hand_over(ctx.obj.home)  # a daemon runs: spooled for it
        ctx.exit(stdin_source.run(ctx.obj.home) if code is None else code)
    svc, refused = service(ctx), False
    for path in paths:
        result = file_source.ingest(svc, path)
        report_result(path, result)
        refused = refused or result.refused or result.status == "error"
    ctx.exit(1 if refused else 0)


@click.command("submit", short_help="Upload a turn file (the token is checked).")
@click.argument("path", metavar="FILE", type=click.Path(exists=True, dir_okay=False))
@click.pass_context
def submit_cmd(ctx, path):
    """Upload a turn file (.toml or .json): the same checks as a mail, token required."""
    path = Path(path)
    if not path.name.lower().endswith((".toml", ".json")):
        raise click.BadParameter("a turn file is a .toml or .json file", param_hint="FILE")
    result = file_source.ingest(service(ctx), path, source="submit")  # known again if retried after a kill
    report_result(str(path), result)
    ctx.exit(1 if result.refused or result.status == "error" else 0)



@click.command("serve", short_help="The daemon: take in mail, play, send.")
@click.option("--once", is_flag=True, help="Process what waits, send, and exit.")
@click.option("--now", "now", metavar="T", help="Act as if it were time T (ISO 8601).")
@click.option("--http", "http", metavar="HOST:PORT", is_flag=False, flag_value="", default=None,
              help="Also serve the web pages (docs/web.md); alone: the [http] table's address.")
@click.pass_context
def serve_cmd(ctx, once, now, http):
    """The daemon: watch the drop folder (and a Maildir), process, send the outbox."""
    from pbem import daemon
    t = parse_now(now)
    svc = service(ctx, clock=(lambda: t) if t else None)
    failed_steps: list[str] = []
    unsent: list = []  # the mails this run tried and could not send (no other outbox row is read)
    if not once and (http is not None or svc.settings.http):
        from pbem.web import server
        server.serve(svc, http)  # the pages, and the daemon beside them
    else:
        asyncio.run(daemon.serve(svc, once=once, failed=failed_steps, unsent=unsent))
    if once:  # a mail that could not be rendered or sent in this run is the operator's to see
        failed = list({m.id: m for m in unsent}.values())  # a mail's last try
        for m in failed:
            what = "failed" if m.final else "waits for a retry"
            click.echo(inert(f"error: mail {m.id} ({m.kind} to {m.to_addr}) {what}: {m.error}"), err=True)
        for step in dict.fromkeys(failed_steps):  # a broken source, the store: the log has the trace
            click.echo(f"error: the {step} step failed; the log says why (the other steps ran)", err=True)
        if failed or failed_steps:
            ctx.exit(1)


@click.group(cls=Group, name="outbox")
def outbox_group():
    """Mail waiting and sent."""


@outbox_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def outbox_list(ctx, as_json):
    """Every outgoing mail and its status; what waits, since when and why."""
    svc = service(ctx)
    rows = svc.store.outbox_rows()
    if as_json:
        return echo_json(rows)
    table(rows, ["id", "status", "kind", "game", "to_addr", "subject", "attempts", "next_attempt_at", "last_error"])
    w = svc.store.outbox_waiting()
    if w["n"]:
        click.echo(inert(f"{w['n']} mail(s) waiting since {w['oldest']}; next try {w['next_try']}; "
                         f"last error: {w['last_error'] or 'none (not tried yet)'}"))


@outbox_group.command("retry")
@click.pass_context
def outbox_retry(ctx):
    """Queue the mails that failed again."""
    click.echo(f"{service(ctx).store.outbox_retry_failed()} mail(s) queued again")


@click.group(cls=Group, name="inbox")
def inbox_group():
    """Messages received and what became of them."""


@inbox_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def inbox_list(ctx, as_json):
    """Every message received, with its outcome."""
    rows = service(ctx).store.inbox_rows()
    if as_json:
        return echo_json(rows)
    table(rows, ["id", "received_at", "source", "status", "game", "player", "outcome"])

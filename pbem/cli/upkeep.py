"""Keeping the service well: `status` (is the daemon alive, does mail go out) and `key rotate`."""
from __future__ import annotations

import click

from pbem.cli.common import GameError, Group, echo_json, home_settings, service
from pbem.store import StoreUnavailable


@click.command("status", short_help="Is the daemon alive and does mail go out; 1 if not.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def status_cmd(ctx, as_json):
    """The daemon (running, its last poll), the outbox (what waits, since when, what was given
    up), the key's fingerprint and the store. Exit 0 when all is well, 1 naming each problem:
    for a monitoring check or a systemd timer."""
    from pbem.core import health
    from pbem.core.service import open_service
    cfg = home_settings(ctx)
    svc, error = None, None
    try:
        svc = open_service(settings=cfg, check_key=False)  # a key that is not the store's is reported, not refused
    except StoreUnavailable as e:
        error = str(e)
    try:
        report = health.report(cfg, svc, error)
    finally:
        if svc is not None:
            svc.store.close()
    if as_json:
        echo_json(report)
    else:
        _print(report)
    ctx.exit(0 if report["ok"] else 1)


def _print(r: dict) -> None:
    d, out, key, store = r["daemon"], r["outbox"], r["key"], r["store"]
    age = d["last_poll_age_seconds"]
    cron = f"from cron, every {d['serve_every']}" if d.get("serve_every") else "not running"
    click.echo(f"daemon:  {'running' if d['running'] else cron}"
               + (f", pid {d['pid']} on {d['host']}" if d["running"] and d.get("pid") else "")
               + (f"; last poll {d['last_poll']} ({age:.0f} s ago)" if d["last_poll"] and age is not None
                  else "; never polled"))
    click.echo(f"store:   {store.get('dialect', '?')}, "
               + (f"schema {store['schema']}, {store['latency_ms']} ms" if store["reachable"]
                  else f"unreachable: {store['error']}"))
    click.echo(f"key:     {key['fingerprint']}"
               + ("" if key["matches"] is not False else f", but the store's is {key['store_fingerprint']}"))
    if out is not None:
        click.echo(f"outbox:  {out['waiting']} waiting" + (f" since {out['oldest_waiting_since']}" if out["waiting"]
                                                          else "")
                   + f", {out['due']} due" + (f" since {out['oldest_due_at']}" if out["due"] else "")
                   + f", {out['failed']} given up")
    for line in r["problems"]:
        click.echo(f"problem: {line}")
    for line in r["warnings"]:
        click.echo(f"warning: {line}")
    click.echo("ok" if r["ok"] else "NOT OK")


@click.group(cls=Group, name="key", short_help="The service key: rotate it.")
def key_group():
    """The service key (secret.key), from which every token and seat link is derived."""


@key_group.command("rotate", short_help="A new key: every seat mailed a new token, old ones void.")
@click.option("--yes", is_flag=True, help="Do not ask.")
@click.pass_context
def key_rotate(ctx, yes):
    """Make a new service key: every seat's token and page link become new, and each active seat
    of every game not ended is mailed its own; the old ones open nothing. Refused while
    `pbem serve` runs on this home; on a shared store, copy the new secret.key to the other
    machines afterwards (their daemons stop until they have it)."""
    from pbem.base import daemonlock
    from pbem.core import keys
    from pbem.moderate import rekey
    svc = service(ctx)
    if not yes:
        click.confirm(f"Make a new key for {svc.settings.home}, and mail every seat its new token?", abort=True)
    try:
        done = rekey.rotate(svc)
    except (daemonlock.DaemonRunning, keys.KeyMismatch) as e:
        raise GameError(str(e)) from None
    click.echo(f"key {done.old} -> {done.new}: {done.seats} seat(s) given new tokens, {done.mailed} mailed "
               f"(`pbem serve` sends them). The old key is kept as {done.retired}: a backup taken before now "
               "needs it. Other machines on this store need the new secret.key")

"""`pbem`: the moderator's command line (README, "The command line"). Each command is a thin face on a
library call. Exit codes: 0 done, 1 refused input, 2 usage, 75 try again later (stdin)."""
from __future__ import annotations

import asyncio
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import click

from pbem.base import log, settings as settings_mod
from pbem.core import games, home as home_mod
from pbem.core.games import GameError
from pbem.core.service import open_service
from pbem.ingest import files as file_source, pipe as pipe_source, stdin as stdin_source
from pbem.outbound import reports
from pbem.play import moderator, newgame
from pbem.store import StoreUnavailable

EX_TEMPFAIL = stdin_source.EX_TEMPFAIL
CONTEXT = {"help_option_names": ["-h", "--help"]}


class Home:
    """The --home folder; the service over it is opened on first use, only where `pbem init`
    made a home (home_mod.require)."""

    def __init__(self, home: str):
        self.home = home
        self.settings = None
        self._svc = None

    def service(self, clock=None):
        if self._svc is None:
            self.settings = self.settings or settings_mod.load(self.home)
            home_mod.require(self.settings)
            log.configure(self.settings.log_format, self.settings.log_level)
            self._svc = open_service(settings=self.settings, clock=clock)
        return self._svc


class Group(click.Group):
    """Turns the library's refusals into a message and exit code 1; -h is --help everywhere."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("context_settings", CONTEXT)
        super().__init__(*args, **kwargs)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (GameError, settings_mod.SettingsError, home_mod.NotAHome) as e:
            click.echo(f"error: {e}", err=True)
            ctx.exit(1)
        except StoreUnavailable as e:
            click.echo(f"error: the store is unavailable: {e}", err=True)
            ctx.exit(EX_TEMPFAIL)


Group.group_class = Group  # subgroups too


def _svc(ctx: click.Context, clock=None):
    home = ctx.find_object(Home)
    assert home is not None  # main() puts the Home on the context before any command runs
    return home.service(clock)


def _json(data) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def _table(rows: list[dict], columns: list[str]) -> None:
    """A rich table on a terminal, tab-separated lines otherwise."""
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.table import Table
        table = Table(*columns)
        for r in rows:
            table.add_row(*(str(r.get(c, "")) for c in columns))
        Console().print(table)
        return
    click.echo("\t".join(columns))
    for r in rows:
        click.echo("\t".join(str(r.get(c, "")) for c in columns))


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
    click.echo(f"pbem {_version()} (engine: {engine.BUILD})")
    ctx.exit(0)


@click.group(cls=Group)
@click.option("--home", envvar="PBEM_HOME", default="var", show_default=True, type=click.Path(file_okay=False),
              help="The state folder (database, inbox, outbox, pbem.toml); or $PBEM_HOME.")
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Print the version and which build of the engine runs, and exit.")
@click.pass_context
def main(ctx, home):
    """Talisman by mail: play-by-mail games run by a deterministic rules engine."""
    ctx.obj = Home(home)


@main.command("init", short_help="Make a home: store, key, pbem.toml (0600).")
@click.argument("folder", metavar="[DIR]", required=False, type=click.Path(file_okay=False))
@click.pass_context
def init_cmd(ctx, folder):
    """Make DIR (default: --home) a home: its store, key and a commented pbem.toml, each 0600.

    A home made already is left as it is; what is missing is added."""
    folder = folder or ctx.find_object(Home).home
    made = home_mod.init(folder)
    for path in made:
        click.echo(f"created {path}")
    click.echo(f"{folder}: a pbem home" + ("" if made else " already; nothing changed"))


# -- games -----------------------------------------------------------------------------------

@main.group()
def game():
    """Create, inspect and moderate games."""


@game.command("new", short_help="Create a game from CONFIG.toml; mail welcomes.")
@click.argument("config", type=click.Path(exists=True, dir_okay=False))
@click.option("--wait", is_flag=True, help="Do not start yet: seats can change until `game start`.")
@click.pass_context
def game_new(ctx, config, wait):
    """Create a game from CONFIG.toml, print its id, and mail each player a welcome."""
    click.echo(newgame.create(_svc(ctx), games.load_config(config), wait=wait))


@game.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def game_list(ctx, as_json):
    """The games, their status and whom they wait for."""
    rows = games.listing(_svc(ctx))
    if as_json:
        return _json(rows)
    _table([{**r, "players": ",".join(r["players"]), "waiting": ",".join(r["waiting"])} for r in rows],
           ["id", "status", "turn", "moves", "players", "waiting"])


@game.command("show")
@game_arg()
@click.option("--json", "as_json", is_flag=True, help="Print JSON (the public summary, or the view with --as).")
@click.option("--as", "as_player", metavar="PLAYER", help="What PLAYER may see (moderator: everything).")
@click.pass_context
def game_show(ctx, game_id, as_json, as_player):
    """The public summary of GAME, or one player's view of it."""
    svc = _svc(ctx)
    g = games.get(svc, game_id)
    if as_json:
        data = games.view_json(svc, g, as_player) if as_player else games.summary_json(svc, g)
        return _json(games.to_builtins(data))
    games.view_json(svc, g, as_player or svc.engine.MODERATOR)  # refuses a player not in the game
    click.echo(f"{g['id']} ({g['status']}), move {g['moves']}")
    click.echo(reports.show_text(svc, g, as_player or svc.engine.MODERATOR), nl=False)


def _played(played) -> None:
    for line in played.applied:
        click.echo(f"applied: {line}")
    if played.failed:
        click.echo(f"refused: {played.failed['line']}: {played.failed['reason']}", err=True)
        if played.failed["options"]:
            click.echo(f"open: {', '.join(played.failed['options'])}", err=True)
        raise click.exceptions.Exit(1)


@game.command("start", short_help="Start a game made with `game new --wait`.")
@game_arg()
@click.pass_context
def game_start(ctx, game_id):
    """Start a game made with `game new --wait`: the first reports go out."""
    moderator.start(_svc(ctx), game_id)


@game.command("end")
@game_arg()
@click.pass_context
def game_end(ctx, game_id):
    """End GAME now: it takes no more orders."""
    moderator.end(_svc(ctx), game_id)


@game.command("answer", short_help="Answer for a player (or the moderator).")
@game_arg()
@player_arg("player")
@click.argument("line")
@click.pass_context
def game_answer(ctx, game_id, player, line):
    """Answer for PLAYER with LINE (e.g. "17: left"); logged as the moderator's move."""
    _played(moderator.answer(_svc(ctx), game_id, player, line))


@game.command("adjudicate", short_help="Settle a card's effect by hand.")
@game_arg()
@click.argument("text")
@click.pass_context
def game_adjudicate(ctx, game_id, text):
    """Settle a card's effect by hand, e.g. "alice life -1, alice gold +2"."""
    _played(moderator.adjudicate(_svc(ctx), game_id, text))


@game.command("rollback", short_help="Put GAME back to how it was after move N.")
@game_arg()
@click.argument("n", type=click.IntRange(min=0))
@click.pass_context
def game_rollback(ctx, game_id, n):
    """Put GAME back to how it was after move N (a logged move; nothing is deleted)."""
    _played(moderator.rollback(_svc(ctx), game_id, n))


# -- pace (pbem/pace/deadlines.py, docs/pace.md) ----------------------------------------------------

def _duration(value: str, unit: str = "h"):
    from pbem.base import clock
    try:
        return clock.duration(value, unit)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None
    except OverflowError:
        raise click.BadParameter(f"{value!r} is longer than any game") from None


@game.command("extend", short_help="Move open deadlines later, e.g. 24h.")
@game_arg()
@click.argument("args", metavar="[PLAYER] DURATION", nargs=-1, required=True)
@click.pass_context
def game_extend(ctx, game_id, args):
    """Give more time: move GAME's open deadlines (or PLAYER's) DURATION later, e.g. 24h or 2d;
    reminders are sent again for the new deadline."""
    from pbem.pace import deadlines
    if len(args) > 2:
        raise click.UsageError("give at most a PLAYER and a DURATION")
    for row in deadlines.extend(_svc(ctx), game_id, args[0] if len(args) == 2 else None, _duration(args[-1])):
        click.echo(f"{row['player']}: question {row['prompt']} due {row['due_at']}")


@game.command("resume", short_help="Play the defaults the outage guard held.")
@game_arg()
@click.pass_context
def game_resume(ctx, game_id):
    """Play the defaults the outage guard held (the misses were real); `game extend` gives time instead."""
    from pbem.pace import deadlines
    click.echo(f"{deadlines.resume(_svc(ctx), game_id)} deadline(s) released")


@game.command("deadlines", short_help="Whom GAME waits for, until when (UTC).")
@game_arg()
@click.option("--all", "everything", is_flag=True, help="Also the deadlines already closed.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def game_deadlines(ctx, game_id, everything, as_json):
    """GAME's deadlines (UTC): whom it waits for, until when, and what a miss plays."""
    svc = _svc(ctx)
    games.get(svc, game_id)
    rows = svc.store.deadlines(game_id, open_only=not everything, order="prompt, player")
    if as_json:
        return _json(rows)
    _table(rows, ["prompt", "player", "kind", "due_at", "default_key", "status", "guard", "reminded"])


# -- observers -------------------------------------------------------------------------------

@main.group()
def observer():
    """Observers: add (the public report each turn)."""


@observer.command("add", short_help="Let someone watch a game.")
@game_arg()
@click.argument("name")
@click.argument("email")
@click.pass_context
def observer_add(ctx, game_id, name, email):
    """NAME (at EMAIL) gets GAME's public report now and when each turn begins; they may
    mail `status`, nothing else."""
    from pbem.outbound import observers
    observers.add(_svc(ctx), game_id, name, email)
    click.echo(f"{game_id}: {name} watches the game")


# -- players ---------------------------------------------------------------------------------

@main.group()
def player():
    """Seats: list, add, replace, remove, resend, vacation."""


@player.command("list", short_help="The seats: address, state, vacation, mail.")
@game_arg()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def player_list(ctx, game_id, as_json):
    """GAME's seats: address, state, undeliverable, vacation, standing orders, last mail."""
    rows = moderator.roster(_svc(ctx), game_id)
    if as_json:
        return _json(rows)
    _table([{**r, "standing_orders": len(r["standing_orders"]), "undeliverable": r["undeliverable"] or ""}
            for r in rows], ["name", "email", "status", "undeliverable", "vacation_left_days", "on_vacation_until",
                             "standing_orders", "last_mail_in", "last_mail_out"])


@player.command("add", short_help="Add a player before the game starts.")
@game_arg()
@player_arg()
@click.argument("email")
@click.option("--character", help="The character to play (dealt at random when absent).")
@click.option("--role", default="hero", show_default=True)
@click.pass_context
def player_add(ctx, game_id, name, email, character, role):
    """Add a player to a game that has not started; they get a welcome mail."""
    moderator.add_player(_svc(ctx), game_id, name, email, character, role)


@player.command("replace", short_help="Give a seat to someone else: a new token.")
@game_arg()
@player_arg()
@click.argument("email")
@click.pass_context
def player_replace(ctx, game_id, name, email):
    """Give NAME's seat to EMAIL with a new token; the old token stops working."""
    moderator.replace_player(_svc(ctx), game_id, name, email)


@player.command("remove", short_help="Remove a player from a game.")
@game_arg()
@player_arg()
@click.pass_context
def player_remove(ctx, game_id, name):
    """Remove a player (after the start the seat stays; the moderator answers for it)."""
    moderator.remove_player(_svc(ctx), game_id, name)


@player.command("resend")
@game_arg()
@player_arg()
@click.pass_context
def player_resend(ctx, game_id, name):
    """Mail NAME their last report again."""
    moderator.resend(_svc(ctx), game_id, name)


@player.command("vacation", short_help="Pause a player's deadlines for some days.")
@game_arg()
@player_arg()
@click.argument("days", required=False)
@click.option("--allowance", type=click.IntRange(min=0), metavar="N", help="Set NAME's vacation days in this game.")
@click.pass_context
def player_vacation(ctx, game_id, name, days, allowance):
    """Pause NAME's deadlines for DAYS (e.g. 5, or 36h), past their allowance if need be;
    0 ends a vacation now. --allowance N: the days NAME may take by mail in this game."""
    from pbem.base import clock
    from pbem.pace import vacation
    if days is None and allowance is None:
        raise click.UsageError("give DAYS, --allowance N, or both")
    svc = _svc(ctx)
    with svc.store.transaction():
        g = games.get(svc, game_id)
        if svc.store.player(game_id, name) is None:
            raise GameError(f"{game_id}: no player {name!r}")
        if allowance is not None:
            vacation.set_allowance(svc, g, name, allowance)
            click.echo(f"{name}: {allowance} vacation day(s) in this game")
        if days is None:
            return
        if days.strip() in ("0", "end"):
            vacation.end(svc, g, name)
            return click.echo(f"{name}: back from vacation")
        end = vacation.start(svc, g, name, _duration(days, "d"), by=svc.engine.MODERATOR)
    click.echo(f"{name}: on vacation until {clock.local(end, None)}")


# -- messages --------------------------------------------------------------------------------

def _report_result(label: str, result) -> None:
    outcome = result.outcome.removeprefix(f"{result.status}: ")  # the outcome may start with its status
    click.echo(f"{label}: {result.status}: {outcome}")


@main.command("ingest", short_help="Process mails or turn files; no FILE: stdin.")
@click.argument("paths", metavar="[FILE]...", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.pass_context
def ingest_cmd(ctx, paths):
    """Process mails (.eml) or turn files (.toml, .json) now; no FILE: one mail on stdin
    (an MTA pipe: exit 75 asks it to retry later)."""
    if not paths:  # an MTA's pipe: 0 once stored, whatever became of it; 75 when it cannot be
        code = pipe_source.hand_over(ctx.obj.home)  # a daemon runs: spooled for it
        if code is not None:
            ctx.exit(code)
        try:
            result = stdin_source.ingest(_svc(ctx))
        except (StoreUnavailable, home_mod.NotAHome, settings_mod.SettingsError) as e:
            click.echo(f"error: {e}; the mail was not stored: try again later", err=True)
            ctx.exit(EX_TEMPFAIL)
        _report_result("stdin", result)
        ctx.exit(stdin_source.exit_code(result))
    svc, refused = _svc(ctx), False
    for path in paths:
        result = file_source.ingest(svc, path)
        _report_result(path, result)
        refused = refused or result.refused or result.status == "error"
    ctx.exit(1 if refused else 0)


@main.command("submit", short_help="Upload a turn file (the token is checked).")
@click.argument("path", metavar="FILE", type=click.Path(exists=True, dir_okay=False))
@click.pass_context
def submit_cmd(ctx, path):
    """Upload a turn file (.toml or .json): the same checks as a mail, token required."""
    path = Path(path)
    if not path.name.lower().endswith((".toml", ".json")):
        raise click.BadParameter("a turn file is a .toml or .json file", param_hint="FILE")
    result = file_source.ingest(_svc(ctx), path, source="submit")  # known again if retried after a kill
    _report_result(str(path), result)
    ctx.exit(1 if result.refused or result.status == "error" else 0)


def _parse_now(value: str | None):
    if value is None:
        return None
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not an ISO 8601 time", param_hint="--now") from None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


@main.command("serve", short_help="The daemon: take in mail, play, send.")
@click.option("--once", is_flag=True, help="Process what waits, send, and exit.")
@click.option("--now", "now", metavar="T", help="Act as if it were time T (ISO 8601).")
@click.option("--http", "http", metavar="HOST:PORT", is_flag=False, flag_value="", default=None,
              help="Also serve the web pages (docs/web.md); alone: the [http] table's address.")
@click.pass_context
def serve_cmd(ctx, once, now, http):
    """The daemon: watch the drop folder (and a Maildir), process, send the outbox."""
    from pbem import daemon
    t = _parse_now(now)
    svc = _svc(ctx, clock=(lambda: t) if t else None)
    for path in home_mod.exposed(svc.settings):
        log.get().warning("other users may read this home's secrets: chmod 600 it", path=str(path),
                          mode=oct(path.stat().st_mode & 0o777))
    tried = {r["id"]: r["attempts"] for r in svc.store.outbox_rows()}
    failed_steps: list[str] = []
    if not once and (http is not None or svc.settings.http):
        from pbem.web import server
        server.serve(svc, http)  # the pages, and the daemon beside them
    else:
        asyncio.run(daemon.serve(svc, once=once, failed=failed_steps))
    if once:  # a mail that could not be rendered or sent in this run is the operator's to see
        failed = [r for r in svc.store.outbox_rows() if r["status"] != "sent" and r["last_error"]
                  and tried.get(r["id"], 0) != r["attempts"]]
        for r in failed:
            what = "failed" if r["status"] == "failed" else "waits for a retry"
            click.echo(f"error: mail {r['id']} ({r['kind']} to {r['to_addr']}) {what}: {r['last_error']}", err=True)
        for step in dict.fromkeys(failed_steps):  # a broken source, the store: the log has the trace
            click.echo(f"error: the {step} step failed; the log says why (the other steps ran)", err=True)
        if failed or failed_steps:
            ctx.exit(1)


@main.group("outbox")
def outbox_group():
    """Mail waiting and sent."""


@outbox_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def outbox_list(ctx, as_json):
    """Every outgoing mail and its status; what waits, since when and why."""
    svc = _svc(ctx)
    rows = svc.store.outbox_rows()
    if as_json:
        return _json(rows)
    _table(rows, ["id", "status", "kind", "game", "to_addr", "subject", "attempts", "next_attempt_at", "last_error"])
    w = svc.store.outbox_waiting()
    if w["n"]:
        click.echo(f"{w['n']} mail(s) waiting since {w['oldest']}; next try {w['next_try']}; "
                   f"last error: {w['last_error'] or 'none (not tried yet)'}")


@outbox_group.command("retry")
@click.pass_context
def outbox_retry(ctx):
    """Queue the mails that failed again."""
    click.echo(f"{_svc(ctx).store.outbox_retry_failed()} mail(s) queued again")


@main.group("inbox")
def inbox_group():
    """Messages received and what became of them."""


@inbox_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def inbox_list(ctx, as_json):
    """Every message received, with its outcome."""
    rows = _svc(ctx).store.inbox_rows()
    if as_json:
        return _json(rows)
    _table(rows, ["id", "received_at", "source", "status", "game", "player", "outcome"])


@main.command("backup", short_help="Copy the store to FILE while the daemon runs.")
@click.argument("path", metavar="FILE", type=click.Path(dir_okay=False))
@click.pass_context
def backup_cmd(ctx, path):
    """Copy the store to FILE, consistent while the daemon runs; 0600, and checked."""
    from pbem.store import backup
    try:
        counts = backup.backup(_svc(ctx).settings.store_target, path)
    except backup.BackupError as e:
        raise GameError(str(e)) from None
    click.echo(f"{path}: {counts['games']} game(s), {counts['moves']} move(s); the key "
               f"({_svc(ctx).settings.key_path}) is not in it: keep a copy of it apart")


@main.command("restore", short_help="Replace the store by a backup that verifies.")
@click.argument("path", metavar="FILE", type=click.Path(exists=True, dir_okay=False))
@click.option("--yes", is_flag=True, help="Do not ask: the store is replaced.")
@click.pass_context
def restore_cmd(ctx, path, yes):
    """Replace the store by the backup FILE once it verifies; stop `pbem serve` first."""
    from pbem.store import backup
    svc = _svc(ctx)
    if not yes:
        click.confirm(f"Replace {svc.settings.db_path} by {path}? What happened since the backup is lost", abort=True)
    try:
        counts = backup.restore(path, svc.settings.store_target)
    except backup.BackupError as e:
        raise GameError(str(e)) from None
    click.echo(f"{svc.settings.db_path}: restored, {counts['games']} game(s), {counts['moves']} move(s), "
               "every chain verified")


@main.group("store")
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


@main.command("log")
@game_arg()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def log_cmd(ctx, game_id, as_json):
    """The move log of GAME (hash-chained)."""
    svc = _svc(ctx)
    g = games.get(svc, game_id)
    rows = games.move_log(svc, g)
    if as_json:
        return _json(rows)
    _table([{**r, "hash": r["hash"][:12]} for r in rows], ["seq", "at", "actor", "line", "hash"])
    problems = svc.store.verify_chain(game_id)
    for p in problems:
        click.echo(f"warning: {p}", err=True)


# -- archives and replays (pbem/archive/archive.py, pbem/archive/replay.py) ----------------------------------

@main.command("export", short_help="Write GAME as a self-contained JSON archive.")
@game_arg()
@click.option("-o", "--output", "path", required=True, type=click.Path(dir_okay=False), help="The archive to write.")
@click.option("--as", "as_player", metavar="PLAYER", help="Only what PLAYER may see (never the seed).")
@click.pass_context
def export_cmd(ctx, game_id, path, as_player):
    """Write GAME as one self-contained JSON archive; it holds the seed once the game has ended."""
    from pbem.archive import archive, replay
    with replay.progress("exporting") as tick:
        data = archive.export(_svc(ctx), game_id, as_player, progress=tick)
    archive.save(data, path)
    click.echo(f"{path}: {len(data['moves'])} moves" + (", seed included" if "seed" in data else ""))


@main.command("verify", short_help="Re-run an archive; exit 1 at a divergence.")
@click.argument("path", metavar="FILE", type=click.Path(exists=True, dir_okay=False))
@click.pass_context
def verify_cmd(ctx, path):
    """Re-run an archive from its seed and moves; exit 1 naming the first divergence."""
    from pbem.archive import archive, replay
    with replay.progress("verifying") as tick:
        verdict = archive.verify(archive.load(path, checking=True), progress=tick)
    for note in verdict.notes:
        click.echo(f"note: {note}")
    if not verdict.ok:
        click.echo(f"{path}: {verdict.problem}", err=True)
        ctx.exit(1)
    what = "re-run from the seed" if verdict.rerun else "hash chain"
    click.echo(f"{path}: ok ({verdict.moves} moves, {what})")


@main.command("replay", short_help="Step through a game, or write it as pages.")
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
        data = replay.source(lambda: _svc(ctx), source, as_player, progress=tick)
    if html_dir:
        with replay.progress("writing pages") as tick:
            pages = replay.write_html(data, html_dir, as_player, upto, progress=tick)
        click.echo(f"{pages[0]}: {len(pages) - 1} turn pages")
    else:
        replay.show(data, as_player, upto, step=step)


# -- the rules ---------------------------------------------------------------------------------

@main.command("scenario")
@click.argument("path", metavar="FILE", type=click.Path(exists=True, dir_okay=False))
def scenario_cmd(path):
    """Run a scenario file and print the summary as JSON."""
    from engine import scenario
    try:
        summary = scenario.run_file(path)
    except (ValueError, KeyError) as e:
        raise GameError(str(e)) from None
    _json(games.to_builtins(summary))


@main.group("rules")
def rules_group():
    """What the rules engine knows."""


@rules_group.command("coverage", short_help="Which cards the engine plays by itself.")
@click.option("--pack", help="Only this rules pack.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def rules_coverage(ctx, pack, as_json):
    """Which cards, spaces and characters the engine plays by itself, with the home's content folder."""
    from engine import coverage
    settings_mod.load(ctx.find_object(Home).home)  # its `content` folder over the package (docs/content.md)
    rows = coverage.report(pack)
    if as_json:
        return _json(rows)
    rows = sorted(rows, key=lambda r: not r["confirmed"])  # confirmed rows first, then the stand-ins
    _table([{**r, "confirmed": "yes" if r["confirmed"] else "stand-in"} for r in rows],
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
        settings = settings_mod.load(home.home, use_content=False)
        if settings.content_path is None:
            raise GameError("no DIR given and pbem.toml names no `content` folder")
        folder = settings.content_path
    if not Path(folder).is_dir():
        raise GameError(f"{folder}: not a folder")
    files = content_overlay.read(folder)
    wrong = content_overlay.problems(files)
    for line in wrong:
        click.echo(f"{folder}/{line}", err=True)
    if wrong:
        ctx.exit(1)
    click.echo(f"{folder}: {content_overlay.summary(files)}")


if __name__ == "__main__":
    main()

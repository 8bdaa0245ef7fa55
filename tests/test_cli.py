"""The command line: every command's --help, exit codes, JSON outputs."""
import json
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from conftest import ADDRESS

from pbem.cli import main

CONFIG = f"""
[game]
name = "autumn"
address = "{ADDRESS}"
seed = "cli-seed"

[[players]]
name = "alice"
email = "alice@example.org"

[[players]]
name = "bob"
email = "bob@example.org"
"""


def commands(group=main, path=()):
    for name, cmd in group.commands.items():
        yield path + (name,)
        if isinstance(cmd, click.Group):
            yield from commands(cmd, path + (name,))


@pytest.mark.parametrize("path", [()] + list(commands()), ids=lambda p: " ".join(p) or "pbem")
def test_every_command_has_help(path):
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0 and "Usage:" in result.output


@pytest.fixture
def run(tmp_path):
    home = tmp_path / "var"

    def run(*args, input=None, code=0):
        result = CliRunner().invoke(main, ["--home", str(home), *map(str, args)], input=input)
        assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
        return result

    run("init")
    run.home = home
    return run


@pytest.fixture
def game(run, tmp_path):
    (tmp_path / "game.toml").write_text(CONFIG)
    assert run("game", "new", tmp_path / "game.toml").stdout.strip() == "autumn"
    return "autumn"


def welcome_token(run, name):
    run("serve", "--once")
    for eml in sorted((run.home / "outbox").glob("*.eml")):
        text = eml.read_text()
        if f"Welcome, {name}" in text:
            return re.search(r"^token: ([0-9a-f]{20})$", text, re.M).group(1)


def open_line(run, game):
    prompt = json.loads(run("game", "show", game, "--json").stdout)["prompt"][0]
    return prompt["players"][0], f"{prompt['id']}: {prompt['options'][0]}"


def reply(name, tok, line):
    return (f"From: {name}@example.org\nTo: talisman+{tok}@example.org\nSubject: Re: [autumn] Turn 1\n"
            f"Message-ID: <{name}-{tok}-{line.replace(' ', '').replace(':', '-')}@example.org>\n\n{line}\n")


def test_game_commands(run, game, tmp_path):
    listing = json.loads(run("game", "list", "--json").stdout)
    assert [g["id"] for g in listing] == ["autumn"] and listing[0]["status"] == "active"
    summary = json.loads(run("game", "show", game, "--json").stdout)
    assert {"turn", "over", "winners", "prompt", "players", "board"} <= set(summary)
    view = json.loads(run("game", "show", game, "--json", "--as", "alice").stdout)
    assert view["me"] == "alice"
    assert "Where everyone is" in run("game", "show", game).stdout
    run("game", "show", game, "--as", "nobody", code=1)
    run("game", "show", "no-such-game", code=1)
    run("game", "new", tmp_path / "game.toml", code=1)  # the name is taken
    (tmp_path / "bad.toml").write_text(CONFIG.replace('name = "autumn"', 'name = "b"\npacks = ["no-such"]'))
    run("game", "new", tmp_path / "bad.toml", code=1)
    run("game", "new", tmp_path / "missing.toml", code=2)


def test_moderator_commands(run, game):
    player, line = open_line(run, game)
    assert f"applied: {player}: {line}" in run("game", "answer", game, player, line).stdout
    run("game", "answer", game, player, "no-such-option", code=1)
    run("game", "rollback", game, 0)
    log = json.loads(run("log", game, "--json").stdout)
    assert [m["kind"] for m in log] == ["move", "rollback"] and log[1]["actor"] == "moderator"
    run("game", "rollback", game, 5, code=1)
    run("player", "resend", game, "alice")
    run("player", "replace", game, "bob", "bob2@example.org")
    run("player", "add", game, "carol", "carol@example.org", code=1)  # only before the start
    run("player", "remove", game, "bob")
    run("game", "end", game)
    run("game", "end", game, code=1)
    run("game", "answer", game, player, line, code=1)


def test_waiting_game_seats_then_start(run, tmp_path):
    (tmp_path / "game.toml").write_text(CONFIG)
    run("game", "new", "--wait", tmp_path / "game.toml")
    run("player", "add", "autumn", "carol", "carol@example.org")
    run("player", "remove", "autumn", "bob")
    run("game", "start", "autumn")
    run("game", "start", "autumn", code=1)
    players = json.loads(run("game", "show", "autumn", "--json").stdout)["players"]
    assert sorted(players) == ["alice", "carol"]


def test_ingest_submit_and_exit_codes(run, game, tmp_path):
    player, line = open_line(run, game)
    tok = welcome_token(run, player)
    (tmp_path / "a.eml").write_text(reply(player, tok, line))
    assert "applied" in run("ingest", tmp_path / "a.eml").stdout
    (tmp_path / "bad.eml").write_text(reply(player, "0" * 20, line))
    run("ingest", tmp_path / "bad.eml", code=1)
    player, line = open_line(run, game)
    run("ingest", input=reply(player, welcome_token(run, player), line))  # stdin
    player, line = open_line(run, game)
    (tmp_path / "t.toml").write_text(f'game = "autumn"\nplayer = "{player}"\ntoken = "{welcome_token(run, player)}"\n'
                                     f'answers = ["{line}"]\n')
    assert "applied" in run("submit", tmp_path / "t.toml").stdout
    (tmp_path / "w.toml").write_text(f'game = "autumn"\nplayer = "{player}"\ntoken = "{"1" * 20}"\nanswers = ["x"]\n')
    run("submit", tmp_path / "w.toml", code=1)
    run("submit", tmp_path / "a.eml", code=2)
    assert len(json.loads(run("log", game, "--json").stdout)) == 3
    assert [r["status"] for r in json.loads(run("inbox", "list", "--json").stdout)].count("processed") == 5


def test_stdin_ingest_says_try_later_when_the_store_is_unavailable(tmp_path):
    (tmp_path / "var" / "pbem.db").mkdir(parents=True)  # a database that cannot be opened
    (tmp_path / "var" / "secret.key").write_text("00" * 32)
    result = CliRunner().invoke(main, ["--home", str(tmp_path / "var"), "ingest"], input="From: a@b\n\nx\n")
    assert result.exit_code == 75


def test_serve_now_and_outbox(run, game):
    player, line = open_line(run, game)
    tok = welcome_token(run, player)
    (run.home / "inbox" / "a.eml").write_text(reply(player, tok, line))
    run("serve", "--once", "--now", "2027-01-02T03:04:05Z")
    assert json.loads(run("inbox", "list", "--json").stdout)[0]["received_at"] == "2027-01-02T03:04:05Z"
    mails = sorted((run.home / "outbox").glob("*.eml"))
    assert len(mails) == 6 and "Date: Sat, 02 Jan 2027 03:04:05 +0000" in mails[-1].read_text()
    rows = json.loads(run("outbox", "list", "--json").stdout)
    assert [r["status"] for r in rows] == ["sent"] * 6
    assert "0 mail(s) queued again" in run("outbox", "retry").stdout
    run("serve", "--once", "--now", "yesterday", code=2)


def test_usage_errors_exit_2(run):
    run("no-such-command", code=2)
    run("game", "rollback", "x", "-1", code=2)


def test_scenario_and_rules_coverage(run, tmp_path):
    (tmp_path / "s.toml").write_text('moves = []\n[game]\nseed = "s"\n'
                                     'players = [{name = "alice", character = "warrior"}]\n')
    summary = json.loads(run("scenario", tmp_path / "s.toml").stdout)
    assert summary["players"]["alice"]["character"] == "warrior"
    rows = json.loads(run("rules", "coverage", "--json").stdout)
    assert rows and {"pack", "kind", "slug", "name", "automated"} <= set(rows[0])


def test_the_sample_service_config_loads_and_typos_are_refused(run, tmp_path):
    (run.home / "pbem.toml").write_text((Path(__file__).parent.parent / "deploy" / "pbem.toml").read_text())
    run("game", "list")
    (run.home / "pbem.toml").write_text('[service]\nadress = "x@y"\n')
    run("game", "list", code=1)


def groups(group=main, path=()):
    yield path, group
    for name, cmd in group.commands.items():
        if isinstance(cmd, click.Group):
            yield from groups(cmd, path + (name,))


@pytest.mark.parametrize("path", [()] + list(commands()), ids=lambda p: " ".join(p) or "pbem")
def test_dash_h_is_help_everywhere(path):
    result = CliRunner().invoke(main, [*path, "-h"])
    assert result.exit_code == 0 and "Usage:" in result.output and "-h, --help" in result.output


@pytest.mark.parametrize("path, group", list(groups()), ids=lambda p: " ".join(p) if isinstance(p, tuple) else "")
def test_each_listed_command_has_a_short_help_that_ends_in_a_full_phrase(path, group):
    listing = CliRunner().invoke(main, [*path, "--help"], terminal_width=80).output.split("Commands:\n")[1]
    for line in listing.splitlines():
        name, _, text = line.strip().partition(" ")
        assert name in group.commands and text.strip(), line  # one line per command, never wrapped
        text = text.strip()
        assert text.endswith(".") and not text.endswith(("...", "e.g.", "i.e.")), line
        assert text.count("(") == text.count(")"), line


def test_version():
    from importlib import metadata
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert re.fullmatch(rf"pbem {re.escape(metadata.version('talisman-pbem'))} \(engine: (compiled|sources|pure); "
                        r"engine version [0-9.]+\)\n", result.output)


def test_player_list(run, game):
    rows = json.loads(run("player", "list", game, "--json").stdout)
    assert [r["name"] for r in rows] == ["alice", "bob"]
    assert rows[0]["email"] == "alice@example.org" and rows[0]["status"] == "active"
    assert rows[0]["undeliverable"] is None and rows[0]["standing_orders"] == [] and rows[0]["last_mail_in"] is None
    assert rows[0]["last_mail_out"] is None  # the welcome is queued, not sent yet
    tok = welcome_token(run, "alice")  # serve --once sends the welcomes
    player, line = open_line(run, game)
    run("ingest", input=reply(player, welcome_token(run, player), line))
    rows = {r["name"]: r for r in json.loads(run("player", "list", game, "--json").stdout)}
    assert rows["alice"]["last_mail_out"] and rows[player]["last_mail_in"]
    assert tok not in run("player", "list", game).stdout  # the table never shows a token
    run("player", "list", "nope", code=1)


def test_an_outcome_is_printed_once_after_its_label(run, game, tmp_path):
    player, line = open_line(run, game)
    (tmp_path / "a.eml").write_text(reply(player, welcome_token(run, player), line))
    out = run("ingest", tmp_path / "a.eml").stdout
    assert f"{tmp_path / 'a.eml'}: applied: 1 of 1 line(s)" in out and "applied: applied" not in out


def test_completion_offers_game_ids_and_the_game_s_player_names(run, game):
    def complete(words):
        env = {"_PBEM_COMPLETE": "bash_complete", "COMP_WORDS": " ".join(["pbem", "--home", str(run.home), *words]),
               "COMP_CWORD": str(len(words) + 2)}
        result = CliRunner().invoke(main, [], env=env, prog_name="pbem")
        return [line.split(",", 1)[1] for line in result.stdout.splitlines() if "," in line]

    assert complete(["game", "show", "au"]) == ["autumn"]
    assert complete(["player", "resend", "autumn", ""]) == ["alice", "bob"]
    assert complete(["game", "answer", "autumn", "b"]) == ["bob"]
    assert complete(["game", "show", "x"]) == []


def test_a_mail_that_cannot_be_rendered_is_an_error_the_operator_sees(run, game, monkeypatch):
    from pbem.outbound import render
    real = render.render
    monkeypatch.setattr(render, "render", lambda svc, name, ctx: 1 / 0 if name == "welcome" else real(svc, name, ctx))
    result = run("serve", "--once", code=1)
    assert "rendering failed: ZeroDivisionError" in result.stderr and "error: mail 1 (welcome to " in result.stderr
    assert '"level": "error"' in result.stderr or "[error" in result.stderr  # logged as an error
    rows = json.loads(run("outbox", "list", "--json").stdout)
    welcomes = [r for r in rows if r["kind"] == "welcome"]
    assert welcomes and all(r["status"] == "queued" and "rendering failed" in r["last_error"] for r in welcomes)
    assert all(r["status"] == "sent" for r in rows if r["kind"] != "welcome")  # the others went
    monkeypatch.undo()
    run("serve", "--once")  # fixed: they go, and the run is clean again
    assert all(r["status"] == "sent" for r in json.loads(run("outbox", "list", "--json").stdout))


def test_a_mail_that_cannot_be_sent_is_an_error_the_operator_sees(run, game):
    import socket
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (run.home / "pbem.toml").write_text(f'[smtp]\nhost = "127.0.0.1"\nport = {port}\nstarttls = false\ntimeout = 2\n')
    result = run("serve", "--once", code=1)
    assert "waits for a retry" in result.stderr and "error: mail" in result.stderr
    rows = json.loads(run("outbox", "list", "--json").stdout)
    assert rows and all(r["status"] == "queued" and r["last_error"] for r in rows)

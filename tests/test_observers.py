"""Observers: the public report each turn, `status` and nothing else (issue 18)."""
import pytest
from bymail import play_by_mail
from click.testing import CliRunner
from conftest import game_config, mail
from test_commands import last_id, mails
from test_leaks import HEROES, named, readable, spells_held

from pbem.core import games
from pbem.inbound.process import handle
from pbem.moderate import newgame
from pbem.outbound import observers, outbox, render, reports

WATCHER = {"name": "wanda", "email": "wanda@example.org"}


def watched(svc, **kw):
    return newgame.create(svc, {**game_config(**kw), "observers": [dict(WATCHER)]})


def to_wanda(svc, since=0):
    return [(r, t) for r, t in mails(svc, since) if r["to_addr"] == "wanda@example.org"]


def test_an_observer_gets_the_public_report_when_the_game_starts_and_each_turn(svc):
    g = newgame.create(svc, {**game_config(players=[(n, f"{n}@example.org") for n, _ in HEROES],
                                         characters=dict(HEROES)), "observers": [dict(WATCHER)]})
    first = to_wanda(svc)
    assert len(first) == 1 and first[0][0]["kind"] == "report" and first[0][0]["player"] is None
    assert "as an observer" in first[0][1] and "token" not in first[0][1].lower()
    turns, canaries, seen, told = 0, 0, last_id(svc), []
    for step in play_by_mail(svc, g, seed=3, moves=150, seen=seen):
        began = any(e.kind == "turn" for e in step.events) or step.before.turn != step.state.turn
        got = [r for r in step.new if r["to_addr"] == "wanda@example.org"]
        assert len(got) == (1 if began or step.state.over else 0), step.events
        turns += began
        # never a hidden card: the observer's mail names no Spell a player holds that is not public
        held = set().union(*spells_held(svc, step.state).values())
        told += [e.text for e in svc.engine.filter_events(step.events, reports.SPECTATOR)]  # public, so far
        public = "\n".join([render.board(svc, reports.make_frame(svc, step.state)).text, *told])
        canary = {s for s in held if not named(s, public)}
        canaries += bool(canary)
        for r in got:
            text = readable(svc, outbox.mail(svc, r["id"]))
            assert not [s for s in canary if named(s, text)]
            assert "token" not in text.lower() and "Reply-To: talisman+" not in text
    assert turns >= 2 and canaries  # the check had something to catch


def test_status_from_an_observer_brings_the_report_anything_else_is_refused(svc):
    g = watched(svc)
    since = last_id(svc)
    result = handle(svc, mail(["status"], sender="wanda@example.org", game=g))
    assert result.status == "applied", result.outcome
    (row, text), = mails(svc, since)
    assert row["to_addr"] == "wanda@example.org" and "as an observer" in text
    since = last_id(svc)
    move = svc.engine.legal_moves(games.state(svc, games.get(svc, g)))[0]
    moves = games.get(svc, g)["moves"]
    result = handle(svc, mail([f"{move.prompt}: {move.key}", "to: all", "hi"], sender="wanda@example.org", game=g))
    assert result.status == "rejected"
    assert games.get(svc, g)["moves"] == moves
    (row, text), = mails(svc, since)
    assert row["to_addr"] == "wanda@example.org" and "status" in text and "plays nothing" in text
    # a stranger (not an observer) is refused as before
    since = last_id(svc)
    assert handle(svc, mail(["status"], sender="eve@example.org", game=g)).status == "refused"
    assert all(r["kind"] == "stranger" for r, _ in mails(svc, since))


def test_observer_add(svc):
    g = newgame.create(svc, game_config())
    from pbem.outbound import observers
    since = last_id(svc)
    observers.add(svc, g, "wanda", "wanda@example.org")
    assert [r["to_addr"] for r, _ in mails(svc, since)] == ["wanda@example.org"]
    with pytest.raises(games.GameError, match="exists already"):
        observers.add(svc, g, "wanda", "w2@example.org")
    with pytest.raises(games.GameError, match="a player's name"):
        observers.add(svc, g, "alice", "w3@example.org")


def test_observers_config_is_checked(svc):
    with pytest.raises(games.GameError, match="unknown key `mail`"):
        newgame.create(svc, {**game_config(), "observers": [{"name": "w", "mail": "w@example.org"}]})
    with pytest.raises(games.GameError, match="observers are tables"):
        newgame.create(svc, {**game_config(name="b"), "observers": {"name": "w"}})
    for entries in (["wanda"], [1], [dict(WATCHER), "x"]):  # not tables: a message, not a traceback
        with pytest.raises(games.GameError, match="observers are tables"):
            newgame.create(svc, {**game_config(name="c"), "observers": entries})
    for name in ("wan\x00da", "wanda\x1b[2J", " "):
        with pytest.raises(games.GameError, match="one line of printable text"):
            newgame.create(svc, {**game_config(name="d"), "observers": [{"name": name, "email": "w@example.org"}]})


def test_pbem_observer_add(tmp_path):
    """`pbem observer add GAME NAME EMAIL` through the CLI: the observer's first report is queued."""
    from test_cli import CONFIG

    from pbem.cli import main
    home = tmp_path / "var"

    def run(*args, code=0):
        result = CliRunner().invoke(main, ["--home", str(home), *map(str, args)])
        assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
        return result

    run("init")
    (tmp_path / "game.toml").write_text(CONFIG)
    run("game", "new", tmp_path / "game.toml")
    assert "wanda watches the game" in run("observer", "add", "autumn", "wanda", "wanda@example.org").stdout
    assert "'no-address' is not a mail address" in run("observer", "add", "autumn", "x", "no-address", code=1).stderr
    run("serve", "--once")
    assert any("as an observer" in p.read_text() for p in (home / "outbox").glob("*.eml"))


def test_the_observers_report_asks_the_engine_for_one_view(svc, monkeypatch):
    """Issue 28: the observers' report of a state made the frame from a spectator's view and then
    asked for the same view again for the report; it is made from the one view now."""
    g = watched(svc)
    views, view = [], svc.engine.view
    monkeypatch.setattr(svc.engine, "view", lambda state, player: views.append(player) or view(state, player))
    observers.queue(svc, games.get(svc, g), games.state(svc, games.get(svc, g)), key="again")
    assert views == [reports.SPECTATOR]
    assert to_wanda(svc)[-1][0]["kind"] == "report"

"""A failure at every step of processing, then a rerun: no message lost, none applied twice.

Each step is wrapped to raise right after it did its work, once: as an error (an exception
the daemon catches and logs) and as a crash (the process dies: nothing after it runs, and a
new process opens the store again). On both stores: SQLite, and a real PostgreSQL."""
import asyncio
import functools
import inspect
import json
from datetime import timedelta

import fake_engine
import pytest
from conftest import game_config, legal, mail, token
from test_cli import CONFIG, run  # noqa: F401  (run: a fixture)

from pbem.daemon import cycle
from pbem.inbound import process
from pbem.moderate import newgame
from pbem.outbound import render, sending
from pbem.sources import dropfolder
from pbem.store import Store


@pytest.fixture
def make_service(make_service, db_setting):
    return functools.partial(make_service, **db_setting)


class Crash(BaseException):
    """Like a kill: passes every `except Exception`."""


STEPS = [
    (Store, "add_inbox"),  # the raw message stored (its transaction not yet committed)
    (process, "read_message"),  # read (before it is stored)
    (process, "authenticate"),
    (fake_engine, "apply"),
    (Store, "append_move"),
    (Store, "update_game"),  # the state after the move kept
    (render.Templates, "render"),  # a queued mail rendered as it is sent
    (Store, "add_outbox"),
    (Store, "finish_inbox"),  # marked processed (its transaction not yet committed)
    (dropfolder, "archive"),  # committed; the file not yet moved
    (sending.FileSender, "send"),  # the .eml written; the row not yet marked sent
    (Store, "outbox_sent_rows"),  # the batch marked sent (committed; the store not yet synced)
]


def fail_once_after(monkeypatch, owner, name, exc):
    original = getattr(owner, name)
    fired = []

    def check():
        if not fired:
            fired.append(True)
            raise exc("injected failure")

    if inspect.iscoroutinefunction(original):
        async def wrapper(*a, **k):
            result = await original(*a, **k)
            check()
            return result
    else:
        def wrapper(*a, **k):
            result = original(*a, **k)
            check()
            return result
    monkeypatch.setattr(owner, name, wrapper)
    return fired


@pytest.mark.parametrize("exc", [RuntimeError, Crash], ids=["error", "crash"])
@pytest.mark.parametrize("owner, name", STEPS, ids=[name for _, name in STEPS])
def test_failure_then_rerun_loses_nothing_and_applies_nothing_twice(make_service, monkeypatch, owner, name, exc):
    svc = make_service(engine=fake_engine)
    game = newgame.create(svc, game_config())
    asyncio.run(cycle(svc))
    inbox = svc.settings.inbox_path

    def drop_next_answer():
        player, line = legal(svc, game)
        dropfolder.drop(inbox, "answer.eml", mail([line], sender=f"{player}@example.org", tok=token(svc, game, player)))

    drop_next_answer()
    asyncio.run(cycle(svc))
    drop_next_answer()
    fired = fail_once_after(monkeypatch, owner, name, exc)
    try:
        asyncio.run(cycle(svc))
    except Crash:
        svc.store.close()
        svc = make_service(engine=fake_engine, clock=svc.clock)  # a new process on the same home
        svc.clock.t += timedelta(seconds=sending.lease_seconds(svc))  # a dead sender's claims run out
    assert fired, f"{name} was not reached"
    monkeypatch.undo()
    asyncio.run(cycle(svc))  # the rerun
    drop_next_answer()
    asyncio.run(cycle(svc))

    moves = svc.store.moves(game)
    assert len(moves) == 3, [m["line"] for m in moves]
    rows = svc.store.inbox_rows()
    assert len(rows) == 3 and all(r["status"] == "processed" for r in rows)
    assert sorted(m["inbox_id"] for m in moves) == [r["id"] for r in rows]
    assert svc.store.verify_chain(game) == []
    assert list((inbox / "new").iterdir()) == [] and len(list((inbox / "cur").iterdir())) == 3
    sent = svc.store.outbox_rows()
    assert all(r["status"] == "sent" for r in sent)
    assert len(sent) == 2 + 2 + 3 * 2  # welcomes, first reports, a report per player per move
    assert len(list(svc.settings.outbox_path.glob("*.eml"))) == len(sent)


def test_a_send_failing_on_our_side_is_put_back_and_serve_once_says_so(run, tmp_path, monkeypatch):  # noqa: F811
    """An exception of ours while a mail is handed over (not the link's: no SMTP or socket
    error) used to end the round, leaving that mail and every one after it queued, untried,
    after a `serve --once` that exited 0. Now that mail is put back with the reason, the others
    go, `serve --once` exits 1 naming it, and the next round sends it."""
    (tmp_path / "game.toml").write_text(CONFIG)
    run("game", "new", tmp_path / "game.toml")  # its welcomes and first reports wait to be sent
    real, failed = sending.FileSender.send, []

    async def send(self, row, raw):
        if not failed:
            failed.append(row["id"])
            raise RuntimeError("injected failure")
        await real(self, row, raw)

    monkeypatch.setattr(sending.FileSender, "send", send)
    result = run("serve", "--once", code=1)
    assert f"error: mail {failed[0]} (" in result.stderr
    assert "sending failed: RuntimeError: injected failure" in result.stderr
    rows = {r["id"]: r for r in json.loads(run("outbox", "list", "--json").stdout)}
    assert rows[failed[0]]["status"] == "queued" and rows[failed[0]]["attempts"] == 1
    assert len(rows) > 1 and all(r["status"] == "sent" for i, r in rows.items() if i != failed[0])  # the others went
    monkeypatch.undo()
    run("serve", "--once")  # the next round: due at once, it goes, and the run is clean
    assert all(r["status"] == "sent" for r in json.loads(run("outbox", "list", "--json").stdout))


def test_a_step_failing_makes_serve_once_exit_1_and_the_other_steps_run(run, tmp_path, monkeypatch):  # noqa: F811
    """A step that fails as a whole (a mail source, the deadline scan) is logged and the cycle
    goes on with the others; `serve --once` used to exit 0 all the same, so a cron job or a
    deploy check saw nothing wrong."""
    from pbem.pace import deadlines
    (tmp_path / "game.toml").write_text(CONFIG)
    run("game", "new", tmp_path / "game.toml")

    def broken(svc):
        raise RuntimeError("injected failure")

    monkeypatch.setattr(deadlines, "tick", broken)
    result = run("serve", "--once", code=1)
    assert "error: the deadlines step failed" in result.stderr
    assert all(r["status"] == "sent" for r in json.loads(run("outbox", "list", "--json").stdout))  # sending ran
    monkeypatch.undo()
    run("serve", "--once")

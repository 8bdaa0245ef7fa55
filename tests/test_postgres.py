"""Several daemons over one PostgreSQL (issue 15): each `pbem serve` a separate process with a
home of its own (a machine: its own drop folder, the shared key and database), answers to the
same game and to different games arriving at several daemons at once, a real SMTP server
(aiosmtpd) counting deliveries. Every message is applied once, each game keeps one chain,
each mail is sent once; a daemon killed with SIGKILL in the middle of a batch leaves the
others to carry on, nothing lost or doubled. The cluster is tests/pgcluster.py's."""
from __future__ import annotations

import collections
import random
import shutil
import signal
import time
from pathlib import Path

import pytest
from conftest import game_config, legal, mail, token, turn_file
from test_daemons import new_games, run, serve, smtp, stop  # noqa: F401 -- smtp: the SMTP sink fixture

from pbem.core import games
from pbem.core.service import open_service
from pbem.sources import dropfolder

pytestmark = pytest.mark.postgres  # separate processes, seconds each: `pytest -m postgres` (.ci/run runs it)
GAMES = 4


def make_homes(tmp_path: Path, url: str, port: int, daemons: int) -> list[Path]:
    """`daemons` homes on one database and one key; GAMES games of three players."""
    config = (f'db = "{url}"\npoll_seconds = 0.2\nsend_lease_seconds = 2\nmoderator = "mod@example.org"\n'
              f'[smtp]\nhost = "127.0.0.1"\nport = {port}\nstarttls = false\ntimeout = 1\n')
    homes = [tmp_path / f"machine{i}" for i in range(daemons)]
    for i, home in enumerate(homes):
        home.mkdir(mode=0o700)
        (home / "pbem.toml").write_text(config)
        if i:
            shutil.copy2(homes[0] / "secret.key", home / "secret.key")
        run(home, "init")
    new_games(homes[0], tmp_path, GAMES, "postgres")
    return homes


def wait_for(check, what: str, timeout: float = 90.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def answers(svc, rng: random.Random) -> list[tuple[str, bytes]]:
    """A round: for each game the answer its open question waits for, and for some a second,
    rival answer from the same player under another Message-ID (only one can be played)."""
    out = []
    for g in sorted(svc.store.game_ids()):
        player, line = legal(svc, g)
        tok = token(svc, g, player)
        out.append((g, mail([line], sender=f"{player}@example.org", tok=tok, game=g)))
        moves = svc.engine.legal_moves(games.state(svc, games.get(svc, g)))
        rival = next((m for m in moves if m.player == player and f"{m.prompt}: {m.key}" != line), None)
        if rival is not None and rng.random() < 0.5:
            out.append((g, mail([f"{rival.prompt}: {rival.key}"], sender=f"{player}@example.org", tok=tok, game=g)))
    return out


def settled(svc, moves_before: dict, accepted: int) -> bool:
    """Every stored message processed and the round's moves in."""
    if any(r["status"] == "received" for r in svc.store.inbox_rows(limit=100000)):
        return False
    return sum(svc.store.game(g)["moves"] - n for g, n in moves_before.items()) >= accepted


def check_store(svc, handler, rounds: int) -> None:
    rows = svc.store.inbox_rows(limit=100000)
    assert all(r["status"] == "processed" for r in rows)
    assert all(r["attempts"] == 0 for r in rows), [r for r in rows if r["attempts"]]  # no processing ever failed
    for g in svc.store.game_ids():
        assert svc.store.verify_chain(g) == [], g
        moves = svc.store.moves(g)
        assert len(moves) == rounds, [m["line"] for m in moves]
        applied = collections.Counter(m["message_id"] for m in moves)
        assert max(applied.values()) == 1, applied  # each message applied once
    sent = wait_for(lambda: (lambda o: o if o and all(r["status"] == "sent" for r in o) else None)(
        svc.store.outbox_rows()), "every mail sent")
    return sent


@pytest.mark.parametrize("daemons", [2, 4])
def test_several_daemons_apply_each_answer_once_and_send_each_mail_once(tmp_path, pg_url, smtp, daemons):
    handler, port = smtp
    homes = make_homes(tmp_path, pg_url, port, daemons)
    svc = open_service(homes[0])
    procs = [serve(h) for h in homes]
    rng, rounds = random.Random(daemons), 3
    try:
        for _ in range(rounds):
            before = {g: svc.store.game(g)["moves"] for g in svc.store.game_ids()}
            batch = answers(svc, rng)
            for g, raw in batch:  # each mail reaches two machines at once (an MTA's retry, two MX)
                for home in rng.sample(homes, 2):
                    dropfolder.drop(home / "inbox", f"{g}.eml", raw)
            wait_for(lambda: settled(svc, before, len(before)), "the round's answers")
        sent = check_store(svc, handler, rounds)
    finally:
        stop(procs)
        svc.store.close()
    assert sum(handler.ids.values()) == len(sent), handler.ids.most_common(3)
    assert set(handler.ids) == {r["message_id"] for r in sent} and max(handler.ids.values()) == 1


def test_a_daemon_killed_mid_batch_leaves_the_others_to_carry_on(tmp_path, pg_url, smtp):
    handler, port = smtp
    homes = make_homes(tmp_path, pg_url, port, 3)
    svc = open_service(homes[0])
    procs = [serve(h) for h in homes]
    rng = random.Random(7)
    try:
        before = {g: svc.store.game(g)["moves"] for g in svc.store.game_ids()}
        batch = answers(svc, rng)
        victim = homes[0]
        for g, raw in batch:  # every answer to the victim, and to one of the others too
            dropfolder.drop(victim / "inbox", f"{g}.eml", raw)
        wait_for(lambda: list((victim / "inbox" / "cur").iterdir()), "the victim's first message")
        procs[0].send_signal(signal.SIGKILL)
        procs[0].wait()
        left = list((victim / "inbox" / "new").iterdir())
        for f in left:  # the MTA gives what the dead machine did not take to another one
            dropfolder.drop(homes[1] / "inbox", f.name, f.read_bytes())
        wait_for(lambda: settled(svc, before, len(before)), "the batch")
        sent = check_store(svc, handler, 1)
    finally:
        stop(procs)
        svc.store.close()
    assert set(handler.ids) == {r["message_id"] for r in sent}  # nothing lost
    # a daemon killed between the server's acceptance and marking the row sent sends it once more
    assert sum(handler.ids.values()) - len(sent) <= 1 and max(handler.ids.values()) <= 2, handler.ids.most_common(3)


# -- pbem store copy ------------------------------------------------------------------------

def _play(svc, game_id: str, n: int, seed: int = 1) -> None:
    from pbem import bot
    from pbem.moderate import moderator
    rnd = random.Random(seed)
    for _ in range(n):
        move = bot.choose(games.state(svc, games.get(svc, game_id)), rnd)
        moderator.answer(svc, game_id, move.player, f"{move.prompt}: {move.key}")


def _tables(store) -> dict[str, list[dict]]:
    from pbem.store.copy import TABLES
    return {t: [{k: bytes(v) if isinstance(v, memoryview) else v for k, v in r.items()}
                for r in store.query(f"SELECT * FROM {t} ORDER BY {key}")] for t, key in TABLES}


def test_store_copy_moves_a_live_home_into_postgresql_and_back(svc, game, tmp_path, pg_url):
    from pbem.store import open_store
    _play(svc, game, 12)
    out = run(svc.settings.home, "store", "copy", svc.settings.home, pg_url)
    assert "every chain verified" in out
    pg = open_store(pg_url)
    try:
        assert _tables(pg) == _tables(svc.store)  # every row, byte for byte
        svc2 = open_service(settings=svc.settings.__class__(home=svc.settings.home, db=pg_url), clock=svc.clock)
        _play(svc2, game, 3, seed=2)  # the game plays on in PostgreSQL: new rows take new ids
        svc2.store.add_outbox(message_id="<after-copy@x>", kind="notice", to_addr="m@x", subject="s", headers={},
                              text="t")
        assert svc2.store.verify_chain(game) == [] and svc2.store.game(game)["moves"] == 15
        back = tmp_path / "back.db"
        run(svc.settings.home, "store", "copy", pg_url, back)
        assert oct(back.stat().st_mode & 0o777) == "0o600"  # the seeds are secret
        assert _tables(open_store(back)) == _tables(pg)
        svc2.store.close()
    finally:
        pg.close()


def test_store_copy_refuses_a_target_in_use_and_a_source_that_does_not_verify(svc, game, tmp_path, pg_url):
    from pbem.store import open_store
    _play(svc, game, 4)
    run(svc.settings.home, "store", "copy", svc.settings.home, pg_url)
    out = run(svc.settings.home, "store", "copy", svc.settings.home, pg_url, code=1)
    assert "not empty" in out
    svc.store._run("DROP TRIGGER moves_no_update")  # as someone editing the file by hand could
    svc.store._run("UPDATE moves SET line = 'alice: 1: cheat' WHERE seq = 2")
    target = tmp_path / "copy.db"
    out = run(svc.settings.home, "store", "copy", svc.settings.home, target, code=1)
    assert "does not verify" in out and "move 2: its record was changed" in out
    assert open_store(target).game_ids() == []  # nothing was written


def test_store_copy_of_a_league_with_observers_and_odd_mail_there_and_back(svc, tmp_path, pg_url):
    """Issue 26: a league with an observer could not be copied into PostgreSQL (the public
    report's reader carried a NUL), nor a store holding a mail with a NUL in its Message-ID.
    A league of two games, watched in both, played by mail with NULs and control characters
    in Message-IDs, lines and turn files, copied SQLite -> PostgreSQL (and played on there,
    an observer added, a NUL mail taken) -> SQLite, every chain verified at each step."""
    from test_process import with_header

    from pbem.inbound.process import handle
    from pbem.moderate import newgame
    from pbem.outbound import observers
    from pbem.store import open_store
    from pbem.store.copy import TABLES

    config = game_config(name="league-a")
    config["observers"] = [{"name": "olga", "email": "olga@example.org"}]
    a, b = newgame.create(svc, config), newgame.create(svc, game_config(name="league-b"))
    observers.add(svc, b, "oscar", "oscar@example.org")

    def odd_mails(s, game, tag):
        """A player's answer under a NUL Message-ID with a line of control characters, a
        stranger's NUL mail, a turn file with a NUL in a line: each stored and answered."""
        player, line = legal(s, game)
        answer = mail([line, "xyzzy \x00\x1b"], sender=f"{player}@example.org", tok=token(s, game, player), game=game)
        answer = with_header(answer, b"Message-ID", f"<{tag}\x00{game}@x>".encode())
        statuses = [handle(s, answer).status]
        stranger = with_header(mail(["left"], sender="eve@example.net", game=game), b"Message-ID",
                               f"<eve\x00{tag}{game}@x>".encode())
        statuses.append(handle(s, stranger).status)
        player, line = legal(s, game)
        turn = turn_file(game, player, token(s, game, player), [line, "xyzzy \\u0000"])
        return statuses + [handle(s, turn, "turn", filename=f"t\x01{tag}.toml", upload_id=tag).status]

    for g in (a, b):
        assert odd_mails(svc, g, "sq") == ["partial", "refused", "partial"]
        _play(svc, g, 6)
    out = run(svc.settings.home, "store", "copy", svc.settings.home, pg_url)
    assert "every chain verified" in out
    pg = open_store(pg_url)
    try:
        assert _tables(pg) == _tables(svc.store)  # every row, byte for byte
        assert any("\u2400" in (r["message_id"] or "") for r in pg.query("SELECT message_id FROM moves"))
        svc2 = open_service(settings=svc.settings.__class__(home=svc.settings.home, db=pg_url), clock=svc.clock)
        for g in (a, b):  # the league plays on in PostgreSQL
            assert odd_mails(svc2, g, "pg") == ["partial", "refused", "partial"]
            _play(svc2, g, 3, seed=2)
        observers.add(svc2, a, "otto", "otto@example.org")
        watchers = [r["to_addr"] for r in svc2.store.outbox_rows() if r["kind"] == "report" and r["player"] is None]
        assert {"olga@example.org", "oscar@example.org", "otto@example.org"} <= set(watchers)
        assert all(svc2.store.verify_chain(g) == [] for g in (a, b))
        back = tmp_path / "back.db"
        assert "every chain verified" in run(svc.settings.home, "store", "copy", pg_url, back)
        copied = open_store(back)
        assert _tables(copied) == _tables(pg) and {t for t, _ in TABLES} <= set(_tables(copied))
        assert all(copied.verify_chain(g) == [] for g in (a, b))
        copied.close()
        svc2.store.close()
    finally:
        pg.close()

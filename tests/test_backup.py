"""`pbem backup` while moves are being written, and `pbem restore`: a backup taken mid-burst
restores to a store whose every game's hash chain verifies, and the game plays on from it."""
import os
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from pbem.base import settings as settings_mod
from pbem.cli import main
from pbem.core import games
from pbem.core.service import open_service
from pbem.store import backup

ROOT = Path(__file__).resolve().parent.parent

# Plays moves into three games, one transaction each, as fast as it can, until told to stop
BURST = """
import random, sys
from pathlib import Path
sys.path.insert(0, "tests")
from conftest import game_config
from pbem import bot
from pbem.base import settings
from pbem.core import games
from pbem.core.service import open_service
from pbem.moderate import moderator, newgame
home, stop = Path(sys.argv[1]), Path(sys.argv[2])
svc = open_service(settings=settings.load(home))
ids = [newgame.create(svc, game_config(name=f"burst-{i}", seed=f"burst-seed-{i}-long-enough")) for i in range(3)]
Path(sys.argv[3]).write_text("started")
rnd = random.Random(1)
while not stop.exists():
    for gid in ids:
        state = games.state(svc, games.get(svc, gid))
        move = None if state.over else bot.choose(state, rnd)
        if move is not None:
            moderator.answer(svc, gid, move.player, f"{move.prompt}: {move.key}")
"""


def cli(home, *args, input=None):
    return CliRunner().invoke(main, ["--home", str(home), *map(str, args)], input=input)


def test_a_backup_taken_mid_burst_restores_to_a_store_that_verifies(tmp_path):
    home = tmp_path / "live"
    assert cli(home, "init").exit_code == 0
    stop, started = tmp_path / "stop", tmp_path / "started"
    writer = subprocess.Popen([sys.executable, "-c", BURST, str(home), str(stop), str(started)], cwd=ROOT,
                              env={**os.environ, "PBEM_PURE": "1"}, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert started.exists(), "the burst did not start"
        taken = []
        for i in range(4):
            time.sleep(0.5)
            result = cli(home, "backup", tmp_path / f"b{i}.db")
            assert result.exit_code == 0, result.output
            assert stat.S_IMODE((tmp_path / f"b{i}.db").stat().st_mode) == 0o600
            taken.append(backup._counts(tmp_path / f"b{i}.db")["moves"])
    finally:
        stop.write_text("stop")
        writer.wait(timeout=60)
    assert taken == sorted(taken) and taken[-1] > taken[0], taken  # the store was being written meanwhile
    for i in range(4):
        assert backup.check(tmp_path / f"b{i}.db") == []
        fresh = tmp_path / f"restored-{i}"
        assert cli(fresh, "init").exit_code == 0
        (fresh / "secret.key").write_bytes((home / "secret.key").read_bytes())  # kept apart from the backup
        result = cli(fresh, "restore", tmp_path / f"b{i}.db", "--yes")
        assert result.exit_code == 0 and "every chain verified" in result.stdout, result.output
        svc = open_service(settings=settings_mod.load(fresh))
        for row in svc.store.games():
            assert svc.store.verify_chain(row["id"]) == []
            g, moves = games.get(svc, row["id"]), svc.store.moves(row["id"])
            assert len(moves) == g["moves"] > 0
            assert svc.engine.state_hash(games.state(svc, g)) == moves[-1]["state_hash"]  # the state is the log's
        logged = cli(fresh, "log", "burst-0")
        assert logged.exit_code == 0 and "warning" not in logged.stderr


def test_a_backup_that_does_not_verify_is_not_restored(tmp_path):
    home = tmp_path / "h"
    assert cli(home, "init").exit_code == 0
    (tmp_path / "g.toml").write_text('[game]\nname = "g"\n[[players]]\nname = "alice"\nemail = "a@example.org"\n'
                                     '[[players]]\nname = "bob"\nemail = "b@example.org"\n')
    assert cli(home, "game", "new", tmp_path / "g.toml").exit_code == 0
    svc = open_service(settings=settings_mod.load(home))
    line = "{}: {}".format(*next((q["id"], q["options"][0]) for q in games.summary_json(svc, games.get(svc,
                                                                                                       "g"))["prompt"]))
    player = games.summary_json(svc, games.get(svc, "g"))["prompt"][0]["players"][0]
    assert cli(home, "game", "answer", "g", player, line).exit_code == 0
    assert cli(home, "backup", tmp_path / "good.db").exit_code == 0
    bad = tmp_path / "bad.db"
    bad.write_bytes((tmp_path / "good.db").read_bytes())
    conn = sqlite3.connect(bad)
    for (trigger,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'moves'"):
        conn.execute(f"DROP TRIGGER {trigger}")  # as someone editing the file by hand could
    conn.execute("UPDATE moves SET line = 'alice: 1: cheat' WHERE seq = 1")  # a record changed
    conn.commit()
    conn.close()
    before = backup._counts(home / "pbem.db")
    result = cli(home, "restore", bad, "--yes")
    assert result.exit_code == 1 and "its record was changed" in result.stderr
    assert backup._counts(home / "pbem.db") == before
    (tmp_path / "junk.db").write_text("not a database")
    assert cli(home, "restore", tmp_path / "junk.db", "--yes").exit_code == 1
    assert cli(home, "restore", tmp_path / "good.db").exit_code == 1  # asks first; no answer: nothing replaced

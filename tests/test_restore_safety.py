"""Safe restores (issue 26): `pbem restore` is refused while a `pbem serve` runs on the home, a
daemon that starts during a restore waits for it, a backup made under another key is refused,
and the mails made after a restore never reuse a Message-ID sent before it."""
import email
import os
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner
from conftest import game_config, legal

from pbem.base import daemonlock, settings as settings_mod, tokens
from pbem.cli import main
from pbem.core.service import open_service
from pbem.moderate import newgame
from pbem.store import EPOCH, backup

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PBEM_PURE": "1"}


def cli(home, *args, input=None):
    return CliRunner().invoke(main, ["--home", str(home), *map(str, args)], input=input)


def serve(home, *args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pbem.cli", "--home", str(home), "serve", *args], cwd=ROOT,
                            env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def until(predicate, seconds=60.0) -> bool:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def home_with_a_game(tmp_path):
    home = tmp_path / "h"
    assert cli(home, "init").exit_code == 0
    svc = open_service(settings=settings_mod.load(home))
    gid = newgame.create(svc, game_config(seed="restore-seed-long-enough"))
    return home, svc, gid


def test_a_restore_under_a_running_daemon_is_refused(tmp_path):
    home, svc, gid = home_with_a_game(tmp_path)
    assert cli(home, "backup", tmp_path / "b.db").exit_code == 0
    player, line = legal(svc, gid)
    assert cli(home, "game", "answer", gid, player, line).exit_code == 0
    daemon = serve(home)
    try:
        assert until(lambda: daemonlock.running(svc.settings)), daemon.stderr.read() if daemon.poll() else ""
        refused = cli(home, "restore", tmp_path / "b.db", "--yes")
        assert refused.exit_code == 1, refused.output
        assert "`pbem serve` daemon is running" in refused.stderr and "stop it first" in refused.stderr
        assert svc.store.game(gid)["moves"] == 1  # nothing replaced
    finally:
        daemon.terminate()
        daemon.wait(60)
    done = cli(home, "restore", tmp_path / "b.db", "--yes")
    assert done.exit_code == 0, done.output
    assert svc.store.game(gid)["moves"] == 0
    svc.store.close()


def test_a_daemon_that_starts_during_a_restore_waits_for_it(tmp_path):
    home, svc, _ = home_with_a_game(tmp_path)
    with daemonlock.alone(svc.settings, "restore"):  # as `restore` holds the home while it works
        once = serve(home, "--once")
        time.sleep(2)
        assert once.poll() is None  # waiting for the lock, having done nothing
        assert list((home / "outbox").iterdir()) == []
    assert once.wait(120) == 0, once.stderr.read()
    assert list((home / "outbox").iterdir())  # then it ran
    svc.store.close()


def message_ids(home) -> set[str]:
    return {email.message_from_bytes(p.read_bytes())["Message-ID"] for p in (home / "outbox").glob("*.eml")}


def test_mails_made_after_a_restore_have_message_ids_never_sent_before(tmp_path):
    home, svc, gid = home_with_a_game(tmp_path)
    assert cli(home, "serve", "--once").exit_code == 0
    assert cli(home, "backup", tmp_path / "b.db").exit_code == 0
    player, line = legal(svc, gid)
    assert cli(home, "game", "answer", gid, player, line).exit_code == 0
    assert cli(home, "serve", "--once").exit_code == 0
    sent = message_ids(home)  # the welcomes, the first reports, the reports of move 1
    copies = {p.name: p.read_bytes() for p in (home / "outbox").glob("*.eml")}
    svc.store.close()
    assert cli(home, "restore", tmp_path / "b.db", "--yes").exit_code == 0
    # the copies of the mails sent after the backup are set aside: the restored store numbers its
    # rows from the backup's last, and the file sender names copies by their row
    [aside] = (home / "outbox").glob("before-restore-*")
    assert aside.is_dir() and {p.name: p.read_bytes() for p in aside.iterdir()} == {
        n: b for n, b in copies.items() if n not in {p.name for p in (home / "outbox").glob("*.eml")}}
    before = message_ids(home)
    assert cli(home, "game", "answer", gid, player, line).exit_code == 0  # move 1 again, the same answer
    assert cli(home, "serve", "--once").exit_code == 0
    again = message_ids(home) - before
    assert len(again) == len(list(aside.iterdir()))  # as many mails as move 1 made the first time
    assert again and not again & sent
    epoch = open_service(settings=settings_mod.load(home)).store.meta(EPOCH)
    assert all(f".r{epoch}@" in mid for mid in again)
    # without the epoch they would be the very ids sent before, with other content
    assert {mid.replace(f".r{epoch}@", "@") for mid in again} <= sent
    assert cli(home, "restore", tmp_path / "b.db", "--yes").exit_code == 0  # a second restore: another epoch
    assert open_service(settings=settings_mod.load(home)).store.meta(EPOCH) != epoch


def test_a_backup_made_under_another_key_is_not_restored(tmp_path):
    home, svc, gid = home_with_a_game(tmp_path)
    assert cli(home, "backup", tmp_path / "b.db").exit_code == 0
    made_with = svc.key_fingerprint
    svc.store.close()
    other = tmp_path / "other"
    assert cli(other, "init").exit_code == 0
    result = cli(other, "restore", tmp_path / "b.db", "--yes")
    assert result.exit_code == 1 and made_with in result.stderr and "Put it back first" in result.stderr
    assert cli(other, "game", "list").stdout.count("\n") == 1  # still empty, and its key still its store's
    fresh = tmp_path / "fresh"  # a new machine made with the old key restores it
    (tmp_path / "old.key").write_text((home / "secret.key").read_text())
    assert cli(fresh, "init", "--key", tmp_path / "old.key").exit_code == 0
    assert tokens.read_key(fresh / "secret.key") == tokens.read_key(home / "secret.key")
    restored = cli(fresh, "restore", tmp_path / "b.db", "--yes")
    assert restored.exit_code == 0, restored.output
    assert gid in cli(fresh, "game", "list").stdout
    assert backup.check(tmp_path / "b.db") == []  # the file given is read, never written

"""A home made on purpose: `pbem init` creates it (store, key, commented pbem.toml, each 0600);
every other command refuses a folder that is not one, and never creates anything there."""
import os
import stat
import subprocess
import sys

import pytest
from click.testing import CliRunner

from pbem.base import settings as settings_mod
from pbem.cli import main
from pbem.core import home as home_mod


def invoke(home, *args, input=None):
    return CliRunner().invoke(main, ["--home", str(home), *map(str, args)], input=input)


def mode(path):
    return stat.S_IMODE(path.stat().st_mode)


def test_init_makes_a_private_home_and_keeps_an_existing_one(tmp_path):
    home = tmp_path / "var"
    old = os.umask(0o022)  # as on a usual system: files would come out 0644
    try:
        result = invoke(home, "init")
    finally:
        os.umask(old)
    assert result.exit_code == 0, result.output
    for name in ("pbem.db", "secret.key", "pbem.toml"):
        assert mode(home / name) == 0o600, name
        assert f"created {home / name}" in result.stdout
    assert (home / "inbox").is_dir() and (home / "outbox").is_dir()
    key = (home / "secret.key").read_bytes()
    again = invoke(home, "init")
    assert again.exit_code == 0 and "nothing changed" in again.stdout
    assert (home / "secret.key").read_bytes() == key  # never a new key: it would void every token
    assert invoke(home, "game", "list").exit_code == 0


def test_init_dir_argument_and_the_store_files_sqlite_adds_stay_private(tmp_path):
    old = os.umask(0o022)
    try:
        assert invoke(tmp_path / "unused", "init", tmp_path / "h").exit_code == 0
        assert not (tmp_path / "unused").exists()
        (tmp_path / "g.toml").write_text('[game]\nname = "g"\n[[players]]\nname = "alice"\nemail = "a@example.org"\n'
                                         '[[players]]\nname = "bob"\nemail = "b@example.org"\n')
        assert invoke(tmp_path / "h", "game", "new", tmp_path / "g.toml").exit_code == 0
    finally:
        os.umask(old)
    for p in (tmp_path / "h").glob("pbem.db*"):
        assert mode(p) == 0o600, p


COMMANDS = [("game", "list"), ("game", "show", "g"), ("game", "new", "{cfg}"), ("player", "list", "g"),
            ("inbox", "list"), ("outbox", "list"), ("outbox", "retry"), ("serve", "--once"), ("log", "g"),
            ("ingest", "{cfg}"), ("submit", "{cfg}"), ("export", "g", "-o", "{out}"), ("backup", "{out}"),
            ("game", "deadlines", "g"), ("player", "resend", "g", "alice")]


@pytest.mark.parametrize("made", [False, True], ids=["missing", "empty folder"])
@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_every_command_refuses_a_folder_that_is_not_a_home(tmp_path, args, made):
    home = tmp_path / "typo"
    if made:
        home.mkdir()
    cfg = tmp_path / "x.toml"
    cfg.write_text("x = 1\n")
    result = invoke(home, *(a.format(cfg=cfg, out=tmp_path / "out") for a in args))
    assert result.exit_code == 1, result.output
    assert "pbem init" in result.stderr and str(home) in result.stderr
    assert sorted(p.name for p in home.iterdir()) == [] if made else not home.exists()


def test_stdin_ingest_into_a_folder_that_is_not_a_home_asks_the_mta_to_retry(tmp_path):
    result = invoke(tmp_path / "typo", "ingest", input="From: a@example.org\n\nleft\n")
    assert result.exit_code == 75 and "pbem init" in result.stderr
    assert not (tmp_path / "typo").exists()


def test_a_home_with_its_key_lost_is_refused_not_given_a_new_key(tmp_path):
    assert invoke(tmp_path / "h", "init").exit_code == 0
    (tmp_path / "h" / "secret.key").unlink()
    result = invoke(tmp_path / "h", "game", "list")
    assert result.exit_code == 1 and "no secret.key" in result.stderr
    assert not (tmp_path / "h" / "secret.key").exists()


def test_the_daemon_warns_when_others_may_read_the_secrets(tmp_path):
    home = tmp_path / "h"
    assert invoke(home, "init").exit_code == 0
    env = {**os.environ, "PBEM_HOME": str(home), "PBEM_PURE": "1"}
    quiet = subprocess.run([sys.executable, "-m", "pbem.cli", "serve", "--once"], env=env, capture_output=True,
                           text=True)
    assert quiet.returncode == 0 and "other users may read" not in quiet.stderr + quiet.stdout
    os.chmod(home / "pbem.db", 0o644)
    os.chmod(home / "pbem.toml", 0o640)
    loud = subprocess.run([sys.executable, "-m", "pbem.cli", "serve", "--once"], env=env, capture_output=True,
                          text=True)
    out = loud.stderr + loud.stdout
    assert "other users may read" in out and "pbem.db" in out and "pbem.toml" in out
    assert [p.name for p in home_mod.exposed(settings_mod.load(home))] == ["pbem.db", "pbem.toml"]

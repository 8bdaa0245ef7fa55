"""File modes (issues 26 and 27): a home is its user's alone whatever folder it is given and
whatever the umask of the processes that write it -- every file 0600, every folder 0700 --
and `pbem serve` warns about anything looser, which `pbem init` tightens again."""
import asyncio
import os
import socket
import stat
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import structlog
from click.testing import CliRunner
from conftest import game_config, legal, mail, token

from pbem import daemon
from pbem.base import daemonlock, settings as settings_mod
from pbem.cli import main
from pbem.core import home as home_mod
from pbem.core.service import open_service
from pbem.moderate import moderator, newgame

ROOT = Path(__file__).resolve().parent.parent
LOOSE = stat.S_IRWXG | stat.S_IRWXO


def pbem(home, *args, input=None, check=True) -> subprocess.CompletedProcess:
    """`pbem` in a new process started with the umask most systems give (022)."""
    done = subprocess.run([sys.executable, "-m", "pbem.cli", "--home", str(home), *map(str, args)], cwd=ROOT,
                          env={**os.environ, "PBEM_PURE": "1"}, input=input, capture_output=True,
                          preexec_fn=lambda: os.umask(0o022), timeout=300)
    if check:
        assert done.returncode == 0, done.stderr.decode()
    return done


def loose(home: Path) -> list[str]:
    """Every file or folder under `home` (itself included) the group or others may use."""
    found = [home] + sorted(home.rglob("*"))
    return [f"{p} {stat.S_IMODE(p.lstat().st_mode):04o}" for p in found if p.lstat().st_mode & LOOSE]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_everything_a_umask_022_process_writes_in_a_home_is_private(tmp_path):
    home = tmp_path / "home"
    home.mkdir(mode=0o755)
    os.chmod(home, 0o755)  # a folder made by hand, readable by every local user
    (home / "templates").mkdir(mode=0o755)
    (home / "templates" / "notes.txt").write_text("made by hand\n")
    os.chmod(home / "templates" / "notes.txt", 0o644)
    made = pbem(home, "init").stdout.decode()
    assert f"tightened {home} (it was 0755)" in made and "notes.txt (it was 0644)" in made
    svc = open_service(settings=settings_mod.load(home))
    gid = newgame.create(svc, game_config(seed="modes-seed-long-enough"))
    player, line = legal(svc, gid)
    dropped = home / "inbox" / "reply.eml"  # copied into the drop folder by a user's own tools: 0644
    dropped.write_bytes(mail([line], sender=f"{player}@example.org", tok=token(svc, gid, player)))
    os.chmod(dropped, 0o644)
    with daemonlock.serving(svc.settings):  # as if a daemon ran: the MTA's pipe spools the mail
        pbem(home, "ingest", input=mail(["status"], sender=f"{player}@example.org", tok=token(svc, gid, player)))
    assert list((home / "inbox" / "pipe" / "new").iterdir())
    moderator.end(svc, gid)
    pbem(home, "serve", "--once")  # the spool and the drop folder taken (inbox/cur), every mail written
    pbem(home, "backup", tmp_path / "backup.db")  # (outbox/*.eml), the game-over's archive (home/archives/)
    port = free_port()
    web = subprocess.Popen([sys.executable, "-m", "pbem.cli", "--home", str(home), "serve", "--http",
                            f"127.0.0.1:{port}"], cwd=ROOT, env={**os.environ, "PBEM_PURE": "1"},
                           preexec_fn=lambda: os.umask(0o022), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        page = None
        for _ in range(300):
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/g/{gid}/replay/", timeout=30)
                break
            except OSError:
                time.sleep(0.1)
        assert page is not None and page.status == 200  # the replay written into the home's web cache
    finally:
        web.terminate()
        web.wait(60)
    svc.store.close()
    for folder in ("outbox", "inbox/cur", "archives", "web-cache", "run"):
        assert any(p.is_file() for p in (home / folder).rglob("*")), folder  # each was written
    assert loose(home) == []
    assert stat.S_IMODE((tmp_path / "backup.db").stat().st_mode) == 0o600


def cli(home, *args):
    return CliRunner().invoke(main, ["--home", str(home), *map(str, args)])


def test_serve_warns_about_anything_looser_and_init_tightens_it(tmp_path):
    home = tmp_path / "h"
    assert cli(home, "init").exit_code == 0
    svc = open_service(settings=settings_mod.load(home))
    newgame.create(svc, game_config())
    asyncio.run(daemon.serve(svc, once=True))
    with structlog.testing.capture_logs() as quiet:
        assert daemon.warn_exposed(svc) == []
    assert quiet == []
    mail_file = sorted((home / "outbox").glob("*.eml"))[0]
    os.chmod(mail_file, 0o644)  # a mail holds its reader's token
    os.chmod(home / "outbox", 0o755)
    os.chmod(home / "secret.key", 0o640)
    with structlog.testing.capture_logs() as loud:
        asyncio.run(daemon.serve(svc, once=True))  # `pbem serve` warns as it starts
    warned = [e for e in loud if "other users may read" in e["event"]]
    assert [(Path(e["path"]).name, e["mode"]) for e in warned] == [
        ("secret.key", "0o640"), ("outbox", "0o755"), (mail_file.name, "0o644")]
    assert f"`pbem init {home}` makes the home private" in warned[0]["event"]
    svc.store.close()
    fixed = cli(home, "init")
    assert fixed.exit_code == 0 and fixed.stdout.count("tightened") == 3
    assert loose(home) == [] and home_mod.exposed(settings_mod.load(home)) == []


def test_a_home_folder_this_user_cannot_tighten_is_refused_saying_how(tmp_path, monkeypatch):
    home = tmp_path / "shared"
    home.mkdir()
    os.chmod(home, 0o755)
    real = os.chmod

    def chmod(path, mode, **kw):
        if Path(path) == home:
            raise PermissionError(1, "Operation not permitted")  # another user's folder (root may change any)
        return real(path, mode, **kw)

    monkeypatch.setattr(os, "chmod", chmod)
    result = cli(home, "init")
    assert result.exit_code == 1
    assert f"{home} is mode 0755" in result.stderr and f"chmod -R go= {home}" in result.stderr
    with pytest.raises(home_mod.InitRefused):
        home_mod.tighten(settings_mod.load(home))

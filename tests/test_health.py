"""Health (issue 26): `pbem status [--json]` and `GET /healthz` say whether a daemon runs and
polls when it said it would, whether mail goes out, whether the store answers and the key is
its own; exit 1 / 503 naming each problem. The daemon's heartbeat is a file, not a commit."""
import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner
from starlette.testclient import TestClient

from pbem.base import settings as settings_mod, tokens
from pbem.cli import main
from pbem.core import health
from pbem.core.service import open_service
from pbem.sources import pipe
from pbem.web.app import create_app

ROOT = Path(__file__).resolve().parent.parent


def cli(home, *args):
    return CliRunner().invoke(main, ["--home", str(home), *map(str, args)])


def status(home) -> tuple[int, dict]:
    result = cli(home, "status", "--json")
    return result.exit_code, json.loads(result.stdout)


def new_home(tmp_path):
    home = tmp_path / "h"
    assert cli(home, "init").exit_code == 0
    (home / "pbem.toml").write_text("poll_seconds = 0.2\n")
    return home


def healthz(home):
    cfg = settings_mod.load(home)
    with TestClient(create_app(lambda: open_service(settings=cfg))) as client:
        return client.get("/healthz")


def test_a_running_daemon_is_well_and_a_home_without_one_is_not(tmp_path):
    home = new_home(tmp_path)
    code, report = status(home)
    assert code == 1 and not report["ok"] and not report["daemon"]["running"]
    assert report["problems"] == ["no `pbem serve` daemon runs on this home"]
    fp = tokens.fingerprint(tokens.read_key(home / "secret.key"))
    assert report["key"] == {"fingerprint": fp, "store_fingerprint": fp, "matches": True}
    assert report["store"]["reachable"] and report["outbox"]["waiting"] == 0
    response = healthz(home)
    assert response.status_code == 503 and response.json()["ok"] is False
    daemon = subprocess.Popen([sys.executable, "-m", "pbem.cli", "--home", str(home), "serve"], cwd=ROOT,
                              env={**os.environ, "PBEM_PURE": "1"}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while health.read_heartbeat(settings_mod.load(home)) is None and time.monotonic() < deadline:
            assert daemon.poll() is None, daemon.stderr.read()
            time.sleep(0.1)
        code, report = status(home)
        assert code == 0 and report["ok"] and report["problems"] == [], report
        assert report["daemon"]["running"] and report["daemon"]["pid"] == daemon.pid
        assert 0 <= report["daemon"]["last_poll_age_seconds"] < 30
        text = cli(home, "status")
        assert text.exit_code == 0 and f"pid {daemon.pid}" in text.stdout and text.stdout.endswith("ok\n")
        response = healthz(home)
        assert response.status_code == 200 and response.json()["ok"] is True
        assert response.headers["cache-control"] == "no-store"
        body = response.text
        assert str(daemon.pid) not in body and str(home) not in body and fp not in body  # nothing of the machine
        beat = (home / "run" / "heartbeat.json").stat()
        assert beat.st_mode & 0o777 == 0o600
        time.sleep(1)
        assert (home / "run" / "heartbeat.json").stat().st_mtime > beat.st_mtime  # it beats each cycle
    finally:
        daemon.terminate()
        daemon.wait(60)
    code, report = status(home)
    assert code == 1 and not report["daemon"]["running"] and report["daemon"]["last_poll"]  # when it last polled


def test_a_daemon_that_missed_its_poll_is_named(tmp_path):
    home = new_home(tmp_path)
    cfg = settings_mod.load(home)
    long_ago = datetime.now(UTC) - timedelta(hours=1)
    health.Heartbeat(cfg).beat(long_ago, 5.0, [], 0)  # it said it would poll again within 5 s, an hour ago
    data = json.loads((home / "run" / "heartbeat.json").read_text())
    data["next_poll_by"] = (long_ago + timedelta(seconds=5)).isoformat()
    (home / "run" / "heartbeat.json").write_text(json.dumps(data))
    with pipe.serving(cfg):  # its process holds the home still: alive, but stuck
        code, report = status(home)
        assert code == 1 and any("may be stuck" in p for p in report["problems"])
        assert report["daemon"]["last_poll_age_seconds"] > 3000
        assert healthz(home).status_code == 503
        health.Heartbeat(cfg).beat(datetime.now(UTC), 5.0, ["imap"], 1)  # polled now, one step failed
        code, report = status(home)
        assert code == 1 and report["problems"] == ["the last cycle's steps failed: imap (the log says why)"]
        health.Heartbeat(cfg).beat(datetime.now(UTC), 5.0, [], 1)
        assert status(home)[0] == 0


def test_mail_that_waits_too_long_is_a_problem_and_given_up_mail_a_warning(tmp_path):
    home = new_home(tmp_path)
    cfg = settings_mod.load(home)
    long_ago = datetime.now(UTC) - timedelta(hours=5)  # outbox_alert_hours: 4
    svc = open_service(settings=cfg, clock=lambda: long_ago)
    for i in (1, 2):
        svc.store.add_outbox(message_id=f"<m{i}@x>", kind="notice", to_addr="mod@example.org", subject="s",
                             headers={}, text="t")
    svc.store.outbox_attempt_failed(2, "550 no such user", None)  # given up
    svc.store.close()
    with pipe.serving(cfg):
        health.Heartbeat(cfg).beat(datetime.now(UTC), 5.0, [], 0)
        code, report = status(home)
    assert code == 1 and report["outbox"]["waiting"] == 1 and report["outbox"]["failed"] == 1
    assert report["problems"] == ["1 mail(s) waiting, the oldest for 5.0 h (`pbem outbox list` says why)"]
    assert report["warnings"] == ["1 mail(s) given up (`pbem outbox list`; `pbem outbox retry`)"]
    assert report["outbox"]["overdue_seconds"] > 4 * 3600


def test_a_wrong_key_or_a_broken_store_is_reported_not_a_traceback(tmp_path):
    home = new_home(tmp_path)
    (home / "secret.key").unlink()
    tokens.write_key(home / "secret.key", tokens.new_key())
    code, report = status(home)
    assert code == 1 and report["key"]["matches"] is False
    assert any("is not the store's" in p for p in report["problems"])
    assert healthz_refused(home)
    (home / "pbem.db").write_bytes(b"not a database" * 100)
    result = cli(home, "status")
    assert result.exit_code == 1 and "unreachable" in result.stdout and "Traceback" not in result.output
    code, report = status(home)
    assert not report["store"]["reachable"] and "the store cannot be opened" in report["problems"]


def healthz_refused(home) -> bool:
    """The web face of a home whose key is not the store's does not start serving its pages."""
    cfg = settings_mod.load(home)
    try:
        with TestClient(create_app(lambda: open_service(settings=cfg))) as client:
            client.get("/healthz")
    except Exception as e:  # noqa: BLE001 -- the KeyMismatch, as the daemon beside it stops
        return "is not the store's" in str(e) or "was made with key" in str(e)
    return False


def test_a_home_served_from_cron_is_well_while_its_last_run_is_recent(tmp_path):
    """`serve_every = "5m"`: no daemon runs (`serve --once` from cron), and that is no problem
    while the last run polled within 5 minutes and the grace; a run missed for longer is named."""
    home = new_home(tmp_path)
    (home / "pbem.toml").write_text('serve_every = "5m"\n')
    code, report = status(home)
    assert code == 1 and report["problems"] == [
        "no `pbem serve --once` has run within serve_every (5m): is its cron line or timer there?"]
    assert cli(home, "serve", "--once").exit_code == 0
    code, report = status(home)
    assert code == 0 and report["ok"] and not report["daemon"]["running"], report
    assert "daemon:  from cron, every 5m; last poll" in cli(home, "status").stdout
    cfg = settings_mod.load(home)
    health.Heartbeat(cfg).beat(datetime.now(UTC) - timedelta(minutes=8), 0.0, [], 0)  # 5 min + 2 min grace ago
    code, report = status(home)
    assert code == 1 and "serve_every (5m)" in report["problems"][0]
    health.Heartbeat(cfg).beat(datetime.now(UTC), 0.0, ["smtp"], 0)  # recent, but a step failed
    assert status(home)[1]["problems"] == ["the last cycle's steps failed: smtp (the log says why)"]
    (home / "pbem.toml").write_text('serve_every = "often"\n')
    result = cli(home, "status")
    assert result.exit_code != 0 and "serve_every: 'often' is not a duration" in result.output

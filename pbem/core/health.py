"""Is the service well: `pbem status` and the web face's `GET /healthz` (README, Deployment).

The daemon writes a heartbeat after each cycle into `<home>/run/heartbeat.json`: when it
polled, when it means to poll next at the latest, what failed. A plain file written over in
place, never fsynced: it costs no commit of the store (a durable write per poll would cost
more than an idle poll itself), and losing it to a power cut loses nothing. Whether a daemon
runs at all is the home's lock (pbem/base/daemonlock.py), which dies with its process.

`report` puts it together with what the store says (reachable, the outbox's backlog, given-up
mails, the key's fingerprint) and names every problem; `public` is what the web face shows
anyone who asks (no paths, no host, no process, no error text).
"""
from __future__ import annotations

import json
import os
import socket
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from pbem.base import clock, daemonlock, log, settings as settings_mod, tokens
from pbem.core import keys

if TYPE_CHECKING:
    from pbem.core.service import Service

GRACE_SECONDS = 120.0  # a cycle's own work (a burst, slow SMTP) on top of the wait it announced


def heartbeat_path(cfg: settings_mod.Settings) -> Path:
    return Path(cfg.home) / "run" / "heartbeat.json"


def _now() -> datetime:
    return datetime.now(UTC)  # the wall clock, not the service's (`serve --now` sets that)


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="seconds").replace("+00:00", "Z")


RECORD = 1024  # bytes: a heartbeat is written over the last one in place, padded to this length


class Heartbeat:
    """What one daemon process writes; several daemons on one home take turns at one file (the
    newest beat is the home's last poll). Written in place with one `pwrite` of a record of
    fixed length: no truncation and no rename, which on ext4 starts the data's write-back at
    once (measured: 0.6 ms of CPU and a disk write a cycle, against about 2 us)."""

    def __init__(self, cfg: settings_mod.Settings):
        self.path = heartbeat_path(cfg)
        self.started = _iso(_now())
        self.cycles = 0
        self.fd: int | None = None

    def beat(self, polled: datetime, next_within: float, failed: list[str], handled: int) -> None:
        """After a cycle that began at `polled`: the next begins within `next_within` seconds."""
        self.cycles += 1
        done = _now()
        data = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started_at": self.started,
                           "polled_at": _iso(polled), "done_at": _iso(done),
                           "next_poll_by": _iso(done + timedelta(seconds=next_within)), "cycles": self.cycles,
                           "handled": handled, "failed_steps": sorted(set(failed))}).encode()
        try:
            if self.fd is None:
                self.path.parent.mkdir(exist_ok=True, mode=0o700)
                self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            if len(data) > RECORD:  # not with the steps and fields there are; whole, all the same
                os.ftruncate(self.fd, len(data))
            os.pwrite(self.fd, data.ljust(RECORD), 0)
        except OSError as e:  # a full disk: the mail goes on, `pbem status` will say the daemon is late
            log.get().warning("the heartbeat could not be written", path=str(self.path), error=str(e))

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def read_heartbeat(cfg: settings_mod.Settings) -> dict | None:
    """The last beat, None if there is none. A read that met a beat half-written is read again."""
    for _ in range(3):
        try:
            data = json.loads(heartbeat_path(cfg).read_bytes())
        except OSError:
            return None
        except ValueError:
            time.sleep(0.01)
            continue
        return data if isinstance(data, dict) else None
    return None


def report(cfg: settings_mod.Settings, svc: Service | None, store_error: str | None = None) -> dict:
    """The service's health: `svc` opened without the key check (None: the store could not be
    opened, `store_error` says why). `ok` is False when a problem is named: no daemon, a
    daemon that missed its poll, the store unreachable, a key that is not the store's, a step
    that failed in the last cycle, mail waiting longer than `outbox_alert_hours`. A home run
    from cron (`serve_every`) needs no daemon: its last `serve --once` must be that recent."""
    now, problems, warnings = _now(), list[str](), list[str]()
    beat = read_heartbeat(cfg)
    running = daemonlock.running(cfg)
    daemon: dict = {"running": running, "last_poll": None, "last_poll_age_seconds": None}
    if beat:
        daemon.update(last_poll=beat.get("polled_at"), pid=beat.get("pid"), host=beat.get("host"),
                      started_at=beat.get("started_at"), next_poll_by=beat.get("next_poll_by"),
                      failed_steps=beat.get("failed_steps") or [])
        daemon["last_poll_age_seconds"] = _age(now, beat.get("polled_at"))
    late = _age(now, beat.get("next_poll_by") if beat else None, GRACE_SECONDS)
    every = cfg.serve_interval
    if every is not None and not running:  # `serve --once` from cron: its last run is the beat
        late = _age(now, beat.get("polled_at") if beat else None, every.total_seconds() + GRACE_SECONDS)
        daemon["serve_every"] = cfg.serve_every
        if late is None or late > 0:
            problems.append(f"no `pbem serve --once` has run within serve_every ({cfg.serve_every}): "
                            "is its cron line or timer there?")
    elif not running:
        problems.append("no `pbem serve` daemon runs on this home")
    elif late is None or late > 0:
        problems.append("the daemon has not polled when it said it would: it may be stuck")
    if (running or every is not None) and beat and beat.get("failed_steps"):
        problems.append(f"the last cycle's steps failed: {', '.join(beat['failed_steps'])} (the log says why)")
    key_fp = tokens.fingerprint(tokens.read_key(cfg.key_path))
    out: dict = {"ok": False, "problems": problems, "warnings": warnings, "daemon": daemon,
                 "store": {"reachable": svc is not None, "error": store_error},
                 "key": {"fingerprint": key_fp, "store_fingerprint": None, "matches": None}, "outbox": None}
    if svc is None:
        problems.append("the store cannot be opened")
    else:
        try:
            _from_store(svc, out, now, key_fp)
        except svc.store.errors as e:
            out["store"].update(reachable=False, error=str(e))
            problems.append("the store cannot be read")
    out["ok"] = not problems
    return out


def _from_store(svc: Service, out: dict, now: datetime, key_fp: str) -> None:
    store, problems = svc.store, out["problems"]
    started = time.perf_counter()
    recorded = store.meta(keys.FINGERPRINT)
    out["store"].update(dialect=store.dialect, schema=store.schema_version(),
                        latency_ms=round((time.perf_counter() - started) * 1000, 2))
    out["key"].update(store_fingerprint=recorded, matches=recorded in (None, key_fp))
    if not out["key"]["matches"]:
        problems.append(f"this home's key ({key_fp}) is not the store's ({recorded}): nothing can be sent")
    mail = store.outbox_health()
    waited = _age(now, mail["oldest"])
    out["outbox"] = {"waiting": mail["waiting"], "oldest_waiting_since": mail["oldest"], "due": mail["due"],
                     "oldest_due_at": mail["oldest_due"], "overdue_seconds": _age(now, mail["oldest_due"]),
                     "failed": mail["failed"]}
    if waited is not None and waited > svc.settings.outbox_alert_hours * 3600:  # as the daemon's own alert
        problems.append(f"{mail['waiting']} mail(s) waiting, the oldest for {waited / 3600:.1f} h "
                        "(`pbem outbox list` says why)")
    if mail["failed"]:
        out["warnings"].append(f"{mail['failed']} mail(s) given up (`pbem outbox list`; `pbem outbox retry`)")


def _age(now: datetime, stamp: str | None, grace: float = 0.0) -> float | None:
    """Seconds since `stamp` (an ISO time) less `grace`; None without one."""
    if not stamp:
        return None
    try:
        return round((now - clock.parse(stamp)).total_seconds() - grace, 1)
    except ValueError:
        return None


def public(full: dict) -> dict:
    """What `GET /healthz` shows anyone: whether all is well, and counts; the problems in
    words that name no path, host, process or error text."""
    outbox = full["outbox"] or {}
    return {"ok": full["ok"], "problems": len(full["problems"]), "daemon": full["daemon"]["running"],
            "last_poll_age_seconds": full["daemon"]["last_poll_age_seconds"],
            "store": full["store"]["reachable"], "key": full["key"]["matches"] is not False,
            "outbox_waiting": outbox.get("waiting"), "outbox_overdue_seconds": outbox.get("overdue_seconds"),
            "failed_sends": outbox.get("failed")}

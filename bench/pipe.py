"""`pbem ingest` from an MTA pipe, one new process per mail, against the floor run the same
way (../shared/bench/floor.py --once: one mail and its durable commit in a new process),
each timed as a whole process: CPU time (user + system) and wall, in interleaved rounds.

Three ways a mail comes in through the pipe, each a real answer to a real game:
- spooled: a `pbem serve` daemon runs on the home, so `ingest` only writes the mail durably
  into the spool (pbem/sources/pipe.py) and exits; the daemon takes it at once. Target: at
  most 1.5x the floor. The daemon's own CPU per spooled mail is printed beside it (read from
  /proc), since that work moved, it did not vanish.
- in process: no daemon runs, so `ingest` stores and processes the mail itself (imports
  the service, opens the store, its content parsed or read from the home's cache). Target
  (issue 28): at most 2x the floor.
- a command: `pbem status` and `pbem game list` on the same home, as a moderator or cron
  runs them (the click CLI, the service opened). Target (issue 28): at most 2x the floor.
The console script is the venv's `pbem`, with the environment Postfix's pipe(8) gives.

    .venv/bin/python bench/pipe.py [--rounds 5] [--per-round 3] [--floor PATH]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import timing
from pipeline import Games

from pbem.base import log, settings as settings_mod
from pbem.core import home as home_mod
from pbem.core.service import open_service
from pbem.sources import pipe

PBEM = Path(sys.executable).with_name("pbem")
ENV = {"LANG": "C", "TZ": "UTC", "PATH": "/usr/bin:/bin"}  # what pipe(8) exports, about
for key in ("PBEM_PURE", "PYTHONPATH"):  # the engine build (and the tree: a tree to compare) the caller chose
    if key in os.environ:
        ENV[key] = os.environ[key]


def proc_cpu(pid: int) -> float:
    """A running process's CPU seconds so far (user + system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Site:
    """A home with a game; `mail()` is the next legal answer as its player's reply."""

    def __init__(self, root: Path, name: str):
        self.home = root / name
        home_mod.init(self.home)
        with open(self.home / "pbem.toml", "a", encoding="utf-8") as f:  # each `ingest` reads it
            f.write(f"mails_per_hour = {timing.UNLIMITED}\n")
        self.svc = open_service(settings=settings_mod.load(self.home))
        self.games = Games(self.svc)

    def processed(self) -> int:
        return self.svc.store._one("SELECT COUNT(*) AS n FROM inbox WHERE status != 'received'")["n"]

    def ingest(self) -> timing.Sample:
        raw = self.games.next_mail()
        return timing.process([str(PBEM), "--home", str(self.home), "ingest"], raw, ENV, cwd=self.home)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--per-round", type=int, default=3)
    ap.add_argument("--floor", type=Path, default=timing.floor_path())
    args = ap.parse_args()
    log.configure("json", "warning")
    with tempfile.TemporaryDirectory() as root:
        served, alone = Site(Path(root), "served"), Site(Path(root), "alone")
        daemon = subprocess.Popen([str(PBEM), "--home", str(served.home), "serve"], env=ENV,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.time() + 60
            while not pipe.daemon_running(served.svc.settings):
                if time.time() > deadline or daemon.poll() is not None:
                    raise SystemExit("the daemon did not start")
                time.sleep(0.05)
            spooled_mails = []

            def spooled() -> timing.Sample:
                before = served.processed()
                sample = served.ingest()
                until = time.time() + 60
                while served.processed() == before:  # the daemon takes it; the next answer needs it played
                    if time.time() > until:
                        raise SystemExit("the daemon did not take the spooled mail")
                    time.sleep(0.002)
                time.sleep(0.05)  # let it finish the cycle (its sending)
                spooled_mails.append(1)
                return sample

            floor = lambda: timing.process([sys.executable, str(args.floor), "--once"])
            cpu0 = proc_cpu(daemon.pid)  # in clock ticks (10 ms): read over all the spooled mails
            got = timing.rounds({"floor": floor, "spooled": spooled}, args.rounds, args.per_round)
            daemon_cpu = (proc_cpu(daemon.pid) - cpu0) / len(spooled_mails)
            slow = timing.rounds({"floor": floor, "in process": alone.ingest}, args.rounds, args.per_round)
            # status exits 1 here: no daemon runs on this home
            command = lambda *words: lambda: timing.process(  # noqa: E731
                [str(PBEM), "--home", str(alone.home), *words], b"", ENV, cwd=alone.home, ok=(0, 1))
            cli = timing.rounds({"floor": floor, "status": command("status"), "game list": command("game", "list")},
                                args.rounds, args.per_round)
        finally:
            daemon.terminate()
            daemon.wait(30)
    print(timing.report("floor --once (a new process)", got["floor"]))
    print(timing.report("pbem ingest, spooled for the daemon", got["spooled"]))
    print(timing.ratio("spooled / floor", got["spooled"], got["floor"], target=1.5))
    print(f"the daemon's CPU per spooled mail, on average (waking, storing, playing, its replies sent to the "
          f"outbox folder): {daemon_cpu * 1e3:.1f} ms")
    print(timing.report("pbem ingest, in process (no daemon)", slow["in process"]))
    print(timing.ratio("in process / floor", slow["in process"], slow["floor"], target=2.0))
    for name in ("status", "game list"):
        print(timing.report(f"pbem {name}", cli[name]))
        print(timing.ratio(f"{name} / floor", cli[name], cli["floor"], target=2.0))


if __name__ == "__main__":
    main()

"""Issue 15: mails per second with 1, 2 and 4 `pbem serve` daemons over one PostgreSQL, and
with 1 on SQLite, on the same mails in one run; and what a mail costs on each.

The same start for every run: GAMES games of three players, their first mails sent, and one
answer mail per game (its token by plus-address). Each run starts its daemons on a fresh
copy of that store (SQLite: the home's file copied; PostgreSQL: a database made from a
template), each daemon a home of its own (a machine) sharing the key, waits until they idle,
then drops the answers into their drop folders in turn and times until every answer is
processed and every mail it queued is sent (written to each home's outbox folder). CPU time
is read from /proc for each daemon, and for the PostgreSQL server (its postmaster with the
backends it reaped, and those still running). The configurations take turns over the rounds.

    .venv/bin/python bench/scale.py [--games 120] [--rounds 3]

Needs PostgreSQL's server binaries (Debian's postgresql package); it starts a cluster of its
own as tests/pgcluster.py does.
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[0] = str(HERE.parent)  # the repository first: bench/engine.py is no engine
sys.path.append(str(HERE))
sys.path.append(str(HERE.parent / "tests"))

import timing  # noqa: E402
from conftest import game_config, legal, mail, token  # noqa: E402
from pgcluster import Cluster, _bin_dir  # noqa: E402

from pbem.base import settings as settings_mod
from pbem.core import home as home_mod  # noqa: E402
from pbem.core.service import open_service  # noqa: E402
from pbem.moderate import newgame
from pbem.outbound import sending
from pbem.store import (  # noqa: E402
    Store,
    copy as copy_mod,  # noqa: E402
    open_store,
)

PBEM = [sys.executable, "-c", "import sys; from pbem.cli import main; sys.exit(main())"]
TICK = os.sysconf("SC_CLK_TCK")
PLAYERS = [("alice", "alice@example.org"), ("bob", "bob@example.org"), ("carol", "carol@example.org")]


def cpu_of(pid: int, children: bool = False) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12]) + ((int(fields[13]) + int(fields[14])) if children else 0)
    return ticks / TICK


def server_cpu(cluster: Cluster) -> float:
    """The server's CPU: the postmaster, the backends it reaped, and those running now."""
    pid = int((cluster.data / "postmaster.pid").read_text().split()[0])
    total = cpu_of(pid, children=True)
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        try:
            total += cpu_of(int(child))
        except FileNotFoundError:
            pass
    return total


def prepare(root: Path, n_games: int) -> tuple[Path, list[bytes]]:
    """The starting home (SQLite) and one answer mail per game."""
    base = root / "base"
    home_mod.init(base)
    svc = open_service(base)
    for g in range(n_games):
        newgame.create(svc, game_config(name=f"s{g:03d}", seed=f"scale-seed-{g:04d}-abcdefgh", players=PLAYERS))
    import asyncio
    asyncio.run(sending.send_due(svc))  # the welcomes and first reports: not the burst's
    for f in (base / "outbox").glob("*.eml"):
        f.unlink()
    answers = []
    for g in svc.store.game_ids():
        player, line = legal(svc, g)
        answers.append(mail([line], sender=f"{player}@example.org", tok=token(svc, g, player), game=g))
    svc.store.close()
    return base, answers


def homes_for(root: Path, base: Path, n: int, db: str | None) -> list[Path]:
    shutil.rmtree(root / "run", ignore_errors=True)
    homes = []
    for i in range(n):
        home = root / "run" / f"machine{i}"
        if db is None:
            shutil.copytree(base, home)  # SQLite: the one home, the store file with it
        else:
            home.mkdir(parents=True, mode=0o700)
            shutil.copy2(base / "secret.key", home / "secret.key")
            (home / "pbem.toml").write_text(f'db = "{db}"\n')
            home_mod.init(home)
        (home / "pbem.toml").write_text((f'db = "{db}"\n' if db else "") + "poll_seconds = 0.2\n")
        homes.append(home)
    return homes


def settle(procs, quiet: float = 0.6, timeout: float = 60) -> None:
    """Until every daemon's CPU time stood still for `quiet` seconds (started, idle)."""
    end, last, still = time.monotonic() + timeout, None, 0.0
    while time.monotonic() < end:
        now = [cpu_of(p.pid) for p in procs]
        still = still + 0.1 if now == last else 0.0
        if still >= quiet:
            return
        last = now
        time.sleep(0.1)


def done(store: Store, n: int) -> bool:
    inbox = store.inbox_rows(limit=100000)
    return len(inbox) >= n and all(r["status"] != "received" for r in inbox) and store.outbox_waiting()["n"] == 0


def run(root: Path, base: Path, answers: list[bytes], daemons: int, db: str | None, cluster) -> dict:
    from pbem.sources import dropfolder
    homes = homes_for(root, base, daemons, db)
    store = open_store(db or settings_mod.load(homes[0]).db_path)
    procs = [subprocess.Popen([*PBEM, "--home", str(h), "serve"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env={**os.environ, "PBEM_LOG_LEVEL": "warning"})
             for h in homes]
    try:
        settle(procs)
        cpu0 = [cpu_of(p.pid) for p in procs]
        srv0 = server_cpu(cluster) if db else 0.0
        t0 = time.perf_counter()
        for i, raw in enumerate(answers):
            dropfolder.drop(homes[i % daemons] / "inbox", f"a{i}.eml", raw)
        while not done(store, len(answers)):
            time.sleep(0.05)
        wall = time.perf_counter() - t0
        cpu = sum(cpu_of(p.pid) for p in procs) - sum(cpu0)
        srv = (server_cpu(cluster) - srv0) if db else 0.0
        sent = sum(len(list((h / "outbox").glob("*.eml"))) for h in homes)
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            p.wait(timeout=30)
        store.close()
    return {"wall": wall, "cpu": cpu, "server": srv, "mails": len(answers), "sent": sent}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=120)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="pbem-scale-"))
    cluster = Cluster(_bin_dir())
    try:
        base, answers = prepare(root, args.games)
        template = cluster.database()
        src, dst = open_store(base / "pbem.db"), open_store(template)
        copy_mod.copy(src, dst)
        src.close()
        dst.close()

        def fresh_pg() -> str:
            import psycopg
            name = f"scale{time.time_ns()}"
            with psycopg.connect(cluster.url, autocommit=True) as conn:
                conn.execute(f"CREATE DATABASE {name} TEMPLATE {template.rsplit('/', 1)[1]}")
            return cluster.url.rsplit("/", 1)[0] + "/" + name

        configs = {"sqlite x1": (1, False), "postgresql x1": (1, True), "postgresql x2": (2, True),
                   "postgresql x4": (4, True)}
        got = {name: [] for name in configs}
        for _ in range(args.rounds):
            for name, (daemons, pg) in configs.items():
                got[name].append(run(root, base, answers, daemons, fresh_pg() if pg else None, cluster))
        print(f"{args.games} answer mails (one per game, 3 players), the mails they queue sent to files; "
              f"{args.rounds} rounds, {os.cpu_count()} CPUs")
        for name, runs in got.items():
            print(f"  {name}: {timing.spread([r['mails'] / r['wall'] for r in runs], 1, '', 1)} answers/s, "
                  f"{timing.spread([r['sent'] / r['wall'] for r in runs], 1, '', 1)} mails sent/s, "
                  f"daemon CPU {timing.spread([r['cpu'] / r['mails'] * 1e3 for r in runs], 1, '', 1)} ms per answer"
                  + (f", server CPU {timing.spread([r['server'] / r['mails'] * 1e3 for r in runs], 1, '', 1)} "
                     "ms per answer"
                     if runs[0]["server"] else ""))

        def ratio(a, b, key):
            return [key(x) / key(y) for x, y in zip(got[a], got[b])]
        rate = lambda r: r["mails"] / r["wall"]  # noqa: E731
        print("  throughput, per round:")
        for name in ("postgresql x1", "postgresql x2", "postgresql x4"):
            print(f"    {name} / sqlite x1: {timing.spread(ratio(name, 'sqlite x1', rate), 1, '', 2)}x")
        for name in ("postgresql x2", "postgresql x4"):
            print(f"    {name} / postgresql x1: {timing.spread(ratio(name, 'postgresql x1', rate), 1, '', 2)}x")
        print("  CPU per answer, PostgreSQL x1 / SQLite x1: daemon "
              f"{timing.spread(ratio('postgresql x1', 'sqlite x1', lambda r: r['cpu']), 1, '', 2)}x, daemon + server "
              f"{timing.spread(ratio('postgresql x1', 'sqlite x1', lambda r: r['cpu'] + r['server']), 1, '', 2)}x")
    finally:
        cluster.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

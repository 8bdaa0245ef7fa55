"""Issue 20: `serve --once` over a burst holds a bounded amount of memory, whatever its size.

A home with N mails queued (moderator notices of about 2 KiB, sent to the outbox folder: no
SMTP server in the way), and `pbem serve --once` run on a fresh copy of it as a process of its
own; its peak RSS (wait4's ru_maxrss) and CPU time are read when it exits. N = 1,000 and
5,000 take turns over the rounds. Target: peak RSS at 5,000 <= 1.2x at 1,000.

    .venv/bin/python bench/burst_rss.py [--rounds 3] [--postgres]
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[0] = str(HERE.parent)  # the repository first: bench/engine.py is no engine
sys.path.append(str(HERE))

import timing  # noqa: E402

from pbem.base import settings as settings_mod
from pbem.core import home as home_mod  # noqa: E402
from pbem.store import open_store  # noqa: E402

PBEM = [sys.executable, "-c", "import sys; from pbem.cli import main; sys.exit(main())"]
BODY = "\n".join(f"Line {i} of a notice long enough to be an ordinary mail, and then some more." for i in range(26))


def make_home(root: Path, n: int, db: str | None) -> Path:
    home = root / f"home{n}"
    home.mkdir(mode=0o700)
    if db:
        (home / "pbem.toml").write_text(f'db = "{db}"\n')
    home_mod.init(home)
    store = open_store(settings_mod.load(home).store_target)
    with store.transaction():
        for i in range(n):
            store.add_outbox(message_id=f"<burst{i}@example.org>", kind="notice", to_addr=f"p{i % 50}@example.org",
                             subject=f"notice {i}", headers={"Subject": f"notice {i}"}, text=BODY)
    store.close()
    return home


def run_once(home: Path, work: Path, pg_copy=None) -> tuple[float, float, float]:
    """(peak RSS MiB, CPU s, wall s) of `serve --once` on a copy of `home`."""
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(home, work)
    if pg_copy:
        pg_copy(work)
    t0 = time.perf_counter()
    proc = subprocess.Popen([*PBEM, "--home", str(work), "serve", "--once"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env={**os.environ, "PBEM_LOG_LEVEL": "warning"})
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"serve --once exited {status}")
    sent = len(list((work / "outbox").glob("*.eml")))
    return usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime, wall, sent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--postgres", action="store_true", help="the store on PostgreSQL (a cluster of its own)")
    args = ap.parse_args()
    sizes = (1000, 5000)
    with tempfile.TemporaryDirectory() as tmp:
        root, cluster = Path(tmp), None
        copies = {}
        if args.postgres:
            sys.path.append(str(HERE.parent / "tests"))
            from pgcluster import Cluster, _bin_dir
            cluster = Cluster(_bin_dir())
        homes = {}
        for n in sizes:
            db = cluster.database() if cluster else None
            homes[n] = make_home(root, n, db)
            if cluster:  # each run on a fresh database made from the filled one
                def fresh(work, template=db.rsplit("/", 1)[1]):  # noqa: B008 -- bound once, for this home
                    import psycopg
                    name = f"run{time.time_ns()}"
                    with psycopg.connect(cluster.url, autocommit=True) as conn:
                        conn.execute(f"CREATE DATABASE {name} TEMPLATE {template}")
                    (work / "pbem.toml").write_text(f'db = "{cluster.url.rsplit("/", 1)[0]}/{name}"\n')
                copies[n] = fresh
        got = {n: [] for n in sizes}
        for _ in range(args.rounds):
            for n in sizes:
                got[n].append(run_once(homes[n], root / "work", copies.get(n)))
        print(f"serve --once over a burst ({'postgresql' if cluster else 'sqlite'}), {args.rounds} rounds")
        for n in sizes:
            rss, cpu, wall, sent = zip(*got[n])
            assert set(sent) == {n}, sent
            print(f"  {n} mails: peak RSS {timing.spread(rss, 1, '', 1)} MiB, CPU {timing.spread(cpu, 1, '', 2)} s, "
                  f"wall {timing.spread(wall, 1, '', 2)} s, "
                  f"CPU per mail {timing.spread([c / n * 1e3 for c in cpu], 1, '', 2)} ms")
        ratios = [b[0] / a[0] for a, b in zip(got[1000], got[5000])]
        verdict = "met" if max(ratios) <= 1.2 else "NOT met"
        print(f"  peak RSS 5000 / 1000: {timing.spread(ratios, 1, '', 2)}x; target <= 1.2x: {verdict}")
        if cluster:
            cluster.stop()


if __name__ == "__main__":
    main()

"""Issues 20 and 28: `serve --once` over a burst holds a bounded amount of memory, whatever its
size, and the mail sent before costs it nothing.

A home with N mails queued (moderator notices of about 2 KiB, sent to the outbox folder: no
SMTP server in the way), and `pbem serve --once` run on a fresh copy of it as a process of its
own; its peak RSS (VmHWM, written by the process as it exits: wait4's ru_maxrss would count
this bench's own memory, which a child inherits until its exec) and CPU time (wait4) are read
when it exits. N = 1,000 and
5,000 take turns over the rounds, and 1,000 in a home that has sent `--old` mails before
(13,000: rows marked sent, with their bodies, and their .eml files). Targets: peak RSS at
5,000 <= 1.1x at 1,000; with the old mail, peak RSS and CPU <= 1.1x without.

    .venv/bin/python bench/burst_rss.py [--rounds 3] [--old 13000] [--postgres]
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
from pbem.outbound import sending  # noqa: E402
from pbem.store import open_store  # noqa: E402

PBEM = [sys.executable, "-c", "import atexit, os, sys; from pbem.cli import main\n"
        "atexit.register(lambda: open(os.environ['PEAK_FILE'], 'w').write(open('/proc/self/status').read()"
        ".split('VmHWM:')[1].split()[0]))\nsys.exit(main())"]
BODY = "\n".join(f"Line {i} of a notice long enough to be an ordinary mail, and then some more." for i in range(26))


def make_home(root: Path, n: int, db: str | None, old: int = 0) -> Path:
    home = root / f"home{n}-{old}"
    home.mkdir(mode=0o700)
    if db:
        (home / "pbem.toml").write_text(f'db = "{db}"\n')
    home_mod.init(home)
    store = open_store(settings_mod.load(home).store_target)
    with store.transaction():
        for i in range(old):  # sent long ago: rows with their bodies, and their files
            store.add_outbox(message_id=f"<old{i}@example.org>", kind="notice", to_addr=f"p{i % 50}@example.org",
                             subject=f"notice {i}", headers={"Subject": f"notice {i}"}, text=BODY,
                             html=f"<p>{BODY}</p>")
        store.query("UPDATE outbox SET status = 'sent', attempts = 1, sent_at = created_at")
        for i in range(n):
            store.add_outbox(message_id=f"<burst{i}@example.org>", kind="notice", to_addr=f"p{i % 50}@example.org",
                             subject=f"notice {i}", headers={"Subject": f"notice {i}"}, text=BODY)
    store.close()
    outbox = home / "outbox"
    outbox.mkdir(mode=0o700, exist_ok=True)
    for i in range(1, old + 1):  # 0600, as the daemon writes them (a looser one is warned about at every start)
        path = outbox / sending.eml_name(i)
        path.write_text(f"Subject: notice {i}\n\n{BODY}\n")
        path.chmod(0o600)
    return home


def run_once(home: Path, work: Path, pg_copy=None) -> tuple[float, float, float]:
    """(peak RSS MiB, CPU s, wall s) of `serve --once` on a copy of `home`."""
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(home, work)
    if pg_copy:
        pg_copy(work)
    t0 = time.perf_counter()
    peak = work.parent / "peak"
    proc = subprocess.Popen([*PBEM, "--home", str(work), "serve", "--once"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL,
                            env={**os.environ, "PBEM_LOG_LEVEL": "warning", "PEAK_FILE": str(peak)})
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"serve --once exited {status}")
    sent = len(list((work / "outbox").glob("*.eml")))
    return int(peak.read_text()) / 1024, usage.ru_utime + usage.ru_stime, wall, sent  # VmHWM is in KiB


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--old", type=int, default=13000, help="mails sent before, in the third home")
    ap.add_argument("--postgres", action="store_true", help="the store on PostgreSQL (a cluster of its own)")
    args = ap.parse_args()
    runs = {"1000": (1000, 0), "5000": (5000, 0), "old": (1000, args.old)}
    with tempfile.TemporaryDirectory() as tmp:
        root, cluster = Path(tmp), None
        copies = {}
        if args.postgres:
            sys.path.append(str(HERE.parent / "tests"))
            from pgcluster import Cluster, _bin_dir
            cluster = Cluster(_bin_dir())
        homes = {}
        for name, (n, old) in runs.items():
            db = cluster.database() if cluster else None
            homes[name] = make_home(root, n, db, old)
            if cluster:  # each run on a fresh database made from the filled one
                def fresh(work, template=db.rsplit("/", 1)[1]):  # noqa: B008 -- bound once, for this home
                    import psycopg
                    name = f"run{time.time_ns()}"
                    with psycopg.connect(cluster.url, autocommit=True) as conn:
                        conn.execute(f"CREATE DATABASE {name} TEMPLATE {template}")
                    (work / "pbem.toml").write_text(f'db = "{cluster.url.rsplit("/", 1)[0]}/{name}"\n')
                copies[name] = fresh
        got = {name: [] for name in runs}
        for _ in range(args.rounds):
            for name in runs:
                got[name].append(run_once(homes[name], root / "work", copies.get(name)))
        print(f"serve --once over a burst ({'postgresql' if cluster else 'sqlite'}), {args.rounds} rounds")
        for name, (n, old) in runs.items():
            rss, cpu, wall, sent = zip(*got[name])
            assert set(sent) == {n + old}, sent
            before = f" after {old} sent before" if old else ""
            print(f"  {n} mails{before}: peak RSS {timing.spread(rss, 1, '', 1)} MiB, "
                  f"CPU {timing.spread(cpu, 1, '', 2)} s, wall {timing.spread(wall, 1, '', 2)} s, "
                  f"CPU per mail {timing.spread([c / n * 1e3 for c in cpu], 1, '', 2)} ms")

        def ratio(what: str, a: str, b: str, index: int) -> None:
            values = [y[index] / x[index] for x, y in zip(got[a], got[b])]
            verdict = "met" if max(values) <= 1.1 else "met at the median" if sorted(values)[len(values) // 2] <= 1.1 \
                else "NOT met"
            print(f"  {what}: {timing.spread(values, 1, '', 2)}x; target <= 1.1x: {verdict}")
        ratio("peak RSS 5000 / 1000", "1000", "5000", 0)
        ratio(f"peak RSS after {args.old} sent / none", "1000", "old", 0)
        ratio(f"CPU after {args.old} sent / none", "1000", "old", 1)
        if cluster:
            cluster.stop()


if __name__ == "__main__":
    main()

"""Issue 28: the whole answer, not just its handling -- an answer mail processed and the
replies it causes rendered and sent, against the floor's move.

A six-player game (pipeline.py's bot picks each answer, untimed) is played by mail in one
home, the daemon's way: mails sent to .eml files in the outbox folder (`FileSender`, the
embedded default). Three kinds of work take turns with the floor in every round, each per
answer mail:

- **handle alone**: `process.handle` (stored, read, authenticated, applied, logged, its
  replies queued), its own durable commit, as `ingest` without a daemon does;
- **handle, group commit**: `--batch` mails in one `group_commit`, its closing fsync shared
  out over them, as `serve` takes a Maildir, IMAP or the pipe's spool;
- **answered**: `process.handle` (its own commit) and then `sending.send_due`, which claims,
  renders, writes and marks sent every reply it queued (about 3 a mail): the whole answer. Its
  send's CPU over the replies it sent is printed under it: what a reply costs.

The floor (../shared/bench/floor.py: parse a mail, one durable commit, a six-player state
msgpacked, six reports rendered) runs its own loop in this process for `--floor-moves` moves
in every round, between the kinds of work. Every figure is CPU time (user + system of this
process) beside wall time; a round's ratio is the kind's mean per mail over the floor's per
move, printed as the median and spread over `--rounds` rounds (at least 7). Targets: answered
<= 4x the floor; handle alone <= 1.5x. Replies the kinds queue but do not send themselves
are sent between rounds, untimed, so every round starts with an empty queue.

`--postgres` adds a fourth kind: answered on PostgreSQL (a cluster of its own, as
tests/pgcluster.py starts), its server's CPU over the timed mails counted, against SQLite
answering the same mails of the same games (a home of its own) in turn with it, mail by mail.
Target (issue 28): <= 1.5x.

`--profile N` plays N answered mails under cProfile instead (after the same warm-up) and
prints the process's user and system CPU over them, then the functions with the most time,
cumulative and own (`--clock`: wall by default, see `profile`).

    .venv/bin/python bench/answer.py [--rounds 7] [--per-round 20] [--batch 10] [--postgres] [--profile 200]
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import timing
from pipeline import Games, mean

from pbem.base import log, settings as settings_mod
from pbem.core.service import open_service
from pbem.inbound.process import handle
from pbem.outbound import sending


class Bench:
    def __init__(self, home: str, db: str = "pbem.db"):
        self.svc = open_service(settings=settings_mod.Settings(home=home, db=db, mails_per_hour=timing.UNLIMITED))
        self.g = Games(self.svc)
        self.loop = asyncio.new_event_loop()  # one loop, as the daemon runs in one
        self.sender = sending.sender_for(self.svc.settings)  # kept, as the daemon keeps its own
        self.sent = 0

    def send(self) -> int:
        n = self.loop.run_until_complete(sending.send_due(self.svc, self.sender))
        self.sent += n
        return n

    def _handle(self, raw: bytes) -> None:
        result = handle(self.svc, raw)
        assert result.status == "applied", (result.outcome, raw[-60:])

    def alone(self, k: int) -> timing.Sample:
        out = []
        for _ in range(k):
            raw = self.g.next_mail()
            out.append(timing.timed(lambda raw=raw: self._handle(raw)))
        self.send()  # untimed: the next work starts with nothing queued
        return mean(out)

    def grouped(self, k: int, batch: int) -> timing.Sample:
        out = []
        for start in range(0, k, batch):
            group = self.svc.store.group_commit()
            group.__enter__()
            times = []
            for _ in range(min(batch, k - start)):
                raw = self.g.next_mail()
                times.append(timing.timed(lambda raw=raw: self._handle(raw)))
            closing = timing.timed(lambda group=group: group.__exit__(None, None, None))
            out += [timing.Sample(t.cpu + closing.cpu / len(times), t.wall + closing.wall / len(times))
                    for t in times]
        self.send()
        return mean(out)

    def answered(self, k: int, replies: list[int] | None = None, server: Callable[[], float] | None = None,
                 served: list[float] | None = None, per_reply: list[float] | None = None,
                 unrendered: list[timing.Sample] | None = None) -> timing.Sample:
        """`server`: the PostgreSQL server's CPU so far, read around each timed mail (the bot's
        reads choosing the next answer and the moderator's skipped questions, untimed here,
        are not the answer's), its sum added to `served`. `per_reply`: the CPU of these mails'
        sends (`send_due` after the handling: each reply claimed, made, rendered, written,
        synced and marked sent) over the replies they sent, appended. `unrendered`: the mean
        per mail less what its replies' `outbox.rendered` took (their context made and their
        templates rendered), appended: what the rest of the answer costs, which no rendering
        made cheaper could lower."""
        out, sent_cpu, sent = [], 0.0, 0
        rendering = _Rendering() if unrendered is not None else contextlib.nullcontext()
        for _ in range(k):
            raw = self.g.next_mail()
            got: dict = {}

            def whole(raw=raw, got=got):
                self._handle(raw)
                c0 = time.process_time()
                got["n"] = self.send()
                got["send"] = time.process_time() - c0
            before = server() if server else 0.0
            with rendering:
                out.append(timing.timed(whole))
            if server and served is not None:
                served[-1] += server() - before
            if replies is not None:
                replies.append(got["n"])
            sent_cpu, sent = sent_cpu + got["send"], sent + got["n"]
        if per_reply is not None and sent:
            per_reply.append(sent_cpu / sent)
        got = mean(out)
        if unrendered is not None:
            unrendered.append(timing.Sample(got.cpu - rendering.cpu / k, got.wall - rendering.wall / k))
        return got


class _Rendering:
    """While entered, `sending`'s calls of `outbox.rendered` timed, their CPU and wall summed
    (two clock reads a reply, about 2 us, added to the answer's time)."""

    def __init__(self):
        self.cpu = self.wall = 0.0

    def __enter__(self):
        self.real = real = sending.rendered

        def timed_rendered(*args, **kwargs):
            c0, w0 = time.process_time(), time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                self.cpu += time.process_time() - c0
                self.wall += time.perf_counter() - w0
        sending.rendered = timed_rendered
        return self

    def __exit__(self, *exc):
        sending.rendered = self.real


def file_creation(folder: Path, n: int = 20) -> float:
    """CPU seconds a new file costs in `folder` (created empty, then removed): each reply sent
    to an .eml pays it. On this VM's ext4 it ranged 15 us to 0.6 ms within an hour, by folder
    (/tmp's, beside every session's leftovers, cost most) and by the hour (the other sessions'
    disk work): a large, varying part of a reply that no code of ours changes, printed beside
    the figures so a run's can be read against it; `TMPDIR` moves the bench's homes."""
    folder.mkdir(parents=True, exist_ok=True)
    names = [folder / f".probe-{i}" for i in range(n)]
    c0 = time.process_time()
    for name in names:
        os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    spent = time.process_time() - c0
    for name in names:
        name.unlink()
    return spent / n


def server_cpu(cluster) -> float:
    """The PostgreSQL server's CPU seconds so far: each running process's time on a CPU from
    /proc/PID/schedstat (nanoseconds), the postmaster's and what its reaped children used (in
    clock ticks: autovacuum's workers). scale.server_cpu reads 10 ms ticks only: read around each
    mail (about 2.5 ms of the server's) a tick fell in one mail of four, and a round's server share
    varied by about a millisecond a mail from that alone."""
    from scale import cpu_of
    pid = int((cluster.data / "postmaster.pid").read_text().split()[0])
    total = cpu_of(pid, children=True) - cpu_of(pid)  # the reaped children's
    for proc in (str(pid), *Path(f"/proc/{pid}/task/{pid}/children").read_text().split()):
        try:
            total += int(Path(f"/proc/{proc}/schedstat").read_text().split()[0]) / 1e9
        except FileNotFoundError:  # ended meanwhile: its time is among the reaped children's next time
            pass
    return total


def with_server(pg: Bench, sqlite: Bench, k: int, cluster, server: list[float],
                beside: list[timing.Sample]) -> timing.Sample:
    """`k` answered mails on PostgreSQL, each after the same mail on SQLite (`sqlite` plays the
    same games from the same seeds, answer for answer: the same work, taken mail by mail in turn
    under the same load; a round of each in its own slot, on games at other moves, spread the
    ratio 1.1-2.5): PostgreSQL's sample per mail with its server's CPU over its timed mails
    added (the server serves this bench alone; that share also appended to `server`), and
    SQLite's mean appended to `beside`."""
    server.append(0.0)
    pgs, sqlites = [], []
    for i in range(k):  # which goes first alternates: the second of a pair, its mail just played, costs less
        if i % 2:
            pgs.append(pg.answered(1, server=lambda: server_cpu(cluster), served=server))
        sqlites.append(sqlite.answered(1))
        if not i % 2:
            pgs.append(pg.answered(1, server=lambda: server_cpu(cluster), served=server))
    server[-1] /= k
    beside.append(mean(sqlites))
    got = mean(pgs)
    return timing.Sample(got.cpu + server[-1], got.wall)


def profile(b: Bench, n: int, top: int, dump: str | None = None, kind: str = "answered", clock: str = "wall") -> None:
    """`clock`: cProfile's timer. "wall" (perf_counter, read without a system call) by default:
    "cpu" (process_time) is a system call per function entered and left (a CPU-time clock has no
    vDSO), 3.5 million of them for 200 mails, which made the profile 40-50 % system time and
    inflated the functions that make many small calls."""
    import resource
    prof = cProfile.Profile(time.process_time) if clock == "cpu" else cProfile.Profile()
    before = resource.getrusage(resource.RUSAGE_SELF)
    if kind == "handle":  # `process.handle` alone, as the bench times it: the bot and the sending not profiled
        for _ in range(n):
            raw = b.g.next_mail()
            prof.enable()
            b._handle(raw)
            prof.disable()
        b.send()
    else:
        work = {"answered": lambda: b.answered(n), "alone": lambda: b.alone(n)}[kind]
        prof.enable()
        work()
        prof.disable()
    after = resource.getrusage(resource.RUSAGE_SELF)
    print(f"{n} mails ({kind}) under the profiler: user {after.ru_utime - before.ru_utime:.2f} s, "
          f"system {after.ru_stime - before.ru_stime:.2f} s; {clock} clock")
    if dump:
        prof.dump_stats(dump)
    for order in ("cumulative", "tottime"):
        s = io.StringIO()
        pstats.Stats(prof, stream=s).strip_dirs().sort_stats(order).print_stats(top)
        text = s.getvalue()
        print(f"--- {n} mails ({kind}), by {order} ---")
        print(text[text.index("ncalls") - 2:] if "ncalls" in text else text)


class _Split:
    """While entered, the CPU of the SQLite store's statements (its connection's `execute`, the
    durable COMMIT's apart) and of the engine's calls (engine.api's functions) summed. Each adds
    a Python call and two CPU-clock reads (system calls) to what it times: 0-150 us a mail by run, so
    `split` times the whole on other mails, without it."""

    def __init__(self, store):
        self.store, self.sql, self.commit, self.statements, self.engine = store, 0.0, 0.0, 0, 0.0

    def __enter__(self):
        from engine import api
        split, real = self, self.store.conn

        class Timed:
            def execute(self, sql, *args):
                c0 = time.process_time()
                try:
                    return real.execute(sql, *args)
                finally:
                    spent = time.process_time() - c0
                    split.sql, split.statements = split.sql + spent, split.statements + 1
                    if sql == "COMMIT":
                        split.commit += spent

            def __getattr__(self, name):
                return getattr(real, name)
        self.real, self.store.conn = real, Timed()
        self.api = {name: fn for name, fn in vars(api).items() if callable(fn) and not isinstance(fn, type)
                    and getattr(fn, "__module__", "").startswith("engine")}
        for name, fn in self.api.items():
            def timed_call(*args, fn=fn, **kwargs):
                c0 = time.process_time()
                try:
                    return fn(*args, **kwargs)
                finally:
                    split.engine += time.process_time() - c0
            setattr(api, name, timed_call)
        return self

    def __exit__(self, *exc):
        from engine import api
        self.store.conn = self.real
        for name, fn in self.api.items():
            setattr(api, name, fn)


def split(b: Bench, n: int, floor: Path) -> None:
    """`n` mails of handle alone on SQLite, every other one timed whole and the others with their
    SQL and the engine's calls timed apart (`_Split`); the floor's move run before and after. What
    each part is of the floor's move says what the 1.5x target leaves the rest."""
    whole, parts = [], []
    floors = [timing.floor_round(floor, 200)]
    for i in range(n):
        raw = b.g.next_mail()
        if i % 2:
            with _Split(b.svc.store) as got:
                t = timing.timed(lambda raw=raw: b._handle(raw))
            parts.append((t.cpu, got.sql, got.commit, got.statements, got.engine))
        else:
            whole.append(timing.timed(lambda raw=raw: b._handle(raw)).cpu)
        if i % 30 == 29:
            b.send()
    floors.append(timing.floor_round(floor, 200))
    fl = statistics.median(f.cpu for f in floors)
    med = {name: statistics.median(p[k] for p in parts)
           for k, name in enumerate(("timed", "sql", "commit", "statements", "engine"))}
    h = statistics.median(whole)
    rest = h - med["sql"] - med["engine"]  # the split's own clock reads (its "timed") left out
    print(f"{n} mails of handle alone, half timed whole, half split (medians, CPU); the floor's move "
          f"{fl * 1e6:.0f} us ({', '.join(f'{f.cpu * 1e6:.0f}' for f in floors)})")
    print(f"  handle alone: {h * 1e6:.0f} us, {h / fl:.2f}x the floor (split: {med['timed'] * 1e6:.0f} us)")
    print(f"  its SQL: {med['sql'] * 1e6:.0f} us in {med['statements']:.0f} statements, {med['sql'] / fl:.2f}x; "
          f"of which the durable COMMIT {med['commit'] * 1e6:.0f} us")
    print(f"  the engine's calls: {med['engine'] * 1e6:.0f} us, {med['engine'] / fl:.2f}x")
    print(f"  the rest, handle alone less those (the service's own Python, the mail's parsing): "
          f"{rest * 1e6:.0f} us, {rest / fl:.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--per-round", type=int, default=20, help="mails of each kind a round")
    ap.add_argument("--batch", type=int, default=10, help="mails per group commit")
    ap.add_argument("--floor-moves", type=int, default=100,
                    help="the floor's moves a round (its set-up, a few ms, is shared out over them)")
    ap.add_argument("--floor", type=Path, default=timing.floor_path())
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="profile N answered mails instead")
    ap.add_argument("--kind", choices=("answered", "alone", "handle"), default="answered",
                    help="what --profile plays (handle: only `process.handle` profiled, as handle alone is timed)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="--profile's timer: wall (no system call a function) or cpu (one each: 40-50 %% system time)")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--dump", metavar="FILE", help="with --profile: the profile's stats written to FILE (pstats)")
    ap.add_argument("--split", type=int, default=0, metavar="N",
                    help="N mails of handle alone instead (SQLite), their SQL and the engine's calls timed apart")
    ap.add_argument("--postgres", action="store_true",
                    help="also answered on PostgreSQL (a cluster of its own), its server's CPU counted: "
                         "the ratio to SQLite's answered (target 1.5x)")
    args = ap.parse_args()
    if args.rounds < 7 and not (args.profile or args.split):
        ap.error("at least 7 rounds")
    log.configure("json", "warning")
    k = args.per_round
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as pg_home, \
            tempfile.TemporaryDirectory() as twin_home, contextlib.ExitStack() as stack:
        b = Bench(home)
        b.answered(20)  # warm: templates, caches, the store's pages
        b.grouped(10, args.batch)
        if args.profile:
            profile(b, args.profile, args.top, args.dump, args.kind, args.clock)
            return
        if args.split:
            split(b, args.split, args.floor)
            return
        replies: list[int] = []
        per_reply: list[float] = []  # each round's send CPU per reply
        unrendered: list[timing.Sample] = []  # each round's answered less its replies' rendering
        work = {
            "floor": lambda: timing.floor_round(args.floor, args.floor_moves),
            "alone": lambda: b.alone(k),
            "grouped": lambda: b.grouped(k, args.batch),
            "answered": lambda: b.answered(k, replies, per_reply=per_reply, unrendered=unrendered),
        }
        if args.postgres:
            sys.path.append(str(REPO / "tests"))
            from pgcluster import Cluster, _bin_dir
            cluster = Cluster(_bin_dir())
            stack.callback(cluster.stop)
            pg = Bench(pg_home, cluster.database())
            stack.callback(pg.svc.store.close)
            twin = Bench(twin_home)  # SQLite playing PostgreSQL's games, answer for answer
            pg.answered(20)
            twin.answered(20)
            server: list[float] = []
            beside: list[timing.Sample] = []
            work["pg"] = lambda: with_server(pg, twin, k, cluster, server, beside)
        created = file_creation(b.svc.settings.outbox_path)
        got = timing.rounds(work, args.rounds, 1)
        print(f"{args.rounds} rounds of {k} mails of each kind ({b.g.n - b.g.first} game(s) of 6 players); "
              f"per mail, the mean of a round; replies sent per answered mail: {sum(replies) / len(replies):.2f}")
        print(f"  a new file in the outbox folder (each .eml; the floor makes none): {created * 1e6:.0f} us CPU "
              f"before the rounds, {file_creation(b.svc.settings.outbox_path) * 1e6:.0f} after ({b.svc.settings.home})")
        print("  " + timing.report("floor's move (its own loop, in this process)", got["floor"], 1e6, " us"))
        print("  " + timing.report("handle alone (its own durable commit)", got["alone"], 1e6, " us"))
        print("  " + timing.report(f"handle, {args.batch} per group commit", got["grouped"], 1e6, " us"))
        print("  " + timing.report("answered: handle + its replies rendered and sent (.eml)", got["answered"],
                                   1e6, " us"))
        print(f"    of which a reply (send_due's CPU over the replies it sent): {timing.spread(per_reply, 1e6, ' us')}")
        print("  " + timing.ratio("handle alone / floor", got["alone"], got["floor"], target=1.5))
        print("  " + timing.ratio("handle grouped / floor", got["grouped"], got["floor"]))
        print("  " + timing.ratio("answered / floor", got["answered"], got["floor"], target=4.0))
        print("    " + timing.ratio("answered less its replies' rendering (context and templates) / floor",
                                    unrendered, got["floor"]))
        if args.postgres:
            print("  " + timing.report("answered on PostgreSQL, its server's CPU added", got["pg"], 1e6, " us"))
            print(f"    of which the server's: {timing.spread(server, 1e6, ' us')}")
            print("  " + timing.report("answered on SQLite, in turn with PostgreSQL's", beside, 1e6, " us"))
            print("  " + timing.ratio("answered, PostgreSQL with its server / SQLite (mail by mail in turn)",
                                      got["pg"], beside, target=1.5))


if __name__ == "__main__":
    main()

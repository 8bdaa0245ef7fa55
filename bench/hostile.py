"""Issue 27's attacks at full size, and what held: slow requests against the web face, one mail
fanned out to every player, uploads from one seat. tests/test_hostile_web.py (and the mail
side's tests) run the same attacks at a size the default run affords.

**Slow requests.** The web face is started as `pbem serve --http` starts it (uvicorn with
pbem/web/guard.py, in a process of its own; `--plain` starts uvicorn as it was before the
guard, for comparison). An attacker keeps `--slow` connections (1,100 by default) open, each
having sent the start of a request and never its end, from `--addresses` client addresses
(any 127.x address is this machine), opening a new one whenever the server closes one; a
player meanwhile asks for the game's public page every 0.2 s from 127.0.0.1. The server may
open `--files` files (1,024: what systemd gives a service unless told otherwise). Printed: the
connections the server held at once (at most, and at the end), how many it answered 503 at
once or closed at a deadline, the player's pages served and their median and p99 time, and
the server's CPU and the bytes it logged during the attack.

**Fan-out.** A six-player game whose press is allowed gets one mail with 100 `to: all` lines,
then one just under the 1 MB a mail may be, from a seat: printed, the press mails each queued.

**Uploads.** One seat's browser uploads a turn file of 64 KB (the most a file may be) as fast
as it can for `--seconds` through the seat's page: printed, the uploads stored and refused,
and the bytes kept.

    .venv/bin/python bench/hostile.py [--slow 1100] [--addresses 1] [--seconds 20] [--plain] [--files 1024]
"""
from __future__ import annotations

import argparse
import collections
import http.client
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pbem.base import log, settings as settings_mod  # noqa: E402
from pbem.core.service import open_service  # noqa: E402
from pbem.inbound.process import handle  # noqa: E402
from pbem.moderate import newgame  # noqa: E402
from pbem.outbound import links  # noqa: E402

PLAYERS = [(f"p{i}", f"p{i}@example.org") for i in range(6)]
SERVER = """
import sys, uvicorn
from pbem.base import settings
from pbem.core.service import open_service
from pbem.web import app, server
home, port, plain = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "plain"
cfg = settings.load(home)
web = app.create_app(lambda: open_service(settings=cfg))
svc = open_service(settings=cfg)
config = (uvicorn.Config(web, host="127.0.0.1", port=port, log_level="warning", access_log=False, server_header=False)
          if plain else server.config(web, "127.0.0.1", port, server.limits(svc)))
uvicorn.Server(config).run()
"""


def make_home(folder: Path) -> tuple[Path, str]:
    home = folder / "home"
    home.mkdir()
    (home / "pbem.toml").write_text('[http]\nurl = "http://127.0.0.1"\n')
    svc = open_service(settings=settings_mod.load(home))
    g = newgame.create(svc, {"game": {"name": "attacked", "address": "talisman@example.org", "press": "allowed"},
                             "players": [{"name": p, "email": e} for p, e in PLAYERS]})
    svc.store.close()
    return home, g


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# -- slow requests ---------------------------------------------------------------------------------

def slow_client(port: int, source: str) -> socket.socket | None:
    s = socket.socket()
    s.setblocking(False)
    try:
        s.bind((source, 0))
        s.connect_ex(("127.0.0.1", port))
    except OSError:
        s.close()
        return None
    return s


def page(port: int, path: str) -> float | None:
    """Seconds to get the page, or None if it failed (10 s at most)."""
    start = time.perf_counter()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", path)
        ok = conn.getresponse().status == 200
        conn.close()
    except OSError:
        return None
    return time.perf_counter() - start if ok else None


def slow_attack(home: Path, g: str, n: int, addresses: int, seconds: float, plain: bool, files: int) -> None:
    import resource
    import selectors
    port = free_port()
    err = open(home / "server.log", "wb")
    limit = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (files, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))  # noqa: E731
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(home), str(port), "plain" if plain else "guarded"],
                            stderr=err, stdout=subprocess.DEVNULL, cwd=REPO, preexec_fn=limit)
    try:
        while page(port, "/") is None:
            time.sleep(0.2)
        sources = [f"127.0.{2 + i // 250}.{1 + i % 250}" for i in range(addresses)]
        sel = selectors.DefaultSelector()
        opened = refused = timed_out = 0
        held_max = 0
        open_now: dict[socket.socket, float] = {}  # socket -> when it sent its partial request (0: not yet)
        latencies, failed = [], 0
        cpu0, log0, start = cpu_seconds(proc.pid), (home / "server.log").stat().st_size, time.monotonic()
        next_page = start
        while time.monotonic() - start < seconds:
            while len(open_now) < n:  # keep n attack connections
                s = slow_client(port, sources[opened % len(sources)])
                if s is None:
                    break
                opened += 1
                open_now[s] = 0.0
                sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE)
            for key, events in sel.select(timeout=0.05):
                s = key.fileobj
                assert isinstance(s, socket.socket)
                if events & selectors.EVENT_WRITE and not open_now[s]:
                    try:
                        s.send(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                    except OSError:
                        pass
                    open_now[s] = time.monotonic()
                    sel.modify(s, selectors.EVENT_READ)
                if events & selectors.EVENT_READ:
                    try:
                        data = s.recv(4096)
                    except OSError:
                        data = b""
                    refused += data.startswith(b"HTTP/1.1 503")
                    timed_out += data.startswith(b"HTTP/1.1 408")
                    sel.unregister(s)
                    s.close()
                    del open_now[s]
            now = time.monotonic()  # held: sent its start over a second ago and not answered
            held = sum(1 for t in open_now.values() if t and now - t > 1)
            held_max = max(held_max, held)
            if time.monotonic() >= next_page:
                took = page(port, f"/g/{g}")
                failed += took is None
                if took is not None:
                    latencies.append(took)
                next_page = time.monotonic() + 0.2
        wall = time.monotonic() - start
        cpu = cpu_seconds(proc.pid) - cpu0
        logged = (home / "server.log").stat().st_size - log0
        for s in list(open_now):
            s.close()
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:  # uvicorn waits for its connections: the attacker's may hang it
            proc.kill()
            proc.wait()
        err.close()
    text = (home / "server.log").read_bytes()[log0:].decode(errors="replace")
    kinds = collections.Counter(ln[:100] for ln in text.splitlines() if ln and not ln.startswith((" ", "Traceback")))
    served = len(latencies)
    lat = sorted(latencies)
    print(f"slow requests ({'uvicorn as before, no guard' if plain else 'the guard'}; the server may open {files} "
          f"files): {n} kept open from {addresses} address(es) for {wall:.0f} s")
    print(f"  attack connections opened {opened}; answered 503 at once {refused}; closed at a deadline (408) "
          f"{timed_out}; held by the server (unanswered over 1 s) at most {held_max}, at the end {held}")
    if served:
        print(f"  the player's pages: {served} served, {failed} failed; median {statistics.median(lat) * 1000:.0f} ms, "
              f"p99 {lat[min(served - 1, int(served * 0.99))] * 1000:.0f} ms")
    else:
        print(f"  the player's pages: none served, {failed} failed")
    print(f"  server: CPU {cpu:.1f} s over {wall:.0f} s wall; logged {logged / 1024:.1f} KB"
          + "".join(f"\n    {n} x {line}" for line, n in kinds.most_common(3)))


# -- fan-out ---------------------------------------------------------------------------------------

def fan_out(home: Path, g: str) -> None:
    svc = open_service(settings=settings_mod.load(home))
    sender = svc.store.player(g, "p0")
    tok = svc.token(sender)
    for label, lines in (("100 `to: all` lines", 100), ("a mail just under 1 MB", None)):
        body = "\n".join(["to: all", "hello"] * 100) if lines else ""
        if not lines:
            one = "to: all\nhello, everyone\n"
            body = one * ((1_000_000 - 400) // len(one))
        raw = (f"From: p0@example.org\nTo: talisman+{tok}@example.org\nSubject: [{g}] press\n"
               f"Message-ID: <fan-{lines}-{time.time_ns()}@example.org>\n\n{body}").encode()
        before = len(svc.store.query("SELECT id FROM outbox WHERE kind = 'press'"))
        c0, w0 = time.process_time(), time.perf_counter()
        result = handle(svc, raw, "mail")
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        queued = len(svc.store.query("SELECT id FROM outbox WHERE kind = 'press'")) - before
        print(f"fan-out, {label}: {queued} press mails queued ({len(raw) // 1024} KB in; {result.status}: "
              f"{result.outcome[:80]}); CPU {cpu * 1000:.0f} ms, wall {wall * 1000:.0f} ms")
    svc.store.close()


# -- uploads ---------------------------------------------------------------------------------------

def uploads(home: Path, g: str, seconds: float) -> None:
    from starlette.testclient import TestClient

    from pbem.web.app import create_app
    cfg = settings_mod.load(home)
    svc = open_service(settings=cfg)
    path = links.seat_path(svc, svc.store.player(g, "p1"))
    client = TestClient(create_app(lambda: open_service(settings=cfg)), base_url="http://127.0.0.1")
    body = b"answers = [\"no-such-answer\"]\n" + b"# " + b"x" * (64 * 1024 - 40) + b"\n"
    stored0 = svc.store.query("SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(raw)), 0) AS b FROM inbox")[0]
    sent = refused = 0
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        text = client.get(path).text
        form = {n: re.search(rf'name="{n}" value="([^"]*)"', text).group(1) for n in ("csrf", "prompt", "form")}
        r = client.post(path, data={**form, "action": "upload"}, files={"turnfile": ("turn.toml", body)})
        sent += 1
        refused += r.status_code in (409, 429)
    wall = time.monotonic() - start
    stored = svc.store.query("SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(raw)), 0) AS b FROM inbox")[0]
    n, b = stored["n"] - stored0["n"], stored["b"] - stored0["b"]
    print(f"uploads from one seat: {sent} sent in {wall:.0f} s ({sent * 60 / wall:.0f} a minute, "
          f"{sent * len(body) * 60 / wall / 1e6:.0f} MB a minute offered); {n} stored ({b / 1e6:.1f} MB), "
          f"{refused} refused before storing")
    svc.store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slow", type=int, default=1100, help="slow connections the attacker keeps open")
    ap.add_argument("--addresses", type=int, default=1, help="client addresses they come from")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--plain", action="store_true", help="uvicorn as it was before the guard")
    ap.add_argument("--files", type=int, default=1024, help="the server's limit on open files (systemd's default)")
    ap.add_argument("--only", choices=("slow", "fanout", "uploads"))
    args = ap.parse_args()
    log.configure("json", "error")
    with tempfile.TemporaryDirectory() as tmp:
        home, g = make_home(Path(tmp))
        if args.only in (None, "slow"):
            slow_attack(home, g, args.slow, args.addresses, args.seconds, args.plain, args.files)
        if args.only in (None, "fanout"):
            fan_out(home, g)
        if args.only in (None, "uploads"):
            uploads(home, g, args.seconds)


if __name__ == "__main__":
    main()

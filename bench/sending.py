"""Sending: per mail, the MIME build and serialisation (pbem/outbound/mime.py, written directly) against
the rendering of the templates it carries, and SMTP throughput to a real local server.

A six-player game is played by mail until `--mails` reports wait in the outbox. Then, in
the order `send_due` takes them, each mail is rendered (outbox.rendered: its templates and
fragments, the fragment cache warm as in a sending round), written as bytes (outbox.wire on
the rendered row: the token filled in, the MIME written; nothing rendered again), and, for
comparison, built and serialised the way it was before (email.message.EmailMessage, then
bytes()). Each in CPU time, mail by mail in rounds of `--per-round` mails: the ratio of a
round is MIME / rendering, medians and spread over the rounds. Target: MIME <= 1x rendering.

Then the same mails go to a real SMTP server in its own process (aiosmtpd's command line,
a sink, on 127.0.0.1) through `sending.send_due`: mails per second (wall) and this process's
CPU per mail, over `--smtp-rounds` rounds.

    .venv/bin/python bench/sending.py [--mails 300] [--per-round 20] [--smtp-rounds 3]
"""
from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import socket
import subprocess
import sys
import tempfile
import time
from email.message import EmailMessage
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import timing
from pipeline import Games

from pbem.base import log, settings as settings_mod
from pbem.core.service import open_service
from pbem.inbound.process import handle
from pbem.outbound import outbox, sending


def stdlib_bytes(svc, row: dict) -> bytes:
    """The mail as it was built before pbem/outbound/mime.py: an EmailMessage, then bytes()."""
    msg = EmailMessage()
    for name, value in json.loads(row["headers"]).items():
        msg[name] = value
    msg.set_content(row["text"])
    if row["html"]:
        msg.add_alternative(row["html"], subtype="html")
    return bytes(msg)


def queue(svc, mails: int) -> list[dict]:
    g = Games(svc)
    while svc.store._one("SELECT COUNT(*) AS n FROM outbox WHERE status = 'queued'")["n"] < mails:
        assert handle(svc, g.next_mail()).status == "applied"
    return list(itertools.islice(svc.store.outbox_due(), mails))


def per_mail(svc, rows: list[dict], per_round: int) -> None:
    render, mime, stdlib, ratios, old_ratios = [], [], [], [], []
    for start in range(0, len(rows) - per_round + 1, per_round):
        r_round, m_round, s_round = [], [], []
        for row in rows[start:start + per_round]:
            done: dict = {}
            r_round.append(timing.timed(lambda row=row, done=done: done.setdefault("row", outbox.rendered(svc, row))))
            m_round.append(timing.timed(lambda done=done: outbox.wire(svc, done["row"])))
            s_round.append(timing.timed(lambda done=done: stdlib_bytes(svc, done["row"])))
        med = lambda xs: sorted(x.cpu for x in xs)[len(xs) // 2]
        render.append(med(r_round))
        mime.append(med(m_round))
        stdlib.append(med(s_round))
        ratios.append(med(m_round) / med(r_round))
        old_ratios.append(med(s_round) / med(r_round))
    print(f"per mail, CPU, {len(rows)} mails in rounds of {per_round}:")
    print(f"  rendering (templates, fragment cache warm): {timing.spread(render, 1e6, ' us')}")
    print(f"  MIME written directly (pbem/outbound/mime.py) and its bytes: {timing.spread(mime, 1e6, ' us')}")
    print(f"  EmailMessage built and serialised (before): {timing.spread(stdlib, 1e6, ' us')}")
    verdict = "met" if max(ratios) <= 1 else "met at the median" if sorted(ratios)[len(ratios) // 2] <= 1 else "NOT met"
    print(f"  MIME / rendering: {timing.spread(ratios, 1, 'x', 2)}; target <= 1x: {verdict}")
    print(f"  EmailMessage / rendering (before): {timing.spread(old_ratios, 1, 'x', 2)}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def smtp(svc, rows: list[dict], n_rounds: int) -> None:
    port = free_port()
    server = subprocess.Popen([str(Path(sys.executable).with_name("aiosmtpd")), "-n", "-l", f"127.0.0.1:{port}",
                               "-c", "aiosmtpd.handlers.Sink"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), 0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        svc.settings.smtp = settings_mod.SmtpSettings(host="127.0.0.1", port=port, starttls=False, timeout=10)
        ids = [r["id"] for r in rows]
        for id in ids:
            outbox.mail(svc, id)  # rendered once, kept on the row: a round is sending only
        per_second, cpu = [], []
        for _ in range(n_rounds):
            with svc.store.transaction():  # the same mails again: due, unclaimed; the others not
                svc.store.db.conn.execute("UPDATE outbox SET status = 'failed' WHERE status = 'queued'")
                svc.store.db.conn.execute(
                    f"UPDATE outbox SET status = 'queued', claimed_by = NULL, claim_until = NULL, "
                    f"next_attempt_at = created_at WHERE id IN ({', '.join('?' * len(ids))})", ids)
            got = {}
            sample = timing.timed(lambda got=got: got.setdefault("n", asyncio.run(sending.send_due(svc))))
            per_second.append(got["n"] / sample.wall)
            cpu.append(sample.cpu / got["n"])
        print(f"SMTP to aiosmtpd (its own process, 127.0.0.1, one connection a round): {len(rows)} mails a round, "
              f"{timing.spread(per_second, 1, ' mails/s')} wall; this process's CPU per mail "
              f"{timing.spread(cpu, 1e3, ' ms', 2)} (rendered once: the rows keep their text)")
    finally:
        server.terminate()
        server.wait(10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mails", type=int, default=300)
    ap.add_argument("--per-round", type=int, default=20)
    ap.add_argument("--smtp-rounds", type=int, default=3)
    args = ap.parse_args()
    log.configure("json", "warning")
    with tempfile.TemporaryDirectory() as home:
        svc = open_service(settings=settings_mod.Settings(home=home, mails_per_hour=timing.UNLIMITED))
        rows = queue(svc, args.mails)
        per_mail(svc, rows, args.per_round)
        smtp(svc, rows, args.smtp_rounds)


if __name__ == "__main__":
    main()

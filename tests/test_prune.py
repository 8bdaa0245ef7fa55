"""`pbem prune` (issue 26): the mail a long season piles up is forgotten once no game needs it,
and every game stays what it was: its log verifies, its archive re-runs, a resend still goes,
a redelivered message is still known. On both stores."""
from __future__ import annotations

import asyncio
import functools
from datetime import timedelta

import pytest
from bymail import play_by_mail
from click.testing import CliRunner
from conftest import game_config

from pbem.archive import archive, verify
from pbem.cli import main
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame, prune
from pbem.outbound import outbox, sending

PLAYERS = [("alice", "alice@example.org"), ("bob", "bob@example.org"), ("carol", "carol@example.org")]


@pytest.fixture
def make_service(make_service, db_setting):
    return functools.partial(make_service, **db_setting)


def played(svc, moves: int, name: str = "autumn") -> str:
    """A game by mail on the real engine, every mail sent as it is queued (the outbox folder),
    then one more answer whose mails stay queued."""
    g = newgame.create(svc, game_config(name=name, seed=f"{name}-prune-seed-0001", players=PLAYERS))
    steps = play_by_mail(svc, g, seed=7, moves=moves + 1)
    for _ in range(moves):
        next(steps)
        asyncio.run(sending.send_due(svc))
    next(steps)  # its mails wait
    return g


def raw_of(svc) -> dict[int, bytes]:
    return {r["id"]: bytes(r["raw"]) for r in svc.store.query("SELECT id, raw FROM inbox")}


def test_prune_forgets_what_no_game_needs_and_the_game_stays_verifiable(make_service):
    svc = make_service()
    g = played(svc, 30)
    raws = raw_of(svc)
    rows_before = svc.store.outbox_rows()
    queued = [r for r in rows_before if r["status"] == "queued"]
    assert queued and any(r["status"] == "sent" for r in rows_before)
    emls = set(svc.settings.outbox_path.glob("*.eml"))
    chain_before = [m["hash"] for m in svc.store.moves(g)]

    done = prune.prune(svc)

    assert done.messages == len(raws) and done.message_bytes == sum(map(len, raws.values()))
    assert all(raw == b"" for raw in raw_of(svc).values())
    assert [r["id"] for r in svc.store.inbox_rows()] == sorted(raws)  # every row stays
    rows = {r["id"]: svc.store.outbox_mail(r["id"]) for r in svc.store.outbox_rows()}
    assert len(rows) == len(rows_before)
    kept = {max(r["id"] for r in rows.values() if r["player"] == p and r["kind"] in svc.store.RESENT)
            for p in ("alice", "bob", "carol")}
    for r in rows.values():
        if r["status"] == "queued":  # not sent yet: whole, and it still renders (its frame is kept)
            assert r["context"] is not None and "Turn" in outbox.mail(svc, r["id"])["text"]
        elif r["id"] in kept:
            assert r["text"]
        else:
            assert r["text"] == "" and r["html"] is None and r["context"] is None
    assert done.mails == sum(1 for r in rows.values() if r["status"] == "sent" and r["id"] not in kept)
    assert done.mail_chars > 10 * done.mails
    left = set(svc.settings.outbox_path.glob("*.eml"))
    assert left == {svc.settings.outbox_path / sending.eml_name(i) for i in kept if rows[i]["status"] == "sent"}
    assert done.files == len(emls - left) > 0
    # the game is as it was
    assert svc.store.verify_chain(g) == [] and [m["hash"] for m in svc.store.moves(g)] == chain_before
    assert verify.verify(archive.export(svc, g)).ok
    moderator.resend(svc, g, "bob")  # the last report is kept for it
    [resent] = [r for r in svc.store.outbox_rows() if r["kind"] == "resend"]
    last = max(k for k in kept if rows[k]["player"] == "bob")
    assert outbox.mail(svc, resent["id"])["text"] == outbox.mail(svc, last)["text"] != ""
    first = svc.store.query("SELECT message_id FROM inbox ORDER BY id LIMIT 1")[0]["message_id"]
    again = f"From: alice@example.org\nTo: talisman@example.org\nMessage-ID: {first}\n\nhello\n".encode()
    assert handle(svc, again).status == "duplicate"  # still known by its Message-ID
    # ended, then pruned of its finished games: every body of it goes, and its archive re-runs from the seed
    moderator.end(svc, g)
    asyncio.run(sending.send_due(svc))
    svc.clock.t += timedelta(seconds=5)  # what the pruning before and after may share: one second of clock
    again = prune.prune(svc, finished=True)
    assert again.mails > 0 and all(r["text"] == "" for r in map(svc.store.outbox_mail,
                                                                  (r["id"] for r in svc.store.outbox_rows()))
                                   if r["status"] == "sent")
    verdict = verify.verify(archive.export(svc, g))
    assert verdict.ok and verdict.rerun and verdict.moves == len(chain_before)


def test_before_and_finished_keep_the_rest(make_service):
    svc = make_service()
    a = played(svc, 6, "autumn")
    cut = svc.now()
    svc.clock.t += timedelta(days=2)
    w = played(svc, 6, "winter")
    moderator.end(svc, a)
    asyncio.run(sending.send_due(svc))
    assert prune.prune(svc, cut - timedelta(days=30)).messages == 0  # nothing that old
    done = prune.prune(svc, cut + timedelta(seconds=1))
    newer = svc.store.query("SELECT game, raw FROM inbox WHERE game = ?", (w,))
    assert done.messages > 0 and all(bytes(r["raw"]) for r in newer)  # winter's came after the cut
    svc.clock.t += timedelta(seconds=5)
    done = prune.prune(svc, finished=True)
    assert all(bytes(r["raw"]) for r in svc.store.query("SELECT raw FROM inbox WHERE game = ?", (w,)))
    assert all(r["text"] or r["status"] != "sent" for r in map(svc.store.outbox_mail, (
        r["id"] for r in svc.store.outbox_rows() if r["game"] == w)))
    assert not [r for r in svc.store.outbox_rows() if r["game"] == a and r["status"] == "sent"
                and svc.store.outbox_mail(r["id"])["text"]]


def test_pbem_prune_prints_its_figures_and_the_store_shrinks(tmp_path):
    home = tmp_path / "var"

    def run(*args, code=0):
        result = CliRunner().invoke(main, ["--home", str(home), *map(str, args)])
        assert result.exit_code == code, (result.output, result.exception)
        return result.stdout

    run("init")
    from pbem.core.service import open_service
    svc = open_service(home)
    played(svc, 25)
    svc.store.close()
    out = run("prune", "--before", "1d")  # a day ago: nothing
    assert out.startswith("0 message(s) received: 0 bytes of raw mail forgotten\n0 mail(s) sent")
    out = run("prune")
    assert "message(s) received" in out and "KB of bodies forgotten" in out
    unit = {"bytes": 1, "KB": 1024, "MB": 1024 ** 2}
    sizes = __import__("re").search(r"the store: ([\d.,]+) (bytes|KB|MB) -> ([\d.,]+) (bytes|KB|MB)", out).groups()
    before, after = (float(n.replace(",", "")) * unit[u] for n, u in (sizes[:2], sizes[2:]))
    assert after < before
    assert "neither a date" in CliRunner().invoke(main, ["--home", str(home), "prune", "--before", "soon"]).output
    run("log", "autumn")  # the log reads as before, and the archive verifies
    run("export", "autumn", "-o", tmp_path / "autumn.json")
    assert "autumn.json: ok (26 moves, hash chain)" in run("verify", tmp_path / "autumn.json")

"""No token in clear at rest (issue 21: 6) and weak seeds (11). A backup of the store, or of
the drop folder and Maildir, must hold no credential: every stored form is masked, decoded
base64 and quoted-printable parts included, and a seed a moderator chose too short is never
used as a mask pattern. On both stores: SQLite (every byte of its files), and a real
PostgreSQL (every value of every row)."""
import base64
import functools
import mailbox
import quopri

import pytest
from conftest import game_config, legal, mail, token, turn_file

from pbem.base import log
from pbem.inbound.process import handle
from pbem.moderate import newgame
from pbem.sources import dropfolder, maildir


@pytest.fixture
def make_service(make_service, db_setting):
    return functools.partial(make_service, **db_setting)


def dump(svc) -> bytes:
    """Every byte the database files hold (the main file and its write-ahead log); on
    PostgreSQL, every value of every row."""
    if svc.store.dialect == "postgresql":
        from pbem.store.copy import TABLES
        return b"\n".join(v if isinstance(v, bytes) else str(v).encode() for t, _ in TABLES
                          for row in svc.store.query(f"SELECT * FROM {t}") for v in row.values())
    svc.store.db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    out = b""
    for path in svc.settings.db_path.parent.glob(svc.settings.db_path.name + "*"):
        out += path.read_bytes()
    return out


def every_form(data: bytes) -> bytes:
    """The bytes, plus every base64 and quoted-printable part of them decoded."""
    import email
    from email.policy import compat32
    out = [data]
    try:
        for part in email.message_from_bytes(data, policy=compat32).walk():
            if not part.is_multipart():
                out.append(part.get_payload(decode=True) or b"")
    except Exception:  # noqa: BLE001
        pass
    return b"\n".join(out)


def quoting_welcome(sender, tok, answer, cte) -> bytes:
    """A reply whose body quotes the welcome mail, encoded as Gmail and Apple Mail do."""
    body = f"{answer}\n\n> Your token: {tok}\n> token: {tok}\n".encode()
    encoded = base64.encodebytes(body) if cte == "base64" else quopri.encodestring(body)
    return (f"From: {sender}\nTo: talisman+{tok}@example.org\nSubject: Re: [autumn] Turn 1\n"
            f"Message-ID: <q-{cte}@x>\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
            f"Content-Transfer-Encoding: {cte}\n\n").encode() + encoded


@pytest.mark.parametrize("cte", ["base64", "quoted-printable"])
def test_a_token_inside_an_encoded_body_is_masked_at_rest(fake_svc, fake_game, cte):
    player, line = legal(fake_svc, fake_game)
    tok = token(fake_svc, fake_game, player)
    result = handle(fake_svc, quoting_welcome(f"{player}@example.org", tok, line, cte))
    assert result.status == "applied", result.outcome
    stored = fake_svc.store.inbox(result.inbox_id)["raw"]
    assert tok.encode() not in every_form(stored)
    assert tok.encode() not in dump(fake_svc)


def test_unreadable_refused_second_token_and_failed_messages_keep_no_token(fake_svc, fake_game):
    toks = {n: token(fake_svc, fake_game, n) for n in ("alice", "bob")}
    player, line = legal(fake_svc, fake_game)
    other = "bob" if player == "alice" else "alice"
    handle(fake_svc, b"From: x@y\nContent-Type: multipart/mixed; boundary=\"\n\ntoken: " + toks["alice"].encode())
    handle(fake_svc, mail(["left", f"token: {toks['bob']}"], sender="stranger@example.net"))  # refused
    handle(fake_svc, mail([line, f"token: {toks[other]}"], sender=f"{player}@example.org", tok=toks[player]))  # two
    folder = dropfolder.ensure(fake_svc.settings.inbox_path)
    dropfolder.drop(folder, "t.toml", turn_file(fake_game, other, toks[other], ["no such answer!"]))
    dropfolder.poll(fake_svc, folder)
    data = dump(fake_svc)
    for tok in toks.values():
        assert tok.encode() not in data
    for kept in (folder / "cur").iterdir():  # the drop folder's copies likewise
        assert not any(tok.encode() in every_form(kept.read_bytes()) for tok in toks.values())


def test_a_retried_message_still_opens_its_seat_by_the_stored_token_hash(fake_svc, fake_game, monkeypatch):
    """The stored message is masked; what authenticated it is kept as sha256(token), so a
    message processed later (after a failure) still finds its seat."""
    from pbem.inbound import process
    player, line = legal(fake_svc, fake_game)
    tok = token(fake_svc, fake_game, player)
    monkeypatch.setattr(process, "apply_order", lambda *a, **k: 1 / 0)
    first = handle(fake_svc, mail([line], sender=f"{player}@example.org", tok=tok))
    assert first.status == "error"
    monkeypatch.undo()
    assert tok.encode() not in fake_svc.store.inbox(first.inbox_id)["raw"]
    [again] = process.retry_pending(fake_svc)
    assert again.status == "applied" and again.player == player


def test_maildir_cur_copies_hold_no_token(fake_svc, fake_game, tmp_path):
    player, line = legal(fake_svc, fake_game)
    tok = token(fake_svc, fake_game, player)
    mailbox.Maildir(str(tmp_path / "Maildir"), create=True).add(
        quoting_welcome(f"{player}@example.org", tok, line, "base64"))
    [result] = maildir.poll(fake_svc, tmp_path / "Maildir")
    assert result.status == "applied"
    [kept] = (tmp_path / "Maildir" / "cur").iterdir()
    assert tok.encode() not in every_form(kept.read_bytes())
    assert b"<q-base64@x>" in kept.read_bytes()  # still the same mail, known by its Message-ID


def test_a_weak_seed_is_warned_about_and_never_a_mask_pattern(fake_svc, capsys):
    """Issue 21 (11): a short seed the moderator chose was masked as [secret] inside every
    line holding its letters, garbling errors and showing where the seed is."""
    newgame.create(fake_svc, game_config(name="weak", seed="ab"))
    assert "weak seed" in capsys.readouterr().err
    assert log.scrub("a cab with a table") == "a cab with a table"
    strong = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
    newgame.create(fake_svc, game_config(name="strong", seed=strong))
    assert log.scrub(f"x {strong} y") == "x [secret] y"


def test_the_masked_store_keeps_message_ids_for_threads(fake_svc, fake_game):
    hexy = "<0123456789abcdef0123@mail.example.org>"
    result = handle(fake_svc, mail(["hello"], sender="someone@example.net", message_id=hexy))
    assert hexy.encode() in fake_svc.store.inbox(result.inbox_id)["raw"]
    assert fake_svc.store.query("SELECT message_id FROM inbox WHERE id = ?", (result.inbox_id,
                                                                              ))[0]["message_id"] == hexy


def test_messages_stored_before_the_masking_are_masked_by_its_migration(tmp_path):
    """A home from before migration 9 holds tokens in clear (refused mail, encoded parts):
    migrating masks them."""
    from pbem.store import open_store
    store = open_store(tmp_path / "old.db")
    tok = "0123456789abcdef0123"
    store.db.execute("DELETE FROM schema_migrations WHERE version = 9")
    with store.transaction():
        store.db.execute("INSERT INTO inbox (received_at, source, kind, raw, content_hash, status, attempts) "
                         "VALUES ('t', 'stdin', 'mail', ?, 'h', 'processed', 0)",
                         (quoting_welcome("a@b", tok, "left", "base64"),))
    for stmt in ("DROP INDEX outbox_to", "ALTER TABLE outbox DROP COLUMN claim_until",
                 "ALTER TABLE outbox DROP COLUMN claimed_by", "ALTER TABLE inbox DROP COLUMN token_hash"):
        store.db.execute(stmt)
    assert store.migrate() == [9]
    [row] = store._all("SELECT raw FROM inbox")
    assert tok.encode() not in every_form(row["raw"])


def test_a_seat_token_in_a_message_id_is_masked_there_too(fake_svc, fake_game):
    """Found by the fuzz test: id headers are kept for threads, but a run in them that is a
    seat's token is masked, in the stored message and in its message_id column."""
    tok = token(fake_svc, fake_game, "bob")
    result = handle(fake_svc, mail(["left"], sender="x@example.net", message_id=f"<talisman+{tok}@x>"))
    row = fake_svc.store.inbox(result.inbox_id)
    assert tok.encode() not in row["raw"] and tok not in row["message_id"]
    assert tok.encode() not in dump(fake_svc)

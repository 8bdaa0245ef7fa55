"""Processing a message: apply, receipt, error reply, CHECK, strangers, duplicates, tokens,
odd inputs (NUL and other control characters, bytes that are not UTF-8) -- on both stores:
SQLite, and PostgreSQL behind the `postgres` marker (tests/pgcluster.py `either_store`)."""
import functools
import io
import json
import os

import fake_engine
import pytest
from conftest import game_config, legal, mail, token, turn_file

from pbem.base import log
from pbem.core import games
from pbem.inbound import mail as mail_mod
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame
from pbem.outbound import notices, outbox
from pbem.sources import dropfolder, pipe
from pbem.store.copy import TABLES


@pytest.fixture
def make_service(make_service, either_store):
    return functools.partial(make_service, **either_store)


def mails(svc, since=0):
    """The outbox as it would be sent: (row, text of the whole .eml)."""
    return [(r, bytes(outbox.build(svc, outbox.mail(svc, r["id"]))).decode())
            for r in svc.store.outbox_rows() if r["id"] > since]


def last_id(svc):
    rows = svc.store.outbox_rows()
    return rows[-1]["id"] if rows else 0


def test_new_game_welcomes_each_player_with_their_token(svc, game):
    sent = mails(svc)
    welcomes = [(r, m) for r, m in sent if r["kind"] == "welcome"]
    assert len(welcomes) == 2
    for r, m in welcomes:
        assert f"token: {token(svc, game, r['player'])}" in m
    assert {r["kind"] for r, _ in sent} == {"welcome", "report"}


def test_a_legal_answer_is_applied_logged_and_reported(svc, game):
    player, line = legal(svc, game)
    since = last_id(svc)
    result = handle(svc, mail([line], sender=f"{player}@example.org", tok=token(svc, game, player)))
    assert result.status == "applied", result.outcome
    log_ = svc.store.moves(game)
    assert [m["line"] for m in log_] == [f"{player}: {line}"]
    assert log_[0]["actor"] == player and log_[0]["message_id"].startswith("<m")
    g = games.get(svc, game)
    assert g["moves"] == 1 and svc.engine.state_hash(games.state(svc, g)) == log_[0]["state_hash"]
    sent = mails(svc, since)
    kinds = {r["player"]: r["kind"] for r, _ in sent}
    assert kinds == {player: "receipt"}  # mid-turn: the other player is not asked (tests/test_turnmail.py)
    receipt = next(m for r, m in sent if r["kind"] == "receipt")
    assert f"Applied:\n  {player}: {line}" in receipt  # echoed in canonical form
    assert "In-Reply-To: <m" in receipt and "Auto-Submitted: auto-replied" in receipt  # RFC 3834: a reply
    assert all("Subject: [autumn] Turn" in m for _, m in sent)


def test_a_line_that_does_not_fit_is_quoted_with_reason_and_options(svc, game):
    player, line = legal(svc, game)
    since = last_id(svc)
    result = handle(svc, mail(["xyzzy", line], sender=f"{player}@example.org", tok=token(svc, game, player)))
    assert result.status == "rejected" and svc.store.moves(game) == []
    [(row, text)] = mails(svc, since)
    assert row["kind"] == "error" and row["player"] == player
    assert "> xyzzy" in text and "Open now:" in text
    assert f"> {line}" in text  # the line not used is listed
    key = line.split(": ")[1]
    assert key in text.split("Open now:")[1].splitlines()[0]


def test_stop_at_a_bad_line_keeps_what_was_applied(svc, game):
    player, line = legal(svc, game)
    since = last_id(svc)
    result = handle(svc, mail([line, "no-such-option"], sender=f"{player}@example.org", tok=token(svc, game, player)))
    assert result.status == "partial"
    assert len(svc.store.moves(game)) == 1
    error = next(m for r, m in mails(svc, since) if r["kind"] == "error")
    assert "Applied:" in error and "> no-such-option" in error


def test_check_applies_nothing_and_reveals_no_dice(svc, game):
    player, line = legal(svc, game)
    before = games.get(svc, game)["state"]
    since = last_id(svc)
    result = handle(svc, mail([line, "fight"], sender=f"{player}@example.org", tok=token(svc, game, player),
                              subject="CHECK [autumn]"))
    assert result.status == "checked"
    assert svc.store.moves(game) == [] and games.get(svc, game)["state"] == before
    [(row, text)] = mails(svc, since)
    assert row["player"] == player and "CHECK: nothing was applied" in text
    assert f"{player}: {line}   would be applied now" in text
    assert "Since your last report" not in text  # a trial's events (its dice) are not shown


def test_turn_file_needs_the_token_only(svc, game):
    player, line = legal(svc, game)
    result = handle(svc, turn_file(game, player, token(svc, game, player), [line]), "turn",
                    source="submit", filename="turn.toml")
    assert result.status == "applied" and len(svc.store.moves(game)) == 1


@pytest.mark.parametrize("case", ["wrong token", "unknown game", "spoofed sender", "no token", "other's token"])
def test_strangers_get_nothing_applied_and_learn_nothing(svc, game, case):
    player, line = legal(svc, game)
    other = "bob" if player == "alice" else "alice"
    tok, sender, name = token(svc, game, player), f"{player}@example.org", game
    if case == "wrong token":
        tok = "0" * 20
    elif case == "unknown game":
        name = "no-such-game"
    elif case == "spoofed sender":
        sender = "mallory@evil.example"
    elif case == "no token":
        tok = None
    elif case == "other's token":
        tok = token(svc, game, other)
    since = last_id(svc)
    result = handle(svc, mail([line], sender=sender, tok=tok, game=name))
    assert result.status == "refused" and result.refused
    assert svc.store.moves(game) == []
    row = svc.store.inbox(result.inbox_id)
    assert row["status"] == "processed" and row["outcome"].startswith("refused")
    [(reply, text)] = mails(svc, since)
    assert reply["kind"] == "stranger" and reply["to_addr"] == sender
    body = text.split("\n\n", 1)[1]
    for secret in ("alice", "bob", game, "Turn", tok or "0" * 20):
        assert secret not in body
    assert "\nReply-To:" not in text


def test_automatic_mail_gets_no_reply(svc, game):
    since = last_id(svc)
    result = handle(svc, mail(["left"], sender="mailer-daemon@example.org", headers={"Auto-Submitted": "auto-replied"}))
    assert result.status == "ignored" and mails(svc, since) == []


def test_duplicates_are_not_applied_twice(svc, game):
    player, line = legal(svc, game)
    raw = mail([line], sender=f"{player}@example.org", tok=token(svc, game, player), message_id="<once@example.org>")
    first = handle(svc, raw)
    since = last_id(svc)
    again = handle(svc, raw)
    resent = handle(svc, raw.replace(b"Turn 1", b"Turn one"))  # same Message-ID, other bytes
    assert first.status == "applied" and again.status == resent.status == "duplicate"
    assert len(svc.store.moves(game)) == 1 and mails(svc, since) == []
    assert len(svc.store.inbox_rows()) == 1


def test_tokens_appear_only_in_welcomes_and_own_reply_to(svc, game):
    stream = io.StringIO()
    log.configure("json", stream=stream)
    try:
        for _ in range(4):
            player, line = legal(svc, game)
            handle(svc, mail([line, "bogus"], sender=f"{player}@example.org", tok=token(svc, game, player)))
        handle(svc, mail(["left"], sender="alice@example.org", tok=token(svc, game, "alice"), subject="CHECK"))
        handle(svc, mail(["left"], sender="mallory@evil.example", tok=token(svc, game, "bob")))
        moderator.resend(svc, game, "alice")
    finally:
        log.configure()
    toks = {n: token(svc, game, n) for n in ("alice", "bob")}
    for row, text in mails(svc):
        for name, tok in toks.items():
            if row["kind"] == "welcome" and row["player"] == name:
                continue
            if row["player"] == name:  # their own mails: the Reply-To only
                assert text.count(tok) == 1 and f"Reply-To: talisman+{tok}@example.org" in text
            else:
                assert tok not in text, (row, name)
    assert "alice" in stream.getvalue()  # there were logs...
    assert not any(t in stream.getvalue() for t in toks.values())  # ...without tokens
    assert not any(t.encode() in stored_bytes(svc) for t in toks.values())  # not stored in clear either


def stored_bytes(svc) -> bytes:
    """Everything the store holds: SQLite's file as it is on disk (freed pages too), else
    every row of every table."""
    if svc.settings.db_url is None:
        svc.store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return svc.settings.db_path.read_bytes() + b"".join(
            p.read_bytes() for p in svc.settings.db_path.parent.glob("pbem.db-*"))
    return "".join(repr(svc.store.query(f"SELECT * FROM {t}")) for t, _ in TABLES).encode()


def test_the_seed_stays_secret(svc, game):
    for _ in range(3):
        player, line = legal(svc, game)
        handle(svc, mail([line], sender=f"{player}@example.org", tok=token(svc, game, player)))
    everything = "".join(m for _, m in mails(svc))
    everything += json.dumps(games.to_builtins(svc.engine.view(games.state(svc, games.get(svc, game)), "alice")))
    assert "test-seed" not in everything
    assert "test-seed" not in json.dumps(svc.store.game(game)["config"])


def test_a_removed_seat_takes_no_orders(svc, game):
    player, line = legal(svc, game)
    moderator.remove_player(svc, game, player)
    result = handle(svc, mail([line], sender=f"{player}@example.org", tok=token(svc, game, player)))
    assert result.status == "refused" and svc.store.moves(game) == []


def test_replace_voids_the_old_token(svc, game):
    old = token(svc, game, "alice")
    moderator.replace_player(svc, game, "alice", "alice2@example.org")
    assert token(svc, game, "alice") != old
    refused = handle(svc, mail(["x"], sender="alice2@example.org", tok=old))
    assert refused.status == "refused"


def test_moderator_answer_adjudicate_and_rollback(svc, game):
    player, line = legal(svc, game)
    moderator.answer(svc, game, player, line)
    after_one = games.get(svc, game)["state"]
    player, line = legal(svc, game)
    moderator.answer(svc, game, player, line)
    played = moderator.rollback(svc, game, 1)
    assert played.applied == ["rollback 1"]
    g = games.get(svc, game)
    assert g["state"] == after_one and g["moves"] == 3
    log_ = svc.store.moves(game)
    assert [m["actor"] for m in log_] == ["moderator"] * 3 and log_[2]["kind"] == "rollback"
    assert games.encode(svc, games.state_at(svc, g, 3)) == after_one  # a replay honours the rollback
    assert svc.store.verify_chain(game) == []
    with pytest.raises(games.GameError):
        moderator.rollback(svc, game, 3)  # only to a move before the last


def test_adjudicate_is_a_logged_moderator_move(fake_svc, fake_game):
    played = moderator.adjudicate(fake_svc, fake_game, "alice gold +2")
    assert played.applied == ["moderator: adjudicate alice gold +2"]
    assert fake_svc.store.moves(fake_game)[0]["player"] == "moderator"


def test_long_games_snapshot_and_never_replay_from_the_start(fake_svc, monkeypatch):
    g = newgame.create(fake_svc, game_config(options={"turn_cap": 0}))
    fake_svc.store.SNAPSHOT_EVERY = 10
    for _i in range(25):
        player, line = legal(fake_svc, g)
        message = mail([line], sender=f"{player}@example.org", tok=token(fake_svc, g, player))
        assert handle(fake_svc, message).status == "applied"
    snaps = [r["seq"] for r in fake_svc.store.query("SELECT seq FROM snapshots WHERE game = ? ORDER BY seq", [g])]
    assert snaps == [0, 10, 20]
    calls = []
    real_apply = fake_svc.engine.apply
    methods = {k: getattr(fake_svc.engine, k) for k in dir(fake_svc.engine) if not k.startswith("__")}
    counted = staticmethod(lambda s, m, **kw: calls.append(m) or real_apply(s, m, **kw))
    monkeypatch.setattr(fake_svc, "engine", type("E", (), {**methods, "apply": counted}))
    state_23 = games.state_at(fake_svc, games.get(fake_svc, g), 23)
    assert len(calls) == 3  # from the snapshot at 20
    assert fake_svc.engine.state_hash(state_23) == fake_svc.store.moves(g, after=22, upto=23)[0]["state_hash"]


def test_player_text_is_escaped_in_html(fake_svc, fake_game):
    since = last_id(fake_svc)
    player, _ = legal(fake_svc, fake_game)
    handle(fake_svc, mail(["bogus <script>x</script>"], sender=f"{player}@example.org",
                          tok=token(fake_svc, fake_game, player)))
    row = outbox.mail(fake_svc, last_id(fake_svc))
    assert row["id"] > since and "<script>" not in row["html"] and "&lt;script&gt;" in row["html"]


def test_a_newline_in_a_name_cannot_inject_a_header():
    assert outbox.clean("x\r\nBcc: evil@example.org") == "x Bcc: evil@example.org"
    assert "\n" not in outbox.mailbox("eve\nBcc: a@b", "eve@example.org")


def test_a_game_waiting_for_the_moderator_tells_them(fake_svc, monkeypatch):
    g = newgame.create(fake_svc, game_config(moderator="mod@example.org"))
    player, line = legal(fake_svc, g)
    monkeypatch.setattr(fake_engine, "waiting_for", lambda state: ["moderator"])
    handle(fake_svc, mail([line], sender=f"{player}@example.org", tok=token(fake_svc, g, player)))
    assert notices.send_due(fake_svc) == 1  # the moderator's digest (pbem/outbound/notices.py)
    [(row, text)] = [(r, m) for r, m in mails(fake_svc) if r["to_addr"] == "mod@example.org"]
    assert row["player"] is None and "\nReply-To:" not in text
    assert "a card needs your ruling" in outbox.mail(fake_svc, row["id"])["text"]


def test_a_turn_file_is_one_message_by_its_upload_not_by_when_it_came(svc, game):
    """Issue 21 (1): the dedupe hash held how far the game had got, so a turn file read again
    after its commit (a crash before the move to cur/, `submit` retried after a kill) was
    applied again when its bare answer fit the next question. Now the same bytes under the
    same upload id are one message however far the game has got; a new upload is new."""
    player, line = legal(svc, game)
    raw = turn_file(game, player, token(svc, game, player), [line.split(": ", 1)[-1]])
    first = handle(svc, raw, "turn", filename="turn.toml", source="drop", upload_id="u1")
    assert first.status == "applied"
    moves = len(svc.store.moves(game))
    again = handle(svc, raw, "turn", filename="turn.toml", source="drop", upload_id="u1")  # the game moved on since
    assert again.status == "duplicate" and again.inbox_id == first.inbox_id
    assert len(svc.store.moves(game)) == moves
    later = handle(svc, raw, "turn", filename="turn.toml", source="drop", upload_id="u2")  # a new upload
    assert later.status != "duplicate" and later.inbox_id != first.inbox_id


def test_a_turn_file_ingested_again_after_a_kill_is_not_applied_twice(svc, game, tmp_path):
    """`pbem ingest FILE` / `submit` retried: the file's path and change time are its upload id."""
    from pbem.sources import files
    player, line = legal(svc, game)
    path = tmp_path / "turn.toml"
    path.write_bytes(turn_file(game, player, token(svc, game, player), [line.split(": ", 1)[-1]]))
    assert files.ingest(svc, path).status == "applied"
    moves = len(svc.store.moves(game))
    assert files.ingest(svc, path).status == "duplicate" and len(svc.store.moves(game)) == moves
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))  # written again: new
    assert files.ingest(svc, path).status != "duplicate"


@pytest.mark.parametrize("raw,want", [
    (b"Message-ID:\r\n <a@b>\r\nX: y\r\n\r\nbody", "<a@b>"),  # folded
    (b"Subject: x\nMessage-Id: <c@d>\n\nMessage-ID: <no@x>", "<c@d>"),  # any case; the body's is not a header
    (b"From: a\n\nMessage-ID: <body@x>", None),
    (b"X-Message-ID: <x@y>\nMessage-ID: <z@w>\n\n", "<z@w>"),
    (b"no header at all", None),
])
def test_message_id_is_read_from_the_header_only(raw, want):
    assert mail_mod.read(raw).id_header == want


# -- odd inputs, on both stores (issue 26: PostgreSQL refuses a NUL in a text, SQLite takes it) --

NUL_ID = "<n\x00ul@example.org>"


def with_header(raw: bytes, name: bytes, value: bytes) -> bytes:
    """`raw` with header `name` set to `value` as bytes (control characters and all)."""
    head, sep, body = raw.partition(b"\n\n")
    lines = [ln for ln in head.split(b"\n") if not ln.lower().startswith(name.lower() + b":")]
    return b"\n".join([*lines, name + b": " + value]) + sep + body


def test_a_nul_in_a_strangers_message_id_is_stored_answered_and_known_again(fake_svc, fake_game):
    """One mail with a NUL in its Message-ID, from anyone, was "try again later" forever on
    PostgreSQL (and blocked the drop folder and the pipe's spool behind it)."""
    raw = with_header(mail(["left"], sender="eve@example.net"), b"Message-ID", NUL_ID.encode())
    since = last_id(fake_svc)
    result = handle(fake_svc, raw)
    assert result.status == "refused"
    row = fake_svc.store.inbox(result.inbox_id)
    assert row["status"] == "processed" and row["message_id"] == "<n\u2400ul@example.org>"  # kept visible
    [(reply, _)] = mails(fake_svc, since)
    assert reply["kind"] == "stranger" and reply["to_addr"] == "eve@example.net"
    assert handle(fake_svc, raw).status == "duplicate"  # found again by its content
    assert handle(fake_svc, raw.replace(b"left", b"right")).status == "duplicate"  # and by its Message-ID
    assert len(fake_svc.store.inbox_rows()) == 1


def test_a_players_answer_with_a_nul_in_its_message_id_is_applied_and_chained(fake_svc, fake_game):
    player, line = legal(fake_svc, fake_game)
    raw = with_header(mail([line], sender=f"{player}@example.org", tok=token(fake_svc, fake_game, player)),
                      b"Message-ID", b"<a\x00\x01\x1b@x>")
    assert handle(fake_svc, raw).status == "applied"
    [move] = fake_svc.store.moves(fake_game)
    assert move["message_id"] == "<a\u2400\u2401\u241b@x>"
    assert fake_svc.store.verify_chain(fake_game) == []  # hashed as stored


@pytest.mark.parametrize("where", ["answer line", "bad line", "subject", "display name", "standing order", "press",
                                   "not utf-8"])
def test_control_characters_anywhere_in_a_players_mail_get_it_answered(fake_svc, fake_game, where):
    """A NUL carried into a stored text (a quoted line, an outcome, a standing order, a
    message to players) failed the message unanswered on PostgreSQL."""
    player, line = legal(fake_svc, fake_game)
    lines, raw_edit = [line], None
    if where == "answer line":
        lines = [line + "\x00"]
    elif where == "bad line":
        lines = [line, "xyz\x00zy\x1b[31m"]
    elif where == "subject":
        raw_edit = (b"Subject", b"Re: [autumn] Turn\x00 1 \x07report")
    elif where == "display name":
        raw_edit = (b"From", f"Al\x00ice\x1b <{player}@example.org>".encode())
    elif where == "standing order":
        lines = [line, "standing: when fight answer fi\x00ght"]
    elif where == "press":
        lines = [line, "to: all", "hello\x00 there\x0b"]
    else:
        raw_edit = (b"Subject", b"Re: [autumn] Turn 1 \xff\xfe report")
    raw = mail(lines, sender=f"{player}@example.org", tok=token(fake_svc, fake_game, player))
    if raw_edit:
        raw = with_header(raw, *raw_edit)
    since = last_id(fake_svc)
    result = handle(fake_svc, raw)
    assert result.status in ("applied", "partial", "rejected"), result
    assert fake_svc.store.inbox(result.inbox_id)["status"] == "processed"
    sent = mails(fake_svc, since)
    assert any(r["player"] == player for r, _ in sent), [r["kind"] for r, _ in sent]  # the sender hears back
    assert all("\x00" not in text for _, text in sent)


@pytest.mark.parametrize("kind,data", [
    ("toml", 'game = "autumn\\u0000"\nplayer = "alice"\ntoken = "{tok}"\nanswers = ["left"]\n'),
    ("toml", 'game = "autumn"\nplayer = "al\\u0000ice"\ntoken = "{tok}"\nanswers = ["left"]\n'),
    ("toml", 'game = "autumn"\nplayer = "alice"\ntoken = "{tok}\\u0000"\nanswers = ["left"]\n'),
    ("toml", 'game = "autumn"\nplayer = "alice"\ntoken = "{tok}"\nanswers = ["le\\u0000ft", "\\u001b"]\n'),
    ("json", '{{"game": "autumn\\u0000", "token": "{tok}", "answers": ["left\\u0000"]}}'),
], ids=["game", "player", "token", "answers", "json"])
def test_a_turn_file_with_nuls_in_its_fields_is_stored_and_answered_or_refused(fake_svc, fake_game, kind, data):
    raw = data.format(tok=token(fake_svc, fake_game, "alice")).encode()
    result = handle(fake_svc, raw, "turn", filename=f"t\x00\x01.{kind}", source="drop", upload_id="u\x00")
    assert result.status in ("applied", "partial", "rejected", "refused"), result
    row = fake_svc.store.inbox(result.inbox_id)
    assert row["status"] == "processed" and row["filename"] == f"t\u2400\u2401.{kind}"


def test_a_nul_mail_blocks_neither_the_drop_folder_nor_the_pipes_spool(fake_svc, fake_game):
    nul = with_header(mail(["hello"], sender="eve@example.net"), b"Message-ID", NUL_ID.encode())
    folder = dropfolder.ensure(fake_svc.settings.inbox_path)
    player, line = legal(fake_svc, fake_game)
    dropfolder.drop(folder, "a.eml", nul)
    dropfolder.drop(folder, "b.eml", mail([line], sender=f"{player}@example.org",
                                          tok=token(fake_svc, fake_game, player)))
    assert [r.status for r in dropfolder.poll(fake_svc, folder)] == ["refused", "applied"]
    assert dropfolder.waiting(folder) == []
    player, line = legal(fake_svc, fake_game)
    with pipe.serving(fake_svc.settings):
        assert pipe.hand_over(fake_svc.settings.home, io.BytesIO(nul.replace(b"hello", b"again"))) == 0
        assert pipe.hand_over(fake_svc.settings.home, io.BytesIO(mail(
            [line], sender=f"{player}@example.org", tok=token(fake_svc, fake_game, player)))) == 0
    assert [r.status for r in pipe.poll(fake_svc)] == ["duplicate", "applied"]  # the NUL id was known already
    assert pipe.waiting(fake_svc.settings) == []

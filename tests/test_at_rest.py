"""No secret at rest in clear. Tokens (issue 21: 6) and weak seeds (11): a backup of the store,
or of the drop folder and Maildir, must hold no credential: every stored form is masked, decoded
base64 and quoted-printable parts included, and a seed a moderator chose too short is never
used as a mask pattern. On both stores: SQLite (every byte of its files), and a real
PostgreSQL (every value of every row).

A running game's seed, a token or a seat link (issue 27) is in no file of the home -- the
SQLite database and its write-ahead log included -- nor in a backup, after games were played
the ways players play them: replies that quote the report they answer (as Gmail does, in the
text and in a base64 HTML part), turn files in the drop folder, answers from the seat's page.
The seed is sealed under the service key (pbem/base/sealed.py), states and snapshots are kept
without it (pbem/core/games.py)."""
import asyncio
import base64
import email
import email.policy
import functools
import mailbox
import quopri
import random
from email.message import EmailMessage
from pathlib import Path

import pytest
from conftest import Clock, game_config, legal, mail, token, turn_file

from pbem import bot, daemon
from pbem.base import log, sealed, settings as settings_mod
from pbem.core import games
from pbem.core.service import open_service
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame
from pbem.outbound import links
from pbem.sources import dropfolder, maildir
from pbem.store import backup
from pbem.web import forms


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


def test_only_seeds_are_judged_weak_not_tokens(fake_svc, capsys, monkeypatch):
    """Issue 28: the weak-seed check ran on every token made too, so a seat's token of under 8
    different hex digits (about one game in 2,000) logged a "weak seed" at the game's creation."""
    plain = iter(f"{i:x}" * 10 + "0" * 10 for i in range(1, 16))  # 20 hex digits, two different
    monkeypatch.setattr(newgame.tokens, "token_for", lambda *args: next(plain))
    capsys.readouterr()
    newgame.create(fake_svc, game_config(name="plain-tokens", seed="9f8e7d6c5b4a39281706f5e4d3c2b1a0"))
    assert "weak" not in capsys.readouterr().err
    assert log.scrub("x 11111111110000000000 y") == "x [secret] y"  # the token is still never logged


def test_every_secret_is_masked_whole_whatever_it_holds(monkeypatch):
    """The secrets are masked in one pass (log.scrub): a seed the moderator chose may hold any
    character, a pattern's too (".", "*", "|", "\\"), and one secret may hold another: each is
    masked whole, never read as a pattern, and a later secret is masked as well."""
    monkeypatch.setattr(log, "_secrets", set())
    monkeypatch.setattr(log, "_masks", None)
    seed = "a.b*c|(d)\\e+f?[g]^h$"  # strong enough (long, varied), and every character special
    log.forget_seed(seed)
    assert log.scrub(f"x {seed} y axbbbc|d") == "x [secret] y axbbbc|d"
    inner = "0123456789abcdef0123"
    log.forget(inner)
    log.forget(f"zz{inner}zz")
    assert log.scrub(f"1 zz{inner}zz 2 {inner} 3") == "1 [secret] 2 [secret] 3"


def test_a_secret_added_while_a_line_is_scrubbed_breaks_nothing(monkeypatch):
    """Another thread may register a secret (a game made through the web face) while a line is
    being scrubbed, between the pattern's making and its use: the line is still scrubbed with
    the pattern made, and the next line with the new secret too."""
    import re
    monkeypatch.setattr(log, "_secrets", {"0123456789abcdef0123"})
    monkeypatch.setattr(log, "_masks", None)
    compile = re.compile

    def made_then_a_secret_added(pattern, *args):
        made = compile(pattern, *args)
        monkeypatch.setattr(log.re, "compile", compile)
        log.forget("fedcba98765432100123")  # as another thread would, meanwhile
        return made

    monkeypatch.setattr(log.re, "compile", made_then_a_secret_added)
    assert log.scrub("a 0123456789abcdef0123 b") == "a [secret] b"
    assert log.scrub("c fedcba98765432100123 d") == "c [secret] d"


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
    for stmt in ("DROP INDEX IF EXISTS outbox_to", "ALTER TABLE outbox DROP COLUMN claim_until",
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


# -- issue 27: the seed, and every secret in every file of the home ---------------------

BASE = "https://talisman.test"


def seats(game: str) -> list[tuple[str, str]]:
    return [(n, f"{n}.{game}@example.org") for n in ("alice", "bob")]


def open_home(tmp_path, key_file="secret.key"):
    """A home whose mail goes out as .eml files to a folder outside it (the MTA's side: what was
    delivered is the players', not the home's), with a web face so reports carry seat links."""
    cfg = settings_mod.Settings(home=str(tmp_path / "home"), outbox=str(tmp_path / "delivered"), key=key_file,
                                http=settings_mod.HttpSettings(url=BASE))
    return open_service(settings=cfg, clock=Clock())


def serve_once(svc) -> None:
    asyncio.run(daemon.serve(svc, once=True))


def last_mail_to(svc, address: str) -> email.message.EmailMessage:
    files = sorted(Path(svc.settings.outbox_path).glob("*.eml"), key=lambda p: p.stat().st_mtime_ns)
    for f in reversed(files):
        msg = email.message_from_bytes(f.read_bytes(), policy=email.policy.default)
        if address in str(msg["To"]):
            return msg
    raise AssertionError(f"no mail to {address}")


def quoting_reply(report, sender: str, line: str) -> bytes:
    """A reply as Gmail writes it: the answer on top, the report quoted below it, in a text part
    and a base64 HTML part."""
    text = report.get_body(("plain",)).get_content()
    quoted = "\n".join("> " + ln for ln in text.splitlines())
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = report["Reply-To"]
    msg["Subject"] = "Re: " + report["Subject"]
    msg["In-Reply-To"] = report["Message-ID"]
    msg["Message-ID"] = f"<r{abs(hash((sender, line, quoted)))}@example.org>"
    msg.set_content(f"{line}\n\n{quoted}\n")
    html = f"<div>{line}</div><blockquote>{text}</blockquote>".encode()
    msg.add_alternative(html, maintype="text", subtype="html", cte="base64")
    return bytes(msg)


def play(svc, g: str, moves: int, turn_files: bool = False) -> None:
    """`moves` answers to game g: each player's a reply quoting their last mail (or a turn file
    in the drop folder), the moderator's by `game answer`; the daemon takes each and sends."""
    rnd = random.Random(g)
    for i in range(moves):
        move = bot.choose(games.state(svc, games.get(svc, g)), rnd)
        line = f"{move.prompt}: {move.key}"
        if move.player == svc.engine.MODERATOR:
            moderator.answer(svc, g, move.player, line)
        elif turn_files and i % 2:
            name = f"{move.player}.toml"
            data = f'game = "{g}"\nplayer = "{move.player}"\ntoken = "{token(svc, g, move.player)}"\n' \
                   f'answers = ["{line}"]\n'.encode()
            dropfolder.drop(svc.settings.inbox_path, name, data)
        else:
            address = svc.store.player(g, move.player)["email"]
            dropfolder.drop(svc.settings.inbox_path, "reply.eml",
                            quoting_reply(last_mail_to(svc, address), address, line))
        serve_once(svc)


def secrets_of(svc, ids: list[str]) -> dict[str, str]:
    """What must be in no file: each game's seed, each seat's token, page secret and link."""
    out = {}
    for g in ids:
        out[f"{g} seed"] = games.seed(svc, games.get(svc, g))
        for p in svc.store.players(g):
            out[f"{g}/{p['name']} token"] = svc.token(p)
            out[f"{g}/{p['name']} page secret"] = links.seat_secret(svc, p)
    return out


def found_in(paths, secrets: dict[str, str]) -> list[str]:
    hits = []
    for path in paths:
        data = path.read_bytes().lower()
        hits += [f"{what} in {path.name}" for what, value in secrets.items() if value.lower().encode() in data]
    return hits


def files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]


def test_a_home_with_three_running_games_holds_no_seed_token_or_link_nor_does_its_backup(tmp_path):
    svc = open_home(tmp_path)
    generated = []
    for i in range(2):  # seeds made by the service
        config = game_config(name=f"g{i}", players=seats(f"g{i}"))
        del config["game"]["seed"]
        generated.append(newgame.create(svc, config))
    ids = generated
    ids.append(newgame.create(svc, game_config(name="chosen", seed="a-seed-the-moderator-chose-42",
                                                players=seats("chosen"))))
    serve_once(svc)  # the welcomes and first reports go out
    for i, g in enumerate(ids):
        play(svc, g, 6, turn_files=i == 1)
        seat = svc.store.player(g, svc.engine.waiting_for(games.state(svc, games.get(svc, g)))[0])
        if seat:  # an answer from the seat's page (its turn file carries the token)
            move = svc.engine.legal_moves(games.state(svc, games.get(svc, g)))[0]
            forms.answer(svc, seat, [f"{move.prompt}: {move.key}"], f"form{i}")
    serve_once(svc)
    for g in ids:
        game = games.get(svc, g)
        assert game["status"] == "active" and game["moves"] >= 6, (g, game["moves"])
        assert sealed.is_sealed(game["seed"])
    secrets = secrets_of(svc, ids)
    delivered = files(Path(svc.settings.outbox_path))
    assert found_in(delivered, secrets), "the players' mail carries their tokens and links: the check can see them"
    kept = tmp_path / "backup.db"
    backup.backup(svc.settings.db_path, kept)
    home = Path(svc.settings.home)
    assert (home / "pbem.db-wal").stat().st_size > 0  # the log is looked into as it is, the store still open
    assert any((home / "inbox" / "cur").iterdir())
    leaks = found_in([*files(home), kept], secrets)
    assert leaks == [], "\n".join(leaks)


def test_the_seed_is_kept_sealed_and_states_without_it_yet_every_move_plays_from_it(svc):
    g = newgame.create(svc, game_config(seed="a-seed-the-moderator-chose-42"))
    for _ in range(3):
        move = svc.engine.legal_moves(games.state(svc, games.get(svc, g)))[0]
        moderator.answer(svc, g, move.player, f"{move.prompt}: {move.key}")
    game = games.get(svc, g)
    assert game["seed"].startswith(sealed.PREFIX) and b"moderator-chose" not in game["state"]
    assert all(b"moderator-chose" not in s["state"] for s in svc.store.snapshots(g))
    assert svc.engine.decode(game["state"]).seed == ""
    assert games.state(svc, game).seed == "a-seed-the-moderator-chose-42"
    assert games.state_at(svc, game, 2).seed == "a-seed-the-moderator-chose-42"
    assert svc.store.verify_chain(g) == []
    assert svc.engine.state_hash(games.state(svc, game)) == svc.store.moves(g)[-1]["state_hash"]  # with the seed


def test_a_sealed_seed_opens_with_its_key_and_game_only():
    key, other = bytes(range(32)), bytes(range(1, 33))
    box = sealed.seal(key, "the-seed", "g1")
    assert "the-seed" not in box and sealed.seal(key, "the-seed", "g1") != box  # a fresh nonce each time
    assert sealed.unseal(key, box, "g1") == "the-seed"
    for k, ctx in ((other, "g1"), (key, "g2")):
        with pytest.raises(sealed.SealError):
            sealed.unseal(k, box, ctx)
    with pytest.raises(sealed.SealError):
        sealed.unseal(key, box[:-4] + "AAAA", "g1")
    with pytest.raises(sealed.SealError):
        sealed.unseal(key, "the-seed", "g1")


def test_reseal_moves_every_seed_to_a_new_key_and_the_games_play_on(tmp_path):
    svc = open_home(tmp_path)
    ids = [newgame.create(svc, game_config(name=f"g{i}", seed=f"seed-number-{i}-0123456789", players=seats(f"g{i}")))
           for i in range(3)]
    moderator.end(svc, ids[2])  # an ended game's seed moves too: its archive still reveals it
    old, new = svc.key, bytes(range(32))
    before = {g: games.get(svc, g)["seed"] for g in ids}
    assert games.reseal_seeds(svc.store, old, new) == 3
    svc.key = new
    for i, g in enumerate(ids):
        game = games.get(svc, g)
        assert game["seed"] != before[g] and games.seed(svc, game) == f"seed-number-{i}-0123456789"
        with pytest.raises(sealed.SealError):
            sealed.unseal(old, game["seed"], g)
    move = svc.engine.legal_moves(games.state(svc, games.get(svc, ids[0])))[0]
    moderator.answer(svc, ids[0], move.player, f"{move.prompt}: {move.key}")
    assert svc.store.verify_chain(ids[0]) == []
    with pytest.raises(sealed.SealError):  # a wrong old key changes nothing
        games.reseal_seeds(svc.store, old, bytes(32))
    assert games.seed(svc, games.get(svc, ids[1])) == "seed-number-1-0123456789"
    db = Path(svc.settings.db_path)
    for s in before.values():  # what was sealed under the old key is gone from the files
        assert all(s.encode() not in f.read_bytes() for f in db.parent.glob(db.name + "*"))


def test_a_home_from_before_gets_its_seeds_sealed_and_their_clear_bytes_overwritten(tmp_path):
    svc = open_home(tmp_path)
    g = newgame.create(svc, game_config(seed="an-old-clear-seed-0123456789"))
    move = svc.engine.legal_moves(games.state(svc, games.get(svc, g)))[0]
    moderator.answer(svc, g, move.player, f"{move.prompt}: {move.key}")
    state = games.state(svc, games.get(svc, g))
    with svc.store.transaction():  # as a home kept it before seeds were sealed
        svc.store.set_seed(g, "an-old-clear-seed-0123456789", svc.engine.encode(state))
        for snap in svc.store.snapshots(g):
            st = svc.engine.decode(snap["state"])
            st.seed = "an-old-clear-seed-0123456789"
            svc.store.save_snapshot(g, snap["seq"], svc.engine.encode(st), replace=True)
    db = Path(svc.settings.db_path)
    on_disk = lambda: b"".join(f.read_bytes() for f in db.parent.glob(db.name + "*"))  # noqa: E731
    assert b"an-old-clear-seed" in on_disk()
    svc.store.close()
    svc = open_home(tmp_path)
    assert games.seed(svc, games.get(svc, g)) == "an-old-clear-seed-0123456789"
    assert b"an-old-clear-seed" not in on_disk()
    assert svc.store.verify_chain(g) == [] and games.state(svc, games.get(svc, g)).rng == state.rng
    svc.store.close()


def test_key_rotate_seals_every_seed_again_and_the_games_play_on(tmp_path):
    """`pbem key rotate` (pbem/moderate/rekey.py) calls games.reseal_seeds in its transaction."""
    from click.testing import CliRunner

    from pbem.cli import main
    home = tmp_path / "h"
    assert CliRunner().invoke(main, ["--home", str(home), "init"]).exit_code == 0
    svc = open_service(settings=settings_mod.load(home))
    g = newgame.create(svc, game_config(seed="rotated-seed-0123456789"))
    before = games.get(svc, g)["seed"]
    svc.store.close()
    result = CliRunner().invoke(main, ["--home", str(home), "key", "rotate", "--yes"])
    assert result.exit_code == 0, result.output
    svc = open_service(settings=settings_mod.load(home))
    game = games.get(svc, g)
    assert game["seed"] != before and games.seed(svc, game) == "rotated-seed-0123456789"
    move = bot.choose(games.state(svc, game), random.Random(0))
    assert moderator.answer(svc, g, move.player, f"{move.prompt}: {move.key}").applied
    assert svc.store.verify_chain(g) == []
    assert all(before.encode() not in f.read_bytes() for f in home.glob("pbem.db*"))
    svc.store.close()

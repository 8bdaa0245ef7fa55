"""One key per service (issue 26): the store records its key's fingerprint and a process with
another key refuses to start, naming both; `pbem init --key FILE --db URL` makes a second
machine's home over a shared PostgreSQL store; `pbem key rotate` gives every seat a new token
and link, mailed to it, the old ones void, no game lost."""
import asyncio
import re
import threading

import pytest
from click.testing import CliRunner
from conftest import game_config, legal, mail, token

from pbem import daemon
from pbem.base import settings as settings_mod, tokens
from pbem.cli import main
from pbem.core import keys
from pbem.core.service import open_service
from pbem.inbound import process
from pbem.moderate import newgame, rekey
from pbem.outbound import links, outbox
from pbem.sources import pipe


def cli(home, *args, input=None):
    return CliRunner().invoke(main, ["--home", str(home), *map(str, args)], input=input)


def new_home(tmp_path, name="h", *args):
    home = tmp_path / name
    result = cli(home, "init", *args)
    assert result.exit_code == 0, result.output
    return home


def a_game(home, name="autumn"):
    svc = open_service(settings=settings_mod.load(home))
    gid = newgame.create(svc, game_config(name=name, seed=f"{name}-seed-long-enough"))
    return svc, gid


def test_a_fingerprint_names_a_key_and_tells_nothing_of_it():
    key = bytes(range(32))
    fp = tokens.fingerprint(key)
    assert re.fullmatch(r"[0-9a-f]{16}", fp) and fp == tokens.fingerprint(bytes(range(32)))
    assert fp != tokens.fingerprint(bytes(range(1, 33))) and fp not in key.hex()


def test_a_home_whose_key_is_not_its_stores_refuses_every_command_naming_both(tmp_path):
    home = new_home(tmp_path)
    svc, gid = a_game(home)
    svc.store.close()
    right = (home / "secret.key").read_bytes()
    (home / "secret.key").unlink()
    tokens.write_key(home / "secret.key", tokens.new_key())  # a key copied over the right one
    wrong_fp = tokens.fingerprint(tokens.read_key(home / "secret.key"))
    right_fp = tokens.fingerprint(bytes.fromhex(right.decode()))
    for args in (("game", "list"), ("serve", "--once"), ("player", "resend", gid, "alice")):
        result = cli(home, *args)
        assert result.exit_code == 1, (args, result.output)
        assert wrong_fp in result.stderr and right_fp in result.stderr and "pbem init" in result.stderr
    assert list((home / "outbox").iterdir()) == []  # nothing was sent with the wrong key
    with pytest.raises(keys.KeyMismatch):
        open_service(settings=settings_mod.load(home))
    (home / "secret.key").unlink()
    (home / "secret.key").write_bytes(right)  # the right key back: all is well again
    assert cli(home, "game", "list").exit_code == 0


def test_a_second_home_on_one_postgresql_store_needs_the_first_ones_key(tmp_path, pg_url):
    first = new_home(tmp_path, "first", "--db", pg_url)
    assert f'db = "{pg_url}"' in (first / "pbem.toml").read_text()
    svc, gid = a_game(first)
    # a second machine without the key: refused, and no key of its own made in silence
    refused = cli(tmp_path / "second", "init", "--db", pg_url)
    assert refused.exit_code == 1 and "--key FILE" in refused.stderr
    assert svc.key_fingerprint in refused.stderr
    assert not (tmp_path / "second" / "secret.key").exists()
    # a file that holds no key, and a wrong key: refused (naming both keys), nothing written
    (tmp_path / "junk.key").write_text("not a key\n")
    junk = cli(tmp_path / "second", "init", "--db", pg_url, "--key", tmp_path / "junk.key")
    assert junk.exit_code == 1 and "holds no pbem key" in junk.stderr and "Traceback" not in junk.output
    (tmp_path / "other.key").write_text(tokens.new_key().hex())
    wrong = cli(tmp_path / "second", "init", "--db", pg_url, "--key", tmp_path / "other.key")
    assert wrong.exit_code == 1 and svc.key_fingerprint in wrong.stderr
    assert not (tmp_path / "second" / "secret.key").exists()
    # with the first one's key (read from stdin, as `ssh first cat secret.key |` gives it)
    second = tmp_path / "second"
    joined = cli(second, "init", "--db", pg_url, "--key", "-", input=(first / "secret.key").read_text())
    assert joined.exit_code == 0, joined.output
    assert (second / "secret.key").read_bytes() == (first / "secret.key").read_bytes()
    assert (second / "secret.key").stat().st_mode & 0o777 == 0o600
    other = open_service(settings=settings_mod.load(second))
    assert [g["id"] for g in other.store.games()] == [gid]
    for name in ("alice", "bob"):  # the tokens the second machine mails open the seats
        assert tokens.matches(token(other, gid, name), svc.store.player(gid, name)["token_hash"])
    player, line = legal(other, gid)
    played = process.handle(other, mail([line], sender=f"{player}@example.org", tok=token(other, gid, player)))
    assert played.status == "applied", played.outcome
    other.store.close()
    svc.store.close()


def test_a_home_made_with_its_own_key_then_pointed_at_a_shared_store_is_refused_then_mended(tmp_path, pg_url):
    first = new_home(tmp_path, "first", "--db", pg_url)
    svc, gid = a_game(first)
    second = new_home(tmp_path, "second")  # the README's plain `pbem init`, then db edited by hand
    own = (second / "secret.key").read_bytes()
    text = (second / "pbem.toml").read_text().replace('# db = "pbem.db"', f'db = "{pg_url}"')
    (second / "pbem.toml").write_text(text)
    result = cli(second, "game", "list")
    assert result.exit_code == 1 and svc.key_fingerprint in result.stderr
    mended = cli(second, "init", "--key", first / "secret.key")
    assert mended.exit_code == 0, mended.output
    assert (second / "secret.key").read_bytes() == (first / "secret.key").read_bytes()
    [kept] = second.glob("secret.key.*.old")  # the key it had is kept, not lost
    assert kept.read_bytes() == own and kept.stat().st_mode & 0o777 == 0o600
    assert gid in cli(second, "game", "list").stdout
    # the shared store's key is never replaced by --key: the first home keeps its own
    again = cli(first, "init", "--key", second / kept.name)
    assert again.exit_code == 1 and (first / "secret.key").read_bytes() == (second / "secret.key").read_bytes()
    svc.store.close()


# -- key rotate ---------------------------------------------------------------------------

def sent_token(home, name) -> str:
    """The token in the last .eml mailed to `name`."""
    for path in sorted((home / "outbox").glob("*.eml"), reverse=True):
        text = path.read_text()
        if f"To: {name} <" in text:
            return re.search(r"talisman\+([0-9a-f]{20})@", text).group(1)
    raise AssertionError(f"no mail to {name}")


def test_key_rotate_gives_every_seat_a_new_token_by_mail_and_voids_the_old(tmp_path):
    home = new_home(tmp_path)
    svc, gid = a_game(home)
    ended = newgame.create(svc, game_config(name="over", seed="over-seed-long-enough"))
    cli(home, "game", "end", ended)
    assert cli(home, "serve", "--once").exit_code == 0
    old_tokens = {n: token(svc, gid, n) for n in ("alice", "bob")}
    old_links = {n: links.seat_secret(svc, svc.store.player(gid, n)) for n in ("alice", "bob")}
    old_key, moves = (home / "secret.key").read_bytes(), svc.store.game(gid)["moves"]
    player, line = legal(svc, gid)
    waiting = mail([line], sender=f"{player}@example.org", tok=old_tokens[player], message_id="<before@x>")
    with svc.store.transaction():  # stored before the rotation, not processed yet (a daemon would have next)
        process.receive(svc, waiting, "mail", "stdin", None, None, process.read_message(waiting, "mail", None))
    svc.store.close()
    asked = cli(home, "key", "rotate")
    assert asked.exit_code == 1 and (home / "secret.key").read_bytes() == old_key  # asks first
    result = cli(home, "key", "rotate", "--yes")
    assert result.exit_code == 0, result.output
    assert "4 seat(s) given new tokens, 2 mailed" in result.stdout  # the ended game's seats are not mailed
    new_key = (home / "secret.key").read_bytes()
    assert new_key != old_key and (home / "secret.key").stat().st_mode & 0o777 == 0o600
    retired = home / f"secret.key.{tokens.fingerprint(bytes.fromhex(old_key.decode()))}.old"
    assert retired.read_bytes() == old_key and retired.stat().st_mode & 0o777 == 0o600
    assert not (home / "secret.key.new").exists()
    svc = open_service(settings=settings_mod.load(home))
    assert svc.store.game(gid)["moves"] == moves and svc.store.verify_chain(gid) == []  # no game lost
    [done] = process.retry_pending(svc)  # the mail that waited was sent in good faith: it still counts
    assert done.status == "applied", done.outcome
    assert cli(home, "serve", "--once").exit_code == 0
    for name in ("alice", "bob"):
        new = sent_token(home, name)
        assert new == token(svc, gid, name) != old_tokens[name]
        assert not tokens.matches(old_tokens[name], svc.store.player(gid, name)["token_hash"])
        assert links.find_seat(svc, gid, old_links[name]) is None
        assert links.find_seat(svc, gid, links.seat_secret(svc, svc.store.player(gid, name)))["name"] == name
    newkey = [r for r in svc.store.outbox_rows() if r["kind"] == "newkey"]
    assert sorted(r["player"] for r in newkey) == ["alice", "bob"] and {r["game"] for r in newkey} == {gid}
    text = outbox.build(svc, svc.store.outbox_mail(newkey[0]["id"])).get_body(("plain",)).get_content()
    assert f"token: {token(svc, gid, newkey[0]['player'])}" in text
    player, line = legal(svc, gid)
    stale = process.handle(svc, mail([line], sender=f"{player}@example.org", tok=old_tokens[player]))
    assert stale.status != "applied" and svc.store.game(gid)["moves"] == moves + 1
    fresh = process.handle(svc, mail([line], sender=f"{player}@example.org", tok=token(svc, gid, player)))
    assert fresh.status == "applied", fresh.outcome
    svc.store.close()


def test_key_rotate_is_refused_while_a_daemon_serves_the_home(tmp_path):
    home = new_home(tmp_path)
    svc, _ = a_game(home)
    key = (home / "secret.key").read_bytes()
    with pipe.serving(svc.settings):
        result = cli(home, "key", "rotate", "--yes")
    assert result.exit_code == 1 and "stop it first" in result.stderr
    assert (home / "secret.key").read_bytes() == key and svc.store.outbox_rows()[-1]["kind"] != "newkey"
    svc.store.close()


def test_a_rotation_that_stops_half_way_loses_nothing(tmp_path, monkeypatch):
    home = new_home(tmp_path)
    svc, gid = a_game(home)
    old_key, old_hash = svc.key, svc.store.player(gid, "alice")["token_hash"]

    def crash(*args):
        raise RuntimeError("power cut")

    monkeypatch.setattr(rekey, "reseal_secrets", crash)  # before the commit: as if nothing happened
    with pytest.raises(RuntimeError):
        rekey.rotate(svc)
    assert svc.key == old_key and svc.store.player(gid, "alice")["token_hash"] == old_hash
    assert not keys.pending_path(home / "secret.key").exists()
    monkeypatch.undo()
    monkeypatch.setattr(keys, "install", crash)  # after the commit, before the new key is in place
    with pytest.raises(RuntimeError):
        rekey.rotate(svc)
    monkeypatch.undo()
    assert tokens.read_key(home / "secret.key") == old_key and keys.pending_path(home / "secret.key").exists()
    svc.store.close()
    again = open_service(settings=settings_mod.load(home))  # the next process finishes it
    assert again.key != old_key and tokens.read_key(home / "secret.key") == again.key
    assert tokens.matches(token(again, gid, "alice"), again.store.player(gid, "alice")["token_hash"])
    assert not keys.pending_path(home / "secret.key").exists()
    again.store.close()


def test_a_daemon_whose_key_was_rotated_on_another_machine_stops_and_sends_nothing(tmp_path, pg_url):
    first = new_home(tmp_path, "first", "--db", pg_url)
    second = new_home(tmp_path, "second", "--db", pg_url, "--key", first / "secret.key")
    (second / "pbem.toml").write_text((second / "pbem.toml").read_text() + "\npoll_seconds = 0.2\n")
    svc, gid = a_game(first)
    other = open_service(settings=settings_mod.load(second))
    outcome, stop = [], threading.Event()

    def run():
        try:
            asyncio.run(daemon.serve(other, stop=stop))
        except keys.KeyMismatch as e:
            outcome.append(e)

    thread = threading.Thread(target=run)
    thread.start()
    try:
        rekey.rotate(svc)  # on the first machine: the second's daemon runs on another home
        thread.join(30)
    finally:
        stop.set()
        thread.join(30)
    assert not thread.is_alive() and outcome and svc.key_fingerprint in str(outcome[0])
    mailed = [r for r in svc.store.outbox_rows() if r["kind"] == "newkey"]
    assert mailed and {r["status"] for r in mailed} == {"queued"}  # the old key sent none of them
    other.store.key_fingerprint = keys.fingerprint(other.key)
    assert other.store.claim_outbox("old-key", 60) is None  # and claims none
    assert svc.store.claim_outbox("new-key", 60) is not None
    other.store.close()
    svc.store.close()


def test_the_fingerprint_is_recorded_once_however_many_open_the_store(make_service):
    a = make_service()
    assert a.store.meta(keys.FINGERPRINT) == a.key_fingerprint
    b = make_service()  # the same home, the same key
    assert b.store.meta(keys.FINGERPRINT) == a.key_fingerprint


def test_pages_served_with_a_key_rotated_away_on_another_machine_open_no_seat(tmp_path, pg_url):
    """The second machine's pages still derive the old links until its daemon notices the
    rotation: a seat page or feed asked for meanwhile is refused, never served on the old key."""
    from starlette.testclient import TestClient

    from pbem.web.app import create_app
    first = new_home(tmp_path, "first", "--db", pg_url)
    second = new_home(tmp_path, "second", "--db", pg_url, "--key", first / "secret.key")
    svc, gid = a_game(first)
    cfg = settings_mod.load(second)
    other = open_service(settings=cfg)
    alice = other.store.player(gid, "alice")
    page, feed = links.seat_path(other, alice), links.calendar_path(other, alice)
    with TestClient(create_app(lambda: open_service(settings=cfg)), base_url="http://talisman.test") as client:
        shown = client.get(page)
        assert shown.status_code == 200 and 'name="csrf"' in shown.text and client.get(feed).status_code == 200
        rekey.rotate(svc)  # on the first machine
        for url in (page, feed):
            refused = client.get(url)
            assert refused.status_code == 503 and "new key" in refused.text
            assert 'name="csrf"' not in refused.text and "VEVENT" not in refused.text
        assert client.get(f"/g/{gid}").status_code == 200  # the public page derives nothing from the key
    (second / "secret.key").write_bytes((first / "secret.key").read_bytes())  # the operator copies the new key
    renewed = open_service(settings=settings_mod.load(second))
    with TestClient(create_app(lambda: open_service(settings=cfg)), base_url="http://talisman.test") as client:
        assert client.get(page).status_code == 404  # the old link opens nothing
        assert client.get(links.seat_path(renewed, renewed.store.player(gid, "alice"))).status_code == 200
    for s in (svc, other, renewed):
        s.store.close()

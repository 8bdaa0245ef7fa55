"""A season's people (issue 26): one person across games (`player show`), an address change that
keeps the token (`player email`, and `email:` by mail, confirmed by a code sent to the new
address), `vacation: 5d all`, and `game list` without the ended games unless --all."""
from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from click.testing import CliRunner
from conftest import game_config, legal, mail, token

from pbem.cli import main
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame, people
from pbem.outbound import outbox
from pbem.pace import addresses, vacation

PACE = {"deadline": "48h", "vacation_days": 3}


@pytest.fixture
def league(make_service):
    """Three games on the real engine (the command line plays on it): alice plays in autumn
    and winter (with deadlines) and in spring (ended); bob in each (another address in each);
    carol watches winter."""
    svc = make_service()
    for name in ("autumn", "winter", "spring"):
        config = game_config(name=name, pace=PACE, moderator="mod@example.org",
                             players=[("alice", "alice@example.org"), ("bob", f"bob-{name}@example.org")])
        if name == "winter":
            config["observers"] = [{"name": "carol", "email": "carol@example.org"}]
        newgame.create(svc, config)
    moderator.end(svc, "spring")
    return svc


def cli(svc, *args, code=0):
    result = CliRunner().invoke(main, ["--home", svc.settings.home, *args])
    assert result.exit_code == code, (result.output, result.exception)
    return result.stdout if code == 0 else result.stderr


def texts_to(svc, address):
    return [outbox.mail(svc, r["id"])["text"] for r in svc.store.outbox_rows() if r["to_addr"] == address]


def test_game_list_hides_ended_games_unless_all(league):
    shown = json.loads(cli(league, "game", "list", "--json"))
    assert [g["id"] for g in shown] == ["autumn", "winter"]
    everything = json.loads(cli(league, "game", "list", "--all", "--json"))
    assert [(g["id"], g["status"]) for g in everything] == [("autumn", "active"), ("winter", "active"),
                                                            ("spring", "ended")]
    assert "spring" not in cli(league, "game", "list") and "spring" in cli(league, "game", "list", "--all")


def test_player_show_finds_one_person_in_every_game(league):
    vacation.start(league, league.store.game("winter"), "alice", timedelta(days=1), by="moderator")
    found = people.person(league, "ALICE@example.org")
    assert [(s["game"], s["game_status"], s["name"]) for s in found["seats"]] == [
        ("autumn", "active", "alice"), ("winter", "active", "alice"), ("spring", "ended", "alice")]
    winter = found["seats"][1]
    assert winter["on_vacation_until"] and winter["vacation_left_days"] == 2.0
    assert found["observing"] == []
    assert people.person(league, "carol@example.org")["observing"] == [
        {"game": "winter", "game_status": "active", "name": "carol"}]
    out = cli(league, "player", "show", "alice@example.org")
    assert "autumn" in out and "spring" in out and "ended" in out
    assert "watches winter (active) as carol" in cli(league, "player", "show", "carol@example.org")
    assert "no seat and no observer" in cli(league, "player", "show", "nobody@example.org", code=1)


def test_the_moderator_changes_an_address_and_the_token_stays(league):
    tok = token(league, "autumn", "alice")
    assert not league.store.player("autumn", "alice")["undeliverable"]
    league.store.update_player("autumn", "alice", undeliverable="550 no such user")
    waiting = [r["id"] for r in league.store.outbox_rows() if r["to_addr"] == "alice@example.org"
               and r["game"] == "autumn" and r["status"] == "queued" and r["player"] == "alice"]
    assert waiting
    assert cli(league, "player", "email", "autumn", "alice", "alice@new.example.org") == \
        "autumn: alice: alice@example.org -> alice@new.example.org\n"
    seat = league.store.player("autumn", "alice")
    assert seat["email"] == "alice@new.example.org" and seat["undeliverable"] is None
    assert token(league, "autumn", "alice") == tok  # the token is kept
    assert league.store.player("winter", "alice")["email"] == "alice@example.org"  # only that game
    assert all(league.store.outbox_mail(i)["to_addr"] == "alice@new.example.org" for i in waiting)
    assert "alice@new.example.org" in outbox.build(league, league.store.outbox_mail(waiting[0]))["To"]
    for told in ("alice@new.example.org", "alice@example.org"):
        assert any("is now alice@new.example.org" in t and "token is unchanged" in t for t in texts_to(league, told))
    # the new address plays with the old token; the old address no longer opens the seat
    who, line = legal(league, "autumn")
    assert who == "alice"
    assert handle(league, mail([line], sender="alice@example.org", tok=tok)).status == "refused"
    assert handle(league, mail([line], sender="alice@new.example.org", tok=tok)).status == "applied"
    # refused: another seat's address, the same address, no such seat
    assert "is bob's address" in cli(league, "player", "email", "autumn", "alice", "bob-autumn@example.org", code=1)
    assert "already" in cli(league, "player", "email", "autumn", "alice", "alice@new.example.org", code=1)
    assert "no player 'zed'" in cli(league, "player", "email", "autumn", "zed", "z@example.org", code=1)
    assert "not a mail address" in cli(league, "player", "email", "autumn", "bob", "bob at home", code=1)


def test_the_moderator_moves_a_person_in_every_running_game(league):
    out = cli(league, "player", "email", "--all", "alice", "a@new.example.org")
    assert out == "autumn: alice: alice@example.org -> a@new.example.org\nwinter: alice: alice@example.org -> " \
        "a@new.example.org\n"
    assert league.store.player("spring", "alice")["email"] == "alice@example.org"  # ended: left as it was
    assert "different addresses" in cli(league, "player", "email", "--all", "bob", "b@example.org", code=1)
    cli(league, "player", "email", "--all", "bob-winter@example.org", "b@example.org")
    assert league.store.player("winter", "bob")["email"] == "b@example.org"
    assert "no running game" in cli(league, "player", "email", "--all", "zed", "z@example.org", code=1)
    cli(league, "player", "email", "alice", "a@example.org", code=2)  # GAME NAME NEW without --all


def reply(svc, game, lines, sender="alice@example.org"):
    return handle(svc, mail(lines, sender=sender, tok=token(svc, game, "alice"), game=game))


def receipt_text(svc, result):
    [row] = svc.store.query("SELECT id FROM outbox WHERE inbox_id = ? AND kind IN ('receipt', 'error')",
                            (result.inbox_id,))
    return outbox.mail(svc, row["id"])["text"]


def test_a_player_moves_by_mail_with_a_code_sent_to_the_new_address(league):
    tok = token(league, "autumn", "alice")
    asked = reply(league, "autumn", ["email: alice@home.example.org"])
    assert "a code was sent to alice@home.example.org" in receipt_text(league, asked)
    [code_mail] = texts_to(league, "alice@home.example.org")
    code = re.search(r"email: alice@home\.example\.org ([0-9a-f]{8})$", code_mail, re.M).group(1)
    assert league.store.player("autumn", "alice")["email"] == "alice@example.org"  # nothing yet
    wrong = reply(league, "autumn", ["email: alice@home.example.org 00000000"])
    assert "not the one sent to" in receipt_text(league, wrong)
    assert league.store.player("autumn", "alice")["email"] == "alice@example.org"
    # a code for one address confirms no other
    assert "not the one sent" in receipt_text(league, reply(league, "autumn", [f"email: eve@example.org {code}"]))
    done = reply(league, "autumn", [f"email: alice@home.example.org {code}"])
    assert "your address is now alice@home.example.org (in autumn)" in receipt_text(league, done)
    assert league.store.player("autumn", "alice")["email"] == "alice@home.example.org"
    assert league.store.player("winter", "alice")["email"] == "alice@example.org"
    assert token(league, "autumn", "alice") == tok


def test_email_all_by_mail_moves_every_running_game_and_check_changes_nothing(league):
    code = addresses.code(league, "alice@example.org", "alice@home.example.org")
    line = f"email: alice@home.example.org {code} all"
    trial = handle(league, mail([line], sender="alice@example.org", tok=token(league, "autumn", "alice"),
                                subject="CHECK [autumn]"))
    assert "email: alice@home.example.org: would change 2 seats" in receipt_text(league, trial)
    assert league.store.player("autumn", "alice")["email"] == "alice@example.org"
    done = reply(league, "winter", [line])
    assert "your address is now alice@home.example.org (in autumn, winter)" in receipt_text(league, done)
    for g in ("autumn", "winter"):
        assert league.store.player(g, "alice")["email"] == "alice@home.example.org"
    assert league.store.player("spring", "alice")["email"] == "alice@example.org"  # ended


def test_a_signature_line_naming_the_own_address_changes_nothing(league):
    result = reply(league, "autumn", [legal(league, "autumn")[1], "Email: alice@example.org"])
    assert "alice@example.org is your address already" in receipt_text(league, result)
    assert not [t for t in texts_to(league, "alice@example.org") if "Confirm your new address" in t]


def test_vacation_all_pauses_every_running_game_of_the_address(league):
    result = reply(league, "autumn", ["vacation: 2d all"])
    text = receipt_text(league, result)
    assert "vacation: autumn: your deadlines wait until" in text and "winter: your deadlines wait until" in text
    for g in ("autumn", "winter"):
        assert vacation.on_vacation(league, g, "alice", league.now())
    assert not vacation.on_vacation(league, "winter", "bob", league.now())
    over = reply(league, "winter", ["vacation: 2d all"])  # 3 days each: 1 left
    assert "autumn: not done: only 1 day of vacation left" in receipt_text(league, over)

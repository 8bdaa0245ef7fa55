"""Press: `to: bob` / `to: all` and a message, passed on through the service (issue 18)."""
import pytest
from conftest import game_config, mail, token
from test_commands import last_id, mails

from pbem.core import games
from pbem.inbound.process import handle
from pbem.moderate import newgame

PLAYERS3 = [("alice", "alice@example.org"), ("bob", "bob@example.org"), ("carol", "carol@example.org")]


def new_game(svc, **game):
    return newgame.create(svc, game_config(players=PLAYERS3, moderator="mod@example.org", **game))


def write(svc, g, sender, lines):
    return handle(svc, mail(lines, sender=f"{sender}@example.org", tok=token(svc, g, sender), game=g))


def test_a_message_reaches_the_player_it_names_with_the_senders_name_only(svc):
    g = new_game(svc)
    since, moves = last_id(svc), games.get(svc, g)["moves"]
    tok = token(svc, g, "alice")
    result = write(svc, g, "alice", ["to: bob", "Shall we leave the Dragon alone?",
                                     f"my token is {tok}, mail me at alice@example.org"])
    assert result.status == "applied", result.outcome
    assert games.get(svc, g)["moves"] == moves  # nothing played
    sent = mails(svc, since)
    press = [(r, t) for r, t in sent if r["kind"] == "press"]
    assert [r["player"] for r, _ in press] == ["bob"]
    (row, text), = press
    assert "alice writes to you" in text and "Shall we leave the Dragon alone?" in text
    assert tok not in text and "alice@example.org" not in text and "[address]" in text
    assert "alice" in row["subject"]
    assert "alice@example.org" not in svc.store.outbox_by_message_id(row["message_id"])["headers"]
    receipt, = [t for r, t in sent if r["player"] == "alice"]
    assert "Sent to bob." in receipt


def test_to_all_reaches_every_other_player(svc):
    g = new_game(svc)
    since = last_id(svc)
    assert write(svc, g, "bob", ["to: all", "Good luck, everyone."]).status == "applied"
    assert sorted(r["player"] for r, _ in mails(svc, since) if r["kind"] == "press") == ["alice", "carol"]


def test_public_press_refuses_a_private_message(svc):
    g = new_game(svc, press="public")
    since = last_id(svc)
    write(svc, g, "alice", ["to: bob", "psst"])
    sent = mails(svc, since)
    assert not [r for r, _ in sent if r["kind"] == "press"]
    assert "messages go to everyone" in [t for r, t in sent if r["player"] == "alice"][0]


def test_copied_press_sends_the_moderator_a_copy(svc):
    g = new_game(svc, press="copied")
    since = last_id(svc)
    write(svc, g, "alice", ["to: carol", "meet at the Chapel"])
    press = [(r, t) for r, t in mails(svc, since) if r["kind"] == "press"]
    assert sorted(r["to_addr"] for r, _ in press) == ["carol@example.org", "mod@example.org"]
    copy = [t for r, t in press if r["to_addr"] == "mod@example.org"][0]
    assert "copy for the moderator" in copy and "meet at the Chapel" in copy


def test_no_press_when_off_and_an_unknown_name_is_explained(svc):
    g = new_game(svc, press="off")
    since = last_id(svc)
    write(svc, g, "alice", ["to: bob", "hello"])
    assert "no messages between players" in [t for r, t in mails(svc, since) if r["player"] == "alice"][0]
    g2 = new_game(svc, name="other")
    since = last_id(svc)
    write(svc, g2, "alice", ["to: dave", "hello"])
    text = [t for r, t in mails(svc, since) if r["player"] == "alice"][0]
    assert 'no other player is called "dave"' in text and "bob, carol" in text


def test_answers_above_a_message_are_played(svc):
    g = new_game(svc)
    move = svc.engine.legal_moves(games.state(svc, games.get(svc, g)))[0]
    since, moves = last_id(svc), games.get(svc, g)["moves"]
    result = write(svc, g, move.player, [f"{move.prompt}: {move.key}", "to: all", "your turn, friends"])
    assert result.status == "applied", result.outcome
    assert games.get(svc, g)["moves"] > moves
    assert len([r for r, _ in mails(svc, since) if r["kind"] == "press"]) == 2


def test_a_bad_press_setting_is_refused(svc):
    with pytest.raises(games.GameError, match="game.press 'secret': one of allowed, public, copied, off"):
        new_game(svc, press="secret")

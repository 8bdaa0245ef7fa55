"""Replies read as people write them, and the mail commands, through the service: a mail in,
the mails it queues out (issue 18)."""
import email
import re
from email import policy

import msgspec
from conftest import game_config, mail, token

from pbem.core import games
from pbem.inbound.process import handle
from pbem.moderate import newgame
from pbem.outbound import outbox


def mails(svc, since=0):
    """(row, the text part as sent) of each mail queued after outbox id `since`."""
    out = []
    for r in svc.store.outbox_rows():
        if r["id"] > since:
            msg = email.message_from_bytes(bytes(outbox.build(svc, outbox.mail(svc, r["id"]))), policy=policy.default)
            out.append((r, msg.get_body(("plain",)).get_content()))
    return out


def last_id(svc):
    rows = svc.store.outbox_rows()
    return rows[-1]["id"] if rows else 0


def asked(svc, game):
    """(player, question id, an option key) of the question open now."""
    move = svc.engine.legal_moves(games.state(svc, games.get(svc, game)))[0]
    return move.player, move.prompt, move.key


def send(svc, game, player, lines, **kw):
    return handle(svc, mail(lines, sender=f"{player}@example.org", tok=token(svc, game, player), game=game, **kw))


def reply_to(svc, since, player):
    (row, text), = [(r, m) for r, m in mails(svc, since) if r["player"] == player and r["kind"] != "report"] or \
        [(r, m) for r, m in mails(svc, since) if r["player"] == player]
    return row, text


def test_answers_as_people_write_them_are_played(svc, game):
    for shape in ("{n} {Key}", "{n}. {key}", "Q{n}: {key}", "{Key}.", "Question {n}: {key}"):
        player, n, key = asked(svc, game)
        moves = games.get(svc, game)["moves"]
        result = send(svc, game, player, [shape.format(n=n, key=key, Key=key.capitalize())])
        assert result.status == "applied", (shape, result.outcome)
        assert games.get(svc, game)["moves"] > moves


def test_a_try_that_is_not_an_answer_is_quoted_with_the_forms_read(svc, game):
    player, n, key = asked(svc, game)
    since = last_id(svc)
    result = send(svc, game, player, [f"{n} ?"])
    assert result.status == "rejected"
    _, text = reply_to(svc, since, player)
    assert "Not read as answers:" in text and f"> {n} ?" in text
    assert "8: left" in text and "Q8: left" in text  # the accepted forms


def test_a_signed_name_on_the_last_line_is_not_an_answer(svc, game):
    player, n, key = asked(svc, game)
    since = last_id(svc)
    result = send(svc, game, player, [f"{n}: {key}", "", "Alice Smith"])
    assert result.status == "applied", result.outcome
    _, text = reply_to(svc, since, player)
    assert "Stopped at this line" not in text and "Alice Smith" not in text
    # alone, the name is not taken for an answer either, and the reply says why
    player, n, key = asked(svc, game)
    since = last_id(svc)
    result = send(svc, game, player, ["Carol"])
    assert result.status == "rejected"
    assert "reads as your name" in reply_to(svc, since, player)[1]


def test_a_name_that_is_an_option_key_is_played(svc, game):
    player, n, key = asked(svc, game)
    moves = games.get(svc, game)["moves"]
    assert send(svc, game, player, ["Hello", key.capitalize()]).status == "applied"
    assert games.get(svc, game)["moves"] == moves + 1


def test_a_note_beside_a_turn_file_does_not_block_it(svc, game):
    from email.message import EmailMessage
    player, n, key = asked(svc, game)
    msg = EmailMessage()
    msg["From"] = f"{player}@example.org"
    msg["To"] = f"talisman+{token(svc, game, player)}@example.org"
    msg["Subject"] = f"Re: [{game}] Turn 1 report"
    msg["Message-ID"] = "<note-and-file@example.org>"
    msg.set_content("here it is\nsee the attachment\n")
    msg.add_attachment(f'answers = ["{n}: {key}"]\n'.encode(), maintype="application", subtype="toml",
                       filename="turn.toml")
    result = handle(svc, bytes(msg))
    assert result.status == "applied", result.outcome


def report_of(svc, since, player):
    """The Message-ID of the newest mail to `player` queued after `since` that asks them something."""
    rows = [r for r in svc.store.outbox_rows() if r["id"] > since and r["player"] == player]
    for r in reversed(rows):
        full = svc.store.outbox_by_message_id(r["message_id"])
        if "X-Talisman-Question" in msgspec.json.decode(full["headers"]):
            return r["message_id"]
    return None


def test_a_reply_to_an_old_report_is_not_played_against_the_new_question(svc, game):
    player, n, key = asked(svc, game)
    old = report_of(svc, 0, player)
    assert old, "the report asking the question says which one it asks"
    assert send(svc, game, player, [f"{n}: {key}"], headers={"In-Reply-To": old}).status == "applied"
    # the same player is asked again (or another is): reply once more to the *old* report
    nxt, n2, key2 = asked(svc, game)
    if nxt != player:
        old = report_of(svc, 0, nxt)
        assert send(svc, game, nxt, [f"{n2}: {key2}"], headers={"In-Reply-To": old}).status == "applied"
        nxt, n2, key2 = asked(svc, game)
        player = nxt
    assert old is not None
    stale = [r for r in svc.store.outbox_rows() if r["player"] == nxt and r["message_id"] == old]
    if not stale:  # the old report was someone else's: take this player's first one
        old = report_of(svc, 0, nxt)
    moves, since = games.get(svc, game)["moves"], last_id(svc)
    result = send(svc, game, nxt, [key2], headers={"In-Reply-To": old, "References": old})
    # the old report asked a question that has closed (the fixture's seed is fixed)
    assert str(n2) != msgspec.json.decode(svc.store.outbox_by_message_id(old)["headers"])["X-Talisman-Question"]
    assert result.status == "rejected", result.outcome
    assert games.get(svc, game)["moves"] == moves
    _, text = reply_to(svc, since, nxt)
    assert "has closed since" in text and f"question open for you now is {n2}" in text
    # numbered, the same answer is played whatever it replies to
    assert send(svc, game, nxt, [f"{n2}: {key2}"], headers={"In-Reply-To": old}).status == "applied"


def test_status_sends_the_report_again_at_once(svc, game):
    player, n, key = asked(svc, game)
    since, moves = last_id(svc), games.get(svc, game)["moves"]
    result = send(svc, game, player, ["status"])
    assert result.status == "applied", result.outcome
    assert games.get(svc, game)["moves"] == moves
    (row, text), = mails(svc, since)
    assert row["kind"] == "report" and row["player"] == player
    assert f"{n}: {key}" in text  # the question open, with its reply lines
    since = last_id(svc)
    assert send(svc, game, player, ["thanks"], subject=f"Re: [{game}] status").status == "applied"
    assert [r["kind"] for r, _ in mails(svc, since)] == ["report"]


def test_resign_asks_for_a_code_and_the_code_takes_the_seat_out(svc, game):
    from pbem.inbound import commands
    player, n, key = asked(svc, game)
    since, moves = last_id(svc), games.get(svc, game)["moves"]
    assert send(svc, game, player, ["resign"]).status == "applied"
    (row, text), = mails(svc, since)
    code = commands.resign_code(svc, svc.store.player(game, player))
    assert f"resign {code}" in text and row["to_addr"] == f"{player}@example.org"
    assert svc.store.player(game, player)["status"] == "active"  # nothing yet
    # a wrong code changes nothing and says so
    since = last_id(svc)
    send(svc, game, player, ["resign 00000000"])
    assert "not the one we sent you" in mails(svc, since)[0][1]
    assert svc.store.player(game, player)["status"] == "active"
    since = last_id(svc)
    assert send(svc, game, player, [f"resign {code}"]).status == "applied"
    assert svc.store.player(game, player)["status"] == "removed"
    assert games.get(svc, game)["moves"] == moves + 1 and games.get(svc, game)["status"] == "active"  # goes on
    assert svc.store.moves(game)[-1]["line"] == f"moderator: leave-game {player}"  # without the character
    texts = [t for _, t in mails(svc, since)]
    assert any("You have left the game" in t for t in texts)
    # and the seat takes no more orders
    assert send(svc, game, player, [f"{n}: {key}"]).status == "refused"


def test_a_reply_says_question_never_prompt(svc, game):
    player, n, key = asked(svc, game)
    since = last_id(svc)
    send(svc, game, player, [f"{int(n) + 5}: {key}"])  # a question that is not open
    (_, text), = [(r, t) for r, t in mails(svc, since) if r["player"] == player]
    assert "is not open" in text and "prompt" not in text.lower()


def test_a_resigned_seat_leaves_play_by_an_engine_move_and_the_game_goes_on(svc):
    """alice resigns by mail and confirms; the service plays `moderator: leave-game alice` (a move in the log):
    her character leaves play, the others hear it, the turns pass her by, she gets no more mail."""
    from test_reports import hero_config

    from pbem.inbound import commands
    g = newgame.create(svc, hero_config())
    assert asked(svc, g)[0] == "alice"
    send(svc, g, "alice", ["resign"])
    since = last_id(svc)
    send(svc, g, "alice", [f"resign {commands.resign_code(svc, svc.store.player(g, 'alice'))}"])
    state = games.state(svc, games.get(svc, g))
    alice = next(p for p in state.players if p.name == "alice")
    assert alice.out and not alice.spells and alice.space is None
    assert [row["line"] for row in svc.store.moves(g)][-1] == "moderator: leave-game alice"
    told = {r["player"]: m for r, m in mails(svc, since) if r["kind"] != "notice"}  # not her farewell
    assert "alice" not in told and {"bob", "carol"} <= set(told)
    assert all("alice resigns: the Wizard leaves play" in " ".join(m.split()) for m in told.values())
    assert all(re.search(r"alice: Wizard[^.]*, out of the game\.", " ".join(m.split())) for m in told.values())
    for _ in range(12):  # the game goes on, and never asks alice again
        player, n, key = asked(svc, g)
        assert player != "alice"
        assert send(svc, g, player, [f"{n}: {key}"]).status == "applied"
    for line in ("leave-game", "leave-game carol", "moderator: leave-game carol"):  # no player plays it, for anyone
        assert send(svc, g, "bob", [line]).status != "applied", line
    assert not any(p.out for p in games.state(svc, games.get(svc, g)).players if p.name != "alice")


def test_a_mail_command_is_one_entry_in_the_table(make_service, monkeypatch):
    """docs/contributing.md, "A mail command": one `Command` in `commands.TABLE` is read (its
    name and aliases, in any case), carried out before the answers, and held to its limits;
    nothing else changes. This is the recipe's own example."""
    from pbem.inbound import commands
    svc = make_service(press_per_mail=2)

    def greet(svc, game, player, value, check):  # a settings line's function: a note for the reply
        if value.lower() == "nobody":
            raise ValueError("greet whom?")
        return f"greet: {player} greets {value}"

    entry = commands.Command("greet", commands.Form.SETTING, commands.Stage.BEFORE, commands.setting(greet),
                             aliases=("grüße",), per_mail="press_per_mail", help="greet someone (a test)")
    monkeypatch.setattr(commands, "TABLE", [*commands.TABLE, entry])
    game = newgame.create(svc, game_config())
    player, n, key = asked(svc, game)
    since = last_id(svc)
    result = send(svc, game, player, ["Greet: the Dragon", "grüße: nobody", "greet: the Witch", f"{n}: {key}"])
    assert result.status == "applied", result.outcome
    _, text = reply_to(svc, since, player)
    assert f"greet: {player} greets the Dragon" in text and "greet: nobody: not done: greet whom?" in text
    assert "1 more line was not done: at most 2 lines in one mail (press_per_mail)" in text
    assert "greet: the Witch" not in text  # the third, over the limit
    assert games.get(svc, game)["moves"] >= 1  # the answer after them was played

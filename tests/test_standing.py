"""Standing orders: reading them, filing and cancelling by mail, answering before anyone is
asked, a mail's own lines first, and how many mails they save."""
import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import game_config, mail, token, turn_file

from pbem.core import games
from pbem.inbound import commands, orders
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame
from pbem.outbound import outbox
from pbem.pace import answering, standing

REPO = Path(__file__).resolve().parent.parent


def prompt(kind, *keys, id=7):
    return SimpleNamespace(id=id, kind=kind, options=[SimpleNamespace(key=k) for k in keys])


def rules(*texts):
    return [(n, answering.parse(t)) for n, t in enumerate(texts, 1)]


def send(svc, game, player, *lines, subject=None):
    return handle(svc, mail(list(lines), sender=f"{player}@example.org", tok=token(svc, game, player), game=game,
                            subject=subject))


def last_text(svc, player):
    row = [r for r in svc.store.outbox_rows() if r["player"] == player][-1]
    return outbox.mail(svc, row["id"])["text"]


@pytest.fixture
def fake(fake_svc):
    return fake_svc, newgame.create(fake_svc, game_config(options={"turn_cap": 40}))


# -- reading -----------------------------------------------------------------------------

def test_orders_are_read_and_bad_ones_explained():
    assert answering.parse("Reroll-If-Losing").prefer == ("reroll", "reroll-low")
    assert answering.parse("when fight answer fight").kinds == ("fight",)
    assert answering.parse("when  shop answer done, default").prefer == ("done", "default")
    assert answering.parse("when choose answer no or enter").prefer == ("no", "enter")
    for bad in ("always win", "when fight", "when fight answer", "reroll"):
        with pytest.raises(ValueError, match="not a standing order"):
            answering.parse(bad)


def test_standing_lines_are_kept_out_of_the_answer_lines():
    raw = mail(["standing: when fight answer fight", "Standing:  reroll-if-losing", "vacation: 5d",
                "17: left", "timezone: Europe/Berlin"], tok="a" * 20)
    order = orders.parse_mail(raw)
    assert order.lines == ["17: left"]
    assert [commands.normal(c) for c in order.calls] == [
        "standing: when fight answer fight", "standing: reroll-if-losing", "vacation: 5d", "timezone: Europe/Berlin"]
    tf = orders.parse_turn_file(b'answers = ["standing: cancel all", "left"]', "t.toml")
    assert tf.lines == ["left"] and [commands.normal(c) for c in tf.calls] == ["standing: cancel all"]


@pytest.mark.parametrize("orders_, p, expected", [
    (("reroll-if-losing",), prompt("combat-reroll", "reroll", "keep"), ("reroll", 1)),
    (("reroll-if-losing",), prompt("death-reroll", "reroll-low", "keep"), ("reroll-low", 1)),
    (("reroll-if-losing",), prompt("table-reroll", "reroll", "keep"), None),  # a table roll is not "losing"
    (("never-reroll",), prompt("table-reroll", "reroll", "keep"), ("keep", 1)),
    (("reroll-if-losing",), prompt("dice-reroll", "reroll", "keep"), ("reroll", 1)),  # armour, Portal, Crypt, Mines
    (("never-reroll",), prompt("dice-reroll", "reroll", "keep"), ("keep", 1)),
    # a direction is still to choose
    (("never-reroll-movement",), prompt("direction", "left", "right", "reroll"), None),
    (("never-reroll-movement",), prompt("direction", "left", "reroll"), ("left", 1)),
    (("never-reroll-movement", "when direction answer reroll or right"), prompt("direction", "left", "right", "reroll"),
     ("right", 2)),
    (("when fight answer evade or fight",), prompt("fight", "fight", "cast-invisibility"), ("fight", 1)),
    (("when shop answer default",), prompt("shop", "sword", "done"), ("done", 1)),
    (("when fight answer fight",), prompt("encounter", "encounter-space"), None),
    (("when fight answer evade", "when fight answer fight"), prompt("fight", "fight", "evade"), ("evade", 1)),
])
def test_which_order_answers_which_question(orders_, p, expected):
    assert answering.match(rules(*orders_), p, "alice") == expected


# -- by mail -----------------------------------------------------------------------------

def test_filing_listing_and_cancelling_by_mail(fake):
    svc, g = fake
    result = send(svc, g, "bob", "standing: reroll-if-losing", "standing: when fight answer fight",
                  "standing: when figth answer fight", "standing: fly")
    assert result.status == "applied" and svc.store.moves(g) == []
    text = last_text(svc, "bob")
    assert ("standing order 1 filed: reroll-if-losing" in text
            and "standing order 2 filed: when fight answer fight" in text)
    assert "no question of kind 'figth' is known yet" in text
    assert "standing: fly: not done: not a standing order" in text
    assert "Your standing orders" in text and "  2. when fight answer fight" in text
    send(svc, g, "bob", "standing: cancel 2")
    assert [o["n"] for o in standing.listing(svc, g, "bob")] == [1, 3]
    assert "1 standing order cancelled" in last_text(svc, "bob")
    send(svc, g, "bob", "standing: cancel 9")
    assert "no such standing order" in last_text(svc, "bob")
    send(svc, g, "bob", "standing: cancel all", "standing: never-reroll")
    assert [(o["n"], o["text"]) for o in standing.listing(svc, g, "bob")] == [(4, "never-reroll")]


def test_a_check_files_nothing(fake):
    svc, g = fake
    send(svc, g, "bob", "standing: when move answer rest", subject="CHECK [autumn]")
    assert standing.listing(svc, g, "bob") == [] and "would be filed" in last_text(svc, "bob")


def test_an_order_answers_at_once_and_then_before_anyone_is_asked(fake):
    svc, g = fake
    send(svc, g, "alice", "standing: when move answer rest")  # alice is asked now: answered at once
    log = svc.store.moves(g)
    assert [(m["actor"], m["line"]) for m in log] == [("standing", "alice: 1: rest")]
    since = svc.store.outbox_rows()[-1]["id"]
    send(svc, g, "bob", "left")  # bob's answer opens alice's next question: her order answers it
    assert [(m["actor"], m["line"]) for m in svc.store.moves(g)][1:] == [("bob", "bob: 2: left"),
                                                                       ("standing", "alice: 3: rest")]
    mails = [r for r in svc.store.outbox_rows() if r["id"] > since]
    assert {r["player"]: r["kind"] for r in mails} == {"bob": "receipt", "alice": "report"}
    assert "Your move (question 4)" in last_text(svc, "bob")  # bob's receipt already asks his next question
    assert "(used 2 times)" in last_text(svc, "alice")


def test_a_line_of_the_mail_comes_before_a_standing_order(fake):
    svc, g = fake
    send(svc, g, "alice", "standing: when move answer rest", "right")
    assert [(m["actor"], m["line"]) for m in svc.store.moves(g)] == [("alice", "alice: 1: right")]
    send(svc, g, "bob", "left", "4: right")  # 3 is alice's: her order answers it, then "4: right" fits
    assert [(m["actor"], m["line"]) for m in svc.store.moves(g)][1:] == [
        ("bob", "bob: 2: left"), ("standing", "alice: 3: rest"), ("bob", "bob: 4: right"),
        ("standing", "alice: 5: rest")]


def test_orders_in_a_turn_file_and_for_the_moderator_s_moves(fake):
    svc, g = fake
    tf = turn_file(g, "bob", token(svc, g, "bob"), ["standing: when move answer right"])
    assert handle(svc, tf, "turn", source="submit", filename="t.toml").status == "applied"
    moderator.answer(svc, g, "alice", "left")  # the moderator answers for alice; bob's order answers next
    assert [(m["actor"], m["line"]) for m in svc.store.moves(g)] == [("moderator", "alice: 1: left"),
                                                                    ("standing", "bob: 2: right")]


def test_a_removed_seat_s_orders_stop_and_a_new_holder_starts_without_them(fake):
    svc, g = fake
    send(svc, g, "bob", "standing: when move answer rest")
    moderator.replace_player(svc, g, "bob", "robert@example.org")
    assert standing.listing(svc, g, "bob") == []
    send(svc, g, "alice", "left")
    assert [m["actor"] for m in svc.store.moves(g)] == ["alice"]


def test_orders_that_would_play_forever_stop_and_ask(fake_svc, monkeypatch):
    monkeypatch.setattr(answering, "MAX_MOVES", 5)
    g = newgame.create(fake_svc, game_config(options={"turn_cap": 0}))
    send(fake_svc, g, "bob", "standing: when move answer rest")
    send(fake_svc, g, "alice", "standing: when move answer rest")
    assert len(fake_svc.store.moves(g)) == 5


def test_the_kind_of_the_question_is_shown_so_orders_can_name_it(svc, game):
    player = svc.engine.waiting_for(games.state(svc, games.get(svc, game)))[0]
    text = next(outbox.mail(svc, r["id"])["text"] for r in svc.store.outbox_rows()
                if r["player"] == player and r["kind"] == "report")
    kind = svc.engine.prompts(games.state(svc, games.get(svc, game)))[0].kind
    assert f'This question is of kind "{kind}"' in text and f"standing: when {kind} answer KEY" in text


# -- mails saved ---------------------------------------------------------------------------

def _bench():
    spec = importlib.util.spec_from_file_location("standing_bench", REPO / "bench" / "standing_orders.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_standing_orders_need_measurably_fewer_mails(make_service, tmp_path):
    """bench/standing_orders.py in small: the same games, played by mail with and without orders."""
    bench, totals = _bench(), {False: 0, True: 0}
    for seed in ("seed0", "seed1"):
        runs = {use: bench.play(make_service(home=tmp_path / f"{seed}-{use}"), rounds=5, standing=use, seed=seed)
                for use in (False, True)}
        assert runs[True].state_hash == runs[False].state_hash  # the very same game, move for move
        assert runs[True].moves == runs[False].moves and runs[True].by_standing > 0
        assert runs[True].mails < runs[False].mails
        for use, run in runs.items():
            totals[use] += run.mails
    assert totals[True] <= 0.75 * totals[False]
    print(f"\n5 rounds, 3 players, 2 games: {totals[False]} mails without standing orders, {totals[True]} with "
          f"(filing them included): {1 - totals[True] / totals[False]:.0%} fewer")

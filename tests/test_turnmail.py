"""Turn reports (pbem/outbound/turnmail.py): after an answer only the sender and the newly asked are
mailed, everyone when a turn begins; each report shows exactly the events its reader may see
of the moves since their last report, once each and in order."""
import pytest
from bymail import CATCH_UP, play_by_mail
from conftest import game_config, legal, mail, token

from pbem.core import games
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame
from pbem.outbound import outbox, turnmail

HEROES = {"alice": "wizard", "bob": "priest", "carol": "troll", "dave": "prophetess"}


@pytest.fixture
def heroes(svc):
    return newgame.create(svc, game_config(players=[(n, f"{n}@example.org") for n in HEROES], characters=HEROES,
                                         moderator="mod@example.org"))


def shown(text: str) -> list[str]:
    """The lines of a report's "Since your last report" part: turn headings and events."""
    if "\nSince your last report\n" not in text:
        return []
    part = text.split("\nSince your last report\n", 1)[1].split("\n\n", 1)[0]
    lines: list[str] = []
    for line in part.splitlines():
        if lines and not line.lstrip().startswith("- ") and line.startswith("    ") and lines[-1][1]:
            lines[-1][0] += " " + line.strip()  # a long event wrapped
        else:
            lines.append([line.strip().removeprefix("- "), line.lstrip().startswith("- ")])
    # a drawn card is explained beside its drawing (pbem/outbound/glossary.py): the event is before " — "
    return [text.split(" — ")[0] + "." if " — " in text else text for text, _ in lines]


def outbox_after(svc, since: int) -> list[dict]:
    return [outbox.mail(svc, r["id"]) for r in svc.store.outbox_rows() if r["id"] > since]


def last_id(svc) -> int:
    return max([0] + [r["id"] for r in svc.store.outbox_rows()])


def answer(svc, g, line=None, player=None):
    p, legal_line = legal(svc, g)
    player = player or p
    return handle(svc, mail([line or legal_line], sender=f"{player}@example.org", tok=token(svc, g, player), game=g))


def asked(eng, state) -> set[tuple[int, str]]:
    return {(p.id, n) for p in eng.prompts(state) for n in p.players}


@pytest.mark.parametrize("seed", [1, 2])
def test_who_is_mailed_and_every_report_holds_exactly_what_its_reader_missed(svc, heroes, seed):
    """Random games by mail (with standing orders, which play moves no one mails): after each
    answer the mails go to the sender and the newly asked, or to everyone when a turn began or
    the game ended; and each report lists the events its reader may see since their last
    report -- all of them, each once, in order, none from before."""
    eng = svc.engine
    for name in HEROES:  # orders that answer questions by themselves, between mails
        handle(svc, mail(["standing: never-reroll"], sender=f"{name}@example.org", tok=token(svc, heroes, name)))
    everyone = set(HEROES)
    mid_turn = turn_starts = caught_up = 0
    for step in play_by_mail(svc, heroes, seed, 150, seen=last_id(svc)):
        to = {r["player"] for r in step.new if r["kind"] in CATCH_UP}
        began = (any(e.kind == "turn" for e in step.events) or step.before.turn != step.state.turn
                 or step.state.over)
        if began:
            assert to == everyone, (step.events[:3], to)
            turn_starts += 1
        else:
            newly = {n for _, n in asked(eng, step.state) - asked(eng, step.before)}
            assert to == ({step.sender} | newly) - {None, eng.MODERATOR}, (step.sender, newly, to)
            mid_turn += to != everyone
        for r in step.new:
            if r["kind"] in CATCH_UP:
                text = outbox.mail(svc, r["id"])["text"]
                assert shown(text) == step.since[r["player"]], (r["player"], r["kind"])
                caught_up += len(step.since[r["player"]]) > len(eng.filter_events(step.events, r["player"]))
    assert mid_turn > 20 and turn_starts > 10 and caught_up > 20, (mid_turn, turn_starts, caught_up)


def test_a_mid_turn_answer_mails_the_sender_alone(svc, heroes):
    since = last_id(svc)
    assert answer(svc, heroes).status == "applied"  # alice casts Healing: she is asked whom to heal
    assert [(r["player"], r["kind"]) for r in outbox_after(svc, since)] == [("alice", "receipt")]
    assert svc.store.player(heroes, "bob")["reported_seq"] == 0  # bob has not heard of move 1 yet


def test_at_a_turn_change_everyone_hears_what_they_missed_grouped_by_turn(svc, heroes):
    missed = []
    while True:  # alice's turn, to its end
        since = last_id(svc)
        answer(svc, heroes)
        new = outbox_after(svc, since)
        if any(r["player"] == "carol" for r in new):
            break
        missed.append(games.get(svc, heroes)["moves"])
    assert missed, "alice's turn took more than one answer"
    carol = next(r for r in new if r["player"] == "carol")
    events = shown(carol["text"])
    assert "alice casts Healing." in events[0]  # from move 1, which carol was not mailed
    assert any(e.startswith("Turn 2: bob's turn") for e in events)
    assert "\n  Turn 2: bob's turn.\n" in carol["text"]  # a turn heads its own events
    assert "<strong>Turn 2: bob&#39;s turn.</strong>" in carol["html"]
    assert {r["player"] for r in new} == set(HEROES)
    assert {p["reported_seq"] for p in svc.store.players(heroes)} == {games.get(svc, heroes)["moves"]}


def test_reports_every_brings_a_report_after_each_move(svc, heroes):
    handle(svc, mail(["reports: every"], sender="dave@example.org", tok=token(svc, heroes, "dave")))
    assert games.get(svc, heroes)["config"]["players"][3]["reports"] == "every"
    since = last_id(svc)
    answer(svc, heroes)  # mid-turn: alice, and dave who asked for every move
    assert [r["player"] for r in outbox_after(svc, since)] == ["alice", "dave"]
    handle(svc, mail(["reports: turn"], sender="dave@example.org", tok=token(svc, heroes, "dave")))
    since = last_id(svc)
    answer(svc, heroes)
    assert [r["player"] for r in outbox_after(svc, since)] == ["alice"]
    handle(svc, mail(["reports: sometimes"], sender="dave@example.org", tok=token(svc, heroes, "dave")))
    assert 'write "reports: every"' in outbox.mail(svc, last_id(svc))["text"]


def test_reports_every_in_the_config(svc):
    config = game_config(name="every", players=[(n, f"{n}@example.org") for n in HEROES], characters=HEROES)
    config["players"][1]["reports"] = "sometimes"
    with pytest.raises(games.GameError, match="reports: every"):
        newgame.create(svc, config)
    config["players"][1]["reports"] = "every"
    g = newgame.create(svc, config)
    since = last_id(svc)
    answer(svc, g)
    assert [r["player"] for r in outbox_after(svc, since)] == ["alice", "bob"]


def test_the_moderator_answering_for_a_player_mails_that_player(svc, heroes):
    player, line = legal(svc, heroes)
    since = last_id(svc)
    moderator.answer(svc, heroes, player, line)
    assert [(r["player"], r["kind"]) for r in outbox_after(svc, since)] == [(player, "report")]


def test_a_rollback_mails_everyone_with_the_moves_they_missed(svc, heroes):
    answer(svc, heroes)
    answer(svc, heroes)
    since = last_id(svc)
    moderator.rollback(svc, heroes, 1)
    new = outbox_after(svc, since)
    assert sorted(r["player"] for r in new) == sorted(HEROES)
    bob = shown(next(r for r in new if r["player"] == "bob")["text"])
    assert bob[0] == "alice casts Healing." and bob[-1] == "The moderator puts the game back to move 1."
    alice = shown(next(r for r in new if r["player"] == "alice")["text"])
    assert alice == ["The moderator puts the game back to move 1."]  # she saw moves 1 and 2 already


def test_the_game_over_mail_tells_everyone_what_they_missed(svc, heroes):
    answer(svc, heroes)
    since = last_id(svc)
    moderator.end(svc, heroes)
    over = outbox_after(svc, since)
    assert sorted(r["player"] for r in over) == sorted(HEROES) and {r["kind"] for r in over} == {"gameover"}
    assert shown(next(r for r in over if r["player"] == "bob")["text"]) == ["alice casts Healing."]
    assert shown(next(r for r in over if r["player"] == "alice")["text"]) == []


def test_move_events_are_append_only_and_the_backlog_is_read_from_them(svc, heroes):
    answer(svc, heroes)
    with pytest.raises(Exception, match="append-only"):
        svc.store.db.execute("UPDATE move_events SET events = '[]'")
    with pytest.raises(Exception, match="append-only"):
        svc.store.db.execute("DELETE FROM move_events")
    backlog = turnmail.Backlog(svc, heroes, 0, 1)
    assert [e.text for e in backlog.since(0, "bob")] == ["alice casts Healing."]
    assert backlog.since(1, "bob") == []

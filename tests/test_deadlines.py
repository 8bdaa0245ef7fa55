"""Deadlines: when they fall, reminders, extensions, vacations, time zones, defaults, the
outage guard, `serve --now`, and substitutes (on the fake engine and an injected clock)."""
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import fake_engine
import pytest
from click.testing import CliRunner
from conftest import ADDRESS, StillClock, game_config, mail, token

from pbem.base import clock
from pbem.cli import main
from pbem.core import games
from pbem.core.games import GameError
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame
from pbem.outbound import notices, outbox
from pbem.pace import deadlines, pace, standing, vacation

PACE = {"deadline": "48h", "reminders": ["24h", "2h"], "vacation_days": 3}
T0 = datetime(2026, 10, 23, 9, 0, tzinfo=UTC)


@pytest.fixture
def clk():
    return StillClock(T0)


@pytest.fixture
def paced(make_service, clk):
    """(svc, game) on the fake engine: alice (Berlin) is asked first, then bob, in turn."""
    svc = make_service(engine=fake_engine, clock=clk)
    config = game_config(options={"turn_cap": 20}, pace=PACE, moderator="mod@example.org")
    config["players"][0]["timezone"] = "Europe/Berlin"
    return svc, newgame.create(svc, config)


def rows(svc, game, status=None):
    return [r for r in svc.store.db.query("SELECT * FROM deadlines WHERE game = ? ORDER BY prompt, player", [game])
            if status in (None, r["status"])]


def sent(svc, kind, since=0):
    return [r for r in svc.store.outbox_rows() if r["kind"] == kind and r["id"] > since]


def answer(svc, game, player, line):
    return handle(svc, mail([line], sender=f"{player}@example.org", tok=token(svc, game, player), game=game))


# -- durations, zones ------------------------------------------------------------------------

def test_durations_and_local_times():
    assert clock.duration("48h") == timedelta(hours=48) == clock.duration("2d")
    assert clock.duration("1d12h") == timedelta(hours=36) and clock.duration("90m") == timedelta(minutes=90)
    assert clock.duration("5", unit="d") == timedelta(days=5)
    for bad in ("", "soon", "48x", "-2h"):
        with pytest.raises(ValueError):
            clock.duration(bad)
    summer, winter = datetime(2026, 10, 24, 10, tzinfo=UTC), datetime(2026, 10, 26, 10, tzinfo=UTC)
    assert clock.local(summer, "Europe/Berlin") == "Saturday 24 October 2026, 12:00 CEST (10:00 UTC)"
    assert clock.local(winter, "Europe/Berlin") == "Monday 26 October 2026, 11:00 CET (10:00 UTC)"
    assert clock.local(winter, None) == "Monday 26 October 2026, 10:00 UTC"
    assert clock.span(timedelta(hours=47, minutes=50)) == "2 days" and clock.span(timedelta(minutes=90)) == "90 minutes"
    assert clock.words(timedelta(hours=48)) == "2 days" and clock.words(timedelta(hours=36)) == "36 hours"


def test_a_bad_pace_or_time_zone_is_refused(svc):
    for bad in ({"deadline": "soon"}, {"reminders": ["0h"]}, {"deadlne": "48h"}, {"guard_share": 2}):
        with pytest.raises(GameError):
            newgame.create(svc, game_config(name="bad", pace=bad))
    config = game_config(name="bad", pace=PACE)
    config["players"][0]["timezone"] = "Mars/Olympus"
    with pytest.raises(GameError, match="not a time zone"):
        newgame.create(svc, config)
    assert svc.store.game("bad") is None


def prompt(kind, *keys):
    return SimpleNamespace(kind=kind, options=[SimpleNamespace(key=k) for k in keys])


@pytest.mark.parametrize("kind, keys, expected", [
    ("direction", ("left", "right", "reroll"), "left"),
    ("crossing", ("cross", "continue"), "continue"),
    ("fight", ("fight", "evade", "cast-invisibility"), "fight"),
    ("combat-reroll", ("reroll", "keep"), "keep"),
    ("death-reroll", ("reroll-low", "keep"), "keep"),
    ("encounter", ("encounter-space", "encounter-bob"), "encounter-space"),
    ("start-spell", ("cast-healing", "done"), "done"),
    ("portal-try", ("portal-strength", "portal-craft", "no"), "no"),
    ("choose", ("enter", "no"), "no"),
    ("choose", ("doctor", "alchemist"), "doctor"),
    ("pay-heal", ("heal-2", "heal-1", "none"), "none"),
    ("inner-move", ("stay", "right"), "right"),
    ("spell-healing", ("bob", "alice"), "alice"),
    ("spell-target", ("alice", "bob"), "bob"),
    ("boon", ("boon-5", "boon-6", "pass"), "pass"),  # Nemesis: a Boon is left to the heroes who answer
    ("no-such-kind-yet", ("maybe", "done"), "done"),
    ("no-such-kind-yet", ("ogre@woods", "troll"), "troll"),
])
def test_the_documented_default_of_each_kind(kind, keys, expected):
    assert pace.default_key(prompt(kind, *keys), "alice") == expected


def test_every_kind_in_the_table_is_documented():
    doc = (Path(__file__).resolve().parent.parent / "docs" / "pace.md").read_text()
    for kind, _keys in pace.DEFAULTS.items():
        assert f"`{kind}`" in doc, kind


# -- opening, reminding, defaulting ----------------------------------------------------------

def test_a_deadline_opens_with_each_question_and_closes_with_its_answer(paced, clk):
    svc, g = paced
    [row] = rows(svc, g)
    assert (row["prompt"], row["player"], row["status"]) == (1, "alice", "open")
    assert row["due_at"] == "2026-10-25T09:00:00Z" and row["default_key"] == "left" and row["kind"] == "move"
    report = outbox.mail(svc, next(r["id"] for r in sent(svc, "report") if r["player"] == "alice"))["text"]
    assert "DEADLINE for question 1: Sunday 25 October 2026, 10:00 CET (09:00 UTC), in 2 days." in report
    assert '"left" is played for you' in report
    bobs = outbox.mail(svc, next(r["id"] for r in sent(svc, "report") if r["player"] == "bob"))["text"]
    assert "DEADLINE" not in bobs  # bob is not waited for
    clk.at(hours=5)
    assert answer(svc, g, "alice", "1: rest").status == "applied"
    first, second = rows(svc, g)
    assert (first["status"], first["closed_by"], first["closed_at"]) == ("answered", "alice", "2026-10-23T14:00:00Z")
    assert (second["player"], second["due_at"]) == ("bob", "2026-10-25T14:00:00Z")
    clk.at(days=30)
    assert deadlines.tick(svc)["defaults"] == 1  # bob's, not alice's answered one
    assert [m["actor"] for m in svc.store.moves(g)] == ["alice", "deadline"]


def test_reminders_go_once_at_each_lead_time_to_the_player_waited_for(paced, clk):
    svc, g = paced
    for hours in (0, 10, 23, 23.5):
        clk.at(hours=hours)
        assert deadlines.tick(svc) == {"reminders": 0, "defaults": 0, "held": 0}
    for hours in (24, 25, 30, 45.9):
        clk.at(hours=hours)
        deadlines.tick(svc)
    [first] = sent(svc, "reminder")
    assert (first["player"], first["created_at"]) == ("alice", "2026-10-24T09:00:00Z")
    clk.at(hours=46)
    deadlines.tick(svc)
    clk.at(hours=47)
    deadlines.tick(svc)
    assert [r["created_at"] for r in sent(svc, "reminder")] == ["2026-10-24T09:00:00Z", "2026-10-25T07:00:00Z"]
    text = outbox.mail(svc, sent(svc, "reminder")[1]["id"])["text"]
    assert "in 2 hours" in text and "Sunday 25 October 2026, 10:00 CET" in text
    assert (sent(svc, "reminder")[1]["subject"]
            == "[autumn] Reminder: please answer by Sunday 25 October 2026, 10:00 CET (09:00 UTC)")


def test_a_daemon_that_was_down_sends_one_reminder_not_two(paced, clk):
    svc, g = paced
    clk.at(hours=47)  # both lead times passed at once
    assert deadlines.tick(svc)["reminders"] == 1
    clk.at(hours=47, minutes=30)
    assert deadlines.tick(svc)["reminders"] == 0
    assert "in 60 minutes" in outbox.mail(svc, sent(svc, "reminder")[0]["id"])["text"]


def test_a_passed_deadline_plays_the_default_and_tells_the_player(paced, clk):
    svc, g = paced
    clk.at(hours=48)
    assert deadlines.tick(svc)["defaults"] == 1
    [move] = svc.store.moves(g)
    assert (move["actor"], move["player"], move["line"]) == ("deadline", "alice", "alice: 1: left")
    [notice] = sent(svc, "default")
    text = outbox.mail(svc, notice["id"])["text"]
    assert notice["player"] == "alice" and "a default answer was played for alice" in text
    assert "had come\nby its deadline, Sunday 25 October 2026, 10:00 CET (09:00 UTC)" in text and "\n  left\n" in text
    assert [r["player"] for r in sent(svc, "report") if r["id"] > notice["id"]] == ["bob"]
    assert "Since your last report\n  - alice rolls" in text and "  - alice draws card-" in text  # what the default did
    bobs = outbox.mail(svc, sent(svc, "report")[-1]["id"])["text"]
    assert "  - alice rolls" in bobs and "alice draws" not in bobs  # her card is hers alone
    assert rows(svc, g)[0]["status"] == "defaulted" and rows(svc, g)[1]["due_at"] == "2026-10-27T09:00:00Z"
    assert deadlines.tick(svc)["defaults"] == 0  # nothing twice


def test_extend_rearms_the_reminders_still_ahead_and_never_sends_one_twice(paced, clk):
    svc, g = paced
    for hours in (24, 46):
        clk.at(hours=hours)
        deadlines.tick(svc)
    assert len(sent(svc, "reminder")) == 2
    clk.at(hours=47)
    [row] = deadlines.extend(svc, g, None, timedelta(hours=3))  # due in 4 hours now
    assert row["due_at"] == "2026-10-25T12:00:00Z" and row["reminded"] == "86400"
    for hours in (47.5, 48, 49, 49.5):
        clk.at(hours=hours)
        assert deadlines.tick(svc)["defaults"] == 0
    clk.at(hours=50)
    deadlines.tick(svc)
    assert [r["created_at"] for r in sent(svc, "reminder")] == ["2026-10-24T09:00:00Z", "2026-10-25T07:00:00Z",
                                                                 "2026-10-25T10:00:00Z"]
    deadlines.extend(svc, g, "alice", timedelta(0))  # the same due time again: the same Message-ID
    deadlines.tick(svc)
    assert len(sent(svc, "reminder")) == 3
    clk.at(hours=51)
    assert deadlines.tick(svc)["defaults"] == 1
    with pytest.raises(GameError, match="no open deadline"):
        deadlines.extend(svc, g, "alice", timedelta(hours=1))


def test_the_moderator_extends_from_the_command_line(paced, clk, tmp_path):
    svc, g = paced
    result = CliRunner().invoke(main, ["--home", svc.settings.home, "game", "extend", g, "alice", "1d"])
    assert result.exit_code == 0, result.output
    assert "alice: question 1 due" in result.output
    assert rows(svc, g)[0]["due_at"] > "2026-10-25T09:00:00Z"
    listed = CliRunner().invoke(main, ["--home", svc.settings.home, "game", "deadlines", g, "--json"])
    assert json.loads(listed.output)[0]["player"] == "alice"
    bad = CliRunner().invoke(main, ["--home", svc.settings.home, "game", "extend", g, "soon"])
    assert bad.exit_code == 2


def test_serve_once_now_plays_what_is_due_at_that_time(tmp_path):
    home, cfg = tmp_path / "var", tmp_path / "game.toml"
    cfg.write_text(f'[game]\nname = "autumn"\naddress = "{ADDRESS}"\nseed = "cli"\n'
                   '[game.pace]\ndeadline = "48h"\nreminders = ["24h"]\n'
                   '[[players]]\nname = "alice"\nemail = "alice@example.org"\n'
                   '[[players]]\nname = "bob"\nemail = "bob@example.org"\n')
    run = lambda *a: CliRunner().invoke(main, ["--home", str(home), *map(str, a)])  # noqa: E731
    assert run("init").exit_code == 0
    assert run("game", "new", cfg).exit_code == 0
    due = json.loads(run("game", "deadlines", "autumn", "--json").output)[0]["due_at"]
    opened = clock.parse(due) - timedelta(hours=48)
    assert run("serve", "--once", "--now", (opened + timedelta(hours=25)).isoformat()).exit_code == 0
    assert run("log", "autumn", "--json").output.strip() == "[]"
    assert any(r["kind"] == "reminder" for r in json.loads(run("outbox", "list", "--json").output))
    assert run("serve", "--once", "--now", due).exit_code == 0
    [move] = json.loads(run("log", "autumn", "--json").output)
    assert move["actor"] == "deadline"


# -- vacations and time zones ------------------------------------------------------------------

def test_a_vacation_by_mail_pauses_deadlines_within_the_allowance(paced, clk):
    svc, g = paced
    clk.at(hours=10)
    result = answer(svc, g, "alice", "vacation: 2d")
    assert result.status == "applied" and svc.store.moves(g) == []
    assert rows(svc, g)[0]["due_at"] == "2026-10-27T09:00:00Z"  # 2 days later
    receipt = outbox.mail(svc, svc.store.outbox_rows()[-1]["id"])
    assert receipt["player"] == "alice" and receipt["kind"] == "receipt"
    assert "vacation: your deadlines wait until Sunday 25 October 2026, 20:00 CET" in receipt["text"]
    assert "You are on vacation until" in receipt["text"] and "vacation left in this game: 1 day" in receipt["text"]
    answer(svc, g, "alice", "vacation: 2d")
    assert "not done: only 1 day of vacation left" in outbox.mail(svc, svc.store.outbox_rows()[-1]["id"])["text"]
    clk.at(hours=40)
    answer(svc, g, "alice", "vacation: end")
    assert rows(svc, g)[0]["due_at"] == "2026-10-26T15:00:00Z"  # paused 30 hours: 48 + 30
    assert "vacation left in this game: 42 hours" in outbox.mail(svc, svc.store.outbox_rows()[-1]["id"])["text"]
    answer(svc, g, "alice", "vacation: end")
    assert "not done: you are not on vacation" in outbox.mail(svc, svc.store.outbox_rows()[-1]["id"])["text"]


def test_no_reminder_goes_during_a_vacation(paced, clk):
    svc, g = paced
    clk.at(hours=30)
    with svc.store.transaction():
        vacation.start(svc, games.get(svc, g), "alice", timedelta(days=1), by="alice")
    assert rows(svc, g)[0]["due_at"] == "2026-10-26T09:00:00Z" and rows(svc, g)[0]["reminded"] == ""
    clk.at(hours=48)  # the 24h reminder's time, while away
    assert deadlines.tick(svc)["reminders"] == 0
    clk.at(hours=54)  # back
    assert deadlines.tick(svc)["reminders"] == 1


def test_a_question_opened_during_a_vacation_waits_for_its_end(paced, clk):
    svc, g = paced
    with svc.store.transaction():
        vacation.start(svc, games.get(svc, g), "bob", timedelta(days=2), by="bob")
    clk.at(hours=1)
    answer(svc, g, "alice", "rest")
    assert rows(svc, g)[1]["due_at"] == "2026-10-27T09:00:00Z"  # vacation ends at 25 Oct 09:00, then 48h


def test_the_moderator_sets_any_vacation_from_the_command_line(paced, clk):
    svc, g = paced
    result = CliRunner().invoke(main, ["--home", svc.settings.home, "player", "vacation", g, "alice", "10"])
    assert result.exit_code == 0, result.output
    assert "alice: on vacation until" in result.output
    with pytest.raises(GameError, match="left"):
        with svc.store.transaction():
            vacation.start(svc, games.get(svc, g), "alice", timedelta(days=1), by="alice")
    back = CliRunner().invoke(main, ["--home", svc.settings.home, "player", "vacation", g, "alice", "0"])
    assert back.exit_code == 0 and "back from vacation" in back.output
    more = CliRunner().invoke(main, ["--home", svc.settings.home, "player", "vacation", g, "alice",
                                     "--allowance", "30"])
    assert more.exit_code == 0 and games.seat_config(games.get(svc, g), "alice")["vacation_days"] == 30
    with svc.store.transaction():
        vacation.start(svc, games.get(svc, g), "alice", timedelta(days=15), by="alice")  # within 30 days now
    assert CliRunner().invoke(main, ["--home", svc.settings.home, "player", "vacation", g, "alice"]).exit_code == 2


def test_a_timezone_line_changes_how_times_show(paced, clk):
    svc, g = paced
    handle(svc, mail(["timezone: America/New_York"], sender="alice@example.org", tok=token(svc, g, "alice")))
    text = outbox.mail(svc, svc.store.outbox_rows()[-1]["id"])["text"]
    assert "DEADLINE for question 1: Sunday 25 October 2026, 05:00 EDT (09:00 UTC)" in text
    handle(svc, mail(["timezone: Atlantis/Capital"], sender="alice@example.org", tok=token(svc, g, "alice")))
    assert "timezone: Atlantis/Capital: not done" in outbox.mail(svc, svc.store.outbox_rows()[-1]["id"])["text"]
    assert games.seat_config(games.get(svc, g), "alice")["timezone"] == "America/New_York"


# -- the guard, removed seats, rollbacks ------------------------------------------------------

def test_the_guard_holds_defaults_when_most_players_miss_and_tells_the_moderator(make_service, clk):
    svc = make_service(engine=fake_engine, clock=clk)
    ids = [newgame.create(svc, game_config(name=n, pace=PACE, moderator="mod@example.org",
                                         players=[(f"{n}1", f"{n}1@example.org"), (f"{n}2", f"{n}2@example.org")]))
           for n in ("one", "two", "three")]
    clk.at(hours=40)
    answer(svc, "three", "three1", "1: rest")  # heard from: one of three waited on
    clk.at(hours=48)
    assert deadlines.tick(svc) == {"reminders": 0, "defaults": 0, "held": 2}  # 2 of 3 missed: > 50%
    assert [g for g in ids if svc.store.moves(g) and svc.store.moves(g)[0]["actor"] == "deadline"] == []
    assert notices.send_due(svc) == 1  # both games' alerts in one digest
    [alert] = [r for r in svc.store.outbox_rows() if r["to_addr"] == "mod@example.org"]
    text = outbox.mail(svc, alert["id"])["text"]
    assert "2 notices (2 stuck games)" in alert["subject"] and text.count("Defaults held") == 2
    clk.at(hours=49)
    assert deadlines.tick(svc)["held"] == 0
    assert notices.send_due(svc) == 0  # told once
    assert deadlines.resume(svc, "one") == 1
    assert deadlines.tick(svc)["defaults"] == 1
    assert svc.store.moves("one")[0]["actor"] == "deadline" and svc.store.moves("two") == []
    deadlines.extend(svc, "two", None, timedelta(hours=24))
    assert rows(svc, "two")[0]["guard"] == "" and rows(svc, "two")[0]["due_at"] == "2026-10-26T10:00:00Z"
    with pytest.raises(GameError, match="held"):
        deadlines.resume(svc, "two")


def test_one_silent_player_never_trips_the_guard(paced, clk):
    svc, g = paced
    for day in range(1, 12):
        clk.at(days=2 * day)
        assert deadlines.tick(svc)["held"] == 0
    assert all(m["actor"] == "deadline" for m in svc.store.moves(g)) and len(svc.store.moves(g)) == 11


def test_a_removed_seat_gets_defaults_but_no_reminders(paced, clk):
    svc, g = paced
    moderator.remove_player(svc, g, "alice")
    clk.at(hours=47)
    assert deadlines.tick(svc)["reminders"] == 0
    clk.at(hours=48)
    assert deadlines.tick(svc)["defaults"] == 1


def test_a_rollback_reopens_the_question_with_a_new_deadline(paced, clk):
    svc, g = paced
    clk.at(hours=1)
    answer(svc, g, "alice", "rest")
    clk.at(hours=2)
    moderator.rollback(svc, g, 0)
    [alice] = rows(svc, g, "open")
    assert (alice["prompt"], alice["player"], alice["opened_at"]) == (1, "alice", "2026-10-23T11:00:00Z")


def test_a_game_ended_early_plays_no_more_defaults(paced, clk):
    svc, g = paced
    moderator.end(svc, g)
    clk.at(days=5)
    assert deadlines.tick(svc) == {"reminders": 0, "defaults": 0, "held": 0}


# -- substitutes ------------------------------------------------------------------------------

def test_a_substitute_gets_a_briefing_and_the_history_keeps_both(paced, clk):
    svc, g = paced
    for i, (player, line) in enumerate([("alice", "left"), ("bob", "right"), ("alice", "rest")]):
        clk.at(hours=i + 1)
        answer(svc, g, player, line)
    with svc.store.transaction():
        standing.file(svc, g, "bob", "when move answer rest")
        vacation.start(svc, games.get(svc, g), "bob", timedelta(days=1), by="bob")
    clk.at(hours=40)
    moderator.replace_player(svc, g, "bob", "robert@example.org")
    [brief] = sent(svc, "briefing")
    text = outbox.mail(svc, brief["id"])["text"]
    assert brief["to_addr"] == "robert@example.org" and "you take over the seat of bob" in text
    assert "bob rolls" in text and "bob draws card-" in text  # bob's own view: his secret card
    assert "alice draws card-" not in text  # not alice's
    assert "Your character: Walker" in text
    assert standing.listing(svc, g, "bob") == []
    assert not vacation.on_vacation(svc, g, "bob", clk.t)
    assert rows(svc, g, "open")[0]["due_at"] == "2026-10-27T01:00:00Z"  # a full deadline from now for the newcomer
    seat = games.seat_config(games.get(svc, g), "bob")
    assert seat["email"] == "robert@example.org" and seat["replaced"][0]["email"] == "bob@example.org"
    assert [m["player"] for m in svc.store.moves(g)] == ["alice", "bob", "alice"]  # the log is untouched


def test_a_default_the_engine_refuses_is_held_for_the_moderator(paced, clk, monkeypatch):
    svc, g = paced
    svc.store.db.execute("UPDATE deadlines SET default_key = 'gone'")
    monkeypatch.setattr(deadlines, "default_key", lambda prompt, player: "bogus")
    clk.at(hours=48)
    assert deadlines.tick(svc)["defaults"] == 0
    assert svc.store.moves(g) == [] and rows(svc, g)[0]["guard"] == "held"
    assert notices.send_due(svc) == 1
    [notice] = [r for r in svc.store.outbox_rows() if r["to_addr"] == "mod@example.org"]
    assert "was refused" in notice["subject"]
    assert deadlines.tick(svc)["defaults"] == 0  # held: not tried again every cycle


@pytest.mark.parametrize("kind,keys,want", [
    ("sea-hire", ["kogge", "city"], "city"),  # a missed deadline hires no ship
    ("sea-naval", ["sea-chart", "sail"], "sail"),
    ("sea-course", ["sail-on", "turn-home"], "turn-home"),
    ("dice-reroll", ["reroll", "keep"], "keep"),
    ("healing-window", ["heal-bob", "no"], "no"),
])
def test_defaults_spend_nothing_in_the_packs_questions_too(kind, keys, want):
    from engine.state import Option, Prompt
    from pbem.pace.pace import default_key
    assert default_key(Prompt(1, ["bob"], kind, "?", [Option(k, k) for k in keys]), "bob") == want

"""Weeks of games walked through time: every reminder and every default where it belongs,
daylight-saving changes included; a game whose players all go silent still ends."""
import asyncio
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import fake_engine
import pytest
from conftest import StillClock, game_config, mail, token
from freezegun import freeze_time

from pbem import daemon
from pbem.core import games
from pbem.moderate import moderator, newgame
from pbem.outbound import outbox
from pbem.pace import deadlines, schedule, standing
from pbem.pace.pace import pace_of
from pbem.sources import dropfolder
from pbem.store import utcnow

PACE = {"deadline": "48h", "reminders": ["24h", "2h"], "vacation_days": 14}
ZONES = {"alice": "Europe/Berlin", "bob": "America/New_York"}


def when(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def local(t, tz):
    """How a time reads in a zone, computed here independently of pbem.base.clock."""
    d = t.astimezone(ZoneInfo(tz))
    return f"{d:%A} {d.day} {d:%B %Y}, {d:%H:%M} {d.tzname()}"


@pytest.mark.timeout(120)
def test_three_weeks_hour_by_hour_across_daylight_saving(make_service):
    """alice (Berlin) never answers; bob (New York) answers 6 hours after each first reminder.
    Europe leaves summer time on 25 October 2026, New York on 1 November."""
    start = datetime(2026, 10, 23, 9, 0, tzinfo=UTC)
    with freeze_time(start, real_asyncio=True) as frozen:
        svc = make_service(engine=fake_engine, clock=utcnow)
        config = game_config(options={"turn_cap": 10}, pace=PACE)
        for p in config["players"]:
            p["timezone"] = ZONES[p["name"]]
        g = newgame.create(svc, config)
        first = svc.store.outbox_rows()
        reply_at = {}  # bob's prompt -> when he answers
        for _ in range(21 * 24):
            frozen.tick(timedelta(hours=1))
            now = utcnow()
            for row in svc.store.outbox_rows():
                if row["kind"] == "reminder" and row["player"] == "bob":
                    prompt = int(outbox.mail(svc, row["id"])["text"].split("question ")[1].split(".")[0])
                    reply_at.setdefault(prompt, when(row["created_at"]) + timedelta(hours=6))
            for prompt, at in reply_at.items():
                if at == now:
                    dropfolder.drop(svc.settings.inbox_path, f"bob{prompt}.eml",
                                    mail([f"{prompt}: rest"], sender="bob@example.org", tok=token(svc, g, "bob")))
            asyncio.run(daemon.cycle(svc))

    moves = svc.store.moves(g)
    assert games.get(svc, g)["status"] == "ended" and len(moves) == 10
    # Independently of the deadlines table: prompt k opens with move k-1 and closes with move k.
    opened = [start] + [when(m["at"]) for m in moves[:-1]]
    expected_reminders, expected_defaults = [], []
    for k, (m, t0) in enumerate(zip(moves, opened), start=1):
        who, due, closed = m["player"], t0 + timedelta(hours=48), when(m["at"])
        assert who == ("alice" if k % 2 else "bob")
        if who == "alice":
            assert m["actor"] == "deadline" and closed == due and m["line"] == f"alice: {k}: left"
            expected_defaults.append((who, k, due))
        else:
            assert m["actor"] == "bob" and closed == t0 + timedelta(hours=30)
        for lead in (24, 2):
            if due - timedelta(hours=lead) < closed:
                expected_reminders.append((who, k, due - timedelta(hours=lead), due))

    sent = [r for r in svc.store.outbox_rows() if r["kind"] == "reminder"]
    assert [(r["player"], when(r["created_at"])) for r in sent] == [(w, at) for w, _, at, _ in expected_reminders]
    assert len(sent) == 5 * 2 + 5 * 1  # alice: both reminders of each deadline; bob answers before his 2h one
    for r, (who, k, _, due) in zip(sent, expected_reminders):
        text = outbox.mail(svc, r["id"])["text"]
        assert f"question {k}." in text and local(due, ZONES[who]) in r["subject"] and local(due, ZONES[who]) in text
        assert r["status"] == "sent"
    defaults = [r for r in svc.store.outbox_rows() if r["kind"] == "default"]
    assert [(r["player"], when(r["created_at"])) for r in defaults] == [(w, t) for w, _, t in expected_defaults]
    assert len(defaults) == 5 and moves[-1]["actor"] == "bob"  # bob's answer ends the game
    assert {r["player"] for r in svc.store.outbox_rows() if r["kind"] == "gameover"} == {"alice", "bob"}

    # Across the change: alice's first deadline, 48 real hours after 11:00 summer time, is 10:00 winter time.
    assert local(start + timedelta(hours=48), "Europe/Berlin") == "Sunday 25 October 2026, 10:00 CET"
    alice_first = next(r for r in first if r["player"] == "alice" and r["kind"] == "report")
    assert "Sunday 25 October 2026, 10:00 CET (09:00 UTC)" in outbox.mail(svc, alice_first["id"])["text"]
    bob_times = [local(due, "America/New_York") for who, _, _, due in expected_reminders if who == "bob"]
    assert any(" EDT" in t for t in bob_times) and any(" EST" in t for t in bob_times)
    # after the end nothing more was sent
    assert max(when(r["created_at"]) for r in svc.store.outbox_rows()) == when(moves[-1]["at"])


def _next_event(svc, game_id, now):
    """The next time something is due in the game: a reminder or a deadline."""
    pace = pace_of(games.get(svc, game_id))
    times = []
    for row in schedule.open_rows(svc, game_id):
        due = when(row["due_at"])
        times.append(due)
        times += [due - r for r in pace.reminders if due - r > now]
    return min(times) if times else None


@pytest.mark.timeout(300)
def test_a_game_whose_players_all_go_silent_still_ends_on_defaults(make_service):
    """The real engine, three players who never write: only reminders and defaults, up to the
    end (options.turn_cap rounds). Cards only the moderator can settle are skipped by them."""
    clock = StillClock(datetime(2026, 3, 1, 8, 0, tzinfo=UTC))
    svc = make_service(clock=clock)
    players = [("alice", "alice@example.org"), ("bob", "bob@example.org"), ("carol", "carol@example.org")]
    g = newgame.create(svc, game_config(seed="silent", players=players, options={"turn_cap": 2}, pace=PACE,
                                      moderator="mod@example.org"))
    days = 0
    while games.get(svc, g)["status"] == "active":
        st = games.state(svc, games.get(svc, g))
        if svc.engine.MODERATOR in svc.engine.waiting_for(st):
            moderator.answer(svc, g, "moderator", "skip")
            continue
        clock.t = _next_event(svc, g, clock.t)
        deadlines.tick(svc)
        days = (clock.t - datetime(2026, 3, 1, 8, 0, tzinfo=UTC)).days
        assert days < 365, "the game does not end"
    st = games.state(svc, games.get(svc, g))
    assert st.over and st.turn >= 2
    actors = {m["actor"] for m in svc.store.moves(g)}
    assert actors <= {"deadline", "moderator"} and "deadline" in actors
    n_defaults = sum(m["actor"] == "deadline" for m in svc.store.moves(g))
    reminders = [r for r in svc.store.outbox_rows() if r["kind"] == "reminder"]
    assert len(reminders) == 2 * n_defaults  # 24h and 2h before every deadline missed
    skips = sum(m["actor"] == "moderator" for m in svc.store.moves(g))
    print(f"\nsilent game: {n_defaults} defaults, {len(reminders)} reminders, {skips} moderator rulings, "
          f"ended after {days} days (turn {st.turn})")


def test_standing_orders_keep_answering_through_the_walk(make_service):
    """bob's standing order answers every question he is asked, at once: only alice has deadlines."""
    clock = StillClock(datetime(2026, 10, 23, 9, 0, tzinfo=UTC))
    svc = make_service(engine=fake_engine, clock=clock)
    g = newgame.create(svc, game_config(options={"turn_cap": 6}, pace=PACE))
    with svc.store.transaction():
        standing.file(svc, g, "bob", "when move answer rest")
    while games.get(svc, g)["status"] == "active":
        clock.t = _next_event(svc, g, clock.t)
        deadlines.tick(svc)
    moves = svc.store.moves(g)
    assert [m["actor"] for m in moves] == ["deadline", "standing"] * 3
    assert {r["player"] for r in svc.store.outbox_rows() if r["kind"] == "reminder"} == {"alice"}

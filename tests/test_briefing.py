"""The substitute's briefing (pbem/pace/briefing.py): what happened lately, read from the events
stored per move, as the seat may see them -- the current turn and a full round before it, or
the seat's unreported backlog if that reaches further back -- with rollbacks noted, and
replayed for the early moves of a game older than the stored events.

What a seat should read is worked out here from the move log and the engine alone (every
logged move applied again from the game's start), never from what the service stored."""
import asyncio

import pytest
from bymail import play_by_mail
from conftest import game_config, mail, token
from test_leaks import HEROES, named, readable, spells_held

from pbem.core import games
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame
from pbem.outbound import outbox, render, reports, sending, turnmail
from pbem.pace import briefing

NAMES = [n for n, _ in HEROES]


def lately(text: str) -> list[str]:
    """The lines of a briefing's "what happened lately" part: turn headings and events."""
    head = "\nWHAT HAPPENED LATELY (as this seat saw it)\n"
    if head not in text:
        return []
    part = text.split(head, 1)[1].split("\n\n", 1)[0]
    return [line.strip().removeprefix("- ") for line in part.splitlines()]


def history(svc, g: str) -> list[tuple[int, list]]:
    """(seq, events) of every logged move, from the engine: each move applied again, a
    rollback back to the state it names (with the note the service writes for it)."""
    eng = svc.engine
    states = [games.state_at(svc, games.get(svc, g), 0)]
    out = []
    for row in svc.store.moves(g):
        if row["kind"] == "rollback":
            back = int(row["line"].split()[1])
            state, events = states[back], [turnmail.rollback_note(back)]
        else:
            state, events = eng.apply(states[-1], eng.parse_move(row["line"]))
        states.append(state)
        out.append((row["seq"], events))
    return out


def expected(svc, g: str, name: str, since: int) -> list[str]:
    """What the briefing should tell `name`'s seat (reported up to move `since`): the texts of
    the events it may see from the turn a full round before the current one, or from its
    first unreported move if that is earlier."""
    flat = [(seq, e) for seq, events in history(svc, g) for e in svc.engine.filter_events(events, name)]
    turns = [i for i, (_, e) in enumerate(flat) if e.kind == "turn"]
    back = len(NAMES) + 1
    start = turns[-back] if len(turns) >= back else 0
    unreported = next((i for i, (seq, _) in enumerate(flat) if seq > since), len(flat))
    return [e.text for _, e in flat[min(start, unreported):]]


def briefing_of(svc, g: str, name: str) -> dict:
    [row] = [r for r in svc.store.outbox_rows() if r["kind"] == "briefing" and r["player"] == name][-1:]
    return outbox.mail(svc, row["id"])


@pytest.fixture
def heroes(svc):
    """A real game of four characters that start with Spells, played by mail a while, then
    rolled back by the moderator and played on."""
    g = newgame.create(svc, game_config(name="brief", seed="brief-seed", players=[(n,
                                                                                   f"{n}@example.org") for n in NAMES],
                                      characters=dict(HEROES)))
    for _ in play_by_mail(svc, g, 1, 90):
        pass
    moderator.rollback(svc, g, 80)
    for _ in play_by_mail(svc, g, 2, 8):  # a few turns: the last round reaches back past the rollback
        pass
    return g


def test_the_briefing_tells_the_last_round_as_the_seat_saw_it_and_no_one_elses_spells(svc, heroes):
    g, eng = heroes, svc.engine
    state = games.state(svc, games.get(svc, g))
    held = spells_held(svc, state)
    public = render.board(svc, reports.make_frame(svc, state)).text
    canaries = 0
    for name in ("bob", "carol"):
        since = svc.store.player(g, name)["reported_seq"]
        moderator.replace_player(svc, g, name, f"new-{name}@example.org")
        row = briefing_of(svc, g, name)
        want = expected(svc, g, name, since)
        assert lately(row["text"]) == want
        assert sum(w.startswith("Turn ") for w in want) >= len(NAMES) + 1  # a full round, and the turn now
        assert "The moderator puts the game back to move 80." in want  # the rollback is noted where it was
        others = [e.text for _, events in history(svc, g) for e in events
                  if e.to is not None and name not in e.to][-20:]
        assert others and not set(others) & set(lately(row["text"]))  # others' private events: not shown
        asked = [p["question"] + " " + " ".join(o["text"] for o in p["options"])
                 for p in eng.view(state, name)["prompt"]]
        visible = "\n".join([public, *asked, *want])
        canary = {s for o in held if o != name for s in held[o]} - held[name]
        canary = {s for s in canary if not named(s, visible)}
        text = readable(svc, row)
        assert not [s for s in canary if named(s, text)], name
        assert all(named(s, text) for s in held[name])  # the seat's own Spells, on its sheet
        canaries += len(canary)
    assert canaries > 0, "no Spell held by another player to look for"


def test_the_briefing_reads_stored_events_and_replays_moves_older_than_them(svc, heroes):
    """A game from before migration 5 has no stored events for its early moves: the briefing
    replays them (a rollback among them too) and reads the same as with all events stored."""
    g = heroes
    game = games.get(svc, g)
    last = game["moves"]
    for name in NAMES:
        since = svc.store.player(g, name)["reported_seq"]
        want = expected(svc, g, name, since)
        assert [e.text for e in briefing.recent_events(svc, game, name, since)] == want
    svc.store.db.execute("DROP TRIGGER move_events_no_delete")  # only to make the game look older
    [rollback] = [r["seq"] for r in svc.store.moves(g) if r["kind"] == "rollback"]
    for gone in (rollback + 1, last):  # the rollback is among the moves without events
        svc.store.db.execute("DELETE FROM move_events WHERE game = ? AND seq <= ?", [g, gone])
        assert not svc.store.move_events(g, 0, gone)
        for name in NAMES:
            since = svc.store.player(g, name)["reported_seq"]
            got = [e.text for e in briefing.recent_events(svc, game, name, since)]
            assert got == expected(svc, g, name, since), (gone, name)
    moderator.replace_player(svc, g, "dave", "new-dave@example.org")  # and the mail says so
    assert lately(briefing_of(svc, g, "dave")["text"]) == got


@pytest.fixture
def fake(fake_svc):
    return fake_svc, newgame.create(fake_svc, game_config(options={"turn_cap": 40}))


def move(svc, g, player, line):
    """One answer: by mail from an active seat, by the moderator for a removed one."""
    if svc.store.player(g, player)["status"] == "removed":
        return moderator.answer(svc, g, player, line)
    return handle(svc, mail([line], sender=f"{player}@example.org", tok=token(svc, g, player), game=g))


def test_a_seat_left_unreported_is_told_all_it_missed_up_to_the_lookback(fake, monkeypatch):
    """bob was removed at move 2: no mail told him of the moves since, so the briefing goes
    back to them, past the last round -- but never more than LOOKBACK moves."""
    svc, g = fake
    for player in ("alice", "bob"):
        move(svc, g, player, "left")
    moderator.remove_player(svc, g, "bob")
    for _ in range(4):
        for player in ("alice", "bob"):
            move(svc, g, player, "rest")
    assert svc.store.player(g, "bob")["reported_seq"] == 2
    game = games.get(svc, g)
    texts = [e.text for e in briefing.recent_events(svc, game, "bob", 2)]
    drawn = [t for t in texts if t.startswith("bob draws card-")]
    assert [t for t in texts if t not in drawn] == [t for seq in range(3, 11) for t in (
        ["alice rests and takes 1 gold", "bob's turn"] if seq % 2 else ["bob rests and takes 1 gold", "alice's turn"])]
    assert len(drawn) == 4 and not any(t.startswith("alice draws") for t in texts)  # his own cards, never mailed
    # reported up to now: only the current turn (alice's) and the round before it (alice's, bob's)
    round_only = [e.text for e in briefing.recent_events(svc, game, "bob", 10)]
    assert round_only == texts[-6:] and round_only[0] == "alice's turn"
    monkeypatch.setattr(briefing, "LOOKBACK", 2)  # moves 9 and 10 only, however far the backlog goes
    assert [e.text for e in briefing.recent_events(svc, game, "bob", 2)] == texts[-5:]
    monkeypatch.undo()
    moderator.replace_player(svc, g, "bob", "robert@example.org")
    assert lately(briefing_of(svc, g, "bob")["text"]) == texts
    assert svc.store.player(g, "bob")["reported_seq"] == 10  # told: his next report starts after it


def test_a_briefing_after_a_rollback_notes_it_and_heads_each_turn(fake):
    svc, g = fake
    for player, line in [("alice", "left"), ("bob", "right"), ("alice", "rest"), ("bob", "rest")]:
        move(svc, g, player, line)
    moderator.rollback(svc, g, 2)
    move(svc, g, "alice", "right")
    moderator.replace_player(svc, g, "bob", "robert@example.org")
    mail_ = briefing_of(svc, g, "bob")
    text = mail_["text"]
    part = text.split("WHAT HAPPENED LATELY (as this seat saw it)\n", 1)[1].split("\n\n", 1)[0]
    lines = part.splitlines()
    # the last three turns (a full round of two seats, and the turn now), the rollback among them
    assert lines[0] == "  bob's turn" and lines[1] == "    - bob rests and takes 1 gold"
    assert lines.count("  The moderator puts the game back to move 2.") == 1
    assert lines[-1] == "  bob's turn" and "    - alice rolls" in part and "alice draws" not in part
    assert [ln.strip() for ln in lines if not ln.startswith("    - ")] == [
        "bob's turn", "alice's turn", "The moderator puts the game back to move 2.", "bob's turn"]
    assert "<strong>The moderator puts the game back to move 2.</strong>" in mail_["html"]
    assert "Since your last report" not in text  # the briefing's own list tells it, once


def test_a_bounced_briefing_gives_the_seat_its_backlog_back(fake):
    """The briefing counts as the seat's report up to now; when it bounces, the seat is owed
    everything it carried again (reported_seq back to where the briefing began)."""
    from test_smtp import bounce_of
    svc, g = fake
    for player in ("alice", "bob"):
        move(svc, g, player, "left")
    moderator.remove_player(svc, g, "bob")
    for player in ("alice", "bob", "alice", "bob"):
        move(svc, g, player, "rest")
    moderator.replace_player(svc, g, "bob", "robert@example.org")
    [row] = [r for r in svc.store.outbox_rows() if r["kind"] == "briefing"]
    assert svc.store.player(g, "bob")["reported_seq"] == 6
    asyncio.run(sending.send_due(svc))  # only a sent mail can bounce
    handle(svc, bounce_of(svc, row))
    assert svc.store.player(g, "bob")["reported_seq"] == 2

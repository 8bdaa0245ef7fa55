"""A report is queued as what it is made from and made when it is rendered (issue 28): handling an
answer builds no reader's context (views, sheets, the preview of their answers, the shared
frame), so its commit comes sooner; the mail then shows the state of its move, whatever happened
since, and nothing stored for it holds the game's secret seed."""
import asyncio
import random
import re

import msgspec
import pytest
from conftest import game_config, legal, mail, token

from engine import api
from pbem import bot
from pbem.core import games
from pbem.inbound.process import handle
from pbem.moderate import newgame
from pbem.outbound import contexts, leads, outbox, sending, turnmail


def answer(svc, game="autumn"):
    player, line = legal(svc, game)
    got = handle(svc, mail([line], sender=f"{player}@example.org", tok=token(svc, game, player)))
    assert got.status == "applied", got.outcome
    return player


def test_handling_an_answer_makes_no_readers_context_sending_does(svc, monkeypatch):
    newgame.create(svc, game_config())
    asyncio.run(sending.send_due(svc))  # the welcomes
    made: list[str] = []

    def counted(module, name):
        kept = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, **k: made.append(name) or kept(*a, **k))
    for name, module in (("make_frame", contexts), ("report_context", contexts), ("leads", leads)):
        counted(module, name)
    answer(svc)
    queued = [r for r in svc.store.outbox_rows() if r["status"] == "queued"]
    assert queued and made == []  # made at once, these ran once per reader before the commit
    assert asyncio.run(sending.send_due(svc)) == len(queued)
    assert {"make_frame", "report_context", "leads"} <= set(made)


def test_a_report_shows_its_moves_state_though_the_game_moved_on_before_it_went(svc):
    newgame.create(svc, game_config())
    asyncio.run(sending.send_due(svc))
    first = answer(svc)
    receipt = svc.store.query("SELECT id, headers FROM outbox WHERE status = 'queued' AND player = ? "
                              "AND kind = 'receipt'", (first,))[0]
    asked = msgspec.json.decode(receipt["headers"]).get(outbox.QUESTION_HEADER)
    for _ in range(3):  # the game moves on; the receipt is not sent yet
        answer(svc)
    now = svc.engine.view(games.state(svc, svc.store.game("autumn")), first)
    text = outbox.mail(svc, receipt["id"])["text"]
    assert asked and re.search(rf"^ *{asked}: ", text, re.M), text  # what its move asked, its options
    assert now["mine"] is None or str(now["mine"]["id"]) != asked  # asked anew since
    if now["mine"]:
        assert not re.search(rf"^ *{now['mine']['id']}: ", text, re.M), text


def test_nothing_stored_for_a_report_holds_the_seed(svc):
    newgame.create(svc, game_config())
    asyncio.run(sending.send_due(svc))
    for _ in range(3):
        answer(svc)
    stored = [r["frame"] for r in svc.store.query("SELECT frame FROM report_frames")]
    queued = [msgspec.json.decode(r["context"]) for r in svc.store.query(
        "SELECT context FROM outbox WHERE status = 'queued'")]
    stored += [msgspec.json.encode(c["board"][contexts.MADE]).decode() for c in queued if contexts.MADE in c["board"]]
    assert stored
    for text in stored:
        made = msgspec.json.decode(text, type=contexts._Made)
        assert svc.engine.decode(made.state).seed == "" and "seed" not in made.game


def test_a_moves_events_are_stored_once_for_its_readers_not_copied_into_each(svc):
    """Issue 28: each reader's queued report carried its events, encoded as JSON into the JSON of
    its context (every text and its message, once per reader). They are stored once, with the state
    the move's reports are made from, each report naming where its own start and end; its reader's
    are filtered from them when it is rendered. A report queued the old way, its events in it,
    renders the same."""
    newgame.create(svc, game_config())
    asyncio.run(sending.send_due(svc))
    for _ in range(40):  # to a move that mails both players
        answer(svc)
        rows = svc.store.query("SELECT * FROM outbox WHERE status = 'queued'")
        last = svc.store.query("SELECT events FROM move_events ORDER BY seq DESC LIMIT 1")[0]["events"]
        texts = [e["text"] for e in msgspec.json.decode(last) if len(e["text"]) > 12]
        if len(rows) > 1 and texts:
            break
        asyncio.run(sending.send_due(svc))
    assert len(rows) > 1 and texts
    frame = svc.store.query("SELECT frame FROM report_frames ORDER BY id DESC LIMIT 1")[0]["frame"]
    assert all(text in frame for text in texts)  # once for the move's readers
    shown = []
    for row in rows:
        assert not any(text in row["context"] for text in texts), row["context"]  # not in each reader's
        ctx = msgspec.json.decode(row["context"])
        part = ctx[contexts.MADE]
        events = turnmail.Backlog(svc, "autumn", part["after"], part["upto"]).since(part["after"], part["me"])
        old = {**ctx, contexts.MADE: {"me": part["me"], "events": turnmail.encode(events), "pace": part["pace"]}}
        text = outbox.rendered(svc, dict(row))["text"]
        assert outbox.rendered(svc, {**row, "context": msgspec.json.encode(old).decode()})["text"] == text
        shown += [t for t in texts if t in text]
    assert shown  # the events are in the mails


@pytest.mark.parametrize("packs", [[], ["cataclysm"], ["timescape"], ["city", "dungeon"], ["sea-voyage"],
                                   ["lost-realms"]])
def test_a_readers_view_made_from_the_moves_shared_views_is_the_engines(svc, packs):
    """Issue 28: a move's readers share its spectator's view and the seats' own entries (from the
    moderator's view); each reader's view made of them is the engine's view of that reader, key
    for key and in its order, along random games (their hands and Spells, others' as counts)."""
    players = [{"name": "alice", "character": "wizard"}, {"name": "bob", "character": "priest"}, {"name": "carol"}]
    state, rnd = api.new_game({"players": players, "packs": packs}, "made-views"), random.Random(5)
    for _ in range(60):
        stored = contexts._Stored({}, state, {}, "", {}, {}, svc.engine.view(state, contexts.SPECTATOR), {})
        for name in ("alice", "bob", "carol", api.MODERATOR, "watcher"):
            made, engines = contexts._view(svc, stored, name), api.view(state, name)
            assert made == engines and list(made) == list(engines) and list(made["players"]) == list(engines["players"])
        move = bot.choose(state, rnd)
        if move is None:
            break
        state, _ = api.apply(state, move)


class _Counted:
    """The service's engine, its views counted by whom they are of."""

    def __init__(self, engine):
        self.engine, self.views = engine, []

    def __getattr__(self, name):
        return getattr(self.engine, name)

    def view(self, state, player):
        self.views.append(player)
        return self.engine.view(state, player)


def test_a_moves_readers_cost_two_views_not_one_each(svc):
    """Issue 28: the reports of one move (each reader's) were made from one view each besides the
    spectator's; now from the spectator's and the moderator's, whatever the number of readers."""
    newgame.create(svc, game_config())
    asyncio.run(sending.send_due(svc))
    for _ in range(40):  # to a move that mails more than one seat
        answer(svc)
        rows = svc.store.query("SELECT DISTINCT player FROM outbox WHERE status = 'queued' AND player IS NOT NULL")
        if len(rows) > 1:
            break
        asyncio.run(sending.send_due(svc))
    assert len(rows) > 1
    contexts._made_cache.clear()
    counted = svc.engine = _Counted(svc.engine)
    assert asyncio.run(sending.send_due(svc)) >= len(rows)
    assert sorted(counted.views, key=str) == sorted([contexts.SPECTATOR, None], key=str), counted.views

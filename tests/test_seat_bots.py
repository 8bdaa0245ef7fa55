"""Seat bots through the real pipeline (issue 30): a solo game by mail against two greedy bots
played to its end (bots' answers logged with actor `bot` and re-run by `verify`, no mail to a bot
seat); a bot seat's hidden cards never in another player's mail, page or export; a seat put in
civil disorder after two charged misses and taken back with `back`; an outage during which no
miss is charged."""
from __future__ import annotations

import asyncio
import html
import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from conftest import ADDRESS, StillClock, mail, token
from starlette.testclient import TestClient
from test_cli import game, run  # noqa: F401 -- fixtures: a home and a game made by the command line
from test_web import BASE, seat_url

from engine import bots
from pbem import daemon
from pbem.archive import archive, verify
from pbem.base import settings as settings_mod
from pbem.core import games
from pbem.core.games import GameError
from pbem.core.service import open_service
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame, offers, people
from pbem.outbound import outbox
from pbem.pace import deadlines, misses, seats

T0 = datetime(2026, 10, 23, 9, 0, tzinfo=UTC)


def solo_config(name="solo", seed="solo-seed-for-bots-1", characters=("wizard", "sorceress", "prophetess"),
                **game) -> dict:
    """alice against two greedy bots (characters that start with Spells: their hidden cards)."""
    return {"game": {"name": name, "edition": "revised4", "address": ADDRESS, "seed": seed, **game},
            "players": [{"name": "alice", "email": "alice@example.org", "character": characters[0]},
                        {"name": "gort", "bot": "greedy", "character": characters[1]},
                        {"name": "robby", "bot": "greedy", "character": characters[2]}]}


def named(name: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def readable(svc, row: dict) -> str:
    msg = outbox.build(svc, outbox.mail(svc, row["id"]))
    return "\n".join([*(f"{k}: {v}" for k, v in msg.items()),
                      *(p.get_content() for p in msg.walk() if p.get_content_maintype() == "text")])


class Seen:
    """What alice may have seen so far: every event shown to her, worked out from the log and the
    engine alone (not from what the service stored), and the questions put to her."""

    def __init__(self, svc, g):
        self.svc, self.g, self.text = svc, g, []
        self.state, self.logged = games.state_at(svc, games.get(svc, g), 0), 0

    def update(self) -> str:
        eng = self.svc.engine
        for row in self.svc.store.moves(self.g, after=self.logged):
            self.state, events = eng.apply(self.state, eng.parse_move(row["line"]))
            self.text += [e.text for e in eng.filter_events(events, "alice")]
            self.logged = row["seq"]
        asked = [p["question"] + " " + " ".join(o["text"] for o in p["options"])
                 for p in eng.view(self.state, "alice")["prompt"]]
        return "\n".join(self.text + asked)


def canaries(svc, state, seen: str) -> set[str]:
    """Spells the bots hold now that alice neither holds nor may have seen named."""
    view = svc.engine.view(state, None)["players"]
    theirs = set(view["gort"]["spells"]) | set(view["robby"]["spells"])
    return {s for s in theirs - set(view["alice"]["spells"]) if not named(s, seen)}


def play_alice(svc, g, *, limit=4000, each=None, me="alice", to_the_end=True):
    """alice (`me`) answers what she is asked by mail (any legal answer), the daemon's rounds
    letting the bots go on, until the game ends (or `limit` steps: `to_the_end` False);
    `each(new outbox rows)` after every step."""
    tok, seen_row = token(svc, g, me), max([0] + [r["id"] for r in svc.store.outbox_rows()])
    if each:
        each([r for r in svc.store.outbox_rows()])
    for _ in range(limit):
        state = games.state(svc, games.get(svc, g))
        if state.over:
            return state
        if me in svc.engine.waiting_for(state):
            move = bots.choose(state, me, "random")
            result = handle(svc, mail([f"{move.prompt}: {move.key}"], sender=f"{me}@example.org", tok=tok, game=g))
            assert result.status == "applied", result.outcome
        elif svc.engine.MODERATOR in svc.engine.waiting_for(state):
            moderator.answer(svc, g, svc.engine.MODERATOR, "skip")
        else:
            asyncio.run(daemon.cycle(svc))  # a bot batch left over
        new = [r for r in svc.store.outbox_rows() if r["id"] > seen_row]
        seen_row = max([seen_row] + [r["id"] for r in new])
        if each:
            each(new)
    if not to_the_end:
        return games.state(svc, games.get(svc, g))
    raise AssertionError("the game did not end")


def test_solo_game_by_mail_against_two_greedy_bots_to_the_end(svc):
    g = newgame.create(svc, solo_config())
    assert [(p["status"], p["bot"]) for p in svc.store.players(g)] == [("active", None), ("bot", "greedy"),
                                                                       ("bot", "greedy")]
    state = play_alice(svc, g)
    assert state.over and games.get(svc, g)["status"] == "ended"
    log = svc.store.moves(g)
    assert {r["actor"] for r in log if r["player"] in ("gort", "robby")} == {"bot"}
    assert all(r["actor"] != "bot" for r in log if r["player"] == "alice")
    mails = svc.store.outbox_rows()
    assert not [r for r in mails if r["player"] in ("gort", "robby") or not r["to_addr"]]  # a bot gets no mail
    assert {r["kind"] for r in mails if r["player"] == "alice"} >= {"welcome", "receipt", "gameover"}
    verdict = verify.verify(archive.export(svc, g))  # the bots' moves re-run like any other
    assert verdict.ok and verdict.rerun, verdict.problem
    assert verdict.moves == len(log) > 50


@pytest.fixture
def web(tmp_path):
    """(svc, client) as tests/test_web.py makes them, the mails an hour not limited (alice
    plays a game in minutes of the test's clock)."""
    from conftest import Clock as Ticking

    from pbem.web.app import create_app
    cfg = settings_mod.Settings(home=str(tmp_path / "var"), http=settings_mod.HttpSettings(url=BASE),
                                mails_per_hour=100_000)
    svc = open_service(settings=cfg, clock=Ticking())
    with TestClient(create_app(lambda: open_service(settings=cfg, clock=Ticking())), base_url=BASE) as client:
        yield svc, client
    svc.store.close()


def test_a_bot_seats_hidden_cards_reach_no_other_players_mail_page_or_export(web):
    svc, client = web
    g = newgame.create(svc, solo_config(name="leak", seed="bot-leak-seed-2"))
    seen = Seen(svc, g)
    checked, tested = [0], [0]

    def each(new):
        visible = seen.update()
        state = seen.state
        canary = canaries(svc, state, visible)
        texts = [readable(svc, r) for r in new if r["player"] == "alice"]
        if checked[0] % 5 == 0:  # the pages every few steps: alice's and the public one
            texts += [html.unescape(client.get(seat_url(svc, g, "alice")).text),
                      html.unescape(client.get(f"/g/{g}").text)]
        for text in texts:
            leaked = sorted(s for s in canary if named(s, text))
            assert not leaked, (leaked, [ln for ln in text.splitlines() if any(named(s, ln) for s in leaked)])
        checked[0] += 1
        tested[0] += bool(canary) and bool(texts)

    play_alice(svc, g, each=each)
    assert checked[0] > 30 and tested[0] > 20, (checked, tested)
    mine = archive.dumps(archive.export(svc, g, as_player="alice"))
    final = canaries(svc, seen.state, seen.update())
    assert not [s for s in final if named(s, mine)]


def test_a_bot_holds_the_nemesis_seat_and_its_hand_reaches_no_hero(svc):
    """A Nemesis game: the Nemesis a greedy bot, ann by mail, ben a random bot. The Nemesis plays
    (actor `bot`), and no mail of ann's names an Action card in its hand she has not seen."""
    g = newgame.create(svc, {"game": {"name": "nemesis-bot", "edition": "fifth", "packs": ["nemesis"],
                                      "address": ADDRESS, "seed": "nemesis-bot-seed-1"},
                             "players": [{"name": "nick", "bot": "greedy", "role": "nemesis"},
                                         {"name": "ann", "email": "ann@example.org"},
                                         {"name": "ben", "bot": "random"}]})
    eng, since, shown = svc.engine, [], [0]
    state = [games.state_at(svc, games.get(svc, g), 0), 0]  # the bots may have played at once

    def each(new):
        for row in svc.store.moves(g, after=state[1]):
            state[0], events = eng.apply(state[0], eng.parse_move(row["line"]))
            since.extend(e.text for e in eng.filter_events(events, "ann"))
            state[1] = row["seq"]
        hand = set(eng.view(state[0], "nick")["players"]["nick"]["hand"])
        for r in new:
            if r["player"] == "ann":
                text = readable(svc, r)
                assert not [c for c in hand if named(c, text) and not named(c, "\n".join(since))], r["kind"]
                shown[0] += bool(hand)

    play_alice(svc, g, me="ann", limit=150, each=each, to_the_end=False)
    by_nick = [r for r in svc.store.moves(g) if r["player"] == "nick"]
    assert by_nick and {r["actor"] for r in by_nick} == {"bot"}
    assert shown[0] > 10, shown


# -- misses, civil disorder, the outage guard ------------------------------------------------------

PACE = {"deadline": "1h", "reminders": ["30m"], "civil_disorder": 2}


def _cycle(svc, clk, minutes=0):
    clk.t += timedelta(minutes=minutes)
    asyncio.run(daemon.cycle(svc))


def _bob_answers(svc, g):
    """bob answers at once whatever he is asked."""
    state = games.state(svc, games.get(svc, g))
    if "bob" in svc.engine.waiting_for(state):
        move = bots.choose(state, "bob", "random")
        handle(svc, mail([f"{move.prompt}: {move.key}"], sender="bob@example.org", tok=token(svc, g, "bob"), game=g))
        return True
    return False


def duo(svc, name="duo", seed="disorder-seed-1", **pace):
    config = {"game": {"name": name, "edition": "revised4", "address": ADDRESS, "seed": seed,
                       "moderator": "mod@example.org", "pace": {**PACE, **pace}},
              "players": [{"name": "alice", "email": "alice@example.org"},
                          {"name": "bob", "email": "bob@example.org"}]}
    return newgame.create(svc, config)


def test_two_missed_deadlines_put_a_seat_in_civil_disorder_and_back_takes_it_back(make_service):
    clk = StillClock(T0)
    svc = make_service(clock=clk)
    g = duo(svc)
    asyncio.run(daemon.cycle(svc))  # the first reports go at once
    for _ in range(200):  # alice never answers; bob always does; the daemon looks every 20 minutes
        if svc.store.player(g, "alice")["bot"]:
            break
        if not _bob_answers(svc, g):
            _cycle(svc, clk, 20)
        else:
            _cycle(svc, clk)
    alice = svc.store.player(g, "alice")
    assert (alice["bot"], alice["bot_by"], alice["status"]) == ("greedy", "disorder", "active")
    missed = svc.store.misses(g, "alice")
    assert [m["charged"] for m in missed] == [1, 1] and missed[0]["reason"] == misses.CHARGED
    assert svc.store.misses(g, "bob") == []
    told = [r for r in svc.store.outbox_rows() if r["player"] == "alice" and r["kind"] == "notice"]
    assert "\nback\n" in readable(svc, told[-1]) and "A bot plays your seat" in told[-1]["subject"]
    notes = [r for r in svc.store.db.query("SELECT * FROM notices") if r["kind"] == "disorder"]
    assert len(notes) == 1 and f"pbem player replace {g} alice" in notes[0]["text"]
    assert f"pbem player offer {g} alice --to EMAIL" in notes[0]["text"]
    # the bot plays alice's seat now: her questions are answered at once, by `bot`, and she has no deadline
    for _ in range(10):
        if not _bob_answers(svc, g):
            _cycle(svc, clk, 20)
    bot_moves = [r for r in svc.store.moves(g) if r["player"] == "alice" and r["actor"] == "bot"]
    assert bot_moves and not deadlines_open(svc, g, "alice")
    assert len(svc.store.misses(g, "alice")) == 2  # a bot does not miss
    # `back`: the seat is hers again, her report comes back with it
    before = max(r["id"] for r in svc.store.outbox_rows())
    result = handle(svc, mail(["back"], tok=token(svc, g, "alice"), game=g))
    assert result.status == "applied" and "yours again" in result.outcome
    assert svc.store.player(g, "alice")["bot"] is None
    [receipt] = [r for r in svc.store.outbox_rows() if r["id"] > before and r["player"] == "alice"]
    assert "yours again" in readable(svc, receipt)
    while "alice" not in svc.engine.waiting_for(games.state(svc, games.get(svc, g))):
        if not _bob_answers(svc, g):
            _cycle(svc, clk, 20)
    assert deadlines_open(svc, g, "alice")  # her deadlines run again
    assert "yours already" in handle(svc, mail(["zurück"], tok=token(svc, g, "alice"), game=g)).outcome  # German
    shown = people.person(svc, "alice@example.org")
    assert shown["reliability"]["charged"] == 2 and shown["reliability"]["misses_per_100"] > 0


def _invitations(svc, g, since=0) -> dict[str, str]:
    """The invitations mailed since outbox row `since`: address -> the mail as sent."""
    return {r["to_addr"]: readable(svc, r) for r in svc.store.outbox_rows() if r["kind"] == "offer" and r["id"] > since}


def _code(text: str) -> str:
    return re.search(r"^take ([0-9a-f]{20})$", text, re.MULTILINE).group(1)


def _at_rest(svc) -> bytes:
    """Every byte the database files hold (the main file and its write-ahead log)."""
    svc.store.db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return b"".join(path.read_bytes() for path in svc.settings.db_path.parent.glob(svc.settings.db_path.name + "*"))


def _told(svc, email, since) -> list[str]:
    """The notices mailed to `email` since outbox row `since`, as sent."""
    return [readable(svc, r) for r in svc.store.outbox_rows() if r["id"] > since and r["to_addr"] == email
            and r["kind"] == "notice"]


def _take(svc, g, who, code):
    return handle(svc, mail([f"take {code}"], sender=f"{who}@example.org", game=g,
                            subject=f"Re: [{g}] A seat in the Talisman game {g} is offered to you"))


def test_a_seat_offered_to_substitutes_goes_to_the_first_who_takes_it_by_mail(make_service):
    """The moderator offers alice's seat (a bot holds it) to carol and dave: each gets an
    invitation naming the seat in public terms with a code of their own, never at rest in clear;
    carol's `take CODE` makes her the seat's player as `player replace` would (her own token and
    welcome, no bot); dave is told by mail it was given to someone else, and if he tries all the
    same, that it is gone. An offer ends when the seat's person writes `back`, and when the
    moderator withdraws it: each time the person invited is told. `player list` names whom a
    seat is offered to, `player show` an address's open offers."""
    clk = StillClock(T0)
    svc = make_service(clock=clk)
    g = duo(svc, name="offer", seed="offer-seed-1")
    asyncio.run(daemon.cycle(svc))
    with pytest.raises(GameError, match="no bot holds it"):
        offers.offer(svc, g, "alice", ["carol@example.org"])
    seats.moderator_bot(svc, g, "alice", "greedy")
    assert offers.offer(svc, g, "alice", ["carol@example.org", "dave@example.org"]) == [
        "carol@example.org", "dave@example.org"]
    asyncio.run(daemon.cycle(svc))  # the invitations go
    sent = _invitations(svc, g)
    assert set(sent) == {"carol@example.org", "dave@example.org"}
    listed = {r["name"]: r["offered_to"] for r in moderator.roster(svc, g)}
    assert listed == {"alice": ["carol@example.org", "dave@example.org"], "bob": []}
    assert [(o["game"], o["seat"]) for o in people.person(svc, "dave@example.org")["offered"]] == [(g, "alice")]
    text = sent["carol@example.org"]
    summary = svc.engine.summary(games.state(svc, games.get(svc, g)))["players"]["alice"]
    assert summary["character"].replace("-", " ").title() in text and summary["space_name"] in text
    carol, dave = _code(text), _code(sent["dave@example.org"])
    stored = _at_rest(svc)
    assert b"carol@example.org" in stored and sent["carol@example.org"].split("take ")[0][-60:].encode() in stored
    assert carol != dave and carol.encode() not in stored and dave.encode() not in stored
    assert "no seat" in _take(svc, g, "dave", carol).outcome  # a code opens the seat to its own address only
    before = max(r["id"] for r in svc.store.outbox_rows())
    result = _take(svc, g, "carol", carol)
    assert result.status == "applied" and "yours" in result.outcome, result.outcome
    seat = svc.store.player(g, "alice")
    assert (seat["email"], seat["bot"], seat["status"]) == ("carol@example.org", None, "active")
    assert carol.encode() not in _at_rest(svc)  # her reply is stored with the code masked
    mine = [r for r in svc.store.outbox_rows() if r["id"] > before and r["to_addr"] == "carol@example.org"]
    assert {"notice", "welcome"} <= {r["kind"] for r in mine}
    tok = token(svc, g, "alice")
    assert tok not in (readable(svc, r) for r in mine if r["kind"] == "notice")
    assert all("no longer offered" not in t for t in _told(svc, "carol@example.org", before))  # she took it
    [gone] = _told(svc, "dave@example.org", before)  # told at once, not only when he tries
    assert f"The seat alice in the Talisman game {g} has been given to someone else." in gone
    assert people.person(svc, "dave@example.org")["offered"] == []
    assert {r["name"]: r["offered_to"] for r in moderator.roster(svc, g)}["alice"] == []
    assert handle(svc, mail(["status"], sender="carol@example.org", tok=tok, game=g)).status == "applied"
    late = _take(svc, g, "dave", dave)
    assert late.status == "rejected" and "taken by someone else" in late.outcome
    assert svc.store.player(g, "alice")["email"] == "carol@example.org"
    # offered again, the seat's person comes back: the offer ends; withdrawn by the moderator: it ends too
    for end in ("back", "withdraw"):
        seats.put(svc, games.get(svc, g), "alice", "greedy", seats.DISORDER, play=False)
        since = max(r["id"] for r in svc.store.outbox_rows())
        offers.offer(svc, g, "alice", ["erin@example.org"])
        code = _code(_invitations(svc, g, since)["erin@example.org"])
        since = max(r["id"] for r in svc.store.outbox_rows())
        if end == "back":
            assert "yours again" in handle(svc, mail(["back"], sender="carol@example.org", tok=tok, game=g)).outcome
        else:
            assert offers.withdraw(svc, g, "alice") == 1
        [told] = _told(svc, "erin@example.org", since)
        assert {"back": "The player of the seat alice", "withdraw": "The moderator has withdrawn the offer of the "
                "seat alice"}[end] in told and "no longer takes it" in told and code not in told
        assert _take(svc, g, "erin", code).status == "rejected", end
        assert svc.store.player(g, "alice")["email"] == "carol@example.org"


def test_the_civil_disorder_notice_the_bot_replies_and_an_offer_in_german(make_service):
    """alice and carol read German: the notice that a bot plays alice's seat, the reply to her
    `zurück`, carol's invitation to the seat and the reply to her `übernehmen` are German."""
    from pbem.core import people as addresses
    from pbem.pace.pace import pace_of
    clk = StillClock(T0)
    svc = make_service(clock=clk)
    g = duo(svc, name="deutsch", seed="german-disorder-seed-1")
    asyncio.run(daemon.cycle(svc))
    for who in ("alice", "carol"):
        addresses.set_language(svc, f"{who}@example.org", "de")
    since = max(r["id"] for r in svc.store.outbox_rows())
    with svc.store.transaction():
        game = games.get(svc, g)
        misses.disorder(svc, game, svc.store.player(g, "alice"), pace_of(game))
    [told] = [r for r in svc.store.outbox_rows() if r["id"] > since and r["kind"] == "notice"]
    assert "Ein Bot spielt Ihren Platz" in told["subject"]
    assert "2 Fristen nacheinander versäumt" in readable(svc, told) and "\nback\n" in readable(svc, told)
    offers.offer(svc, g, "alice", ["carol@example.org"])
    invitation = _invitations(svc, g, since)["carol@example.org"]
    assert "Ihnen wird ein Platz im Talisman-Spiel" in invitation and "Stärke" in invitation
    code = _code(invitation)
    since = max(r["id"] for r in svc.store.outbox_rows())
    back = handle(svc, mail(["zurück"], tok=token(svc, g, "alice"), game=g))
    assert "Ihr Platz gehört wieder Ihnen" in back.outcome
    [ended] = [r for r in svc.store.outbox_rows() if r["id"] > since and r["to_addr"] == "carol@example.org"]
    assert "nicht mehr angeboten" in ended["subject"] and "spielt ihn wieder" in readable(svc, ended)
    gone = _take(svc, g, "carol", code)
    assert gone.status == "rejected" and "kein Platz" in gone.outcome
    assert "Ihr Platz gehört schon Ihnen" in handle(svc, mail(["zurück"], tok=token(svc, g, "alice"), game=g)).outcome


def deadlines_open(svc, g, player):
    return svc.store.deadlines(g, player)


def test_no_miss_is_charged_during_an_outage_the_guard_detected(make_service):
    """Three games whose players all go silent: the guard holds the defaults; the moderator
    plays them with `game resume`, and every one of those misses is excused, none counting
    toward civil disorder."""
    clk = StillClock(T0)
    svc = make_service(clock=clk)
    ids = [duo(svc, name=n, seed=f"outage-{n}-seed") for n in ("one", "two", "three")]
    asyncio.run(daemon.cycle(svc))
    _cycle(svc, clk, 61)
    held = {g: [r for r in svc.store.deadlines(g) if r["guard"] == "held"] for g in ids}
    assert all(held.values()) and all(svc.store.moves(g) == [] for g in ids)
    for g in ids:
        assert deadlines.resume(svc, g) == 1
    _cycle(svc, clk, 1)
    missed = [m for g in ids for m in svc.store.misses(g)]
    assert len(missed) == 3 and all(not m["charged"] and "outage guard" in m["reason"] for m in missed)
    for g in ids:
        assert not svc.store.player(g, svc.store.misses(g)[0]["player"])["bot"]
    assert misses.reliability(svc, missed[0]["email"])["charged"] == 0


def test_a_miss_is_excused_when_the_service_was_down_or_its_mail_did_not_arrive(make_service):
    clk = StillClock(T0)
    svc = make_service(clock=clk)
    g = duo(svc, civil_disorder=1)
    asyncio.run(daemon.cycle(svc))
    _cycle(svc, clk, 45)  # a daemon round, then none for two hours: the deadline passes meanwhile
    _cycle(svc, clk, 120)
    [miss] = svc.store.misses(g)
    assert not miss["charged"] and "service was down" in miss["reason"]
    assert not svc.store.player(g, miss["player"])["bot"]  # excused: no civil disorder even at 1
    who = "alice" if miss["player"] == "bob" else "bob"
    svc.store.update_player(g, who, undeliverable="bounced: 550 no such user (since then)")
    for _ in range(12):
        if svc.store.misses(g, who):
            break
        _cycle(svc, clk, 20)
    [bounced] = svc.store.misses(g, who)
    assert not bounced["charged"] and "did not arrive" in bounced["reason"]


def test_bot_seats_by_config_the_moderator_and_a_minimum_to_join(make_service):
    svc = make_service()
    with pytest.raises(GameError, match="no bot level"):
        newgame.create(svc, solo_config(name="bad", characters=("wizard", "dwarf", "elf")) | {
            "players": [{"name": "alice", "email": "alice@example.org"}, {"name": "hal", "bot": "genius"}]})
    with pytest.raises(GameError, match="a bot has no email"):
        newgame.create(svc, {"game": {"name": "bad2", "address": ADDRESS},
                             "players": [{"name": "alice", "email": "a@example.org"},
                                         {"name": "hal", "bot": "greedy", "email": "h@example.org"}]})
    g = newgame.create(svc, {"game": {"name": "short", "address": ADDRESS, "seed": "short-table-seed-1"},
                             "players": [{"name": "alice", "email": "alice@example.org"},
                                         {"name": "bob", "email": "bob@example.org"}]})
    seats.moderator_bot(svc, g, "bob", "planner")
    assert (svc.store.player(g, "bob")["bot"], svc.store.player(g, "bob")["bot_by"]) == ("planner", "moderator")
    assert "moderator put a bot" in handle(svc, mail(["back"], sender="bob@example.org", tok=token(svc, g, "bob"),
                                                     game=g)).outcome
    seats.moderator_bot(svc, g, "bob", seats.OFF)
    assert svc.store.player(g, "bob")["bot"] is None
    # a game that takes at most 10 misses per 100 questions: someone with a worse record is refused, saying why
    svc.store.add_miss(g, 99, "bob", email="bob@example.org", due_at=svc.store.now(), missed_at=svc.store.now(),
                       charged=True, reason=misses.CHARGED)
    svc.store.open_deadline(g, 99, "bob", kind="direction", default_key="left", opened_at=svc.store.now(),
                            due_at=svc.store.now(), reminded="", next_at=svc.store.now(), email="bob@example.org")
    w = newgame.create(svc, {"game": {"name": "picky", "address": ADDRESS, "max_misses": 10},
                             "players": [{"name": "carol", "email": "carol@example.org"}]}, wait=True)
    with pytest.raises(GameError, match=r"misses 100.0 deadlines per 100 questions .*at most 10 \(max_misses\)"):
        moderator.add_player(svc, w, "bob", "bob@example.org")
    moderator.add_player(svc, w, "dave", "dave@example.org")  # no record yet: welcome
    moderator.add_player(svc, w, "hal", None, bot="random")  # a short table filled up
    assert [p["status"] for p in svc.store.players(w)] == ["active", "active", "bot"]


def test_the_command_line_seats_a_bot_and_shows_the_record(run, game):
    assert "bob is played by a greedy bot" in run("player", "bot", game, "bob", "greedy").stdout
    assert "greedy (moderator)" in run("player", "list", game).stdout
    rows = {r["name"]: r for r in json.loads(run("player", "list", game, "--json").stdout)}
    assert (rows["bob"]["bot"], rows["bob"]["bot_by"], rows["alice"]["bot"]) == ("greedy", "moderator", None)
    offered = run("player", "offer", game, "bob", "--to", "carol@example.org", "--to", "dave@example.org").stdout
    assert "bob offered to carol@example.org" in offered and "bob offered to dave@example.org" in offered
    assert "carol@example.org, dave@example.org" in run("player", "list", game).stdout
    assert f"offered the seat bob of {game} since " in run("player", "show", "carol@example.org").stdout
    assert "offer withdrawn (2 code(s) void)" in run("player", "offer", game, "bob", "--withdraw").stdout
    assert "name whom to offer" in run("player", "offer", game, "bob", code=1).stderr
    assert "played by its person" in run("player", "bot", game, "bob", "off").stdout
    assert "'genius' is not one of" in run("player", "bot", game, "bob", "genius", code=2).stderr
    out = run("player", "show", "alice@example.org").stdout
    assert "reliability: 0 game(s) finished of 1;" in out and "0 missed (charged), 0 excused" in out

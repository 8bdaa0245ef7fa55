"""Reports: what each mail shows, escaping, templates, game over, and snapshots of a few
mails (tests/snapshots/) so that a change in what players see is always deliberate:
UPDATE_SNAPSHOTS=1 rewrites them."""
import asyncio
import json
import os
import re
from pathlib import Path

import fake_engine
import jinja2
import pytest
from conftest import game_config, legal, mail, token

from pbem.base import engine_text, i18n
from pbem.core import games
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame
from pbem.outbound import bounces, notices, outbox, render, reports, sending

SNAPSHOTS = Path(__file__).parent / "snapshots"
HEROES = [("alice", "alice@example.org", "wizard"), ("bob", "bob@example.org", "priest"),
          ("carol", "carol@example.org", "troll")]


def hero_config(**game) -> dict:
    return game_config(players=[(n, e) for n, e, _ in HEROES], characters={n: c for n, _, c in HEROES},
                       moderator="mod@example.org", **game)


def rows(svc, **match) -> list[dict]:
    return [outbox.mail(svc, r["id"]) for r in svc.store.outbox_rows()
            if all(r[k] == v for k, v in match.items())]


def assert_snapshot(name: str, row: dict) -> None:
    """Compare a mail's parts with tests/snapshots/<name>.txt/.html (the token marker fixed)."""
    for part, suffix in (("text", "txt"), ("html", "html")):
        body = row[part]
        if row["token_marker"]:
            body = body.replace(row["token_marker"], "TOKEN")
        path = SNAPSHOTS / f"{name}.{suffix}"
        if os.environ.get("UPDATE_SNAPSHOTS") == "1":
            SNAPSHOTS.mkdir(exist_ok=True)
            path.write_text(body)
        assert path.exists(), f"no snapshot {path.name}: run with UPDATE_SNAPSHOTS=1 and read it"
        assert body == path.read_text(), f"{path.name} changed: if that is meant, UPDATE_SNAPSHOTS=1"


@pytest.fixture
def heroes(svc):
    return newgame.create(svc, hero_config())


def answer(svc, game, line=None, player=None):
    p, legal_line = legal(svc, game)
    player = player or p
    return handle(svc, mail([line or legal_line], sender=f"{player}@example.org", tok=token(svc, game, player)))


# -- snapshots ---------------------------------------------------------------------------

def test_snapshots_welcome_and_first_reports(svc, heroes):
    assert_snapshot("welcome", rows(svc, kind="welcome", player="alice")[0])
    asked = next(r for r in rows(svc, kind="report") if "your move" in r["subject"])
    waiting = next(r for r in rows(svc, kind="report") if "waiting for" in r["subject"])
    assert_snapshot("report-asked", asked)
    assert_snapshot("report-waiting", waiting)


def test_snapshots_receipt_error_and_game_over(svc, heroes):
    answer(svc, heroes)
    assert_snapshot("receipt", rows(svc, kind="receipt")[-1])
    answer(svc, heroes, "xyzzy <b>")
    assert_snapshot("error", rows(svc, kind="error")[-1])
    moderator.end(svc, heroes)
    assert_snapshot("gameover", rows(svc, kind="gameover", player="alice")[-1])


def test_snapshot_a_report_at_a_turn_change(svc, heroes):
    """carol hears nothing during alice's turn; when bob's begins she gets all of it, by turn."""
    seen = len(rows(svc, player="carol"))
    while len(rows(svc, player="carol")) == seen:
        answer(svc, heroes)
    assert_snapshot("report-turn", rows(svc, player="carol")[-1])


def test_snapshot_moderator_digest(svc, heroes):
    bounces.mark_undeliverable(svc, heroes, "carol", "SMTPRecipientsRefused: 550 5.1.1 no such user")
    notices.send_due(svc)
    assert_snapshot("digest", rows(svc, kind="digest")[-1])


# -- what a report shows ------------------------------------------------------------------

def test_the_asked_player_sees_the_question_options_and_lines_to_reply(svc, heroes):
    state = games.state(svc, games.get(svc, heroes))
    [prompt] = svc.engine.prompts(state)
    asked = rows(svc, kind="report", player=prompt.players[0])[-1]
    for o in prompt.options:
        assert f"{prompt.id}: {o.key}" in asked["text"] and o.text in asked["text"]
        assert f"{prompt.id}: {o.key}" in asked["html"]
    assert prompt.question in asked["text"]
    for other in rows(svc, kind="report"):
        if other["player"] != prompt.players[0]:
            assert f"The game waits for {prompt.players[0]}" in other["text"]
            assert f"{prompt.id}: " not in other["text"]


def test_own_spells_by_name_others_as_counts_and_the_board(svc, heroes):
    state = games.state(svc, games.get(svc, heroes))
    views = {n: svc.engine.view(state, n) for n, _, _ in HEROES}
    for name, _, _ in HEROES:
        row = rows(svc, kind="report", player=name)[-1]
        mine = views[name]["players"][name]["spells"]
        for spell in mine:
            assert spell in row["text"] and spell in row["html"]
        assert ("Spells:    " + (", ".join(mine) or "none")) in row["text"]
        counts = ", ".join(f"{n} {len(views[n]['players'][n]['spells'])}" for n, _, _ in HEROES if n != name)
        assert f"Spells others hold facedown: {counts}." in row["text"]
        assert "Decks (cards left, facedown): Adventure" in row["text"]
        for n, p in views[name]["players"].items():  # everyone on the map and in the table
            assert re.search(rf"^  {n}: {p['character_name']}( \(stand-in\))? at {p['space_name']}", row["text"], re.M)
        assert "<table" in row["html"] and "<script" not in row["html"]


def test_the_map_places_the_rings_as_on_the_board():
    from pbem.base import boardmap
    grid = boardmap.layout((("outer", tuple(f"o{i}" for i in range(24))), ("middle", tuple(f"m{i}" for i in range(16))),
                            ("inner", tuple(f"i{i}" for i in range(8))), ("crown", ("crown",))))
    assert grid[0][0] == ("outer", "o0") and grid[0][6] == ("outer", "o6") and grid[6][6] == ("outer", "o12")
    assert grid[1][1] == ("middle", "m0") and grid[2][2] == ("inner", "i0") and grid[3][3] == ("crown", "crown")
    assert boardmap.layout((("outer", ("a", "b", "c")),)) is None  # not a square: rings listed instead


def test_player_text_is_escaped_in_html_and_never_run_as_a_template(fake_svc, fake_game):
    player, _ = legal(fake_svc, fake_game)
    handle(fake_svc, mail(["bogus {{ 7*7 }} <b>&", "x {% include 'welcome.txt.j2' %}"], sender=f"{player}@example.org",
                          tok=token(fake_svc, fake_game, player)))
    row = rows(fake_svc, kind="error")[-1]
    assert "{{ 7*7 }} <b>&" in row["text"] and "49" not in row["text"]
    assert "{{ 7*7 }} &lt;b&gt;&amp;" in row["html"] and "<b>&" not in row["html"]
    assert "Welcome to" not in row["text"]


def test_autoescape_is_on_for_html_only_and_undefined_is_an_error():
    t = render.Templates()
    assert t.env.from_string("{{ x }}").render(x="<i>") == "<i>"  # a string template: text
    assert t.env.get_template("_answer.html.j2").environment.autoescape("x.html.j2")
    assert not t.env.autoescape("x.txt.j2")
    with pytest.raises(jinja2.UndefinedError):
        t.render("stranger", {})


def test_templates_are_compiled_once_per_process(make_service, tmp_path):
    a, b = make_service(engine=fake_engine, home=tmp_path / "a"), make_service(engine=fake_engine, home=tmp_path / "b")
    assert render.templates(a) is render.templates(b)
    assert render.templates(a).pair("report") is render.templates(b).pair("report")


def test_the_shared_frame_holds_no_private_card(svc, heroes):
    state = games.state(svc, games.get(svc, heroes))
    frame = render.board(svc, reports.make_frame(svc, state))
    held = [s for n, _, _ in HEROES for s in svc.engine.view(state, n)["players"][n]["spells"]]
    assert held and not any(s in frame.text or s in frame.html for s in held)


# -- threading and subjects -----------------------------------------------------------------

def test_every_mail_to_a_player_is_one_thread(svc, heroes):
    answer(svc, heroes)
    for name, _, _ in HEROES:
        root = f"<{heroes}.{name}@example.org>"
        for row in rows(svc, player=name):
            msg = outbox.build(svc, row)
            assert root in msg["References"].split()
            assert msg["Subject"].startswith(f"[{heroes}] ")


def test_ids_are_safe_whatever_the_name(svc, heroes):
    game = games.get(svc, heroes)
    assert reports.message_id(svc, game, "a b", "a.b") == "<autumn.a=20b.a=2Eb@example.org>"
    assert reports.message_id(svc, game, "é") == "<autumn.=C3=A9@example.org>"


# -- game over -----------------------------------------------------------------------------

def test_the_game_over_mail_goes_to_everyone_with_the_seed(fake_svc):
    g = newgame.create(fake_svc, game_config(options={"turn_cap": 3}))
    for _ in range(3):
        player, line = legal(fake_svc, g)
        handle(fake_svc, mail([line], sender=f"{player}@example.org", tok=token(fake_svc, g, player)))
    over = rows(fake_svc, kind="gameover")
    assert sorted(r["player"] for r in over) == ["alice", "bob"]
    winner = fake_svc.engine.decode(games.get(fake_svc, g)["state"]).winners[0]
    for r in over:
        assert "test-seed" in r["text"] and "test-seed" in r["html"]
        assert games.get(fake_svc, g)["seed_commitment"] in r["text"]
        assert r["subject"] == f"[{g}] Game over: {winner} won"
    sender = next(r for r in over if r["player"] == player)
    assert f"Applied:\n  {player}: {line}" in sender["text"]  # the last mover's receipt is in it
    assert not any("test-seed" in r["text"] for r in rows(fake_svc) if r["kind"] != "gameover")


def test_the_moderator_ending_a_game_reveals_the_seed_to_everyone(fake_svc, fake_game):
    moderator.end(fake_svc, fake_game)
    over = rows(fake_svc, kind="gameover")
    assert sorted(r["player"] for r in over) == ["alice", "bob"]
    assert all("ended by the moderator" in r["text"] and "test-seed" in r["text"] for r in over)


def test_a_mail_is_queued_as_its_context_and_rendered_once_when_sent(fake_svc, fake_game, monkeypatch):
    """Processing a move renders nothing: the row keeps its context until it is sent, then
    its text; a template fault holds back that mail alone."""
    player, line = legal(fake_svc, fake_game)
    handle(fake_svc, mail([line], sender=f"{player}@example.org", tok=token(fake_svc, fake_game, player)))
    queued = [fake_svc.store.outbox_mail(r["id"]) for r in fake_svc.store.outbox_rows()]
    assert all(r["context"] and r["text"] == "" for r in queued)
    broken = queued[0]["id"]
    real = render.render
    monkeypatch.setattr(render, "render", lambda svc, name, ctx: 1 / 0 if ctx == json.loads(queued[0]["context"])
                        else real(svc, name, ctx))
    assert asyncio.run(sending.send_due(fake_svc)) == len(queued) - 1
    after = {r["id"]: fake_svc.store.outbox_mail(r["id"]) for r in queued}
    assert after[broken]["status"] == "queued" and after[broken]["context"]
    assert all(r["status"] == "sent" and r["context"] is None and "Talisman game autumn" in r["text"]
               for i, r in after.items() if i != broken)
    monkeypatch.undo()
    assert asyncio.run(sending.send_due(fake_svc)) == 1
    sent = fake_svc.store.outbox_mail(broken)
    assert sent["status"] == "sent" and sent["context"] is None and sent["text"]


def test_every_mail_has_a_text_and_an_html_template():
    t = render.Templates()
    for name in reports.NAMES:
        text, html = t.pair(name)
        assert text.environment.autoescape(text.name) is False and html.environment.autoescape(html.name) is True


def test_a_cataclysm_report_shows_the_packs_public_state(make_service):
    """The Cataclysm's ending, Terrain, Denizens and facedown Remnants (counts) reach every
    report's board part; a hidden ending stays hidden."""
    from engine import api as engine_api
    svc = make_service()
    state = engine_api.new_game({"packs": ["cataclysm"], "players": [{"name": "a"}, {"name": "b"}],
                                 "options": {"alternative_ending": "hidden"}}, "pack-report")
    frame = render.board(svc, reports.make_frame(svc, state))
    assert "The Cataclysm:\n  The Alternative Ending lies facedown on the Crown of Command." in frame.text
    assert "  Remnants facedown: Crags, Ruins (2), Hidden Valley" in frame.text
    assert "<strong>The Cataclysm</strong><br>The Alternative Ending" in frame.html
    assert "<br>Remnants facedown: Crags, Ruins (2)" in frame.html
    assert "Ending: Hidden" not in frame.text and "hidden-valley" not in frame.text  # no key dumps, no slugs


def test_a_character_at_sea_is_shown_at_sea_and_every_pack_has_its_lines(svc):
    """Sea Voyage: a character at sea is on no space; the sheet and the table say where. Each pack
    speaks in its own words (`public_text`), under its printed title."""
    from engine import scenario
    state = scenario.build({"game": {"packs": ["sea-voyage", "timescape"], "seed": "s",
                                     "players": [{"name": "alice", "character": "elf"},
                                                 {"name": "bob", "character": "thief"},
                                                 {"name": "carol", "character": "dwarf"}]},
                            "setup": {"bob": {"voyage": {"phase": "home", "ship": "kogge", "rations": 3, "cargo": 1,
                                                         "home": 2, "attacks": 2, "wanted": 1}},
                                      "carol": {"space": "sentinel-outpost", "imprisoned": 1}}})
    public = svc.engine.view(state, reports.SPECTATOR)
    assert reports.whereabouts(public, "bob", public["players"]["bob"]) == "at sea, sailing home"
    assert reports.whereabouts(public, "alice", public["players"]["alice"]) == public["players"]["alice"]["space_name"]
    lines = [(g["pack"], engine_text.line(text)) for g in reports.pack_lines(public) for text in g["lines"]]
    assert ("Sea Voyage (fan-made)", "bob sails home on the Kogge (ship Strength 1): 3 Rations, 1 of 2 Cargo, "
            "2 turn(s) from home.") in lines
    assert ("Sea Voyage (fan-made)", "Wanted as Pirates: bob.") in lines
    assert ("Timescape", "Imprisoned by the Sentinels: carol (1 turn missed).") in lines
    assert not any("Attacks: none" in text or "Fleet:" in text for _, text in lines)  # no key dumps
    # each sentence a message: the shared frame (stored as JSON) reads in each reader's language (issue 29)
    import msgspec
    frame = render.StoredFrame(msgspec.json.encode(reports.make_frame(svc, state)).decode())
    with i18n.using("de"):
        german = render.board(svc, frame)
        kogge = engine_text.name("Kogge")
    assert (f"bob segelt auf der {kogge} heimwärts (Schiffsstärke 1): 3 Proviant, 1 von 2 Fracht, 2 Runde(n) "
            "von zu Hause.") in german.text.replace("\n    ", " ")
    assert "Als Piraten gesucht: bob." in german.html and "Von den Sentinels gefangen: carol" in german.html
    assert "sails" not in german.text and "Wanted" not in german.html
    english = render.board(svc, frame)
    assert "bob sails home on the Kogge (ship Strength 1): 3 Rations," in english.text
    assert "<br>Imprisoned by the Sentinels: carol (1 turn missed)." in english.html


def test_the_welcome_describes_the_character_and_names_the_rules_and_the_moderator(svc, heroes):
    text = outbox.mail(svc, rows(svc, kind="welcome", player="alice")[0]["id"])["text"]
    assert "You play the Wizard: Strength 2, Craft 5, Life 4, Fate 3, evil" in text
    assert "psychic combat" in text  # an ability, in the content's own words
    assert "Edition: Revised 4th Edition" in text and "revised4" not in text
    assert "Moderator: mod@example.org" in text
    assert "status" in text and "to: bob" in text and "resign" in text  # the commands


NEMESIS_SEATS = [("nem", "nem@example.org"), ("hugo", "hugo@example.org"), ("ivy", "ivy@example.org")]


def test_snapshots_a_nemesis_game(svc):
    """Issue 31: the packs' public state in their own words. The Nemesis's report names what each
    Action card in its hand does (its stand-in text, marked) and how many actions it has left; a
    hero's says what the Nemesis may still do in the hero's turn; both read the Trial, where the
    adversary and the villains stand, and each hero's companion and level, with no key dump."""
    config = game_config(name="hunt", players=NEMESIS_SEATS, characters={"hugo": "elf", "ivy": "dwarf"},
                         edition="fifth", packs=["nemesis"], moderator="mod@example.org")
    config["players"][0]["role"] = "nemesis"
    g = newgame.create(svc, config)
    asked, hero = [], None
    for _ in range(40):  # the companions are chosen, the heroes take their first turns
        player, line = legal(svc, g)
        handle(svc, mail([line], sender=f"{player}@example.org", tok=token(svc, g, player), game="hunt"))
        last = rows(svc, kind="report", player="hugo")[-1]
        if hero is None and "your move" in last["subject"] and "Before you move" in last["text"]:
            hero = last  # hugo's own turn
        asked = asked or [r for r in rows(svc, kind="report", player="nem") if "your move" in r["subject"]]
        if asked and hero:
            break
    nem = asked[0]  # the Nemesis's first turn
    assert "Standard Action" in nem["text"] and "(stand-in)" in nem["text"]
    assert "This turn the Nemesis has 2 actions left." in nem["text"]
    assert "This turn the Nemesis may still spend 1 fate" in hero["text"]
    for mail_ in (nem, hero):
        assert "Companions: hugo's Companion" in mail_["text"] and "(level 1)" in mail_["text"]
        assert "X token: None" not in mail_["text"] and "Talisman: False" not in mail_["text"]
    assert_snapshot("report-nemesis", nem)
    assert_snapshot("report-nemesis-hero", hero)

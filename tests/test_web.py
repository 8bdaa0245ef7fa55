"""The web face (pbem/web/): pages served from the store, each seat's secret page, answers
sent from the browser through the path every mail takes. A real HTTP client against the
Starlette application (the real browser is tests/test_web_browser.py)."""
import html
import json
import re

import pytest
from conftest import Clock, game_config, token, turn_file
from starlette.testclient import TestClient

from pbem.base import settings as settings_mod
from pbem.core import games
from pbem.core.service import open_service
from pbem.moderate import moderator, newgame
from pbem.outbound import links, outbox, reports, turnmail
from pbem.pace import reported
from pbem.web.app import create_app

BASE = "http://talisman.test"


@pytest.fixture
def web(tmp_path):
    """(svc, client): the service on the real engine with an [http] table, and the web app over
    the same store (its own Service per worker thread, as `serve --http` runs it)."""
    cfg = settings_mod.Settings(home=str(tmp_path / "var"), http=settings_mod.HttpSettings(url=BASE))
    svc = open_service(settings=cfg, clock=Clock())
    opened = []

    def opener():
        opened.append(open_service(settings=cfg, clock=Clock()))
        return opened[-1]

    with TestClient(create_app(opener), base_url=BASE) as client:
        yield svc, client
    for s in [svc, *opened]:
        s.store.close()


def new_game(svc, **game) -> str:
    return newgame.create(svc, game_config(characters={"alice": "wizard", "bob": "priest"}, **game))


def seat_url(svc, g, name) -> str:
    return links.seat_path(svc, svc.store.player(g, name))


def hidden(page: str, name: str) -> str:
    return re.search(rf'name="{name}" value="([^"]*)"', page).group(1)


def asked(svc, g) -> tuple[str, dict]:
    """(player, their open question) of game g."""
    state = games.state(svc, games.get(svc, g))
    name = svc.engine.waiting_for(state)[0]
    return name, svc.engine.view(state, name)["mine"]


def test_public_page_shows_the_board_sheets_log_and_whom_it_waits_for(web):
    svc, client = web
    g = new_game(svc)
    assert "Nothing yet." in client.get(f"/g/{g}").text
    for _ in range(4):
        name, q = asked(svc, g)
        moderator.answer(svc, g, name, f"{q['id']}: {q['options'][0]['key']}")
    r = client.get(f"/g/{g}")
    assert r.status_code == 200
    page = r.text
    assert "<svg" in page and 'class="board"' in page
    assert page.count('class="marker"') == 2  # both characters stand on the board
    for name in ("alice", "bob", "Wizard", "Priest", "Crown of Command", "Strength"):
        assert name in page
    assert re.search(rf"The game waits for <strong>{asked(svc, g)[0]}</strong>", page)
    public = [e.text for r in svc.store.move_events(g, 0, 99)
              for e in svc.engine.filter_events(turnmail.decode(svc.engine, r["events"]), reports.SPECTATOR)]
    assert public and all(html.escape(t, quote=False) in page for t in public)
    csp = r.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert r.headers["referrer-policy"] == "no-referrer"
    assert ' style="' not in page and "<style" not in page and "<script>" not in page  # the CSP would block them
    game = svc.store.game(g)
    assert games.seed(svc, game) not in page
    for name in ("alice", "bob"):
        assert token(svc, g, name) not in page and links.seat_secret(svc, svc.store.player(g, name)) not in page


def test_the_board_shows_what_lies_on_it_the_hex_included(web):
    svc, client = web
    g = new_game(svc)
    game = games.get(svc, g)
    state = games.state(svc, game)
    state.effects.append({"name": "hex", "rounds": 3, "by": "alice", "space": "crags"})
    state.spaces["woods"] = ["ogre"]
    svc.store.update_game(g, state=svc.engine.encode(state))
    page = client.get(f"/g/{g}").text
    svg = page[page.index("<svg"):page.index("</svg>")]
    crags = svg[svg.index('data-space="crags"'):]
    assert "Hex (3 rounds)" in crags[:crags.index("</g>")]
    woods = svg[svg.index('data-space="woods"'):]
    assert "Ogre" in woods[:woods.index("</g>")]


def test_index_lists_public_games_only(web):
    svc, client = web
    g1 = new_game(svc, name="open-game")
    g2 = new_game(svc, name="quiet-game", unlisted=True)
    page = client.get("/").text
    assert f'href="/g/{g1}"' in page and g2 not in page
    assert client.get(f"/g/{g2}").status_code == 200  # unlisted, not hidden: its link still works
    assert client.get("/g/no-such-game").status_code == 404


def test_a_seats_page_opens_at_its_secret_only_and_shows_its_own_view(web):
    svc, client = web
    g = new_game(svc)
    name, q = asked(svc, g)
    other = "bob" if name == "alice" else "alice"
    page = client.get(seat_url(svc, g, name))
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    assert f"Your move (question {q['id']})" in page.text
    for o in q["options"]:
        assert f'value="{o["key"]}"' in page.text and f"{q['id']}: {o['key']}" in page.text
    own = svc.engine.view(games.state(svc, games.get(svc, g)), name)["players"][name]
    assert all(s in page.text for s in own["spells"])
    assert "Your move" not in client.get(seat_url(svc, g, other)).text
    secret = links.seat_secret(svc, svc.store.player(g, name))
    wrong = secret[:-1] + ("1" if secret.endswith("0") else "0")  # one character off (never the secret itself)
    assert client.get(f"/g/{g}/s/{wrong}").status_code == 404
    assert client.get(f"/g/{g}/s/{token(svc, g, name)}").status_code == 404  # the token is not the link
    assert token(svc, g, name) not in page.text


def test_a_replaced_seat_loses_its_link(web):
    svc, client = web
    g = new_game(svc)
    old = seat_url(svc, g, "bob")
    assert client.get(old).status_code == 200
    moderator.replace_player(svc, g, "bob", "robert@example.org")
    assert client.get(old).status_code == 404
    assert client.get(seat_url(svc, g, "bob")).status_code == 200


def test_direction_options_say_where_they_lead_as_the_report_does(web):
    """The seat's page says what each answer leads to with the report's own lines (pbem/outbound/leads.py,
    from the engine's preview): the space each way ends on, the bridge it crosses, what a reroll
    could give."""
    svc, client = web
    g = new_game(svc)
    state = games.state(svc, games.get(svc, g))
    name = svc.engine.waiting_for(state)[0]
    next(p for p in state.players if p.name == name).space, state.forced = "woods", [4]
    svc.store.update_game(g, state=svc.engine.encode(state))
    for _ in range(5):  # through the start of the turn to the movement roll of 4
        name, q = asked(svc, g)
        if q["kind"] == "direction":
            break
        moderator.answer(svc, g, name, f"{q['id']}: done")
    assert q["kind"] == "direction"
    page = html.unescape(client.get(seat_url(svc, g, name)).text)
    options = page[page.index('<ol class="options">'):page.index("</ol>")]
    items = dict(re.findall(r'<li><button[^>]*value="([^"]+)".*?</button>(.*?)</li>', options, re.DOTALL))
    leads = {k: re.findall(r'<span class="leads">(.*?)</span>', v, re.DOTALL) for k, v in items.items()}
    assert leads["left"] == ["then Fields (Outer Region)"], leads
    assert leads["right"][0].startswith("then on the way: You reach the Sentinel's bridge."), leads
    assert "continue, then Fields (Outer Region)" in leads["right"][0]
    assert leads["reroll"][0].startswith("then a new roll: left: 1 Graveyard, 2 Fields"), leads
    text = reports.show_text(svc, games.get(svc, g), name, pace=reported.part)
    report = " ".join(text.split())  # its wrapped lines joined
    assert all(" ".join(line.split()) in report for lines in leads.values() for line in lines)  # the mail's words


def _form(client, url):
    page = client.get(url).text
    return page, {"csrf": hidden(page, "csrf"), "prompt": hidden(page, "prompt"), "form": hidden(page, "form")}


def test_a_button_answers_through_the_mail_path_with_a_receipt_by_mail(web):
    svc, client = web
    g = new_game(svc)
    name, q = asked(svc, g)
    url = seat_url(svc, g, name)
    _, fields = _form(client, url)
    key = q["options"][0]["key"]
    sent_before = len(svc.store.outbox_rows())
    r = client.post(url, data={**fields, "action": "button", "key": key}, follow_redirects=False)
    assert r.status_code == 303 and "?done=" in r.headers["location"]
    row = svc.store.inbox(int(r.headers["location"].split("done=")[1]))
    assert (row["source"], row["kind"], row["status"], row["player"]) == ("web", "turn", "processed", name)
    assert token(svc, g, name).encode() not in row["raw"]  # stored with its token masked, like any turn file
    assert svc.store.moves(g)[-1]["line"] == f"{name}: " + f"{q['id']}: {key}"
    receipt = [o for o in svc.store.outbox_rows()[sent_before:] if o["kind"] in ("receipt", "error")]
    assert [o["to_addr"] for o in receipt] == [f"{name}@example.org"]
    shown = client.get(r.headers["location"]).text
    assert "Your answers were applied." in shown
    again = client.post(url, data={**fields, "action": "button", "key": key}, follow_redirects=False)
    assert again.status_code == 409 and "nothing was sent" in again.text  # the page was for that question
    assert svc.store.moves(g)[-1]["line"] == f"{name}: " + f"{q['id']}: {key}" and len(svc.store.moves(g)) == 1


def test_a_stale_page_cannot_answer_the_question_open_now(web):
    svc, client = web
    g = new_game(svc)
    name, q = asked(svc, g)
    url = seat_url(svc, g, name)
    _, fields = _form(client, url)
    moderator.answer(svc, g, name, f"{q['id']}: {q['options'][0]['key']}")  # answered by mail meanwhile
    moves = len(svc.store.moves(g))
    name2, q2 = asked(svc, g)
    if name2 == name:
        r = client.post(url, data={**fields, "action": "button", "key": q2["options"][0]["key"]})
        assert r.status_code == 409 and f"made for question {q['id']}" in r.text
    r = client.post(url, data={**fields, "action": "lines", "lines": "left"})
    assert r.status_code == 409 and "left" in r.text  # refused, and the text box keeps what was typed
    assert len(svc.store.moves(g)) == moves


def test_forms_without_the_csrf_token_or_cookie_are_refused(web):
    svc, client = web
    g = new_game(svc)
    name, q = asked(svc, g)
    url = seat_url(svc, g, name)
    _, fields = _form(client, url)
    stored = len(svc.store.inbox_rows())
    for bad in ({**fields, "csrf": "0" * 32}, {k: v for k, v in fields.items() if k != "csrf"}):
        r = client.post(url, data={**bad, "action": "button", "key": q["options"][0]["key"]})
        assert r.status_code == 403 and "security token" in r.text
    client.cookies.clear()  # another browser (a forged form elsewhere) has no cookie of ours
    r = client.post(url, data={**fields, "action": "button", "key": q["options"][0]["key"]})
    assert r.status_code == 403
    assert len(svc.store.inbox_rows()) == stored and not svc.store.moves(g)


def test_answer_lines_number_the_first_line_with_the_question_shown(web):
    svc, client = web
    g = new_game(svc)
    name, q = asked(svc, g)
    url = seat_url(svc, g, name)
    _, fields = _form(client, url)
    key = q["options"][0]["key"]
    r = client.post(url, data={**fields, "action": "lines", "lines": f"{key}\n\n"}, follow_redirects=False)
    assert r.status_code == 303
    assert svc.store.moves(g)[0]["line"] == f"{name}: " + f"{q['id']}: {key}"


def test_unreadable_lines_are_refused_and_kept_in_the_text_box(web):
    svc, client = web
    g = new_game(svc)
    name, _ = asked(svc, g)
    url = seat_url(svc, g, name)
    _, fields = _form(client, url)
    r = client.post(url, data={**fields, "action": "lines", "lines": "what is this?"})
    assert r.status_code == 422 and "Nothing was applied" in r.text and "what is this?</textarea>" in r.text
    assert not svc.store.moves(g)
    assert svc.store.inbox_rows()[-1]["source"] == "web"  # stored first, like every message


def test_an_uploaded_turn_file_is_played_with_or_without_its_token(web):
    svc, client = web
    g = new_game(svc)
    name, q = asked(svc, g)
    url = seat_url(svc, g, name)
    _, fields = _form(client, url)
    line = f"{q['id']}: {q['options'][0]['key']}"
    toml = f'answers = ["{line}"]\n'.encode()
    r = client.post(url, data={**fields, "action": "upload"}, files={"turnfile": ("turn.toml", toml)},
                    follow_redirects=False)
    assert r.status_code == 303, r.text
    assert svc.store.moves(g)[-1]["line"] == f"{name}: " + line
    name, q = asked(svc, g)
    url = seat_url(svc, g, name)
    _, fields = _form(client, url)
    line = f"{q['id']}: {q['options'][0]['key']}"
    data = json.dumps({"game": g, "player": name, "token": token(svc, g, name), "answers": [line]}).encode()
    r = client.post(url, data={**fields, "action": "upload"}, files={"turnfile": ("t.json", data)},
                    follow_redirects=False)
    assert r.status_code == 303 and svc.store.moves(g)[-1]["line"] == f"{name}: " + line


@pytest.mark.parametrize("filename,data,says", [
    ("t.toml", b'game = "other"\nanswers = ["left"]\n', "is for game 'other'"),
    ("t.toml", b'player = "zed"\nanswers = ["left"]\n', "is for player 'zed'"),
    ("t.toml", b'token = "0123456789abcdef0123"\nanswers = ["left"]\n', "not this seat's token"),
    ("t.txt", b"left\n", ".toml or .json"),
    ("t.toml", b"answers = [", "not valid TOML"),
    ("t.toml", b"answers = []\n# " + b"x" * 70000, "larger than 64 KB"),
])
def test_a_wrong_upload_is_refused_with_a_clear_message(web, filename, data, says):
    svc, client = web
    g = new_game(svc)
    name, _ = asked(svc, g)
    url = seat_url(svc, g, name)
    _, fields = _form(client, url)
    r = client.post(url, data={**fields, "action": "upload"}, files={"turnfile": (filename, data)})
    assert r.status_code in (409, 413) and (says in html.unescape(r.text) or r.status_code == 413), r.text[:500]
    assert not svc.store.moves(g)


def test_a_body_far_over_the_limit_is_refused_before_it_is_read(web):
    svc, client = web
    g = new_game(svc)
    name, _ = asked(svc, g)
    url = seat_url(svc, g, name)
    _, fields = _form(client, url)
    r = client.post(url, data={**fields, "action": "upload"}, files={"turnfile": ("t.toml", b"#" * 2_000_000)})
    assert r.status_code == 413
    assert not svc.store.inbox_rows()


def test_mail_and_browser_mix_in_one_game(web):
    from conftest import mail

    from pbem.inbound.process import handle
    svc, client = web
    g = new_game(svc)
    for i in range(12):
        name, q = asked(svc, g)
        line = f"{q['id']}: {q['options'][0]['key']}"
        if i % 2:
            assert handle(svc, mail([line], sender=f"{name}@example.org", tok=token(svc, g, name), game=g)).status \
                == "applied"
        else:
            url = seat_url(svc, g, name)
            _, fields = _form(client, url)
            assert client.post(url, data={**fields, "action": "button", "key": q["options"][0]["key"]},
                               follow_redirects=False).status_code == 303
        assert svc.store.moves(g)[-1]["line"] == f"{name}: " + line
    sources = {r["source"] for r in svc.store.inbox_rows()}
    assert {"web", "stdin"} <= sources


def test_reports_link_to_the_game_page_and_the_readers_page_without_storing_the_link(web):
    svc, client = web
    g = new_game(svc)
    rows = [r for r in svc.store.outbox_rows() if r["kind"] in ("report", "welcome")]
    assert {r["kind"] for r in rows} == {"report", "welcome"}
    for row in rows:
        mail_row = outbox.mail(svc, row["id"])
        msg = outbox.build(svc, mail_row)
        text = "\n".join(p.get_content() for p in msg.iter_parts())
        player = svc.store.player(g, row["player"])
        secret = links.seat_secret(svc, player)
        assert f"{BASE}/g/{g}" in text and f"{BASE}/g/{g}/s/{secret}" in text
        stored = json.dumps(svc.store.outbox_mail(row["id"]), default=str)
        assert secret not in stored  # at rest the mail holds a marker, as for the token
        assert client.get(f"/g/{g}/s/{secret}").status_code == 200


def test_turn_file_helper_and_submit_still_work_beside_the_web(web, tmp_path):
    from pbem.inbound.process import handle
    svc, _ = web
    g = new_game(svc)
    name, q = asked(svc, g)
    raw = turn_file(g, name, token(svc, g, name), [f"{q['id']}: {q['options'][0]['key']}"])
    assert handle(svc, raw, "turn", filename="t.toml").status == "applied"


def test_a_finished_games_replay_is_served_without_private_lines(web):
    svc, client = web
    g = new_game(svc)
    for _ in range(6):
        name, q = asked(svc, g)
        moderator.answer(svc, g, name, f"{q['id']}: {q['options'][0]['key']}")
    assert client.get(f"/g/{g}/replay/").status_code == 404  # not before the game is over
    moderator.end(svc, g)
    page = client.get(f"/g/{g}").text
    assert f'href="/g/{g}/replay/"' in page
    r = client.get(f"/g/{g}/replay/")
    assert r.status_code == 200 and "<svg" in r.text and "turn-0001.html" in r.text
    assert "'unsafe-inline'" not in r.headers["content-security-policy"]
    turn = client.get(f"/g/{g}/replay/turn-0001.html").text
    for m in svc.store.moves(g):
        assert f"<b>{m['seq']}. {m['line']}</b>" not in turn
    assert client.get(f"/g/{g}/replay/..%2Fsecret.key").status_code == 404


def test_pages_never_replay_the_game(web, monkeypatch):
    """A page is made from the state on the game row and the stored events: the engine is
    never asked to apply a move (which a replay would)."""
    svc, client = web
    g = new_game(svc)
    for _ in range(8):
        name, q = asked(svc, g)
        moderator.answer(svc, g, name, f"{q['id']}: {q['options'][0]['key']}")
    from engine import api

    def refuse(*a, **k):
        raise AssertionError("a page replayed moves")
    monkeypatch.setattr(api, "apply", refuse)
    monkeypatch.setattr(api, "replay", refuse)
    monkeypatch.setattr(games, "state_at", refuse)
    for path in ("/", f"/g/{g}", f"/g/{g}?upto=3", *(seat_url(svc, g, n) for n in ("alice", "bob"))):
        assert client.get(path).status_code == 200, path


def test_pbem_serve_http_serves_the_pages_and_stops_on_sigterm(tmp_path):
    import signal
    import socket
    import subprocess
    import sys
    import time
    import urllib.request
    home = tmp_path / "home"
    pbem = [sys.executable, "-m", "pbem.cli", "--home", str(home)]
    subprocess.run([*pbem, "init"], check=True, capture_output=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([*pbem, "serve", "--http", f"127.0.0.1:{port}"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        for _ in range(100):
            try:
                body = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read().decode()
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError(proc.stderr.read1().decode() if proc.poll() is not None else "no answer")
        assert "No public games yet." in body
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0, proc.stderr.read().decode()


def test_the_same_form_sent_twice_is_one_message(web):
    """A double click or a resent POST: the form's id is the upload's, so the second is known."""
    svc, client = web
    g = new_game(svc)
    name, q = asked(svc, g)
    url = seat_url(svc, g, name)
    _, fields = _form(client, url)
    from pbem.web import forms
    seat = svc.store.player(g, name)
    lines = [f"{q['id']}: {q['options'][0]['key']}"]
    first = forms.answer(svc, seat, lines, fields["form"])
    again = forms.answer(svc, seat, lines, fields["form"])  # as the second click would, past the page's check
    assert first.status == "applied" and again.status == "duplicate" and again.inbox_id == first.inbox_id
    assert len(svc.store.moves(g)) == 1
    shown = client.get(f"{url}?done={again.inbox_id}").text
    assert "Your answers were applied." in shown


@pytest.mark.heavy
@pytest.mark.timeout(3600)
def test_a_whole_game_played_from_the_browser_alone(web):
    """Every player's answer is a click on their own page (the button the page shows for the
    bot's choice), to the game's end; the moderator's rulings by `game answer` (the moderator
    has no page). Each click gets its receipt by mail."""
    import random

    from pbem import bot
    svc, client = web
    g = new_game(svc)
    eng, rnd, clicks = svc.engine, random.Random(16), 0
    while True:
        state = games.state(svc, games.get(svc, g))
        if state.over:
            break
        move = bot.choose(state, rnd)
        if move.player == eng.MODERATOR:
            moderator.answer(svc, g, eng.MODERATOR, f"{move.prompt}: {move.key}")
            continue
        url = seat_url(svc, g, move.player)
        page, fields = _form(client, url)
        assert f'name="key" value="{move.key}"' in page
        sent = svc.store.query("SELECT COALESCE(MAX(id), 0) AS n FROM outbox")[0]["n"]
        r = client.post(url, data={**fields, "action": "button", "key": move.key})
        assert r.status_code == 200 and "Your answers were applied." in r.text, r.text[:300]
        assert svc.store.query("SELECT 1 FROM outbox WHERE id > ? AND to_addr = ?",
                               (sent, f"{move.player}@example.org"))  # the receipt by mail
        clicks += 1
        assert clicks < 20000
    assert "The game is over." in client.get(f"/g/{g}").text
    assert client.get(f"/g/{g}/replay/").status_code == 200
    print(f"{clicks} clicks to the end")


def test_the_log_shows_its_newest_page_with_links_to_earlier_and_later_ones(web, monkeypatch):
    """A page shows the last pages.LOG_MOVES moves of the log and reads no more of them, however
    long the game (issue 28: a page's cost independent of the game's length); `?upto=N` shows the
    page ending at move N, with links to the pages before and after it; a seat's page the same."""
    from pbem.store.base import Store
    from pbem.web import pages
    svc, client = web
    g = new_game(svc)
    while svc.store.game(g)["moves"] < pages.LOG_MOVES + 15:
        name, q = asked(svc, g)
        moderator.answer(svc, g, name, f"{q['id']}: {q['options'][0]['key']}")
    total, size = svc.store.game(g)["moves"], pages.LOG_MOVES
    read: list[tuple[int, int]] = []
    move_events = Store.move_events
    monkeypatch.setattr(Store, "move_events", lambda self, game, after, upto: read.append((after, upto)) or
                        move_events(self, game, after, upto))

    newest = client.get(f"/g/{g}").text
    assert read == [(total - size, total)]
    assert f'<a href="?upto={total - size}">Earlier moves</a> (moves 1 to {total - size})' in newest
    assert "Later moves" not in newest and "Latest moves" not in newest

    read.clear()
    first = client.get(f"/g/{g}?upto=10").text
    assert read == [(0, 10)] and "The start of the game" in first and "Earlier moves" not in first
    assert f'<a href="?upto={10 + size}">Later moves</a> (moves 11 to {10 + size})' in first
    assert f'<a href="?">Latest moves</a> (the game is at move {total})' in first

    read.clear()
    last_but_one = client.get(f"/g/{g}?upto={total - size}").text
    assert read == [(0, total - size)] and "Later moves" not in last_but_one  # the next page is the newest
    assert 'href="?">Latest moves' in last_but_one

    read.clear()
    seat = client.get(seat_url(svc, g, "alice")).text
    assert read == [(total - size, total)] and f'href="?upto={total - size}">Earlier moves' in seat


def test_a_page_of_the_log_is_read_once_per_game_state_and_again_after_a_move(web, monkeypatch):
    """Each view of a page between two moves shows the log as the first made it (issue 28:
    pages are read far more often than games move); a move, or a rollback, shows the new log."""
    from pbem.store.base import Store
    svc, client = web
    g = new_game(svc)
    for _ in range(3):
        name, q = asked(svc, g)
        moderator.answer(svc, g, name, f"{q['id']}: {q['options'][0]['key']}")
    import jinja2
    read: list[int] = []
    move_events, render = Store.move_events, jinja2.Template.render
    monkeypatch.setattr(Store, "move_events", lambda self, game, after, upto: read.append(upto) or
                        move_events(self, game, after, upto))
    made: list[str] = []
    monkeypatch.setattr(jinja2.Template, "render",
                        lambda self, *a, **k: made.append(self.name) or render(self, *a, **k))
    first = client.get(f"/g/{g}").text
    assert client.get(f"/g/{g}").text == first and read == [3]  # the second view read nothing
    # nor rendered the log, the board or the sheets again: only the page's own parts
    assert made == ["web/_table.html.j2", "web/_log.html.j2", "web/game.html.j2", "web/game.html.j2"]
    name, q = asked(svc, g)
    moderator.answer(svc, g, name, f"{q['id']}: {q['options'][0]['key']}")  # its reports read the log too
    read.clear()
    client.get(f"/g/{g}")
    client.get(f"/g/{g}")
    assert read == [4]
    moderator.rollback(svc, g, 3)  # a move of its own in the log
    read.clear()
    client.get(f"/g/{g}")
    assert read == [svc.store.game(g)["moves"]]


def test_the_board_kept_is_the_game_as_it_stands_not_another_of_its_name_or_second(tmp_path):
    """What a page keeps of a game's board is keyed by where the game stands (pages.standing: its
    store, moves and state), not by its row's `updated_at`: a state written within the same
    second (a rollback replayed to the same move), or another database's game of the same name
    at the same move, shows its own board."""
    from conftest import StillClock

    from pbem.web import pages
    still = StillClock()
    homes = [open_service(settings=settings_mod.Settings(home=str(tmp_path / h)), clock=still) for h in "ab"]
    try:
        for svc, who in zip(homes, ({"alice": "wizard", "bob": "priest"}, {"alice": "troll", "bob": "elf"})):
            newgame.create(svc, game_config(characters=who))
        a, b = homes
        g = a.store.games()[0]["id"]
        assert b.store.games()[0]["id"] == g and a.store.game(g)["updated_at"] == b.store.game(g)["updated_at"]

        def characters(svc) -> list[str]:
            return [p["character"] for p in pages.public(svc, svc.store.game(g))["frame"]["players"]]
        assert characters(a) != characters(b)  # the second database's game, not the first's kept board
        before = characters(b)
        state = b.engine.decode(b.store.game(g)["state"])
        state.players[0].character = state.players[1].character  # the row written again, the same second
        b.store.update_game(g, state=b.engine.encode(state))
        assert b.store.game(g)["updated_at"] == a.store.game(g)["updated_at"]
        assert characters(b) != before and characters(b)[0] == characters(b)[1]
    finally:
        for svc in homes:
            svc.store.close()


def test_a_seats_page_says_what_its_cards_do_in_its_readers_language_and_no_one_elses(web):
    """The seat page lists what each card its seat holds does, as its report does (glossary.py):
    in the reader's language, never on another seat's page or the public one."""
    svc, client = web
    cfg = game_config(characters={"alice": "wizard", "bob": "priest"})
    cfg["players"][1]["language"] = "de"  # bob reads German
    g = newgame.create(svc, cfg)
    state = games.state(svc, games.get(svc, g))
    for p in state.players:
        p.spells = ["healing"] if p.name == "alice" else []
        p.objects = ["sword"] if p.name == "bob" else []
    svc.store.update_game(g, state=svc.engine.encode(state))
    alice, bob = (client.get(seat_url(svc, g, n)).text for n in ("alice", "bob"))
    assert "The cards named here" in alice and "Heal any one character, yourself included" in alice
    assert "Die hier genannten Karten" in bob and "Eine Waffe: +1 Stärke im Kampf." in bob
    assert "A Weapon: +1 Strength" not in bob and "Heilen Sie" not in bob and "Heal any one" not in bob
    assert "Eine Waffe" not in alice and "A Weapon" not in alice
    public = client.get(f"/g/{g}").text
    assert "Heal any one character" not in public and "The cards named here" not in public

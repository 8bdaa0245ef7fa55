"""The web face under attack (issue 27's campaign, its web half), at a size the default run
affords; bench/hostile.py runs the slow-request attack at full size.

What got through before: requests whose headers never finish held their connections for
ever (about 1,100 stopped the pages); malformed input (a non-ASCII seat secret, `?upto=²`, a
5,000-digit `?upto`) answered 500 without the security headers and logged a traceback each
time. What held already and must go on holding: guessed links, forged forms (CSRF), markup
through names, typed lines and the moderator's card texts, the timing of the link check,
another seat's resign code.
"""
from __future__ import annotations

import hmac
import re
import socket
import threading
import time

import pytest
from conftest import Clock, game_config, mail, token
from starlette.testclient import TestClient

from pbem.base import settings as settings_mod
from pbem.core import games
from pbem.core.service import open_service
from pbem.inbound import commands, process
from pbem.moderate import newgame
from pbem.outbound import links
from pbem.web import app as web_app, guard, server as web_server

BASE = "http://talisman.test"
SECURITY = ("content-security-policy", "x-content-type-options", "referrer-policy", "x-frame-options")


def open_web(tmp_path, **settings):
    """(svc, client, game, services): the web app over a home with one game; the client sees a
    server error as a 500 (as a browser would), not as the exception."""
    http = settings_mod.HttpSettings(url=BASE, **settings.pop("http", {}))
    cfg = settings_mod.Settings(home=str(tmp_path / "var"), http=http, **settings)
    svc = open_service(settings=cfg, clock=Clock())
    g = newgame.create(svc, game_config(characters={"alice": "wizard", "bob": "priest"}))
    opened = []

    def opener():
        opened.append(open_service(settings=cfg, clock=Clock()))
        return opened[-1]

    client = TestClient(web_app.create_app(opener), base_url=BASE, raise_server_exceptions=False)
    return svc, client, g, opened


@pytest.fixture
def web(tmp_path):
    svc, client, g, opened = open_web(tmp_path)
    with client:
        yield svc, client, g
    for s in [svc, *opened]:
        s.store.close()


def seat_path(svc, g, name) -> str:
    return links.seat_path(svc, svc.store.player(g, name))


def asked(svc, g) -> tuple[str, dict]:
    state = games.state(svc, games.get(svc, g))
    name = svc.engine.waiting_for(state)[0]
    return name, svc.engine.view(state, name)["mine"]


def page_form(client, path) -> dict:
    page = client.get(path).text
    return {n: re.search(rf'name="{n}" value="([^"]*)"', page).group(1) for n in ("csrf", "prompt", "form")}


# -- malformed input: 400 or 404, the security headers, no traceback -------------------------

MALFORMED = [
    ("game", "?upto=²"), ("game", "?upto=" + "9" * 5000), ("game", "?upto=-3"), ("game", "?upto=1e9"),
    ("seat", "?upto=²"), ("seat", "?done=²"), ("seat", "?done=" + "9" * 30), ("seat", "?upto=" + "1" * 5000),
    ("secret", "é"), ("secret", "%C3%A9%C3%A9"), ("secret", "%00"), ("secret", "x" * 5000),
    ("secret", "%F0%9F%98%80" * 8), ("id", "%00"), ("id", "é"), ("id", "g" * 5000), ("id", "%FF%FE"),
]


@pytest.mark.parametrize("where,odd", MALFORMED, ids=[f"{w}:{o[:12]}" for w, o in MALFORMED])
def test_malformed_paths_and_queries_answer_400_or_404_with_the_headers_and_no_traceback(web, where, odd,
                                                                                          capsys, caplog):
    svc, client, g = web
    path = {"game": f"/g/{g}{odd}", "seat": seat_path(svc, g, "alice") + odd,
            "secret": f"/g/{g}/s/{odd}", "id": f"/g/{odd}"}[where]
    r = client.get(path)
    assert r.status_code in (400, 404), (path[:60], r.status_code)
    assert all(h in r.headers for h in SECURITY), r.headers
    logged = capsys.readouterr().err + caplog.text
    assert "Traceback" not in logged and "Error" not in logged


def test_a_malformed_form_is_refused_as_such_not_a_500(web, capsys):
    svc, client, g = web
    name, q = asked(svc, g)
    path = seat_path(svc, g, name)
    form = page_form(client, path)
    odd = [{**form, "prompt": "²", "action": "lines", "lines": "left"},
           {**form, "prompt": "9" * 5000, "action": "lines", "lines": "left"},
           {**form, "csrf": "é" * 32, "action": "lines", "lines": "left"},
           {**form, "action": "bogus"}]
    for data in odd:
        r = client.post(path, data=data)
        assert r.status_code in (400, 403, 409), (data, r.status_code)
        assert all(h in r.headers for h in SECURITY)
    r = client.post(path, data={**form, "action": "lines"}, files={"csrf": ("x.txt", b"not text")})
    assert r.status_code == 403  # a file under a text field's name is no token
    r = client.post(path, content=b"--x\r\nnot a multipart body", headers={"content-type": "multipart/form-data"})
    assert r.status_code == 400 and all(h in r.headers for h in SECURITY)
    assert svc.store.inbox_rows() == []  # nothing was stored
    assert "Traceback" not in capsys.readouterr().err


def test_a_server_error_still_carries_the_security_headers(web, monkeypatch):
    svc, client, g = web
    monkeypatch.setattr(web_app.pages, "index", lambda svc: 1 / 0)
    r = client.get("/")
    assert r.status_code == 500 and all(h in r.headers for h in SECURITY)


# -- uploads from one seat -------------------------------------------------------------------------

def test_uploads_from_one_seat_are_limited_per_hour_and_per_file(tmp_path):
    """A browser sent 330 MB a minute, every file stored. Now a seat may send `upload_kb_per_hour`
    from its page (every answer and file counted in KB) and a file at most `[http] upload_kb`: over
    either, a clear refusal and nothing stored; the moderator hears of it once."""
    svc, client, g, opened = open_web(tmp_path, upload_kb_per_hour=96, moderator="mod@example.org",
                                      http={"upload_kb": 40})
    with client:
        name, q = asked(svc, g)
        path = seat_path(svc, g, name)
        junk = b'answers = ["no-such-answer"]\n# ' + b"x" * (31 * 1024) + b"\n"  # 32 KB with its token
        statuses = []
        for _ in range(4):
            r = client.post(path, data={**page_form(client, path), "action": "upload"},
                            files={"turnfile": ("turn.toml", junk)})
            statuses.append(r.status_code)
        assert statuses == [422, 422, 422, 429], statuses  # three of 32 KB fit in 96 KB, the fourth not
        assert "upload_kb_per_hour" in r.text and "this was not sent" in r.text
        assert all(h in r.headers for h in SECURITY)
        assert len(svc.store.inbox_rows()) == 3  # the refused one was not stored
        r = client.post(path, data={**page_form(client, path), "action": "lines", "lines": q["options"][0]["key"]})
        assert r.status_code == 429 and q["options"][0]["key"] in r.text  # what was typed stays in the box
        big = b'answers = ["x"]\n# ' + b"y" * (41 * 1024) + b"\n"
        r = client.post(path, data={**page_form(client, path), "action": "upload"},
                        files={"turnfile": ("turn.toml", big)})
        assert r.status_code == 409 and "larger than 40 KB" in r.text
        assert "at most 40 KB" in client.get(path).text
        notes = svc.store.query("SELECT * FROM notices WHERE kind = 'limit'")
        assert len(notes) == 1 and "upload_kb_per_hour" in notes[0]["text"] and notes[0]["count"] >= 2
        other = seat_path(svc, g, "bob" if name == "alice" else "alice")  # another seat has its own hour
        assert client.post(other, data={**page_form(client, other), "action": "lines", "lines": "x"}).status_code \
            != 429
    for s in [svc, *opened]:
        s.store.close()


# -- what held already ----------------------------------------------------------------------------

def test_guessed_links_open_nothing_and_the_check_does_the_same_work_whatever_is_guessed(web, monkeypatch):
    svc, client, g = web
    real = links.seat_secret(svc, svc.store.player(g, "alice"))
    guesses = [real[:-1] + ("0" if real[-1] != "0" else "1"), "0" * 32, real.upper(), real[:16]]
    for guess in guesses:
        assert client.get(f"/g/{g}/s/{guess}").status_code == 404
    compared = []
    original = hmac.compare_digest
    monkeypatch.setattr(links.hmac, "compare_digest", lambda a, b: compared.append(1) or original(a, b))
    for secret in (real, guesses[0], guesses[1]):  # right, one character off, nothing like it
        compared.clear()
        assert (links.find_seat(svc, g, secret) is not None) == (secret == real)
        assert len(compared) == 2  # every seat compared in constant time: no early exit on a match
    assert client.get(f"/g/{g}/s/{real}").status_code == 200


def test_a_forged_form_plays_nothing(web):
    """CSRF: the token is bound to the seat and the browser's own cookie."""
    svc, client, g = web
    name, q = asked(svc, g)
    path = seat_path(svc, g, name)
    form = page_form(client, path)
    key = q["options"][0]["key"]
    other = TestClient(client.app, base_url=BASE)  # another browser, which learnt the link and a form
    other.get(path)
    for who, data in ((other, {**form, "action": "button", "key": key}),
                      (client, {**form, "csrf": "0" * 32, "action": "button", "key": key}),
                      (client, {"prompt": form["prompt"], "form": form["form"], "action": "button", "key": key})):
        r = who.post(path, data=data)
        assert r.status_code == 403 and "did not come from your page" in r.text
    assert games.get(svc, g)["moves"] == 0 and svc.store.inbox_rows() == []


def test_markup_through_typed_lines_names_and_card_texts_is_shown_as_text(web):
    svc, client, g = web
    name, q = asked(svc, g)
    path = seat_path(svc, g, name)
    form = page_form(client, path)
    payload = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    r = client.post(path, data={**form, "action": "lines", "lines": f"{q['id']}: {payload}"})
    assert r.status_code == 422
    assert "<script>alert" not in r.text and "<img src=x" not in r.text and "&lt;script&gt;" in r.text
    try:  # a player's name with markup: refused when the game is made, or shown as text
        odd = newgame.create(svc, game_config(name="odd", players=[("eve", "eve@example.org"),
                                                                  ("<b>mal</b>", "m@example.org")]))
    except games.GameError:
        return
    page = client.get(f"/g/{odd}").text
    assert "<b>mal</b>" not in page and "&lt;b&gt;mal" in page


def test_another_seats_resign_code_resigns_nobody(web):
    svc, client, g = web
    alice, bob = (svc.store.player(g, n) for n in ("alice", "bob"))
    code = commands.resign_code(svc, alice)
    result = process.handle(svc, mail([f"resign {code}"], sender="bob@example.org", tok=token(svc, g, "bob"),
                                      game=g))
    assert result.outcome.startswith("resign: confirmation asked")
    assert svc.store.player(g, "bob")["status"] == "active" and svc.store.player(g, "alice")["status"] == "active"
    assert commands.resign_code(svc, bob) != code


# -- slow and greedy clients: a real uvicorn with the guard ---------------------------------------

LIMITS = guard.Limits(header_seconds=0.6, body_seconds=0.6, connections=30, per_address=8)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served(tmp_path):
    """(svc, port, protocol class, game): uvicorn serving the app as `pbem serve --http` does
    (pbem/web/server.py's settings, with short deadlines), in a thread."""
    import uvicorn
    port = free_port()
    cfg = settings_mod.Settings(home=str(tmp_path / "var"), http=settings_mod.HttpSettings(port=port))
    svc = open_service(settings=cfg)
    g = newgame.create(svc, game_config())
    config = web_server.config(web_app.create_app(lambda: open_service(settings=cfg)), "127.0.0.1", port, LIMITS)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    assert server.started
    yield svc, port, config.http_protocol_class, g
    server.should_exit = True
    thread.join(10)
    svc.store.close()


def connect(port: int, source: str = "127.0.0.1", first: bytes = b"GET / HTTP/1.1\r\nHost: x\r\n") -> socket.socket:
    """A client from `source` (any 127.x address is this machine) that sends the start of a
    request and no more."""
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    if first:
        s.sendall(first)
    return s


def answer(s: socket.socket, wait: float = 5) -> bytes:
    """What the server wrote before it closed the connection (b"" if it only closed it)."""
    s.settimeout(wait)
    out = b""
    try:
        while chunk := s.recv(65536):
            out += chunk
    except TimeoutError:
        out += b"<still open>"
    except ConnectionResetError:
        pass
    return out


def get(port: int, path: str, source: str = "127.0.0.1") -> tuple[int, float]:
    start = time.monotonic()
    s = connect(port, source, f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    got = answer(s, 10)
    s.close()
    return int(got.split()[1]), time.monotonic() - start


def test_requests_whose_headers_never_end_are_closed_and_the_pages_stay_up(served):
    svc, port, proto, g = served
    slow = [connect(port, "127.0.0.2") for _ in range(LIMITS.per_address)]
    time.sleep(0.2)
    status, took = get(port, f"/g/{g}")  # another address is served meanwhile
    assert status == 200 and took < 3
    start = time.monotonic()
    for s in slow:  # each is closed at the header deadline, saying why
        got = answer(s)
        assert got.startswith(b"HTTP/1.1 408") and b"content-security-policy" in got, got[:80]
        s.close()
    assert time.monotonic() - start < 3
    assert proto.shared.timed_out >= LIMITS.per_address and proto.shared.total == 0


def test_a_body_that_trickles_is_closed_at_its_deadline(served):
    svc, port, proto, g = served
    s = connect(port, first=b"POST /g/x/s/y HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc")
    start = time.monotonic()
    got = answer(s)
    assert b"<still open>" not in got and time.monotonic() - start < 3
    s.close()


def test_connections_over_the_cap_per_address_are_answered_busy_at_once(served):
    svc, port, proto, g = served
    held = [connect(port, "127.0.0.2", first=b"") for _ in range(LIMITS.per_address)]
    time.sleep(0.2)
    extra = connect(port, "127.0.0.2", first=b"")
    got = answer(extra, 2)
    assert got.startswith(b"HTTP/1.1 503") and b"retry-after" in got and b"referrer-policy" in got
    assert get(port, "/")[0] == 200  # another address is not held back by this one
    for s in held + [extra]:
        s.close()
    assert proto.shared.refused >= 1


def test_when_slow_connections_from_many_addresses_take_every_slot_a_player_is_still_served(served):
    """The cap in all holds (the server keeps no more than `connections`), and a newcomer takes
    the slot of the connection that has waited longest without a request."""
    svc, port, proto, g = served
    slow = [connect(port, f"127.0.1.{i}") for i in range(1, 6) for _ in range(LIMITS.per_address - 1)]
    time.sleep(0.3)
    assert len(slow) > LIMITS.connections and proto.shared.total == LIMITS.connections
    for _ in range(3):
        status, took = get(port, f"/g/{g}")
        assert status == 200 and took < 3
    assert proto.shared.evicted >= 3 and proto.shared.total <= LIMITS.connections
    closed = [answer(s, 0.05) for s in slow[:5]]  # the oldest went first, told why
    assert all(c.startswith(b"HTTP/1.1 503") for c in closed), closed
    for s in slow:
        s.close()


def test_an_attack_logs_a_few_lines_not_one_per_connection(served, capsys):
    svc, port, proto, g = served
    capsys.readouterr()
    socks = [connect(port, "127.0.0.3", first=b"") for _ in range(LIMITS.per_address + 60)]
    for s in socks:
        answer(s, 3)
        s.close()
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "web connection refused" in ln]
    assert proto.shared.refused >= 60 and 1 <= len(lines) <= 20


def test_invalid_http_is_answered_400_with_the_headers(served):
    svc, port, proto, g = served
    got = answer(connect(port, first=b"GET /\x01\x02 HTTP/1.1\r\nHost: x\r\n\r\n"))
    assert got.startswith(b"HTTP/1.1 400") and b"x-frame-options" in got


def test_the_connections_allowed_fit_the_open_files_beside_a_full_listen_queue(monkeypatch):
    """With systemd's 1,024 open files a burst of 1,100 connections made every accept fail (a
    traceback logged for each) while uvicorn's listen queue took 2,048 at once."""
    import resource
    monkeypatch.setattr(resource, "getrlimit", lambda what: (1024, 4096))
    fitted = guard.within_files(guard.Limits(connections=5000))
    assert fitted.connections == 1024 - guard.BACKLOG - guard.FILES_KEPT
    assert guard.within_files(guard.Limits(connections=400)).connections == 400
    config = web_server.config(web_app.create_app(lambda: None), "127.0.0.1", 1, guard.Limits())
    assert config.backlog == guard.BACKLOG

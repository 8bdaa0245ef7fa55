"""Replays (issue 6): the terminal, plain and rich, --to and --as, and the static site."""
import io
import re

import pytest
from test_archive import FIXTURE, cli, play_out

from pbem.archive import archive, replay


@pytest.fixture
def ended(svc):
    return play_out(svc, "replayed", "s-replay", turn_cap=3, bot_seed=2, moderator_every=5)


def test_plain_replay_shows_each_move_its_events_and_positions(svc, ended):
    out = cli(svc, "replay", ended).stdout
    data = archive.export(svc, ended)
    assert out.startswith(f"{ended} (ended), {len(data['moves'])} moves\n")
    assert out.count("\nmove ") == len(data["moves"])
    first = data["moves"][0]
    assert f"move 1 (turn {first['turn']}): {first['line']}" in out
    for e in first["events"]:
        assert f"  - {e['text']}\n" in out
    names = data["board"]["names"]
    assert f"alice {names[first['positions']['alice']['space']]} (" in out.split("\nmove 2 ")[0]
    assert "\x1b[" not in out  # no colours when stdout is not a terminal


def test_to_stops_after_move_n(svc, ended):
    out = cli(svc, "replay", ended, "--to", 3).stdout
    assert re.findall(r"^move (\d+)", out, re.M) == ["1", "2", "3"]


def test_a_file_replays_like_the_game_it_came_from(svc, ended, tmp_path):
    cli(svc, "export", ended, "-o", tmp_path / "game.json")
    assert cli(svc, "replay", tmp_path / "game.json").stdout == cli(svc, "replay", ended).stdout


def test_as_player_shows_only_what_they_may_see(tmp_path):
    data = archive.load(FIXTURE)
    data["moves"][0]["events"].append({"kind": "secret", "text": "only bob knows", "to": ["bob"], "data": {}})
    archive.save(data, tmp_path / "game.json")
    shown = io.StringIO()
    replay.show(archive.load(tmp_path / "game.json"), "alice", out=shown)
    assert "only bob knows" not in shown.getvalue()
    shown = io.StringIO()
    replay.show(archive.load(tmp_path / "game.json"), "bob", out=shown)
    assert "only bob knows" in shown.getvalue()


def test_a_players_export_replays_only_as_that_player(svc, ended, tmp_path):
    path = tmp_path / "alice.json"
    cli(svc, "export", ended, "--as", "alice", "-o", path)
    assert "as alice saw it" in cli(svc, "replay", path).stdout
    assert "alice's export" in cli(svc, "replay", path, "--as", "bob", code=1).stderr
    assert cli(svc, "replay", ended, "--as", "alice").stdout == cli(svc, "replay", path).stdout


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_on_a_terminal_the_replay_uses_rich():
    out = Terminal()
    n = replay.show(archive.load(FIXTURE), upto=2, out=out)
    text = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())
    assert "\x1b[" in out.getvalue()  # colours
    assert n == 2 and "move 1 · turn" in text and "move 2 · turn" in text and "move 3 ·" not in text
    assert "character" in text and "where" in text  # the positions table
    ticks = []
    with replay.progress("testing", out=Terminal()) as tick:
        tick(1, 2)
        ticks.append(tick)
    assert ticks[0] is not archive.no_progress


def test_html_site_has_an_index_and_a_page_per_turn(svc, ended, tmp_path):
    site = tmp_path / "site"
    out = cli(svc, "replay", ended, "--html", site).stdout
    data = archive.export(svc, ended)
    turns = len({(m["turn"]) for m in data["moves"]})  # no rollback in this game: turns only grow
    pages = sorted(site.glob("turn-*.html"))
    assert len(pages) == turns and f"{turns} turn pages" in out
    index = (site / "index.html").read_text()
    assert all(f'href="{p.name}"' in index for p in pages)
    page = pages[0].read_text()
    picture = (site / replay.PICTURE).read_text()  # the board, once for every page
    assert picture.startswith("<svg") and "Crown of Command" in picture and "<title>Village</title>" in picture
    assert page.count("<svg") == 1 and f'<image href="{replay.PICTURE}"' in page and "Crown of Command" not in page
    assert page.count('stroke="#fff"') == 2  # a marker per living character
    assert f'<image href="{replay.PICTURE}"' in index
    first = data["moves"][0]
    assert first["events"][0]["text"].replace("'", "&#x27;") in page
    assert 'href="turn-0002.html">next' in page and 'href="index.html">index' in page


def test_html_to_limits_the_pages(tmp_path):
    data = archive.load(FIXTURE)
    pages = replay.write_html(data, tmp_path / "site", upto=2)
    shown = " ".join(p.read_text() for p in pages[1:])
    assert "<b>2. " in shown and "<b>3. " not in shown


def test_text_from_the_game_is_escaped_in_html(tmp_path):
    data = archive.load(FIXTURE)
    data["moves"][0]["events"].append({"kind": "x", "text": "<script>alert(1)</script>", "to": None, "data": {}})
    pages = replay.write_html(data, tmp_path / "site")
    assert not any("<script>" in p.read_text() for p in pages)


def test_the_web_face_serves_the_board_picture_the_pages_share(svc, ended, tmp_path):
    from starlette.testclient import TestClient

    from pbem.web.app import create_app
    client = TestClient(create_app(lambda: svc))
    r = client.get(f"/g/{ended}/replay/{replay.PICTURE}")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert "Crown of Command" in r.text and "<script" not in r.text
    assert client.get(f"/g/{ended}/replay/other.svg").status_code == 404

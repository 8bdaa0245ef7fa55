"""The web face in a real browser: Debian's Chromium, driven by Selenium through
chromedriver, against the real server (uvicorn on a free local port). It opens the pages at
desktop and phone widths and checks their layout (nothing wider than the screen, nothing cut
off, no block over another, every word of the board inside its space), that the strict
Content-Security-Policy blocks nothing the pages need, and it answers a question by button and
by uploaded turn file. Screenshots go to $PBEM_SCREENSHOTS (else the test's tmp folder).

Skips, saying why, where Chromium or chromedriver is missing (tools/install-browser.sh).
"""
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest
from conftest import game_config

from pbem.base import settings as settings_mod
from pbem.core import games
from pbem.core.service import open_service
from pbem.moderate import newgame
from pbem.outbound import links
from pbem.pace import moves
from pbem.web.app import create_app

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
if not (CHROMIUM and DRIVER):
    pytest.skip("the browser tests need Debian's chromium and chromium-driver: run tools/install-browser.sh "
                "(as root)", allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="the browser tests need selenium (the test extra)")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}
LAYOUT = Path(__file__).with_name("web_layout.js").read_text()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def site(tmp_path):
    """(svc, base url): the service with a game whose questions have deadlines, and uvicorn
    serving the web app over the same store in a thread."""
    import uvicorn
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cfg = settings_mod.Settings(home=str(tmp_path / "var"), http=settings_mod.HttpSettings(port=port))
    svc = open_service(settings=cfg)
    server = uvicorn.Server(uvicorn.Config(create_app(lambda: open_service(settings=cfg)), host="127.0.0.1",
                                           port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    assert server.started
    yield svc, base
    server.should_exit = True
    thread.join(10)
    svc.store.close()


@pytest.fixture
def browser(tmp_path):
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'chromium'}", "--window-size=1280,900"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=opts, service=webdriver.ChromeService(executable_path=DRIVER))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture
def shots(tmp_path):
    folder = Path(os.environ.get("PBEM_SCREENSHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def new_game(svc) -> str:
    config = game_config(name="browser", characters={"alice": "wizard", "bob": "priest"},
                         pace={"deadline": "48h"}, players=[("alice", "alice@example.org"),
                                                            ("bob", "bob@example.org"),
                                                            ("carol", "carol@example.org")])
    g = newgame.create(svc, config)
    for _ in range(5):  # a few moves, so the log has turns in it
        state = games.state(svc, games.get(svc, g))
        move = svc.engine.legal_moves(state)[0]
        moves.play(svc, games.get(svc, g), move.player, [f"{move.prompt}: {move.key}"])
    return g


def asked(svc, g) -> tuple[str, dict]:
    state = games.state(svc, games.get(svc, g))
    name = svc.engine.waiting_for(state)[0]
    return name, svc.engine.view(state, name)["mine"]


def at_width(driver, width: int, height: int) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def full_shot(driver, path: Path, width: int) -> None:
    """The whole page, not only the screen's height."""
    height = driver.execute_script("return document.documentElement.scrollHeight")
    at_width(driver, width, min(height, 8000))
    driver.save_screenshot(str(path))


def console_errors(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_pages_lay_out_at_desktop_and_phone_widths(site, browser, shots):
    svc, base = site
    g = new_game(svc)
    name, _ = asked(svc, g)
    pages = {"index": "/", "game": f"/g/{g}", "seat": links.seat_path(svc, svc.store.player(g, name))}
    for width_name, (w, h) in WIDTHS.items():
        for page, path in pages.items():
            at_width(browser, w, h)
            browser.get(base + path)
            assert browser.execute_script("return window.innerWidth") == w
            problems = browser.execute_script(LAYOUT)
            assert problems == [], (page, width_name, problems)
            assert console_errors(browser) == [], (page, width_name)  # a CSP violation is one
            full_shot(browser, shots / f"{page}-{width_name}.png", w)
    assert len(list(shots.glob("*.png"))) == 6


def test_the_layout_check_finds_a_page_too_wide(site, browser):
    """The check above can fail: a block wider than a phone is reported."""
    svc, base = site
    g = new_game(svc)
    at_width(browser, 390, 844)
    browser.get(f"{base}/g/{g}")
    browser.execute_script("document.querySelector('h1').textContent = 'x'.repeat(200);"
                           "document.querySelector('h1').style.whiteSpace = 'nowrap';")
    assert any("sideways" in p or "outside" in p for p in browser.execute_script(LAYOUT))
    browser.execute_script("document.querySelector('.sheets').style.marginTop = '-300px';")
    assert any("overlaps" in p for p in browser.execute_script(LAYOUT))


def test_a_deadline_is_shown_in_the_readers_time_zone(site, browser):
    svc, base = site
    g = new_game(svc)
    browser.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Asia/Tokyo"})
    browser.get(f"{base}/g/{g}")
    when = browser.find_element(By.CSS_SELECTOR, "time[data-local]")
    assert "UTC" in when.get_attribute("title") and "GMT+9" in when.text, when.text


def test_answer_by_button_in_the_browser(site, browser, shots):
    svc, base = site
    g = new_game(svc)
    name, q = asked(svc, g)
    moves = svc.store.game(g)["moves"]
    at_width(browser, *WIDTHS["phone"])
    browser.get(base + links.seat_path(svc, svc.store.player(g, name)))
    button = browser.find_element(By.CSS_SELECTOR, f'form.options button[value="{q["options"][0]["key"]}"]')
    button.click()
    notice = WebDriverWait(browser, 15).until(lambda d: d.find_element(By.CSS_SELECTOR, ".notice"))
    assert "Your answers were applied." in notice.text
    last = svc.store.moves(g)[-1]
    assert svc.store.game(g)["moves"] > moves and last["line"] == f"{name}: {q['id']}: {q['options'][0]['key']}"
    assert "?done=" in browser.current_url
    assert browser.execute_script(LAYOUT) == []
    full_shot(browser, shots / "seat-answered-phone.png", WIDTHS["phone"][0])
    assert any(r["kind"] in ("receipt", "error") and r["to_addr"] == f"{name}@example.org"
               for r in svc.store.outbox_rows())


def test_answer_by_upload_in_the_browser(site, browser, tmp_path):
    svc, base = site
    g = new_game(svc)
    name, q = asked(svc, g)
    line = f"{q['id']}: {q['options'][0]['key']}"
    turn = tmp_path / "my-turn.toml"
    turn.write_text(f'answers = ["{line}"]\n')
    browser.get(base + links.seat_path(svc, svc.store.player(g, name)))
    browser.find_element(By.ID, "turnfile").send_keys(str(turn))
    browser.find_element(By.CSS_SELECTOR, "form.upload button").click()
    notice = WebDriverWait(browser, 15).until(lambda d: d.find_element(By.CSS_SELECTOR, ".notice"))
    assert "Your answers were applied." in notice.text
    assert svc.store.moves(g)[-1]["line"] == f"{name}: {line}"
    assert svc.store.inbox_rows()[-1]["source"] == "web"


def test_a_finished_games_replay_shows_with_its_style_allowed(site, browser, shots):
    """The replay pages' one <style> and marker colours are allowed by hash: the browser
    blocks nothing (a wrong hash would be a console error and an unstyled page)."""
    from pbem.moderate import moderator
    svc, base = site
    g = new_game(svc)
    moderator.end(svc, g)
    browser.get(f"{base}/g/{g}")
    browser.find_element(By.LINK_TEXT, "Watch the replay").click()
    assert browser.find_element(By.TAG_NAME, "svg")
    assert browser.execute_script("return getComputedStyle(document.body).fontFamily").startswith("sans-serif")
    browser.find_element(By.PARTIAL_LINK_TEXT, "turn 1").click()
    assert "turn 1" in browser.title
    assert console_errors(browser) == []
    full_shot(browser, shots / "replay-desktop.png", 1280)

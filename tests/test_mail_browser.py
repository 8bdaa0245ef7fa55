"""Mail that reads well on a phone (issue 18): the HTML part of each kind of mail, opened in
headless Chromium at 390 px wide, has nothing wider than the screen, cut off or lying over
its neighbour (tests/web_layout.js, the web pages' check), and no word in a table cell (the
board's spaces) broken across two lines. Screenshots go to
$PBEM_SCREENSHOTS (else the test's tmp folder): look at them when the mails change.

Skips, saying why, where Chromium or chromedriver is missing (tools/install-browser.sh).
"""
import random

from conftest import mail, token
from test_reports import hero_config
from test_web_browser import LAYOUT, WIDTHS, at_width, browser, full_shot, shots  # noqa: F401  (fixtures)

from pbem import bot
from pbem.core import games
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame
from pbem.outbound import outbox

KINDS = ("welcome", "report", "receipt", "error", "gameover", "press")
# Each word of every table cell that lies on more than one line ("Sentin" / "el"): a word's
# text range has one client rectangle per line it lies on. Hyphens may end a line.
SPLIT_WORDS = """
const split = [];
for (const cell of document.querySelectorAll("td, th")) {
  const texts = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let node = texts.nextNode(); node; node = texts.nextNode()) {
    for (const m of node.textContent.matchAll(/[^\\s\\-\u2010-\u2014]+/g)) {
      const word = document.createRange();
      word.setStart(node, m.index);
      word.setEnd(node, m.index + m[0].length);
      const lines = new Set(Array.from(word.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (lines.size > 1) split.push("'" + m[0] + "' is broken across " + lines.size + " lines");
    }
  }
}
return split;
"""


def mails_of_a_game(svc) -> dict[str, dict]:
    """One mail of each kind, the fullest (longest HTML) of each, from a game played by mail."""
    g = newgame.create(svc, hero_config(press="allowed"))
    toks = {p["name"]: token(svc, g, p["name"]) for p in svc.store.players(g)}
    rnd = random.Random(11)
    handle(svc, mail(["to: bob", "A long word: Supercalifragilisticexpialidocious-and-more."],
                     sender="alice@example.org", tok=toks["alice"], game=g))
    for n in range(40):
        state = games.state(svc, games.get(svc, g))
        move = bot.choose(state, rnd)
        if move is None:
            break
        if move.player == svc.engine.MODERATOR:
            moderator.answer(svc, g, move.player, f"{move.prompt}: {move.key}")
            continue
        lines = [f"{move.prompt}: {move.key}"] + (["xyzzy"] if n % 9 == 8 else [])
        handle(svc, mail(lines, sender=f"{move.player}@example.org", tok=toks[move.player], game=g))
    moderator.end(svc, g)
    fullest: dict[str, dict] = {}
    for row in svc.store.outbox_rows():
        m = outbox.mail(svc, row["id"])
        if row["kind"] in KINDS and len(m["html"]) > len(fullest.get(row["kind"], {}).get("html", "")):
            fullest[row["kind"]] = m
    return fullest


def test_every_kind_of_mail_reads_at_phone_width(svc, browser, shots, tmp_path):  # noqa: F811
    fullest = mails_of_a_game(svc)
    assert set(fullest) == set(KINDS), set(fullest)
    width, height = WIDTHS["phone"]
    problems = {}
    for kind, m in fullest.items():
        page = tmp_path / f"{kind}.html"
        page.write_text(m["html"])
        at_width(browser, width, height)
        browser.get(page.as_uri())
        found = browser.execute_script(LAYOUT) + browser.execute_script(SPLIT_WORDS)
        full_shot(browser, shots / f"mail-{kind}-phone.png", width)
        if found:
            problems[kind] = found
    assert not problems, problems


def test_the_check_finds_a_mail_too_wide_and_a_word_over_its_cell(browser, tmp_path):  # noqa: F811
    page = tmp_path / "wide.html"
    head = '<html><head><meta name="viewport" content="width=device-width, initial-scale=1"></head><body>'
    page.write_text(head + '<table style="width:900px"><tr><td>wide</td></tr></table></body></html>')
    at_width(browser, *WIDTHS["phone"])
    browser.get(page.as_uri())
    assert any("sideways" in p or "outside" in p for p in browser.execute_script(LAYOUT))
    page.write_text(head + '<table style="table-layout:fixed;width:100px"><tr><td>Supercalifragilistic</td>'
                    '<td>x</td></tr></table></body></html>')
    browser.get(page.as_uri())
    assert any("runs over its cell" in p for p in browser.execute_script(LAYOUT))


def test_the_check_finds_a_word_broken_across_lines(browser, tmp_path):  # noqa: F811
    page = tmp_path / "broken.html"
    head = '<html><head><meta name="viewport" content="width=device-width, initial-scale=1"></head><body>'
    cell = '<table style="table-layout:fixed;width:90px"><tr><td style="overflow-wrap:anywhere">{}</td></tr></table>'
    at_width(browser, *WIDTHS["phone"])
    page.write_text(head + cell.format("Crown of Command") + "</body></html>")
    browser.get(page.as_uri())
    assert browser.execute_script(SPLIT_WORDS) == []  # words on lines of their own are whole
    page.write_text(head + cell.format("Supercalifragilistic") + "</body></html>")
    browser.get(page.as_uri())
    assert [p.split(" is ")[0] for p in browser.execute_script(SPLIT_WORDS)] == ["'Supercalifragilistic'"]

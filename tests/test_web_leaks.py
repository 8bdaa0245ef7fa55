"""No page shows its reader what they may not see: the leak test of tests/test_leaks.py over
every page. Random games are played by mail (tests/bymail.py); every few moves the public
page and every seat's page are fetched, and each must name no canary -- a Spell another
player holds, or an Action card in the Nemesis's hand -- unless what the reader may see names
it (an event shown to them, the question put to them); no page holds the seed or any token,
and a seat's page holds no other seat's link."""
import html
import re

import pytest
from bymail import play_by_mail
from conftest import game_config, token
from test_web import seat_url, web  # noqa: F401 -- the fixture

from pbem.base import printed_names
from pbem.core import games
from pbem.moderate import newgame
from pbem.outbound import links, reports

HEROES = [("alice", "wizard"), ("bob", "priest"), ("carol", "sorceress"), ("dave", "prophetess")]
EVERY = 3  # moves between looks at the pages
DECKS = re.compile(r"^.*\((cards left, facedown|verbleibende Karten, verdeckt)\).*$", re.MULTILINE)


def named(name: str, text: str) -> bool:
    """Whether `text` names the card: as printed, or as a German reader's names file gives it."""
    return any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text) is not None
               for n in {name, printed_names.name(name, "de")})


def page_text(client, url: str) -> str:
    r = client.get(url)
    assert r.status_code == 200, url
    return html.unescape(r.text)


def held(svc, state, names) -> dict[str, set[str]]:
    """Per player, the hidden cards they hold: Spells, and a hand (the Nemesis's Action cards, a Boon)."""
    out = {}
    for n in names:
        p = svc.engine.view(state, n)["players"][n]
        out[n] = set(p["spells"]) | set(p.get("hand") or [])
    return out


def check_pages(svc, client, g, state, names, seen) -> tuple[int, int]:
    """Every page of game g now; returns (pages read, canaries that could have leaked)."""
    eng = svc.engine
    cards = held(svc, state, names)
    seed = games.seed(svc, svc.store.game(g))
    secrets = {n: (token(svc, g, n), links.seat_secret(svc, svc.store.player(g, n))) for n in names}
    read = canaries = 0
    for reader in [None, *names]:
        text = page_text(client, f"/g/{g}" if reader is None else seat_url(svc, g, reader))
        text = DECKS.sub("", text)  # deck counts ("Boon 2") are not card names
        visible = list(seen[reader])
        if reader is not None:
            visible += [q["question"] + " " + " ".join(o["text"] for o in q["options"])
                        for q in eng.view(state, reader)["prompt"]]
        visible = "\n".join(visible)
        canary = {c for n, cs in cards.items() if n != reader for c in cs} - cards.get(reader, set())
        canary = {c for c in canary if not named(c, visible)}
        leaked = sorted(c for c in canary if named(c, text))
        assert not leaked, (reader, leaked, [ln for ln in text.splitlines() if any(named(c, ln) for c in leaked)])
        if reader is not None:
            assert all(named(c, text) for c in cards[reader]), (reader, cards[reader])  # one's own are shown
        assert (seed in text) is False
        for n, (tok, secret) in secrets.items():
            assert tok not in text
            assert (secret in text) == (n == reader), (reader, n)
        read += 1
        canaries += len(canary)
    return read, canaries


def play_and_look(svc, client, g, names, seed, moves):
    eng = svc.engine
    seen = {n: [] for n in [None, *names]}
    read = canaries = 0
    for i, step in enumerate(play_by_mail(svc, g, seed, moves)):
        for reader in seen:
            seen[reader] += [e.text for e in eng.filter_events(step.events, reader or reports.SPECTATOR)]
        if i % EVERY == 0:
            r, c = check_pages(svc, client, g, step.state, names, seen)
            read, canaries = read + r, canaries + c
    return read, canaries


@pytest.mark.parametrize("seed,packs,lang", [(1, [], "de"), (2, ["cataclysm"], "en"), (3, ["sea-voyage"], "en")])
def test_no_page_shows_another_players_spells(web, seed, packs, lang):
    """In English and in German (issue 29): the seats' pages in the game's language, the public
    page in the one the browser asks for."""
    svc, client = web
    client.headers["accept-language"] = lang
    names = [n for n, _ in HEROES]
    g = newgame.create(svc, game_config(name=f"web-leaks-{seed}", seed=f"web-leak-seed-{seed}", language=lang,
                                      players=[(n, f"{n}@example.org") for n in names], characters=dict(HEROES),
                                      packs=packs))
    read, canaries = play_and_look(svc, client, g, names, seed, 150)
    assert read > 200 and canaries > 50, (read, canaries)
    assert all(f'<html lang="{lang}">' in page_text(client, url) for url in [f"/g/{g}", seat_url(svc, g, "alice")])


def test_no_page_shows_the_nemesis_hand_to_a_hero(web):
    svc, client = web
    names = ["nick", "ann", "ben", "cat"]
    config = game_config(name="web-nemesis", seed="web-nem-seed-1", edition="fifth", packs=["nemesis"],
                         players=[(n, f"{n}@example.org") for n in names])
    config["players"][0]["role"] = "nemesis"
    g = newgame.create(svc, config)
    read, canaries = play_and_look(svc, client, g, names, 1, 150)
    assert read > 200 and canaries > 50, (read, canaries)

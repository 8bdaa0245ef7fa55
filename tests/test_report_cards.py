"""Cards explained (issue 18): each card in the reader's hand, on their space or named in
their question comes with its one-line effect in the content's own words, stand-ins marked;
a card drawn is explained beside its drawing; stand-in spaces and characters say so too (issue
17), on the reports' sheet and map and the web pages. Through the service: mail in, mails out."""
import random
import re

from conftest import game_config, mail, token
from test_commands import last_id, mails, send
from test_reports import hero_config
from test_web import seat_url, web  # noqa: F401 -- the fixture

from engine import content
from pbem import bot
from pbem.core import games
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame
from pbem.outbound import glossary, outbox

CARDS = content.load("revised4", ()).cards
BY_NAME = {c.name: c for c in reversed(list(CARDS.values()))}


def named_here(text: str) -> dict[str, str]:
    """The "cards named here" section of a report's text: name -> line (wrapped lines joined)."""
    if "The cards named here:" not in text:
        return {}
    block = text.split("The cards named here:\n", 1)[1].split("\n\n", 1)[0]
    entries = re.split(r"\n  (?! )", "\n" + block)[1:]
    return dict(" ".join(e.split()).split(": ", 1) for e in entries)


def test_a_card_in_hand_is_explained_and_a_stand_in_says_so(svc):
    g = newgame.create(svc, hero_config())
    moderator.adjudicate(svc, g, "alice object sword")
    since = last_id(svc)
    send(svc, g, "alice", ["status"])
    text = [t for r, t in mails(svc, since) if r["player"] == "alice"][-1]
    here = named_here(text)
    sword = CARDS["sword"]
    assert not sword.confirmed, "the Sword's row is a stand-in in the content"
    assert here["Sword"] == glossary.one_line(sword) + " (stand-in)"
    state = games.state(svc, games.get(svc, g))
    for spell in state.players[0].spells:  # her Spells too, confirmed ones unmarked
        card = CARDS[spell]
        assert here[card.name] == glossary.one_line(card) + ("" if card.confirmed else " (stand-in)")
    assert "(Modelled" not in text and "(One source" not in text  # the project's asides are left out


def test_cards_drawn_and_cards_asked_about_are_explained_along_a_game(svc):
    rnd = random.Random(4)
    g = newgame.create(svc, hero_config())
    toks = {p["name"]: token(svc, g, p["name"]) for p in svc.store.players(g)}
    draws = asked_about = 0
    seen = 0
    for _ in range(80):
        for _row, text in mails(svc, seen):
            flat = " ".join(text.split())
            for name in re.findall(r"\b\w+ draws ([A-Z][\w' -]*?)(?= —|\.)", flat):
                card = BY_NAME.get(name)
                if card is not None:
                    assert f"draws {name} — {' '.join(glossary.one_line(card).split())}" in flat, name
                    draws += 1
            m = re.search(r"^Your move \(question \d+\)", text, re.MULTILINE)
            if m:
                options = re.findall(r"^  (\S+) {2,}(.*)$", text[m.end():].split("\n\nReply")[0], re.MULTILINE)
                for key, said in options:
                    card = CARDS.get(key) or CARDS.get(key[5:] if key.startswith("cast-") else "")
                    if card is not None and card.name in said:  # "cross the bridge" is not the Cross
                        assert card.name in named_here(text), (key, text)
                        asked_about += 1
        seen = last_id(svc)
        state = games.state(svc, games.get(svc, g))
        if state.over or draws >= 3 and asked_about >= 3:
            break
        move = bot.choose(state, rnd)
        if move.player == svc.engine.MODERATOR:
            moderator.answer(svc, g, move.player, f"{move.prompt}: {move.key}")
        else:
            handle(svc, mail([f"{move.prompt}: {move.key}"], sender=f"{move.player}@example.org",
                             tok=toks[move.player], game=g))
    assert draws >= 3 and asked_about >= 3, (draws, asked_about)


DEEP = ("city", "dungeon", "deep-realms")


def deep_game(svc) -> str:
    """alice (the Wizard, a stand-in) on the City's Market Street (a stand-in space), bob (the
    Warrior, confirmed) on the Deep Realms' Rat Run (confirmed), carol the Troll where she starts."""
    g = newgame.create(svc, game_config(name="marks", packs=list(DEEP), players=[(n, f"{n}@example.org") for n in
                                        ("alice", "bob", "carol")],
                                        characters={"alice": "wizard", "bob": "warrior", "carol": "troll"}))
    moderator.adjudicate(svc, g, "alice space market-street, bob space rat-run")
    return g


def test_stand_in_spaces_and_characters_say_so_in_reports_and_pages(web):  # noqa: F811
    svc, client = web
    board, characters = content.load("revised4", DEEP).board, content.load("revised4", DEEP).characters
    spaces = board.spaces
    assert not spaces["market-street"].confirmed and not characters["wizard"].confirmed  # the premises
    assert spaces["rat-run"].confirmed and characters["warrior"].confirmed
    assert not spaces["crags"].confirmed and all(not spaces[s].confirmed for s in board.rings["city"])
    g = deep_game(svc)
    since = last_id(svc)
    send(svc, g, "alice", ["status"])
    send(svc, g, "bob", ["status"])
    got = {r["player"]: (t, outbox.mail(svc, r["id"])["html"]) for r, t in mails(svc, since)}
    text, html = got["alice"]
    assert "Your character: Wizard (stand-in) at Market Street (stand-in), The City, evil" in text
    assert "Your character: Wizard <em" in html and "Market Street</strong> <em>(stand-in)</em>, The City" in html
    flat = " ".join(text.split())
    assert "The City (stand-in): Its spaces, clockwise: City Gate, Town Square, Market Street," in flat  # once
    assert " Market Street: alice." in flat  # ... for a ring of them
    assert "Rat Queen's Lair: Its spaces, clockwise: Rat Run," in flat and " Rat Run: bob." in flat  # confirmed
    assert re.search(r"Outer Region: (\w+: \w+\. )*Crags \(stand-in\): carol\.", flat)  # a stand-in of the main board
    assert "<strong>The City</strong> <em>(stand-in)</em>, clockwise" in html
    bob = got["bob"][0]
    assert "Your character: Warrior at Rat Run (Rat Queen's Lair), neutral" in bob  # confirmed: no mark
    for page in (client.get(f"/g/{g}").text, client.get(seat_url(svc, g, "alice")).text):  # the public page, a seat's
        assert 'Wizard <em class="stand-in">(stand-in)</em></td>' in page  # the players' table
        assert 'Market Street <em class="stand-in">(stand-in)</em></td>' in page
        assert "<td data-label=\"Character\">Warrior</td>" in page and '>Rat Run</td>' in page
    seat = client.get(seat_url(svc, g, "alice")).text
    assert '<h2>Your character: Wizard <em class="stand-in">(stand-in)</em></h2>' in seat


def test_the_welcome_explains_the_mark_for_spaces_and_characters_only_when_the_game_has_them(svc, monkeypatch):
    def welcome(game: str) -> tuple[str, str]:
        row = next(r for r in svc.store.outbox_rows() if r["kind"] == "welcome" and r["game"] == game)
        m = outbox.mail(svc, row["id"])
        return " ".join(m["text"].split()), m["html"]

    text, html = welcome(newgame.create(svc, game_config(name="all", packs=["city"])))
    assert 'A card marked "(stand-in)" in a report is a placeholder' in text
    assert "A space or a character marked so is a stand-in too" in text and "A space or a character marked" in html
    real = glossary.stand_ins
    monkeypatch.setattr(glossary, "stand_ins", lambda *a: real(*a)._replace(spaces=frozenset()))
    text, html = welcome(newgame.create(svc, game_config(name="chars")))
    assert "A character marked so is a stand-in too" in text and "A space" not in text
    monkeypatch.setattr(glossary, "stand_ins", lambda *a: glossary.StandIns(frozenset(), frozenset()))
    text, html = welcome(newgame.create(svc, game_config(name="none")))
    assert "marked so is a stand-in too" not in text and "marked so is a stand-in too" not in html
    assert 'A card marked "(stand-in)"' in text  # the cards' line stays

"""Cards explained (issue 18): each card in the reader's hand, on their space or named in
their question comes with its one-line effect in the content's own words, stand-ins marked;
a card drawn is explained beside its drawing. Through the service: mail in, mails out."""
import random
import re

from conftest import mail, token
from test_commands import last_id, mails, send
from test_reports import hero_config

from engine import content
from pbem import bot
from pbem.core import games
from pbem.play import newgame
from pbem.outbound import glossary
from pbem.play import moderator
from pbem.inbound.process import handle

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
        for row, text in mails(svc, seen):
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

"""A card's text and a character's abilities in the reader's language where the content gives them
(engine/content/<pack>/<lang>/texts.toml, pbem/base/printed_texts.py), English otherwise; every
content text a reader sees has its German text."""
from __future__ import annotations

import random
import re
import tomllib
from pathlib import Path

from conftest import mail, token
from test_commands import last_id, mails
from test_reports import hero_config

from engine import content
from pbem import bot
from pbem.base import content_overlay, i18n, printed_names, printed_texts
from pbem.core import games
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame
from pbem.outbound import glossary

ROOT = Path(__file__).resolve().parent.parent / "engine" / "content"
CARDS = content.load("revised4", ()).cards


def flat(text: str) -> str:
    return " ".join(text.split())


def german(svc, *names: str):
    """A game of hero_config's heroes, those named reading German."""
    cfg = hero_config()
    for p in cfg["players"]:
        if p["name"] in names:
            p["language"] = "de"
    return newgame.create(svc, cfg)


def test_a_german_reader_reads_her_characters_abilities_and_her_spells_in_german(svc):
    g = german(svc, "alice")
    (alice_welcome,) = [t for r, t in mails(svc) if r["player"] == "alice" and r["kind"] == "welcome"]
    (bob_welcome,) = [t for r, t in mails(svc) if r["player"] == "bob" and r["kind"] == "welcome"]
    state = games.state(svc, games.get(svc, g))
    alice = next(p for p in state.players if p.name == "alice")
    ch = content.load("revised4", ()).characters[alice.character]
    for key, english in zip(ch.abilities, ch.ability_texts, strict=True):  # the welcome's abilities
        assert flat(printed_texts.ability(ch.name, key, "de") or "") in flat(alice_welcome), key
        assert flat(glossary.plain(english)) not in flat(alice_welcome), key
    shown, start = printed_names.name(ch.name, "de"), printed_names.name(ch.start.replace("-", " ").title(), "de")
    assert shown != ch.name and f"Sie spielen die Figur {shown}" in flat(alice_welcome)  # her character and start
    assert start in flat(alice_welcome) and f"Figur {ch.name}" not in flat(alice_welcome)  # named in German too
    bob = content.load("revised4", ()).characters[next(p for p in state.players if p.name == "bob").character]
    assert all(flat(glossary.plain(t)) in flat(bob_welcome) for t in bob.ability_texts)  # English unchanged
    for p in state.players:
        p.spells = ["healing"]
    svc.store.update_game(g, state=svc.engine.encode(state))
    since = last_id(svc)
    for name in ("alice", "bob"):
        handle(svc, mail(["status"], sender=f"{name}@example.org", tok=token(svc, g, name), game=g))
    text = {r["player"]: flat(t) for r, t in mails(svc, since)}
    assert "Heilung: Heilen Sie eine beliebige Figur, Sie selbst eingeschlossen" in text["alice"]
    assert "Heal any one character" not in text["alice"]
    assert "Healing: Heal any one character, yourself included" in text["bob"] and "Heilen Sie" not in text["bob"]


def test_cards_drawn_along_a_game_are_explained_in_each_readers_language(svc):
    """alice reads German, bob English, in one game: each card drawn is explained beside its
    drawing in the reader's language, and the German reader never gets the English line."""
    rnd = random.Random(4)
    g = german(svc, "alice")
    toks = {p["name"]: token(svc, g, p["name"]) for p in svc.store.players(g)}
    by_german = {printed_names.name(c.name, "de"): c for c in reversed(list(CARDS.values()))}
    by_name = {c.name: c for c in reversed(list(CARDS.values()))}
    drawn = {"alice": 0, "bob": 0, "alice's stand-ins": 0}
    seen = 0
    for _ in range(200):
        for row, text in mails(svc, seen):
            text = flat(text)
            if row["player"] == "alice":
                assert "(stand-in)" not in text  # a stand-in card drawn says so in her words: "(Platzhalter)"
                for name in re.findall(r"\b\w+ zieht ([A-ZÄÖÜ][\w' -]*?)(?= —|\.)", text):
                    card = by_german.get(name)
                    if card is not None and card.text:
                        line = flat(glossary.one_line(card, "de"))
                        assert line != flat(glossary.one_line(card, "en")), name  # a German text, not the fallback
                        assert f"zieht {name} — {line}" + ("" if card.confirmed else " (Platzhalter)") in text, name
                        assert flat(glossary.one_line(card, "en")) not in text, name
                        drawn["alice"] += 1
                        drawn["alice's stand-ins"] += not card.confirmed
            elif row["player"] == "bob":
                for name in re.findall(r"\b\w+ draws ([A-Z][\w' -]*?)(?= —|\.)", text):
                    card = by_name.get(name)
                    if card is not None and card.text:
                        assert f"draws {name} — {flat(glossary.one_line(card, 'en'))}" in text, name
                        drawn["bob"] += 1
        seen = last_id(svc)
        state = games.state(svc, games.get(svc, g))
        if state.over or min(drawn.values()) >= 2:
            break
        move = bot.choose(state, rnd)
        if move.player == svc.engine.MODERATOR:
            moderator.answer(svc, g, move.player, f"{move.prompt}: {move.key}")
        else:
            handle(svc, mail([f"{move.prompt}: {move.key}"], sender=f"{move.player}@example.org",
                             tok=toks[move.player], game=g))
    assert min(drawn.values()) >= 2, drawn


def test_a_text_the_file_does_not_give_stays_english_and_english_readers_keep_theirs():
    healing, goblin = CARDS["healing"], CARDS["goblin"]
    with i18n.using("de"):
        assert glossary.one_line(healing).startswith("Heilen Sie eine beliebige Figur")
    assert glossary.one_line(healing) == glossary.plain(healing.text)  # the current language: English
    assert glossary.one_line(goblin, "fr") == glossary.plain(goblin.text)  # no French file
    immobility = CARDS["immobility"]  # a summary where the text is long: the German summary
    assert glossary.one_line(immobility, "de") == printed_texts.card("revised4", "Immobility", "de")["summary"]
    potion = content.load("revised4", ("city",)).cards["healing-draught"]  # a text the engine shows itself:
    said = i18n.translations("de", i18n.ENGINE_DOMAIN).gettext(potion.text)  # its one German, the catalogue's
    assert glossary.one_line(potion, "de") == glossary.plain(said) != glossary.plain(potion.text)
    assert printed_texts.ability("Wizard", "keep-one-spell", "de").startswith("Er hält")
    assert printed_texts.ability("Prophetess", "keep-one-spell", "de").startswith("Sie hält")  # one key, two texts


def test_an_owner_corrects_a_german_text_in_the_content_folder():
    """The texts are our own translation: the moderator's content folder corrects one field of one
    row (the packaged row's other fields stay); `pbem rules check`'s checks refuse a bad row."""
    fixed = ('[[card]]\nprinted = "Healing"\ntext = "Heile eine Figur."\n\n'
             '[[character]]\nprinted = "Wizard"\n[character.abilities]\nkeep-one-spell = "Behält einen Zauber."\n')
    assert content_overlay.problems({"revised4/de/texts.toml": fixed}) == []
    wrong = content_overlay.problems({"revised4/de/texts.toml": '[[card]]\nprinted = "Healing"\ntxt = "X"\n'})
    assert wrong == ["revised4/de/texts.toml:1: [[card]] 'Healing': a row has `printed` (the name as the content "
                     "prints it) and `text`",
                     "revised4/de/texts.toml:1: [[card]] 'Healing': field `txt` is not read; a row holds printed, "
                     "text, summary"]
    assert content_overlay.problems({"city/de/texts.toml": "card = 3\n"}) == [
        "city/de/texts.toml: `card` is not read from a texts file; it may hold [[card]] and [[character]] rows"]
    previous = content.use_overlay({"revised4/de/texts.toml": fixed})
    try:
        assert glossary.one_line(CARDS["healing"], "de") == "Heile eine Figur."
        assert glossary.one_line(CARDS["teleport"], "de").startswith("Gehen Sie")  # the package's row
        assert printed_texts.ability("Wizard", "keep-one-spell", "de") == "Behält einen Zauber."
        assert printed_texts.ability("Wizard", "psychic-attacks-on-characters", "de").startswith("Seine Angriffe")
    finally:
        content.use_overlay(previous)
    assert glossary.one_line(CARDS["healing"], "de").startswith("Heilen Sie")


def test_every_german_row_names_what_its_pack_prints():
    """A row for a card or character its pack does not print (a misspelt name) would never be read."""
    for path in sorted(ROOT.glob("*/de/texts.toml")):
        pack = path.parent.parent.name
        rows = tomllib.loads(path.read_text(encoding="utf-8"))
        printed = {c.name for c in content.load("revised4", () if pack == "revised4" else (pack,)).cards.values()
                   if c.pack == pack}
        printed |= {r["name"] for f in (ROOT / pack).glob("*.toml")
                    for t in ("card", "spell", "item") for r in tomllib.loads(f.read_text("utf-8")).get(t, [])}
        assert [r["printed"] for r in rows.get("card", []) if r["printed"] not in printed] == [], pack
        characters = {c.name: c for c in content.load("revised4", ()).characters.values()}
        for r in rows.get("character", []):
            assert set(r["abilities"]) == set(characters[r["printed"]].abilities), r["printed"]


PACKS = sorted(p.name for p in ROOT.iterdir() if p.is_dir() and p.name != "revised4")


def numbers(text: str) -> list[str]:
    return sorted(re.findall(r"\d+", glossary.plain(text)))


def test_every_content_text_a_reader_sees_has_its_german_text():
    """A new card, summary or ability without its German text fails here by name; a German text
    says the numbers its English says (a Strength, a price, a roll: a changed English number
    leaves the German stale, and fails here); and no German line is cut short ("…",
    glossary.LONGEST) where the English one is whole."""
    assert printed_texts.missing("de") == []
    for path in sorted(ROOT.glob("*/*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for table in ("card", "spell", "item", "talisman"):
            rows = data.get(table, [])
            for row in [rows] if isinstance(rows, dict) else rows:
                german = printed_texts.card(path.parent.name, row["name"], "de", row.get("text", ""))
                for field in ("text", "summary"):
                    if row.get(field):
                        assert numbers(row[field]) == numbers(german[field]), (path.parent.name, row["name"], field)
        for ch in data.get("character", []):
            for a in ch.get("abilities", []):
                assert numbers(a["text"]) == numbers(printed_texts.ability(ch["name"], a["key"], "de") or ""), a["key"]
    for pack in ("revised4", *PACKS):
        for card in content.load("revised4", () if pack == "revised4" else (pack,)).cards.values():
            if card.pack == pack and card.text:
                cut = glossary.one_line(card, "de").endswith("…")
                assert not cut or glossary.one_line(card, "en").endswith("…"), (pack, card.name)

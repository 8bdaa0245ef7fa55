"""Card, space and character names in the reader's language where the content gives them
(engine/content/<pack>/<lang>/names.toml, pbem/base/printed_names.py), as printed otherwise;
never in the summary."""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

from babel.messages.pofile import read_po
from conftest import game_config
from test_languages import PLAYERS, mails, mixed
from test_web import seat_url, web  # noqa: F401 -- the fixture

from engine import content, registry
from engine.config import EDITION_TITLES
from engine.text import Msg
from pbem.base import content_overlay, engine_text, i18n, printed_names
from pbem.core import games
from pbem.inbound import orders
from pbem.moderate import newgame
from pbem.outbound import render

ROOT = Path(__file__).resolve().parent.parent / "engine" / "content"


def test_a_german_readers_report_names_spaces_and_characters_in_german_the_summary_stays_english(svc):
    cfg = game_config(players=PLAYERS, characters={"anna": "wizard", "bob": "warrior"}, packs=["city"])
    cfg["players"][0]["language"] = "de"
    g = newgame.create(svc, cfg)
    anna, bob = mails(svc, "anna@example.de", "report")[0], mails(svc, "bob@example.org", "report")[0]
    # her sheet, the players' list, the board in words and "around you": the German file's names
    assert "Ihre Figur: Zauberer (Platzhalter) auf Friedhof" in anna["text"]
    assert "bob: Krieger auf Taverne." in anna["text"] and "Taverne: bob." in anna["text"]
    assert "Friedhof (hier sind Sie)" in anna["text"] and "Zauber:    Heilung" in anna["text"]
    assert "Heilung: Heilen Sie eine beliebige Figur" in anna["text"]  # the card explained, by its German name
    assert "<br>Zauberer</td><td>Friedhof</td>" in anna["html"]  # the HTML players table
    # the City's spaces in German too (engine/content/city/de/names.toml); its region's name
    assert "Stadttor, Stadtplatz" in anna["text"] and "Stadttor" in anna["html"]
    assert "Die Stadt (Platzhalter)" in anna["text"]
    assert "Steckbrief 15, Kauf 28, Talisman 4, Waffenkammer 12, Zauberladen 16" in anna["text"]  # the City's decks
    # bob reads English: the printed names, in the same shared board part
    assert "anna: Wizard (stand-in) at Graveyard" in bob["text"] and "Friedhof" not in bob["text"]
    assert "Zauberer" not in bob["html"]
    # the summary (a contract: docs/summary.md) and the view stay as printed
    summary = json.dumps(games.summary_json(svc, games.get(svc, g)), ensure_ascii=False)
    assert "Graveyard" in summary and "Friedhof" not in summary and "Zauberer" not in summary


def test_a_name_the_file_does_not_give_stays_as_printed_and_players_keep_theirs():
    assert printed_names.name("Graveyard", "de") == "Friedhof"
    assert printed_names.name("Goblin", "de") == "Goblin"  # not in the German file
    assert printed_names.name("Graveyard", "en") == "Graveyard"
    assert printed_names.name("troll", "de") == "troll"  # a seat's name (a lower-case slug), not the Troll
    assert printed_names.name("Fields, Goblin, Forest", "de") == "Felder, Goblin, Forst"  # a list the engine joined
    assert printed_names.name("3, 4", "de") == "3, 4"
    with i18n.using("de"):  # a move's message: the spaces it passes, and where it ends
        assert engine_text.said("", Msg("{player} moves to {space} by way of {via}.",
                                        {"player": "anna", "space": "Plains", "via": "Fields, Forest"})) == \
            "anna zieht über Felder, Forst nach Ebene."
    rows = printed_names.rows("de")
    assert rows and all(r["confirmed"] is False for r in rows)  # every German name is a stand-in


def test_an_answer_may_name_a_card_or_space_as_the_reader_was_shown_it():
    assert orders._answer("1: cast-heilung") == "1: cast-healing"
    assert orders._answer("2: Friedhof") == "2: graveyard"
    assert orders._answer("2: hoehle-des-hexenmeisters") == "2: warlocks-cave"
    assert orders._answer("3: left") == "3: left" and orders._answer("3: troll") == "3: troll"


def test_an_owner_corrects_a_german_name_in_the_content_folder(svc):
    """The German names are stand-ins: the moderator's content folder (docs/content.md) corrects
    one with a file of the same path; `pbem rules check`'s checks read it, and refuse a bad one."""
    fixed = 'space = [{ printed = "Graveyard", name = "Gottesacker", confirmed = true }]\n'
    assert content_overlay.problems({"revised4/de/names.toml": fixed, "city/de/names.toml": fixed}) == []
    wrong = content_overlay.problems({"revised4/de/names.toml": 'space = [{ printed = "Graveyard", nom = "X" }]\n'})
    assert wrong == ['revised4/de/names.toml: space row 1: a row is { printed = "Graveyard", name = "...", '
                     'confirmed = false }']
    previous = content.use_overlay({"revised4/de/names.toml": fixed, "city/de/names.toml": fixed})
    try:
        assert printed_names.name("Graveyard", "de") == "Gottesacker"  # the owner's
        assert printed_names.name("Tavern", "de") == "Taverne"  # the package's, where the owner gives none
        assert content.load("revised4", ("city",)).board  # a pack's names file is no deck
        cfg = game_config(players=PLAYERS, characters={"anna": "wizard", "bob": "warrior"})
        cfg["players"][0]["language"] = "de"
        newgame.create(svc, cfg)
        assert "auf Gottesacker" in mails(svc, "anna@example.de", "report")[0]["text"]
    finally:
        content.use_overlay(previous)
    assert printed_names.name("Graveyard", "de") == "Friedhof"


def test_the_players_table_says_what_each_holds_in_the_readers_language(svc):
    """The shared frame keeps what each player holds by printed name; each reader's table says it
    in their language (a frame stored before has its English `notes`, shown as they are)."""
    row = {"mark": "B", "colour": "#000", "name": "bob", "character": "Warrior", "space": "Tavern", "alive": True,
           "out": False, "stand_in": False, "space_stand_in": False, "strength": 4, "craft": 2, "gold": 1,
           "life": "5/5", "fate": "1/1", "spells": 0,
           "held": [{"what": "Objects", "names": ["Sword", "Goblin Lamp"]}, {"what": "Followers", "names": ["Maiden"]}]}
    with i18n.using("de"):
        text, html = render.templates(svc).render("_row", {"p": row, "colour": "#000"})
    assert "Gegenstände: Schwert, Goblin Lamp; Begleiter: Jungfer." in " ".join(text.split())
    assert "Gegenstände: Schwert, Goblin Lamp; Begleiter: Jungfer" in html
    text_en, _ = render.templates(svc).render("_row", {"p": row, "colour": "#000"})
    assert "Objects: Sword, Goblin Lamp; Followers: Maiden." in " ".join(text_en.split())
    del row["held"]
    with i18n.using("de"):
        old, _ = render.templates(svc).render("_row", {"p": {**row, "notes": "objects: Sword"}, "colour": "#000"})
    assert "objects: Sword." in old


def test_the_pages_board_names_spaces_and_what_lies_there_in_the_readers_language(web):  # noqa: F811
    """The web page's SVG board is made once per game state and language: anna's page (German)
    names the spaces, the cards and the Hex in German, bob's (English) as printed, whichever of
    the two was drawn first; the public page follows the browser's language."""
    svc, client = web
    g = mixed(svc)
    state = games.state(svc, games.get(svc, g))
    state.effects.append({"name": "hex", "rounds": 3, "by": "bob", "space": "crags"})
    state.spaces["woods"] = ["ogre"]
    state.space_gold["hills"] = 2
    svc.store.update_game(g, state=svc.engine.encode(state))

    def board(url: str, **headers) -> str:
        page = client.get(url, headers=headers).text
        return page[page.index("<svg"):page.index("</svg>")]

    def tile(svg: str, space: str) -> str:
        at = svg[svg.index(f'data-space="{space}"'):]
        return at[:at.index("</g>")]

    bob = board(seat_url(svc, g, "bob"))  # drawn first, in English
    anna = board(seat_url(svc, g, "anna"))
    assert ">Friedhof</text>" in tile(anna, "graveyard") and "Oger" in tile(anna, "woods")
    assert "Fluch (3 Runden) von bob" in tile(anna, "crags") and "2 Gold" in tile(anna, "hills")
    assert 'aria-label="Das Spielbrett"' in anna and "Graveyard" not in anna
    assert ">Graveyard</text>" in tile(bob, "graveyard") and "Ogre" in tile(bob, "woods")
    assert "Hex (3 rounds) by bob" in tile(bob, "crags") and "2 gold" in tile(bob, "hills")
    assert "Friedhof" not in bob and "Fluch" not in bob
    assert ">Friedhof</text>" in board(f"/g/{g}", **{"accept-language": "de"})
    assert ">Graveyard</text>" in board(f"/g/{g}", **{"accept-language": "en"})


def _foes(folder: Path) -> set[str]:
    """The names a pack's content files give the foes its rolls make a character fight (`op =
    "fight", name = ...`: the Crags' Spirit), which are no card."""
    def walk(node) -> set[str]:
        if isinstance(node, dict):
            here = {node["name"]} if node.get("op") == "fight" and isinstance(node.get("name"), str) else set()
            return here.union(*(walk(v) for v in node.values()))
        return set().union(*(walk(v) for v in node)) if isinstance(node, list) else set()
    return set().union(*(walk(tomllib.loads(f.read_text("utf-8"))) for f in folder.glob("*.toml")))


def test_every_packs_german_names_name_what_the_pack_prints_once_each():
    """A names file beside each pack's content (engine/content/<pack>/de/names.toml): every row a
    character, space or card the content prints under that kind (a misspelt `printed` would
    translate nothing, silently), every row a stand-in, and no two printed names share a German
    one (an answer naming it could not say which)."""
    packs = [p.name for p in registry.PACKS]
    files = {p: ROOT / p / "de" / "names.toml" for p in ["revised4", *packs]}
    assert all(f.is_file() for f in files.values()), [p for p, f in files.items() if not f.is_file()]
    for pack, path in files.items():
        c = content.load("revised4", () if pack == "revised4" else (pack,))
        printed = {"character": {ch.name for ch in c.characters.values()},
                   "space": {s.name for s in c.board.spaces.values()}, "card": {cd.name for cd in c.cards.values()},
                   "foe": _foes(ROOT / pack),
                   "pack": set(EDITION_TITLES.values()) if pack == "revised4" else {registry.TITLES[pack]}}
        data = tomllib.loads(path.read_text("utf-8"))
        for kind, rows in data.items():
            unknown = [r["printed"] for r in rows if r["printed"] not in printed[kind]]
            assert not unknown, f"{pack}: {kind} {unknown} not printed in the pack's content"
            assert all(r["confirmed"] is False for r in rows), pack
    shown: dict[str, str] = {}
    for row in printed_names.rows("de"):
        other = shown.setdefault(row["name"], row["printed"])
        assert other == row["printed"], f'"{row["name"]}" is the German name of both {other} and {row["printed"]}'
    # a lasting effect is named by the card that lays it (engine/rules/turn.py effect_name): each one has German
    lasting = {"Hex", "Destroy Magic"} | {cd.name for p in registry.PACKS for cd in content.load(
        "revised4", (p.name,)).cards.values() if any(o.get("op") == "lasting" for o in cd.effect)}
    assert "Blizzard" in lasting and all(printed_names.name(n, "de") != n for n in lasting), lasting
    assert printed_names.name("City Gate", "de") == "Stadttor" and printed_names.name("Cave Rat", "de") == "Höhlenratte"
    # a card our sources know only by its number has a German stand-in of the same pattern
    assert printed_names.name("Boon 1", "de") == "Gunst 1" and printed_names.name("Companion A", "de") == "Gefährte A"
    assert orders._answer("2: stadttor") == "2: city-gate"  # answered with the name shown


def test_every_packs_decks_and_regions_have_german_words():
    """A deck and a region are named by the report's words (pbem/outbound/words.py, the catalogue),
    as the report names them: every pack's, so a German reader's deck line and map have no English."""
    words = {m.id: m.string for m in read_po((ROOT.parent.parent / "pbem/locale/de/LC_MESSAGES/pbem.po").open("rb"))}
    decks = {d for p in registry.PACKS for d in content.load("revised4", (p.name,)).decks}
    named = [d.replace("-", " ").title() for d in sorted(decks)]  # as reports.make_frame names a deck
    named += list(registry.REGIONS.values())
    missing = [n for n in named if not words.get(n)]
    assert not missing, f"no German for {missing} (pbem/outbound/words.py, then `make locale`)"


def test_a_foe_a_roll_makes_her_fight_is_named_in_her_language():
    """The Crags' roll of 1 is a fight with the Spirit of the Crags, a foe the content file names
    (`op = "fight", name = ...`) though it is no card: the names file's `foe` list gives its German."""
    from engine import scenario

    data = {"dice": [1, 1, 1, 1], "moves": ["alice: left", "alice: keep"], "game": {"seed": "s", "players": [
        {"name": "alice", "character": "thief"}, {"name": "bob", "character": "troll"}]},
        "setup": {"alice": {"space": "plains"}, "bob": {"space": "woods"}}}
    _, events = scenario.run(data)
    fight = events[-1]
    assert fight.text == "alice rolls 1 (total 4); Spirit of the Crags rolls 1 (total 5)."
    with i18n.using("de"):
        assert engine_text.event_text(fight) == (
            "alice würfelt 1 (zusammen 4); Geist der Klippen würfelt 1 (zusammen 5).")


def test_a_german_readers_welcome_and_report_name_the_packs_by_their_german_titles(svc):
    """The packs' titles (engine/registry.py TITLES) are printed names too: a `pack` list in each
    pack's names file gives the German stand-in, which her welcome (the edition, the packs) and the
    title over a pack's lines in her report show; bob's stay as printed."""
    cfg = game_config(players=PLAYERS, characters={"anna": "wizard", "bob": "warrior"}, packs=["cataclysm", "city"])
    cfg["players"][0]["language"] = "de"
    newgame.create(svc, cfg)
    anna, bob = mails(svc, "anna@example.de", "welcome")[0], mails(svc, "bob@example.org", "welcome")[0]
    assert "Überarbeitete 4. Edition" in anna["text"] and "Die Katastrophe, Die Stadt" in anna["text"]
    assert "Die Katastrophe, Die Stadt" in anna["html"] and "The Cataclysm" not in anna["html"]
    assert "Revised 4th Edition" in bob["text"] and "The Cataclysm, The City" in bob["text"]
    report = mails(svc, "anna@example.de", "report")[0]
    assert "Die Katastrophe:" in report["text"] and "The Cataclysm" not in report["text"]
    assert "The Cataclysm:" in mails(svc, "bob@example.org", "report")[0]["text"]

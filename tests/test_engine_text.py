"""The engine's texts as messages (engine/text.py) and their translations (pbem/base/engine_text.py):
every message id the engine's code makes is in the catalogue, German has each of them, with the
same placeholders; a message's English is the text the engine keeps."""
from __future__ import annotations

import string
import tomllib
from pathlib import Path

import msgspec
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from engine.text import Msg, msg, word
from pbem.base import engine_text, i18n, printed_names

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "pbem" / "locale"


def extracted() -> set[str]:
    """The ids the engine's code makes and the content files' texts a player reads, as `make locale`
    extracts them (`msg`; pbem/base/content_texts.py; babel-engine.cfg)."""
    code = {m[2] for m in extract_from_dir(str(ROOT / "engine"), method_map=[("**.py", "python")],
                                           keywords={"msg": None})}
    content = {m[2] for m in extract_from_dir(str(ROOT / "engine" / "content"),
                                              method_map=[("**.toml", "pbem.base.content_texts.extract")])}
    assert len(content) > 40, len(content)
    return code | content


def placeholders(pattern: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(pattern) if name is not None}


def test_every_engine_message_is_in_the_catalogue_and_german_has_it_with_its_placeholders():
    ids = extracted()
    assert len(ids) > 200, len(ids)
    template = {m.id for m in read_po((LOCALE / "engine.pot").open("rb")) if m.id}
    assert ids <= template, sorted(ids - template)[:10]  # `make locale` brings engine.pot up to date
    german = {m.id: m.string for m in read_po((LOCALE / "de" / "LC_MESSAGES" / "engine.po").open("rb")) if m.id}
    missing = sorted(i for i in ids if not german.get(i))
    assert not missing, missing[:10]
    # `{s}` is an English plural ending ("turn{s}"): a language that says the plural otherwise leaves it out
    wrong = [(i, german[i]) for i in ids if placeholders(german[i]) - {"s"} != placeholders(i) - {"s"}]
    assert not wrong, wrong[:10]


def test_a_message_reads_in_the_readers_language_with_its_values_as_they_are():
    m = msg("{player} rolls {roll} for movement.", player="anna", roll=5)
    assert m.english() == "anna rolls 5 for movement."
    assert engine_text.said(m.english(), m) == "anna rolls 5 for movement."  # English: the engine's own text
    with i18n.using("de"):
        assert engine_text.said(m.english(), m) == "anna würfelt 5 für die Bewegung."
        # as stored (JSON), a word that is a message itself translated too
        lost = msg("{player} loses {n} {what}.", player="anna", n=1, what=word("craft"))
        assert lost.english() == "anna loses 1 Craft."
        assert engine_text.said(lost.english(), ["{player} loses {n} {what}.", {"player": "anna", "n": 1,
                                                                                  "what": ["Craft", {}]}]) \
            == "anna verliert 1 List."
        # a text with no message, or one the catalogue lacks, is as the engine wrote it
        assert engine_text.said("anna sings.", None) == "anna sings."
        assert engine_text.said("anna sings.", Msg("{player} sings.", {"player": "anna"})) == "anna sings."


def test_the_question_asked_again_after_ditch_keeps_its_messages_in_a_saved_game():
    """`ditch` leaves a card and asks the question again (engine/rules/items.py `reopen`): the
    question and its options keep their messages though the game was saved between (a message
    in a saved state reads back as `[id, args]`), and they stay out of the state's hash."""
    import tomllib

    import msgspec

    from engine import api, scenario

    data = tomllib.loads((ROOT / "tests" / "scenarios" / "ditch-choose.toml").read_text())
    state, _ = scenario.run({**data, "moves": data["moves"][:-1]})  # "leave nothing more?" is open
    state = api.decode(api.encode(state))
    back = state.prompt.data["back"]
    bare = msgspec.structs.replace(state.prompt, data={**state.prompt.data, "back": {
        k: v for k, v in back.items() if k != "words"}})
    assert back["words"] and api.state_hash(state) == api.state_hash(msgspec.structs.replace(state, prompt=bare))
    again, _ = api.apply(state, api.parse_move("alice: done"))
    asked = again.prompt
    assert asked.question == "What do you encounter?" and asked.msg.english() == asked.question
    assert [o.key for o in asked.options if o.msg is None] == [], asked.options
    with i18n.using("de"):
        assert engine_text.said(asked.question, asked.msg) == "Wem oder was begegnen Sie?"
        steal = next(o for o in asked.options if o.key == "steal-bob")
        assert engine_text.said(steal.text, steal.msg) == "versuchen, von bob zu stehlen (4-6 gelingt)"


def _is_msg(node) -> bool:
    import ast

    return isinstance(node, ast.Call) and getattr(node.func, "id", None) == "msg"


def _english_literal(node, defaults: bool = True) -> bool:
    """A value written as English in the code: a text (not "" nor the plural ending "s"), an
    f-string, either side of a conditional, or (`defaults`) the default of a `.get`."""
    import ast

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value not in ("", "s")
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.IfExp):
        return _english_literal(node.body, defaults) or _english_literal(node.orelse, defaults)
    if defaults and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return any(_english_literal(a) for a in node.args[1:])
    return False


def test_no_message_takes_an_english_word_as_a_value():
    """A message's values are numbers, names and messages: an English word written into a value
    ("battle", "yourself", `f" by way of {via}"`) stays English in every language. A word is a
    message itself (`word`, or a message of its own), or each variant is a message; and a
    message written inside another's call is not extracted by pybabel (so never translated)."""
    import ast

    found = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):  # `verb = "steal"`, then verb=verb
            words = {n.targets[0].id for n in ast.walk(fn) if isinstance(n, ast.Assign) and len(n.targets) == 1
                     and isinstance(n.targets[0], ast.Name) and _english_literal(n.value, defaults=False)}
            found += [f"{path.relative_to(ROOT)}:{node.lineno} {k.arg}={k.value.id}" for node in ast.walk(fn)
                      if _is_msg(node) for k in node.keywords if isinstance(k.value, ast.Name) and k.value.id in words]
            # the values handed over as a dict (`msg(..., **scores)`): `"rolls": "each adding a die"` is a
            # piece of the sentence written outside its message
            dicts = {n.targets[0].id: n.value for n in ast.walk(fn) if isinstance(n, ast.Assign)
                     and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Dict)}
            found += [f"{path.relative_to(ROOT)}:{node.lineno} **{k.value.id}: {ast.unparse(key)}={ast.unparse(v)}"
                      for node in ast.walk(fn) if _is_msg(node) for k in node.keywords
                      if k.arg is None and isinstance(k.value, ast.Name) and k.value.id in dicts
                      for key, v in zip(dicts[k.value.id].keys, dicts[k.value.id].values)
                      if _english_literal(v, defaults=False) or isinstance(v, ast.Name) and v.id in words]
        # what an effect's messages name as its source ("{source}: what do you do?"): an f-string there is English
        found += [f"{path.relative_to(ROOT)}:{node.lineno} source={ast.unparse(v)}" for node in ast.walk(tree)
                  if isinstance(node, ast.Dict) for key, v in zip(node.keys, node.values)
                  if isinstance(key, ast.Constant) and key.value == "source" and isinstance(v, ast.JoinedStr)]
        for node in ast.walk(tree):
            if _is_msg(node):
                found += [f"{path.relative_to(ROOT)}:{node.lineno} {k.arg}={ast.unparse(k.value)}"
                          for k in node.keywords if _english_literal(k.value)]
                calls = [k.value for k in node.keywords if isinstance(k.value, ast.Call) and not _is_msg(k.value)]
                found += [f"{path.relative_to(ROOT)}:{inner.lineno} {ast.unparse(inner)} (not extracted)"
                          for call in calls for inner in ast.walk(call) if _is_msg(inner)]
    assert not found, found


def test_every_message_id_is_one_text_pybabel_reads_whole():
    """A message's id is one literal text in the call (pieces side by side are one text to Python
    and to pybabel alike): an id made at run time (an f-string, a `+`, a variable) is never in the
    catalogue, so never translated; and what pybabel extracts from each file is exactly the ids its
    `msg` calls make (a split id it read otherwise would be translated under another id)."""
    import ast

    from babel.messages.extract import extract_from_file

    made, wrong = {}, []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        calls = [n for n in ast.walk(ast.parse(path.read_text())) if _is_msg(n)]
        wrong += [f"{path.relative_to(ROOT)}:{n.lineno} {ast.unparse(n.args[0])[:60]}" for n in calls
                  if not n.args or not (isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str))]
        ids = {n.args[0].value for n in calls if n.args and isinstance(n.args[0], ast.Constant)}
        extracted_here = {m[1] for m in extract_from_file("python", str(path), keywords={"msg": None})}
        if ids != extracted_here:
            made[str(path.relative_to(ROOT))] = sorted(ids ^ extracted_here)
    assert not wrong, wrong
    assert not made, made


def test_a_cards_choice_from_the_content_files_reads_in_the_readers_language():
    """A choice the content files word (the Crags: roll, or let the Guide lead) is a message whose
    id is the file's text (engine/text.py `content_text`), kept in a saved game, and German has it;
    the names it writes in braces ("Roll on the {Crags} table") are values, so she reads the names
    her names file gives (an owner's correction of one included), the English reader the text."""
    from engine import api, content, scenario

    data = {"dice": [1], "moves": ["alice: left"], "game": {"seed": "s", "players": [
        {"name": "alice", "character": "thief"}, {"name": "bob", "character": "troll"}]},
        "setup": {"alice": {"space": "plains", "followers": ["guide"]}, "bob": {"space": "woods"}}}
    state, _ = scenario.run(data)
    asked = api.decode(api.encode(state)).prompt
    assert asked.kind == "choose" and [o.text for o in asked.options] == [
        "Roll on the Crags table", "Your Guide leads you through: no roll"]
    assert asked.options[0].msg == Msg("Roll on the {Crags} table", {"Crags": "Crags"})
    with i18n.using("de"):
        assert [engine_text.said(o.text, o.msg) for o in asked.options] == [
            "Auf der Tabelle für die Klippen würfeln", "Ihr Führer führt Sie hindurch: kein Wurf"]
        previous = content.use_overlay({"revised4/de/names.toml": 'space = [{ printed = "Crags", name = "Felsen" }]\n'})
        try:
            crags = asked.options[0]
            assert engine_text.said(crags.text, crags.msg) == "Auf der Tabelle für die Felsen würfeln"
        finally:
            content.use_overlay(previous)


def test_a_content_texts_braces_hold_printed_names():
    """A name a content file's text writes in braces is one the content prints (a typo would be
    shown as written to every reader, untranslated), and a text with braces that hold no plain name
    is shown as written rather than failing the game."""
    from engine import content, registry
    from engine.text import content_text
    from pbem.base.content_texts import said

    printed = set(printed_names.table("de"))
    for pack in registry.PACKS:
        c = content.load("revised4", (pack.name,))
        printed |= {x.name for x in (*c.cards.values(), *c.board.spaces.values(), *c.characters.values())}
    braced = {text: content_text(text).args for path in sorted((ROOT / "engine" / "content").glob("*/*.toml"))
              for text in said(tomllib.loads(path.read_text("utf-8"))) if "{" in text}
    assert len(braced) > 20, braced
    wrong = {text: sorted(set(names) - printed) for text, names in braced.items() if not names or set(names) - printed}
    assert not wrong, wrong
    assert content_text("Pay {n:3} gold").english() == "Pay {n:3} gold" and not content_text("a } b").args


def test_why_a_life_is_lost_reads_in_the_readers_language():
    """A life's cause travels in the game's state as the English the rules wrote (" to Ogre",
    through the armour's roll); the event says it as a message: a name, or a phrase of its own."""
    import tomllib

    from engine import scenario

    for name, english, german in (
            ("armour-fate-keep", "alice loses 1 life to Ogre.", "alice verliert 1 Leben durch {ogre}."),
            ("cataclysm-frozen-spire", " to the cold.", " durch die Kälte.")):
        data = tomllib.loads((ROOT / "tests" / "scenarios" / f"{name}.toml").read_text())
        _, events = scenario.run(data)
        lost = next(e for e in events if e.text.endswith(english))
        with i18n.using("de"):
            assert engine_text.said(lost.text, lost.msg).endswith(german.format(ogre=engine_text.name("Ogre")))


def test_a_city_bounty_names_its_enemies_in_the_readers_language():
    """The City's creature posters: the option names the Enemy kind as a word of its own."""
    import tomllib

    from engine import scenario

    data = tomllib.loads((ROOT / "tests" / "scenarios" / "city-poster-claim.toml").read_text())
    state, _ = scenario.run({**data, "moves": []})
    claim = next(o for o in state.prompt.options if o.key == "claim-animal")
    assert claim.text.startswith("claim the bounty on Animals: 5 gold")
    with i18n.using("de"):
        assert engine_text.said(claim.text, claim.msg).startswith("das Kopfgeld für Tiere einfordern: 5 Gold")


def _scenario(name: str, moves: int | None = None):
    import tomllib

    from engine import scenario

    data = tomllib.loads((ROOT / "tests" / "scenarios" / f"{name}.toml").read_text())
    return scenario.run({**data, "moves": data["moves"][:moves]})


def test_a_companions_level_and_cost_read_in_the_readers_language():
    """Issue 29: a Nemesis companion's next level, its cost and ability are its content file's texts,
    translated (they were names, so English, in a German question)."""
    state, _ = _scenario("nemesis-companion-level-up", 1)
    raise_ = next(o for o in state.prompt.options if o.key == "companion-2")
    assert raise_.text == "raise your companion to level 2 (pay 2 gold): heal all your lives"
    with i18n.using("de"):
        assert engine_text.said(raise_.text, raise_.msg) == \
            "Ihren Gefährten auf Stufe 2 heben (2 Gold zahlen): alle Ihre Leben heilen"


def test_a_warlock_quest_reads_in_the_readers_language_in_its_event_and_on_the_sheet():
    """The quest taken (the table's, and a Quest card's) is said in the event and on the reader's
    sheet in their words (the sheet showed the roll's number, "Quest: 1.")."""
    from engine import api
    from pbem.outbound import reports

    state, events = _scenario("warlock-quest")
    taken = next(e for e in events if "takes a Warlock quest" in e.text)
    own = api.view(state, "alice")["players"]["alice"]
    assert taken.text == "alice rolls 5 and takes a Warlock quest: Give 3G to the Warlock."  # one full stop
    assert reports.sheet(own)["notes"] == ["Quest: Give 3G to the Warlock."]
    with i18n.using("de"):
        assert engine_text.said(taken.text, taken.msg).endswith(
            "Hexenmeister-Aufgabe: Geben Sie dem Hexenmeister 3 Gold.")
        assert reports.sheet(own)["notes"] == ["Aufgabe: Geben Sie dem Hexenmeister 3 Gold."]
    _, events = _scenario("cataclysm-quest-deck-impossible")
    drawn = next(e for e in events if "draws a Warlock Quest" in e.text)
    with i18n.using("de"):
        assert engine_text.said(drawn.text, drawn.msg).endswith(
            "Platzhalter-Aufgabenkarte (Text nicht bekannt): 2 Gold abgeben.")


def test_a_wish_reads_in_the_readers_language():
    state, _ = _scenario("enchanter-wish", 1)
    asked = api_decoded(state).prompt
    assert asked.question == "Enchanter grants you a wish." and asked.options[1].text == "gain 1 gold"
    with i18n.using("de"):
        enchanter = engine_text.name("Enchanter")
        assert engine_text.said(asked.question, asked.msg) == f"{enchanter} gewährt Ihnen einen Wunsch."
        assert engine_text.said(asked.options[1].text, asked.options[1].msg) == "1 Gold erhalten"


def api_decoded(state):
    from engine import api

    return api.decode(api.encode(state))


def test_an_enemy_outside_the_four_kinds_and_a_group_of_enemies_read_in_the_readers_language():
    """Issue 29: an Alien (the Timescape's) is a foe of its own words; Enemies met together are
    named each by the reader's name, joined in their language ("Wolf und Goblin"); the City's
    posters name the Aliens' bounty as a word of its own."""
    from engine import words
    from engine.content import load
    from engine.packs import city_posters

    content = load("revised4", ("timescape",))
    alien = words.foe(content, {"name": "an Alien", "strength": 9})  # Death World's (engine/packs/timescape.py)
    faced = msg("{a} ({kind}, {value}) faces you.", a=alien, kind=word("battle"), value=9)
    assert faced.english() == "an Alien (battle, 9) faces you."
    with i18n.using("de"):
        assert engine_text.said(faced.english(), msgspec.to_builtins(faced)) == \
            "ein Alien (Kampf 9) stellt sich Ihnen entgegen."
    _, events = _scenario("enemies-combine")
    beaten = next(e for e in events if e.text == "alice beats Wolf and Goblin.")
    with i18n.using("de"):
        wolf, goblin = engine_text.name("Wolf"), engine_text.name("Goblin")
        assert engine_text.said(beaten.text, beaten.msg) == f"alice besiegt {wolf} und {goblin}."
    assert city_posters.KINDS["alien"].english() == "Aliens" and words.FOES["the Warp Demon"].id == "the Warp Demon"


def test_a_name_the_engines_own_sentence_names_reads_as_the_readers_cards_print_it():
    """Issue 29: a name inside an engine sentence ("opens the Portal of Power") is a value passed as
    a name (engine/text.py `printed`), so a German reader reads the German name the content gives
    (the catalogue's German sentence held the English name); the English is as it was."""
    _, events = _scenario("lost-realms-gauntlet-portal")
    opened = next(e for e in events if "opens the" in e.text)
    assert opened.text == "alice rolls 1+1 against Strength 6 and opens the Portal of Power."
    assert opened.msg.args["portal_of_power"] == "Portal of Power"
    with i18n.using("de"):
        portal = engine_text.name("Portal of Power")
        assert portal != "Portal of Power"  # the base game's names file gives it (a stand-in, unconfirmed)
        assert engine_text.said(opened.text, opened.msg) == f"alice würfelt 1+1 gegen Stärke 6 und öffnet das {portal}."


def test_the_pieces_of_a_sentence_read_in_the_readers_language():
    """A sentence's pieces filled in apart from its message are messages too: what a character pays
    gold for (was the English word as the content writes it: "zahlt 1 Gold für 1 life"), the dice an
    attack adds ("each adding a die"), a Nemesis companion's level as the source of its effects
    ("Companion A, level 2"), and whom the Timescape asks for a Warp Gate (the Enchantress by her
    German name, not "the Enchantress bitten")."""
    from engine import scenario
    from engine.packs.timescape import tables

    data = tomllib.loads((ROOT / "tests" / "scenarios" / "cataclysm-denizen-choose.toml").read_text())
    _, events = scenario.run({k: v for k, v in data.items() if k not in ("expect", "rule")})
    paid = next(e for e in events if e.kind == "life")
    assert paid.text == "alice pays 1 gold for 1 life."
    gates = {g["name"]: g["who"] for g in tables()["gates"]}
    assert gates == {"mystic": "Mystic", "enchantress": "Enchantress", "warlock": "Warlock"}  # names as printed
    gate = msg("ask the {who} to open a {warp_gate} to the Timescape (roll 2 dice against your starting "
               "Strength + Craft)", who=gates["enchantress"], warp_gate="Warp Gate")
    assert gate.english().startswith("ask the Enchantress to open a Warp Gate")
    attack = msg("{player} attacks {target} in battle: {attr} {score} against {target_score}, {rolls}.",
                 player="anna", target="bob", attr=word("strength"), score=5, target_score=2,
                 rolls=msg("each adding a die"))
    level = msg("{card}, level {n}", card="Companion A", n=2)
    with i18n.using("de"):
        assert engine_text.event_text(paid) == "alice zahlt 1 Gold für 1 Leben."
        assert engine_text.translated(gate).startswith("Verzauberin um ein Warptor zur Timescape bitten")
        assert engine_text.translated(attack) == (
            "anna greift bob im Kampf an: Stärke 5 gegen 2, jeder mit einem Würfel dazu.")
        assert engine_text.translated(level) == "Gefährte A, Stufe 2"


def _played(name: str, moves: int | None = None):
    from engine import scenario

    data = tomllib.loads((ROOT / "tests" / "scenarios" / name).read_text())
    data = {k: v for k, v in data.items() if k not in ("expect", "expect_events", "rule")}
    return scenario.run({**data, "moves": data["moves"][:moves]} if moves is not None else data)


def test_the_names_a_sentence_writes_in_its_own_words_read_in_the_readers_names():
    """A name the engine's sentence wrote into its id is a value (the Hex, the Potion of Strength),
    a realm and the Lord of Darkness are messages, Enemies met together are joined by a message
    where a life lost to them is told, and a question's option that is only a name (a space to
    move to: the engine gives it no message) is in her names -- each was English in a German mail."""
    from engine import content, words
    from engine.packs.deep_realms import REALM_NAMES
    from engine.text import msg as message

    state, _ = _played("hex-prompt-space-options.toml", 1)
    hexed = state.prompt
    _, events = _played("potion-of-strength.toml")
    drunk = next(e for e in events if e.kind == "potion")
    assert drunk.text == "alice drinks the Potion of Strength."
    assert hexed.question.startswith("Where do you lay the Hex?")
    base = content.load("revised4", ())
    assert words.foe_named(base, "Horse and Cart") == "Horse and Cart"  # a card's own name, not two
    group = message(" to {foe}", foe=words.foe_named(base, "Ape and Bandit"))
    assert group.english() == " to Ape and Bandit"
    lord = message(" to {foe}", foe=words.foe_named(base, "the Lord of Darkness"))
    drinks = message("{value} drinks ({n} to go): a life or a Follower?", value=words.FOES_START["the Vampire"], n=2)
    assert drinks.english() == "The Vampire drinks (2 to go): a life or a Follower?"
    vampire = message(" to {foe}", foe=words.foe_named(base, "the Vampire"))
    with i18n.using("de"):
        assert engine_text.event_text(drunk) == "alice trinkt den Stärketrank."
        assert engine_text.said(hexed.question, hexed.msg).startswith("Wohin legen Sie den Fluch?")
        assert engine_text.translated(group) == " durch Affe und Räuber"
        assert engine_text.translated(lord) == " durch Fürst der Finsternis"
        assert engine_text.translated(vampire) == " durch Vampir"
        pirate = message("{player} loses the ship-combat against {a} ({mine} to {theirs}).", player="anna",
                         a=words.foe(base, {"name": "the Pirate"}), mine=6, theirs=8)
        assert engine_text.translated(pirate) == "anna verliert den Schiffskampf gegen Pirat (6 zu 8)."
        assert engine_text.translated(drinks) == "Der Vampir trinkt (noch 2): ein Leben oder ein Begleiter?"
        assert engine_text.translated(REALM_NAMES["rat-lair"]) == "Hort der Rattenkönigin"
        assert engine_text.option_text("Portal of Power", None) == "Portal der Macht"
        assert engine_text.option_text("alice", None) == "alice"


def test_a_fights_english_name_reads_in_the_readers_words():
    """What a preview says a fight is against is the fight's English name (engine/preview.py): a
    foe of the engine's own words and Enemies met together read in her words too (pbem/outbound/
    leads.py "a fight with ..." said 'the Lord of Darkness', 'Wild Boar and Goblin')."""
    with i18n.using("de"):
        assert engine_text.name("the Lord of Darkness") == "Fürst der Finsternis"
        assert engine_text.name("Wild Boar and Goblin") == "Wildschwein und Goblin"
        assert engine_text.name("Graveyard") == "Friedhof" and engine_text.name("anna") == "anna"
        assert engine_text.name("salt and pepper") == "salt and pepper"  # no name in it: as it is
    assert engine_text.name("the Lord of Darkness") == "the Lord of Darkness"


def test_a_sea_voyage_table_is_named_in_the_readers_words_a_saved_game_too():
    """The Sea Voyage's tables are messages as the roll names them ('würfelt 6 für Schiffstabelle
    A', was 'Ship Table A'); a source kept as `[id, args]` by a saved game is a message again
    (ops.with_source), so the English stays the English."""
    from engine.ops import with_source

    state, events = _played("sea-voyage-cathay.toml", 2)
    rolled = next(e for e in events if e.kind == "roll" and "Ship Table A" in e.text)
    assert rolled.text == "alice rolls 6 for Ship Table A: 6."
    kept = with_source({"source": ["Ship Table A", {}], "card": "x"})
    assert kept == {"source": Msg("Ship Table A"), "card": "x"} and f"{kept['source']}" == "Ship Table A"
    with i18n.using("de"):
        assert engine_text.event_text(rolled) == "alice würfelt 6 für Schiffstabelle A: 6."

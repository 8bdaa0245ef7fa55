"""Languages (issue 29): each reader's mail in their language, said in Content-Language; the
language chosen in [[players]] or by a mail line for every game of the address; German
replies read as English ones; and every template rendered in every language with no text left
untranslated (a pseudo-language marks each translated text: what is left unmarked is a text
the catalogue does not hold)."""
from __future__ import annotations

import re

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from conftest import game_config, legal, mail, token
from test_web import hidden, seat_url, web  # noqa: F401 -- the fixture

from pbem.base import engine_text, i18n, option_keys
from pbem.core import games, people
from pbem.inbound import mailtext, orders
from pbem.inbound.process import handle
from pbem.moderate import newgame
from pbem.outbound import outbox, render

PLAYERS = [("anna", "anna@example.de"), ("bob", "bob@example.org")]


def mixed(svc, **game):
    cfg = game_config(players=PLAYERS, **game)
    cfg["players"][0]["language"] = "de"
    return newgame.create(svc, cfg)


def mails(svc, to: str, kind: str | None = None) -> list[dict]:
    return [outbox.mail(svc, r["id"]) for r in svc.store.outbox_rows()
            if r["to_addr"] == to and (kind is None or r["kind"] == kind)]


def test_each_reader_in_their_language(svc):
    mixed(svc)
    anna, bob = mails(svc, "anna@example.de", "welcome")[0], mails(svc, "bob@example.org", "welcome")[0]
    a, b = outbox.build(svc, anna), outbox.build(svc, bob)
    assert a["Content-Language"] == "de" and b["Content-Language"] == "en"
    assert "Willkommen im Talisman-Spiel autumn, anna!" in anna["text"]
    assert "Welcome to the Talisman game autumn, bob!" in bob["text"]
    assert a["Subject"] == "[autumn] Willkommen, anna" and '<html lang="de">' in anna["html"]
    report = mails(svc, "anna@example.de", "report")[0]
    assert "Wo alle stehen, Runde" in report["text"] and "Stärke" in report["text"]


def test_language_line_holds_for_every_game_of_the_address(svc):
    mixed(svc)
    g2 = game_config(name="winter", players=[("bob", "bob@example.org"), ("carl", "carl@example.org")])
    newgame.create(svc, g2)
    handle(svc, mail(["sprache: Deutsch"], sender="bob@example.org", tok=token(svc, "autumn", "bob")))
    assert people.language(svc, games.get(svc, "winter"), "bob", "bob@example.org") == "de"
    note = mails(svc, "bob@example.org", "receipt")[-1]
    assert "Sprache: Ihre Mails sind jetzt auf Deutsch, in jedem Spiel" in note["text"]
    assert outbox.build(svc, note)["Content-Language"] == "de"


def test_bad_language_is_refused_with_the_known_ones(svc):
    cfg = game_config(players=PLAYERS)
    cfg["players"][0]["language"] = "klingon"
    with pytest.raises(games.GameError, match="en, de"):
        newgame.create(svc, cfg)


def test_german_answers_and_commands_read(svc):
    mixed(svc)
    player, line = legal(svc, "autumn")
    number, key = line.split(": ")
    german = {v: k for k, v in option_keys.aliases().items()}.get(key, key)
    order = orders.parse_mail(mail([f"{number}: {german}", "", "Viele Grüße", "Anna", "",
                                    "Gesendet von meinem iPhone", "",
                                    "Am 03.12.2026 um 10:00 schrieb Talisman <talisman@example.org>:",
                                    "> Ihre Frage"], sender="anna@example.de"))
    assert order.lines == [line] and not order.ignored and not order.attempts
    calls = orders.parse_mail(mail(["urlaub: 3d", "aufgeben", "an: alle", "Hallo zusammen"])).calls
    assert [c.command for c in calls] == ["vacation", "resign", "to"]


@pytest.mark.parametrize("text", [
    "links\n\nVon: Talisman <talisman@example.org>\nGesendet: Donnerstag, 3. Dezember 2026 10:00\n"
    "An: anna@example.de\nBetreff: [autumn] Runde 4\n\nSie sind am Zug\nrechts\n",
    "links\n\n-----Ursprüngliche Nachricht-----\nrechts\n",
    "links\nMit freundlichen Grüßen\nAnna Schmidt\n",
    "links\n\nVon meinem iPhone gesendet\n",
])
def test_german_quotes_and_sign_offs_are_not_answers(text):
    assert mailtext.own_lines(text) == ["links"]


# -- every template, every language ----------------------------------------------------------------

def test_catalogues_are_complete_and_compiled():
    """Every text of the templates and the code (pbem/locale/pbem.pot, `make locale`) has its
    translation in each language, none fuzzy, the same placeholders, and the .mo is the .po."""
    template = read_po(open(i18n.LOCALE_DIR / "pbem.pot", "rb"))
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in template if m.id}
    assert len(ids) > 250
    for lang in i18n.languages()[1:]:
        po = read_po(open(i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "pbem.po", "rb"))
        have = {m.id if isinstance(m.id, str) else m.id[0]: m for m in po if m.id}
        assert ids <= set(have), f"{lang}: not in the catalogue: {sorted(ids - set(have))[:5]} (make locale)"
        for mid in ids:
            m = have[mid]
            strings = [m.string] if isinstance(m.string, str) else list(m.string)
            assert all(strings) and not m.fuzzy, f"{lang}: {mid!r} is not translated"
            want = set(re.findall(r"%\(\w+\)", mid))
            assert all(set(re.findall(r"%\(\w+\)", s)) == want for s in strings), f"{lang}: placeholders of {mid!r}"
        compiled = read_mo(open(i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "pbem.mo", "rb"))
        one = lambda v: v if isinstance(v, str) else tuple(v)[0]  # a plural by its singular
        pairs = lambda cat: {one(m.id): one(m.string) for m in cat if m.id and m.string}
        assert pairs(compiled) == pairs(po), \
            f"{lang}: pbem.mo is older than pbem.po (make locale)"


NUMBERS = {"uses", "count", "more"}  # fields that are counts (a plural's number)


class Anything(str):
    """A value a template may use in any way (a key, an attribute, a list, a call), shown as
    ⟪⟫: every template renders with it, whatever its context holds."""

    def __new__(cls):
        return super().__new__(cls, "⟪⟫")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return 2 if name in NUMBERS else Anything()

    def __gt__(self, other):
        return True

    __lt__ = __ge__ = __le__ = __gt__

    def __getitem__(self, key):
        return Anything()

    def __call__(self, *args, **kwargs):
        return Anything()

    def __iter__(self):
        yield Anything()

    def keys(self):
        return []

    # str's own methods a template names as fields (`group.title`, `d.count`): values here
    title = count = index = property(lambda self: Anything())


class Pseudo(i18n.NullTranslations):
    """A language in which every text the catalogue holds is marked ⟦...⟧."""

    def gettext(self, message):
        return f"⟦{message}⟧"

    def ngettext(self, singular, plural, n):
        return f"⟦{singular if n == 1 else plural}⟧"

    ugettext, ungettext = gettext, ngettext  # what Jinja's i18n extension calls, where they are


def _names() -> list[str]:
    return sorted(str(p.relative_to(render.PACKAGED)) for p in render.PACKAGED.rglob("*.j2"))  # the web's too


# Language-free words a template may write as they are: option keys and commands in examples,
# the name of the game.
FREE = {"left", "Q", "token", "pbem", "inbox", "outbox", "list", "game", "show", "Talisman", "status"}


@pytest.mark.parametrize("name", _names())
def test_every_template_in_every_language_has_no_untranslated_text(name, monkeypatch):
    real = i18n.translations
    monkeypatch.setattr(i18n, "translations", lambda lang: Pseudo() if lang == "xx" else real(lang))
    templates = render.Templates()
    ctx = {"count": 2} | {k: Anything() for k in (
        "game", "me", "turn", "observer", "events", "over", "winners", "asked", "about",
                                   "leads", "reply_lines", "waiting", "waiting_question", "service_notes", "deadline",
                                   "standing_orders", "pace_notes", "sheet", "around", "around_text", "cards",
                                   "board", "links", "applied", "failed", "unused", "check", "attempts", "press_notes",
                                   "seed", "commitment", "ended_by_moderator", "reminder", "defaulted", "recent",
                                   "predecessors", "since", "sections", "games", "subject", "lines",
                                   "address", "sender", "copy_of", "public", "text", "why", "moderator_told",
                                   "character", "others", "token", "stand_ins", "commands", "turn", "decks", "lying",
                                   "packs", "rows", "map_text", "map_html", "p", "colour", "c", "colours", "own",
                                   "hidden", "lang", "who", "frame", "board_svg", "table_html", "log", "show_hands",
                                   "options",
                                   "notice", "typed", "seat_url", "calendar_url", "languages", "csrf", "form_id",
                                   "max_upload_kb", "replay", "status", "detail", "timezone", "round", "daily",
                                   "mail_choices", "mail")}
    for lang in i18n.languages():  # renders in every real language
        with i18n.using(lang):
            templates.env.get_template(name).render(ctx)
    with i18n.using("xx"):
        out = templates.env.get_template(name).render(ctx)
    while re.search(r"⟦[^⟦⟧]*⟧", out):
        out = re.sub(r"⟦[^⟦⟧]*⟧", "", out)
    out = re.sub(r"<[^>]*>|&\w+;|⟪⟫", " ", out)  # markup, entities, the context's values
    left = [w for w in re.findall(r"[A-Za-z][A-Za-z'-]*", out) if w not in FREE]
    assert not left, f"{name}: text outside the catalogue: {' '.join(left[:12])}"


def test_help_by_mail_brings_a_short_guide_in_the_readers_language(svc):
    mixed(svc)
    handle(svc, mail(["hilfe"], sender="anna@example.de", tok=token(svc, "autumn", "anna")))
    guide = mails(svc, "anna@example.de", "help")[-1]
    assert "So spielen Sie per Mail" in outbox.build(svc, guide)["Subject"]
    assert "aufgeben" in guide["text"] and "Nichts im Textteil ist ein Bild." in guide["text"]
    handle(svc, mail(["help"], sender="bob@example.org", tok=token(svc, "autumn", "bob")))
    assert "Nothing in the text part is a picture." in mails(svc, "bob@example.org", "help")[-1]["text"]


def test_resigning_by_mail_is_asked_and_confirmed_in_the_readers_language(svc):
    mixed(svc)
    tok = token(svc, "autumn", "anna")
    handle(svc, mail(["aufgeben"], sender="anna@example.de", tok=tok))
    [ask] = mails(svc, "anna@example.de", "notice")
    assert "Bestätigen Sie, dass Sie aufgeben" in outbox.build(svc, ask)["Subject"]
    assert "Um das Spiel autumn endgültig zu verlassen, antworten Sie mit dieser Zeile:" in ask["text"]
    code = re.search(r"aufgeben ([0-9a-f]{8})", ask["text"]).group(1)  # the line in her words
    handle(svc, mail([f"aufgeben {code}"], sender="anna@example.de", tok=tok))
    done = mails(svc, "anna@example.de", "notice")[-1]
    assert "Sie haben das Spiel autumn verlassen." in done["text"] and "Danke fürs Mitspielen." in done["text"]
    handle(svc, mail(["resign"], sender="bob@example.org", tok=token(svc, "autumn", "bob")))
    assert "To leave the game autumn for good" in mails(svc, "bob@example.org", "notice")[-1]["text"]


def test_the_web_pages_in_the_readers_language(web):  # noqa: F811
    """A seat's page is in its reader's language (the one their mails are in), and says so in
    <html lang>; the page changes it for every game of the address (`language:` as in a mail);
    a public page is in the language the browser asks for (Accept-Language)."""
    svc, client = web
    g = mixed(svc)
    anna, bob = client.get(seat_url(svc, g, "anna")).text, client.get(seat_url(svc, g, "bob")).text
    assert '<html lang="de">' in anna and "Diese Seite gehört nur Ihnen" in anna and "Figuren" in anna
    assert "Stärke" in anna and "This page is yours alone" not in anna
    assert '<html lang="en">' in bob and "This page is yours alone" in bob and "Diese Seite" not in bob
    assert '<option value="language: de" selected>Deutsch</option>' in anna
    # bob chooses German on his page: his page and his mails from now on
    url = seat_url(svc, g, "bob")
    done = client.post(url, data={"action": "lines", "lines": "language: de", "csrf": hidden(bob, "csrf"),
                                  "prompt": hidden(bob, "prompt"), "form": hidden(bob, "form")})
    assert done.status_code == 200 and '<html lang="de">' in done.text, done.text[:300]
    assert "Ihre Antworten wurden angewendet." in done.text
    assert people.language(svc, games.get(svc, g), "bob", "bob@example.org") == "de"
    assert outbox.build(svc, mails(svc, "bob@example.org", "receipt")[-1])["Content-Language"] == "de"
    public = client.get(f"/g/{g}", headers={"accept-language": "de-DE,de;q=0.9,en;q=0.8"}).text
    assert '<html lang="de">' in public and "Was geschah" in public
    english = client.get(f"/g/{g}", headers={"accept-language": "fr-FR,fr;q=0.9,en;q=0.5"}).text
    assert '<html lang="en">' in english and "What happened" in english
    assert "Dieses Spiel gibt es nicht." in client.get("/g/nosuch", headers={"accept-language": "de"}).text
    wrong = client.get(url.replace(url[-6:], "000000"), headers={"accept-language": "de"})
    assert wrong.status_code == 404 and "Dieser Link öffnet keinen Platz" in wrong.text
    odd = client.get(f"/g/{g}?upto=x", headers={"accept-language": "de"})
    assert odd.status_code == 400 and "?upto= erwartet eine Zugnummer." in odd.text


def test_a_browser_language_is_read_by_preference():
    assert i18n.preferred("fr;q=0.9, de;q=0.8, en;q=0.1") == "de"
    assert i18n.preferred("en-GB, de;q=0.5") == "en"
    assert i18n.preferred("*, x;q=nonsense") == "en" and i18n.preferred(None) == "en"


def test_the_languages_are_looked_for_once_a_process(monkeypatch):
    """Every answer's keys ask which languages there are (printed_names.answer_key): the locale
    folder is searched once, as its catalogues are loaded once (issue 28)."""
    searched = []
    glob = type(i18n.LOCALE_DIR).glob
    monkeypatch.setattr(type(i18n.LOCALE_DIR), "glob",
                        lambda self, pattern: searched.append(pattern) or glob(self, pattern))
    i18n.languages.cache_clear()
    assert i18n.languages() == i18n.languages() == ("en", "de")
    assert len(searched) == 1


GERMAN_WORDS = {english: german for german, english in option_keys.aliases().items() if german.isascii()}


def test_a_german_and_an_english_player_play_one_game_by_mail_to_its_end(svc):
    """anna reads German and writes German (the option words and a sign-off), bob English, in
    one game played by mail from the welcome to the game-over mail: every mail each gets is in
    their own language, and every answer of either is applied."""
    import random

    from pbem import bot

    g = mixed(svc, options={"turn_cap": 4})
    toks, rnd, answered = {n: token(svc, g, n) for n, _ in PLAYERS}, random.Random(29), {"anna": 0, "bob": 0}
    german = 0
    for _ in range(2000):
        state = games.state(svc, games.get(svc, g))
        if state.over:
            break
        move = bot.choose(state, rnd)
        if move.player == "anna":  # in her words, as a German player writes them
            lines = [f"{move.prompt}: {GERMAN_WORDS.get(move.key, move.key)}", "", "Viele Grüße", "Anna"]
            german += move.key in GERMAN_WORDS
        else:
            lines = [f"{move.prompt}: {move.key}", "", "Cheers,", "Bob"]
        result = handle(svc, mail(lines, sender=dict(PLAYERS)[move.player], tok=toks[move.player]))
        assert result.status == "applied", (move.player, lines, result.outcome)
        answered[move.player] += 1
    assert games.state(svc, games.get(svc, g)).over and min(answered.values()) > 5 and german > 3, (answered, german)
    for name, address, lang, over, other in (
            ("anna", "anna@example.de", "de", "Das Spiel ist aus.", "The game is over"),
            ("bob", "bob@example.org", "en", "The game is over.", "Das Spiel ist aus")):
        got = mails(svc, address)
        assert {m["kind"] for m in got} >= {"welcome", "report", "receipt", "gameover"}, {m["kind"] for m in got}
        for m in got:
            assert outbox.build(svc, m)["Content-Language"] == lang, (name, m["kind"])
        final = [m for m in got if m["kind"] == "gameover"]
        assert len(final) == 1 and over in final[0]["text"] and other not in final[0]["text"]
    receipts = [m["text"] for m in mails(svc, "anna@example.de", "receipt")]
    assert all("Angewendet" in t or "angewendet" in t for t in receipts), receipts[0][:400]
    engine_texts_in_each_language(svc, g)


def engine_texts_in_each_language(svc, g):
    """The engine's own texts (events, questions, options: engine/text.py) in anna's mails are
    German and in bob's English: each event of the game with a message is in anna's mails as its
    German and not as its English, and in bob's as its English."""
    from pbem.base import engine_text
    from pbem.outbound import turnmail

    flat = lambda text: " ".join(text.split())  # a mail's text part wraps long lines
    anna = flat(" ".join(m["text"] for m in mails(svc, "anna@example.de")))
    bob = flat(" ".join(m["text"] for m in mails(svc, "bob@example.org")))
    events = [e for row in svc.store.move_events(g, 0, games.get(svc, g)["moves"])
              for e in turnmail.decode(svc.engine, row["events"])]
    worded = [e for e in events if e.msg is not None and e.kind not in turnmail.HEADINGS]
    assert len(worded) > 20, len(worded)
    shown = 0
    for e in worded:
        with i18n.using("de"):
            german = flat(engine_text.event_text(e)).rstrip(".")  # a drawn card is explained after it
        english = flat(e.text).rstrip(".")
        if german == english or (e.to is not None and "anna" not in e.to):
            continue
        shown += 1
        assert german in anna and english not in anna, (english, german)
        assert english in bob or (e.to is not None and "bob" not in e.to), english
    assert shown > 20, shown
    for asked in ("In welche Richtung ziehen Sie?", "im Uhrzeigersinn ziehen"):
        assert asked in anna, asked
    assert "Which way do you move?" not in anna and "Which way do you move?" in bob


def test_a_refused_answer_says_why_in_the_readers_language(web):  # noqa: F811
    """Why the engine refuses an answer (engine/errors.py IllegalMove, a message) is in the
    sender's language: in the mail that answers hers and on her page after the form; the logs
    and an English reader keep the engine's English."""
    from pbem.base import engine_text

    svc, client = web
    g = mixed(svc)
    asked = svc.engine.prompts(games.state(svc, games.get(svc, g)))[0]
    assert asked.players == ["anna"], asked.players
    result = handle(svc, mail([f"{asked.id}: xyzzy"], sender="anna@example.de", tok=token(svc, g, "anna")))
    assert result.status == "rejected" and f"'xyzzy' is not an answer to prompt {asked.id}" in result.outcome
    with i18n.using("de"):
        question = engine_text.said(asked.question, asked.msg)
    assert question != asked.question
    said = " ".join(mails(svc, "anna@example.de", "error")[-1]["text"].split())
    assert f"'xyzzy' ist keine Antwort auf Frage {asked.id} ({question})" in said, said
    assert "is not an answer" not in said and asked.question not in said
    handle(svc, mail([f"{asked.id}: left"], sender="bob@example.org", tok=token(svc, g, "bob")))
    assert "bob is not asked anything now (waiting for anna)" in mails(svc, "bob@example.org", "error")[-1]["text"]
    url = seat_url(svc, g, "anna")
    page = client.get(url).text
    done = client.post(url, data={"action": "lines", "lines": "xyzzy", "csrf": hidden(page, "csrf"),
                                  "prompt": hidden(page, "prompt"), "form": hidden(page, "form")})
    assert done.status_code == 422 and f"&#39;xyzzy&#39; ist keine Antwort auf Frage {asked.id}" in done.text, \
        done.text[:2000]


def test_a_readers_answer_lines_are_in_her_words_and_play_the_same_move_by_mail(svc):
    """anna (German) is shown her language's words and the names she reads in her answer lines
    ("2: links", "1: heilung-wirken"), bob (English) the engine's keys; each line anna copies from
    her newest mail and sends back by mail is the same move the engine's key is."""
    import random

    from pbem import bot

    g = mixed(svc, options={"turn_cap": 3})
    toks, rnd, german, seen = {n: token(svc, g, n) for n, _ in PLAYERS}, random.Random(29), 0, set()
    for _ in range(400):
        state = games.state(svc, games.get(svc, g))
        if state.over:
            break
        move = bot.choose(state, rnd)
        keys = [o["key"] for o in svc.engine.view(state, move.player)["mine"]["options"]]
        lines = next(found for m in reversed(mails(svc, dict(PLAYERS)[move.player]))
                     if (found := re.findall(rf"^  ({move.prompt}: \S+)$", m["text"], re.M)))
        assert len(lines) == len(keys), (lines, keys)
        line = lines[keys.index(move.key)]
        if move.player == "bob":
            assert lines == [f"{move.prompt}: {k}" for k in keys]  # English: the engine's keys
        elif line != f"{move.prompt}: {move.key}":
            german += 1
            seen.add(line.split(": ")[1])
        result = handle(svc, mail([line, "", "Viele Grüße"], sender=dict(PLAYERS)[move.player], tok=toks[move.player]))
        assert result.status == "applied", (line, result.outcome)
        assert svc.store.moves(g)[-1]["line"] == str(move), (line, str(move))  # the move the engine's key is
    assert german > 5 and {"links", "rechts", "heilung-wirken", "neu-würfeln"} <= seen, (german, seen)


def test_a_message_reaches_each_reader_in_their_own_language(svc):
    """anna (German) writes to bob (English) with a copy for the moderator: bob reads the service's
    words around her text in English, the moderator too; her receipt is German."""
    g = mixed(svc, press="copied", moderator="mod@example.org")
    handle(svc, mail(["an: bob", "Lassen wir den Drachen in Ruhe?"], sender="anna@example.de",
                     tok=token(svc, g, "anna")))
    [to_bob] = mails(svc, "bob@example.org", "press")
    [copy] = mails(svc, "mod@example.org", "press")
    for m, says in ((to_bob, "anna writes to you in the game"), (copy, "A copy for the moderator: anna wrote to bob")):
        assert outbox.build(svc, m)["Content-Language"] == "en" and says in m["text"], m["text"]
        assert "Lassen wir den Drachen in Ruhe?" in m["text"]
    receipt = mails(svc, "anna@example.de", "receipt")[-1]
    assert outbox.build(svc, receipt)["Content-Language"] == "de"
    assert "An bob gesendet (die Spielleitung erhält eine Kopie)." in receipt["text"]
    assert to_bob["subject"] == "[autumn] Message from anna" and copy["subject"] == to_bob["subject"]


def test_a_default_played_for_a_german_reader_is_told_in_her_words(make_service):
    """anna (German) misses her deadline: the mail that tells her names the question and the
    answer played for her as her reports do (German question, her word for the key)."""
    from conftest import StillClock

    from pbem.pace import deadlines

    clk = StillClock()
    svc = make_service(clock=clk)
    g = mixed(svc, pace={"deadline": "48h"}, characters={"anna": "warrior", "bob": "priest"})
    state = games.state(svc, games.get(svc, g))
    [prompt] = [p for p in svc.engine.prompts(state) if "anna" in p.players]
    clk.at(hours=49)
    assert deadlines.tick(svc)["defaults"] == 1
    [told] = mails(svc, "anna@example.de", "default")
    key = svc.store.moves(g)[-1]["line"].rsplit(" ", 1)[1]
    with i18n.using("de"):
        asked = engine_text.said(prompt.question, prompt.msg)
        word = option_keys.shown(key, "de")
    assert word != key and asked != prompt.question  # a key and a question a German reader reads otherwise
    assert " ".join(asked.split()) in " ".join(told["text"].split()), told["text"]
    assert f"\n  {word}\n" in told["text"] and prompt.question not in told["text"], told["text"]


def test_settings_lines_are_answered_in_german_and_a_standing_order_reads_her_words(svc):
    """anna's settings lines are answered in her language; her standing order names the answer as
    her answer lines show it ("fertig"), and plays the engine's key ("done")."""
    g = mixed(svc, pace={"deadline": "48h"}, characters={"anna": "wizard", "bob": "priest"})
    state = games.state(svc, games.get(svc, g))
    [prompt] = [p for p in svc.engine.prompts(state) if "anna" in p.players]
    assert prompt.kind == "start-spell" and "done" in [o.key for o in prompt.options]
    handle(svc, mail(["urlaub: 3d", "zeitzone: Europe/Berlin", "berichte: turn",
                      "dauerauftrag: when start-spell answer fertig"], sender="anna@example.de",
                     tok=token(svc, g, "anna")))
    [move] = svc.store.moves(g)
    assert (move["actor"], move["line"]) == ("standing", f"anna: {prompt.id}: done")
    notes = mails(svc, "anna@example.de", "receipt")[-1]["text"]
    for said in ("urlaub: Ihre Fristen warten bis", "zeitzone: Zeiten werden in Europe/Berlin angezeigt",
                 "berichte: Sie erhalten einen Bericht, wenn",
                 "Dauerauftrag 1 angelegt: wenn zugbeginn antworte fertig"):
        assert said in notes, notes
    assert "your deadlines wait" not in notes and "standing order 1 filed" not in notes

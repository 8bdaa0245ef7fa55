"""Issue 29, the service's side: what a German reader gets from the service itself -- the
replies to her commands, the mails they send, the keys and hints around her questions -- is
German, and what it tells her to write reads back."""
from __future__ import annotations

import re

from conftest import game_config, mail, token

from pbem.inbound.process import handle
from pbem.moderate import newgame
from pbem.outbound import outbox

PLAYERS = [("anna", "anna@example.de"), ("bob", "bob@example.org")]
NEW = "anna@neu.example.de"


def german_game(svc, **game):
    cfg = game_config(players=PLAYERS, **game)
    cfg["players"][0]["language"] = "de"
    return newgame.create(svc, cfg)


def anna(svc, lines):
    return handle(svc, mail(lines, sender="anna@example.de", tok=token(svc, "autumn", "anna")))


def texts(svc, to, kind=None, inbox_id=None):
    return [outbox.mail(svc, r["id"])["text"] for r in svc.store.query(
        "SELECT id FROM outbox WHERE to_addr = ? ORDER BY id", (to,))
        if kind is None or svc.store.outbox_mail(r["id"])["kind"] == kind]


def reply_text(svc, result):
    [row] = svc.store.query("SELECT id FROM outbox WHERE inbox_id = ? AND kind IN ('receipt', 'error')",
                            (result.inbox_id,))
    return outbox.mail(svc, row["id"])["text"]


def test_a_new_address_asked_in_german_is_answered_in_german_and_its_code_line_reads_back(svc):
    german_game(svc)
    asked = reply_text(svc, anna(svc, [f"e-mail: {NEW}"]))
    assert f"e-mail: ein Code wurde an {NEW} gesandt" in asked and "CODE" in asked
    [code_mail] = texts(svc, NEW)
    assert "Bestätigen Sie Ihre neue Adresse" in code_mail and "asked" not in code_mail
    line = re.search(rf"`(e-mail: {re.escape(NEW)} [0-9a-f]{{8}} alle)`", code_mail).group(1)
    done = reply_text(svc, anna(svc, [line]))  # the line as the mail wrote it, `alle` and all
    assert f"e-mail: Ihre Adresse ist jetzt {NEW} (in autumn)" in done
    assert svc.store.player("autumn", "anna")["email"] == NEW
    changed = texts(svc, NEW)[-1]
    assert "Ihre Adresse hat sich geändert" in changed
    assert "Ihr Token bleibt derselbe" in changed and "your" not in changed.lower()


def test_vacation_in_every_game_says_each_game_in_german(svc):
    pace = {"deadline": "48h", "vacation_days": 3}
    german_game(svc, pace=pace)
    cfg = game_config(name="winter", players=PLAYERS, pace=pace)
    newgame.create(svc, cfg)  # her seat there reads English by its config: the mail's language is hers here
    first = reply_text(svc, anna(svc, ["urlaub: 2d alle"]))
    assert "urlaub: autumn: Ihre Fristen warten bis" in first and "winter: Ihre Fristen warten bis" in first
    again = reply_text(svc, anna(svc, ["urlaub: 2d alle"]))
    assert "autumn: nicht ausgeführt: nur noch 1 Tag Urlaub in diesem Spiel" in again
    assert "your" not in first + again and "not done" not in again
    ended = reply_text(svc, anna(svc, ["urlaub: ende"]))
    assert "urlaub: beendet" in ended


def test_back_played_as_an_answer_is_said_in_german(fake_svc, monkeypatch):
    """`zurück` where an answer `back` is open (The Gauntlet's "turn back") is played as it; the
    note said 'applied: `back` ...' in English to a German reader."""
    import fake_engine
    monkeypatch.setattr(fake_engine, "OPTIONS", [*fake_engine.OPTIONS, fake_engine.Option("back", "turn back")])
    cfg = game_config(players=[("anna", "anna@example.de"), ("bob", "bob@example.org")])
    cfg["players"][0]["language"] = "de"
    newgame.create(fake_svc, cfg)
    result = handle(fake_svc, mail(["zurück"], sender="anna@example.de", tok=token(fake_svc, "autumn", "anna")))
    assert result.status == "applied", result.outcome
    assert result.outcome == "angewendet: `zurück` als Antwort gespielt"


def test_a_command_not_done_and_the_press_limit_are_said_in_german(svc):
    german_game(svc)
    press = [w for i in range(12) for w in ("an: alle", f"Hallo {i}")]
    text = reply_text(svc, anna(svc, ["zeitzone: Mars/Olymp", *press]))
    assert "zeitzone: Mars/Olymp: nicht ausgeführt:" in text and "not done" not in text
    assert re.search(r"\d+ weitere Nachrichten wurden nicht gesendet: höchstens \d+ Nachrichten in einer Mail "
                     r"\(press_per_mail\)", text), text


def test_a_previews_nested_answers_and_places_are_in_the_readers_words(svc):
    """The answers of a question on the way (the Sentinel's bridge: `weiter`) and of each face of
    a reroll (`links`, `rechts`) as her answer lines show keys, the spaces by their German names;
    they said 'continue, dann', 'left: 1 Plains'. An English reader's lines keep the engine's."""
    from engine import api
    from pbem.base import i18n
    from pbem.outbound import leads
    state = api.new_game({"players": [{"name": "alice", "character": "wizard"},
                                      {"name": "bob", "character": "priest"}]}, "preview-bridge")
    state.players[0].space, state.forced = "woods", [4]
    while state.prompt.kind != "direction":
        state, _ = api.apply(state, api.Move("alice", "done", state.prompt.id))
    asked = svc.engine.view(state, "alice")["mine"]
    with i18n.using("de"):
        german = leads.leads(svc, state, "alice", asked)
    english = leads.leads(svc, state, "alice", asked)
    assert "(weiter, dann Felder (Äußere Region))" in german["right"][0], german["right"]
    assert "(continue, then Fields (Outer Region))" in english["right"][0], english["right"]
    rolled = " ".join(german["reroll"])
    assert "links: 1 " in rolled and "rechts: 1 " in rolled and "left" not in rolled, rolled
    for english_name in ("Plains", "Woods", "Fields", "Sentinel", "Hills", "Chapel"):
        assert english_name not in rolled, rolled
    assert "left: 1 " in " ".join(english["reroll"])


def test_keys_of_a_word_and_a_rest_show_whole_in_her_words_or_whole_as_the_engines():
    from pbem.base import option_keys
    shown = {k: option_keys.shown(k, "de") for k in ("right-1", "left-6", "cast-healing", "encounter-bob",
                                                      "cast-no-such-spell", "continue")}
    assert shown == {"right-1": "rechts-1", "left-6": "links-6", "cast-healing": "heilung-wirken",
                     "encounter-bob": "bob-angreifen", "cast-no-such-spell": "cast-no-such-spell",
                     "continue": "weiter"}
    assert all(option_keys.read(v) == k for k, v in shown.items())
    assert option_keys.read("cast-heilung") == "cast-healing"  # the form shown before reads still
    assert option_keys.shown("right-1", "en") == "right-1"
    assert option_keys.shown("left-x", "de") == "left-x"  # a number's form takes a number only
    assert option_keys.shown("no-such-card-on-hills", "de") == "no-such-card-on-hills"  # whole, not half
    # the Dungeon's way, a default played, and more the survey found English
    for key, word in {"with": "mit", "against": "gegen", "fight": "bekämpfen", "portal-strength": "portal-stärke",
                      "side-portal-of-power": "seite-portal-der-macht", "fate-1": "schicksal-1",
                      "heal-2": "leben-2", "go-on": "weitergehen", "press-on": "voran",
                      "enter-old-sewers": "alte-kanäle-betreten", "warp-enchantress": "verzauberin-warptor",
                      "spell": "zauber", "buy-spell": "zauber-kaufen", "site-craft": "stätte-list",
                      "witch-on-hills": "hexe-auf-hügel", "sword-on-fields-3": "schwert-auf-felder-3",
                      "pony-on-plains": "pony-auf-ebene",  # Pony: its German name spelt alike
                      # a Nemesis Action card played and a Trial's villain fought (numbered names)
                      "play-standard-action-7": "standardaktion-7-spielen",
                      "fight-trial-1-villain": "schurke-der-prüfung-1-bekämpfen"}.items():
        assert option_keys.shown(key, "de") == word and option_keys.read(word) == key


def test_a_standing_order_in_german_words_files_plays_and_is_hinted_in_them(svc):
    """`dauerauftrag: wenn richtung antworte links` is read as `when direction answer left`; the
    hint under her question names the kind and the line in her words (it said `dauerauftrag:
    when direction answer SCHLÜSSEL`), her orders are listed in them, and `streichen` cancels."""
    from pbem.pace import answering
    assert answering.parse("wenn richtung antworte links oder rechts") == answering.parse(
        "when direction answer left or right")
    assert answering.parse("wenn uebergang antworte standard").kinds == ("crossing",)
    assert answering.shown("when fight answer battle or evade", "de") == "wenn kampf antworte kämpfen oder ausweichen"
    assert answering.shown("when fight answer fight", "en") == "when fight answer fight"
    assert answering.parse("neuwurf-wenn-verloren") == answering.parse("reroll-if-losing")
    assert answering.shown("never-reroll", "de") == "nie-neuwurf"
    german_game(svc, characters={"anna": "wizard"})
    filed = reply_text(svc, anna(svc, ["dauerauftrag: when fight answer evade"]))
    assert "Dauerauftrag 1 angelegt: wenn kampf antworte ausweichen" in filed
    assert "1. wenn kampf antworte ausweichen" in filed and "when" not in filed
    assert re.search(r"Diese Frage ist von der Art „[^“]+“: eine Zeile „dauerauftrag: wenn [^ ]+ antworte "
                     r"SCHLÜSSEL“", filed), filed
    assert "„dauerauftrag: streichen N“" in filed
    refused = reply_text(svc, anna(svc, ["dauerauftrag: wenn kampf"]))
    assert "kein Dauerauftrag" in refused and "write" not in refused
    cancelled = reply_text(svc, anna(svc, ["dauerauftrag: streichen alle"]))
    assert "dauerauftrag: streichen alle: 1 Dauerauftrag aufgehoben" in cancelled, cancelled


def test_a_kind_without_a_german_word_is_named_as_the_game_names_it_and_said_so():
    from pbem.base import i18n
    from pbem.pace import reported
    with i18n.using("de"):
        hint = reported.kind_hint("no-such-kind")
        known = reported.kind_hint("hex-space")
    assert hint == {"kind": "no-such-kind", "as_named": True,
                    "line": "dauerauftrag: wenn no-such-kind antworte SCHLÜSSEL"}
    assert known["kind"] == "fluch-feld" and not known["as_named"]


def test_the_kind_words_name_real_kinds_once_each():
    """order_words.toml: each kind it names is one the engine asks, each word is one kind's only,
    and no word is another kind's own name (it would read as that kind)."""
    from engine import api
    from pbem.pace import order_words
    kinds = {k.name for k in api.question_kinds()}
    for lang, table in order_words._table().items():
        said = table["kinds"]
        assert set(said) <= kinds, (lang, set(said) - kinds)
        assert len(set(said.values())) == len(said), lang
        assert not (set(said.values()) & (kinds - set(said))), lang
        assert all(order_words.read_kind(w) == k and order_words.kind(k, lang) == w for k, w in said.items())
    # every kind a player is asked has its German word (adjudicate is the moderator's)
    missing = kinds - {"adjudicate"} - set(order_words._table()["de"]["kinds"])
    assert not missing, f"pbem/pace/order_words.toml [de.kinds] has no word for {sorted(missing)}"


def test_what_was_applied_and_what_is_open_are_in_her_words(svc):
    """Her receipt listed 'anna: 1: done' for her `1: fertig`, and a refused line's
    'Jetzt offen: cast-healing, done': both in her words now (what she would write)."""
    german_game(svc, characters={"anna": "wizard"})
    done = reply_text(svc, anna(svc, ["1: fertig"]))
    assert "anna: 1: fertig" in done and "anna: 1: done" not in done, done
    bad = reply_text(svc, anna(svc, ["links", "1: quatsch"]))  # the direction, then a closed question
    assert "anna: 2: links" in bad, bad
    open_now = re.search(r"Jetzt offen: (.*)", bad).group(1).split(", ")
    assert open_now and not {"left", "right", "reroll", "keep", "done"} & set(open_now), bad


def test_reports_every_and_the_resign_code_in_her_words(svc):
    german_game(svc)
    every = reply_text(svc, anna(svc, ["berichte: jeder"]))
    assert "berichte: Sie erhalten nach jedem Zug einen Bericht" in every, every
    wrong = reply_text(svc, anna(svc, ["berichte: manchmal"]))
    assert "schreiben Sie „berichte: jeder“" in wrong and "write" not in wrong
    anna(svc, ["aufgeben"])
    [asked] = [t for t in texts(svc, "anna@example.de", "notice") if "aufgeben " in t]
    code = re.search(r"^aufgeben ([0-9a-f]{8})$", asked, re.M).group(1)
    anna(svc, [f"aufgeben {code}"])
    assert svc.store.player("autumn", "anna")["status"] == "removed"


def test_a_game_the_moderator_ends_tells_no_deadline(svc):
    """The game-over mail of a game with deadlines said 'FRIST für Frage 1 ... noch 12 Stunden' and
    that a default would be played: the game takes no answers any more."""
    from pbem.moderate import moderator
    german_game(svc, pace={"deadline": "12h"})
    assert "FRIST" in texts(svc, "anna@example.de", "report")[-1]
    moderator.end(svc, "autumn")
    [over] = texts(svc, "anna@example.de", "gameover")
    assert "FRIST" not in over and "Standard" not in over and "dauerauftrag" not in over, over
    [bobs] = texts(svc, "bob@example.org", "gameover")
    assert "DEADLINE" not in bobs and "standing" not in bobs, bobs


def test_a_reminder_is_all_in_her_language(make_service):
    """Her reminder was English around a German report ('The game waits for your answer...',
    its subject 'Reminder: please answer by ...'): the mail was made in the process's language."""
    from conftest import StillClock

    from pbem.pace import deadlines
    clk = StillClock()
    svc = make_service(clock=clk)
    german_game(svc, pace={"deadline": "48h", "reminders": ["24h"]}, characters={"anna": "wizard"})
    clk.at(hours=25)
    deadlines.tick(svc)
    [row] = [r for r in svc.store.outbox_rows() if r["kind"] == "reminder"]
    assert row["to_addr"] == "anna@example.de" and row["subject"].startswith("[autumn] Erinnerung: bitte antworten")
    text = outbox.mail(svc, row["id"])["text"]
    assert "Das Spiel wartet auf Ihre Antwort auf Frage" in text, text
    assert "The game waits" not in text and "Reply with" not in text and "„fertig“" in text, text
    assert outbox.build(svc, outbox.mail(svc, row["id"]))["Content-Language"] == "de"


def test_a_reply_to_a_message_and_too_many_mails_are_told_in_german(make_service):
    """Her answer in a reply to bob's message is not played, and she was told so in English; the
    notice of her mails over the hour's limit was English too."""
    svc = make_service(mails_per_hour=3)
    german_game(svc)
    handle(svc, mail(["to: anna", "Hello"], sender="bob@example.org", tok=token(svc, "autumn", "bob")))
    [press] = [r for r in svc.store.outbox_rows() if r["kind"] == "press" and r["to_addr"] == "anna@example.de"]
    handle(svc, mail(["links"], sender="anna@example.de", tok=token(svc, "autumn", "anna"),
                     headers={"In-Reply-To": press["message_id"], "References": press["message_id"]}))
    [astray] = [t for t in texts(svc, "anna@example.de", "notice") if "nicht" in t]
    assert "Ihre Antwort wurde nicht gespielt" in astray and "eine Nachricht eines anderen Spielers" in astray
    assert "reply" not in astray.lower()
    for _ in range(4):
        anna(svc, ["status"])
    [over] = [t for t in texts(svc, "anna@example.de", "notice") if "Stunde" in t]
    assert "Zu viele Mails in dieser Stunde" in over and "You have sent" not in over, over


def test_a_line_not_read_as_an_answer_is_shown_how_to_write_one_in_her_words(svc):
    german_game(svc)
    result = anna(svc, ["Quatsch?!"])
    text = reply_text(svc, result)
    assert "links    8: links    8 links    8. links    F8: links" in text and "Q8: left" not in text, text
    html = outbox.mail(svc, svc.store.query("SELECT id FROM outbox WHERE inbox_id = ?", (result.inbox_id,))[0]["id"])
    assert "<code>F8: links</code>" in html["html"] and "<code>Q8: left</code>" not in html["html"]


def test_a_seat_that_moves_keeps_the_language_its_person_chose(svc):
    """anna chose German by a mail line (her address's choice, not her seat's config); her seat
    moved to a new address, whose mail then came in English."""
    cfg = game_config(players=PLAYERS)
    newgame.create(svc, cfg)  # her seat reads English by its config
    anna(svc, ["sprache: de", "ortszeit: Europe/Berlin"])
    from pbem.pace import addresses
    addresses.change(svc, svc.store.game("autumn"), "anna", NEW, by="moderator")
    from pbem.core import people
    assert people.language(svc, svc.store.game("autumn"), "anna", NEW) == "de"
    assert people.chosen(svc, NEW)["zone"] == "Europe/Berlin"
    assert "Ihre Adresse hat sich geändert" in texts(svc, NEW)[-1]


def test_a_mail_too_large_is_refused_in_her_language(svc):
    """Her mail over the size limit was answered in English ('It is larger than 1 MB'), its
    subject too; her seat reads German."""
    german_game(svc)
    big = mail(["links"], sender="anna@example.de", tok=token(svc, "autumn", "anna")).replace(
        b"links\n", b"links\n" + b"x" * (1024 * 1024 + 1) + b"\n")
    result = handle(svc, big)
    assert result.status == "refused"
    [row] = [r for r in svc.store.outbox_rows() if r["kind"] == "unprocessed"]
    text = outbox.mail(svc, row["id"])["text"]
    assert row["to_addr"] == "anna@example.de" and "größer als 1 MB" in text and "larger" not in text, text
    assert row["subject"] == "Ihre Nachricht an den Talisman-Dienst konnte nicht verarbeitet werden"


def test_a_kept_roll_that_leads_to_a_fight_says_then_once():
    """'dann Dann ein Kampf gegen ...' (and 'then Then a fight with ...'): a kept roll with no
    event before the fight."""
    from pbem.base import i18n
    from pbem.outbound import leads
    o = {"events": [], "effects": [], "stop": "unknown", "cut": {"name": "Wolf", "strength": 2}}
    assert f"{leads._then()} {leads._said(o)}" == "then a fight with Wolf (Strength 2): the dice decide"
    with i18n.using("de"):
        said = f"{leads._then()} {leads._said(o)}"
    assert said.startswith("dann ein Kampf") and "Dann" not in said, said


def test_a_refused_mail_from_her_address_is_answered_in_german_and_a_strangers_in_english(svc):
    """A mail from anna's address with a wrong token is refused as a stranger's: the reply says
    nothing of any game, in her language (subject and text); one from an unknown address, English."""
    german_game(svc)
    for sender, words in (("anna@example.de", ("Ihre Nachricht an den Talisman-Dienst", "Guten Tag")),
                          ("eve@example.net", ("Your message to the Talisman service", "Hello"))):
        result = handle(svc, mail(["1: rest"], sender=sender, tok="0" * 20))
        assert result.status == "refused"
        [row] = svc.store.query("SELECT id FROM outbox WHERE inbox_id = ? AND kind = 'stranger'", (result.inbox_id,))
        sent = outbox.mail(svc, row["id"])
        assert sent["subject"] == words[0] and words[1] in sent["text"], sent
        assert "autumn" not in sent["text"] and "anna" not in sent["text"]

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

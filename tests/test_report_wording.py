"""Wording in every mail (issue 18): times in the reader's own zone in words, never a raw ISO
timestamp; no repository path. Every kind of mail a game sends is gathered here through the
service (mail in, mails out, the deadlines' tick), on the real engine, and read."""
import random
import re

from conftest import StillClock, game_config, mail, token
from test_deadlines import PACE

from pbem import bot
from pbem.core import games
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame
from pbem.outbound import outbox
from pbem.pace import deadlines

ISO = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
REPO_PATH = re.compile(r"(?<![\w/.])(?:docs|tests|engine|pbem|deploy|bench|tools|\.ci)/[\w./-]+"
                       r"|(?<![\w/.])[\w-]+/[\w./-]*\.(?:toml|md|py|j2)\b")


def test_no_mail_holds_a_raw_time_or_a_repository_path(make_service):
    clk = StillClock()
    svc = make_service(clock=clk)
    config = game_config(pace=PACE, moderator="mod@example.org", characters={"alice": "wizard", "bob": "priest"},
                         press="copied")
    config["players"][0]["timezone"] = "Europe/Berlin"
    config["observers"] = [{"name": "olive", "email": "olive@example.org"}]
    g = newgame.create(svc, config)
    toks = {n: token(svc, g, n) for n in ("alice", "bob")}

    def send(who, lines):
        handle(svc, mail(lines, sender=f"{who}@example.org", tok=toks[who], game=g))

    rnd = random.Random(3)
    send("alice", ["to: bob", "Shall we?"])  # press
    send("bob", ["status"])
    handle(svc, mail(["status"], sender="olive@example.org", game=g))  # an observer's status
    for hours in range(0, 300, 6):  # answers, and deadlines that pass: reminders, defaults
        state = games.state(svc, games.get(svc, g))
        if state.over:
            break
        move = bot.choose(state, rnd)
        if hours % 96 == 0 and move and move.player != svc.engine.MODERATOR:
            send(move.player, [f"{move.prompt}: {move.key}", "xyzzy"])  # a receipt with an error in it
        clk.at(hours=hours)
        deadlines.tick(svc)
    moderator.end(svc, g)
    kinds = set()
    for row in svc.store.outbox_rows():
        m = outbox.mail(svc, row["id"])
        kinds.add(row["kind"])
        for part in ("text", "html"):
            body = m[part]
            assert not ISO.search(body), (row["kind"], part, ISO.search(body).group())
            assert not REPO_PATH.search(body), (row["kind"], part, REPO_PATH.search(body).group())
        if row["player"] == "alice" and row["kind"] == "reminder":
            assert re.search(r"\b(CET|CEST)\b", m["text"]), "alice's times are in her zone"
    assert {"welcome", "report", "receipt", "reminder", "default", "gameover", "press"} <= kinds, kinds

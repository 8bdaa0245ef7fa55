"""Reports say what each answer leads to (issue 18): where a move ends and what it meets on
the way, what a kept roll does, what a reroll could change. The engine's preview says it; here
it is held, through the service (mail in, mails out), against what the answer then really did."""
import random
import re

from conftest import mail, token
from test_commands import last_id, mails
from test_reports import hero_config

from pbem import bot
from pbem.core import games
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame
from pbem.outbound import leads

ARROW = "then"  # the word between an answer and where it leads (leads._then, in English)


def option_leads(text: str, key: str) -> list[str]:
    """The lines a report's text part writes under option `key`, wrapped lines joined."""
    lines, out, inside = text.split("\n"), [], False
    for line in lines:
        if re.match(rf"^  {re.escape(key)} {{2,}}\S", line):
            inside = True
        elif inside and line.startswith(" " * 27) and out:
            out[-1] += " " + line.strip()
        elif inside and line.startswith(" " * 25) and line.strip():
            out.append(line.strip())
        elif inside:
            break
    return out


def faces_of(said: str) -> dict[int, str]:
    """ "1 Fields, 2-6 a question at Sentinel" as {1: "Fields", 2: "a question at Sentinel", ...}."""
    out = {}
    for part in said.split(", "):
        faces, text = part.split(" ", 1)
        first, _, last = faces.partition("-")
        out.update({f: text for f in range(int(first), int(last or first) + 1)})
    return out


def first_move(events, player):
    return next((e for e in events if e.kind == "move" and e.data.get("player") == player), None)


def test_each_answer_does_what_its_report_said(svc):
    """Random answers by mail; before each, the asker's report is read: a move ends where it
    said (space and region), a question on the way is the one it named, a kept roll does what
    it said, and after a movement reroll the new roll leads where its face said."""
    eng, rnd = svc.engine, random.Random(18)
    g = newgame.create(svc, hero_config())
    toks = {p["name"]: token(svc, g, p["name"]) for p in svc.store.players(g)}
    checked = {"move": 0, "on the way": 0, "keep": 0, "new roll": 0}
    faces_said: dict = {}  # after a movement reroll: the face line of the report before it
    latest, seen = {}, 0  # per player: the text of the newest mail to them
    for _ in range(260):
        for r, t in mails(svc, seen):
            latest[r["player"]] = t
        seen = last_id(svc)
        state = games.state(svc, games.get(svc, g))
        if state.over or min(checked.values()) >= 3:
            break
        move = bot.choose(state, rnd)
        if move.player == eng.MODERATOR:
            moderator.answer(svc, g, eng.MODERATOR, f"{move.prompt}: {move.key}")
            continue
        text = latest[move.player]
        assert f"question {move.prompt})" in text, "the asker's newest mail asks the open question"
        said = option_leads(text, move.key)
        if faces_said.get(move.player) and state.prompt.kind == "direction":
            roll = state.prompt.data["roll"]
            for way in ("left", "right"):
                new_roll = re.search(rf"{way}: (.*?)(;|$)", faces_said[move.player]).group(1)
                face = faces_of(new_roll)[roll]
                now = option_leads(text, way)
                if now and now[0].startswith(f"{ARROW} ") and "on the way" not in now[0]:
                    assert now[0][len(ARROW) + 1:].startswith(face + " ("), (face, now)
                    checked["new roll"] += 1
            faces_said[move.player] = None
        after, events = eng.apply(state, move)
        mine = [e.text for e in eng.filter_events(events, move.player)]
        walked = first_move(events, move.player)
        for line in said:
            m = re.match(rf"^{ARROW} (?P<name>[^(]+) \((?P<region>[^)]+)\)$", line)
            if m and move.key != leads.KEEP:
                assert walked, (move, line)
                dest = walked.data["space"]
                board = svc.engine.view(after, move.player)
                assert board["space_names"][dest] == m["name"], (move, line)
                checked["move"] += 1
            elif line.startswith(f"{ARROW} on the way: "):
                assert after.prompt and after.prompt.question in line and walked is None, (move, line)
                checked["on the way"] += 1
            elif move.key == leads.KEEP and line.startswith(ARROW):
                assert " ".join(mine).startswith(line[len(ARROW) + 1:].split(" Then ")[0]), (line, mine)
                checked["keep"] += 1
            elif line.startswith(f"{ARROW} a new roll: ") and move.key == "reroll":
                faces_said[move.player] = line[len(f"{ARROW} a new roll: "):]
        result = handle(svc, mail([f"{move.prompt}: {move.key}"], sender=f"{move.player}@example.org",
                                  tok=toks[move.player], game=g))
        assert result.status == "applied", result.outcome
        assert games.state(svc, games.get(svc, g)).moves == after.moves
    assert all(checked.values()), checked

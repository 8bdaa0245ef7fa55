"""Causes are shown (issue 18): what lies on a space and acts there (the Hex) is on every
board of a report -- the text map, the HTML map, the "lying on the board" list -- and the web
page's; a lasting effect on no space is listed as in force. Through the service: mail in,
mails out."""
import re

from test_commands import last_id, mails, send
from test_reports import hero_config, rows

from pbem.base import engine_text, i18n
from pbem.core import games
from pbem.moderate import newgame

HEX_SEED = "hex-2"  # alice (the Wizard) starts with the Hex and is first to move


def cast_hex(svc):
    g = newgame.create(svc, hero_config(seed=HEX_SEED))
    state = games.state(svc, games.get(svc, g))
    assert "hex" in state.players[0].spells and state.prompt.players == ["alice"], "the seed no longer deals it"
    since = last_id(svc)
    send(svc, g, "alice", [f"{state.prompt.id}: cast-hex woods"])  # the space named with the answer
    state = games.state(svc, games.get(svc, g))
    assert [e["name"] for e in state.effects] == ["hex"]
    return g, "Woods", since


def lying_cells(text: str) -> list[str]:
    """The spaces the text part's board says something lies on."""
    part = text.split("\nWhere everyone is, turn", 1)[1].split("\nThe players:", 1)[0]
    return re.findall(r"^    ([A-Z][\w' ]*?)(?: \(stand-in\))?: .*; lying there: ", part, re.MULTILINE)


def test_the_hex_is_on_every_board_of_every_report(svc):
    g, where, since = cast_hex(svc)
    for name in ("bob", "carol"):
        send(svc, g, name, ["status"])  # their report, now
    sent = [(r, t) for r, t in mails(svc, since) if r["kind"] != "press"]
    assert {r["player"] for r, _ in sent} == {"alice", "bob", "carol"}
    for row, text in sent:
        assert lying_cells(text) == [where]  # the board says the Hex lies there, and only there
        assert re.search(rf"^    {where}: .*; lying there: Hex \(3 rounds\) by alice", text, re.MULTILINE)
        html = next(m for m in rows(svc, id=row["id"]))["html"]
        assert f"{where}: Hex (3 rounds) by alice" in html
        assert re.search(rf">{re.escape(where)}<(?:(?!</td>).)*Hex \(3 rounds\) by alice", html)


def test_the_hex_and_the_gold_on_the_board_read_in_the_readers_language(svc):
    """Issue 29: the shared frame keeps what lies on a space as data; each reader's board says it
    in their words (a German reader read "Hex (3 rounds) by alice")."""
    g, where, since = cast_hex(svc)
    send(svc, g, "bob", ["sprache: de"])
    since = last_id(svc)
    send(svc, g, "bob", ["status"])
    (row, text), = [(r, t) for r, t in mails(svc, since) if r["player"] == "bob" and r["kind"] != "press"]
    with i18n.using("de"):
        hexed, woods = f"{engine_text.name('Hex')} (3 Runden) von alice", engine_text.name(where)
    html = next(m for m in rows(svc, id=row["id"]))["html"]
    assert hexed in text and f"{woods}: {hexed}" in html, text
    assert "rounds" not in text and "rounds" not in html


def test_a_lasting_effect_on_no_space_is_listed_as_in_force():
    from pbem.outbound import reports
    lines = reports.pack_lines({"effects": [{"name": "blizzard", "rounds": 2, "by": "alice"},
                                            {"name": "hex", "rounds": 3, "by": "bob", "space": "woods"}]})
    assert [(g["pack"], [engine_text.line(t) for t in g["lines"]]) for g in lines] == [
        ("In force", ["Blizzard: 2 rounds"])]
    with i18n.using("de"):
        assert [engine_text.line(t) for t in lines[0]["lines"]] == [f"{engine_text.name('Blizzard')}: 2 Runden"]
    shared = reports.pack_lines({"shared_fate": 4})[0]["lines"]
    assert engine_text.line(shared[0]) == "Shared fate: 4."
    with i18n.using("de"):
        assert engine_text.line(shared[0]) == "Gemeinsames Schicksal: 4."


def test_the_defender_is_told_who_attacks_and_with_what(svc):
    """A character attacked by another is asked how to defend; the question's mail says who
    attacks, in battle or psychic combat, and each side's Strength with what adds to it."""
    import random

    from engine import api
    from engine.rules import stats
    from pbem import bot

    rnd = random.Random(1)
    g = newgame.create(svc, hero_config(seed="duel-2"))  # alice is attacked early in this game
    for _ in range(40):
        state = games.state(svc, games.get(svc, g))
        if state.prompt.kind == "defend":
            break
        move = bot.choose(state, rnd)
        since = last_id(svc)
        send(svc, g, move.player, [f"{move.prompt}: {move.key}"])
    else:
        raise AssertionError("no attack in this game any more")
    defender = state.prompt.players[0]
    duel = next(t for t in reversed(state.stack) if t.op == "duel-roll")
    ctx = api.context(state)
    attacker = state.players[duel.p]
    text = [t for r, t in mails(svc, since) if r["player"] == defender][-1]
    flat = " ".join(text.split())
    kind = "psychic combat" if duel.a["psychic"] else "battle"
    attr, value = ("Craft", stats.craft) if duel.a["psychic"] else ("Strength", lambda c, p: stats.strength(c, p,
                                                                                                            battle=True))
    mine = state.players[duel.a["target"]]
    assert mine.name == defender
    assert f"{attacker.name} attacks you in {kind} with {attr} {value(ctx, attacker)}" in flat
    assert f"against your {attr} {value(ctx, mine)}" in flat

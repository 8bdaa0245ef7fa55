"""Causes are shown (issue 18): what lies on a space and acts there (the Hex) is on every
board of a report -- the text map, the HTML map, the "lying on the board" list -- and the web
page's; a lasting effect on no space is listed as in force. Through the service: mail in,
mails out."""
import re

from pbem import games

from test_commands import last_id, mails, send
from test_reports import hero_config, rows

HEX_SEED = "hex-2"  # alice (the Wizard) starts with the Hex and is first to move


def cast_hex(svc):
    g = games.create(svc, hero_config(seed=HEX_SEED))
    state = games.state(svc, games.get(svc, g))
    assert "hex" in state.players[0].spells and state.prompt.players == ["alice"], "the seed no longer deals it"
    since = last_id(svc)
    send(svc, g, "alice", [f"{state.prompt.id}: cast-hex woods"])  # the space named with the answer
    state = games.state(svc, games.get(svc, g))
    assert [e["name"] for e in state.effects] == ["hex"]
    return g, "Woods", since


def marked_cells(text: str) -> list[str]:
    """The names of the text map's cells marked * (something lies there)."""
    grid = [line.split("|")[1:-1] for line in text.split("\n") if line.startswith("|")]
    return [grid[r][c].strip() for r in range(0, len(grid), 3) for c in range(len(grid[r]))
            if "*" in grid[r + 2][c]]


def test_the_hex_is_on_every_board_of_every_report(svc):
    g, where, since = cast_hex(svc)
    for name in ("bob", "carol"):
        send(svc, g, name, ["status"])  # their report, now
    sent = [(r, t) for r, t in mails(svc, since) if r["kind"] != "press"]
    assert {r["player"] for r, _ in sent} == {"alice", "bob", "carol"}
    for row, text in sent:
        assert f"  {where}: Hex (3 rounds) by alice" in text  # the lying list
        assert marked_cells(text) == [where]  # the map marks the space, and only it
        html = next(m for m in rows(svc, id=row["id"]))["html"]
        assert f"{where}: Hex (3 rounds) by alice" in html
        assert re.search(rf">{re.escape(where)}<(?:(?!</td>).)*Hex \(3 rounds\) by alice", html)


def test_a_lasting_effect_on_no_space_is_listed_as_in_force():
    from pbem import reports
    lines = reports.pack_lines({"effects": [{"name": "blizzard", "rounds": 2, "by": "alice"},
                                            {"name": "hex", "rounds": 3, "by": "bob", "space": "woods"}]})
    assert lines == [{"pack": "In force", "what": "Blizzard", "value": "2 rounds"}]

"""The text part's compact board (issue 18): the reader's surroundings and where everyone is,
in a few lines, so a reply quotes little, in words a screen reader reads as they stand (issue 29:
names, not letters; tests/test_report_read_aloud.py); the HTML part keeps the whole board.
Through the service: mail in, mails out."""
import re

from test_commands import asked, last_id, mails, send
from test_reports import hero_config

from pbem.core import games
from pbem.moderate import newgame
from pbem.outbound import outbox


def board_part(text: str) -> str:
    return text.split("\nWhere everyone is, turn", 1)[1].split("\nThe players:", 1)[0]


def test_every_report_says_where_everyone_is_and_what_is_around_its_reader(svc):
    g = newgame.create(svc, hero_config())
    for _ in range(6):
        player, n, key = asked(svc, g)
        since = last_id(svc)
        send(svc, g, player, [f"{n}: {key}"])
        state = games.state(svc, games.get(svc, g))
        for row, text in mails(svc, since):
            view = svc.engine.view(state, row["player"])
            me = view["players"][row["player"]]
            around = re.search(r"^Around you \((?P<region>[^)]+)\),.*\n.*\n  (?P<line>.*(?:\n  \S.*)*)", text,
                               re.MULTILINE)
            assert around, text
            assert around["region"] == "Outer Region" or me["region"] != "outer"
            assert f"{me['space_name']} (you are here" in around["line"]
            assert len(re.split(r",\s+", around["line"])) >= 7  # three spaces each way
            board = board_part(text)
            for name, p in view["players"].items():  # everyone, by name, where they are
                if p["alive"] and p["space"]:
                    space = re.escape(p["space_name"])
                    assert re.search(rf"^    {space}( \(stand-in\))?: (\w+, )*{name}\b", board, re.M), (name, board)
            assert len(board.splitlines()) < 16  # compact: the 7x7 grid was 31 lines
            assert "+----------+" not in text
            assert outbox.mail(svc, row["id"])["html"].count("<tr>") >= 7  # the HTML keeps the whole map

"""`make demo`: a sample game played by mail in ./var (or $PBEM_HOME).

It does what players and a moderator would: creates a game, reads each player's token from
their welcome mail in the outbox folder, answers the open question with a reply mail dropped
into the inbox folder, and runs `pbem serve --once` after each -- then shows the reports.
"""
from __future__ import annotations

import email
import email.policy
import random
import re
import subprocess
import sys
from pathlib import Path

from pbem import bot
from pbem.base import settings as settings_mod
from pbem.core import games, home as home_mod
from pbem.core.service import open_service
from pbem.sources import dropfolder

PLAYERS = [("alice", "alice@example.org"), ("bob", "bob@example.org"), ("carol", "carol@example.org")]
ROUNDS = 12


def pbem(home: Path, *args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "pbem.cli", "--home", str(home), *args],
                         check=True, capture_output=True, text=True)
    return out.stdout


def config_text(name: str) -> str:
    players = "".join(f'\n[[players]]\nname = "{n}"\nemail = "{e}"\n' for n, e in PLAYERS)
    return (f'[game]\nname = "{name}"\nedition = "revised4"\naddress = "talisman@example.org"\n'
            f'moderator = "mod@example.org"\n{players}')


def outbox_mails(home: Path):
    for path in sorted((home / "outbox").glob("*.eml")):
        yield path, email.message_from_bytes(path.read_bytes(), policy=email.policy.default)


def token_of(home: Path, game: str, player: str) -> str:
    for _, msg in outbox_mails(home):
        if msg["Subject"] == f"[{game}] Welcome, {player}":
            found = re.search(r"^token: ([0-9a-f]{20})$", msg.get_body(("plain",)).get_content(), re.MULTILINE)
            assert found is not None, "a welcome mail holds the player's token"
            return found.group(1)
    raise LookupError(f"no welcome mail for {player}")


def reply(game: str, player: str, address: str, token: str, line: str, message_id: str) -> bytes:
    """What a player's mail program sends: a reply to the last report, with one answer."""
    msg = email.message.EmailMessage()
    msg["From"] = f"{player} <{address}>"
    msg["To"] = f"talisman+{token}@example.org"
    msg["Subject"] = f"Re: [{game}] report"
    msg["Message-ID"] = message_id
    msg.set_content(f"{line}\n\n-- \n{player}\n")
    return bytes(msg)


def main() -> None:
    home = settings_mod.default_home()
    if home_mod.init(home):
        print(f"$ pbem init {home}")
    svc = open_service(home)
    name = next(f"demo-{i}" if i else "demo" for i in range(1000) if not svc.store.game(f"demo-{i}" if i else "demo"))
    (home / f"{name}.toml").write_text(config_text(name))
    print(f"$ pbem game new {home / (name + '.toml')}")
    print(pbem(home, "game", "new", str(home / f"{name}.toml")), end="")
    pbem(home, "serve", "--once")  # the welcome mails land in the outbox folder
    rnd = random.Random(7)
    for n in range(1, ROUNDS + 1):
        state = games.state(svc, games.get(svc, name))
        if state.over:
            break
        move = bot.choose(state, rnd)  # a random legal answer; the moderator skips unknown cards
        assert move is not None, "a game not over has a question open"
        line = f"{move.prompt}: {move.key}"
        if move.player == svc.engine.MODERATOR:
            print(f"$ pbem game answer {name} moderator '{line}'")
            pbem(home, "game", "answer", name, "moderator", line)
            continue
        print(f"{move.player} replies: {line}")
        dropfolder.drop(svc.settings.inbox_path, f"reply-{n}.eml",
                        reply(name, move.player, dict(PLAYERS)[move.player], token_of(home, name, move.player), line,
                              f"<demo-{name}-{n}@example.org>"))
        print("$ pbem serve --once")
        pbem(home, "serve", "--once")
    print(f"\n$ pbem log {name}\n" + pbem(home, "log", name))
    print(f"$ pbem game show {name}\n" + pbem(home, "game", "show", name))
    for player, _ in PLAYERS:
        path, msg = [(p, m) for p, m in outbox_mails(home) if m["To"].addresses[0].username == player][-1]
        print(f"--- the last mail to {player}: {path}  ({msg['Subject']})")
        print(msg.get_body(("plain",)).get_content())
    print(f"All mail written is in {home / 'outbox'}; `pbem --home {home} outbox list` lists it.")


if __name__ == "__main__":
    main()

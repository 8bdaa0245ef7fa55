"""Shared fixtures for the service's tests: a service in a temporary home, a game in it, and
mails written the way a player's mail program would."""
from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage

import fake_engine
import pytest
from pgcluster import db_setting, either_store, pg_cluster, pg_url, pytest_terminal_summary  # noqa: F401 -- PostgreSQL

from pbem.base import settings as settings_mod
from pbem.core import games
from pbem.core.service import open_service
from pbem.moderate import newgame

ADDRESS = "talisman@example.org"
PLAYERS = [("alice", "alice@example.org"), ("bob", "bob@example.org")]


class Clock:
    """A clock that moves one second per reading, from a fixed start."""

    def __init__(self, start=datetime(2026, 11, 30, 12, 0, tzinfo=UTC)):
        self.t = start

    def __call__(self):
        self.t += timedelta(seconds=1)
        return self.t


class StillClock:
    """Time stands still until a test moves it: set `t`, or `at(hours=2)` from the start."""

    def __init__(self, start=datetime(2026, 10, 23, 9, 0, tzinfo=UTC)):
        self.start = self.t = start

    def __call__(self):
        return self.t

    def at(self, **delta):
        self.t = self.start + timedelta(**delta)
        return self.t


def game_config(name="autumn", seed="test-seed", players=PLAYERS, characters=None, **game) -> dict:
    """A game's config; `characters`: {player: character} for the seats that choose theirs."""
    return {"game": {"name": name, "edition": "revised4", "address": ADDRESS, "seed": seed, **game},
            "players": [{"name": n, "email": e, **({"character": characters[n]} if n in (characters or {}) else {})}
                        for n, e in players]}


@pytest.fixture
def make_service(tmp_path):
    """make_service(engine=None, home=None, clock=None, **settings) -> a Service over a temporary home."""
    opened = []

    def make(engine=None, home=None, clock=None, **settings):
        settings.setdefault("mails_per_hour", 100_000)  # the test clock plays a game in minutes; tests of it set it
        cfg = settings_mod.Settings(home=str(home or tmp_path / "var"), **settings)
        svc = open_service(settings=cfg, engine=engine, clock=clock or Clock())
        opened.append(svc)
        return svc

    yield make
    for svc in opened:
        svc.store.close()


@pytest.fixture
def svc(make_service):
    """The service on the real engine."""
    return make_service()


@pytest.fixture
def fake_svc(make_service):
    """The service on tests/fake_engine.py: every move legal for whoever's turn it is."""
    return make_service(engine=fake_engine)


@pytest.fixture
def game(svc):
    return newgame.create(svc, game_config())


@pytest.fixture
def fake_game(fake_svc):
    return newgame.create(fake_svc, game_config())


def token(svc, game_id, name) -> str:
    return svc.token(svc.store.player(game_id, name))


def legal(svc, game_id) -> tuple[str, str]:
    """(player, line): a legal answer to the prompt open now."""
    move = svc.engine.legal_moves(games.state(svc, games.get(svc, game_id)))[0]
    return move.player, f"{move.prompt}: {move.key}"


_ids = itertools.count(1)


def mail(lines, *, sender="alice@example.org", tok=None, game="autumn", subject=None, message_id=None,
         headers=None) -> bytes:
    """A player's reply: the token by plus-address in To, answers in the body."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = f"talisman+{tok}@example.org" if tok else ADDRESS
    msg["Subject"] = subject or f"Re: [{game}] Turn 1 report"
    msg["Message-ID"] = message_id or f"<m{next(_ids)}@example.org>"
    for k, v in (headers or {}).items():
        msg[k] = v
    msg.set_content("\n".join(lines) + "\n")
    return bytes(msg)


def turn_file(game, player, tok, answers) -> bytes:
    quoted = ", ".join(f'"{a}"' for a in answers)
    return f'game = "{game}"\nplayer = "{player}"\ntoken = "{tok}"\nanswers = [{quoted}]\n'.encode()

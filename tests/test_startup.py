"""A process without a daemon (issue 28): an MTA's `pbem ingest`, `serve --once` from cron. What
it imports and parses is its start-up cost, paid per mail: it imports neither click nor the
libraries of paths it does not take (Jinja for rendering, lxml and inscriptis for HTML-only
mail, sqlite-utils for tools, rich and pygments for a terminal), and reads the content's
parsed TOML from the home's cache. The figures: bench/pipe.py."""
import os
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import msgspec
import pytest
from conftest import game_config, legal, mail, token

from engine import content
from pbem.base import content_cache, settings as settings_mod
from pbem.core import home as home_mod
from pbem.core.service import open_service
from pbem.moderate import newgame

# The console script's `main` in a process of its own, which names what it imported of these.
# Babel is for a reader's catalogue, dates and numbers (a pipe's ingest renders nothing), and
# typing_extensions is msgspec's for nothing the service uses (pbem/base/settings.py).
HEAVY = ("click", "jinja2", "lxml", "inscriptis", "sqlite_utils", "rich", "pygments", "icalendar", "babel",
         "typing_extensions")
RUN = ("import sys\nfrom pbem.entry import main\ntry:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
       f"print('imported:', sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})), 'exit:', code)")


@pytest.fixture
def site(tmp_path):
    home = tmp_path / "pbem"
    home_mod.init(home)
    svc = open_service(settings=settings_mod.load(home))
    gid = newgame.create(svc, game_config())
    return svc, gid, home


def ingest(home: Path, raw: bytes) -> str:
    env = {"LANG": "C", "TZ": "UTC", "PBEM_PURE": "1", "PATH": os.environ.get("PATH", "")}
    done = subprocess.run([sys.executable, "-c", RUN, "--home", str(home), "ingest"], input=raw, env=env,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return done.stdout.decode()


def test_ingest_without_a_daemon_imports_only_what_it_uses(site):
    svc, gid, home = site
    player, line = legal(svc, gid)
    out = ingest(home, mail([line], sender=f"{player}@example.org", tok=token(svc, gid, player)))
    assert "stdin: applied: 1 of 1 line(s)" in out
    assert "imported: [] exit: 0" in out, out
    assert svc.store.game(gid)["moves"] == 1


def test_the_content_is_parsed_once_per_text_and_kept_private_in_the_home(site):
    svc, gid, home = site
    cache = content_cache.folder(svc.settings)
    kept = sorted(cache.glob("*.msgpack"))
    assert kept, "opening the service and making a game parsed the content through the cache"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700 and stat.S_IMODE(cache.parent.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in kept)
    board = (Path(content.__file__).parent / "content" / "revised4" / "board.toml").read_text("utf-8")
    parse = content_cache.parser(cache)
    assert parse(board) == tomllib.loads(board)
    assert sorted(cache.glob("*.msgpack")) == kept  # read from the cache: nothing new
    before = {p: p.stat().st_mtime_ns for p in kept}
    assert parse(board) == tomllib.loads(board) and {p: p.stat().st_mtime_ns for p in kept} == before


def test_a_form_is_never_trusted_from_other_versions_or_when_damaged(tmp_path, monkeypatch):
    cache = tmp_path / "cache" / "content"
    text = 'title = "Talisman"\n[[space]]\nname = "Fields"\nring = "outer"\n'
    assert content_cache.parser(cache)(text) == tomllib.loads(text)
    [form] = cache.glob("*.msgpack")
    monkeypatch.setattr(content_cache, "FORMAT", content_cache.FORMAT + 1)  # another version: another form
    assert content_cache.parser(cache)(text) == tomllib.loads(text) and len(list(cache.glob("*.msgpack"))) == 2
    monkeypatch.undo()
    form.write_bytes(b"\xc1 not msgpack")  # damaged: parsed again, and replaced
    assert content_cache.parser(cache)(text) == tomllib.loads(text)
    assert msgspec.msgpack.decode(form.read_bytes()) == tomllib.loads(text)
    dated = "when = 2026-12-03\n"  # a date msgpack would give back as text: parsed each time, not kept
    assert content_cache.parser(cache)(dated) == tomllib.loads(dated)
    assert len(list(cache.glob("*.msgpack"))) == 2

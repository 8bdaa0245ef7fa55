"""What a process without a daemon pays before its work (issue 28: an MTA's `pbem ingest`, a
command): the names files (engine/content/<pack>/<lang>/names.toml), read by every process that
reads an answer (its key may be a translated name), come from the home's cache of parsed content
as the engine's own files do; logging does not import asyncio (structlog would: about 50 ms of
CPU). bench/pipe.py has the figures."""
import hashlib
import subprocess
import sys
from importlib import resources

import msgspec
import pytest

from pbem.base import content_cache, printed_names, settings as settings_mod
from pbem.core import home as home_mod
from pbem.core.service import open_service


@pytest.fixture
def svc(tmp_path, monkeypatch):
    # what the service sets, undone after
    monkeypatch.setattr(content_cache, "_parse", getattr(content_cache, "_parse", None), raising=False)
    home = tmp_path / "pbem"
    home_mod.init(home)
    s = open_service(settings=settings_mod.load(home))
    yield s
    s.store.close()


def test_the_names_files_are_parsed_through_the_homes_cache(svc):
    printed_names._rows.cache_clear()
    assert printed_names.table("de")["Graveyard"] == "Friedhof"
    text = resources.files("engine").joinpath("content", "revised4", "de", "names.toml").read_text("utf-8")
    versions = (f"{content_cache.FORMAT}\0{sys.version_info[0]}.{sys.version_info[1]}\0"
                f"{msgspec.__version__}\0")
    form = content_cache.folder(svc.settings) / (hashlib.sha256((versions + text).encode()).hexdigest() + ".msgpack")
    assert form.is_file(), "the German names file was parsed without the cache"
    assert msgspec.msgpack.decode(form.read_bytes())["space"]


def test_logging_does_not_import_asyncio_and_still_logs():
    code = ("import sys\nfrom pbem.base import log\nassert 'asyncio' not in sys.modules, 'asyncio imported'\n"
            "log.configure('json', 'info')\nlog.get(game='g').info('hello', token='0123456789abcdef0123')\n"
            "import structlog.stdlib, asyncio\nassert structlog.stdlib.asyncio.get_running_loop is "
            "asyncio.get_running_loop\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-1500:]
    assert '"event": "hello"' in done.stderr and "0123456789abcdef0123" not in done.stderr  # redacted as ever


def test_a_command_imports_only_its_own_module(tmp_path):
    """Every command's module, and with them the whole of processing (pbem.inbound, pbem.moderate),
    was imported by every command (`pbem status` at 1.8x a fresh process): now its own only."""
    home = tmp_path / "pbem"
    home_mod.init(home)
    code = ("import sys\nfrom pbem.cli import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith(('pbem.cli.', 'pbem.inbound', 'pbem.moderate'))))")
    done = subprocess.run([sys.executable, "-c", code, "--home", str(home), "status"], capture_output=True,
                          text=True, timeout=60)
    assert "store:" in done.stdout, done.stderr[-1500:]
    assert done.stdout.strip().splitlines()[-1] == "['pbem.cli.common', 'pbem.cli.upkeep']"


def test_game_list_imports_neither_the_moderators_side_nor_the_reports(tmp_path):
    """`pbem game list` imported pbem.moderate (game creation, and with it the outbound side) for a
    listing: the group's other commands import theirs when they run (cli.common.Later)."""
    home = tmp_path / "pbem"
    home_mod.init(home)
    code = ("import sys\nfrom pbem.cli import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith(('pbem.moderate', 'pbem.outbound.reports'))))")
    done = subprocess.run([sys.executable, "-c", code, "--home", str(home), "game", "list"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-1500:]
    assert done.stdout.strip().splitlines()[-1] == "[]"

"""The wheel as operators install it: built by the build backend (`pip wheel .`), installed into
a new venv outside the checkout, and a game played by mail through it -- the templates, the
content and (in the platform wheel) the compiled engine all come from the installed copy.

Slow (a wheel build with mypyc, a venv, the dependencies): behind the `install` marker,
which .ci/run runs (`pytest -m install`)."""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.install

CONFIG = """
[game]
name = "installed"
address = "talisman@example.org"

[[players]]
name = "alice"
email = "alice@example.org"

[[players]]
name = "bob"
email = "bob@example.org"
"""


def run(*args, cwd, env=None, check=True, timeout=1800):
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"{args}: exit {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PBEM_", "PYTHON"))}
    return {**env, **extra}


def snapshot(dest: Path) -> Path:
    """The checkout's files (tracked, and new ones not ignored) as they are now, as a fresh
    clone would hold them: the build sees one consistent set even while sources are edited."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True)
    if listed.returncode != 0:  # not a git checkout (an unpacked release): all but what builds and runs make
        shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns(".venv", "build", "dist", "var", "*.so", "*.egg-info",
                                                                  "__pycache__", "compiled.json"))
        return dest
    for rel in filter(None, listed.stdout.split("\0")):
        if (ROOT / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, dest / rel)
    return dest


@pytest.fixture(scope="module", params=["default", "pure"])
def installed(request, tmp_path_factory):
    """(venv, the wheel's file name): the wheel built from the checkout, installed in a new venv.
    "default": a platform wheel with the compiled engine (a pure one where no C compiler is);
    "pure": the fallback, forced with PBEM_PURE_WHEEL=1."""
    work = tmp_path_factory.mktemp(f"wheel-{request.param}")
    env = clean_env(**({"PBEM_PURE_WHEEL": "1"} if request.param == "pure" else {}))
    run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", work / "dist", snapshot(work / "src"), cwd=work,
        env=env)
    wheel = next((work / "dist").glob("talisman_pbem-*.whl"))
    run(sys.executable, "-m", "venv", work / "venv", cwd=work)
    run(work / "venv" / "bin" / "python", "-m", "pip", "install", "-q", wheel, cwd=work, env=env)
    return work / "venv", wheel.name




def test_the_wheel_is_what_it_says(installed):
    venv, name = installed
    probe = run(venv / "bin" / "python", "-c",
                "import json, engine, pbem, pbem.outbound.render; "
                "print(json.dumps([engine.__file__, pbem.__file__, engine.BUILD]))",
                cwd=venv.parent, env=clean_env())
    engine_file, pbem_file, build = json.loads(probe.stdout)
    assert str(venv) in engine_file and str(venv) in pbem_file  # the installed copy, not the checkout
    site = Path(engine_file).parent.parent
    assert (site / "pbem" / "templates" / "welcome.txt.j2").is_file()
    assert (site / "engine" / "content" / "revised4").is_dir()
    if "none-any" in name:
        assert build == "pure" and not list(site.glob("engine_compiled__mypyc*"))
    else:
        assert build == "compiled", "a platform wheel runs its compiled engine"
        assert (site / "engine" / "compiled.json").is_file()


def test_a_game_is_played_by_mail_through_the_installed_copy(installed, tmp_path):
    venv, name = installed
    pbem = venv / "bin" / "pbem"
    home, env = tmp_path / "home", clean_env()
    sh = lambda *a, check=True: run(pbem, "--home", home, *a, cwd=tmp_path, env=env, check=check)  # noqa: E731
    assert "engine: " + ("pure" if "none-any" in name else "compiled") in sh("--version").stdout
    sh("init")
    (tmp_path / "game.toml").write_text(CONFIG)
    assert sh("game", "new", tmp_path / "game.toml").stdout.strip() == "installed"
    sh("serve", "--once")  # exit 0: every mail rendered and written
    tokens = {}
    for eml in (home / "outbox").glob("*.eml"):
        text = eml.read_text()
        m = re.search(r"^token: ([0-9a-f]{20})$", text, re.M)
        if m and "Welcome, alice" in text:
            tokens["alice"] = m.group(1)
        elif m and "Welcome, bob" in text:
            tokens["bob"] = m.group(1)
    assert set(tokens) == {"alice", "bob"}
    played, mailed = 0, 0
    for n in range(8):
        summary = json.loads(sh("game", "show", "installed", "--json").stdout)
        if summary["over"]:
            break
        prompt = summary["prompt"][0]
        who, line = prompt["players"][0], f"{prompt['id']}: {prompt['options'][0]}"
        if who == "moderator":  # a card to settle (the seed is random): `skip`, as `adjudicate` needs effects
            line = f"{prompt['id']}: skip" if "skip" in prompt["options"] else line
            sh("game", "answer", "installed", "moderator", line)
        else:
            (home / "inbox" / f"reply-{n}.eml").write_text(
                f"From: {who}@example.org\nTo: talisman+{tokens[who]}@example.org\nSubject: Re: [installed] report\n"
                f"Message-ID: <install-{n}@example.org>\n\n{line}\n")
            sh("serve", "--once")
            mailed += 1
        played += 1
    moves = json.loads(sh("log", "installed", "--json").stdout)
    assert len(moves) >= played >= 1
    rows = json.loads(sh("outbox", "list", "--json").stdout)
    assert rows and all(r["status"] == "sent" and not r["last_error"] for r in rows)
    reports = [p.read_text() for p in (home / "outbox").glob("*.eml") if "Welcome" not in p.read_text()]
    assert reports and all("[installed]" in r for r in reports)
    assert [r["status"] for r in json.loads(sh("inbox", "list", "--json").stdout)] == ["processed"] * mailed


def test_an_installed_engine_source_changed_since_the_build_runs_from_its_sources(installed):
    venv, name = installed
    if "none-any" in name:
        pytest.skip("the pure wheel has no build to check")
    probe = "import engine; print(engine.BUILD)"
    site = Path(run(venv / "bin" / "python", "-c", "import engine; print(engine.__file__)", cwd=venv.parent,
                    env=clean_env()).stdout.strip()).parent
    source = site / "rules" / "turn.py"
    before = source.read_text()
    source.write_text(before + "\n# edited in place\n")
    try:
        out = run(venv / "bin" / "python", "-c", probe, cwd=venv.parent, env=clean_env())
        assert out.stdout.strip() == "sources" and "rules/turn.py changed" in out.stderr
    finally:
        source.write_text(before)
    assert run(venv / "bin" / "python", "-c", probe, cwd=venv.parent, env=clean_env()).stdout.strip() == "compiled"

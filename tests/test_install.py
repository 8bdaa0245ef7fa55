"""The service as a stranger builds and installs it: from a copy of the checkout (what a fresh
clone holds), with a brand-new venv made from the base interpreter -- not the project's .venv,
no site-packages of ours, nothing installed but pip -- so the build backend gets only what
pyproject.toml's [build-system] asks for. Then installed into a new venv outside the checkout,
and a game played by mail through it: the templates, the content and (in the platform wheel)
the compiled engine all come from the installed copy.

Two builds, the compile done once:
- "compiled": `pip wheel --no-deps -w dist .` (README's Deployment, the Containerfile's build
  stage), the wheel then installed with `pip install dist/*.whl`;
- "pure": `pip install .` in the clone with PBEM_PURE_WHEEL=1, the fallback wheel.
And a clone whose engine does not type-check still builds: the pure wheel, with one line saying why.

Slow (mypyc, venvs, the dependencies): behind the `install` marker, which .ci/run runs
(`pytest -m install`); the check of [build-system] against the engine's imports is fast and
runs by default."""
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.timeout(3600)  # the first test waits for the builds (the compile: minutes, more under load)
# the interpreter the project's .venv was made from (or this one, where it is no venv)
BASE_PYTHON = Path(getattr(sys, "_base_executable", sys.executable))

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
    """The environment of a stranger's shell: no PBEM_ or PYTHON variables, no venv of ours on PATH."""
    ours = str(ROOT / ".venv")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PBEM_", "PYTHON")) and k != "VIRTUAL_ENV"}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(ours))
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


def fresh_venv(path: Path, python: Path = BASE_PYTHON) -> Path:
    """A new venv from the base interpreter, with nothing in it but pip (no system site-packages)."""
    run(python, "-m", "venv", path, cwd=path.parent, env=clean_env())
    return path


def said(build_output: str) -> list[str]:
    """What setup.py said about the compile (pip -v shows the backend's lines), and any folder
    setuptools found importable and left out of the packages (its "Package would be ignored",
    one a folder: dozens at every build before setup.py named them all)."""
    return [line.strip() for line in build_output.splitlines()
            if line.strip().startswith("setup.py:") or "Package would be ignored" in line]


def wheel_tag(venv: Path) -> str:
    """The installed distribution's wheel tag, from its dist-info: py3-none-any or cp3XX-cp3XX-<platform>."""
    [wheel] = venv.glob("lib/python3*/site-packages/talisman_pbem-*.dist-info/WHEEL")
    return re.search(r"^Tag: (\S+)$", wheel.read_text(), re.M).group(1)


@pytest.fixture(scope="module")
def builder(tmp_path_factory):
    """A Python with nothing installed (but pip, and Python 3.11's venv adds setuptools): it has
    neither mypy nor msgspec, so the build finds them only if [build-system] requires them."""
    venv = fresh_venv(tmp_path_factory.mktemp("builder") / "venv")
    for absent in ("mypy", "msgspec", "click"):
        probe = run(venv / "bin" / "python", "-c", f"import {absent}", cwd=venv, env=clean_env(), check=False)
        assert probe.returncode != 0, f"{absent} is importable in a new venv: it sees other site-packages"
    return venv


@pytest.fixture(scope="module", params=["compiled", "pure"])
def installed(request, builder, tmp_path_factory):
    """(venv, wheel tag, what setup.py said): the service built from a clone and installed in a new venv."""
    work = tmp_path_factory.mktemp(f"install-{request.param}")
    clone = snapshot(work / "clone")
    if request.param == "compiled":
        built = run(builder / "bin" / "pip", "wheel", "-v", "--no-deps", "-w", work / "dist", ".", cwd=clone,
                    env=clean_env())
        [wheel] = (work / "dist").glob("talisman_pbem-*.whl")
        venv = fresh_venv(work / "venv")
        run(venv / "bin" / "pip", "install", "-q", wheel, cwd=work, env=clean_env())
    else:
        venv = fresh_venv(work / "venv")
        built = run(venv / "bin" / "pip", "install", "-v", ".", cwd=clone, env=clean_env(PBEM_PURE_WHEEL="1"))
    shutil.rmtree(clone)  # nothing may come from the clone once installed
    tag, lines = wheel_tag(venv), said(built.stdout + built.stderr)
    if request.param == "compiled" and have_compiler():
        assert tag != "py3-none-any", f"the compile fell back to the pure wheel: {lines}"
    return venv, tag, lines


def have_compiler() -> bool:
    """A C compiler and Python's headers: where they are, the wheel must be compiled."""
    include = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return bool(shutil.which(os.environ.get("CC", "cc"))) and include.is_file()


def engine_imports() -> set[str]:
    """The top-level modules outside the standard library that engine/ imports: what mypyc's
    type check of the engine must find in the build environment."""
    names = set()
    for source in (ROOT / "engine").rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"engine", "mypy_extensions"}  # mypy brings mypy_extensions


def test_the_build_requires_everything_the_compile_imports():
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    named = {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower().replace("-", "_") for r in requires}
    assert {"setuptools", "mypy"} <= named
    assert engine_imports() - named == set(), "the wheel's compile would type-check the engine without them"


@pytest.mark.install
def test_the_wheel_is_what_it_says(installed):
    venv, tag, lines = installed
    probe = run(venv / "bin" / "python", "-c",
                "import json, engine, pbem, pbem.outbound.render; "
                "print(json.dumps([engine.__file__, pbem.__file__, engine.BUILD]))",
                cwd=venv.parent, env=clean_env())
    engine_file, pbem_file, build = json.loads(probe.stdout)
    assert str(venv) in engine_file and str(venv) in pbem_file  # the installed copy, not the checkout
    site = Path(engine_file).parent.parent
    assert (site / "engine" / "content" / "revised4").is_dir()
    # the templates are the top-level templates/ folder, every one of them, shipped as pbem.templates
    shipped = {p.relative_to(ROOT / "templates") for p in (ROOT / "templates").rglob("*.j2")}
    assert shipped and (ROOT / "templates" / "welcome.txt.j2").is_file()
    for rel in shipped:
        assert (site / "pbem" / "templates" / rel).read_bytes() == (ROOT / "templates" / rel).read_bytes(), rel
    if tag == "py3-none-any":
        assert build == "pure" and not list(site.glob("engine_compiled__mypyc*"))
        assert lines == ["setup.py: the engine is not compiled (PBEM_PURE_WHEEL is set): a pure wheel, whose engine "
                         "runs its Python sources"]
    else:
        assert tag.startswith(f"cp3{sys.version_info.minor}-"), tag
        assert build == "compiled", "a platform wheel runs its compiled engine"
        assert (site / "engine" / "compiled.json").is_file()
        assert not [line for line in lines if "not compiled" in line or "ignored" in line], lines


@pytest.mark.install
def test_a_game_is_played_by_mail_through_the_installed_copy(installed, tmp_path):
    venv, tag, _ = installed
    pbem = venv / "bin" / "pbem"
    home, env = tmp_path / "home", clean_env()
    sh = lambda *a, check=True: run(pbem, "--home", home, *a, cwd=tmp_path, env=env, check=check)  # noqa: E731
    assert "engine: " + ("pure" if tag == "py3-none-any" else "compiled") in sh("--version").stdout
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


@pytest.mark.install
def test_an_installed_engine_source_changed_since_the_build_runs_from_its_sources(installed):
    venv, tag, _ = installed
    if tag == "py3-none-any":
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


@pytest.mark.install
def test_an_engine_that_does_not_type_check_still_builds_the_pure_wheel_saying_why(builder, tmp_path):
    """mypyc ends a failed type check with sys.exit: setup.py makes the pure wheel all the same,
    and says why in one line (mypy's first error), not a page of them."""
    clone = snapshot(tmp_path / "clone")
    errors = clone / "engine" / "errors.py"
    errors.write_text(errors.read_text() + '\nBROKEN: int = "not an int"\n')
    built = run(builder / "bin" / "pip", "wheel", "-v", "--no-deps", "-w", tmp_path / "dist", ".", cwd=clone,
                env=clean_env())
    [wheel] = (tmp_path / "dist").glob("talisman_pbem-*.whl")
    assert wheel.name.endswith("-py3-none-any.whl")
    [compiling, why] = said(built.stdout + built.stderr)
    assert compiling.startswith("setup.py: compiling the engine")
    assert why.startswith("setup.py: the engine is not compiled (mypyc: engine/errors.py:") and "a pure wheel" in why
    assert 'incompatible types in assignment (expression has type "str"' in why.lower()

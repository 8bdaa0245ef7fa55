"""Compile the engine with mypyc: extension modules beside the sources, and the record
engine/compiled.json that engine/compiled.py checks them against (see docs/architecture.md).

    .venv/bin/python tools/compile_engine.py          # `make` runs it when an engine source changes
    .venv/bin/python tools/compile_engine.py --clean  # remove the build: the sources run

Needs mypy (the `compile` extra) and a C compiler. Without them the engine runs from its
sources: slower, the same results. setup.py uses `extensions` and `record` to build the
same into a platform wheel (`pip wheel .`, `pip install .`).
"""
from __future__ import annotations

import argparse
import importlib.util
import io
import json
import os
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"


def _load(name: str, path: Path):
    """A module by its file: engine/compiled.py alone, not through the engine package (whose
    import picks a build); tools/progress.py also when setup.py loads this file by its path."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


compiled = _load("_engine_compiled", ENGINE / "compiled.py")
heartbeat = _load("_pbem_progress", ROOT / "tools" / "progress.py").heartbeat
LIBRARY = compiled.LIBRARY
# Modules left as Python, and why
PURE = {
    "__init__.py": "checks the build before any compiled module loads",
    "compiled.py": "the check itself",
    "state.py": "msgspec Structs: mypyc cannot compile classes built by another metaclass",
    "config.py": "msgspec Structs, as state.py",
    "text.py": "a msgspec Struct (the message), as state.py",
}


def sources() -> list[Path]:
    return sorted(p for p in ENGINE.rglob("*.py") if str(p.relative_to(ENGINE)) not in PURE)


def record() -> str:
    """The text of engine/compiled.json: the SHA-256 of every source compiled. Read before
    compiling: a source edited meanwhile then shows as changed, not as built."""
    digests = {str(p.relative_to(ENGINE)): compiled.digest(p) for p in sources()}
    return json.dumps({"sources": digests}, indent=1, sort_keys=True) + "\n"


def extensions(target_dir: str) -> list:
    """The engine as mypyc extension modules (runs mypyc: slow), for setuptools' ext_modules.
    Paths are relative to the project's folder, which must be the current one."""
    from mypyc.build import mypycify
    with heartbeat("type-checking the engine and translating it to C (mypyc)"):
        # --no-check-untyped-defs: pyproject.toml's [tool.mypy] checks untyped bodies for mypy itself; mypyc,
        # which reads that too, then types their locals from Any and crashes on some (reversed() of them)
        return mypycify(["--ignore-missing-imports", "--no-check-untyped-defs",
                         *(str(p.relative_to(ROOT)) for p in sources())], opt_level="3",
                        multi_file=True, group_name=LIBRARY.removesuffix("__mypyc"), target_dir=target_dir)


def clean() -> None:
    (ENGINE / "compiled.json").unlink(missing_ok=True)  # first: a half-removed build is never used
    for so in [*ENGINE.rglob("*.so"), *ROOT.glob(f"{LIBRARY}*.so")]:
        so.unlink()


def build() -> None:
    from setuptools import setup

    text = record()
    os.chdir(ROOT)
    said = io.StringIO()
    try:
        with redirect_stdout(said), redirect_stderr(said):
            modules = extensions("build/mypyc")
    finally:
        # mypyc's warnings say what it compiles another way ("Treating generator comprehension as
        # list"): no news to whoever runs `make`; its errors, which stop the build, are shown
        for line in said.getvalue().splitlines():
            if ": warning: " not in line:
                print(line, file=sys.stderr)
    with heartbeat("compiling the C code"):
        # packages=[]: only the extensions; setuptools' discovery of packages in the checkout's folders (var/,
        # templates/, bench/ ...) would refuse them as "multiple top-level packages"
        setup(name="talisman-engine-compiled", ext_modules=modules, packages=[], py_modules=[],
              script_args=["-q", "build_ext", "--inplace", "-j", str(os.cpu_count() or 1)])
    (ENGINE / "compiled.json").write_text(text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clean", action="store_true", help="remove the build")
    args = ap.parse_args()
    clean()
    if args.clean:
        return 0
    t0 = time.monotonic()
    print(f"compile_engine: compiling {len(sources())} engine modules with mypyc (about a minute; more on a busy "
          "machine)...", file=sys.stderr, flush=True)
    try:
        build()
    except (Exception, SystemExit) as e:  # no compiler, no mypy, a type error: the sources run
        clean()
        print(f"compile_engine: not compiled ({type(e).__name__}: {e}); the engine runs from its Python sources",
              file=sys.stderr)
        return 1
    print(f"compile_engine: {len(sources())} engine modules compiled in {time.monotonic() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

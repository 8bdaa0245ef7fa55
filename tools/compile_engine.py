"""Compile the engine with mypyc: extension modules beside the sources, and the record
engine/compiled.json that engine/compiled.py checks them against (see docs/architecture.md).

    .venv/bin/python tools/compile_engine.py          # `make` runs it when an engine source changes
    .venv/bin/python tools/compile_engine.py --clean  # remove the build: the sources run

Needs mypy (the `compile` extra) and a C compiler. Without them the engine runs from its
sources: slower, the same results.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["PBEM_PURE"] = "1"  # the build's own imports never load an old build
from engine import compiled  # noqa: E402

ENGINE = ROOT / "engine"
# Modules left as Python, and why
PURE = {
    "__init__.py": "checks the build before any compiled module loads",
    "compiled.py": "the check itself",
    "state.py": "msgspec Structs: mypyc cannot compile classes built by another metaclass",
    "config.py": "msgspec Structs, as state.py",
}


def sources() -> list[Path]:
    return sorted(p for p in ENGINE.rglob("*.py") if str(p.relative_to(ENGINE)) not in PURE)


def clean() -> None:
    (ENGINE / "compiled.json").unlink(missing_ok=True)  # first: a half-removed build is never used
    for so in [*ENGINE.rglob("*.so"), *ROOT.glob(f"{compiled.LIBRARY}*.so")]:
        so.unlink()


def build() -> None:
    from mypyc.build import mypycify
    from setuptools import setup

    paths = [str(p.relative_to(ROOT)) for p in sources()]
    # read before compiling: a source edited meanwhile then shows as changed, not as built
    record = {"sources": {str(p.relative_to(ENGINE)): compiled.digest(p) for p in sources()}}
    os.chdir(ROOT)
    setup(name="talisman-engine-compiled", script_args=["-q", "build_ext", "--inplace", "-j", str(os.cpu_count() or 1)],
          ext_modules=mypycify(["--ignore-missing-imports", *paths], opt_level="3", multi_file=True,
                               group_name=compiled.LIBRARY.removesuffix("__mypyc"), target_dir="build/mypyc"))
    (ENGINE / "compiled.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clean", action="store_true", help="remove the build")
    args = ap.parse_args()
    clean()
    if args.clean:
        return 0
    t0 = time.monotonic()
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

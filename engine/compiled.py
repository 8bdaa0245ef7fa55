"""Which build of the engine runs: the compiled one, or the Python sources.

tools/compile_engine.py compiles the engine's modules with mypyc into extension modules beside
their sources (about twice as fast; the same results, checked by tests/test_compiled.py) and
writes the record `engine/compiled.json`: the SHA-256 of every source it compiled. Python
prefers an extension module to a source of the same name, so a source edited after the build
would be shadowed by its old build. engine/__init__.py runs `choose()` before any other engine
module loads: where a compiled source has changed, or PBEM_PURE is set, every engine module
loads from its source instead, and a changed source is warned about.

The modules share one library of compiled code, `engine_compiled__mypyc`: a top-level module
beside engine/ (mypyc finds the packages' folders from where it lies). `choose()` loads it from
there, so the folder that holds engine/ need not be on sys.path (an editable install maps only
the packages).

This module and engine/__init__.py are never compiled. A wheel (setup.py) holds the same
build, the record and the library beside engine/ in site-packages: the check works the same
in an installed copy (tests/test_install.py).
"""
from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import types
import warnings
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent
RECORD = ROOT / "compiled.json"
LIBRARY = "engine_compiled__mypyc"  # tools/compile_engine.py's group_name, and mypyc's suffix


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def changed(record: Path = RECORD) -> list[str]:
    """The compiled sources (paths relative to engine/) that differ from the build."""
    sources = json.loads(record.read_text())["sources"]
    return [rel for rel, h in sources.items()
            if not (record.parent / rel).is_file() or digest(record.parent / rel) != h]


class SourcesOnly(importlib.abc.MetaPathFinder):
    """Finds engine modules among their Python sources only, passing over extension modules."""

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if not name.startswith("engine.") or not path:
            return None
        loader = (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES)
        for entry in path:
            spec = importlib.machinery.FileFinder(entry, loader).find_spec(name, target)
            if spec is not None:
                return spec
        return None


def load(library: Path) -> None:
    """Import the shared library before the modules that ask for it by name."""
    loader = importlib.machinery.ExtensionFileLoader(LIBRARY, str(library))
    spec = importlib.util.spec_from_file_location(LIBRARY, library, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[LIBRARY] = module
    loader.exec_module(module)


def choose() -> str:
    """"compiled" (the build is current), "pure" (there is no build) or "sources" (a build
    exists but is set aside)."""
    library = next((ROOT.parent / (LIBRARY + s) for s in importlib.machinery.EXTENSION_SUFFIXES
                    if (ROOT.parent / (LIBRARY + s)).is_file()), None)
    if not RECORD.is_file() or library is None:  # no build, or none for this Python
        return "pure"
    if not os.environ.get("PBEM_PURE"):
        stale = changed()
        if not stale:
            load(library)
            return "compiled"
        warnings.warn(f"engine: {', '.join(stale[:3])} changed since the engine was compiled: running the "
                      "Python sources (slower, same results). `make` compiles it again.", RuntimeWarning, stacklevel=2)
    sys.meta_path.insert(0, SourcesOnly())
    return "sources"

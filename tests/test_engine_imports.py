"""The engine's modules import one another in one direction (issue 32): no import cycle, with
imports written inside functions counted (the way the old knot of 46 modules was hidden), none
written there at all, the registry alone importing every pack, and importing one pack loading
that pack and the core only (docs/architecture.md, "The engine's imports").

A name imported under `if TYPE_CHECKING:` is read by mypy and mypyc only; such imports are
listed in TYPE_ONLY, each with its reason: two classes that name each other.
"""
from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

from test_import_graph import cycles

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"

TYPE_ONLY = {
    ("engine.rules.machine", "engine.hooks"): "the Ctx carries the game's Hooks, whose methods take the Ctx",
    ("engine.interface", "engine.api"): "mypy checks engine.api against the Engine protocol",
}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imports(path: Path, root: Path = ENGINE) -> list[tuple[str, int, str]]:
    """Every engine module `path` imports: (module, line, "top" / "function" / "types")."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[str, int, str]] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            here = "function" if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else \
                "types" if _type_checking(child) and where == "top" else where
            if isinstance(child, ast.Import):
                found.extend((a.name, child.lineno, where) for a in child.names if a.name.split(".")[0] == "engine")
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    up = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                    base = ".".join(up + ([base] if base else []))
                if base.split(".")[0] == "engine":
                    found.extend((f"{base}.{a.name}", child.lineno, where) for a in child.names)
            visit(child, here)

    visit(ast.parse(path.read_text("utf-8")), "top")
    return found


def graph(root: Path = ENGINE) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """{(importer, imported): [(path:line, kind), ...]}: a name imported from a module counts as
    that module, `from engine.rules import stats` as engine.rules.stats."""
    paths = [p for p in sorted(root.rglob("*.py")) if "__pycache__" not in p.parts]
    modules = {module_name(p, root) for p in paths}
    edges: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for path in paths:
        here = module_name(path, root)
        for name, line, kind in imports(path, root):
            there = next((m for m in (name, name.rpartition(".")[0]) if m in modules), None)
            if there is not None and there != here:
                edges.setdefault((here, there), []).append((f"{path.relative_to(root.parent)}:{line}", kind))
    return edges


def problems(root: Path = ENGINE) -> list[str]:
    edges = graph(root)
    run = {e for e, where in edges.items() if any(kind != "types" for _, kind in where)}
    found = [f"import cycle: {' <-> '.join(c)}" for c in cycles(run)]
    for (a, b), where in sorted(edges.items()):
        for at, kind in where:
            if kind == "function":
                found.append(f"{at}: {a} imports {b} inside a function: import at the top")
            elif kind == "types" and (a, b) not in TYPE_ONLY:
                found.append(f"{at}: {a} imports {b} for types only: not in TYPE_ONLY (tests/test_engine_imports.py)")
    return found


def test_the_engine_has_no_import_cycle_and_no_import_inside_a_function():
    assert problems() == []


# what the engine may never touch (docs/architecture.md, the design's one rule of the layout): the
# clock, Python's own randomness (its draws are engine/rng.py's, a function of the seed, so an archive
# replays the same anywhere), the network, processes, mail, a database
IMPURE = {"random", "secrets", "time", "datetime", "socket", "ssl", "http", "urllib", "subprocess", "asyncio",
          "email", "smtplib", "sqlite3", "uuid"}


def test_the_engine_imports_no_clock_no_randomness_and_no_io():
    found = []
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            found += [f"{path.relative_to(ENGINE.parent)}:{node.lineno}: {n}" for n in names
                      if n.split(".")[0] in IMPURE]
    assert found == []


def test_the_check_finds_a_cycle_a_late_import_and_an_unlisted_types_import(tmp_path):
    """The check itself, on a copy of engine/: the kind of import that closed the old knot (the
    core asking the registry from inside a function) is found, and so is a cycle it makes."""
    root = tmp_path / "engine"
    shutil.copytree(ENGINE, root, ignore=shutil.ignore_patterns("__pycache__", "content", "*.so"))
    assert problems(root) == []
    stats = root / "rules" / "stats.py"
    stats.write_text(stats.read_text("utf-8") + "\n\ndef _late():\n    from engine import registry\n"
                     "    return registry\n", "utf-8")
    ops = root / "ops.py"
    ops.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from engine import api\n"
                   + ops.read_text("utf-8"), "utf-8")
    found = problems(root)
    assert any(p.startswith("engine/rules/stats.py:") and "inside a function" in p for p in found), found
    assert any(p.startswith("import cycle:") and "engine.registry" in p and "engine.rules.stats" in p
               for p in found), found
    assert any(p.startswith("engine/ops.py:3: engine.ops imports engine.api for types only") for p in found), found


def test_importing_one_pack_loads_that_pack_and_the_core_only():
    """A pack can be imported (and tested) alone: no other pack, no registry comes with it."""
    probe = ("import json, sys\nimport engine.packs.timescape\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith('engine'))))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout)
    assert "engine.packs.timescape" in loaded and "engine.registry" not in loaded
    assert [m for m in loaded if m.startswith("engine.packs.")] == ["engine.packs.base", "engine.packs.timescape"]
    assert len(loaded) < 30, loaded

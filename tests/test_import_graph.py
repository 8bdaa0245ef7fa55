"""The service's folders are layers a mail travels through (docs/architecture.md, "The map"):
each imports only from the layers below it, so there is no import cycle between them, and SQL
is written only in the store.

Every import counts: at the top of a module, inside a function (so a cycle cannot be hidden by
importing late) and under TYPE_CHECKING. A folder of pbem/ is one unit; a module at the top of
pbem/ (the programs: the CLI, the daemon, the demo, the console script) is a unit of its own.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PBEM = Path(__file__).resolve().parent.parent / "pbem"

# Bottom to top. A unit may import from the units before it, never from one after it.
LAYERS = (
    "base",  # what needs nothing of the service: settings, the clock, tokens, logs, config keys, the board's shape
    "store",  # the database: every row and every statement
    "core",  # the Service (settings + store + engine + key), the home folder, a game as stored
    "archive",  # a game as one file: export, verify, replay
    "outbound",  # mail going out: reports, rendering, the outbox, bounces, observers, press
    "pace",  # what follows a move: the move's log entry, deadlines, defaults, standing orders, vacations
    "moderate",  # a new game, the moderator's commands
    "inbound",  # a mail coming in: orders read from it, processed into moves
    "sources",  # where mail comes from: stdin, the MTA's pipe, files, a Maildir, the drop folder, IMAP
    "daemon",  # the loop over the sources, the deadlines and the outbox
    "web",  # the web face (it runs the daemon beside it)
    "cli",  # the moderator's command line
    "bot",  # a random player (demos and playouts)
    "demo",  # `make demo`
    "entry",  # the console script: the MTA's pipe first, then the CLI
)
RANK = {name: i for i, name in enumerate(LAYERS)}


def unit_of(module: str) -> str:
    """The unit of a dotted module name under pbem ("pbem.outbound.reports" -> "outbound")."""
    parts = module.split(".")
    assert parts[0] == "pbem", module
    return parts[1] if len(parts) > 1 else "pbem"


def module_name(path: Path, root: Path = PBEM) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, root: Path = PBEM) -> list[tuple[str, int]]:
    """Every pbem module `path` imports, wherever the import is, with its line."""
    tree = ast.parse(path.read_text("utf-8"))
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names if a.name.split(".")[0] == "pbem"]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            if base.split(".")[0] != "pbem":
                continue
            # `from pbem import outbound` imports a unit, `from pbem.store import migrations` a module
            for a in node.names:
                found.append((f"{base}.{a.name}", node.lineno))
    return found


def graph(root: Path = PBEM) -> dict[tuple[str, str], list[str]]:
    """{(importing unit, imported unit): ["path:line", ...]} over every source under `root`."""
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        here = unit_of(module_name(path, root))
        for target, line in imports(path, root):
            there = unit_of(target)
            if there != here:
                edges.setdefault((here, there), []).append(f"{path.relative_to(root.parent)}:{line}")
    return edges


def cycles(edges) -> list[list[str]]:
    """The strongly connected components of more than one unit (Tarjan)."""
    succ: dict[str, set[str]] = {}
    for a, b in edges:
        succ.setdefault(a, set()).add(b)
        succ.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(succ[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(succ):
        if v not in index:
            visit(v)
    return out


def problems(root: Path = PBEM) -> list[str]:
    edges = graph(root)
    units = {unit_of(module_name(p, root)) for p in root.rglob("*.py") if "__pycache__" not in p.parts} - {"pbem"}
    found = [f"{u}: a unit not in LAYERS (tests/test_import_graph.py): declare where it sits" for u in
             sorted(units - set(RANK))]
    found += [f"import cycle between {' <-> '.join(c)}" for c in cycles(edges)]
    for (a, b), where in sorted(edges.items()):
        if a in RANK and b in RANK and RANK[b] > RANK[a]:
            found.append(f"{a} imports {b}, a layer above it: {', '.join(where)}")
        elif b == "pbem":
            found.append(f"{a} imports the pbem package itself: {', '.join(where)}")
    return found


def test_the_folders_import_only_downwards_and_have_no_cycle():
    assert problems() == []


def test_the_check_finds_a_cycle_an_upward_import_and_an_undeclared_folder(tmp_path):
    """The check itself: a copy of pbem/ with a function-level import from a lower layer to a
    higher one (the kind that used to hide the cycle) and a new folder nobody declared."""
    import shutil
    root = tmp_path / "pbem"
    shutil.copytree(PBEM, root, ignore=shutil.ignore_patterns("__pycache__", "static", "templates"))
    assert problems(root) == []
    reports = root / "outbound" / "reports.py"
    reports.write_text(reports.read_text("utf-8") + "\n\ndef _late():\n    from pbem.pace import standing\n"
                       "    return standing\n", "utf-8")
    (root / "extra").mkdir()
    (root / "extra" / "thing.py").write_text("from pbem.core import games\n", "utf-8")
    found = problems(root)
    assert "import cycle between outbound <-> pace" in found, found
    assert any(p.startswith("outbound imports pace, a layer above it: pbem/outbound/reports.py:") for p in found), found
    assert any(p.startswith("extra: a unit not in LAYERS") for p in found), found


# -- SQL only in the store ----------------------------------------------------------------

# A statement as the store writes them (keywords in capitals): what a caller outside it must not write.
SQL = re.compile(r"\b(SELECT\b[\s\S]+?\bFROM|INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|"
                 r"CREATE\s+(?:UNIQUE\s+)?(?:TABLE|INDEX|VIEW)|DROP\s+(?:TABLE|INDEX)|ALTER\s+TABLE|PRAGMA\s+\w+)")
DB_CALLS = {"execute", "executemany", "executescript", "query", "cursor"}  # a connection's, or Store.query


def sql_outside_the_store(root: Path = PBEM) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] == "store" or "__pycache__" in rel.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value):
                found.append(f"pbem/{rel}:{node.lineno}: {SQL.search(node.value).group(0)[:40]!r}")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in DB_CALLS:
                found.append(f"pbem/{rel}:{node.lineno}: .{node.func.attr}(...)")
    return found


def test_sql_is_written_only_in_the_store():
    assert sql_outside_the_store() == []


@pytest.mark.parametrize("code", ['rows = svc.store.query("SELECT id FROM games")\n',
                                  'SQL = f"UPDATE players SET email = ? WHERE game = {g!r}"\n',
                                  'svc.store.conn.execute(text)\n'])
def test_the_sql_check_finds_a_statement_outside_the_store(tmp_path, code):
    (tmp_path / "outbound").mkdir()
    (tmp_path / "outbound" / "caller.py").write_text(code, "utf-8")
    assert sql_outside_the_store(tmp_path) != []


def module_cycles(root: Path = PBEM) -> list[list[str]]:
    """Circles between modules (not folders), a package's __init__ and its modules apart."""
    modules = {module_name(p, root) for p in root.rglob("*.py") if "__pycache__" not in p.parts}
    edges = set()
    for path in root.rglob("*.py"):
        if "__pycache__" not in path.parts:
            here = module_name(path, root)
            for name, _ in imports(path, root):  # a name imported from a module: that module
                there = next((m for m in (name, name.rpartition(".")[0]) if m in modules), None)
                if there is not None and there != here:
                    edges.add((here, there))
    return cycles(edges)


def test_no_module_imports_itself_round_a_circle():
    """Inside a folder too: the queue apart from the sending, who is told after moves above the
    reports, when a question is due below what its passing does (docs/architecture.md)."""
    assert module_cycles() == []

"""No wiring by import side effect (issue 32): importing a service module never sets a name in
another module (as `pbem/pace/__init__.py` once set `reports.pace_keys`, so that a report made
where pace had not been imported raised). What a lower layer needs from a higher one is handed
in by the caller (reports' `pace=`: pbem/pace/reported.py `part`)."""
from __future__ import annotations

import ast
from pathlib import Path

PBEM = Path(__file__).resolve().parent.parent / "pbem"


def _top_level(tree: ast.Module):
    """The statements run when the module is imported: not those in a function or a class."""
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                todo.extend(getattr(node, field, []))
        elif isinstance(node, ast.ExceptHandler):
            todo.extend(node.body)


def wiring(source: str) -> list[str]:
    """Each import-time statement that sets an attribute of an imported module, or calls
    setattr: "line: statement"."""
    tree = ast.parse(source)
    modules = {(a.asname or a.name).split(".")[0] for node in _top_level(tree)
               if isinstance(node, (ast.Import, ast.ImportFrom)) for a in node.names}
    found = []
    for node in _top_level(tree):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in targets:
            root = target
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if target is not root and isinstance(root, ast.Name) and root.id in modules:
                found.append(f"{node.lineno}: {ast.unparse(node)}")
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, ast.Name) and node.value.func.id == "setattr":
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return sorted(found, key=lambda line: int(line.split(':')[0]))


def test_no_service_module_sets_another_when_imported():
    found = {str(p.relative_to(PBEM.parent)): w for p in sorted(PBEM.rglob("*.py"))
             if (w := wiring(p.read_text("utf-8")))}
    assert found == {}


def test_the_check_sees_the_old_callback():
    old = "from pbem.outbound import reports\nfrom pbem.pace import standing\nreports.pace_keys = standing.keys\n"
    assert wiring(old) == ["3: reports.pace_keys = standing.keys"]
    assert wiring("import x\nif True:\n    x.table['k'] = 1\nsetattr(x, 'y', 2)\n") == ["3: x.table['k'] = 1",
                                                                               "4: setattr(x, 'y', 2)"]
    assert wiring("import x\ny = x.z\n\ndef f():\n    x.y = 1\n") == []  # reading, or at call time: not wiring

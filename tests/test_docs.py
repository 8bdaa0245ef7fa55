"""The project's documents are self-contained: no document points outside the repository, and
every relative link names a file that is in it."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "deploy").iterdir())]


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_document_points_outside_the_repository(path):
    text = path.read_text()
    assert "DESIGN.md" not in text and "../shared" not in text
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if not re.match(r"[a-z]+:", target):  # not a URL
            assert (path.parent / target).resolve().is_relative_to(ROOT), target
            assert (path.parent / target).exists(), f"{path.name}: {target} does not exist"


def test_the_contracts_the_readme_relies_on_are_in_docs():
    readme = (ROOT / "README.md").read_text()
    for doc in ("game-config.md", "scenarios.md", "summary.md", "orders.md"):
        assert f"docs/{doc}" in readme and (ROOT / "docs" / doc).is_file()

"""The content schema is the engine's (engine/schema.py) and the package's own content keeps it
(issue 32): every file and every key of engine/content/ is one the loader or the rules read, with
the declared packs' own properties and tables; a key nothing reads is refused."""
from pathlib import Path

from engine import registry, schema
from engine.packs.base import Pack

CONTENT = Path(__file__).resolve().parent.parent / "engine" / "content"
PACKS = [registry.BASE, *registry.PACKS]


def package() -> dict[str, str]:
    return {p.relative_to(CONTENT).as_posix(): p.read_text("utf-8") for p in sorted(CONTENT.rglob("*.toml"))}


def test_the_packages_own_content_keeps_the_schema():
    files = package()
    assert len(files) > 40 and {f.split("/")[0] for f in files} == {p.name for p in PACKS}
    assert schema.problems(files, PACKS) == []  # every pack file is a deck or a board: nothing is exempt


def test_a_key_nothing_reads_is_refused():
    """As warlock.toml's `on_complete` was: data that seemed to decide a rule the code decides."""
    files = package()
    files["revised4/warlock.toml"] = 'on_complete = [{ op = "talisman" }]\n' + files["revised4/warlock.toml"]
    files["cataclysm/remnants.toml"] = files["cataclysm/remnants.toml"].replace(
        "[[card]]\n", "[[card]]\nshimmer = 2\n", 1)
    found = schema.problems(files, PACKS)
    assert any(p.startswith("revised4/warlock.toml: `on_complete` is not read from this file") for p in found), found
    assert any("unknown field `shimmer`" in p and p.startswith("cataclysm/remnants.toml:") for p in found), found


def test_a_packs_own_properties_and_tables_come_from_its_declaration():
    """The Sea Voyage's `ship` property and its [voyage] table pass because the pack declares them;
    without the pack's declaration they do not."""
    files = {path: text for path, text in package().items() if path.startswith("sea-voyage/")}
    assert schema.problems(files, PACKS) == []
    others = [p for p in PACKS if p.name != "sea-voyage"]

    class Bare(Pack):  # the Sea Voyage declaring nothing of its own
        name = "sea-voyage"

    found = schema.problems(files, [*others, Bare()])
    assert any("`voyage` is not read from this file" in p for p in found), found
    assert any("unknown field `ship`" in p or "unknown field `ship_strength`" in p for p in found), found

"""The project's documents are self-contained and true: no document points outside the
repository, every relative link names a file that is in it, the README's packs are the engine's
and its command list is `pbem --help`, and no document or comment names a file, a module or a
`pbem` command that does not exist (issue 26)."""
import fnmatch
import importlib
import io
import itertools
import re
import tokenize
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


# -- the README's packs are the engine's (issue 26) ------------------------------------------

def _section(text: str, heading: str) -> str:
    return text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


def _pack_bullets() -> dict[str, str]:
    """The README's list of packs: {config id: its bullet}; a bullet's pack is the first
    `"id"` it names."""
    rules = _section((ROOT / "README.md").read_text(), "## The rules")
    bullets = re.findall(r"^- (\*\*.*?)(?=^- |^\n|\Z)", rules, re.M | re.S)
    return {re.search(r'`"([a-z][\w-]*)"`', b).group(1): " ".join(b.split()) for b in bullets}


def test_the_readmes_pack_list_is_the_engines():
    from engine.registry import PACKS
    bullets = _pack_bullets()
    assert set(bullets) == {p.name for p in PACKS}, "README's packs (## The rules) differ from engine/registry.py PACKS"
    for pack in PACKS:
        text = bullets[pack.name]
        assert f"**{pack.title.split(' (')[0]}" in text, f"README: the {pack.name} bullet does not name {pack.title!r}"
        for other in pack.requires:
            assert f'`"{other}"`' in text, f"README: {pack.name} needs {other}, and its bullet does not say so"
        for edition in pack.editions if pack.editions != ("revised4",) else ():
            assert f'edition = "{edition}"' in text, f"README: {pack.name} is played with {edition}"


def test_each_pack_is_as_its_rules_decisions_section_says():
    """Each pack has its section in docs/rules-decisions.md; one there on a stand-in board is on
    one in the README too; and the README says nothing is missing (a pack's "Not done" is
    there, in the section it is kept true with, not in a summary that goes stale)."""
    headings = re.findall(r"^## (.*)$", (ROOT / "docs" / "rules-decisions.md").read_text(), re.M)
    for pack, text in _pack_bullets().items():  # a pack's section: its heading's last pack
        [heading] = [h for h in headings if re.search(rf'packs = \[(?:"[\w-]+", )*"{pack}"\]', h)]
        if "stand-in" in heading:
            assert "stand-in" in text, f"README: {pack} is on a stand-in board ({heading})"
    rules = _section((ROOT / "README.md").read_text(), "## The rules")
    assert not re.search(r"\bnot (yet|built)\b|\bno \w+ yet\b", rules), "README: say what is missing in rules-decisions"


# -- names in documents and comments name what exists (issue 26) -----------------------------

SOURCES = sorted(p for folder in ("engine", "pbem", "tests", "bench", "tools") for p in (ROOT / folder).rglob("*.py")
                 if ".mutation" not in p.parts)
# data and templates: their comments (the texts in them name no file)
DATA = sorted([*(ROOT / "engine" / "content").rglob("*.toml"), *(ROOT / "templates").rglob("*.j2")])
TOP = ("engine", "pbem", "tests", "bench", "docs", "deploy", "tools", "templates", ".ci")
PATH = re.compile(r"(?<![\w./~$-])((?:" + "|".join(map(re.escape, TOP)) + r")/[\w./*<>{}-]*[\w/*>}])")
# Files a text names that are not in the repository, on purpose: each with why.
EXAMPLES = {
    "engine/packs/house_rules.py": "docs/contributing.md's worked example of a new pack",
    "engine/content/house-rules/": "the same example's content folder",
    "tests/scenarios/new.toml": "bench/mutation.py's example of an overlay a moderator writes",
}


def _generated(path: str) -> bool:
    """Made by a build or a bench (.gitignore names it, or a folder it is in), not kept."""
    patterns = [ln.strip().rstrip("/") for ln in (ROOT / ".gitignore").read_text().splitlines()
                if ln.strip() and not ln.startswith("#")]
    parts = path.rstrip("/").split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    return any(fnmatch.fnmatch(x, p) for p in patterns for x in prefixes + parts)


def _comments_and_strings(path: Path) -> str:
    """A Python file's comments and string literals (docstrings among them): its prose."""
    return "\n".join(t.string for t in tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
                     if t.type in (tokenize.COMMENT, tokenize.STRING))


def _texts() -> list[tuple[Path, str]]:
    return [(p, p.read_text()) for p in (*DOCUMENTS, *DATA)] + [(p, _comments_and_strings(p)) for p in SOURCES]


def _missing_file(name: str) -> bool:
    if "<" in name or "{" in name or name in EXAMPLES or _generated(name):
        return False
    if "*" in name:
        return not list(ROOT.glob(name))
    return not (ROOT / name).exists()


def test_every_file_a_document_or_a_comment_names_exists():
    missing = [f"{path.relative_to(ROOT)}: {name}" for path, text in _texts()
               for name in dict.fromkeys(PATH.findall(text)) if _missing_file(name)]
    assert not missing, "named but not in the repository:\n" + "\n".join(missing)


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_every_module_and_name_a_document_names_exists():
    """`engine.api.ENGINE_VERSION`, `pbem.outbound.notices`: a module, and a name in it."""
    dotted = re.compile(r"(?<![\w./-])((?:engine|pbem)(?:\.[A-Za-z_]\w*)+)")
    files = (".db", ".toml", ".service", ".py", ".md", ".json", ".key", ".cf", ".conf")
    missing = [f"{path.relative_to(ROOT)}: {name}" for path in DOCUMENTS for name in
               dict.fromkeys(dotted.findall(path.read_text())) if not name.endswith(files) and not _resolves(name)]
    assert not missing, "named but not found:\n" + "\n".join(missing)


def _commands(path: Path, text: str) -> list[str]:
    """The `pbem ...` command lines a text names: in backticks; in a document's code blocks,
    lines that run pbem."""
    found = re.findall(r"`(pbem(?: [^`\n]*)?)`", text)
    if path.suffix == ".md":
        for block in re.findall(r"```[^\n]*\n(.*?)```", text, re.S):
            found += re.findall(r"(?:^\s*(?:\$ )?|bin/)(pbem(?: +[^\s#|;&)]+)*)", block, re.M)
    elif path in DOCUMENTS:  # a unit file, a Containerfile, an MTA's config: where pbem is run
        found += re.findall(r"bin/(pbem(?: +[^\s#|;&)\"']+)*)", text)
    return found


def _unknown_command(line: str) -> str | None:
    """What of `pbem ...` names no command (None: it is one, or the line names none)."""
    import click

    from pbem.cli import main
    words = line.split()[1:]
    while words and words[0].startswith("-"):  # the root's options: --home DIR, --version
        words = words[2:] if words[0] == "--home" else words[1:]
    cmd, path = main, ["pbem"]
    for word in words:
        if not isinstance(cmd, click.Group) or not re.fullmatch(r"[a-z][a-z-]*", word):
            break
        if word not in cmd.commands:
            return " ".join(path + [word])
        cmd, path = cmd.commands[word], path + [word]
    return None


def test_every_pbem_command_a_document_or_a_comment_names_exists():
    unknown = [f"{path.relative_to(ROOT)}: {bad}" for path, text in _texts() for line in _commands(path, text)
               if (bad := _unknown_command(line))]
    assert not unknown, "no such command:\n" + "\n".join(unknown)


def _leaves(group, path=()):
    import click
    for name, cmd in group.commands.items():
        if isinstance(cmd, click.Group):
            yield from _leaves(cmd, path + (name,))
        else:
            yield path + (name,), cmd


def test_the_readmes_command_list_is_pbem_help():
    """Every command and subcommand of `pbem --help` is in the README's list, the list names
    no other, and each option it shows is the command's."""
    from pbem.cli import main
    block = _section((ROOT / "README.md").read_text(), "## The command line").split("```")[1]
    listed: dict[tuple[str, ...], str] = {}
    for line in block.splitlines()[1:]:
        if not re.match(r"  [a-z]", line):  # the root's options, and wrapped descriptions
            continue
        usage = re.split(r"\s{2,}", line.strip())[0]
        path = tuple(itertools.takewhile(lambda w: re.fullmatch(r"[a-z][a-z-]*", w), usage.split()))
        listed[path] = usage
        for other in re.findall(r"\| ([a-z][a-z-]*)\b", usage):  # outbox list … | retry
            listed[path[:-1] + (other,)] = ""
    real = dict(_leaves(main))
    assert sorted(set(real) - set(listed)) == [], "in `pbem --help`, not in the README's list"
    assert sorted(set(listed) - set(real)) == [], "in the README's list, not in `pbem --help`"
    for path, usage in listed.items():
        opts = {o for p in real[path].params for o in (*getattr(p, "opts", ()), *getattr(p, "secondary_opts", ()))}
        wrong = [o for o in re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", usage) if o not in opts | {"-h", "--help"}]
        assert not wrong, f"README: `pbem {' '.join(path)}` has no option {wrong}"


def _settings_keys() -> set[str]:
    import msgspec

    from pbem.base import configkeys
    from pbem.base.settings import Settings
    keys = set()
    for f in msgspec.structs.fields(Settings):
        inner = configkeys.struct_of(f.type)
        keys |= {f"{f.name}.{g.name}" for g in msgspec.structs.fields(inner)} if inner else {f.name}
    return keys - {"home"}  # the folder the file is in, never a key


def test_deploy_pbem_toml_and_the_readme_show_every_setting_and_no_other():
    """deploy/pbem.toml shows every key (commented or not) and the README's Configuration table
    names each: a key added or renamed in pbem/base/settings.py shows in both."""
    keys, shown, table = _settings_keys(), set(), set()
    section = ""
    for line in (ROOT / "deploy" / "pbem.toml").read_text().splitlines():
        head = re.match(r"#?\s*\[(\w+)\]\s*$", line)
        if head:
            section = "" if head.group(1) == "service" else head.group(1) + "."
        elif key := re.match(r"#?\s*(\w+)\s*=", line):
            shown.add(section + key.group(1))
    assert shown == keys, f"deploy/pbem.toml: missing {sorted(keys - shown)}, unknown {sorted(shown - keys)}"
    rows = _section((ROOT / "README.md").read_text(), "## Configuration")
    for row in re.findall(r"^\| (.*?) \|", rows, re.M):
        names = re.findall(r"`\[?([\w/]+)\]?`", row)
        table |= {f"{names[0]}.{n}" for n in names[1:]} if row.startswith("`[") else set(names)
    assert not keys - table, f"README's Configuration table does not name {sorted(keys - table)}"

"""The moderator's content folder (docs/content.md): TOML files laid out as engine/content/,
merged over the package's by engine/content.py. Here: reading the folder, checking it
against the content schema (`pbem rules check`), and the fingerprint a game records."""
from __future__ import annotations

import hashlib
import tomllib
from importlib import resources
from pathlib import Path

import msgspec

from engine import content, registry, schema
from pbem.base import settings as settings_mod
from pbem.base.settings import Settings, SettingsError

# The schema itself is the engine's (engine/schema.py): here, a folder is read, checked against it
# with every listed pack's declaration, and against what the loader refuses.
BASE = schema.BASE


def read(folder: str | Path) -> dict[str, str]:
    """The folder's TOML files as {"pack/file.toml": text}."""
    root = Path(folder)
    return {p.relative_to(root).as_posix(): p.read_text("utf-8") for p in sorted(root.rglob("*.toml"))}


def fingerprint(files: dict[str, str]) -> dict[str, str]:
    """Each overriding file's SHA-256, by path: what a game records beside its content hash."""
    return {path: hashlib.sha256(text.encode()).hexdigest() for path, text in sorted(files.items())}


def install(files: dict[str, str]) -> None:
    """Hand the files to the engine: every later content load reads them over the package."""
    content.use_overlay(files)


def use(settings: Settings) -> None:
    """The engine reads the home's `content` folder over the package's from now on (none: the
    package alone, and another home's overlay in this process goes); a broken folder is
    refused. Called where a service opens (pbem/core/service.py) and by `pbem rules coverage`."""
    folder = settings.content_path
    if folder is None:
        install({})
        return
    files = read(folder)
    wrong = problems(files)
    if wrong:
        raise SettingsError(f"{settings_mod.config_path(settings.home)}: content {folder}: " + "; ".join(wrong)
                            + " (pbem rules check)")
    install(files)


def _packaged() -> set[str]:
    """The paths of the package's own content files ("<pack>/<file>.toml")."""
    root = resources.files("engine").joinpath("content")
    return {f"{d.name}/{f.name}" for d in root.iterdir() if d.is_dir() for f in d.iterdir() if f.name.endswith(".toml")}


def problems(files: dict[str, str]) -> list[str]:
    """Every problem of an overlay, one message each: where (file:line), which field, what is allowed."""
    return schema.problems(files, [registry.BASE, *registry.PACKS], _packaged()) or _load_problems(files)


def _load_problems(files: dict[str, str]) -> list[str]:
    """What the loader itself refuses, the overlay in place, for every pack the overlay touches."""
    touched = {path.split("/", 1)[0] for path in files}
    mixes: list[tuple[str, ...]] = [()] + [(p.name,) for p in registry.PACKS if p.playable and p.name in touched]
    previous = content.use_overlay(files)
    try:
        out = []
        for mix in mixes:
            try:
                content.load(BASE, mix)
            except (KeyError, TypeError, ValueError, msgspec.ValidationError) as e:
                out.append(f"{' '.join(sorted(touched))}: with {mix[0] if mix else 'the base game'}: "
                           f"the loader refuses it: {type(e).__name__}: {e}")
        return out
    finally:
        content.use_overlay(previous)


def summary(files: dict[str, str]) -> str:
    rows = sum(len(v) for text in files.values() for k, v in tomllib.loads(text).items()
               if k in schema.ROW_TABLES and isinstance(v, list))
    return f"{len(files)} content files, {rows} rows: ok"

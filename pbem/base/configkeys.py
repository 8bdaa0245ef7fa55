"""Unknown keys in a config table are errors that name the key and the nearest known one
(`pack`: did you mean `packs`?): a typo must not quietly play a game without its pack."""
from __future__ import annotations

import difflib
import typing
from collections.abc import Iterable

import msgspec


def problems(table: dict, known: Iterable[str], where: str) -> list[str]:
    """One message per key of `table` not in `known`, in the table's order."""
    known = sorted(known)
    out = []
    for key in table:
        if key in known:
            continue
        near = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
        hint = f"did you mean `{near[0]}`?" if near else f"known: {', '.join(known)}"
        out.append(f"{where}: unknown key `{key}`: {hint}")
    return out


def struct_problems(data: dict, struct: type, where: str) -> list[str]:
    """`problems` for a table read into a msgspec Struct, and for each table inside it that is
    read into a Struct in turn: the known keys are the Struct's own fields, so a field added
    later is known without a list to keep up to date."""
    fields = {f.encode_name: f for f in msgspec.structs.fields(struct)}
    out = problems(data, fields, where)
    for name, value in data.items():
        inner = struct_of(fields[name].type) if name in fields else None
        if inner is not None and isinstance(value, dict):
            out += struct_problems(value, inner, f"[{name}]")
    return out


def struct_of(tp) -> type | None:
    for t in (tp, *typing.get_args(tp)):
        if isinstance(t, type) and issubclass(t, msgspec.Struct):
            return t
    return None

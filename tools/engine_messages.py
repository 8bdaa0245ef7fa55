"""A one-off codemod: the engine's texts as messages (engine/text.py).

Each literal text handed to `ctx.emit(kind, TEXT)`, `ctx.ask(who, kind, TEXT, ...)`,
`ctx.ask_moderator(i, TEXT)`, `Option(key, TEXT)` and the helpers that ask (`offer_reroll`,
`choose_character`) (an f-string, a string, several of them
side by side, or either branch of `a if c else b`) becomes `msg("pattern {name}", name=expr)`:
the f-string's expressions become named arguments, the pattern the message id; `Option(...)`
becomes `option(...)`. The English text the engine keeps is the pattern formatted with the
arguments: the same characters as the f-string made (tests/test_scenarios.py compares them).

    python tools/engine_messages.py engine/rules/movement.py ...   # rewrites the files in place

It prints what it left (a text it cannot see as a literal: a variable, a call) by file and line.
Needs libcst (`pip install libcst`): a tool of the one-off conversion, not of the service.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import MetadataWrapper, PositionProvider

# call -> the position of its text argument
TEXT_ARG = {"emit": 1, "ask": 2, "ask_moderator": 1, "Option": 1, "offer_reroll": 2, "choose_character": 3}
FUNCTIONS = {"Option", "offer_reroll", "choose_character"}  # called by name; the others are Ctx's methods
PLAYERS = {"p", "player", "me", "other", "target", "victim", "q", "pl", "hero", "them", "him", "mover", "rival",
           "opponent", "attacker", "defender", "winner", "loser", "a", "b"}
CARDS = {"c", "card", "cd", "obj", "item", "spell", "f", "follower", "foe", "enemy", "monster", "o", "thing",
         "companion", "boon", "action", "remnant", "denizen", "terrain", "sp"}


class Unconvertible(Exception):
    pass


def _name_of(expr: cst.BaseExpression, code: str) -> str:
    """A placeholder's name, said from its expression."""
    if isinstance(expr, cst.Name):
        return {"who": "player", "_": "value"}.get(expr.value, expr.value)
    if isinstance(expr, cst.Attribute):
        attr = expr.attr.value
        if attr == "name":
            base = expr.value
            base_code = code[: -len(".name")]
            if "space(" in base_code or "spaces[" in base_code:
                return "space"
            if "character" in base_code:
                return "character"
            if "cards[" in base_code or "card(" in base_code:
                return "card"
            if isinstance(base, cst.Name):
                if base.value in PLAYERS:
                    return "player"
                if base.value in CARDS:
                    return "card"
                return base.value
            return "name"
        return attr
    if isinstance(expr, cst.Call):
        func = expr.func
        fname = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if fname == "name":
            return "player"
        if fname in ("title", "capitalize", "lower", "upper") and isinstance(func, cst.Attribute):
            return _name_of(func.value, code)
        if fname in ("str", "abs", "int") and expr.args:
            return _name_of(expr.args[0].value, code)
        if fname == "len":
            return "count"
        if fname in ("listing", "join"):
            return "names"
        if fname == "space":
            return "space"
        return fname or "value"
    if isinstance(expr, cst.Subscript):
        return _name_of(expr.value, code)
    return "value"


def _parts(node: cst.BaseExpression) -> list[tuple[cst.BaseExpression, str]]:
    """The strings side by side in `node`, each with the whitespace after it."""
    if isinstance(node, cst.ConcatenatedString):
        ws = node.whitespace_between
        between = cst.Module([]).code_for_node(ws) if ws else ""
        left = _parts(node.left)
        left[-1] = (left[-1][0], between)
        return left + _parts(node.right)
    if isinstance(node, (cst.SimpleString, cst.FormattedString)):
        return [(node, "")]
    raise Unconvertible(type(node).__name__)


def _quote(start: str) -> str:
    """The quote of an f-string's start (`f"`, `f'''`)."""
    prefix = start.rstrip("\"'")
    if "r" in prefix.lower():
        raise Unconvertible("raw string")
    return start[len(prefix):]


def convert(node: cst.BaseExpression, module: cst.Module) -> cst.BaseExpression:
    """`msg(...)` for a literal text (raises Unconvertible for anything else)."""
    if isinstance(node, cst.IfExp):
        return node.with_changes(body=convert(node.body, module), orelse=convert(node.orelse, module))
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "msg":
        raise Unconvertible("already a message")
    parts = _parts(node)
    args: dict[str, str] = {}  # name -> expression code
    by_code: dict[str, str] = {}
    pieces: list[tuple[str, str, list[str]]] = []  # (quote, body, whitespace after)
    has_args = any(isinstance(p, cst.FormattedString) and any(isinstance(x, cst.FormattedStringExpression)
                                                             for x in p.parts) for p, _ in parts)
    for p, after in parts:
        if isinstance(p, cst.SimpleString):
            raw = p.value
            prefix = raw[: len(raw) - len(raw.lstrip("bBuUrRfF"))]
            if set(prefix.lower()) & {"r", "b"}:
                raise Unconvertible("raw string")
            rest = raw[len(prefix):]
            q = rest[:3] if rest[:3] in ('"""', "'''") else rest[0]
            body = rest[len(q):-len(q)]
            if has_args:
                body = body.replace("{", "{{").replace("}", "}}")
            pieces.append((q, body, after))
            continue
        assert isinstance(p, cst.FormattedString)
        q = _quote(p.start)
        body = ""
        for x in p.parts:
            if isinstance(x, cst.FormattedStringText):
                body += x.value
                continue
            code = module.code_for_node(x.expression)
            name = by_code.get(code)
            if name is None:
                base = _name_of(x.expression, code)
                if not re.fullmatch(r"[A-Za-z_]\w*", base):
                    base = "value"
                name, n = base, 2
                while name in args:
                    name, n = f"{base}{n}", n + 1
                args[name] = code
                by_code[code] = name
            spec = ""
            if x.conversion:
                spec += "!" + x.conversion
            if x.format_spec:
                inner = "".join(t.value if isinstance(t, cst.FormattedStringText) else "\0" for t in x.format_spec)
                if "\0" in inner:
                    raise Unconvertible("a format spec with an expression")
                spec += ":" + inner
            body += "{" + name + spec + "}"
        if not has_args and ("{{" in body or "}}" in body):
            raise Unconvertible("braces in a text without values")
        pieces.append((q, body, after))
    literal = "".join(f"{q}{body}{q}{after}" for q, body, after in pieces)
    kwargs = "".join(f", {k}={v}" for k, v in args.items())
    return cst.parse_expression(f"msg({literal}{kwargs})")


class Messages(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: cst.Module, path: str, wrapper: MetadataWrapper):
        super().__init__()
        self.module, self.path, self.wrapper = module, path, wrapper
        self.converted = 0
        self.left: list[str] = []
        self.options = False

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = updated.func
        fname = (func.attr.value if isinstance(func, cst.Attribute)
                 else func.value if isinstance(func, cst.Name) else None)
        if fname not in TEXT_ARG or isinstance(func, cst.Name) != (fname in FUNCTIONS):
            return updated
        at = TEXT_ARG[fname]
        positional = [a for a in updated.args if a.keyword is None and not a.star]
        if len(positional) <= at:
            return updated
        arg = positional[at]
        try:
            new = convert(arg.value, self.module)
        except Unconvertible as e:
            if str(e) != "already a message":
                line = self.get_metadata(PositionProvider, original).start.line
                self.left.append(f"{self.path}:{line}: {fname}: {e}")
            return updated
        self.converted += 1
        args = [a.with_changes(value=new) if a is arg else a for a in updated.args]
        updated = updated.with_changes(args=args)
        if fname == "Option":
            self.options = True
            updated = updated.with_changes(func=cst.Name("option"))
        return updated


def rewrite(path: Path) -> tuple[int, list[str]]:
    source = path.read_text()
    module = cst.parse_module(source)
    wrapper = MetadataWrapper(module)
    t = Messages(wrapper.module, str(path), wrapper)
    new = wrapper.visit(t)
    if t.converted:
        ctx = CodemodContext()
        AddImportsVisitor.add_needed_import(ctx, "engine.text", "msg")
        if t.options:
            AddImportsVisitor.add_needed_import(ctx, "engine.state", "option")
        new = AddImportsVisitor(ctx).transform_module(new)
        path.write_text(new.code)
    return t.converted, t.left


WIDTH = 120


def _break(line: str) -> list[str]:
    """A line too long broken after its last comma that fits, the rest aligned under the
    bracket that comma is in (the house style of the engine's calls)."""
    out = []
    while len(line) > WIDTH:
        opens: list[int] = []
        best: tuple[int, int, int] | None = None
        quote = ""
        i = 0
        while i < len(line) and i < WIDTH:
            ch = line[i]
            if quote:
                if ch == "\\":
                    i += 1
                elif line.startswith(quote, i):
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif ch in "([{":
                opens.append(i)
            elif ch in ")]}" and opens:
                opens.pop()
            elif ch == "," and i + 1 < WIDTH and (best is None or len(opens) <= best[2]):
                # the outermost bracket's last comma that fits (none open on this line: a line that
                # goes on a call begun above, aligned as it is)
                best = (i, opens[-1] if opens else len(line) - len(line.lstrip()) - 1, len(opens))
            i += 1
        if best is None:
            break
        at, bracket, _depth = best
        out.append(line[: at + 1])
        line = " " * (bracket + 1) + line[at + 1:].lstrip()
    return [*out, line]


def wrap(path: Path) -> None:
    lines = path.read_text().split("\n")
    path.write_text("\n".join(part for line in lines for part in (_break(line) if len(line) > WIDTH else [line])))


def main(paths: list[str]) -> None:
    total, left = 0, []
    for p in paths:
        n, rest = rewrite(Path(p))
        total += n
        left += rest
        wrap(Path(p))
    for line in left:
        print("left:", line)
    print(f"converted {total} texts; left {len(left)}")


if __name__ == "__main__":
    main(sys.argv[1:])

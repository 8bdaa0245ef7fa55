"""Rendering mails: when a mail is sent, its context (stored by pbem/outbound/reports.py) becomes text.

Each mail is a pair of Jinja2 templates, `<name>.txt.j2` and `<name>.html.j2`, rendered
from one context; autoescape is on for HTML and off for text, and a missing value is an
error (StrictUndefined). Text players wrote is only ever a value, never a template.

A mail is queued as its context, not its text (pbem/outbound/outbox.py renders a row when it sends
it): a move's processing then costs no rendering, which was most of what it cost, and the
reports of one state, sent one after another, share what they show alike -- the board part
is rendered for the first of them and found in the fragment cache by the others.
"""
from __future__ import annotations

import functools
import importlib.resources
import types
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import jinja2
import msgspec
from jinja2 import filters as jinja_filters, nodes
from jinja2.compiler import CodeGenerator, optimizeconst
from jinja2.filters import do_wordwrap
from jinja2.visitor import NodeTransformer
from markupsafe import Markup, escape

try:  # markupsafe 3's own escaping of a str, without the Markup around it (a private name: hence the fallbacks)
    from markupsafe._speedups import _escape_inner
except ImportError:  # markupsafe without its C part
    try:
        from markupsafe._native import _escape_inner
    except ImportError:  # another markupsafe: its public escape (a Markup each, the same text)
        _escape_inner = escape

from engine import content
from pbem.base import boardmap, engine_text, i18n, printed_names

if TYPE_CHECKING:
    from pbem.core.service import Service


GETTEXT_FILTER = "pbem_gettext"  # `_(value)` compiled as `value|pbem_gettext` (_Translated)


class _Translated(NodeTransformer):
    """`_("text")` and `gettext("text")` with a constant text (a `{% trans %}` block too) as the
    translation itself, put in when the template is compiled: each language has an Environment
    of its own, so a template's constant texts are known then. What runs is what `_gettext`
    gives (Markup where the template autoescapes, `% variables` escaping them there); a call
    through Jinja's context for each text was a tenth of what a report cost to render."""

    def __init__(self, lookup: Callable[[str], str], by_filter: bool = False):
        self.lookup, self.by_filter = lookup, by_filter

    def visit_Call(self, call: nodes.Call) -> nodes.Node:
        node = self.generic_visit(call)
        if not (isinstance(node, nodes.Call) and isinstance(node.node, nodes.Name)
                and node.node.name in ("_", "gettext") and len(node.args) == 1
                and node.dyn_args is None and node.dyn_kwargs is None):
            return node
        if not (isinstance(node.args[0], nodes.Const) and isinstance(node.args[0].value, str)):
            # `_(p.space|named)`: the same gettext, called as a filter (directly, not through
            # Jinja's context.call, which looks at what it calls each time)
            if self.by_filter and not node.kwargs:
                return nodes.Filter(node.args[0], GETTEXT_FILTER, [], [], None, None, lineno=node.lineno)
            return node
        text = self.lookup(node.args[0].value)
        if not node.kwargs:
            return nodes.MarkSafeIfAutoescape(nodes.Const(text % {}), lineno=node.lineno)
        values = nodes.Dict([nodes.Pair(nodes.Const(k.key), k.value, lineno=k.lineno) for k in node.kwargs],
                            lineno=node.lineno)
        return nodes.Mod(nodes.MarkSafeIfAutoescape(nodes.Const(text)), values, lineno=node.lineno)


def _escaped(s: Any) -> str:
    """markupsafe's `escape` for a value an autoescaped template outputs, as the text it joins
    into the page: a str escaped in C, a Markup and an int as they are. Each output is
    joined into a str (or a `{% set %}` block's Markup) at once, so the Markup that `escape`
    wraps every value in (a Python constructor: a tenth of a report's HTML) is never seen."""
    cls = type(s)
    if cls is str:
        return _escape_inner(s)
    if cls is Markup:
        return s
    if cls is int:
        return str(s)
    return escape(s)


class _Generator(CodeGenerator):
    """Jinja's code with two calls a report makes hundreds of times made cheaper, the same
    text out: an output escaped by `_escaped`, and `x.name` on a dict read as its key in
    place (what `_Environment.getattr` does, without the call), else as Jinja reads it."""

    def _output_child_pre(self, node, frame, finalize) -> None:
        if frame.eval_ctx.volatile or not frame.eval_ctx.autoescape:
            return super()._output_child_pre(node, frame, finalize)
        self.write("escaped(")
        if finalize.src is not None:
            self.write(finalize.src)

    @optimizeconst
    def visit_Getattr(self, node, frame) -> None:
        # g_o: a local of the generated function, assigned before it is read in each branch
        self.write(f"(g_o[{node.attr!r}] if type(g_o := ")
        self.visit(node.node, frame)
        self.write(f") is dict and {node.attr!r} in g_o else environment.getattr(g_o, {node.attr!r}))")


    @optimizeconst
    def visit_Call(self, node, frame, forward_caller: bool = False) -> None:
        """`x.get(k)`, `v.split("/")`: a built-in method (of the context's plain data) called
        directly; Jinja's `context.call` looks at each callee for what to pass it, and a
        built-in takes nothing but its arguments. Anything else goes through `context.call`
        as Jinja writes it (g_f: a local, assigned before either branch reads it)."""
        if forward_caller or self.environment.is_async or self.environment.sandboxed:
            return super().visit_Call(node, frame, forward_caller=forward_caller)
        self.write("(g_f(*()")
        self.signature(node, frame)
        self.write(") if type(g_f := ")
        self.visit(node.node, frame)
        self.write(") is builtin_method else context.call(g_f")
        extra = {**({"_loop_vars": "_loop_vars"} if frame.loop_frame else {}),
                 **({"_block_vars": "_block_vars"} if frame.block_frame else {})}
        self.signature(node, frame, extra or None)
        self.write("))")


class _Template(jinja2.Template):
    @classmethod
    def from_code(cls, environment, code, globals, uptodate=None):
        """Jinja's, with `_escaped` in the compiled module's names."""
        namespace = {"environment": environment, "__file__": code.co_filename, "escaped": _escaped,
                     "builtin_method": types.BuiltinMethodType}
        exec(code, namespace)
        rv = cls._from_namespace(environment, namespace, globals)
        rv._uptodate = uptodate
        return rv


class _Inlined(NodeTransformer):
    """`{% include "NAME" %}` as NAME's own statements in place, when the template is compiled:
    each include looked NAME up and made a context of its own at every render (a report
    includes two or three). NAME is read through the Environment's loader, as the include
    would have read it, so an operator's override of NAME is what is put in. Its statements go
    in a scope of their own, so what NAME sets stays in NAME, as with an include. Left as an
    include: a name made at render, an `ignore missing`, one without context, one escaped
    otherwise than its includer, and one with blocks, macros, imports or extends (whose meaning
    depends on the template they are in), or that includes itself; and an include within a loop,
    a macro or a call block (an include sees neither `loop` nor a macro's `caller`)."""

    def __init__(self, env: _Environment, name: str | None, within: tuple[str, ...]):
        self.env, self.name, self.within, self.nested = env, name, within, 0

    def _nesting(self, node: nodes.Node) -> nodes.Node:
        self.nested += 1
        try:
            return self.generic_visit(node)
        finally:
            self.nested -= 1

    visit_For = visit_Macro = visit_CallBlock = _nesting

    def _escapes(self, name: str | None) -> bool:
        auto = self.env.autoescape
        return bool(auto(name) if callable(auto) else auto)

    def visit_Include(self, node: nodes.Include) -> nodes.Node:
        target = node.template
        if not (isinstance(target, nodes.Const) and isinstance(target.value, str) and node.with_context
                and not node.ignore_missing and not self.nested):
            return node
        name = self.env.join_path(target.value, self.name) if self.name else target.value
        if name in self.within or self._escapes(name) != self._escapes(self.name):
            return node
        try:
            source, filename, _ = self.env.loader.get_source(self.env, name)  # type: ignore[union-attr]
            tree = self.env._parse(source, name, filename, (*self.within, name))
        except (jinja2.TemplateNotFound, jinja2.TemplateSyntaxError):
            return node  # an include that fails only when it is reached, as it did (an `{% if %}` may skip it)
        if any(tree.find_all((nodes.Extends, nodes.Block, nodes.Macro, nodes.Import, nodes.FromImport))):
            return node
        return nodes.Scope(tree.body, lineno=node.lineno)


def own_code(jinja_version: str) -> bool:
    """Whether the templates compile to `_Generator`'s code under this Jinja: its hooks are Jinja
    3.1's private methods (and `_Template` its private `_from_namespace`), so under another
    Jinja a pip install may bring, they compile to Jinja's own code: slower, the same text
    (tests/test_render_codegen.py compares the two), rather than every mail failing."""
    return jinja_version.split(".")[:2] == ["3", "1"]


_OWN_CODE = own_code(getattr(jinja2, "__version__", ""))


class _Environment(jinja2.Environment):
    translated: _Translated | None = None  # set per language (Templates.environment)
    code_generator_class = _Generator if _OWN_CODE else CodeGenerator
    template_class = _Template if _OWN_CODE else jinja2.Template

    def _parse(self, source: str, name: str | None, filename: str | None,
               within: tuple[str, ...] = ()) -> nodes.Template:
        tree = super()._parse(source, name, filename)
        if self.translated is not None:
            tree = self.translated.visit(tree)
        if self.loader is None:  # a template from a string alone: nothing to read an include from
            return tree
        return _Inlined(self, name, within or ((name,) if name else ())).visit(tree)

    def make_globals(self, d):
        """A template's globals as one dict, not Jinja's ChainMap over the Environment's: every
        render and include copied them through ChainMap's lookups in Python (17 us a render, four
        or more a mail). The Environment's globals are all set before its first template is
        loaded (Templates.environment), so a copy misses nothing."""
        return {**self.globals, **(d or {})}

    def getattr(self, obj, attribute):
        """`p.name` on a dict: the key first. Jinja tries the attribute first, and the
        AttributeError it catches each time was most of what a report cost to render."""
        if type(obj) is dict and attribute in obj:
            return obj[attribute]
        return super().getattr(obj, attribute)


@functools.lru_cache(maxsize=8192)
def _wrapped(env: jinja2.Environment, s: str, width: int, break_long_words: bool, wrapstring: str | None,
             break_on_hyphens: bool) -> str:
    lines = s.splitlines()
    # a line that fits and does not end in whitespace is what textwrap gives back for it (most of
    # a report's lines: a player's row, a short event); textwrap split and joined it again
    if all(len(line) <= width and not line[-1:].isspace() for line in lines):
        return (env.newline_sequence if wrapstring is None else wrapstring).join(lines)
    return do_wordwrap(env, s, width, break_long_words, wrapstring, break_on_hyphens)


@jinja2.pass_environment
def wordwrap(env: jinja2.Environment, s: str, width: int = 79, break_long_words: bool = True,
             wrapstring: str | None = None, break_on_hyphens: bool = True) -> str:
    """Jinja's `wordwrap`, once per text: the same event, card line or ring of the map is
    wrapped in the report of every reader and move that shows it (textwrap was a fifth of a
    report's text part)."""
    s = str(s)
    if len(s) <= width and s.isprintable() and not s[-1:].isspace():
        return s  # one line (a printable text breaks no line) that fits: what _wrapped gives, unhashed
    return _wrapped(env, s, width, break_long_words, wrapstring, break_on_hyphens)


SAID_KEPT = 2048  # a pack's lines as its readers read them: a few per game, changing now and then
_said: dict[tuple, str] = {}


def said(value: Any) -> str:
    """`engine_text.line` (a line under a pack's title on the board) once per line, language and
    content: the board's text and HTML parts say the same lines, and most of them stay from move
    to move; reviving and translating each was a third of what the board's templates cost."""
    if isinstance(value, str):
        return value
    try:
        key = (i18n.current(), content.generation(), msgspec.json.encode(value))
    except TypeError:  # not plain data: said as it is, each time
        return engine_text.line(value)
    done = _said.get(key)
    if done is None:
        if len(_said) >= SAID_KEPT:
            _said.clear()
        done = _said[key] = engine_text.line(value)
    return done


def _lookup(catalogue) -> Callable[[str], str]:
    return getattr(catalogue, "ugettext", None) or catalogue.gettext  # as Jinja's i18n extension


def _gettext(catalogue) -> Callable[..., str]:
    """Jinja's newstyle `gettext` (and `_`, its alias) for one language's Environment, with its
    result kept per text: the same translation, a Markup in an autoescaped template, then
    `% variables` (always: `%%` is a percent sign). Jinja's own passes each `_()` through three
    context calls and looks the text up every time: a report makes a hundred of them."""
    lookup = _lookup(catalogue)

    @functools.lru_cache(maxsize=2048)
    def translated(text: str, autoescape: bool) -> str:
        out = lookup(text)
        return Markup(out) if autoescape else out

    @functools.lru_cache(maxsize=2048)
    def plain(text: str, autoescape: bool) -> str:
        return translated(text, autoescape) % {}

    @jinja2.pass_eval_context
    def gettext(eval_ctx, __string: str, **variables) -> str:
        if not variables:
            return plain(__string, eval_ctx.autoescape)
        return translated(__string, eval_ctx.autoescape) % variables

    return gettext


# Jinja's filters that have an async variant: registered as a wrapper that checks, at each call,
# whether the Environment is async (never, here) before calling the sync function (a report
# makes a score of such calls).
_SYNC_FILTERS = ("join", "map", "select", "reject", "selectattr", "rejectattr", "list", "first", "unique", "sum",
                 "slice", "groupby")

# The templates shipped with pbem: templates/ at the top of the checkout, the package pbem.templates
# once installed (setup.py maps one to the other).
PACKAGED = Path(str(importlib.resources.files("pbem.templates")))
DEFAULT_PREFIX = "default:"  # `{% extends "default:report.txt.j2" %}` in a home's override


def loader(overrides: Path | None = None) -> jinja2.BaseLoader:
    """The home's `templates/` folder (`overrides`) searched before the packaged templates, as
    datasette does; `default:NAME` is always the packaged one, so an override can extend it."""
    packaged = jinja2.FileSystemLoader(str(PACKAGED))
    search = [str(overrides), str(PACKAGED)] if overrides is not None and overrides.is_dir() else [str(PACKAGED)]
    return jinja2.ChoiceLoader([jinja2.PrefixLoader({DEFAULT_PREFIX[:-1]: packaged}, delimiter=":"),
                                jinja2.FileSystemLoader(search)])


class Templates:
    """One Environment per language, each template compiled once in it; HTML templates
    autoescape by name (select_autoescape does not match `*.html.j2`). The language is the
    one texts are made in now (pbem/base/i18n.py `using`): a mail's context names its reader's."""

    def __init__(self, overrides: Path | None = None):
        self.overrides = overrides
        self._envs: dict[str, _Environment] = {}
        self._pairs: dict[tuple[str, str], tuple[jinja2.Template, jinja2.Template]] = {}
        self._ones: dict[tuple[str, str], jinja2.Template] = {}

    @property
    def env(self) -> _Environment:
        """The Environment of the current language."""
        return self.environment(i18n.current())

    def environment(self, lang: str) -> _Environment:
        env = self._envs.get(lang)
        if env is None:
            env = _Environment(
                loader=loader(self.overrides), autoescape=lambda name: (name or "").endswith(".html.j2"),
                undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                auto_reload=False, extensions=["jinja2.ext.i18n"])
            # `_("... %(n)s", n=...)` in a template: its values autoescaped in HTML (newstyle gettext)
            catalogue = i18n.translations(lang)
            env.install_gettext_translations(catalogue, newstyle=True)  # type: ignore[attr-defined]
            env.globals["_"] = env.globals["gettext"] = env.filters[GETTEXT_FILTER] = _gettext(catalogue)
            env.translated = _Translated(_lookup(catalogue), by_filter=True)
            env.filters["wordwrap"] = wordwrap
            for name in _SYNC_FILTERS:  # the filter itself, not the wrapper that asks at every call whether to await
                env.filters[name] = getattr(jinja_filters, f"sync_do_{name}")
            # a card's, space's or character's name as this language's cards print it (else as printed)
            env.filters["named"] = functools.partial(printed_names.name, lang=lang)
            env.filters["said"] = said  # a pack's sentence, a message (rendered in `lang`)
            env.filters["thing"] = boardmap.thing  # what lies on a space (a card, gold, the Hex)
            env.globals["fitted"] = boardmap.fitted  # the map's cells (templates/_map.html.j2)
            self._envs[lang] = env
        return env

    def pair(self, name: str) -> tuple[jinja2.Template, jinja2.Template]:
        key = (i18n.current(), name)
        if key not in self._pairs:
            env = self.env
            self._pairs[key] = (env.get_template(f"{name}.txt.j2"), env.get_template(f"{name}.html.j2"))
        return self._pairs[key]

    def render(self, name: str, context: dict[str, Any]) -> tuple[str, str]:
        text, html = self.pair(name)
        return text.render(context), html.render(context)

    def one(self, filename: str) -> jinja2.Template:
        """One template (a part that has no text and HTML pair), compiled once per language."""
        key = (i18n.current(), filename)
        if key not in self._ones:
            self._ones[key] = self.env.get_template(filename)
        return self._ones[key]


_shared: dict[Path | None, Templates] = {}


def templates(svc: Service) -> Templates:
    """The service's templates, compiled once per process and home: its `templates/` folder's
    overrides over the packaged ones."""
    if svc.templates is None:
        folder = svc.settings.templates_path
        key = folder if folder.is_dir() else None
        if key not in _shared:
            _shared[key] = Templates(key)
        svc.templates = _shared[key]
    return svc.templates


WARMED = ("report", "receipt", "welcome", "_board", "_map", "_row", "_sheet")  # what most sends render


def warm(svc: Service) -> None:
    """The templates most mails are made of compiled now, not within the first sends' leases
    (a daemon's start-up: compiling them and importing Jinja take a few hundred ms)."""
    for name in WARMED:
        templates(svc).pair(name)
    templates(svc).one("_map_cell.html.j2")
    templates(svc).one("_around.txt.j2")


class Fragment(NamedTuple):
    text: str
    html: Markup


FRAGMENTS_KEPT = 512  # the latest used: a move's board, its map, its rows and sheets, and the moves' before
_fragments: OrderedDict[tuple, Any] = OrderedDict()


def fragment(svc: Service, name: str, ctx, key=None) -> Fragment:
    """Template `name` rendered for `ctx`, once for equal contexts: most of a report is as
    it was at the last move (the map, the players' table, each player's sheet). `key`
    stands for ctx where ctx is not plain data; then ctx may be a function that makes it.
    The latest FRAGMENTS_KEPT are kept, so a daemon's memory does not grow with its games."""
    def made() -> Fragment:
        text, html = templates(svc).render(name, ctx() if callable(ctx) else ctx)
        return Fragment(text.rstrip("\n"), Markup(html))
    return _kept(svc, name, msgspec.json.encode(ctx) if key is None else key, made)


def text_part(svc: Service, filename: str, ctx: dict) -> str:
    """Template `filename` (one with no HTML twin) rendered for `ctx`, once for equal contexts,
    kept as `fragment`'s are."""
    return _kept(svc, filename, msgspec.json.encode(ctx),
                 lambda: templates(svc).one(filename).render(ctx).rstrip("\n"))


def _kept(svc: Service, name: str, key, make: Callable[[], Any]) -> Any:
    """What `make` gives, kept under `key` for the templates, language and content it was made
    in: the latest FRAGMENTS_KEPT."""
    key = (id(templates(svc)), i18n.current(), content.generation(),  # the overlay: names a language reads
           name, key)
    done = _fragments.get(key)
    if done is None:
        done = _fragments[key] = make()
        if len(_fragments) > FRAGMENTS_KEPT:
            _fragments.popitem(last=False)
    else:
        _fragments.move_to_end(key)
    return done


CELLS_KEPT = 2048  # a board's 49 cells as they last were, for the games a daemon serves
_cells: OrderedDict[tuple, Markup] = OrderedDict()


def map_cells(svc: Service, board: dict) -> dict:
    """A drawn map (boardmap.draw) with each grid cell's HTML (templates/_map_cell.html.j2)
    rendered once per content and kept: a move changes two or three of the 49 cells, and
    rendering every cell was most of what a map cost."""
    if not board.get("grid"):
        return board
    template, colours = templates(svc).one("_map_cell.html.j2"), board["colours"]
    prefix = (id(templates(svc)), i18n.current(), content.generation())

    def html(c: dict) -> Markup:
        # all a cell is made of (its name's lines and its marks follow from these), read as a
        # tuple: encoding each cell to JSON was a third of what this cost
        who = c["who"]
        key = (prefix, c["space"], c["ring"], c["full"], c["stand_in"], tuple(who),
               tuple([colours[m] for m in who]) if who else (), tuple(c["things"]))
        done = _cells.get(key)
        if done is None:
            done = _cells[key] = Markup(template.render(c=c, colours=colours).rstrip("\n"))
            if len(_cells) > CELLS_KEPT:
                _cells.popitem(last=False)
        else:
            _cells.move_to_end(key)
        return done
    return {**board, "grid": [[{**c, "html": html(c)} for c in row] for row in board["grid"]]}


class StoredFrame(str):
    """A report frame as the JSON it is stored as (`report_frames`, shared by the mails of one
    move): the board rendered for the first of them is found by its text, not decoded again."""


def board(svc: Service, frame: dict | StoredFrame) -> Fragment:
    """The public part of a report (pbem/outbound/reports.py `frame`): the map, the players' table,
    the decks. The map changes only when someone moves, each row only with its player."""
    def context() -> dict:
        f = msgspec.json.decode(str(frame)) if isinstance(frame, StoredFrame) else frame
        who = {p["mark"]: p["name"] for p in f["players"]}  # the text part names the players the map marks
        drawn = fragment(svc, "_map", lambda: {"board": map_cells(svc, boardmap.draw(f["map"])), "who": who},
                         key=msgspec.json.encode([f["map"], who]))
        return {"turn": f["turn"], "decks": f["decks"], "lying": f["lying"], "packs": f["packs"],
                "rows": [fragment(svc, "_row", {"p": p, "colour": p["colour"]}) for p in f["players"]],
                "map_text": drawn.text, "map_html": drawn.html}
    return fragment(svc, "_board", context,
                    key=str(frame) if isinstance(frame, StoredFrame) else msgspec.json.encode(frame).decode())


def _filled(svc: Service, ctx: dict) -> dict:
    """A stored context with its `board` (a frame) and `sheet` (a reader's own character)
    as their rendered fragments, and `around` (the spaces about the reader) as `around_text`."""
    ctx = dict(ctx)
    if isinstance(ctx.get("board"), (dict, StoredFrame)):
        ctx["board"] = board(svc, ctx["board"])
    if isinstance(ctx.get("sheet"), dict):
        ctx["sheet"] = fragment(svc, "_sheet", ctx["sheet"])
    if ctx.get("around"):  # a reader's surroundings: as they were at the last move, most often
        ctx["around_text"] = text_part(svc, "_around.txt.j2", {"around": ctx["around"], "me": ctx.get("me")})
    return ctx


def render(svc: Service, name: str, ctx: dict) -> tuple[str, str]:
    """A mail's text and HTML from its stored context, in its reader's language (`lang`)."""
    with i18n.using(ctx.get("lang")):
        return templates(svc).render(name, _filled(svc, ctx))


def text(svc: Service, name: str, ctx: dict) -> str:
    """Only the text part of template `name` (e.g. `_report` for `pbem game show`)."""
    with i18n.using(ctx.get("lang")):
        return templates(svc).pair(name)[0].render(_filled(svc, ctx))

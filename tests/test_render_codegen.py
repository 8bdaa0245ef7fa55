"""The templates' compiled code (issue 28): an output escaped by `render._escaped` and `x.name`
on a dict read in place give exactly what Jinja's own code gives, for every kind of value a
template meets; a value that is missing is still an error."""
import jinja2
import pytest
from jinja2.compiler import CodeGenerator
from markupsafe import Markup
from test_reports import hero_config

from pbem.moderate import newgame
from pbem.outbound import outbox, render

SOURCE = ("{{ s }}|{{ m }}|{{ n }}|{{ b }}|{{ f }}|{{ none }}|{{ d.name }}|{{ d.items }}|{{ d.get('name') }}|"
          "{{ o.name }}|{{ d.inner.deep }}|{{ [s, m] }}|{{ s ~ m }}|{{ m ~ s }}|{{ d.n + 1 }}|"
          "{% set block %}<i>{{ s }}</i>{{ m }}{% endset %}{{ block }}|{{ block|length }}|"
          "{% macro tag(x) %}<b>{{ x }}</b>{% endmacro %}{{ tag(s) }}|{{ tag(m) }}|"
          "{% for k in d.list %}{{ k }}{{ loop.index }}{% endfor %}|{{ s|upper }}|{{ '%s <%s>'|format(s, n) }}|"
          "{% autoescape false %}{{ s }}{% endautoescape %}|{{ d.list|map(attribute='x')|join }}|"
          "{{ s.split(' ')|length }}|{% for k in d.list %}{{ k.get('x') }}{{ s.count('a') }}{{ loop.cycle(1, 2) }}"
          "{% endfor %}|{{ range(3)|list }}|{% set ns = namespace(v=1) %}{{ ns.v }}|{{ '{}-{}'.format(s, n) }}|"
          "{% macro box() %}[{{ caller() }}]{% endmacro %}{% call box() %}{{ d.get('n') }}{% endcall %}|"
          "{{ (d.get)('name') }}|{{ d.inner.keys()|list }}")


class Obj:
    name = "obj <name>"


BLOCKS = {"base.j2": "<main>{% block b %}{% endblock %}</main>",
          "child.j2": '{% extends "base.j2" %}{% block b %}{% for x in xs %}{{ x.upper() }}{{ pick(x) }}'
                      '{% endfor %}{{ d.get("k") }}{{ ctx_fn() }}{% endblock %}'}


def values() -> dict:
    return {"s": "<Anna & 'Bob'> \"x\"", "m": Markup("<em>safe</em>"), "n": -42, "b": True, "f": 1.5,
            "none": None, "o": Obj(),
            "d": {"name": "<dict name>", "items": "an <items> key", "n": 2, "inner": {"deep": "a&b"},
                  "list": [{"x": "<1>"}, {"x": 2}]}}


class JinjasCode(render._Environment):
    """The same Environment (a dict's key before its attribute) compiling Jinja's own code,
    its includes left as includes."""
    code_generator_class = CodeGenerator
    template_class = jinja2.Template

    def _parse(self, source, name, filename, within=()):
        return jinja2.Environment._parse(self, source, name, filename)


def environments(autoescape: bool):
    return (render._Environment(autoescape=autoescape, undefined=jinja2.StrictUndefined),
            JinjasCode(autoescape=autoescape, undefined=jinja2.StrictUndefined))


@pytest.mark.parametrize("autoescape", [True, False])
def test_the_compiled_templates_give_what_jinjas_own_give(autoescape):
    ours, jinjas = environments(autoescape)
    got = ours.from_string(SOURCE).render(values())
    assert got == jinjas.from_string(SOURCE).render(values())
    assert ("&lt;Anna &amp; &#39;Bob&#39;&gt;" in got) == autoescape and "<em>safe</em>" in got
    assert "&lt;dict name&gt;" in got if autoescape else "<dict name>" in got
    assert "an &lt;items&gt; key" in got if autoescape else "an <items> key" in got  # the key, not the method


def test_an_output_is_escaped_without_markups_constructor_and_a_dicts_key_read_in_place():
    """What makes them cheaper is in the code: no `escape(` wrapping every output in a Markup,
    no call to `environment.getattr` for a dict that has the key."""
    code = render._Environment(autoescape=True).compile("{{ p.name }}{{ s }}", raw=True)
    assert "escape(" not in code and "escaped(" in code
    assert "g_o['name'] if type(g_o := " in code
    code = render._Environment(autoescape=True).compile("{{ p.get('name') }}{{ f(1) }}", raw=True)
    assert "is builtin_method else context.call(g_f" in code  # a built-in called directly, else as Jinja calls


@pytest.mark.parametrize("source", ["{{ d.missing }}", "{{ missing }}", "{{ d.inner.missing }}", "{{ o.missing }}"])
def test_a_missing_value_is_still_an_error(source):
    ours, _ = environments(True)
    with pytest.raises(jinja2.UndefinedError):
        ours.from_string(source).render(values())


def test_every_shipped_template_compiles(tmp_path):
    """Each packaged template (the web's too) compiles with this code: the inline dict read is
    valid Python wherever Jinja puts an attribute."""
    templates = render.Templates(None)
    env = templates.environment("en")
    names = [n for n in env.list_templates() if n.endswith(".j2") and not n.startswith(render.DEFAULT_PREFIX)]
    assert len(names) > 40
    for name in names:
        env.get_template(name)


PARTS = {
    "page.html.j2": ('<p>{{ x }}</p>{% include "part.html.j2" %}|{{ x }}|{{ y is defined }}|'
                     '{% for i in d.list %}{% include "row.html.j2" %}{% endfor %}|{% include "blocks.html.j2" %}|'
                     '{% include "tree.html.j2" %}|{% include "text.txt.j2" %}'),
    "part.html.j2": '{% set x = "in <part>" %}{% set y = 1 %}<b>{{ x }}</b>{{ s }}{% include "deeper.html.j2" %}',
    "deeper.html.j2": "[{{ x }}{{ m }}]\n",
    "row.html.j2": "<li>{{ i.x }} {{ loop is defined }}</li>",
    "blocks.html.j2": "{% block b %}block {{ s }}{% endblock %}",
    "tree.html.j2": '{% set n = (n|default(0)) + 1 %}{{ n }}{% if n < 3 %}({% include "tree.html.j2" %}){% endif %}',
    "text.txt.j2": "text {{ s }}",
    "child.html.j2": '{% extends "base.html.j2" %}{% block b %}{% include "part.html.j2" %}{{ x }}{% endblock %}',
    "base.html.j2": "<main>{% block b %}{% endblock %}</main>",
}


def loaded(cls):
    return cls(loader=jinja2.DictLoader(PARTS), undefined=jinja2.StrictUndefined,
               autoescape=lambda name: (name or "").endswith(".html.j2"))


@pytest.mark.parametrize("name", ["page.html.j2", "child.html.j2"])
def test_an_include_put_in_place_renders_as_the_include(name):
    """Inlined (render._Inlined): what the included sets stays in it, nested includes too; a
    template with blocks, one that includes itself, one escaped otherwise and one included in
    a loop (which must not see the loop) stay includes -- all as Jinja renders them."""
    ours, jinjas = loaded(render._Environment), loaded(JinjasCode)
    got = ours.get_template(name).render(values(), x="<outer>")
    assert got == jinjas.get_template(name).render(values(), x="<outer>")
    assert "&lt;outer&gt;" in got and "&lt;b&gt;in" not in got and "<b>in &lt;part&gt;</b>" in got
    code = ours.compile(PARTS[name], name, raw=True)
    looked_up = {n for n in PARTS if f"get_template('{n}'" in code}
    # part and deeper put in place; tree too, its include of itself left in it
    assert looked_up == ({"row.html.j2", "blocks.html.j2", "text.txt.j2", "tree.html.j2"}
                         if name == "page.html.j2" else {"base.html.j2"})  # extends: looked up


def test_an_include_is_put_in_place_when_compiled_and_an_override_of_it_is_what_is_put(svc, tmp_path):
    """No include is looked up at render for a report's parts, and the part an operator
    overrides (`<home>/templates/_pace.txt.j2`, which every report includes) is the one a
    report shows."""
    code = render.Templates(None).environment("en").compile(
        render.PACKAGED.joinpath("report.txt.j2").read_text(), "report.txt.j2", raw=True)
    assert "get_template" not in code
    newgame.create(svc, hero_config())
    row = next(r for r in svc.store.outbox_rows() if r["kind"] == "report")
    (tmp_path / "_pace.txt.j2").write_text("PACE OF THE HOUSE\n")
    svc.templates = render.Templates(tmp_path)
    mail = outbox.rendered(svc, svc.store.outbox_mail(row["id"]))
    assert "PACE OF THE HOUSE" in mail["text"] and "PACE OF THE HOUSE" not in mail["html"]


def test_a_call_in_a_loop_or_a_block_gives_what_jinjas_gives():
    """A built-in called directly takes none of the loop's or block's variables Jinja passes to
    what it calls through the context; a function that asks for the context still has it."""
    @jinja2.pass_context
    def ctx_fn(context):
        return f"<{context['d']['k']}>"
    got = []
    for cls in (render._Environment, JinjasCode):
        env = cls(loader=jinja2.DictLoader(BLOCKS), autoescape=True, undefined=jinja2.StrictUndefined)
        got.append(env.get_template("child.j2").render(xs=["a", "<b>"], d={"k": "v&"}, pick=lambda x: x * 2,
                                                       ctx_fn=ctx_fn))
    assert got[0] == got[1] and "&lt;B&gt;" in got[0] and "&lt;v&amp;&gt;" in got[0]


def test_an_include_of_a_missing_or_broken_part_fails_only_where_it_is_reached():
    """As an include did: a template that includes a missing or broken part in a branch not
    taken still renders; reached, the part's error is the error."""
    parts = {"page.j2": '{% if go %}{% include "missing.j2" %}{% include "broken.j2" %}{% endif %}ok',
             "broken.j2": "{% if %}"}
    env = render._Environment(loader=jinja2.DictLoader(parts), undefined=jinja2.StrictUndefined)
    assert env.get_template("page.j2").render(go=False) == "ok"
    with pytest.raises(jinja2.TemplateNotFound):
        env.get_template("page.j2").render(go=True)


def test_another_jinja_compiles_the_templates_to_its_own_code():
    """`_Generator` overrides Jinja 3.1's private methods: under another Jinja (a later pip
    install) the templates compile to Jinja's own code, which gives the same text (above)."""
    assert render.own_code(jinja2.__version__) and jinja2.__version__.startswith("3.1.")
    assert render._Environment.code_generator_class is render._Generator
    assert not render.own_code("3.2.0") and not render.own_code("4.0") and not render.own_code("")

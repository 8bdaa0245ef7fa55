"""The templates' compiled code (issue 28): an output escaped by `render._escaped` and `x.name`
on a dict read in place give exactly what Jinja's own code gives, for every kind of value a
template meets; a value that is missing is still an error."""
import jinja2
import pytest
from jinja2.compiler import CodeGenerator
from markupsafe import Markup

from pbem.outbound import render

SOURCE = ("{{ s }}|{{ m }}|{{ n }}|{{ b }}|{{ f }}|{{ none }}|{{ d.name }}|{{ d.items }}|{{ d.get('name') }}|"
          "{{ o.name }}|{{ d.inner.deep }}|{{ [s, m] }}|{{ s ~ m }}|{{ m ~ s }}|{{ d.n + 1 }}|"
          "{% set block %}<i>{{ s }}</i>{{ m }}{% endset %}{{ block }}|{{ block|length }}|"
          "{% macro tag(x) %}<b>{{ x }}</b>{% endmacro %}{{ tag(s) }}|{{ tag(m) }}|"
          "{% for k in d.list %}{{ k }}{{ loop.index }}{% endfor %}|{{ s|upper }}|{{ '%s <%s>'|format(s, n) }}|"
          "{% autoescape false %}{{ s }}{% endautoescape %}|{{ d.list|map(attribute='x')|join }}")


class Obj:
    name = "obj <name>"


def values() -> dict:
    return {"s": "<Anna & 'Bob'> \"x\"", "m": Markup("<em>safe</em>"), "n": -42, "b": True, "f": 1.5,
            "none": None, "o": Obj(),
            "d": {"name": "<dict name>", "items": "an <items> key", "n": 2, "inner": {"deep": "a&b"},
                  "list": [{"x": "<1>"}, {"x": 2}]}}


class JinjasCode(render._Environment):
    """The same Environment (a dict's key before its attribute) compiling Jinja's own code."""
    code_generator_class = CodeGenerator
    template_class = jinja2.Template


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

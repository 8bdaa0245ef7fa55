"""What rendering keeps between mails (issue 28) changes no mail: the templates' gettext as
Jinja's own, and the map's cells rendered once per content."""
import jinja2
import pytest
from test_commands import asked, last_id, send
from test_reports import hero_config

from pbem.base import i18n
from pbem.moderate import newgame
from pbem.outbound import outbox, render

SOURCE = ('{{ _("Plain") }}|{{ _("100%% of %(who)s", who=who) }}|{{ _("<b>%(n)s</b> left", n=n) }}|'
          '{{ gettext("Again %(who)s", who=who) }}|{% trans %}Block{% endtrans %}|'
          '{% trans who=who %}By {{ who }}{% endtrans %}|{{ _(who) }}|{{ gettext(text) }}|{{ _(text ~ "") }}')


@pytest.mark.parametrize("lang", i18n.languages())
@pytest.mark.parametrize("autoescape", [True, False])
def test_the_templates_gettext_gives_what_jinjas_own_gives(lang, autoescape):
    """Also with the constant texts translated when the template is compiled (render._Translated,
    as each language's Environment compiles them): no call to gettext is left for them."""
    values = {"who": "<Anna & Bob>", "n": 3, "text": "Strength"}  # a text the catalogues translate
    out = []
    for kind in ("compiled", "kept", "jinja"):
        env = (render._Environment if kind == "compiled" else jinja2.Environment)(
            autoescape=autoescape, extensions=["jinja2.ext.i18n"])
        env.install_gettext_translations(i18n.translations(lang), newstyle=True)  # type: ignore[attr-defined]
        if kind != "jinja":
            env.globals["_"] = env.globals["gettext"] = render._gettext(i18n.translations(lang))
        if kind == "compiled":  # `_(value)` as a filter (the same gettext), called directly
            env.filters[render.GETTEXT_FILTER] = env.globals["_"]
            env.translated = render._Translated(render._lookup(i18n.translations(lang)), by_filter=True)
            code = env.compile(SOURCE, raw=True)
            assert "resolve('_')" not in code and "resolve('gettext')" not in code, code
        template = env.from_string(SOURCE)
        out.append([template.render(values) for _ in range(2)])  # the second from what was kept
    assert out[0] == out[1] == out[2]
    assert ("&lt;Anna &amp; Bob&gt;" in out[0][0]) == autoescape and "100% of" in out[0][0]


def _map_html(html: str) -> str:
    return html[html.index('<table width="100%"'):].split("</table>", 1)[0]


def test_a_move_renders_only_the_map_cells_it_changed(svc, monkeypatch):
    g = newgame.create(svc, hero_config())
    made = []
    one = render.Templates.one

    def counted(self, filename):
        template = one(self, filename)
        if filename != "_map_cell.html.j2":
            return template
        return type("Counted", (), {"render": lambda _, **ctx: made.append(1) or template.render(**ctx)})()
    monkeypatch.setattr(render.Templates, "one", counted)
    render._cells.clear()
    render._fragments.clear()  # a map an earlier test rendered is found whole: no cell would be rendered
    maps = []
    for n in range(6):
        player, q, key = asked(svc, g)
        since = last_id(svc)
        send(svc, g, player, [f"{q}: {key}"])
        made.clear()
        rows = [r for r in svc.store.outbox_rows() if r["id"] > since and r["kind"] in ("report", "receipt")]
        html = [outbox.mail(svc, r["id"])["html"] for r in rows]
        maps.append(_map_html(html[0]))
        assert all(_map_html(h) == maps[-1] for h in html)  # the reports of one state share their map
        assert len(made) <= (49 if n == 0 else 4), n  # the first map whole; then the cells a move changed


def test_a_readers_surroundings_are_rendered_once_per_content(svc, monkeypatch):
    """The "Around you" line (templates/_around.txt.j2) is rendered once for equal
    surroundings, reader and language (most readers' are as at the last move), and again when
    any of them differs."""
    made = []
    one = render.Templates.one

    def counted(self, filename):
        template = one(self, filename)
        if filename != "_around.txt.j2":
            return template
        return type("Counted", (), {"render": lambda _, ctx: made.append(1) or template.render(ctx)})()
    monkeypatch.setattr(render.Templates, "one", counted)
    render._fragments.clear()
    cells = [{"name": "Fields", "who": ["anna", "bob"], "lying": [], "mine": True},
             {"name": "Forest", "who": [], "lying": ["Gold"], "mine": False}]

    def line(me: str, region: str = "Outer Region", lang: str = "en") -> str:
        with i18n.using(lang):
            return render._filled(svc, {"me": me, "around": {"region": region, "cells": cells}})["around_text"]
    first = line("anna")
    assert "Fields (you are here, with bob), Forest (lying there: Gold)." in first
    assert line("anna") == first and len(made) == 1
    assert "you are here, with anna" in line("bob") and len(made) == 2
    assert "Middle Region" in line("anna", "Middle Region") and len(made) == 3
    assert line("anna", lang="de") != first and len(made) == 4
    assert line("anna") == first and len(made) == 4

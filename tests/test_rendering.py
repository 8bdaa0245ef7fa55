"""Rendering once what is the same (issue 28): the map's cell fitting in Python, the wordwrap
filter once per text, a move's stored frame rendered once for all its mails -- each giving
exactly what the templates gave before."""
import random

import jinja2
import msgspec
from conftest import game_config
from markupsafe import Markup

from engine import content
from engine.registry import PLAYABLE_PACKS
from pbem.base import boardmap
from pbem.core import games
from pbem.moderate import newgame
from pbem.outbound import render, reports

# The fitting as templates/_map.html.j2 did it, letter by letter, before issue 28: the reference.
JINJA_FITTED = """{% macro fitted(words) -%}
{%- set widest = namespace(em=0) -%}
{%- for word in words -%}
{%- set w = namespace(em=0) -%}
{%- for ch in word -%}
{%- set w.em = w.em + (0.3 if ch in "'ijlIJ,.:;!|" else 0.4 if ch in "ftr-()" else 1.0 if ch in "mwMW" else 0.55 if ch in "szcL" else 0.75 if ch.isupper() else 0.63) -%}
{%- endfor -%}
{%- if w.em > widest.em %}{% set widest.em = w.em %}{% endif -%}
{%- endfor -%}
{%- set px = [11, ((38.5 / widest.em * 2)|round(0, "floor") / 2) if widest.em else 11]|min -%}
{%- if px < 11 %}font-size:{{ "%g"|format(px) }}px;{% endif %}font-size:min(11px,{{ "%.2f"|format(px / 3.6) }}vw)
{%- endmacro %}{{ fitted(words) }}"""  # noqa: E501 -- the template as it was


def every_word() -> list[str]:
    """The names a map cell can show (every pack's spaces and cards), and odd words beside."""
    names: set[str] = set()
    for packs in [(), *((p,) for p in PLAYABLE_PACKS)]:
        try:
            c = content.load("revised4", packs)
        except (KeyError, ValueError):  # a pack that needs another (or another edition)
            continue
        names |= {s.name for s in c.board.spaces.values()} | {card.name for card in c.cards.values()}
    rnd = random.Random(28)
    odd = ["", "W", "WWWWWWWWWWWWWWWW", "iiii", "(stand-in)", "3 gold", "Hex (3 rounds) by alice",
           "".join(rnd.choice("aAmMiIlL.,'-()szcWwé ") for _ in range(40))]
    return sorted(names) + odd


def test_the_cells_fit_as_the_template_fitted_them():
    reference = jinja2.Environment().from_string(JINJA_FITTED)
    words = every_word()
    assert len(words) > 200
    for name in words:
        for cell in ([name], name.split(), name.split() + ["3", "gold"], [name, "(stand-in)"]):
            assert boardmap.fitted(cell) == reference.render(words=cell), cell


def test_wordwrap_once_per_text_wraps_as_jinja_does():
    env = render.Templates().env
    plain = jinja2.Environment(keep_trailing_newline=True)
    texts = ["", "short", "a line\nwith\n\nparagraphs", "x" * 200, "é " * 60, "tab\there  two  spaces ",
             "hyphen-ated-words-" * 8, Markup("<b>bold</b> & " * 10),
             # lines that fit as they are (kept whole), or fit but end or start in whitespace
             "  leading kept", "trailing dropped  ", "x" * 20, "x" * 21, "a \xa0", "a b\xa0", "a \xa0 b", "\t",
             "two\r\nline ends\x1cand more", "   ", "fits\n\n  indented\nlast "]
    for text in texts:
        for args in ("", "(30)", '(40, wrapstring="\\n    ")', "(20, false)", "(25, break_on_hyphens=false)"):
            source = "{{ t|wordwrap" + args + " }}"
            assert env.from_string(source).render(t=text) == plain.from_string(source).render(t=text), (text, args)
    rng = random.Random(7)  # and random texts of words, spaces of every kind, hyphens and line ends
    pieces = ["word", "a", "hyphen-ated", " ", "  ", "\t", "\n", "\xa0", "\u2003", "-", "x" * 25, "é"]
    for _ in range(2000):
        text, width = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12))), rng.randint(1, 40)
        assert render.wordwrap(env, text, width) == plain.from_string("{{ t|wordwrap(w) }}").render(t=text, w=width)


def test_a_stored_frame_renders_its_board_as_the_frame_itself_does(svc):
    g = newgame.create(svc, game_config())
    frame = reports.make_frame(svc, games.state(svc, games.get(svc, g)))
    stored = render.StoredFrame(msgspec.json.encode(frame).decode())
    render._fragments.clear()
    from_text = render.board(svc, stored)
    render._fragments.clear()
    assert render.board(svc, frame) == from_text
    assert "<table" in from_text.html and "Where everyone is, turn" in from_text.text


def test_a_drawn_map_makes_each_space_once_and_names_its_taken_cells(svc, monkeypatch):
    """boardmap.draw: a space's cell is one dict in the grid and in its ring's list, `taken` is
    what the text part once selected (`ring.cells|selectattr("marks")|list`), and the board's
    names are looked up once per board and language, not at every map (issue 28)."""
    g = newgame.create(svc, game_config())
    drawn_map = reports.make_frame(svc, games.state(svc, games.get(svc, g)))["map"]
    drawn = boardmap.draw(drawn_map)
    by_space = {c["space"]: c for ring in drawn["rings"] for c in ring["cells"]}
    assert all(c is by_space[c["space"]] for row in drawn["grid"] for c in row if c["space"])
    selected = jinja2.Environment().from_string('{{ cells|selectattr("marks")|map(attribute="space")|join(",") }}')
    for ring in drawn["rings"]:
        assert ",".join(c["space"] for c in ring["taken"]) == selected.render(cells=ring["cells"])
    assert any(ring["taken"] for ring in drawn["rings"])  # the players stand somewhere
    looked = []
    monkeypatch.setattr(boardmap.printed_names, "name", lambda v, lang: looked.append(v) or v)
    assert boardmap.draw(drawn_map) == drawn and not [v for v in looked if v in drawn_map["names"].values()]


def test_a_packs_line_is_said_once_per_language_and_as_engine_text_says_it(monkeypatch):
    """render.said: the board's text and HTML parts, and the boards of the next moves, say a
    pack's line from what was kept (each language its own); a text is as it is."""
    from pbem.base import engine_text, i18n
    line = {"text": "%(n)s gold", "args": {"n": 3}}
    render._said.clear()
    calls = []
    real = engine_text.line
    monkeypatch.setattr(engine_text, "line", lambda v: calls.append(v) or real(v))
    for lang in i18n.languages():
        with i18n.using(lang):
            said = [render.said(line) for _ in range(3)]
            assert said == [real(line)] * 3
    assert len(calls) == len(i18n.languages())
    assert render.said("plain <text>") == "plain <text>" and len(calls) == len(i18n.languages())


def test_the_filters_are_jinjas_own_without_the_async_wrapper():
    env = render.Templates(None).environment("en")
    for name in render._SYNC_FILTERS:
        assert env.filters[name] is getattr(jinja2.filters, f"sync_do_{name}")
    out = env.from_string('{{ xs|map("upper")|join(",") }}|{{ xs|select("ne", "b")|list }}|{{ xs|first }}|'
                          '{{ ds|selectattr("k")|map(attribute="k")|sum }}|{{ xs|unique|list|length }}|'
                          '{{ xs|slice(2)|list }}|{{ ds|groupby("k")|length }}|{{ xs|reject("eq", "a")|list }}|'
                          '{{ ds|rejectattr("k")|list }}').render(xs=["a", "b", "a"], ds=[{"k": 1}, {"k": 0}, {"k": 2}])
    plain = jinja2.Environment().from_string('{{ xs|map("upper")|join(",") }}|{{ xs|select("ne", "b")|list }}|'
                                             '{{ xs|first }}|{{ ds|selectattr("k")|map(attribute="k")|sum }}|'
                                             '{{ xs|unique|list|length }}|{{ xs|slice(2)|list }}|'
                                             '{{ ds|groupby("k")|length }}|{{ xs|reject("eq", "a")|list }}|'
                                             '{{ ds|rejectattr("k")|list }}')
    assert out == plain.render(xs=["a", "b", "a"], ds=[{"k": 1}, {"k": 0}, {"k": 2}])


# templates/_around.txt.j2's line as it was before issue 28's rewrite (a list built per space): the reference
AROUND_BEFORE = """{% set line %}{% for c in around.cells %}{% set others = c.get("who", [])|reject("equalto", me)|list %}
{% set said = ([_("you are here, with %(names)s", names=others|join(", ")) if others else _("you are here")] if c.mine else [others|join(", ")] if others else []) + ([_("lying there: %(things)s", things=c.lying|map("thing")|join(", "))] if c.get("lying") else []) %}
{{ c.name|named }}{{ (" (" ~ said|join("; ") ~ ")") if said }}{{ ", " if not loop.last else "." }}{% endfor %}{% endset %}
{{ _("Around you (%(region)s), from left (counter-clockwise)\\nto right (clockwise):", region=_(around.region)) }}
  {{ line|wordwrap(76, wrapstring="\\n  ") }}
"""  # noqa: E501 -- the template as it was


def test_the_around_line_says_what_it_said_for_every_kind_of_space():
    """Each space alone and in company: the reader's own or not, others there or not (the
    reader's name among them, or no `who` at all: a context queued before it), things lying
    there or not -- in both languages, as the template said it before it was rewritten."""
    from pbem.base import i18n
    kinds = []
    for mine in (False, True):
        for who in (None, [], ["me"], ["anna"], ["me", "anna", "bob"]):
            for lying in (None, [], ["Dagger", {"gold": 2}]):
                cell = {"name": "Crags", "mine": mine, **({"who": who} if who is not None else {}),
                        **({"lying": lying} if lying is not None else {})}
                kinds.append(cell)
    rng = random.Random(3)
    arounds = [{"region": "Outer Region", "cells": rng.sample(kinds, 7)} for _ in range(60)] + \
              [{"region": "Outer Region", "cells": [k]} for k in kinds]
    templates = render.Templates()
    for lang in i18n.languages():
        with i18n.using(lang):
            env = templates.env
            before, now = env.from_string(AROUND_BEFORE), templates.one("_around.txt.j2")
            for around in arounds:
                assert now.render(around=around, me="me") == before.render(around=around, me="me"), around

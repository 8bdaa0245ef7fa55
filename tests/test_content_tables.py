"""Every die table in every pack defines every total its dice can show (issue 13).

A roll reads the row its total falls in; a total the table leaves out does nothing (rows are
never stretched to the nearest one), so a table that means "nothing happens" on some totals
says so with an empty row (`"1-4" = []`). Only a total beyond the dice's range (a +1 on a 6)
reads the edge row. This test reads every content file of every pack and fails on any table
with a reachable total left undefined, so a gap is always a decision written in the data.
"""
import re
import tomllib
from importlib import resources

import pytest

from engine.content import die_rows
from engine.ops import table_row

RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")
FILES = sorted(f for pack in resources.files("engine").joinpath("content").iterdir() if pack.is_dir()
               for f in pack.iterdir() if f.name.endswith(".toml"))


def die_tables(node, dice: int, where: str):
    """(where, dice, table) for every die table below node: a dict whose keys are all totals or
    ranges ("1", "2-3"): a roll op's `table`, a hook's `lose_life`, `warp`, `table`, a card's
    `wander`, the Sea Voyage's Captain tables. Its dice: the `dice` beside it, else 1."""
    if isinstance(node, dict):
        here = node.get("dice", dice) if isinstance(node.get("dice"), int) else dice
        for key, value in node.items():
            if isinstance(value, dict) and value and all(RANGE.match(str(k)) for k in value):
                yield f"{where}/{key}", here, value
            yield from die_tables(value, here if key in ("table", "hook_args") else 1, f"{where}/{key}")
    elif isinstance(node, list):
        for n, value in enumerate(node):
            label = value.get("name", n) if isinstance(value, dict) else n
            yield from die_tables(value, dice, f"{where}/{label}")


def all_tables():
    for f in FILES:
        data = tomllib.loads(f.read_text(encoding="utf-8"))
        yield from die_tables(data, 1, f"{f.parent.name}/{f.name}")


def test_every_reachable_total_has_a_row():
    tables = list(all_tables())
    assert len(tables) > 40  # the walk finds the tables (the base board alone has a dozen)
    faults = []
    for where, dice, table in tables:
        covered: list[int] = []
        for key in table:
            lo, hi = RANGE.match(str(key)).groups()
            covered += range(int(lo), int(hi or lo) + 1)
        missing = sorted(set(range(dice, 6 * dice + 1)) - set(covered))
        twice = sorted({t for t in covered if covered.count(t) > 1})
        if missing or twice:
            faults.append(f"{where} ({dice} dice): " + (f"no row for {missing}" if missing else "")
                          + (f" rows overlap on {twice}" if twice else ""))
    assert not faults, "die tables with reachable totals undefined (declare nothing with `[]`):\n" + "\n".join(faults)


def test_a_table_with_a_gap_is_caught():
    """The walk sees a roll nested in a choice, and a gap in it (the Chasm before issue 13)."""
    chasm = {"effect": [{"op": "choose", "options": [{"then": [{"op": "roll", "table": {"1-2": [{"op": "lose"}]}}]}]}]}
    [(where, dice, table)] = die_tables(chasm, 1, "chasm")
    assert dice == 1 and list(table) == ["1-2"]
    [(_, dice, _)] = die_tables({"op": "roll", "dice": 2, "table": {"2-12": []}}, 1, "temple")
    assert dice == 2


@pytest.mark.parametrize("total,dice,want", [
    (3, 1, None),      # unlisted and within the die's range: nothing (not the nearest row, "1" or "6")
    (4, 1, []),        # a declared gap: nothing
    (7, 1, ["six"]),   # a +1 on a 6: beyond the range, the edge row that reaches it
    (0, 1, ["one"]),   # below the range (a -1 on a 1): the first row, which reaches 1
    (13, 2, None),     # beyond two dice, but the last row stops short of 12: nothing
    (1, 2, ["two"]),   # below two dice: the first row, which reaches 2
])
def test_table_row(total, dice, want):
    table = {"1": ["one"], "4-5": [], "6": ["six"]} if dice == 1 else {"2": ["two"], "3-11": []}
    assert table_row(die_rows(table), total, dice) == want


def test_a_content_row_may_be_named_by_its_slug_alone():
    """A content row carries `name` or `slug` (engine/schema.py accepts either); with neither
    `pbem rules check` refuses it, saying so."""
    from engine import schema
    by_slug = schema.rows_problems("revised4/adventure.toml", "", {"card": [{"slug": "wolf", "count": 2}]}, {"wolf"})
    assert not [p for p in by_slug if "has no `name`" in p]
    unnamed = schema.rows_problems("revised4/adventure.toml", "", {"card": [{"count": 2}]}, {"wolf"})
    assert [p for p in unnamed if "has no `name`" in p]


def test_a_roll_may_add_or_subtract_strength_or_craft():
    """A content row's roll (`op = "roll"`) may add or subtract the roller's Strength or Craft
    (no shipped card does yet; an owner's content folder may): each reads its own value."""
    from engine import api, scenario
    from engine.ops import read_table
    state = scenario.build({"game": {"seed": "s", "players": [{"name": "alice", "character": "troll"},
                                                               {"name": "bob", "character": "wizard"}]}})
    ctx = api.context(state)  # the Troll: Strength 6, Craft 1
    for attr, how, total in (("strength", "add", 9), ("craft", "add", 4), ("strength", "subtract", -3),
                             ("craft", "subtract", 2)):
        read_table(ctx, 0, {how: attr, "table": {}}, {"source": "a test"}, [3])
        assert ctx.events[-1].text == f"alice rolls 3 for a test: {total}.", (how, attr)

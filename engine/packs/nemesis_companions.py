"""Nemesis: companions grow by level (nemesis.txt, Key Rules 3). A companion card's `levels`
(engine/content/nemesis/companions.toml) give each level its cost and its ability in the effect
vocabulary: `cost` a test (engine/ops.py `test`) and `pay` the ops that pay it; level 3 also needs
a Talisman, which moves onto the companion for good. An ability runs `when = "reached"` (once,
as the level is reached) or `when = "nemesis-turn"` (after each of the Nemesis's main turns, for
every level the companion has). A level is raised at the start of its hero's turn, when the cost
can be met (`companion-<n>` beside the Boon and the Spells): the question "any time" would need
is a round of mail each time (docs/rules-decisions.md §8).
"""
from __future__ import annotations

from engine.ops import run, test
from engine.packs.nemesis_board import living
from engine.rules import stats
from engine.rules.machine import Ctx, task
from engine.state import Game, Option, Task, option
from engine.text import Msg, Text, content_text, msg


def level(s: Game, name: str) -> int:
    return s.counters.get(f"companion@{name}", 1)


def levels(ctx: Ctx, i: int) -> list[dict]:
    """The companion's levels, as its card gives them (none: no companion)."""
    p = ctx.player(i)
    return list(ctx.content.cards[p.area[0]].prop("levels", [])) if p.area else []


def next_level(ctx: Ctx, i: int) -> dict | None:
    """The next level of player i's companion, if its cost can be met now."""
    p = ctx.player(i)
    want = level(ctx.s, p.name) + 1
    row = next((r for r in levels(ctx, i) if r.get("level") == want), None)
    if row is None or (want == 3 and not stats.has_talisman(ctx, p)):
        return None
    return row if not row.get("cost") or test(ctx, i, row["cost"]) else None


def set_companion_level(ctx: Ctx, i: int, n: int) -> Text | bool:
    """Raise (or set, by the moderator's `adjudicate alice companion 2`) a companion's level.
    Level 3 needs a Talisman, which stays on the companion for good."""
    p = ctx.player(i)
    if not p.area or not 1 <= n <= 3:
        return msg("{player} has no companion, or level {n} is not 1-3", player=p.name, n=n)
    if n == 3 and len(p.area) == 1:
        t = next((c for c in p.objects if ctx.content.cards[c].prop("talisman")), None)
        if t is None:
            return msg("{player} holds no Talisman: level 3 needs one", player=p.name)
        p.objects.remove(t)
        p.area.append(t)
    ctx.s.counters[f"companion@{p.name}"] = n  # kept by the player, as the companion is, after a death
    ctx.emit("companion", msg("{player}'s companion is now level {n}.", player=p.name, n=n), player=p.name)
    return True


def start_options(ctx: Ctx, i: int) -> list[Option]:
    row = next_level(ctx, i)
    if row is None:
        return []
    level, ability = row["level"], content_text(row["text"])
    return [option(f"companion-{level}",
                   msg("raise your companion to level {row} ({cost}): {row2}", row=level,
                       cost=content_text(row["cost_text"]), row2=ability) if row.get("cost_text") else
                   msg("raise your companion to level {row}: {row2}", row=level, row2=ability))]


def level_source(ctx: Ctx, i: int, n: int) -> Msg:
    """A companion's level as the source its effects name ("Companion A, level 2"): a message, so a
    reader reads it in their language (ops.py `run_op` revives it in a saved game)."""
    return msg("{card}, level {n}", card=ctx.content.cards[ctx.player(i).area[0]].name, n=n)


def start_choice(ctx: Ctx, i: int, key: str) -> bool | None:
    if not key.startswith("companion-"):
        return None
    row = next_level(ctx, i)
    if row is None or key != f"companion-{row['level']}":
        return None
    source = level_source(ctx, i, row["level"])
    reached = row.get("effect", []) if row.get("when") == "reached" else []
    ctx.push_all([("effect", i, {"ops": ops, "source": source}) for ops in [row.get("pay", [])] if ops]
                 + [("companion-level", i, {"level": row["level"]})]
                 + [("effect", i, {"ops": ops, "source": source}) for ops in [reached] if ops])
    return True


@task("companion-level")
def companion_level(ctx: Ctx, t: Task) -> None:
    """The cost paid: the companion is at its new level (level 3: its Talisman moves onto it)."""
    set_companion_level(ctx, t.p, t.a["level"])


@task("companion-turn")
def companion_turn(ctx: Ctx, t: Task) -> None:
    """After the Nemesis's main turn: each living hero's companion acts, for every level it has,
    heroes in turn order."""
    for i in reversed(living(ctx.s)):  # pushed last first: the first hero's runs first
        name = ctx.name(i)
        for row in levels(ctx, i)[::-1]:  # not reversed(): mypyc 2.4.1 crashes on it over a list of dicts
            if row.get("when") == "nemesis-turn" and row.get("level", 1) <= level(ctx.s, name):
                run(ctx, i, row.get("effect", []),
                    {"source": level_source(ctx, i, row["level"])})

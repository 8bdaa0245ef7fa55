"""The City (city-and-dungeon.md, "The City"): a Region beside the main board, on a stand-in
loop (content/city/board.toml; docs/rules-decisions.md, "The City").

The pack is `City` (at the end). Its hooks: `move_options`/`move_choice` (from the main
board's City space a character may go to the City Gate instead of rolling: a stand-in for "a
roll that carries it past the City space", see rules-decisions), `scenario_setup` (`jailed`),
`turn_start` (a turn in the City: the Jail chart, then a one-way move along the arrows),
`public`; space hooks `city-gate`, `city-jail`, `city-wharf`.
Not built yet: the shops and their decks, the City cards, the Wanted Posters.
"""
from __future__ import annotations

import functools
import tomllib
from importlib import resources
from typing import Any

from engine import rng
from engine.config import ConfigError
from engine.content import die_row
from engine.packs.base import Pack
from engine.rules.machine import Ctx, on_answer, task
from engine.rules.movement import place
from engine.state import Option

RING = "city"


@functools.cache
def tables() -> dict[str, Any]:
    """The `[city]` table of this pack's board.toml."""
    path = resources.files("engine").joinpath("content", "city", "board.toml")
    return tomllib.loads(path.read_text(encoding="utf-8"))["city"]


def inside(ctx: Ctx, space: str | None) -> bool:
    return space is not None and ctx.content.board.spaces[space].ring == RING


def setup(ctx: Ctx, config) -> None:
    """Nothing to deal: the stand-in City has no decks of its own yet."""


def public(state, content) -> dict[str, Any]:
    """Who is in the City (and where), and who is in the Jail."""
    spaces = content.board.spaces
    there = {p.name: p.space for p in state.players if p.alive and p.space and spaces[p.space].ring == RING}
    jailed = sorted(p.name for p in state.players if p.alive and "city-jailed" in p.flags)
    return {"characters": there, "jailed": jailed}


def scenario_setup(state, content, p, key: str, value) -> bool | None:
    """A scenario's `jailed = true` in [setup.<player>] (after `space`): locked up in the Jail."""
    if key != "jailed":
        return None
    if p.space != tables()["jail"]:
        raise ConfigError("jailed: only a character on the Jail space can be (set its space first)")
    if value:
        p.flags["city-jailed"] = 1
    return True


def move_options(ctx: Ctx, i: int) -> list[Option] | None:
    if ctx.player(i).space != tables()["main_city"]:
        return None
    return [Option("city-enter", "go into the City by the City Gate instead of rolling")]


def move_choice(ctx: Ctx, i: int, key: str) -> bool | None:
    if key != "city-enter":
        return None
    p = ctx.player(i)
    ctx.emit("city", f"{p.name} enters the City by the City Gate.", player=p.name, space=tables()["entry"])
    place(ctx, i, tables()["entry"])
    return True


def turn_start(ctx: Ctx, i: int) -> bool | None:
    """A turn in the City: a jailed character rolls on the Jail chart instead of moving; then
    the start-of-turn window, the one-way move and the space."""
    p = ctx.player(i)
    if not inside(ctx, p.space):
        return None
    work: list[tuple[str, int, dict[str, Any]]] = [("start-spells", i, {}), ("city-move", i, {}), ("encounter", i, {})]
    if "city-jailed" in p.flags:
        work = [("city-jail-roll", i, {})]
    ctx.push_all(work)
    return True


@task("city-move")
def city_move(ctx: Ctx, t) -> None:
    """Streets are one way: the whole roll is moved along the arrows (clockwise on the loop),
    never against them."""
    p = ctx.player(t.p)
    p.flags.pop("moved", None)
    roll = rng.die(ctx.s)
    ring = ctx.content.board.rings[RING]
    dest = ring[(ctx.content.space(p.space).index + roll) % len(ring)]
    ctx.emit("roll", f"{p.name} rolls {roll} and follows the City's one-way streets to {ctx.space(dest).name}.",
             player=p.name, roll=roll, dice=[roll], space=dest)
    place(ctx, t.p, dest)


@task("city-jail-roll")
def jail_roll(ctx: Ctx, t) -> None:
    """Instead of moving, a die on the Jail chart (a stand-in chart, board.toml `[city]`)."""
    p = ctx.player(t.p)
    roll = rng.die(ctx.s)
    if die_row(tables()["jail_chart"], roll) == "free":
        del p.flags["city-jailed"]
        ctx.emit("jail", f"{p.name} rolls {roll} on the Jail chart and is released.", player=p.name, roll=roll)
        ctx.push_all([("city-move", t.p, {}), ("encounter", t.p, {})])
        return
    ctx.emit("jail", f"{p.name} rolls {roll} on the Jail chart and stays locked up.", player=p.name, roll=roll)
    ctx.end_turn()


@task("space:city-jail")
def jail(ctx: Ctx, t) -> None:
    p = ctx.player(t.p)
    p.flags["city-jailed"] = 1
    ctx.emit("jail", f"{p.name} is locked up in the Jail; the turn ends.", player=p.name)
    ctx.end_turn()


@task("space:city-gate")
def gate(ctx: Ctx, t) -> None:
    ctx.ask(t.p, "city-gate", "You are at the City Gate. Leave the City?",
            [Option("stay", "stay in the City"), Option("leave", "leave to the main board's City space")])


@on_answer("city-gate", "at the City Gate: `stay` in the City or `leave` it", default=())
def gate_answer(ctx: Ctx, prompt, key, arg, who) -> None:
    if key == "leave":
        leave(ctx, ctx.index(who), "by the City Gate")


@task("space:city-wharf")
def wharf(ctx: Ctx, t) -> None:
    leave(ctx, t.p, "by boat from the Wharf")


def leave(ctx: Ctx, i: int, how: str) -> None:
    p = ctx.player(i)
    dest = tables()["main_city"]
    ctx.emit("city", f"{p.name} leaves the City {how} to the main board's {ctx.space(dest).name}.",
             player=p.name, space=dest)
    place(ctx, i, dest)
    ctx.end_turn()


class City(Pack):
    name = "city"
    editions = ("revised4",)

    def setup(self, ctx: Ctx, config: Any) -> None:
        setup(ctx, config)

    def public(self, state: Any, content: Any) -> dict[str, Any]:
        return public(state, content)

    def scenario_setup(self, state: Any, content: Any, p: Any, key: str, value: Any) -> bool | None:
        return scenario_setup(state, content, p, key, value)

    def move_options(self, ctx: Ctx, i: int) -> list[Option] | None:
        return move_options(ctx, i)

    def move_choice(self, ctx: Ctx, i: int, key: str) -> bool | None:
        return move_choice(ctx, i, key)

    def turn_start(self, ctx: Ctx, i: int) -> bool | None:
        return turn_start(ctx, i)


PACK: Pack = City()

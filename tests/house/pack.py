"""House rules, a pack kept outside the engine: the worked example of docs/contributing.md ("A
pack"), played by tests/test_house_pack.py. Every character starts the game with the gold the
`house_gold` option says, and two Windfalls join the Adventure deck (content/house/)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.config import GameConfig, RuleOption
from engine.packs.base import Pack
from engine.rules.machine import Ctx, task
from engine.state import Task


@task("house-gold")  # a task's name is taken once: a second registration is an error
def house_gold(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    p.gold = t.a["gold"]
    ctx.emit("house-gold", f"{p.name} starts with {p.gold} gold (house rules).", player=p.name)


class House(Pack):
    name = "house"  # as a game config writes it in `packs`
    title = "Our House Rules"  # as players read it
    content_root = str(Path(__file__).parent / "content")  # its cards: content/house/*.toml
    options = (RuleOption("house_gold", 3, "gold each character starts the game with", choices=(1, 2, 3, 4, 5)),)

    def seated(self, ctx: Ctx, config: GameConfig) -> list[tuple[str, int, dict[str, Any]]]:  # ALL: joined
        gold = self.option(config.options, "house_gold")
        return [("house-gold", i, {"gold": gold}) for i, p in enumerate(config.players) if p.role == "hero"]

    def public(self, ctx: Ctx) -> dict[str, Any]:  # EACH: the summary's "house" key
        return {"starting_gold": self.option(ctx.s.options, "house_gold")}


PACK = House()

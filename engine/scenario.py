"""Scenarios (DESIGN.md): a position, forced dice and answers; the result is the summary."""
from __future__ import annotations

import tomllib
from collections.abc import Sequence
from typing import Any

from engine import api, registry
from engine.config import ConfigError, GameConfig
from engine.content import Content
from engine.packs.base import Pack
from engine.rules import machine, setup
from engine.state import Event, Game

EDITABLE = ("space", "strength", "craft", "life", "fate", "gold", "alignment")


def build(data: dict[str, Any], packs: Sequence[Pack] = ()) -> Game:
    """The scenario's game, set up and edited, run to its first prompt (`packs`: packs declared
    outside the engine's list that it may name)."""
    game = dict(data.get("game", {}))
    seed = str(game.pop("seed", "scenario"))
    config = api.game_config({k: v for k, v in game.items() if k in GameConfig.__struct_fields__}, packs)
    hooks = registry.hooks(config.packs, packs)
    state = setup.new_game(config, seed, hooks).s
    content = hooks.content(config.edition)
    for name, edits in data.get("setup", {}).items():
        p = next((p for p in state.players if p.name == name), None)
        if p is None:
            raise ConfigError(f"[setup.{name}]: no such player")
        for key, value in edits.items():
            if key == "space" and value not in content.board.spaces:
                raise ConfigError(f"[setup.{name}] space {value!r} is not on the board")
            if key == "space" and hooks.scenario_setup(state, content, p, key, value):
                continue  # a pack's space, where being put means more (the Timescape: apart at once)
            if key in EDITABLE:
                setattr(p, key, value)
                if key == "life":
                    p.max_life = max(p.max_life, value)
            elif key in ("objects", "followers", "spells", "trophies", "hand", "area"):
                for card in value:
                    if card not in content.cards:
                        raise ConfigError(f"[setup.{name}] {key}: unknown card {card!r}")
                    _take_from_supply(state, content, card)
                for card in getattr(p, key):  # what setup dealt goes back, so totals stay
                    state.decks[content.cards[card].deck].insert(0, card)
                setattr(p, key, list(value))
            elif key in ("toad", "miss", "quest"):
                if key == "quest" and value in content.cards:  # a Warlock Quest card
                    _take_from_supply(state, content, value)
                setattr(p, key, value)
            elif not hooks.scenario_setup(state, content, p, key, value):  # a pack's key
                raise ConfigError(f"[setup.{name}]: cannot set {key!r}")
    for deck, top in data.get("decks", {}).items():
        cards = state.decks.get(deck)
        if cards is None:
            raise ConfigError(f"[decks]: no deck called {deck!r}")
        for card in top:
            if card not in cards:
                raise ConfigError(f"[decks] {deck}: {card!r} is not in the deck")
            cards.remove(card)
        cards.extend(reversed(top))  # the top of a deck is the end of its list
    for name, cards in data.get("spaces", {}).items():
        for card in cards:
            _take_from_supply(state, content, card)
        state.spaces.setdefault(name, []).extend(cards)
    for name, cards in data.get("piles", {}).items():  # a pack's piles: "denizen@city", ...
        for card in state.piles.pop(name, []):  # what setup dealt there goes back
            state.decks[content.cards[card].deck].insert(0, card)
        for card in cards:
            if card not in content.cards:
                raise ConfigError(f"[piles] {name}: unknown card {card!r}")
            _take_from_supply(state, content, card)
        state.piles[name] = list(cards)
    for name, value in data.get("pools", {}).items():  # shared resources (Nemesis: shared_fate)
        if name not in state.pools:
            raise ConfigError(f"[pools]: no pool called {name!r}")
        state.pools[name] = int(value)
    state.forced = [int(d) for d in data.get("dice", [])]
    machine.run(machine.Ctx(state, [], hooks))
    return state


def _take_from_supply(state: Game, content: Content, card: str) -> None:
    """A card placed by a scenario leaves its deck, so card totals stay constant."""
    deck = state.decks.get(content.cards[card].deck, [])
    if card in deck:
        deck.remove(card)


def run(data: dict[str, Any], packs: Sequence[Pack] = ()) -> tuple[Game, list[Event]]:
    state = build(data, packs)
    events: list[Event] = []
    for line in data.get("moves", []):
        state, ev = api.apply(state, api.parse_move(line), packs=packs)
        events.extend(ev)
    return state, events


def run_file(path: str, packs: Sequence[Pack] = ()) -> dict[str, Any]:
    with open(path, "rb") as f:
        data = tomllib.load(f)
    state, _ = run(data, packs)
    return api.summary(state, packs=packs)

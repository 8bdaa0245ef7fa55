"""The Dungeon pack (issue 17) beyond its scenarios (tests/scenarios/dungeon-*.toml): other packs'
moves offered in the Dungeon (the Deep Realms' entries), Treasures out of play for good, the
emergence chart as data a moderator may correct, the stand-ins marked and listed, bots really
going down to the Treasure Chamber."""
from pathlib import Path

import pytest

from engine import api, content, scenario
from engine.config import ConfigError
from engine.content import die_rows
from engine.packs import dungeon
from engine.packs.base import Pack
from engine.rules.items import discard
from engine.rules.movement import place
from engine.state import Option
from pbem.bot import playout

DOCS = Path(__file__).resolve().parent.parent / "docs" / "rules-decisions.md"
PLAYERS = [{"name": "alice", "character": "troll"}, {"name": "bob", "character": "warrior"}]


class RealmStub(Pack):
    """Stands in for the Deep Realms: from the Crypt Stair, a step into a Realm instead of rolling."""
    name = "realm-stub"  # no content folder of its own

    def move_options(self, ctx, i):
        return [Option("realm-step", "step into the Realm")] if ctx.player(i).space == dungeon.CRYPT_STAIR else None

    def move_choice(self, ctx, i, key):
        if key != "realm-step":
            return None
        ctx.emit("realm", f"{ctx.name(i)} steps into the Realm.")
        place(ctx, i, dungeon.HALL)
        return True


STUB = (RealmStub(),)  # handed to the engine beside the Dungeon: no list of packs is changed
PACK = dungeon.PACK


def game(space: str, dice: list[int], game_packs: tuple[str, ...] = ("dungeon",), **setup):
    return scenario.build({"game": {"packs": list(game_packs), "seed": "s", "players": PLAYERS},
                           "setup": {"alice": {"space": space, "fate": 0, **setup}}, "dice": dice}, packs=STUB)


def keys(state) -> list[str]:
    return [o.key for o in state.prompt.options]


def test_other_packs_moves_are_offered_beside_with_and_against():
    """CONTRACT-17: the Dungeon's move asks other packs' move_options and hands theirs to move_choice."""
    state = game(dungeon.CRYPT_STAIR, [2], ("dungeon", "realm-stub"))
    assert state.prompt.kind == "dungeon-way" and keys(state) == ["with", "against", "realm-step"]
    state, events = api.apply(state, api.Move("alice", "realm-step"), packs=STUB)
    assert "alice steps into the Realm." in [e.text for e in events]
    assert state.players[0].space == dungeon.HALL
    # elsewhere the other pack has nothing to offer: the usual question
    assert keys(game("passage-3", [2], ("dungeon", "realm-stub"))) == ["with", "against"]


def test_without_another_packs_option_a_single_way_is_not_asked():
    """From the Treasure Chamber only `against` is left: played at once; with another pack's
    option beside it, it is a real question."""
    state = game(dungeon.CHAMBER, [1], ("dungeon", "realm-stub"))
    assert state.players[0].space == "passage-4" and state.prompt.players == ["bob"]


def test_a_discarded_treasure_never_comes_back():
    state = game("passage", [1])
    ctx = api.context(state)
    left = list(state.decks["treasure"])
    card = state.decks["treasure"].pop()
    discard(ctx, card)
    assert state.discards["box"] == [card] and card not in state.decks["treasure"]
    for _ in left[:-1]:  # the pile emptied: nothing is reshuffled back into it
        state.decks["treasure"].pop()
    assert ctx.draw("treasure") is None and state.discards["box"] == [card]
    assert api.summary(state)["dungeon"]["treasure_gone"] == [card]


def test_the_dungeon_region_draws_dungeon_cards_and_the_main_board_adventure_cards():
    pack = PACK
    state = game("passage", [1])
    ctx = api.context(state)
    assert pack.draw_deck(ctx, 0) == "dungeon"
    state.players[0].space = "ruins"
    assert pack.draw_deck(ctx, 0) is None


def test_a_mark_left_unread_is_dropped_at_the_end_of_the_turn():
    """The mark that spares an arrival at the Ruins its question lasts one turn only."""
    state = game("ruins", [1])
    ctx = api.context(state)
    state.players[0].flags[dungeon.STAYING] = 1
    PACK.between_turns(ctx, 0, 1)
    assert dungeon.STAYING not in state.players[0].flags


def test_no_one_stays_in_the_treasure_chamber_past_its_turn():
    """The invariant the playouts assert: the Lord is fought and the chamber left in one turn."""
    state = game("passage", [1])  # alice's move is asked
    loaded = content.load("revised4", ("dungeon",))
    assert PACK.invariants(state, loaded) == []
    state.players[1].space = dungeon.CHAMBER
    assert PACK.invariants(state, loaded) == ["bob stays in the Treasure Chamber past its turn"]


def chamber_args(loaded) -> dict:
    return loaded.board.spaces[dungeon.CHAMBER].hook_args


def test_the_chart_has_a_line_for_every_margin_and_8_leads_to_the_crown():
    args = chamber_args(content.load("revised4", ("dungeon",)))
    assert args["lord"] == {"name": "the Lord of Darkness", "strength": 12, "craft": 12}
    rows = die_rows(args["emerge"])
    top = max(hi for _, hi, _ in rows)
    assert top == 8 and [ops for lo, hi, ops in rows if lo <= 8 <= hi] == [
        [{"op": "teleport", "to": "crown-of-command"}]]
    for margin in range(top + 1):
        assert sum(lo <= margin <= hi for lo, hi, _ in rows) == 1, margin


def test_a_moderator_corrects_a_line_of_the_chart_in_a_content_folder():
    """The chart is the Treasure Chamber's data (hook_args), so an overlay of board.toml changes it."""
    over = ('[[space]]\nname = "Treasure Chamber"\nhook_args.lord = { name = "the Lord of Darkness", strength = 12, '
            'craft = 12 }\nhook_args.emerge."0" = [{ op = "gain", what = "gold", n = 5 }]\n'
            'hook_args.emerge."1-8" = [{ op = "teleport", to = "crown-of-command" }]\n')
    previous = content.use_overlay({"dungeon/board.toml": over})
    try:
        state, events = scenario.run({"game": {"packs": ["dungeon"], "seed": "s", "players": PLAYERS},
                                      "setup": {"alice": {"space": "passage-4", "fate": 0}},
                                      "dice": [1, 1, 6], "moves": ["alice: with", "alice: battle"]})
    finally:
        content.use_overlay(previous)
    alice = state.players[0]
    assert alice.gold == 6  # line 0 now pays 5 gold
    assert alice.space == "ruins"  # and moves nobody: the character still emerges
    assert "alice climbs out of the Dungeon to the Ruins." in [e.text for e in events]


def test_winner_takes_all_is_an_option_of_the_dungeon():
    cfg = api.game_config({"packs": ["dungeon"], "players": PLAYERS, "options": {"winner_takes_all": True}})
    assert cfg.option("winner_takes_all") is True
    with pytest.raises(ConfigError, match="winner_takes_all: one of False, True"):
        api.game_config({"packs": ["dungeon"], "players": PLAYERS, "options": {"winner_takes_all": "yes"}})
    with pytest.raises(ConfigError, match="needs the dungeon pack"):
        api.game_config({"players": PLAYERS, "options": {"winner_takes_all": True}})


def test_every_stand_in_is_marked_and_listed_in_the_rules_decisions():
    loaded = content.load("revised4", ("dungeon",))
    spaces = [s for s in loaded.board.spaces.values() if s.pack == "dungeon"]
    cards = [c for c in loaded.cards.values() if c.pack == "dungeon"]
    assert len(spaces) == 9 and len(cards) == 21
    assert not any(s.confirmed for s in spaces) and not any(c.confirmed for c in cards)
    doc = DOCS.read_text(encoding="utf-8")
    section = doc[doc.index("## The Dungeon"):]
    section = " ".join(section[:section.find("\n## ", 3) if "\n## " in section[3:] else len(section)].split())
    for name in {s.name for s in spaces} | {c.name for c in cards}:
        assert name in section, f"{name} is not listed in docs/rules-decisions.md, The Dungeon"


def test_bots_go_down_to_the_treasure_chamber_and_the_game_ends():
    """Really playable: random bots enter from the Ruins, walk the path and meet the Lord."""
    config = {"packs": ["dungeon"], "players": [{"name": f"p{i}"} for i in range(4)], "options": {"turn_cap": 80}}
    ring = set(content.load("revised4", ("dungeon",)).board.rings["dungeon"])
    seen: set[str] = set()
    lord = 0
    for seed in range(3):
        final, moves = playout(config, f"dungeon{seed}", bot_seed=seed)
        assert final.over
        state = api.new_game(config, f"dungeon{seed}")
        for move in moves:
            state, events = api.apply(state, move)
            seen |= {p.space for p in state.players if p.space in ring}
            lord += sum("emerges from the Treasure Chamber" in e.text for e in events)
    assert {dungeon.ENTRANCE, dungeon.HALL, dungeon.CRYPT_STAIR, dungeon.CHAMBER} <= seen, seen
    assert lord >= 1


def test_a_game_with_the_dungeon_plays_to_its_end():
    """No turn cap: someone reaches the Crown and outlasts the rest (random bots may wander long:
    the first of a few seeds that ends)."""
    config = {"packs": ["dungeon"], "players": [{"name": f"p{i}"} for i in range(4)]}
    for seed in range(2, 6):
        final, _ = playout(config, f"full{seed}", bot_seed=seed, max_moves=30000)
        if final.over:
            break
    assert final.over and final.crown_reached and len(final.winners) == 1

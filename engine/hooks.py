"""A game's packs resolved once: `Hooks`, carried on the `Ctx` (engine/rules/machine.py), with one
typed method per hook of `Pack` (engine/packs/base.py), so mypy checks every call the core makes.

The API's door builds it (engine/registry.py `hooks`) from the base game's pack, always first,
and the game's packs in config order. Each method states how several packs' answers combine:

  ALL    every pack's runs, in order; lists they answer are joined (for a yes/no, the method
         says whether any True or any False decides).
  FIRST  a pack takes something over (a turn played its own way, an arrival, an option key only
         it offers): every pack that implements the hook is asked, in order, and at most one may
         answer (not None). Two answers are a `PackConflict`: such packs cannot share that moment.
  AGREE  every pack is asked (these hooks only read); those that answer must give the same
         answer, else `PackConflict`: two packs that both decide who begins cannot be played together.
  EACH   every pack's answer is kept apart, under its name (`public`: a key of the summary).
  OWNER  asked of the one pack a card belongs to (`ending_setup`).

Only the packs that override a hook are asked it (`_by`), so a hook no pack of the game has costs
a loop over nothing.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar

from engine import content as content_mod
from engine.config import GameConfig
from engine.content import Character, Content, Source
from engine.packs.base import Pack
from engine.rules.machine import Ctx
from engine.state import Game, Option, Player
from engine.text import Text

T = TypeVar("T")


class PackConflict(ValueError):
    """Two packs of one game both claim a FIRST hook, or answer an AGREE hook differently."""


def _overrides(pack: Pack, hook: str) -> bool:
    return getattr(type(pack), hook) is not getattr(Pack, hook)


class Hooks:
    """The hooks of one game's packs: `base` (the base game's card hooks) then `packs`."""

    def __init__(self, base: Pack, packs: Sequence[Pack]) -> None:
        self.packs: tuple[Pack, ...] = tuple(packs)  # the game's, in config order
        self.chain: tuple[Pack, ...] = (base, *self.packs)
        self.sources: tuple[Source, ...] = tuple(p.source() for p in self.packs)  # their content (engine/content.py)
        self.facedown_piles: frozenset[str] = frozenset(k for p in self.packs for k in p.facedown_piles)
        self._content: tuple[str, int, Content] | None = None  # (edition, overlay generation, content)
        self._by: dict[str, tuple[Pack, ...]] = {
            hook: tuple(p for p in self.chain if _overrides(p, hook)) for hook in HOOKS}

    def _one(self, hook: str, answers: Sequence[tuple[Pack, T]]) -> T | None:
        """FIRST: the one answer given (None: nobody claimed it)."""
        claims = [(p, a) for p, a in answers if a is not None]
        if len(claims) > 1:
            raise PackConflict(f"packs {claims[0][0].name!r} and {claims[1][0].name!r} both claim {hook}")
        return claims[0][1] if claims else None

    def _agree(self, hook: str, answers: Sequence[tuple[Pack, T]]) -> T | None:
        """AGREE: the answer of those that answer, which must be the same."""
        answer: T | None = None
        by: Pack | None = None
        for pack, out in answers:
            if out is None:
                continue
            if by is not None and out != answer:
                raise PackConflict(f"packs {by.name!r} and {pack.name!r} disagree on {hook}: {answer!r} and {out!r}")
            answer, by = out, pack
        return answer

    def content(self, edition: str) -> Content:
        """The game's content (engine/content.py `load`), kept until the overlay changes: a Ctx
        is made for every move."""
        kept, generation = self._content, content_mod.generation()
        if kept is None or kept[0] != edition or kept[1] != generation:
            kept = self._content = (edition, generation, content_mod.load(edition, self.sources))
        return kept[2]

    # -- declarations read -------------------------------------------------------------------------
    def names(self) -> list[str]:
        return [p.name for p in self.packs]

    def default_ending(self) -> str:
        """The `alternative_ending` variant played unless set: the first game pack's that has one."""
        return next((p.default_ending for p in self.packs if p.default_ending), "revealed")

    def side_victory(self) -> bool:
        """A pack's heroes win as one side (the Nemesis): one dead by then wins too."""
        return any(p.side_victory for p in self.packs)

    # -- setting up --------------------------------------------------------------------------------
    def setup(self, ctx: Ctx, config: GameConfig) -> None:
        """ALL."""
        for p in self._by["setup"]:
            p.setup(ctx, config)

    def first_player(self, ctx: Ctx) -> int | None:
        """AGREE."""
        return self._agree("first_player", [(p, p.first_player(ctx)) for p in self._by["first_player"]])

    def start_space(self, ctx: Ctx, character: Character) -> str | None:
        """AGREE."""
        return self._agree("start_space", [(p, p.start_space(ctx, character)) for p in self._by["start_space"]])

    def seated(self, ctx: Ctx, config: GameConfig) -> list[tuple[str, int, dict[str, Any]]]:
        """ALL, joined."""
        out: list[tuple[str, int, dict[str, Any]]] = []
        for p in self._by["seated"]:
            out += p.seated(ctx, config)
        return out

    def ending_setup(self, ctx: Ctx, card: str) -> None:
        """OWNER: the pack of the game the ending card comes from, if any."""
        owner = ctx.content.cards[card].pack
        for p in self.packs:
            if p.name == owner:
                p.ending_setup(ctx, card)

    def scenario_setup(self, state: Game, content: Content, p: Player, key: str, value: Any) -> bool:
        """FIRST."""
        return bool(self._one("scenario_setup", [(k, k.scenario_setup(state, content, p, key, value))
                                                 for k in self._by["scenario_setup"]]))

    # -- turns -------------------------------------------------------------------------------------
    def turn_start(self, ctx: Ctx, i: int) -> bool:
        """FIRST."""
        return bool(self._one("turn_start", [(p, p.turn_start(ctx, i)) for p in self._by["turn_start"]]))

    def between_turns(self, ctx: Ctx, done: int, nxt: int) -> None:
        """ALL."""
        for p in self._by["between_turns"]:
            p.between_turns(ctx, done, nxt)

    # -- moving ------------------------------------------------------------------------------------
    def move_options(self, ctx: Ctx, i: int) -> list[Option]:
        """ALL, joined."""
        out: list[Option] = []
        for p in self._by["move_options"]:
            out += p.move_options(ctx, i) or []
        return out

    def move_choice(self, ctx: Ctx, i: int, key: str) -> bool:
        """FIRST."""
        return bool(self._one("move_choice", [(p, p.move_choice(ctx, i, key)) for p in self._by["move_choice"]]))

    def crossed_river(self, ctx: Ctx, i: int) -> None:
        """ALL."""
        for p in self._by["crossed_river"]:
            p.crossed_river(ctx, i)

    def portal_dice(self, ctx: Ctx, i: int, attr: str) -> int:
        """FIRST (none: 2 dice)."""
        n = self._one("portal_dice", [(p, p.portal_dice(ctx, i, attr)) for p in self._by["portal_dice"]])
        return 2 if n is None else n

    def through_portal(self, ctx: Ctx, i: int) -> None:
        """ALL."""
        for p in self._by["through_portal"]:
            p.through_portal(ctx, i)

    def crown_closed(self, ctx: Ctx, i: int) -> bool:
        """FIRST."""
        return bool(self._one("crown_closed", [(p, p.crown_closed(ctx, i)) for p in self._by["crown_closed"]]))

    def crown_wins(self, ctx: Ctx, i: int) -> bool:
        """FIRST; True unless a pack says otherwise."""
        return self._one("crown_wins", [(p, p.crown_wins(ctx, i)) for p in self._by["crown_wins"]]) is not False

    def arrived(self, ctx: Ctx, i: int) -> bool:
        """FIRST."""
        return bool(self._one("arrived", [(p, p.arrived(ctx, i)) for p in self._by["arrived"]]))

    # -- encounters, Spells and cards --------------------------------------------------------------
    def encounter_options(self, ctx: Ctx, i: int) -> list[Option] | None:
        """FIRST (None: the usual options)."""
        return self._one("encounter_options", [(p, p.encounter_options(ctx, i)) for p in self._by["encounter_options"]])

    def encounter_choice(self, ctx: Ctx, i: int, key: str) -> bool:
        """FIRST."""
        return bool(self._one("encounter_choice", [(p, p.encounter_choice(ctx, i, key))
                                                   for p in self._by["encounter_choice"]]))

    def start_options(self, ctx: Ctx, i: int) -> list[Option]:
        """ALL, joined (the base game's cards first)."""
        out: list[Option] = []
        for p in self._by["start_options"]:
            out += p.start_options(ctx, i) or []
        return out

    def start_choice(self, ctx: Ctx, i: int, key: str) -> bool:
        """FIRST."""
        return bool(self._one("start_choice", [(p, p.start_choice(ctx, i, key)) for p in self._by["start_choice"]]))

    def choose_options(self, ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> list[dict[str, Any]]:
        """ALL, joined."""
        out: list[dict[str, Any]] = []
        for p in self._by["choose_options"]:
            out += p.choose_options(ctx, i, o, meta) or []
        return out

    def drawn(self, ctx: Ctx, i: int, cards: list[str]) -> None:
        """ALL."""
        for p in self._by["drawn"]:
            p.drawn(ctx, i, cards)

    def redraw_allowed(self, ctx: Ctx, i: int) -> bool:
        """ALL: any True allows it."""
        for p in self._by["redraw_allowed"]:  # a loop, not any(): no generator on a hot path
            if p.redraw_allowed(ctx, i):
                return True
        return False

    def draw_deck(self, ctx: Ctx, i: int) -> str | None:
        """FIRST (None: the Adventure deck)."""
        return self._one("draw_deck", [(p, p.draw_deck(ctx, i)) for p in self._by["draw_deck"]])

    def may_take(self, ctx: Ctx, i: int, card: str) -> bool:
        """ALL: any False refuses."""
        for p in self._by["may_take"]:
            if p.may_take(ctx, i, card) is False:
                return False
        return True

    def taken(self, ctx: Ctx, i: int, card: str) -> None:
        """ALL."""
        for p in self._by["taken"]:
            p.taken(ctx, i, card)

    def shielded(self, ctx: Ctx, j: int) -> bool:
        """ALL: any True shields."""
        for p in self._by["shielded"]:
            if p.shielded(ctx, j):
                return True
        return False

    def quest_possible(self, ctx: Ctx, i: int, goal: str) -> bool:
        """FIRST: only False refuses."""
        return self._one("quest_possible", [(p, p.quest_possible(ctx, i, goal))
                                            for p in self._by["quest_possible"]]) is not False

    # -- fights, trophies, deaths ------------------------------------------------------------------
    def fight_options(self, ctx: Ctx, i: int, a: dict[str, Any]) -> list[Option]:
        """ALL, joined."""
        out: list[Option] = []
        for p in self._by["fight_options"]:
            out += p.fight_options(ctx, i, a) or []
        return out

    def fight_choice(self, ctx: Ctx, i: int, key: str, a: dict[str, Any]) -> Literal["again", "over"] | None:
        """FIRST."""
        return self._one("fight_choice", [(p, p.fight_choice(ctx, i, key, a)) for p in self._by["fight_choice"]])

    def ask_helpers(self, ctx: Ctx, i: int, a: dict[str, Any]) -> bool:
        """FIRST."""
        return bool(self._one("ask_helpers", [(p, p.ask_helpers(ctx, i, a)) for p in self._by["ask_helpers"]]))

    def foe_reroll(self, ctx: Ctx, i: int) -> bool:
        """FIRST."""
        return bool(self._one("foe_reroll", [(p, p.foe_reroll(ctx, i)) for p in self._by["foe_reroll"]]))

    def life_taken(self, ctx: Ctx, winner: int, battle: bool) -> None:
        """ALL."""
        for p in self._by["life_taken"]:
            p.life_taken(ctx, winner, battle)

    def trophy_value(self, ctx: Ctx, p: Player) -> Callable[[str, str], int] | None:
        """FIRST (None: the cards' printed Strength and Craft)."""
        return self._one("trophy_value", [(k, k.trophy_value(ctx, p)) for k in self._by["trophy_value"]])

    def trophy_spent(self, ctx: Ctx, p: Player, card: str, attr: str) -> None:
        """ALL."""
        for k in self._by["trophy_spent"]:
            k.trophy_spent(ctx, p, card, attr)

    def dying(self, ctx: Ctx, i: int) -> None:
        """ALL."""
        for p in self._by["dying"]:
            p.dying(ctx, i)

    def killed(self, ctx: Ctx, i: int) -> None:
        """ALL."""
        for p in self._by["killed"]:
            p.killed(ctx, i)

    def duel_won(self, ctx: Ctx, winner: int, loser: int) -> None:
        """ALL."""
        for p in self._by["duel_won"]:
            p.duel_won(ctx, winner, loser)

    # -- the moderator -----------------------------------------------------------------------------
    def set_companion_level(self, ctx: Ctx, i: int, level: int) -> Text | bool | None:
        """FIRST."""
        return self._one("set_companion_level", [(p, p.set_companion_level(ctx, i, level))
                                                 for p in self._by["set_companion_level"]])

    def adjudicate(self, ctx: Ctx, i: int, what: str, value: str) -> bool | Text | None:
        """FIRST."""
        return self._one("adjudicate", [(p, p.adjudicate(ctx, i, what, value)) for p in self._by["adjudicate"]])

    # -- what everyone sees, checks ----------------------------------------------------------------
    def public(self, ctx: Ctx) -> dict[str, dict[str, Any]]:
        """EACH: every game pack's, under its name."""
        return {p.name: p.public(ctx) for p in self.packs}

    def public_text(self, ctx: Ctx) -> dict[str, Sequence[Text]]:
        """EACH: every game pack's that has something to say, under its name."""
        out = {p.name: p.public_text(ctx) for p in self._by["public_text"]}
        return {name: lines for name, lines in out.items() if lines}

    def invariants(self, state: Game, content: Content) -> list[str]:
        """ALL, joined."""
        out: list[str] = []
        for p in self._by["invariants"]:
            out += p.invariants(state, content)
        return out


# The hooks: every method of Pack but its declarations' helpers (tests/test_packs.py checks that
# each has its method above, with the same parameters).
HOOKS: tuple[str, ...] = (
    "setup", "first_player", "start_space", "seated", "ending_setup", "scenario_setup", "turn_start",
    "between_turns", "move_options", "move_choice", "crossed_river", "portal_dice", "through_portal",
    "crown_closed", "crown_wins", "arrived", "encounter_options", "encounter_choice", "start_options",
    "start_choice", "choose_options", "drawn", "redraw_allowed", "draw_deck", "may_take", "taken", "shielded",
    "quest_possible", "fight_options", "fight_choice", "ask_helpers", "foe_reroll", "life_taken", "trophy_value",
    "trophy_spent", "dying", "killed", "duel_won", "set_companion_level", "adjudicate", "public", "public_text",
    "invariants")

"""A pack declared as one object: what it is (data attributes) and where it changes the core's
rules (hook methods with defaults), in the spirit of python-chess's `variant.py`.

A pack is a subclass of `Pack` in engine/packs/<pack>.py, one instance of which is listed in
`engine.registry.PACKS`: that entry and the pack's content folder are all it takes to add one
(docs/contributing.md, "A pack"). The config checks (engine/config.py), the coverage report
(engine/coverage.py), the summary's pack keys (engine/visibility.py) and the service read the
packs from that list.

The core asks a hook through `engine.packs.call(state, hook, ...)`. Several packs may be in one
game, so each hook says how their answers combine (`COMBINE`, checked against the methods by
tests/test_packs.py):

  ALL    every pack's runs, in config order; lists they answer are joined. For work each pack
         does for itself (setup, a death, the end of a turn) and options each may add.
  FIRST  the packs are asked in config order and the first answer other than None is the
         answer; the others are not asked. For a hook that takes something over (a turn played
         its own way, an option key only its pack knows): at most one pack may claim it, and a
         pack that has nothing to say answers None.
  AGREE  every pack is asked (these hooks only read); those that answer must give the same
         answer, else `PackConflict`: two packs that both decide who begins, or where a
         character starts, cannot be played together.
  EACH   every pack's answer is kept apart, under its name (`public`: a key of the summary).
  OWNER  asked of the one pack a card belongs to (`ending_setup`).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from engine.rules.machine import Ctx
from engine.state import Option

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # installed without mypy: nothing was compiled, the decorator has nothing to say
    def mypyc_attr(*args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
        return lambda cls: cls

ALL, FIRST, AGREE, EACH, OWNER = "all", "first", "agree", "each", "owner"


class PackConflict(ValueError):
    """Two packs of one game answer an AGREE hook differently."""


class RuleOption:
    """A rule option a pack brings: its name in [game.options], its default, what it does (for
    the docs), the values it may take (empty: any) and what a config with another is told."""

    def __init__(self, name: str, default: Any, doc: str, choices: tuple[Any, ...] = (), refused: str = "") -> None:
        self.name = name
        self.default = default
        self.doc = doc
        self.choices = choices
        self.refused = refused


# Compiled by mypyc, a class cannot be subclassed by interpreted code unless it allows it: a pack
# defined in a test, or in house rules kept outside the engine, is interpreted.
@mypyc_attr(allow_interpreted_subclasses=True)
class Pack:
    """A pack's declaration and its hooks. Every hook's default does nothing: a pack overrides
    those it needs. The arguments are the core's: `ctx` the move's context, `i` a player's index.
    Override a hook with a `def`: compiled code calls this class's methods through mypyc's method
    table, which a function bound as a class attribute (`setup = staticmethod(f)`) does not enter."""

    name: ClassVar[str] = ""  # as written in a game config's `packs`
    title: ClassVar[str] = ""  # as printed on its box, for players ("": its name)
    content: ClassVar[str] = ""  # its folder in engine/content/ ("": its name)
    editions: ClassVar[tuple[str, ...]] = ()  # the editions it is made for (empty: any)
    playable: ClassVar[bool] = True  # False: known, but its rules are not implemented yet
    sole: ClassVar[bool] = False  # played with no other pack (its own board and sides)
    requires: ClassVar[tuple[str, ...]] = ()  # packs it cannot be played without
    excludes: ClassVar[tuple[str, ...]] = ()  # packs it cannot be played with
    roles: ClassVar[tuple[str, ...]] = ()  # player roles it brings beside "hero"
    options: ClassVar[tuple[RuleOption, ...]] = ()  # its rule options (docs/rules-decisions.md)
    endings: ClassVar[bool] = False  # it brings Alternative Ending cards (engine/rules/endings.py)
    default_ending: ClassVar[str] = ""  # the `alternative_ending` variant it plays unless told ("": none)
    card_hooks: ClassVar[frozenset[str]] = frozenset()  # card hooks its module implements (coverage)
    side_victory: ClassVar[bool] = False  # its heroes win as one side: one dead by then wins too (invariants)

    def folder(self) -> str:
        return self.content or self.name

    # -- setting up (engine/rules/setup.py, engine/config.py, engine/scenario.py) ---------------
    def check_config(self, config: Any) -> None:
        """ALL. Refuse (ConfigError) a game config this pack cannot play; run only when it is in
        the game (an option of a pack not in the game is refused by engine/config.py)."""

    def setup(self, ctx: Ctx, config: Any) -> None:
        """ALL. After the decks are dealt, before the characters: the pack's own cards and piles."""

    def first_player(self, ctx: Ctx) -> int | None:
        """AGREE. Who plays first (None: player 0)."""
        return None

    def start_space(self, ctx: Ctx, character: Any) -> str | None:
        """AGREE. Where a new character starts (None: its printed start)."""
        return None

    def seated(self, ctx: Ctx, config: Any) -> list[tuple]:
        """ALL. Setup work after the characters are dealt, as (task, player, args)."""
        return []

    def ending_setup(self, ctx: Ctx, card: str) -> None:
        """OWNER. Setup of its own an Alternative Ending card of this pack needs when placed."""

    def scenario_setup(self, state: Any, content: Any, p: Any, key: str, value: Any) -> bool | None:
        """FIRST. A key of a scenario's [setup.<player>] only this pack knows: True when set. Asked
        of `space` too, where being put on one of the pack's spaces means more (the Timescape)."""
        return None

    # -- turns ---------------------------------------------------------------------------------
    def turn_start(self, ctx: Ctx, i: int) -> bool | None:
        """FIRST. True: the pack plays player i's turn its own way (at sea, in the City...)."""
        return None

    def between_turns(self, ctx: Ctx, done: int, nxt: int) -> None:
        """ALL. After player `done`'s turn, before `nxt`'s (the Nemesis's additional turn)."""

    # -- moving ----------------------------------------------------------------------------------
    def move_options(self, ctx: Ctx, i: int) -> list[Option] | None:
        """ALL. Options beside the directions of a movement roll."""
        return None

    def move_choice(self, ctx: Ctx, i: int, key: str) -> bool | None:
        """FIRST. An answer to the movement question that is one of this pack's options: handled."""
        return None

    def through_portal(self, ctx: Ctx, i: int) -> None:
        """ALL. Player i has come onto the Plain of Peril through the Portal."""

    def crown_closed(self, ctx: Ctx, i: int) -> bool | None:
        """FIRST. True: the climb from the Valley of Fire is not offered to player i."""
        return None

    def arrived(self, ctx: Ctx, i: int) -> bool | None:
        """FIRST. Player i's move has ended on its space: True when the pack takes over the arrival."""
        return None

    # -- encounters, Spells and cards -------------------------------------------------------------
    def encounter_options(self, ctx: Ctx, i: int) -> list[Option] | None:
        """FIRST. The options of player i's encounter question instead of the usual ones."""
        return None

    def encounter_choice(self, ctx: Ctx, i: int, key: str) -> bool | None:
        """FIRST. An encounter answer that is one of this pack's options: handled."""
        return None

    def start_options(self, ctx: Ctx, i: int) -> list[Option] | None:
        """ALL. Options beside the Spells of the question before a move."""
        return None

    def start_choice(self, ctx: Ctx, i: int, key: str) -> bool | None:
        """FIRST. An answer to the question before a move that is one of this pack's options."""
        return None

    def choose_options(self, ctx: Ctx, i: int, o: dict, meta: dict) -> list[dict] | None:
        """ALL. Further choices beside those of a `choose` op (as ops.choose's choices)."""
        return None

    def drawn(self, ctx: Ctx, i: int, cards: list[str]) -> None:
        """ALL. Adventure cards player i has just drawn by draw-to-N."""

    def draw_deck(self, ctx: Ctx, i: int) -> str | None:
        """FIRST. The deck player i draws from where the rules say "Adventure cards" (None: the
        Adventure deck; the Dungeon: its Dungeon deck in the Dungeon Region)."""
        return None

    def quest_possible(self, ctx: Ctx, i: int, goal: str) -> bool | None:
        """FIRST. False: a quest for `goal` cannot be given to player i."""
        return None

    # -- fights, trophies, deaths -------------------------------------------------------------------
    def ask_helpers(self, ctx: Ctx, i: int, a: dict) -> bool | None:
        """FIRST. True: the pack asks who joins player i's fight (the fight resumes after)."""
        return None

    def foe_reroll(self, ctx: Ctx, i: int) -> bool | None:
        """FIRST. True: the pack offers a reroll of the foe's die (the fight resumes after)."""
        return None

    def trophy_value(self, ctx: Ctx, p: Any) -> Callable[[str, str], int] | None:
        """FIRST. How player p's trophies count: (card, "strength"/"craft") -> value."""
        return None

    def trophy_spent(self, ctx: Ctx, p: Any, card: str, attr: str) -> None:
        """ALL. Player p has traded in trophy `card` for `attr`."""

    def dying(self, ctx: Ctx, i: int) -> None:
        """ALL. Player i dies: before what its character held is dropped."""

    def killed(self, ctx: Ctx, i: int) -> None:
        """ALL. Player i's character has died (a pack's objective may end the game)."""

    def duel_won(self, ctx: Ctx, winner: int, loser: int) -> None:
        """ALL. An attack between characters is won: `winner` has defeated `loser` (the City's
        alignment Wanted Posters pay a bounty). Asked by engine/rules/combat.py `duel_resolve`."""

    # -- the moderator ---------------------------------------------------------------------------
    def set_companion_level(self, ctx: Ctx, i: int, level: int) -> str | bool | None:
        """FIRST. `adjudicate <p> companion <n>`: True when set, a string when refused (why)."""
        return None

    def adjudicate(self, ctx: Ctx, i: int, what: str, value: str) -> bool | str | None:
        """FIRST. `adjudicate <p> <what> <value>` in this pack's own words: True when done, a
        string when refused (why)."""
        return None

    # -- what everyone sees -------------------------------------------------------------------------
    def public(self, state: Any, content: Any) -> dict[str, Any]:
        """EACH. The pack's key in the public summary and in every view."""
        return {}

    # -- checks (engine/invariants.py, asserted by the playouts) ----------------------------------
    def invariants(self, state: Any, content: Any) -> list[str]:
        """ALL. What must hold of the pack's own state after every move: one line per breach."""
        return []


# How several packs' answers to each hook combine (the module's docstring says what each means).
COMBINE: dict[str, str] = {
    "check_config": ALL, "setup": ALL, "first_player": AGREE, "start_space": AGREE, "seated": ALL,
    "ending_setup": OWNER, "scenario_setup": FIRST,
    "turn_start": FIRST, "between_turns": ALL,
    "move_options": ALL, "move_choice": FIRST, "through_portal": ALL, "crown_closed": FIRST, "arrived": FIRST,
    "encounter_options": FIRST, "encounter_choice": FIRST, "start_options": ALL, "start_choice": FIRST,
    "choose_options": ALL, "drawn": ALL, "draw_deck": FIRST, "quest_possible": FIRST,
    "ask_helpers": FIRST, "foe_reroll": FIRST, "trophy_value": FIRST, "trophy_spent": ALL, "dying": ALL,
    "killed": ALL, "duel_won": ALL,
    "set_companion_level": FIRST, "adjudicate": FIRST,
    "public": EACH, "invariants": ALL,
}


def combine(packs: list[Pack], hook: str, args: tuple) -> Any:
    """The answer of `packs` (a game's, in config order) to `hook`, combined as COMBINE says.
    ALL gives the joined lists (an empty list when no pack adds one), FIRST and AGREE an answer
    or None; EACH and OWNER hooks are asked of one pack at a time, not through here."""
    mode = COMBINE[hook]
    if mode == FIRST:
        for pack in packs:
            out = getattr(pack, hook)(*args)
            if out is not None:
                return out
        return None
    if mode == ALL:
        joined: list = []
        for pack in packs:
            out = getattr(pack, hook)(*args)
            if out:
                joined.extend(out)
        return joined
    if mode == AGREE:
        answer: Any = None
        by: Pack | None = None
        for pack in packs:
            out = getattr(pack, hook)(*args)
            if out is None:
                continue
            if by is not None and out != answer:
                raise PackConflict(f"packs {by.name!r} and {pack.name!r} disagree on {hook}: {answer!r} and {out!r}")
            answer, by = out, pack
        return answer
    raise ValueError(f"hook {hook!r} is asked of one pack ({mode}), not combined")

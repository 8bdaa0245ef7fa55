"""A pack declared as one object: what it is (data attributes) and where it changes the core's
rules (hook methods with defaults), in the spirit of python-chess's `variant.py`.

A pack is a subclass of `Pack` in engine/packs/<pack>.py, one instance of which is listed in
`engine.registry.PACKS` (docs/contributing.md, "A pack"); a pack kept outside the engine is
handed to the API instead (`api.new_game(config, seed, packs=(MyPack(),))`). The base game's
own card hooks are a pack too (engine/packs/revised4.py), first in every game.

The core never asks a pack directly: the API's door resolves a game's packs once into a
`Hooks` (engine/hooks.py), carried on the `Ctx`, with one typed method per hook that says how
several packs' answers combine (ALL, FIRST, AGREE, EACH, OWNER: its docstring). Each hook's
docstring here names its rule.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal

from engine.config import GameConfig, RuleOption
from engine.content import Character, Content, Source
from engine.rules.machine import Ctx
from engine.state import Game, Option, Player
from engine.text import Text

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # installed without mypy: nothing was compiled, the decorator has nothing to say
    def mypyc_attr(*args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
        return lambda cls: cls


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
    content_root: ClassVar[str] = ""  # where its content folder <name>/ lies ("": engine/content/)
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
    # kinds of pile ("<kind>@<space>") whose cards lie facedown: a bot's redealt game deals them
    # again (engine/visibility.py `redeal`); a count of faceup ones on top: counters["<kind>-up@<space>"]
    facedown_piles: ClassVar[tuple[str, ...]] = ()
    # What else reads the declaration, so that adding a pack touches nothing outside it:
    props: ClassVar[frozenset[str]] = frozenset()  # card properties its rules read (coverage, content schema)
    tables: ClassVar[frozenset[tuple[str, str]]] = frozenset()  # its own (file, table)s: content.pack_table
    regions: ClassVar[dict[str, str]] = {}  # its board's rings by their printed names (the reports' map)

    def source(self) -> Source:
        """Where its content lies (engine/content.py): the folder named as the pack."""
        return Source(self.name, self.content_root)

    def option(self, options: dict[str, Any], name: str) -> Any:
        """One of this pack's rule options in a game's options: as set, else its default."""
        if name in options:
            return options[name]
        return next(o.default for o in self.options if o.name == name)

    # -- setting up (engine/rules/setup.py, engine/config.py, engine/scenario.py) ---------------
    def check_config(self, config: GameConfig) -> None:
        """ALL. Refuse (ConfigError) a game config this pack cannot play; run only when it is in
        the game (an option of a pack not in the game is refused by engine/config.py)."""

    def setup(self, ctx: Ctx, config: GameConfig) -> None:
        """ALL. After the decks are dealt, before the characters: the pack's own cards and piles."""

    def first_player(self, ctx: Ctx) -> int | None:
        """AGREE. Who plays first (None: player 0)."""
        return None

    def start_space(self, ctx: Ctx, character: Character) -> str | None:
        """AGREE. Where a new character starts (None: its printed start)."""
        return None

    def seated(self, ctx: Ctx, config: GameConfig) -> list[tuple[str, int, dict[str, Any]]]:
        """ALL. Setup work after the characters are dealt, as (task, player, args)."""
        return []

    def ending_setup(self, ctx: Ctx, card: str) -> None:
        """OWNER. Setup of its own an Alternative Ending card of this pack needs when placed."""

    def scenario_setup(self, state: Game, content: Content, p: Player, key: str, value: Any) -> bool | None:
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

    def crossed_river(self, ctx: Ctx, i: int) -> None:
        """ALL. Player i has crossed the Storm River (the Poltergeist stays behind)."""

    def portal_dice(self, ctx: Ctx, i: int, attr: str) -> int | None:
        """FIRST. How many dice player i rolls to open the Portal of Power by `attr` (None: 2)."""
        return None

    def through_portal(self, ctx: Ctx, i: int) -> None:
        """ALL. Player i has come onto the Plain of Peril through the Portal."""

    def crown_closed(self, ctx: Ctx, i: int) -> bool | None:
        """FIRST. True: the climb from the Valley of Fire is not offered to player i."""
        return None

    def crown_wins(self, ctx: Ctx, i: int) -> bool | None:
        """FIRST. False: the Crown of Command cannot win the game for player i as things stand
        (an ending asks more first), so reaching it would only hold the character there."""
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

    def choose_options(self, ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> list[dict[str, Any]] | None:
        """ALL. Further choices beside those of a `choose` op (as ops.choose's choices)."""
        return None

    def drawn(self, ctx: Ctx, i: int, cards: list[str]) -> None:
        """ALL. Adventure cards player i has just drawn by draw-to-N."""

    def redraw_allowed(self, ctx: Ctx, i: int) -> bool | None:
        """ALL (any True). Player i may discard one card just drawn and draw another."""
        return None

    def draw_deck(self, ctx: Ctx, i: int) -> str | None:
        """FIRST. The deck player i draws from where the rules say "Adventure cards" (None: the
        Adventure deck; the Dungeon: its Dungeon deck in the Dungeon Region)."""
        return None

    def may_take(self, ctx: Ctx, i: int, card: str) -> bool | None:
        """ALL (any False refuses). Whether player i may take the Object or Follower `card`."""
        return None

    def taken(self, ctx: Ctx, i: int, card: str) -> None:
        """ALL. Player i has taken the Object or Follower `card` (the Hag, the Mercenary)."""

    def shielded(self, ctx: Ctx, j: int) -> bool | None:
        """ALL (any True). No Spell of another affects player j (the Amulet; apart players)."""
        return None

    def quest_possible(self, ctx: Ctx, i: int, goal: str) -> bool | None:
        """FIRST. False: a quest for `goal` cannot be given to player i."""
        return None

    # -- fights, trophies, deaths -------------------------------------------------------------------
    def fight_options(self, ctx: Ctx, i: int, a: dict[str, Any]) -> list[Option] | None:
        """ALL. Options beside `fight` and `evade` when a creature faces player i (`a`: the fight)."""
        return None

    def fight_choice(self, ctx: Ctx, i: int, key: str, a: dict[str, Any]) -> Literal["again", "over"] | None:
        """FIRST. An answer to the fight question that is one of this pack's options: "again" when
        it changed the fight (`a`) and the question is asked again, "over" when it ended it."""
        return None

    def ask_helpers(self, ctx: Ctx, i: int, a: dict[str, Any]) -> bool | None:
        """FIRST. True: the pack asks who joins player i's fight (the fight resumes after)."""
        return None

    def foe_reroll(self, ctx: Ctx, i: int) -> bool | None:
        """FIRST. True: the pack offers a reroll of the foe's die (the fight resumes after)."""
        return None

    def life_taken(self, ctx: Ctx, winner: int, battle: bool) -> None:
        """ALL. `winner` has taken a life from a character in an attack (the Runesword)."""

    def trophy_value(self, ctx: Ctx, p: Player) -> Callable[[str, str], int] | None:
        """FIRST. How player p's trophies count: (card, "strength"/"craft") -> value."""
        return None

    def trophy_spent(self, ctx: Ctx, p: Player, card: str, attr: str) -> None:
        """ALL. Player p has spent trophy `card` (counted toward `attr`): traded in, or paid for a
        bounty; it has gone to its discard pile (engine/rules/turn.py `spend_trophy`)."""

    def dying(self, ctx: Ctx, i: int) -> None:
        """ALL. Player i dies: before what its character held is dropped."""

    def killed(self, ctx: Ctx, i: int) -> None:
        """ALL. Player i's character has died (a pack's objective may end the game)."""

    def duel_won(self, ctx: Ctx, winner: int, loser: int) -> None:
        """ALL. An attack between characters is won: `winner` has defeated `loser` (the City's
        alignment Wanted Posters pay a bounty). Asked by engine/rules/combat.py `duel_resolve`."""

    # -- the moderator ---------------------------------------------------------------------------
    def set_companion_level(self, ctx: Ctx, i: int, level: int) -> Text | bool | None:
        """FIRST. `adjudicate <p> companion <n>`: True when set, a string when refused (why)."""
        return None

    def adjudicate(self, ctx: Ctx, i: int, what: str, value: str) -> bool | Text | None:
        """FIRST. `adjudicate <p> <what> <value>` in this pack's own words: True when done, a
        string when refused (why)."""
        return None

    # -- what everyone sees -------------------------------------------------------------------------
    def public(self, ctx: Ctx) -> dict[str, Any]:
        """EACH. The pack's key in the public summary and in every view (`ctx` only to read)."""
        return {}

    def public_text(self, ctx: Ctx) -> Sequence[Text]:
        """EACH. The pack's public state as players read it: a few short sentences (no more than
        `public` shows), each part left out when there is nothing to say, each a message (a reader's
        language translates it). The reports and pages show them under the pack's title (`ctx`
        only to read)."""
        return []

    # -- checks (engine/invariants.py, asserted by the playouts) ----------------------------------
    def invariants(self, state: Game, content: Content) -> list[str]:
        """ALL. What must hold of the pack's own state after every move: one line per breach."""
        return []

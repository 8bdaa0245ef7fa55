"""The game's state as msgspec Structs: plain data, encodable, compared by value.

Fields left at their defaults are not encoded (`omit_defaults`), so a field added later with a
default leaves the encoding, and the state hashes of archived games, unchanged.

The Structs are `gc=False`: a state is a tree of plain data, never a cycle, so the cycle
collector need not track them.

Cards are slugs (`"bag-of-gold"`); a second copy of a card is the same slug, so "every card
in exactly one place" is checked as a multiset. Work still to do is a stack of `Task`s, so a
game paused at a prompt is nothing but data and resumes after a decode.
"""
from __future__ import annotations

from typing import Any

import msgspec

from engine.text import Msg, Text


class Option(msgspec.Struct, frozen=True, omit_defaults=True, gc=False):
    key: str  # what a player writes: "left", "fight", "ogre", ...
    text: str  # what it means, for reports (English)
    msg: Msg | None = None  # `text` as a message, which a reader's language translates (engine/text.py)


def option(key: str, text: Text) -> Option:
    """An option whose text is a message (or still an English text)."""
    return Option(key, text.english(), text) if isinstance(text, Msg) else Option(key, text)


class Move(msgspec.Struct, frozen=True):
    """One answer: `player` answers prompt `prompt` (None: whatever is open) with `key`.

    The moderator answers any prompt in a player's place, and settles cards with
    `adjudicate`, whose `arg` is a line of effects (see engine/adjudicate.py).
    """
    player: str
    key: str
    prompt: int | None = None
    arg: str | None = None

    def __str__(self) -> str:
        text = f"{self.player}: {self.prompt}: {self.key}" if self.prompt else f"{self.player}: {self.key}"
        return f"{text} {self.arg}" if self.arg else text


class Prompt(msgspec.Struct, omit_defaults=True, gc=False):
    id: int  # grows by one for every prompt a game ever opens
    players: list[str]  # who is asked; they all must answer
    kind: str  # which answer handler resumes the game
    question: str
    options: list[Option]
    data: dict[str, Any] = {}  # what the handler needs to resume
    answers: dict[str, str] = {}  # answers given so far when several players are asked
    msg: Msg | None = None  # `question` as a message (engine/text.py); not in the state's hash (api.state_hash)


class Task(msgspec.Struct, array_like=True, omit_defaults=True, gc=False):
    """One piece of pending work; `op` names a handler in the rules (see engine/ops.py)."""
    op: str
    p: int = -1  # the player index it concerns, -1 for none
    a: dict[str, Any] = {}


class Event(msgspec.Struct, gc=False):
    kind: str
    text: str
    to: list[str] | None = None  # who may see it; None: everyone
    data: dict[str, Any] = {}
    msg: Msg | None = None  # `text` as a message (engine/text.py)


class Player(msgspec.Struct, omit_defaults=True, gc=False):
    name: str
    role: str = "hero"  # "hero", or "nemesis" (Nemesis pack: a player who is not a character)
    character: str | None = None
    space: str | None = None
    strength: int = 0  # printed value plus counters (never below printed)
    craft: int = 0
    life: int = 0  # current lives
    max_life: int = 0  # the printed Life value healing fills up to
    fate: int = 0
    max_fate: int = 0
    gold: int = 0
    alignment: str = "neutral"
    alive: bool = True
    out: bool = False  # killed after someone reached the Crown: no new character
    objects: list[str] = []
    followers: list[str] = []
    spells: list[str] = []
    trophies: list[str] = []  # killed enemies not yet traded in
    toad: int = 0  # own turns left as a Toad
    miss: int = 0  # turns to miss
    quest: str | None = None  # the Warlock quest held (its roll)
    hand: list[str] = []  # private cards: the Nemesis's Action cards, a hero's Boon
    area: list[str] = []  # public cards kept before the player: a companion (and its Talisman)
    flags: dict[str, Any] = {}  # small per-player markers (stand-offs, where they came from, ...)


class Game(msgspec.Struct, omit_defaults=True, gc=False):
    edition: str
    packs: list[str]
    options: dict[str, Any]
    seed: str  # secret: never in a view or a summary
    rng: int = 0  # how many random values have been drawn
    forced: list[int] = []  # dice forced by a scenario, used before the RNG
    turn: int = 0  # counts every player's turn
    round: int = 1
    current: int = 0  # index of the player whose turn it is
    players: list[Player] = []
    decks: dict[str, list[str]] = {}  # top of a deck is the end of the list
    discards: dict[str, list[str]] = {}
    spaces: dict[str, list[str]] = {}  # cards lying on a space, in the order drawn
    space_gold: dict[str, int] = {}
    # Cards set aside by a pack, by pile: "denizen@city", "remnant@ruins" (facedown),
    # "terrain@woods", "ending" (on the Crown). Kept apart from `spaces` because they are not
    # Adventure cards and do not count toward draw-to-N.
    piles: dict[str, list[str]] = {}
    counters: dict[str, int] = {}  # card/space-held counters, e.g. "pool-of-life@woods": 3
    pools: dict[str, int] = {}  # shared resources (a later pack's shared fate)
    effects: list[dict[str, Any]] = []  # lasting effects: Blizzard, Hex, Destroy Magic
    stack: list[Task] = []
    prompt: Prompt | None = None
    next_prompt: int = 1
    crown_reached: bool = False
    over: bool = False
    winners: list[str] = []
    moves: int = 0  # moves applied, for the log and for replays

"""The engine's door as a type: what the service (pbem/) calls on the engine, so that the
service can be written against `Engine` rather than `Any`. `engine.api` is one implementation
(mypy checks it: `_API` below), tests/fake_engine.py another (tests/test_engine_interface.py
checks it, signatures and the fields of `view()`).

A game's state is opaque to the service: it passes it back to the engine, encodes it, and reads
`over` (a finished game); the views and the summary are plain dicts (the JSON of
docs/summary.md), whose fields are `ViewFields` and the TypedDicts below.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

from engine.errors import IllegalMove


class OptionLike(Protocol):
    @property
    def key(self) -> str: ...
    @property
    def text(self) -> str: ...


class PromptLike(Protocol):
    """An open question: `players` are those still to answer."""
    @property
    def id(self) -> int: ...
    @property
    def players(self) -> list[str]: ...
    @property
    def kind(self) -> str: ...
    @property
    def question(self) -> str: ...
    @property
    def options(self) -> Sequence[OptionLike]: ...


class MoveLike(Protocol):
    @property
    def player(self) -> str: ...
    @property
    def key(self) -> str: ...
    @property
    def prompt(self) -> int | None: ...
    @property
    def arg(self) -> str | None: ...


class EventLike(Protocol):
    """What a move caused: `to` None is seen by everyone, else only by those named."""
    @property
    def kind(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def to(self) -> list[str] | None: ...


class QuestionKindLike(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def means(self) -> str: ...
    @property
    def default(self) -> tuple[str, ...] | None: ...


class MoveFactory(Protocol):
    def __call__(self, player: str, key: str, prompt: int | None = None, arg: str | None = None) -> Any: ...


class Engine(Protocol):
    """What pbem calls on the engine (engine.api's functions of the same names say what each does)."""
    @property
    def ENGINE_VERSION(self) -> str: ...
    @property
    def MODERATOR(self) -> str: ...
    @property
    def Move(self) -> MoveFactory: ...
    @property
    def IllegalMove(self) -> type[IllegalMove]: ...

    def new_game(self, config: Any, seed: str) -> Any: ...
    def prompts(self, state: Any) -> Sequence[PromptLike]: ...
    def waiting_for(self, state: Any) -> list[str]: ...
    def legal_moves(self, state: Any, player: str | None = None) -> Sequence[MoveLike]: ...
    def apply(self, state: Any, move: Any, *, copy: bool = True) -> tuple[Any, Sequence[EventLike]]: ...
    def parse_move(self, text: str, player: str | None = None) -> MoveLike: ...
    def view(self, state: Any, player: str | None) -> dict[str, Any]: ...
    def view_questions(self, state: Any, player: str | None) -> dict[str, Any]: ...
    def summary(self, state: Any) -> dict[str, Any]: ...
    def filter_events(self, events: Any, player: str | None) -> Sequence[EventLike]: ...
    def encode(self, state: Any) -> bytes: ...
    def decode(self, blob: bytes) -> Any: ...
    def state_hash(self, state: Any) -> str: ...
    def question_kinds(self) -> Sequence[QuestionKindLike]: ...


# -- the fields of view() -------------------------------------------------------------------------
# view() also holds each pack's public state under the pack's name and the shared pools
# ("shared_fate"), which vary with the game: not listed here.

class OptionView(TypedDict):
    key: str
    text: str


class PromptView(TypedDict):
    id: int
    players: list[str]
    kind: str  # "" (with no question and no options) in the view of one not asked
    question: str
    options: list[OptionView]


class PlayerView(TypedDict):
    character: str | None
    character_name: str | None
    role: str
    space: str | None
    space_name: str | None
    region: str | None
    strength: int
    craft: int
    life: int
    max_life: int
    fate: int
    max_fate: int
    gold: int
    alignment: str
    alive: bool
    objects: list[str]
    followers: list[str]
    spells: list[str] | int  # names to their owner and the moderator, a count to others
    hand: list[str] | int  # the same
    area: list[str]
    trophies: list[str]
    toad: int
    miss: int
    quest: Any
    quest_said: list[Any] | None  # the quest held, as a message: [id, args] (engine/text.py)


class ViewFields(TypedDict):
    turn: int
    round: int
    over: bool
    winners: list[str]
    me: str | None
    players: dict[str, PlayerView]
    board: dict[str, list[str]]
    space_names: dict[str, str]
    space_cards: dict[str, list[str]]
    space_gold: dict[str, int]
    decks: dict[str, int]
    effects: list[dict[str, Any]]
    pack_text: dict[str, list[str]]  # each pack's public state in its own words (Pack.public_text)
    pack_said: dict[str, list[list[Any]]]  # the same as messages, [id, args] (engine/text.py)
    prompt: list[PromptView]
    mine: PromptView | None


# Fields a view holds only in some games (The Hunt's facedown cards in a play area).
OPTIONAL_PLAYER_FIELDS = ("area_facedown",)

if TYPE_CHECKING:
    from engine import api

    _API: Engine = api  # mypy: engine.api is an Engine

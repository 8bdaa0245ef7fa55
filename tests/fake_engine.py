"""A tiny stand-in for engine.api, with the same door (engine/interface.py `Engine`, checked by
tests/test_engine_interface.py: signatures and the fields of view()).

Players take turns on a ring of 12 spaces: the one whose turn it is answers `left`, `right`
or `rest` (prompt ids grow by one); a move rolls a die, so the RNG counter advances. Each
move also deals the mover a secret card that only they may see, and ends their turn. With option turn_cap the
game ends after that many moves. The service's own tests run on it when they must not
depend on the rules, e.g. to count exactly what was applied.
"""
from __future__ import annotations

import hashlib
import re

import msgspec

from engine.errors import IllegalMove  # the engine's own: the service reads its reason and options
from engine.questions import QuestionKind

ENGINE_VERSION = "fake-1"
MODERATOR = "moderator"
SPACES = [f"space-{i}" for i in range(12)]


class Move(msgspec.Struct, frozen=True):
    player: str
    key: str
    prompt: int | None = None
    arg: str | None = None

    def __str__(self) -> str:
        text = f"{self.player}: {self.prompt}: {self.key}" if self.prompt else f"{self.player}: {self.key}"
        return f"{text} {self.arg}" if self.arg else text


class Option(msgspec.Struct, frozen=True):
    key: str
    text: str


class Prompt(msgspec.Struct):
    id: int
    players: list[str]
    kind: str
    question: str
    options: list[Option]


class Event(msgspec.Struct):
    kind: str
    text: str
    to: list[str] | None = None
    data: dict = {}


class P(msgspec.Struct):
    name: str
    space: int = 0
    gold: int = 1
    hand: list[str] = []


class Game(msgspec.Struct):
    seed: str
    players: list[P]
    cap: int = 0
    rng: int = 0
    turn: int = 1
    moves: int = 0
    current: int = 0
    next_prompt: int = 1
    over: bool = False
    winners: list[str] = []


OPTIONS = [Option("left", "go one space counter-clockwise, then roll"),
           Option("right", "go one space clockwise, then roll"),
           Option("rest", "stay and take 1 gold")]


def _die(state: Game) -> int:
    state.rng += 1
    return hashlib.sha256(f"{state.seed}:{state.rng}".encode()).digest()[0] % 6 + 1


def new_game(config: dict, seed: str) -> Game:
    players = [P(p["name"]) for p in config["players"]]
    if not players:
        raise ValueError("a game needs players")
    return Game(seed=seed, players=players, cap=int(config.get("options", {}).get("turn_cap", 0)))


def question_kinds() -> list[QuestionKind]:
    return [QuestionKind("move", "where to go: `left`, `right` or `rest`", ("left",))]


def prompts(state: Game) -> list[Prompt]:
    if state.over:
        return []
    name = state.players[state.current].name
    return [Prompt(state.next_prompt, [name], "move", f"{name}, where do you go?", list(OPTIONS))]


def waiting_for(state: Game) -> list[str]:
    return [n for p in prompts(state) for n in p.players]


def legal_moves(state: Game, player: str | None = None) -> list[Move]:
    return [Move(n, o.key, p.id) for p in prompts(state) for n in p.players if player in (None, n) for o in p.options]


def apply(state: Game, move: Move, *, copy: bool = True) -> tuple[Game, list[Event]]:
    if state.over:
        raise IllegalMove("the game is over", [])
    open_ = prompts(state)[0]
    keys = [o.key for o in open_.options]
    if move.player == MODERATOR and move.key == "adjudicate":
        new = msgspec.structs.replace(state, moves=state.moves + 1)
        return new, [Event("adjudicate", f"the moderator rules: {move.arg}")]
    if move.player not in (open_.players + [MODERATOR]):
        raise IllegalMove(f"{move.player} is not asked now; the game waits for {', '.join(open_.players)}", [])
    if move.prompt is not None and move.prompt != open_.id:
        raise IllegalMove(f"prompt {move.prompt} is not open (prompt {open_.id} is)", keys)
    if move.key not in keys:
        raise IllegalMove(f"{move.key!r} is not an option here", keys)
    new = msgspec.convert(msgspec.to_builtins(state), Game)  # a deep copy: never mutate the input
    me = new.players[new.current]
    events = []
    if move.key == "rest":
        me.gold += 1
        events.append(Event("rest", f"{me.name} rests and takes 1 gold"))
    else:
        step = 1 if move.key == "right" else -1
        roll = _die(new)
        me.space = (me.space + step * roll) % len(SPACES)
        events.append(Event("move", f"{me.name} rolls {roll} and goes {move.key} to {SPACES[me.space]}"))
    card = f"card-{_die(new)}"
    me.hand.append(card)
    events.append(Event("draw", f"{me.name} draws {card}", to=[me.name]))
    new.moves += 1
    new.next_prompt += 1
    new.current = (new.current + 1) % len(new.players)
    if new.current == 0:
        new.turn += 1
    if not (new.cap and new.moves >= new.cap):  # like the engine: a `turn` event starts each turn
        events.append(Event("turn", f"{new.players[new.current].name}'s turn"))
    if new.cap and new.moves >= new.cap:
        new.over = True
        new.winners = [max(new.players, key=lambda p: p.gold).name]
        events.append(Event("end", f"the game ends; {new.winners[0]} wins"))
    return new, events


_MOVE = re.compile(r"^\s*(?:(?P<player>[\w.+-]+)\s*:\s*)?(?:(?P<prompt>\d+)\s*:\s*)?"
                   r"(?P<key>[\w-]+)(?:\s+(?P<arg>.+?))?\s*$")


def parse_move(text: str, player: str | None = None) -> Move:
    m = _MOVE.match(text)
    if not m:
        raise IllegalMove(f"cannot read {text!r} as an answer", [])
    name = m["player"] if m["player"] and not m["player"].isdigit() else player
    if name is None:
        raise IllegalMove(f"{text!r} does not say who answers", [])
    return Move(name, m["key"].lower(), int(m["prompt"]) if m["prompt"] else None, m["arg"])


def _sheet(state: Game, p: P, me: str | None) -> dict:
    mine = me in (None, MODERATOR, p.name)
    return {"character": "walker", "character_name": "Walker", "role": "hero", "space": SPACES[p.space],
            "space_name": SPACES[p.space].replace("-", " ").title(), "region": "outer", "strength": 3, "craft": 3,
            "life": 4, "max_life": 4, "fate": 1, "max_fate": 1, "gold": p.gold, "alignment": "neutral",
            "alive": True, "objects": list(p.hand) if mine else [], "followers": [], "spells": [] if mine else 0,
            "hand": [] if mine else 0, "area": [], "trophies": [], "toad": 0, "miss": 0, "quest": None,
            "quest_said": None}


def _prompt_dict(p: Prompt) -> dict:
    return {"id": p.id, "players": p.players, "kind": p.kind, "question": p.question,
            "options": [{"key": o.key, "text": o.text} for o in p.options]}


def view(state: Game, player: str | None) -> dict:
    me = None if player in (None, MODERATOR) else player
    return {"turn": state.turn, "round": state.turn, "over": state.over, "winners": state.winners, "me": me,
            "players": {p.name: _sheet(state, p, player) for p in state.players},
            "board": {"outer": SPACES}, "space_names": {s: s.replace("-", " ").title() for s in SPACES},
            "space_cards": {}, "space_gold": {}, "decks": {"adventure": 10}, "effects": [], "pack_text": {},
            "pack_said": {},
            **view_questions(state, player)}


def view_questions(state: Game, player: str | None) -> dict:
    ps = [_prompt_dict(p) for p in prompts(state)]
    me = None if player in (None, MODERATOR) else player
    return {"over": state.over, "prompt": ps, "mine": next((p for p in ps if me in p["players"]), None)}


VIEW_ONLY = ("role", "max_fate", "hand", "area")  # a player's fields in a view, not in the summary


def summary(state: Game) -> dict:
    return {"turn": state.turn, "over": state.over, "winners": state.winners,
            "prompt": [{"id": p.id, "players": p.players, "options": [o.key for o in p.options]}
                       for p in prompts(state)],
            "players": {p.name: {k: v for k, v in _sheet(state, p, "nobody").items() if k not in VIEW_ONLY}
                        for p in state.players},
            "board": {"outer": SPACES}}


def filter_events(events: list[Event], player: str | None) -> list[Event]:
    return [e for e in events if e.to is None or player in (None, MODERATOR) or player in e.to]


_ENC = msgspec.msgpack.Encoder()
_DEC = msgspec.msgpack.Decoder(Game)


def encode(state: Game) -> bytes:
    return _ENC.encode(state)


def decode(blob: bytes) -> Game:
    return _DEC.decode(blob)


def state_hash(state: Game) -> str:
    return hashlib.sha256(encode(state)).hexdigest()

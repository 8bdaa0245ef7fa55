"""The turn machine: a stack of tasks run until someone must decide something.

Rules modules register handlers: `@task("name")` for a piece of work, `@on_answer("kind", ...)`
for what an answer to a prompt of that kind does (and what the kind is: engine/questions.py).
Work that continues after a decision is pushed on the stack before the question is asked, so a
paused game is only data. A name is registered once: a second handler under a name taken (by
another module, a pack, a test) is an error, never a silent replacement. The decorators are
typed, so mypy checks each handler's signature against its table.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from engine import content as content_mod, questions, rng
from engine.clone import copy_player
from engine.errors import MODERATOR, IllegalMove
from engine.state import Event, Game, Move, Option, Prompt, Task, option
from engine.text import Msg, Text, deck_name, english, msg

if TYPE_CHECKING:  # the Hooks' methods take a Ctx: the one name the two modules share both ways
    from engine.hooks import Hooks

TaskHandler = Callable[["Ctx", Task], None]
AnswerHandler = Callable[["Ctx", Prompt, str, "str | None", str], None]  # (ctx, prompt, key, arg, who)
UsefulCheck = Callable[["Ctx", int, dict[str, Any]], bool]  # (ctx, player, op)
H = TypeVar("H", bound=Callable[..., Any])

TASKS: dict[str, TaskHandler] = {}
ANSWERS: dict[str, AnswerHandler] = {}
# Ops that can tell whether they would change anything (a Spell is offered only if its effect could)
USEFUL: dict[str, UsefulCheck] = {}


def registrar(table: dict[str, H], what: str, name: str) -> Callable[[H], H]:
    """A decorator that files a handler in `table` under `name`, which must be free."""
    def register(fn: H) -> H:
        if name in table:
            was = table[name]
            raise ValueError(f"{what} {name!r} is registered twice: {was.__module__}.{was.__name__} and "
                             f"{fn.__module__}.{fn.__name__} (choose another name)")
        table[name] = fn
        return fn
    return register


def task(name: str) -> Callable[[TaskHandler], TaskHandler]:
    """Register the handler of the task `name` (`ctx.push(name, player, **args)` runs it)."""
    return registrar(TASKS, "task", name)


def on_answer(kind: str, means: str = "",
              default: tuple[str, ...] | None = questions.FIRST_OPTION) -> Callable[[AnswerHandler], AnswerHandler]:
    """Register what an answer to a question of `kind` does, and declare the kind: what it asks
    and what its options mean (`means`), and the keys a missed deadline plays (`default`,
    engine/questions.py). Every kind the engine asks is declared here, once
    (tests/test_question_kinds.py)."""
    add = registrar(ANSWERS, "answer handler", kind)
    if means:
        questions.declare(kind, means, default)
    return add


def useful(op_name: str) -> Callable[[UsefulCheck], UsefulCheck]:
    """Register whether an op could change anything for player i now (`could_change`)."""
    return registrar(USEFUL, "useful check", op_name)


def could_change(ctx: Ctx, i: int, ops: list[dict[str, Any]]) -> bool:
    """Whether running these ops could change anything: an op without a `useful` check might."""
    return any(USEFUL[o["op"]](ctx, i, o) if o.get("op") in USEFUL else True for o in ops)


class Ctx:
    """What a handler works with while one move is applied; never stored.

    `hooks`: the game's packs, resolved at the API's door (engine/hooks.py): the core asks a
    pack only through them (`ctx.hooks.killed(ctx, i)`).
    `shared`: the players `clone(state, players=False)` left shared with the state `apply`
    must not change. Each is copied when a rule first asks for it (`player(i)`), read or
    write, so rules read and change players only through `player(i)`; reading
    `s.players` directly is fine (a shared player is as it was)."""
    __slots__ = ("content", "decide_after", "deciding", "events", "hooks", "s", "shared")

    def __init__(self, state: Game, events: list[Event], hooks: Hooks, shared: bool = False):
        self.s = state
        self.events = events
        self.hooks = hooks
        self.content = hooks.content(state.edition)
        self.shared = [shared] * len(state.players)
        self.deciding = 0  # > 0 while one effect strikes several characters: deaths decided after it
        self.decide_after: list[Callable[[], None]] = []  # what a death there decides, run after it

    # -- players -------------------------------------------------------
    def player(self, i: int) -> Any:  # a Player: typed so, ~120 reads of its `space` as set would need asserts first
        if self.shared[i]:
            self.shared[i] = False
            self.s.players[i] = copy_player(self.s.players[i])
        return self.s.players[i]

    def name(self, i: int) -> str:
        return self.s.players[i].name

    def index(self, name: str) -> int:
        for i, p in enumerate(self.s.players):
            if p.name == name:
                return i
        raise KeyError(name)

    # -- the board -----------------------------------------------------
    def space(self, space_id: str) -> content_mod.Space:
        """A space as it stands now: a Terrain card on it gives it the Terrain's name, text,
        effect and draw (the one place the engine reads what a space does)."""
        terrain = self.s.piles.get("terrain@" + space_id) if self.s.piles else None
        base = self.content.space(space_id)
        if not terrain:
            return base
        card = self.content.cards[terrain[0]]
        return msgspec.structs.replace(
            base, name=card.name, text=card.text, effect=card.effect, draw=card.prop("draw", 0),
            hook=card.hook, hook_args={}, remnants=0)

    def covered(self, space_id: str) -> bool:
        """A space under a Terrain card is no longer on the board: effects naming it are ignored."""
        return bool(self.s.piles.get("terrain@" + space_id))

    def draw(self, deck: str) -> str | None:
        """The top card of a deck; an empty deck is made again from its shuffled discards."""
        s = self.s
        cards = s.decks[deck]
        if not cards and s.discards.get(deck):
            cards.extend(s.discards[deck])
            s.discards[deck].clear()
            rng.shuffle(s, cards)
            self.emit("reshuffle", msg("The {deck} discards are shuffled into a new deck.", deck=deck_name(deck)))
        return cards.pop() if cards else None

    # -- events and work -----------------------------------------------
    def emit(self, kind: str, text: Text, to: list[str] | None = None, **data: Any) -> None:
        if isinstance(text, Msg):  # inline (not `english`, nor Msg.english: Python frames): an event is made
            # for every step of a game, and about eight for each answer a preview plays
            self.events.append(Event(kind, text.id.format(**text.args) if text.args else text.id, to, data, text))
        else:
            self.events.append(Event(kind, text, to, data))

    def push(self, op: str, p: int = -1, **a: Any) -> None:
        self.s.stack.append(Task(op, p, a))

    def push_all(self, tasks: list[tuple[str, int, dict[str, Any]]]) -> None:
        """Push tasks so that the first listed runs first."""
        for op, p, a in tasks[::-1]:
            self.s.stack.append(Task(op, p, a))

    def ask(self, who: int | list[int], kind: str, question: Text, options: list[Option], **data: Any) -> None:
        """Open a prompt. With a single legal answer the engine answers it itself."""
        players = [who] if isinstance(who, int) else who
        words, message = english(question)
        if len(options) == 1 and len(players) == 1:
            prompt = Prompt(0, [self.name(players[0])], kind, words, options, data)
            ANSWERS[kind](self, prompt, options[0].key, None, self.name(players[0]))
            return
        self.s.prompt = Prompt(self.s.next_prompt, [self.name(i) for i in players], kind, words, options, data,
                               msg=message)
        self.s.next_prompt += 1

    def ask_moderator(self, i: int, question: Text) -> None:
        """A card the engine cannot settle: the moderator answers `adjudicate ...` or `skip`."""
        words, message = english(question)
        self.s.prompt = Prompt(self.s.next_prompt, ["moderator"], "adjudicate", words,
                               [option("adjudicate", msg("settle it: adjudicate <effects>")),
                                option("skip", msg("no effect"))],
                               {"player": self.name(i)}, msg=message)
        self.s.next_prompt += 1

    def end_turn(self) -> None:
        """Drop the rest of this turn's work, down to its end-turn task."""
        stack = self.s.stack
        while stack and stack[-1].op != "end-turn":
            stack.pop()


def run(ctx: Ctx) -> None:
    """Run the game's tasks until a question is open (or none is left, or the game is over)."""
    state = ctx.s
    stack, tasks = state.stack, TASKS  # the stack is emptied in place, never replaced
    for _ in range(1_000_000):  # a guard: turns may pass without a question, but not forever
        if state.prompt is not None or not stack or state.over:
            return
        t = stack.pop()
        tasks[t.op](ctx, t)
    raise RuntimeError(f"the engine ran a million steps without a question (at {t.op})")


def answer(ctx: Ctx, move: Move) -> None:
    """Apply a player's (or the moderator's) answer to the open prompt (the moderator's
    `adjudicate` and `leave-game` moves are engine/adjudicate.py's and engine/rules/leave.py's)."""
    state = ctx.s
    p = state.prompt
    waits_for_moderator(p, move)
    if p is None:
        raise IllegalMove(msg("no question is open"), [])
    if move.prompt is not None and move.prompt != p.id:
        raise IllegalMove(msg("prompt {asked} is not open (the open prompt is {open})", asked=move.prompt, open=p.id),
                          [o.key for o in p.options])
    who = move.player
    if who == MODERATOR:
        waiting = [n for n in p.players if n not in p.answers]
        who = waiting[0]
    elif who not in p.players:
        raise IllegalMove(msg("{who} is not asked anything now (waiting for {players})", who=who,
                              players=", ".join(p.players)), [])
    elif who in p.answers:
        raise IllegalMove(msg("{who} has already answered prompt {prompt}", who=who, prompt=p.id), [])
    if not any(o.key == move.key for o in p.options):
        keys = [o.key for o in p.options]
        raise IllegalMove(msg("{key!r} is not an answer to prompt {prompt} ({question})", key=move.key, prompt=p.id,
                              question=p.msg or p.question), keys)
    if len(p.players) > 1:
        p.answers[who] = move.key
        if len(p.answers) < len(p.players):
            return
    state.prompt = None
    ANSWERS[p.kind](ctx, p, move.key, move.arg, who)


def waits_for_moderator(p: Prompt | None, move: Move) -> None:
    """Only the moderator answers while a card waits for the moderator's ruling."""
    if p is not None and p.kind == "adjudicate" and move.player != MODERATOR:
        raise IllegalMove(msg("the game waits for the moderator to settle a card"), [])


@on_answer("adjudicate", "a card the engine cannot settle, asked of the moderator: `adjudicate <effects>` or `skip`",
           default=None)
def adjudicate_skip(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    ctx.emit("adjudicate", msg("The moderator rules that it has no effect."))

"""What an answer would lead to, before it is given: a report says where a move ends, what a
kept roll does and what a reroll could change.

Each option of the reader's open question is played on a copy of the game, task by task, up
to the first thing nobody may know yet: a random draw (a die, a shuffle), a card taken from a
deck, or another question. What happened before that -- the events the reader may see, where
their character stands -- is the outcome; the task that drew is dropped whole, so nothing
drawn (and nothing a draw decided) is ever in it. A reroll is played once per face of the new
die (as forced dice, which draw nothing from the seed).
"""
from __future__ import annotations

from typing import Any

from engine import visibility
from engine.clone import clone
from engine.hooks import Hooks
from engine.rules import machine, stats
from engine.state import Event, Game, Move

REROLL = "reroll"
TELLING = ("fate", "roll")  # kinds of event that tell a die, not what it did
FACES = (1, 2, 3, 4, 5, 6)
_LIMIT = 10_000  # tasks: a guard, as in machine.run
_NOWHERE = object()  # no space `_stand` was kept for
_ABSENT = object()  # a key the task's arguments do not hold


def _unknown_marks(s: Game) -> tuple[int, list[int]]:
    """What changes when something not yet known is drawn: the random counter and every deck's
    size (forced dice are the faces a reroll is played with: known). A list made in the compiled
    loop: tuple(map(len, ...)) went through the generic iterator, a tenth of a preview."""
    return s.rng, [len(cards) for cards in s.decks.values()]


def _drew(s: Game, marks: tuple[int, list[int]]) -> bool:
    """Whether `_unknown_marks(s)` differs from `marks`, without making them (once per task)."""
    rng, sizes = marks
    if s.rng != rng or len(s.decks) != len(sizes):
        return True
    n = 0
    for cards in s.decks.values():
        if len(cards) != sizes[n]:
            return True
        n += 1
    return False


def _index(state: Game, player: str) -> int:
    """Ctx.index without making a Ctx (once per answer played)."""
    for n, q in enumerate(state.players):
        if q.name == player:
            return n
    raise KeyError(player)


def _stand(ctx: machine.Ctx, i: int) -> dict[str, Any]:
    sid = ctx.s.players[i].space
    if sid is None:
        return {"space": None, "space_name": None, "region": None}
    return {"space": sid, "space_name": ctx.space(sid).name, "region": ctx.content.board.spaces[sid].ring}


def _answered(state: Game, move: Move, faces: list[int] | None, events: list[Event], hooks: Hooks,
              own: bool = False) -> machine.Ctx:
    """A copy of `state` with `move` answered, `faces` the next dice, as `api.apply` makes it:
    the players are copied when a rule first asks for one (most moves change one of several).
    `own`: `state` is the preview's own copy, answered in place."""
    s = state if own else clone(state, players=False)
    s.forced = list(faces or [])
    ctx = machine.Ctx(s, events, hooks, shared=True)
    machine.answer(ctx, move)
    return ctx


def play(state: Game, player: str, key: str, hooks: Hooks, faces: list[int] | None = None,
         deeper: bool = True, own: bool = False, rolled: list[bool] | None = None) -> dict[str, Any]:
    """The outcome of `player` answering `key` to the open question, with `faces` as the next
    dice (none: it stops at the first die; `deeper`: also the outcomes of the reader's next
    question). Keys: events (texts the player may see), effects (those that are not a die's
    telling), event_msgs and effect_msgs (their messages, engine/text.py), moved, space /
    space_name / region (where the character then stands), stop ("unknown": a die or a card
    comes next; "question"; "end": nothing more this turn), cut (the task that met it, as it
    stood before: its op and foe), question (and question_msg), asked and at (the
    question then open, who it asks, the space it is asked at if it says), then (deeper: each
    answer to the reader's next question and its outcome).

    A task that draws is undone whole (its state and its events): what it did after a draw,
    or which it drew first, could tell the draw. Of the game as it stood before that task the
    outcome reads only where the reader stood (the space, its name as it stood then, its
    region): that is kept before each task, not the game (a copy before every task, or the
    tasks played again on a new copy, cost a quarter of a preview).

    `own`: `state` is a copy no one reads after this (the last answer to the reader's next
    question): played in place, not copied again (a tenth of a preview was its copies).
    `rolled`: told whether the answer itself rolled a die or drew (see `outcomes`)."""
    i = _index(state, player)
    start, turn, marks = state.players[i].space, state.turn, _unknown_marks(state)
    before = _stand(machine.Ctx(state, [], hooks), i) if own else None  # the answer changes `state` itself
    move = Move(player, key, state.prompt.id if state.prompt else None)
    events: list[Event] = []
    stop = "end"
    cut: dict[str, Any] | None = None
    stood: dict[str, Any] | None = None  # where the reader stood before a task taken back
    standing: dict[str, Any] = {}
    known: object = _NOWHERE  # the space `standing` was made for, bare (no Terrain card on it)
    ctx = _answered(state, move, faces, events, hooks, own)
    s = ctx.s
    drew = _drew(s, marks)
    if rolled is not None:
        rolled.append(drew or len(s.forced) < len(faces or []))
    if drew:  # the answer itself drew (a reroll's die beyond `faces`)
        s, stop, stood = state, "unknown", before  # only read from here on
        del events[:]
    else:
        for _ in range(_LIMIT):
            if s.prompt is not None:
                stop = "question"
                break
            if not s.stack or s.over:
                break
            seen, sid = len(events), s.players[i].space
            covered = sid is not None and bool(s.piles) and ctx.covered(sid)  # a Terrain card names it anew
            if covered or sid != known:  # else where the reader stands is as it was before the last task
                standing = _stand(ctx, i)
            known = _NOWHERE if covered else sid
            t = s.stack.pop()
            op, a = t.op, t.a  # what the task meets, as it stood before it ran: made into `cut` if it draws
            name, strength, craft = a.get("name", _ABSENT), a.get("strength", _ABSENT), a.get("craft", _ABSENT)
            machine.TASKS[op](ctx, t)
            unknown = _drew(s, marks)
            if unknown or s.turn != turn:  # a draw; or the reader's turn is over: another story
                stood = standing  # all the outcome reads of the game then: not played again
                del events[seen:]
                if unknown:
                    stop, cut = "unknown", {"op": op}
                    for k, v in (("name", name), ("strength", strength), ("craft", craft)):
                        if v is not _ABSENT:
                            cut[k] = v
                break
    if s is not ctx.s:
        ctx = machine.Ctx(s, [], hooks)  # only read from here on
    if stood is None:
        stood = _stand(ctx, i)
    out = _outcome([e for e in events if visibility.may_see(e, player)], stop, cut, stood, stood["space"] != start)
    if stop == "question" and s.prompt is not None:
        out["question"] = s.prompt.question
        out["question_msg"] = s.prompt.msg
        at = s.prompt.data.get("space")  # where a question on the way is asked (a bridge, the Portal)
        out["at"] = ctx.space(at).name if isinstance(at, str) and at in ctx.content.board.spaces else None
        out["asked"] = [n for n in s.prompt.players if n not in s.prompt.answers]
        if deeper and out["asked"] == [player]:  # the reader's next question (a crossing): one step on
            options = s.prompt.options
            last = len(options) - 1  # the others are played on copies first: the last may change `s`
            out["then"] = {o.key: play(s, player, o.key, hooks, deeper=False, own=n == last)
                           for n, o in enumerate(options)}
    return out


def outcomes(state: Game, player: str, hooks: Hooks) -> dict[str, Any]:
    """Each answer open to `player` and its outcome (see `play`); a reroll's outcome holds
    "faces": the outcome for each face of the new die. Empty when `player` is not asked."""
    p = state.prompt
    if state.over or p is None or player not in p.players or player in p.answers or len(p.players) > 1 \
            or all(q.name != player for q in state.players):  # the moderator's question: no preview
        return {}
    out: dict[str, Any] = {}
    for o in p.options:
        if o.key != REROLL:
            out[o.key] = play(state, player, o.key, hooks)
            continue
        rolled: list[bool] = []
        faces = {str(f): play(state, player, o.key, hooks, [f], rolled=rolled) for f in FACES}
        # Played without a face, the answer runs as with one up to its die, which it then draws:
        # when the first face was rolled by the answer itself, that answer is unknown at once
        outcome = _unknown_at_once(state, player, hooks) if rolled[0] else play(state, player, o.key, hooks)
        outcome["faces"] = faces
        out[o.key] = outcome
    return out


def _unknown_at_once(state: Game, player: str, hooks: Hooks) -> dict[str, Any]:
    """`play`'s outcome of an answer that draws before anything else: where the reader stands."""
    ctx = machine.Ctx(state, [], hooks)
    return _outcome([], "unknown", None, _stand(ctx, ctx.index(player)), False)


def _outcome(seen_by: list[Event], stop: str, cut: dict[str, Any] | None, stood: dict[str, Any],
             moved: bool) -> dict[str, Any]:
    """An answer's outcome as `play` returns it, before its question: the events the reader saw
    (texts, and messages for a reader's language), where it stopped and stands."""
    out: dict[str, Any] = {
        "events": [e.text for e in seen_by], "effects": [e.text for e in seen_by if e.kind not in TELLING],
        "event_msgs": [e.msg for e in seen_by], "effect_msgs": [e.msg for e in seen_by if e.kind not in TELLING],
        "moved": moved, "stop": stop, "cut": cut, "question": None, "asked": []}
    out.update(stood)
    return out


def duel(state: Game, player: str, hooks: Hooks) -> dict[str, Any] | None:
    """The attack between characters `player` is in, while it waits for a question: who attacks
    whom, battle or psychic combat, each side's Strength or Craft for it (its dice apart) and
    the cards that add to it. None when there is none."""
    task = next((t for t in reversed(state.stack) if t.op in ("duel-roll", "duel-resolve")), None)
    if task is None:
        return None
    ctx = machine.Ctx(clone(state), [], hooks)  # a copy: a rule read here may copy a player into it
    i, j = task.p, task.a["target"]
    if player not in (ctx.name(i), ctx.name(j)):
        return None
    psychic = bool(task.a.get("psychic"))
    side: dict[str, Any] = {}
    for k in (i, j):
        p = ctx.s.players[k]
        adding = [c.name for c in stats.items(ctx, p)
                  if c.prop("craft" if psychic else "weapon") or c.prop("craft" if psychic else "strength")]
        side[p.name] = {"value": stats.craft(ctx, p, psychic=True) if psychic else stats.strength(ctx, p, battle=True),
                        "with": adding}
    return {"attacker": ctx.name(i), "defender": ctx.name(j), "kind": "psychic combat" if psychic else "battle",
            "attribute": "Craft" if psychic else "Strength", "sides": side}

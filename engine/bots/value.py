"""How good a position is for a seat, read from a game state: what the greedy bot maximises, what
the planner's playouts end on, and what the bench (bench/bots.py) calls "nearest to winning" at
its cap. Pure arithmetic on the state's own fields; the board's rings come from the engine's
public summary (one per pack set, kept).

A character's worth is its life, Strength, Craft, fate, gold, Objects, Followers, Spells and
trophies, the Talisman it holds, and how far in it stands (a turn less when the rules hold it
where it is: engine/bots/progress.py): the Middle Region, the Inner Region
(and how near the Valley of Fire, the way to the Crown), the Crown of Command itself, unless
the Crown cannot win the game for it as things stand (`api.crown_wins`: an ending asks more
first, The Hunt's four Nether Enemies), when it would only be held there. Death costs what the
character held. A Nemesis is worth what the heroes lack.
"""
from __future__ import annotations

from engine import api
from engine.state import Game, Player

WIN = 10_000.0  # the game won (lost: -WIN)
DEAD = -60.0  # a dead character: all it held is gone, a new one starts next turn
OUT = -WIN / 2  # killed after the Crown was reached: no new character
# how far in a character stands, by ring (a pack's own rings count as the Outer Region)
REGION = {"outer": 0.0, "middle": 18.0, "inner": 40.0, "crown": 120.0}
INNER_STEP = 6.0  # each space nearer the Valley of Fire in the Inner Region
GATE = "valley-of-fire"  # the Inner Region's way to the Crown
TALISMAN = "talisman"
TALISMAN_WORTH = 16.0  # the Valley of Fire lets no one through without one
TOWARD = 0.4  # a hero's Talisman counts for more the further in it has to be carried
HELD = 12.0  # held on its space by the rules (it faces it again next turn): a turn lost (progress.py)

_RINGS: dict[tuple[str, tuple[str, ...]], tuple[dict[str, str], dict[str, int]]] = {}


def rings(state: Game) -> tuple[dict[str, str], dict[str, int]]:
    """(space -> ring, Inner Region space -> spaces to the Valley of Fire), per edition and packs."""
    key = (state.edition, tuple(state.packs))
    known = _RINGS.get(key)
    if known is None:
        board: dict[str, list[str]] = api.summary(state)["board"]
        ring = {sid: name for name, sids in board.items() for sid in sids}
        inner = board.get("inner", [])
        gate = inner.index(GATE) if GATE in inner else -1
        steps = ({sid: min(abs(k - gate), len(inner) - abs(k - gate)) for k, sid in enumerate(inner)}
                 if gate >= 0 else {})
        known = _RINGS[key] = (ring, steps)
    return known


def character(state: Game, p: Player) -> float:
    """A hero's worth, as above (no winner or loser yet)."""
    if p.out:
        return OUT
    if not p.alive or not p.character:
        return DEAD
    ring, steps = rings(state)
    where = ring.get(p.space or "", "outer")
    progress = REGION.get(where, 0.0)
    if where in ("inner", "crown") and state.packs and not api.crown_wins(state, p.name):
        # the Crown would only hold it (The Hunt without four: it cannot move on, death turns
        # final): no pull toward it, and on it nothing but what it holds is worth anything
        progress = REGION["inner"] if where == "inner" else 0.0
    elif where == "inner":
        progress += INNER_STEP * (4 - min(4, steps.get(p.space or "", 4)))
    talismans = p.objects.count(TALISMAN)
    worth = (4.0 * p.life + 5.0 * (p.strength + p.craft) + 1.5 * p.fate + 1.0 * min(p.gold, 12)
             + 3.0 * len(p.objects) + 3.0 * len(p.followers) + 2.0 * len(p.spells) + 1.5 * len(p.trophies)
             + (TALISMAN_WORTH * (1 + TOWARD * progress / REGION["inner"]) if talismans else 0.0)
             + progress - 15.0 * (p.toad > 0) - 5.0 * p.miss - HELD * bool(p.flags.get("must-face")))
    if where == "inner" and not talismans:  # the Valley of Fire will not let it through
        worth -= progress / 2
    return worth


def worth(state: Game, p: Player) -> float:
    """A seat's worth in `state`: WIN or -WIN once the game is over, else its character's (a
    Nemesis: what the heroes lack, on average)."""
    if state.over:
        return WIN if p.name in state.winners else -WIN
    if p.role == "hero":
        return character(state, p)
    heroes = [character(state, q) for q in state.players if q.role == "hero"]
    return -sum(heroes) / len(heroes) if heroes else 0.0


def standing(state: Game, seat: str) -> float:
    """The seat's worth against the best of its rivals': what the bots maximise (a lead counts,
    so harming the leader is worth something too). In a game with a Nemesis the heroes are one
    side: their rival is the Nemesis."""
    me = next(p for p in state.players if p.name == seat)
    sides = any(p.role != "hero" for p in state.players)
    others = [worth(state, q) for q in state.players if q.name != seat and (not sides or q.role != me.role)]
    return worth(state, me) - 0.5 * (max(others) if others else 0.0)

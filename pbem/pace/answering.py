"""Answering open questions from standing orders: an order's text read as a `Rule`
(`parse`), matched against a question (`match`), and the `Answerer` that `moves.play` asks
after each move. What players file and cancel, by mail or the CLI, is pbem/pace/standing.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pbem.base import log
from pbem.pace.pace import default_key

ACTOR = "standing"
MAX_MOVES = 500  # standing orders answer at most this many questions in a row; then people are asked
# asked only when the roll loses, ties or fails (dice-reroll: armour, the Portal, the Crypt, the
# Mines, a Warp Gate, Sea Voyage's ship-combat)
REROLLS = ("combat-reroll", "duel-reroll", "death-reroll", "dice-reroll")




@dataclass(frozen=True)
class Rule:
    kinds: tuple[str, ...]  # the kinds of question it answers
    prefer: tuple[str, ...] = ()  # keys, the first open one is played ("default": the deadline default)
    exclude: tuple[str, ...] = ()  # keys never played; if one key is left, it is played


_NAMED = {
    "reroll-if-losing": Rule(REROLLS, prefer=("reroll", "reroll-low")),
    "never-reroll": Rule(REROLLS + ("table-reroll",), prefer=("keep",)),
    "never-reroll-movement": Rule(("direction",), exclude=("reroll",)),
}
_WHEN = re.compile(r"^when\s+([a-z][a-z0-9-]*)\s+answer\s+([a-z0-9-]+(?:\s+or\s+[a-z0-9-]+)*)$")
def normal(text: str) -> str:
    """Lower case, single spaces, "a, b" as "a or b"."""
    return re.sub(r"\bor(?: or)+\b", "or", " ".join(text.lower().replace(",", " or ").split()))


def parse(text: str) -> Rule:
    """A standing order's text as a Rule; ValueError says how to write one."""
    text = normal(text)
    if text in _NAMED:
        return _NAMED[text]
    m = _WHEN.match(text)
    if not m:
        raise ValueError(f"not a standing order: {text!r} (write e.g. \"standing: when fight answer fight\", "
                         f"\"standing: reroll-if-losing\", \"standing: cancel 2\")")
    return Rule((m.group(1),), prefer=tuple(k for k in m.group(2).split() if k != "or"))


def match(rules: list[tuple[int, Rule]], prompt, player: str) -> tuple[str, int] | None:
    """(key, order number) that `player`'s orders play on `prompt`, or None: ask them."""
    keys = [o.key for o in prompt.options]
    mine = [(n, r) for n, r in rules if prompt.kind in r.kinds]
    banned = {k for _, r in mine for k in r.exclude}
    for n, r in mine:
        for k in r.prefer:
            k = default_key(prompt, player) if k == "default" else k
            if k in keys and k not in banned:
                return k, n
    left = [k for k in keys if k not in banned]
    if banned and len(left) == 1:
        return left[0], next(n for n, r in mine if r.exclude)
    return None


class Answerer:
    """Answers the open questions from the standing orders of those they ask (read once)."""

    def __init__(self, svc, game: dict):
        self.svc, self.game, self.left = svc, game, MAX_MOVES
        self._rules: dict[str, list[tuple[int, Rule]]] | None = None

    def rules(self) -> dict[str, list[tuple[int, Rule]]]:
        if self._rules is None:
            self._rules = {}
            for r in self.svc.store.standing_orders(self.game["id"]):
                try:
                    self._rules.setdefault(r["player"], []).append((r["n"], parse(r["text"])))
                except ValueError:  # filed under older rules: skipped, still listed
                    log.get(game=self.game["id"]).warning("unreadable standing order", player=r["player"], n=r["n"])
        return self._rules

    def step(self, out, moves: list) -> bool:
        """Play one answer from a standing order on `out` (a moves.Played); False: none fits."""
        eng = self.svc.engine
        if self.left <= 0 or getattr(out.state, "over", False):
            return False
        rules = self.rules()
        if not rules:
            return False
        for prompt in eng.prompts(out.state):
            for name in prompt.players:
                hit = match(rules.get(name, []), prompt, name)
                if hit is None:
                    continue
                move = eng.Move(name, hit[0], prompt.id)
                try:
                    new, events = eng.apply(out.state, move)
                except eng.IllegalMove:
                    continue
                self.svc.store.standing_order_used(self.game["id"], name, hit[1])
                moves.append((move, new, ACTOR, events))
                out.standing.append(str(move))
                out.state, self.left = new, self.left - 1
                out.events += events
                return True
        return False

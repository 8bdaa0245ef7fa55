"""Answering open questions without waiting for people: standing orders (an order's text read
as a `Rule` by `parse`, matched against a question by `match`) and seat bots (engine/bots/),
both played by the `Answerer` that `moves.play` asks after each move. What players file and
cancel, by mail or the CLI, is pbem/pace/standing.py; where a bot sits, pbem/pace/seats.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine import bots
from pbem.base import log, option_keys
from pbem.base.i18n import _
from pbem.pace import order_words
from pbem.pace.pace import default_key

if TYPE_CHECKING:
    from pbem.core.service import Service

ACTOR = "standing"
BOT = "bot"  # the log's actor for a bot's answer
MAX_MOVES = 500  # standing orders answer at most this many questions in a row; then people are asked
# Bots answer at most this many questions per mail or daemon round (a table of bots would
# otherwise play a whole game in one transaction); the daemon's next round goes on (seats.play_due).
BOT_BATCH = 60
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


def _alt(english: str) -> str:
    return "(?:" + "|".join(map(re.escape, order_words.words(english))) + ")"


_WHEN = re.compile(rf"^{_alt('when')}\s+(\S+)\s+{_alt('answer')}\s+(\S+(?:\s+{_alt('or')}\s+\S+)*)$")
_OR = set(order_words.words("or"))
_DEFAULT = set(order_words.words("default"))


def normal(text: str) -> str:
    """Lower case, single spaces, "a, b" as "a or b"."""
    return re.sub(r"\bor(?: or)+\b", "or", " ".join(text.lower().replace(",", " or ").split()))


def parse(text: str) -> Rule:
    """A standing order's text as a Rule, its words in any language's (`wenn kampf antworte
    kämpfen`, pbem/pace/order_words.py); ValueError says how to write one."""
    text = normal(text)
    if order_words.read_named(text) in _NAMED:
        return _NAMED[order_words.read_named(text)]
    m = _WHEN.match(text)
    if not m:
        raise ValueError(_("not a standing order: %(order)s (write e.g. \"standing: when fight answer fight\", "
                           "\"standing: reroll-if-losing\", \"standing: cancel 2\")", order=repr(text)))
    # a key in a reader's words ("links", "neu-würfeln") as the engine's, as an answer line's is
    keys = [k for k in m.group(2).split() if k not in _OR]
    return Rule((order_words.read_kind(m.group(1)),),
                prefer=tuple("default" if k in _DEFAULT else option_keys.read(k) for k in keys))


def shown(text: str, lang: str) -> str:
    """An order on file as a reader of `lang` reads it: `when fight answer fight or evade` filed
    in English is `wenn kampf antworte kämpfen oder ausweichen` to a German reader, wherever the
    words read back; a named order, and an order that no longer reads, as filed."""
    try:
        rule = parse(text)
    except ValueError:
        return text
    if order_words.read_named(normal(text)) in _NAMED:
        return order_words.named(order_words.read_named(normal(text)), lang)
    if len(rule.kinds) != 1:
        return text
    kind = order_words.kind(rule.kinds[0], lang) or rule.kinds[0]
    keys = [order_words.word("default", lang) if k == "default" else option_keys.shown(k, lang) for k in rule.prefer]
    said = " ".join([order_words.word("when", lang), kind, order_words.word("answer", lang),
                     f" {order_words.word('or', lang)} ".join(keys)])
    return said if parse(said) == rule else text


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
    """Answers the open questions from the standing orders of those they ask, and for the seats
    a bot plays (both read once)."""

    def __init__(self, svc: Service, game: dict):
        self.svc, self.game, self.left, self.bots_left = svc, game, MAX_MOVES, BOT_BATCH
        self._rules: dict[str, list[tuple[int, Rule]]] | None = None
        self._bots: dict[str, str] | None = None

    def bots(self) -> dict[str, str]:
        """seat -> the level of the bot that plays it."""
        if self._bots is None:
            self._bots = {p["name"]: p["bot"] for p in self.svc.store.players(self.game["id"]) if p["bot"]}
        return self._bots

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
        """Play one answer from a standing order, else a bot's, on `out` (a moves.Played);
        False: none answers."""
        if getattr(out.state, "over", False):
            return False
        return self._standing(out, moves) or self._bot(out, moves)

    def _bot(self, out, moves: list) -> bool:
        """A bot answers for a seat it plays: its level's choice, from what the seat may see."""
        eng, seats = self.svc.engine, self.bots()
        if self.bots_left <= 0 or not seats:
            return False
        for name in eng.waiting_for(out.state):
            if name in seats:
                move = bots.choose(out.state, name, seats[name])
                if move is None:
                    continue
                _played(out, moves, move, eng.apply(out.state, move), BOT, out.bots)
                self.bots_left -= 1
                return True
        return False

    def _standing(self, out, moves: list) -> bool:
        eng = self.svc.engine
        if self.left <= 0:
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
                    applied = eng.apply(out.state, move)
                except eng.IllegalMove:
                    continue
                self.svc.store.standing_order_used(self.game["id"], name, hit[1])
                _played(out, moves, move, applied, ACTOR, out.standing)
                self.left -= 1
                return True
        return False


def _played(out, moves: list, move, applied: tuple, actor: str, said: list[str]) -> None:
    """One answer played for a seat on `out` (a moves.Played): logged as `actor`'s, listed in `said`."""
    new, events = applied
    moves.append((move, new, actor, events))
    said.append(str(move))
    out.state = new
    out.events += events

"""Standing orders: answers a player files in advance, so a question they would always answer
the same way costs no round of mail.

By mail, one order a line (docs/pace.md):

    standing: reroll-if-losing          fate rerolls in fights, against Death, for armour and at the
                                        Portal, the Crypt and the Mines (asked only when losing)
    standing: never-reroll              keep the roll whenever one of those or a table offers a reroll
    standing: never-reroll-movement     never spend fate on a movement roll
    standing: when fight answer fight   any kind of question, the first listed key that is open:
    standing: when shop answer done or default        ("default": the deadline's default)
    standing: cancel 2    standing: cancel all

Whenever a question opens, the standing orders of those it asks answer it before anyone is
mailed: `moves.play` asks an `Answerer` after each move, and logs what it plays with actor
"standing". A line of a player's own mail comes first: an order answers only a question the
next line does not fit, or those left open after the mail's last line.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pbem.base import clock, log
from pbem.core.games import GameError, seat_config
from pbem.outbound.turnmail import EVERY, TURN
from pbem.pace import deadlines, moves, vacation
from pbem.pace.pace import DEFAULTS, check_reports, default_key

if TYPE_CHECKING:
    from pbem.core.service import Service

ACTOR = "standing"
REPORTS_NOTES = {EVERY: "reports: you get a report after every move",
                 TURN: "reports: you get a report when you are asked, when a turn begins and after your answers"}
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
_CANCEL = re.compile(r"^cancel\s+(all|\d+)$")


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


# -- the orders on file ------------------------------------------------------------------

def listing(svc: Service, game_id: str, player: str) -> list[dict]:
    return svc.store.standing_orders(game_id, player)


def file(svc: Service, game_id: str, player: str, text: str) -> int:
    """File one order (ValueError if it cannot be read); returns its number."""
    parse(text)
    return svc.store.file_standing_order(game_id, player, normal(text))


def cancel(svc: Service, game_id: str, player: str, which: str = "all") -> int:
    """Cancel order `which` (a number) or all of them; returns how many were cancelled."""
    return svc.store.cancel_standing_orders(game_id, player, None if which == "all" else int(which))


def carry_out(svc: Service, game_id: str, player: str, text: str, check: bool = False) -> str:
    """A `standing:` line of a mail; returns what became of it, for the reply."""
    text = normal(text)
    m = _CANCEL.match(text)
    if m:
        if check:
            return f"standing: {text}: would be done"
        n = cancel(svc, game_id, player, m.group(1))
        if not n:
            return f"standing: {text}: no such standing order"
        return f"standing: {text}: {n} standing order{'s' if n != 1 else ''} cancelled"
    rule = parse(text)
    unknown = [k for k in rule.kinds if k not in DEFAULTS]
    note = f" (no question of kind {unknown[0]!r} is known yet: check the spelling)" if unknown else ""
    if check:
        return f"standing: {text}: would be filed{note}"
    return f"standing order {file(svc, game_id, player, text)} filed: {text}{note}"


# -- answering from them -----------------------------------------------------------------

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


def settle(svc: Service, game: dict, played) -> None:
    """After a move made outside `moves.play` (the moderator's ruling): let standing orders
    answer what it opened, and log their answers."""
    auto = Answerer(svc, game)
    made: list[tuple] = []  # (move, state, actor, events), as Answerer.step appends them
    while auto.step(played, made):
        pass
    for move, st, actor, events in made:
        played.seq = moves.record(svc, game, move, st, events, actor=actor)["seq"]


# -- a mail's other lines: standing, vacation, timezone, reports ---------------------------------

def directives(svc: Service, game: dict, player: str, lines: list[str], check: bool = False) -> list[str]:
    """Carry out a mail's `standing:`, `vacation:`, `timezone:` and `reports:` lines, in order; returns a
    note on each for the reply (what was done, or why not)."""
    notes = []
    for line in lines:
        word, _, rest = line.partition(":")
        word, rest = word.strip().lower(), rest.strip()
        try:
            if word == "standing":
                notes.append(carry_out(svc, game["id"], player, rest, check))
            elif word == "vacation" and rest.lower() in ("end", "over", "0", "none", "back"):
                if check:
                    notes.append("vacation: would end now")
                    continue
                vacation.end(svc, game, player)
                notes.append("vacation: ended; your deadlines run again")
            elif word == "vacation":
                length = clock.duration(rest, unit="d")
                if check:
                    notes.append(f"vacation: {rest}: would start now")
                    continue
                end = vacation.start(svc, game, player, length, by=player)
                tz = seat_config(game, player).get("timezone")
                notes.append(f"vacation: your deadlines wait until {clock.local(end, tz)}")
            elif word == "timezone":
                clock.zone(rest)
                if not check:
                    vacation.set_timezone(svc, game, player, rest)
                notes.append(f"timezone: times are shown in {rest}")
            elif word == "reports":
                how = check_reports(rest.lower())
                if not check:
                    vacation.set_reports(svc, game, player, how)
                notes.append(REPORTS_NOTES[how])
        except (ValueError, GameError) as e:
            notes.append(f"{word}: {rest}: not done: {e}")
    return notes


def report_keys(svc: Service, game: dict, player: str, mine: dict | None, state) -> dict:
    """The report context's `deadline` (deadlines.context) and `standing_orders`: the player's
    active orders, and the kind of the question they are asked (what `when <kind>` names;
    `state`, the game as the report shows it, has it)."""
    deadline = deadlines.context(svc, game, player)
    orders = listing(svc, game["id"], player) if player != svc.engine.MODERATOR else []
    kind = None
    if mine:
        kind = next((d["kind"] for d in (deadline or {}).get("open", []) if d["prompt"] == mine["id"]), None)
        if kind is None:  # the view does not carry it (see docs/pace.md): from the game's state
            kind = next((p.kind for p in svc.engine.prompts(state) if p.id == mine["id"]), None)
    return {"deadline": deadline, "standing_orders": {"active": orders, "kind": kind}}

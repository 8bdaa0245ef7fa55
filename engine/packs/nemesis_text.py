"""Nemesis: the pack's public state as players read it (`public_text`, at the end of every report):
which Trial and what wins it, where the adversary and the villains stand, the sacred sites left,
each hero's companion and level, the Nemesis's hand, lives and fate, and what the Nemesis may
still do this turn. Only what the public summary shows (engine/packs/nemesis.py `public`)."""
from __future__ import annotations

from engine.content import Card, Content
from engine.packs.nemesis_board import BONUSES, adversary_space, heroes, nemesis, tokens
from engine.state import Game, Player
from engine.words import card, listing, space


def text(state: Game, content: Content) -> list[str]:
    k = nemesis(state)
    nem = state.players[k]
    trial = content.cards[state.piles["trial"][0]]
    lines = [_trial(state, trial)]
    adv = adversary_space(state)
    if adv:
        foe = content.cards[state.piles[f"adversary@{adv}"][0]]
        lines.append(f"The {foe.name} stands on {space(content, adv)}, {state.counters.get('adversary-life', 0)} of "
                     f"{foe.prop('life')} lives{_bonus(state, 'adversary')}.")
    sites = tokens(state, "site")
    lines.append(f"Sacred sites standing: {listing(space(content, sp) for sp in sites)}." if sites
                 else "Every sacred site is destroyed: the adversary can be wounded.")
    villains = tokens(state, "villain")
    if villains:
        where = listing(f"{space(content, sp)}{f' ({len(vs)})' if len(vs) > 1 else ''}" for sp, vs in villains.items())
        lines.append(f"Villains on {where}{_bonus(state, 'villains')}.")
    companions = [_companion(state, content, state.players[i]) for i in heroes(state) if state.players[i].area]
    if companions:
        lines.append(f"Companions: {listing(companions)}.")
    lines.append(f"The Nemesis holds {len(nem.hand)} Action card{'s' if len(nem.hand) != 1 else ''}, has {nem.life} "
                 f"lives and {nem.fate} fate.")
    lines += _this_turn(state, k)
    return lines


def _trial(state: Game, trial: Card) -> str:
    deaths = state.counters.get("hero-deaths", 0)
    if trial.prop("objective") == "kill-three":
        return f"{trial.name}: the Nemesis wins by killing three heroes ({deaths} killed so far)."
    x = state.counters.get("x-token")
    bearer = f"; {state.players[x].name} bears it" if x is not None else ""
    return f"{trial.name}: the Nemesis wins by killing the hero with the X token{bearer}."


def _bonus(state: Game, who: str) -> str:
    n = state.counters.get(BONUSES[who], 0)
    return f", fighting with +{n} until the Nemesis's next turn" if n else ""


def _companion(state: Game, content: Content, p: Player) -> str:
    level = state.counters.get(f"companion@{p.name}", 1)
    talisman = " with its Talisman" if len(p.area) > 1 else ""
    return f"{p.name}'s {card(content, p.area[0])} (level {level}{talisman})"


def _this_turn(state: Game, k: int) -> list[str]:
    """What the Nemesis may still do this turn: its actions left on its own turn; on a hero's,
    the one reroll of a creature's die its fate allows."""
    if state.over:
        return []
    if state.current == k:
        prompt = state.prompt
        if prompt is not None and prompt.kind == "nemesis-action":
            left = prompt.data.get("n", 0)
        else:
            left = next((t.a["n"] for t in reversed(state.stack) if t.op == "nemesis-action"), 0)
        return [f"This turn the Nemesis has {left} action{'s' if left != 1 else ''} left."] if left else []
    if state.players[k].fate and state.counters.get("nemesis-fate-turn") != state.turn:
        return ["This turn the Nemesis may still spend 1 fate to reroll the die of a creature a hero fights."]
    return []

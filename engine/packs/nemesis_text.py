"""Nemesis: the pack's public state as players read it (`public_text`, at the end of every report):
which Trial and what wins it, where the adversary and the villains stand, the sacred sites left,
each hero's companion and level, the Nemesis's hand, lives and fate, and what the Nemesis may
still do this turn. Only what the public summary shows (engine/packs/nemesis.py `public`)."""
from __future__ import annotations

from engine.content import Card, Content
from engine.packs.nemesis_board import BONUSES, adversary_space, heroes, nemesis, tokens
from engine.state import Game, Player
from engine.text import Msg, msg
from engine.words import card, listing, space


def text(state: Game, content: Content) -> list[Msg]:
    k = nemesis(state)
    nem = state.players[k]
    trial = content.cards[state.piles["trial"][0]]
    lines = [_trial(state, trial)]
    adv = adversary_space(state)
    if adv:
        foe = content.cards[state.piles[f"adversary@{adv}"][0]]
        life, most = state.counters.get("adversary-life", 0), foe.prop("life")
        bonus = _bonus(state, "adversary")
        lines.append(msg("The {card} stands on {space}, {life} of {most} lives, fighting with +{n} until the "
                         "Nemesis's next turn.", card=foe.name, space=space(content, adv), life=life, most=most,
                         n=bonus) if bonus
                     else msg("The {card} stands on {space}, {life} of {most} lives.", card=foe.name,
                              space=space(content, adv), life=life, most=most))
    sites = tokens(state, "site")
    lines.append(msg("Sacred sites standing: {spaces}.", spaces=listing(space(content, sp) for sp in sites)) if sites
                 else msg("Every sacred site is destroyed: the adversary can be wounded."))
    villains = tokens(state, "villain")
    if villains:
        where = listing(msg("{space} ({n})", space=space(content, sp), n=len(vs)) if len(vs) > 1
                        else space(content, sp) for sp, vs in villains.items())
        bonus = _bonus(state, "villains")
        lines.append(msg("Villains on {spaces}, fighting with +{n} until the Nemesis's next turn.", spaces=where,
                         n=bonus) if bonus else msg("Villains on {spaces}.", spaces=where))
    companions = [_companion(state, content, state.players[i]) for i in heroes(state) if state.players[i].area]
    if companions:
        lines.append(msg("Companions: {companions}.", companions=listing(companions)))
    n = len(nem.hand)
    lines.append(msg("The Nemesis holds {n} Action card{s}, has {life} lives and {fate} fate.", n=n,
                     s="s" if n != 1 else "", life=nem.life, fate=nem.fate))
    lines += _this_turn(state, k)
    return lines


def _trial(state: Game, trial: Card) -> Msg:
    deaths = state.counters.get("hero-deaths", 0)
    if trial.prop("objective") == "kill-three":
        return msg("{card}: the Nemesis wins by killing three heroes ({n} killed so far).", card=trial.name, n=deaths)
    x = state.counters.get("x-token")
    if x is not None:
        return msg("{card}: the Nemesis wins by killing the hero with the X token; {player} bears it.",
                   card=trial.name, player=state.players[x].name)
    return msg("{card}: the Nemesis wins by killing the hero with the X token.", card=trial.name)


def _bonus(state: Game, who: str) -> int:
    """What the adversary or the villains fight with until the Nemesis's next turn (0: nothing)."""
    return int(state.counters.get(BONUSES[who], 0))


def _companion(state: Game, content: Content, p: Player) -> Msg:
    level = state.counters.get(f"companion@{p.name}", 1)
    if len(p.area) > 1:
        return msg("{player}'s {card} (level {level} with its Talisman)", player=p.name, card=card(content, p.area[0]),
                   level=level)
    return msg("{player}'s {card} (level {level})", player=p.name, card=card(content, p.area[0]), level=level)


def _this_turn(state: Game, k: int) -> list[Msg]:
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
        if not left:
            return []
        return [msg("This turn the Nemesis has {n} action{s} left.", n=left, s="s" if left != 1 else "")]
    if state.players[k].fate and state.counters.get("nemesis-fate-turn") != state.turn:
        return [msg("This turn the Nemesis may still spend 1 fate to reroll the die of a creature a hero fights.")]
    return []

"""A player who resigns: their character leaves play and the game goes on (issue 18).

The move is `moderator: leave-game <player>` (a player resigns with a confirmed `resign`, which the
service turns into it); it may come at any time, as the moderator's `adjudicate` does. The printed
rules have no resigning, so what becomes of the character is this project's decision: it leaves
play with everything it holds
(its cards go to their discard piles, its gold to the bank; a play area, the Nemesis's
companion, stays where it is), it is out of the game for good,
a question put to it is answered for it with its first option (in its own turn the rest of
the turn is dropped), and the turns pass it by.
"""
from __future__ import annotations

from engine.errors import MODERATOR, IllegalMove
from engine.rules import stats, turn
from engine.rules.items import discard
from engine.rules.machine import Ctx, answer
from engine.state import Move
from engine.text import msg

KEY = "leave-game"  # not "leave": the City asks "stay" or "leave"


def leave(ctx: Ctx, move: Move) -> None:
    s = ctx.s
    if move.player != MODERATOR:  # a player resigns by a confirmed `resign`, which the service plays so
        raise IllegalMove(msg("only the moderator plays `leave-game <player>`: to leave, write resign"), [])
    who = (move.arg or "").strip().lower()
    try:
        i = ctx.index(who)
    except KeyError:
        raise IllegalMove(msg("no player called {who!r} to leave", who=who), [p.name for p in s.players]) from None
    p = ctx.player(i)
    if p.out:
        raise IllegalMove(msg("{who} has left the game already", who=who), [])
    q = s.prompt
    if q is not None and who in q.players and who not in q.answers:
        if s.current == i:  # their own turn: nothing more of it is played
            s.prompt = None
            ctx.end_turn()
        else:  # asked in another's turn (to defend, to help): answered as it would be by default
            answer(ctx, Move(who, q.options[0].key, q.id))
    for card in p.objects + p.followers + p.spells + p.trophies + p.hand + \
            ([p.quest] if p.quest in ctx.content.cards else []):
        discard(ctx, card)
    p.objects, p.followers, p.spells, p.trophies, p.hand = [], [], [], [], []
    p.gold = p.fate = p.toad = p.miss = p.life = 0
    p.alive, p.out, p.space, p.quest, p.flags = False, True, None, None, {}
    ctx.emit("leave",
             msg("{player} resigns: the {character} leaves play, and the game goes on without them.", player=who,
                 character=stats.character(ctx, p).name) if p.character else
             msg("{player} resigns: their part leaves play, and the game goes on without them.", player=who),
             player=who)
    turn.check_last_standing(ctx)


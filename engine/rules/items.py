"""Objects, Followers and gold changing hands; where a card goes when discarded (§7)."""
from __future__ import annotations

from engine.rules import stats
from engine.rules.machine import Ctx, on_answer
from engine.state import Option, Prompt, option
from engine.text import Msg, msg, revived

FORCED = ("hag", "poltergeist")  # Followers that cannot be sent away at will (their hooks)


def discard(ctx: Ctx, card: str) -> None:
    """To its deck's discard pile; decks without one (faceup piles) take the card back."""
    pile = ctx.content.discard_pile(card)
    (ctx.s.discards[pile] if pile in ctx.s.discards else ctx.s.decks[pile]).append(card)


def may_hold(ctx: Ctx, i: int, card: str) -> bool:
    c = ctx.content.cards[card]
    forbid = c.prop("forbid")
    return not forbid or ctx.player(i).alignment != forbid


def gain_object(ctx: Ctx, i: int, card: str) -> bool:
    """Take an Object; over the carrying limit it is left on the character's space."""
    p = ctx.player(i)
    c = ctx.content.cards[card]
    if c.type == "follower":
        p.followers.append(card)
        return True
    if not may_hold(ctx, i, card) or stats.full(ctx, p, card):
        ctx.s.spaces.setdefault(p.space, []).append(card)
        ctx.emit("leave-object",
                 msg("{player} cannot carry {card}; it stays on the space.", player=p.name, card=c.name), player=p.name)
        return False
    p.objects.append(card)
    return True


def check_alignment_items(ctx: Ctx, i: int) -> None:
    """After an alignment change, cards the new alignment forbids are discarded."""
    p = ctx.player(i)
    for card in [c for c in p.objects + p.followers if not may_hold(ctx, i, c)]:
        (p.objects if card in p.objects else p.followers).remove(card)
        discard(ctx, card)
        ctx.emit("discard", msg("{player} must give up {card}.", player=p.name, card=ctx.content.cards[card].name),
                 player=p.name)


def drop_excess(ctx: Ctx, i: int) -> None:
    """Objects over the limit (a Mule lost) are left faceup on the space."""
    p = ctx.player(i)
    while stats.carried(ctx, p) > stats.carry_limit(ctx, p):
        card = next(c for c in reversed(p.objects) if not ctx.content.cards[c].prop("trinket"))
        p.objects.remove(card)
        ctx.s.spaces.setdefault(p.space, []).append(card)


def discard_spells_over_limit(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    keep = max(stats.spell_limit(ctx, p), 1 if p.spells and stats.has_ability(ctx, p, "keep-one-spell") else 0)
    while len(p.spells) > keep and not p.toad:
        ctx.s.discards["spell"].append(p.spells.pop())
        ctx.emit("discard", msg("{player} discards a Spell over the limit.", player=p.name), player=p.name)


# -- ditching (base-game.md §3.1, docs/rules-decisions.md §16.6) --------------------------------

def ditchable(ctx: Ctx, i: int) -> list[str]:
    """What the character may leave on its space on purpose: its Objects and Followers, but
    not the Followers that force themselves on it (the Hag, the Poltergeist)."""
    p = ctx.player(i)
    if not (p.objects or p.followers) or not p.space or not p.alive:
        return []
    cards = ctx.content.cards
    return [c for c in dict.fromkeys(p.objects + p.followers) if cards[c].hook not in FORCED]


def not_now(ctx: Ctx, i: int) -> list[str]:
    """Cards on its space the character may not meet or take again this turn: what it ditched
    (and a wandering card that stayed where it drew it)."""
    mark = ctx.player(i).flags.get("not-now")
    return mark[1] if mark and mark[0] == ctx.s.turn else []


def pass_over(ctx: Ctx, i: int, card: str) -> None:
    p = ctx.player(i)
    p.flags["not-now"] = [ctx.s.turn, not_now(ctx, i) + [card]]  # a new list: flags are copied shallowly


def ditch(ctx: Ctx, i: int, card: str) -> None:
    """Leave an Object or Follower faceup on the space; it counts toward draw-to-N there."""
    p = ctx.player(i)
    (p.objects if card in p.objects else p.followers).remove(card)
    ctx.s.spaces.setdefault(p.space, []).append(card)
    pass_over(ctx, i, card)
    ctx.emit("ditch",
             msg("{player} leaves {card} on {space}.", player=p.name, card=ctx.content.cards[card].name,
                 space=ctx.space(p.space).name),
             player=p.name, card=card)
    if ctx.content.cards[card].prop("carry"):  # a Mule left behind: what it carried stays too
        before = list(p.objects)
        drop_excess(ctx, i)
        for c in p.objects:
            before.remove(c)
        for c in before:  # dropped with it: not to be picked up again this turn either
            pass_over(ctx, i, c)
    discard_spells_over_limit(ctx, i)  # Craft a card gave is gone with it


def card_named(ctx: Ctx, cards: list[str], text: str | None) -> str | None:
    """The card among `cards` a player named in an answer's argument (slug or name)."""
    if not text:
        return None
    want = text.strip().lower().replace("'", "").replace(" ", "-")
    return want if want in cards else None


def ditch_answer(ctx: Ctx, prompt: Prompt, arg: str | None, i: int, again: str | None = None) -> None:
    """The answer `ditch` (or `ditch <card>`) to a question of the player's own turn: leave
    the card, then the question is asked again: by the task `again`, which builds it anew
    (where what the player holds decides its options), or else as it was. Without a card
    named: which one?"""
    back = {"again": again} if again else {
        "kind": prompt.kind, "question": prompt.question,
        "options": [[o.key, o.text] for o in prompt.options], "data": dict(prompt.data),
        # the same as messages, for a reader's language (not in the state's hash: api.state_hash)
        "words": {"question": prompt.msg, "options": {o.key: o.msg for o in prompt.options if o.msg}}}
    card = card_named(ctx, ditchable(ctx, i), arg)
    if card:
        ditch(ctx, i, card)
        reopen(ctx, i, back)
    else:
        ask_ditch(ctx, i, back)


def ask_ditch(ctx: Ctx, i: int, back: dict) -> None:
    cards = ditchable(ctx, i)
    if not cards:
        reopen(ctx, i, back)
        return
    ctx.ask(i, "ditch", msg("What do you leave on your space? (You cannot pick it up again this turn.)"),
            [option(c, msg("leave {card}", card=ctx.content.cards[c].name)) for c in cards]
            + [option("done", msg("leave nothing more"))],
            back=back)


@on_answer("ditch", "what to leave on your space: a card slug, or `done`", default=("done",))
def ditch_which(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    if key == "done":
        reopen(ctx, i, prompt.data["back"])
        return
    ditch(ctx, i, key)
    ask_ditch(ctx, i, prompt.data["back"])


def reopen(ctx: Ctx, i: int, back: dict) -> None:
    """Ask the question the player answered with `ditch` again (the work it resumes is still
    on the stack, untouched)."""
    if "again" in back:
        ctx.push(back["again"], i)
        return
    words = back.get("words") or {}  # none in a game saved before they were kept
    said = {k: revived(m) for k, m in (words.get("options") or {}).items()}
    opts = [Option(k, t, said.get(k)) for k, t in back["options"] if k != "ditch" or ditchable(ctx, i)]
    question = revived(words.get("question"))
    ctx.ask(i, back["kind"], question if isinstance(question, Msg) and question.english() == back["question"]
            else back["question"], opts, **back["data"])

"""Talisman Nemesis: Call of the Hunt (nemesis.txt): one Nemesis player against cooperating heroes.

The Nemesis is a player who is not a character (`role = "nemesis"`): no figure, a private
hand of Action cards (`Player.hand`), life and fate from the Trial card. Heroes share their
fate (`pools["shared_fate"]`, read through engine/rules/stats.py), hold at most one Boon
(`hand`) and one companion (`area`). Board tokens are cards in `piles`: "site@<space>",
"villain@<space>", "adversary@<space>"; the Trial card is the pile "trial" and cards
returned to the box lie in "box". The core calls the named hooks below through
`engine.packs.call`; what content data says is in engine/content/nemesis/.
"""
from __future__ import annotations

from typing import Any

from engine import rng
from engine.state import Option
from engine.rules import stats
from engine.rules.items import discard
from engine.rules.machine import Ctx, on_answer, task
from engine.rules.movement import DIRS, place, step
from engine.rules.turn import finish

LAIR = "lair-of-the-beast"
# Where a token may step between regions: the Portal of Power continues onto the centre board
# (Setup 12); the Sentinel's bridge joins the Outer and Middle Regions.
CROSSINGS = {"portal-of-power": "plain-of-peril", "plain-of-peril": "portal-of-power", "sentinel": "hills-3",
             "hills-3": "sentinel"}
# Setup 5 and 6: removed from the 5th Edition Spell and Adventure decks, by name. Names the
# R4E stand-in content lacks (Calamity, Chalice of Life, Holy Symbol) are skipped.
SPELL_REMOVALS = ["acquisition", "counterspell", "counterspell", "destroy-magic", "destruction", "destruction",
                  "healing", "hex", "immobility", "immobility", "mesmerism", "nullify", "random", "temporal-warp"]
ADVENTURE_REMOVALS = ["dragon", "wraith", "angel", "blizzard", "book-of-spells", "calamity", "devil", "evil-darkness",
                      "imp", "magical-vortex", "market-day", "pestilence", "raiders", "siren", "storm", "gnome", "hag",
                      "mercenary", "pixie", "mule", "poltergeist", "prince", "princess", "magic-portal", "marsh",
                      "maze", "water-bottle", "helmet", "shield", "amulet", "chalice-of-life", "holy-lance",
                      "holy-symbol", "talisman", "healer", "hermit", "mage"]


# -- who is who --------------------------------------------------------------------

def nemesis(s) -> int:
    return next(i for i, p in enumerate(s.players) if p.role == "nemesis")


def heroes(s) -> list[int]:
    """Hero seats in turn order, starting with the player to the Nemesis's left."""
    n, k = len(s.players), nemesis(s)
    return [(k + d) % n for d in range(1, n)]


def living(s) -> list[int]:
    return [i for i in heroes(s) if s.players[i].alive and s.players[i].character]


def trial(ctx: Ctx):
    return ctx.content.cards[ctx.s.piles["trial"][0]]


def tokens(s, kind: str) -> dict[str, list[str]]:
    """Space -> the tokens of a kind there ("site", "villain", "adversary")."""
    pre = kind + "@"
    return {k[len(pre):]: v for k, v in s.piles.items() if k.startswith(pre) and v}


def stat(card, attr: str) -> int:
    """A token's printed Strength or Craft (content keeps them as properties: not an Enemy card)."""
    return card.prop(attr, 0)


def adversary_space(s) -> str | None:
    return next(iter(tokens(s, "adversary")), None)


def to_box(s, deck: list[str], card: str) -> None:
    deck.remove(card)
    s.piles.setdefault("box", []).append(card)


# -- setup (nemesis.txt: Game Setup) ---------------------------------------------------

def setup(ctx: Ctx, config) -> None:
    s, cards = ctx.s, ctx.content.cards
    box = lambda deck, card: to_box(s, s.decks[deck], card)  # noqa: E731
    for card in SPELL_REMOVALS:  # steps 5, 8 (the Nemesis Spells joined the deck in content)
        if card in s.decks["spell"]:
            box("spell", card)
    adv = s.decks["adventure"]
    talisman = None
    for card in ADVENTURE_REMOVALS:  # steps 6, 7: the Talisman card is kept aside
        if card in adv:
            if card == "talisman":
                adv.remove(card)
                talisman = card
            else:
                box("adventure", card)
    rush = [c for c in adv if c == "trial-rush"]
    for c in rush + ["final-encounter"]:
        adv.remove(c)
    top = [adv.pop() for _ in range(min(10, len(adv)))] + rush + ([talisman] if talisman else [])
    rng.shuffle(s, top)  # steps 9, 10: 10 cards, the Talisman and 5 Trial Rush, on top
    adv.extend(top)
    adv.insert(len(adv) // 2, "final-encounter")  # step 11: cut into the middle
    t = f"trial-{config.option('trial')}"  # step 19: the Trial's cards; the rest go back in the box
    s.piles["trial"] = [t]
    s.decks["trial"].remove(t)
    for c in list(s.decks["trial"]):
        box("trial", c)
    tc = cards[t]
    for deck in ("action", "villain", "adversary"):
        for c in [c for c in s.decks[deck] if cards[c].prop("trial", 0) not in (0, tc.prop("trial"))]:
            box(deck, c)
    k = nemesis(s)  # steps 20, 21
    nem = s.players[k]
    nem.life, nem.fate = tc.prop("life"), tc.prop("fate")
    nem.max_life, nem.max_fate = nem.life, nem.fate
    for _ in range(3):
        draw_action(ctx, k)
    n_sites = min(4, len(heroes(s)))  # steps 22, 23: one site per hero, at most 4, each with a villain
    for space in tc.prop("sites")[:n_sites]:
        s.piles[f"site@{space}"] = [s.decks["site"].pop()]
        s.piles[f"villain@{space}"] = [s.decks["villain"].pop()]
    for c in list(s.decks["site"]):
        box("site", c)
    s.piles[f"adversary@{LAIR}"] = [s.decks["adversary"].pop()]  # step 24
    s.counters["adversary-life"] = cards[s.piles[f"adversary@{LAIR}"][0]].prop("life")
    if tc.prop("objective") == "kill-x":  # Trial 2: who bears the X token is not known; dealt at random
        hs = heroes(s)
        s.counters["x-token"] = hs[rng.below(s, len(hs))]


def first_player(ctx: Ctx) -> int:
    """The player sitting to the left of the Nemesis goes first; play moves to the left."""
    return heroes(ctx.s)[0]


def start_space(ctx: Ctx, character) -> str:
    return "tavern"  # Setup 14: all hero characters begin on the Tavern


def seated(ctx: Ctx, config) -> list[tuple]:
    """After the characters: the shared fate pool (14), the level token, and the companions
    (16, 17): the last hero to choose their character picks first, then to the right."""
    s = ctx.s
    s.pools["shared_fate"] = sum(s.players[i].fate for i in heroes(s))
    s.counters["shared-fate-start"] = s.pools["shared_fate"]
    for i in heroes(s):
        s.players[i].fate = 0
    # Characters are chosen in turn order, so the last to choose sits to the Nemesis's right;
    # "to the right" goes against the turn order.
    return [("choose-companion", i, {}) for i in reversed(heroes(s))]


@task("choose-companion")
def choose_companion(ctx: Ctx, t) -> None:
    left = ctx.s.decks["companion"]
    ctx.ask(t.p, "companion", "Choose your companion.",
            [Option(c, ctx.content.cards[c].name) for c in dict.fromkeys(left)])


@on_answer("companion")
def companion_chosen(ctx: Ctx, prompt, key, arg, who) -> None:
    p = ctx.player(ctx.index(who))
    ctx.s.decks["companion"].remove(key)
    p.area.append(key)
    ctx.s.counters[f"companion@{who}"] = 1  # the level token on 1 (Setup 18)
    ctx.emit("companion", f"{who} takes {ctx.content.cards[key].name} as companion (level 1).", player=who)


# -- the Nemesis's turn ------------------------------------------------------------------

def draw_action(ctx: Ctx, k: int) -> None:
    card = ctx.draw("action")
    if card:
        ctx.player(k).hand.append(card)
        ctx.emit("action-drawn", "The Nemesis draws an Action card.")
        ctx.emit("action-drawn", f"You draw {ctx.content.cards[card].name}.", to=[ctx.name(k)], card=card)


def between_turns(ctx: Ctx, done: int, nxt: int) -> None:
    """With 4 or more heroes the Nemesis has an additional turn. Where it falls is not given:
    here halfway round, after the hero halfway from the Nemesis (docs/rules-decisions.md §8)."""
    hs = heroes(ctx.s)
    if len(hs) >= 4 and done == hs[len(hs) // 2 - 1]:
        ctx.push("nemesis-turn", nemesis(ctx.s), main=False)


@task("nemesis-turn")
def nemesis_turn(ctx: Ctx, t) -> None:
    s = ctx.s
    s.current = t.p  # a death in this turn must not end a hero's turn still on the stack
    if not t.a["main"]:
        s.turn += 1  # the additional turn is a turn of its own (once-per-turn fate counts anew)
    n = 2 if t.a["main"] else (2 if len(heroes(s)) == 4 else 3)
    ctx.emit("turn", f"The Nemesis's {'main' if t.a['main'] else 'additional'} turn: {n} actions.", player=ctx.name(t.p))
    ctx.push("nemesis-end", t.p, main=t.a["main"])
    ctx.push("nemesis-action", t.p, n=n, first=True)


def action_options(ctx: Ctx, k: int, first: bool) -> list[Option]:
    s, cards = ctx.s, ctx.content.cards
    p = ctx.player(k)
    opts = [Option(f"play-{c}", f"play {cards[c].name}") for c in dict.fromkeys(p.hand)]
    adv = adversary_space(s)
    if adv:
        opts += [Option(f"adversary-{d}", f"move the adversary 1 space {'counter-' if d == 'left' else ''}clockwise to "
                        f"{ctx.space(step(ctx, adv, DIRS[d])).name}") for d in DIRS]
        if adv in CROSSINGS:
            opts.append(Option("adversary-cross", f"move the adversary across to {ctx.space(CROSSINGS[adv]).name}"))
    opts += [Option(f"villain-{sp}", f"move a villain from {ctx.space(sp).name} (up to 3 spaces)")
             for sp in tokens(s, "villain")]
    if first:
        at = {sp: ["adversary"] for sp in tokens(s, "adversary")}
        for sp, vs in tokens(s, "villain").items():
            at.setdefault(sp, []).append(vs[0])
        for sp, who in at.items():
            for j in living(s):
                if ctx.player(j).space == sp:
                    for w in who:
                        opts.append(Option(f"attack-{ctx.name(j)}-with-{w}",
                                           f"attack {ctx.name(j)} with the {'adversary' if w == 'adversary' else cards[w].name} (ends the turn)"))
        if s.decks["villain"]:
            opts.append(Option("place-villain", "place a villain (ends the turn)"))
    return opts + [Option("done", "end your turn")]


@task("nemesis-action")
def nemesis_action(ctx: Ctx, t) -> None:
    if t.a["n"] <= 0 or ctx.s.over:
        return
    ctx.ask(t.p, "nemesis-action", f"Nemesis: {t.a['n']} action(s) left. What do you do?",
            action_options(ctx, t.p, t.a["first"]), n=t.a["n"])


@on_answer("nemesis-action")
def nemesis_action_answer(ctx: Ctx, prompt, key, arg, who) -> None:
    s, k = ctx.s, ctx.index(who)
    more = prompt.data["n"] - 1
    if key == "done":
        return
    if key.startswith("attack-"):  # first and only action
        hero, _, w = key[len("attack-"):].partition("-with-")
        attack(ctx, ctx.index(hero), w)
        return
    if key == "place-villain":
        sites = list(tokens(s, "site")) or [adversary_space(s)]
        ctx.ask(k, "place-villain", "Place a villain where?", [Option(sp, ctx.space(sp).name) for sp in sites if sp])
        return
    ctx.push("nemesis-action", k, n=more, first=False)
    if key.startswith("play-"):
        card = ctx.content.cards[key[5:]]
        ctx.player(k).hand.remove(card.slug)
        discard(ctx, card.slug)
        ctx.emit("action", f"The Nemesis plays {card.name}.", player=who, card=card.slug)
        ctx.push("effect", k, ops=card.effect or [{"op": "moderator", "text": card.text}], source=card.name)
    elif key.startswith("adversary-"):
        src = adversary_space(s)
        way = key[len("adversary-"):]
        dest = CROSSINGS[src] if way == "cross" else step(ctx, src, DIRS[way])
        move_token(ctx, "adversary", src, dest, s.piles[f"adversary@{src}"][0])
    elif key.startswith("villain-"):
        src = key[len("villain-"):]
        ring = ctx.content.board.rings[ctx.content.space(src).ring]
        idx = ctx.content.space(src).index
        dests = list(dict.fromkeys(ring[(idx + d) % len(ring)] for d in (-3, -2, -1, 1, 2, 3)))
        ctx.ask(k, "villain-move", "Move the villain where?", [Option(d, ctx.space(d).name) for d in dests if d != src],
                src=src)


def move_token(ctx: Ctx, kind: str, src: str, dest: str, card: str) -> None:
    ctx.s.piles[f"{kind}@{src}"].remove(card)
    if not ctx.s.piles[f"{kind}@{src}"]:
        del ctx.s.piles[f"{kind}@{src}"]
    ctx.s.piles.setdefault(f"{kind}@{dest}", []).append(card)
    ctx.emit("token", f"The {ctx.content.cards[card].name} moves to {ctx.space(dest).name}.", card=card, space=dest)


@on_answer("villain-move")
def villain_move(ctx: Ctx, prompt, key, arg, who) -> None:
    src = prompt.data["src"]
    move_token(ctx, "villain", src, key, ctx.s.piles[f"villain@{src}"][0])


@on_answer("place-villain")
def place_villain(ctx: Ctx, prompt, key, arg, who) -> None:
    card = ctx.s.decks["villain"].pop()
    ctx.s.piles.setdefault(f"villain@{key}", []).append(card)
    ctx.emit("token", f"The Nemesis places a {ctx.content.cards[card].name} on {ctx.space(key).name}.", card=card)


def attack(ctx: Ctx, j: int, w: str) -> None:
    """The adversary or a villain attacks a hero on its space: the hero fights it as a
    creature (the hero is not on their turn, so nothing ends a turn)."""
    s = ctx.s
    hero = ctx.player(j)
    if w == "adversary":
        card = ctx.content.cards[s.piles[f"adversary@{hero.space}"][0]]
        ctx.emit("attack", f"The {card.name} attacks {hero.name}.")
        fight_adversary(ctx, j, "strength", hero.space)
    else:
        ctx.emit("attack", f"The {ctx.content.cards[w].name} attacks {hero.name}.")
        fight_villain(ctx, j, w, hero.space)


@task("nemesis-end")
def nemesis_end(ctx: Ctx, t) -> None:
    """End of a Nemesis turn: Action cards by the adversary's region (Inner 1, else 2); after
    the main turn, the Boons."""
    adv = adversary_space(ctx.s)
    for _ in range(1 if adv and ctx.content.space(adv).ring == "inner" else 2):
        draw_action(ctx, t.p)
    if t.a["main"]:
        ctx.push("boon-draw", t.p)


# -- Boons ---------------------------------------------------------------------------------

@task("boon-draw")
def boon_draw(ctx: Ctx, t) -> None:
    drawn = [c for c in (ctx.draw("boon") for _ in range(len(heroes(ctx.s)) - 1)) if c]
    if drawn:  # they lie in the pile "boon" while the heroes share them out; the Nemesis sees a count
        ctx.s.piles["boon"] = drawn
        ctx.emit("boon", f"{len(drawn)} Boon(s) are drawn for the heroes to share.")
        ctx.emit("boon", f"Boons to share: {', '.join(ctx.content.cards[c].name for c in drawn)}.",
                 to=[ctx.name(i) for i in heroes(ctx.s)])
        ctx.push("boon-share", t.p, passed=[])


@task("boon-share")
def boon_share(ctx: Ctx, t) -> None:
    """Every hero without a Boon who has not passed is asked at once; answers are settled in
    turn order from the Nemesis's left, so the order they come in changes nothing."""
    boons, passed = ctx.s.piles.get("boon", []), t.a["passed"]
    asked = [i for i in living(ctx.s) if not ctx.player(i).hand and i not in passed]
    if not boons or not asked:
        for c in ctx.s.piles.pop("boon", []):  # Boons nobody takes are discarded
            discard(ctx, c)
        return
    opts = [Option(c, f"take {ctx.content.cards[c].name}") for c in dict.fromkeys(boons)] + [Option("pass", "take none")]
    ctx.push("boon-share", t.p, passed=passed)
    if len(asked) == 1:
        ctx.ask(asked[0], "boon", "Boons to share: which do you take?", opts)
    else:
        ctx.ask(asked, "boon", "Boons to share: which do you take? (a clash goes to the first in turn order)", opts)


@on_answer("boon")
def boon_answer(ctx: Ctx, prompt, key, arg, who) -> None:
    pending = ctx.s.stack[-1].a
    answers = prompt.answers or {who: key}
    for i in living(ctx.s):  # turn order decides clashes
        want = answers.get(ctx.name(i))
        if want is None:
            continue
        if want == "pass":
            pending["passed"].append(i)
        elif want in ctx.s.piles["boon"]:
            ctx.s.piles["boon"].remove(want)
            ctx.player(i).hand.append(want)
            ctx.emit("boon", f"{ctx.name(i)} takes a Boon.", player=ctx.name(i))
            ctx.emit("boon", f"You take {ctx.content.cards[want].name}.", to=[ctx.name(i)])


# -- heroes' options -------------------------------------------------------------------------

def start_options(ctx: Ctx, i: int) -> list[Option]:
    p = ctx.player(i)
    opts = [Option(f"use-{c}", f"use your Boon, {ctx.content.cards[c].name}") for c in p.hand]
    return opts


def start_choice(ctx: Ctx, i: int, key: str) -> bool | None:
    p = ctx.player(i)
    if key.startswith("use-") and key[4:] in p.hand:  # "use-alchemist" is the base game's
        card = ctx.content.cards[key[4:]]
        p.hand.remove(card.slug)
        discard(ctx, card.slug)
        ctx.emit("boon", f"{p.name} uses the Boon {card.name}.", player=p.name)
        ctx.push("effect", i, ops=card.effect or [{"op": "moderator", "text": card.text}], source=card.name)
        return True
    return None


def set_companion_level(ctx: Ctx, i: int, level: int) -> str | bool:
    """The moderator raises a companion's level (`adjudicate alice companion 2`): the printed
    costs are not known. Level 3 needs a Talisman, which stays on the companion for good."""
    p = ctx.player(i)
    if not p.area or not 1 <= level <= 3:
        return f"{p.name} has no companion, or level {level} is not 1-3"
    if level == 3 and len(p.area) == 1:
        t = next((c for c in p.objects if ctx.content.cards[c].prop("talisman")), None)
        if t is None:
            return f"{p.name} holds no Talisman: level 3 needs one"
        p.objects.remove(t)
        p.area.append(t)
    ctx.s.counters[f"companion@{p.name}"] = level  # kept by the player, as the companion is, after a death
    ctx.emit("companion", f"{p.name}'s companion is now level {level}.", player=p.name)
    return True


def move_options(ctx: Ctx, i: int) -> list[Option]:
    p, s = ctx.player(i), ctx.s
    opts = []
    if p.space in tokens(s, "villain") or p.space in tokens(s, "adversary"):
        opts.append(Option("zero", "move zero and encounter the villain or adversary here"))
    if stats.fate(ctx, p):
        opts.append(Option("fate-move", "spend 1 shared fate to move up to 6 spaces instead"))
    return opts


def move_choice(ctx: Ctx, i: int, key: str) -> bool:
    p = ctx.player(i)
    if key == "zero":
        place(ctx, i, p.space)
        p.flags["zero"] = 1
    elif key == "fate-move":
        ctx.ask(i, "fate-move", "Move how far, and which way?",
                [Option(f"{d}-{n}", f"{n} {'counter-' if d == 'left' else ''}clockwise") for d in DIRS for n in range(1, 7)])
    return True


@on_answer("fate-move")
def fate_move(ctx: Ctx, prompt, key, arg, who) -> None:
    i = ctx.index(who)
    stats.spend_fate(ctx, ctx.player(i))
    d, _, n = key.partition("-")
    ctx.emit("fate", f"{who} spends 1 shared fate to move {n}.", player=who)
    ctx.push("walk", i, space=ctx.player(i).space, d=DIRS[d], steps=int(n), start=ctx.player(i).space)


def arrived(ctx: Ctx, i: int) -> bool | None:
    if ctx.player(i).space == LAIR:  # To the Death: a hero moves onto the Lair of the Beast
        ctx.push("to-the-death", i)
        return True
    return None


def encounter_options(ctx: Ctx, i: int) -> list[Option]:
    """A hero's choices on landing: the space, a villain, the adversary, the sacred site, or
    another hero (never an attack: an exchange). Moving zero allows only a villain or the
    adversary. An empty list: just the space."""
    s, p = ctx.s, ctx.player(i)
    here = p.space
    zero = p.flags.pop("zero", None)
    opts = []
    for v in dict.fromkeys(s.piles.get(f"villain@{here}", [])):
        opts.append(Option(f"fight-{v}", f"fight the {ctx.content.cards[v].name}"))
    if s.piles.get(f"adversary@{here}"):
        card = ctx.content.cards[s.piles[f"adversary@{here}"][0]]
        opts += [Option("adversary-battle", f"attack the {card.name} in battle"),
                 Option("adversary-psychic", f"attack the {card.name} in psychic combat")]
    if zero:
        return opts
    if s.piles.get(f"site@{here}"):
        opts += [Option("site-strength", "try to destroy the sacred site with Strength"),
                 Option("site-craft", "try to destroy the sacred site with Craft")]
    opts += [Option(f"exchange-{ctx.name(j)}", f"meet {ctx.name(j)} to exchange objects and gold")
             for j in living(s) if j != i and ctx.player(j).space == here]
    return [Option("encounter-space", f"encounter {ctx.space(here).name}")] + opts if opts else []


def encounter_choice(ctx: Ctx, i: int, key: str) -> bool | None:
    here = ctx.player(i).space
    if key.startswith("fight-"):
        fight_villain(ctx, i, key[6:], here)
    elif key.startswith("adversary-"):
        fight_adversary(ctx, i, "strength" if key.endswith("battle") else "craft", here)
    elif key.startswith("site-"):
        site = ctx.content.cards[ctx.s.piles[f"site@{here}"][0]]
        attr = key[5:]
        ctx.push("fight", i, name=site.name, **{attr: site.prop("value")}, damage=0, evadable=False, spells=False,
                 on_win="site-destroyed", on_win_args={"space": here})
    elif key.startswith("exchange-"):
        j = ctx.index(key[9:])
        ctx.push("exchange", j, other=i)  # then the other hero gives
        ctx.push("exchange", i, other=j)
    else:
        return None
    return True


def fight_villain(ctx: Ctx, i: int, v: str, space: str) -> None:
    card = ctx.content.cards[v]
    attr = {"strength": stat(card, "strength")} if stat(card, "strength") else {"craft": stat(card, "craft")}
    ctx.push("fight", i, name=card.name, **attr, ends_turn=ctx.s.current == i,
             on_win="villain-beaten", on_win_args={"space": space, "villain": v})


def fight_adversary(ctx: Ctx, i: int, attr: str, space: str) -> None:
    """Spells have no effect on an adversary and it never joins forces with other creatures."""
    card = ctx.content.cards[ctx.s.piles[f"adversary@{space}"][0]]
    ctx.push("fight", i, name=card.name, **{attr: stat(card, attr)}, evadable=False, spells=False,
             ends_turn=ctx.s.current == i, adversary=True, on_win="adversary-hit", on_win_args={})


@task("site-destroyed")
def site_destroyed(ctx: Ctx, t) -> None:
    space = t.a["space"]
    for c in ctx.s.piles.pop(f"site@{space}", []):
        discard(ctx, c)
    ctx.emit("site", f"{ctx.name(t.p)} destroys the sacred site at {ctx.space(space).name}.", player=ctx.name(t.p))
    if not tokens(ctx.s, "site"):
        ctx.emit("site", "All sacred sites are destroyed: the adversary can now be wounded.")


@task("villain-beaten")
def villain_beaten(ctx: Ctx, t) -> None:
    v, space = t.a["villain"], t.a["space"]
    pile = ctx.s.piles.get(f"villain@{space}", [])
    if v not in pile:
        return
    pile.remove(v)
    if not pile:
        del ctx.s.piles[f"villain@{space}"]
    ctx.player(t.p).trophies.append(v)
    ctx.ask(t.p, "villain-trophy", f"The {ctx.content.cards[v].name} is your trophy: toward Strength or Craft?",
            [Option("strength", "a Strength trophy"), Option("craft", "a Craft trophy")], villain=v)


@on_answer("villain-trophy")
def villain_trophy(ctx: Ctx, prompt, key, arg, who) -> None:
    p = ctx.player(ctx.index(who))
    # A new list: `clone` copies flags shallowly, and apply must not change its input.
    p.flags["villain-pools"] = p.flags.get("villain-pools", []) + [[prompt.data["villain"], key]]


def trophy_value(ctx: Ctx, p):
    """A villain counts at its printed value toward the pool its taker chose, never both."""
    pools = p.flags.get("villain-pools", [])

    def value(c: str, attr: str) -> int:
        card = ctx.content.cards[c]
        if card.type != "villain":
            return getattr(card, attr)
        return max(stat(card, "strength"), stat(card, "craft")) if [c, attr] in pools else 0
    return value


def trophy_spent(ctx: Ctx, p, c: str, attr: str) -> None:
    pools = list(p.flags.get("villain-pools", []))
    if [c, attr] in pools:
        pools.remove([c, attr])
        p.flags["villain-pools"] = pools


@task("adversary-hit")
def adversary_hit(ctx: Ctx, t) -> None:
    s = ctx.s
    if tokens(s, "site"):
        ctx.emit("adversary", "No life can be taken from the adversary while a sacred site stands.")
        return
    s.counters["adversary-life"] -= 1
    ctx.emit("adversary", f"The adversary loses 1 life ({s.counters['adversary-life']} left).")
    if s.counters["adversary-life"] <= 0:
        ctx.emit("game-over", "The adversary is defeated and every sacred site destroyed: the heroes win!")
        finish(ctx, [ctx.name(i) for i in heroes(s)])


# -- fighting together, the Nemesis's reroll -------------------------------------------------

def ask_helpers(ctx: Ctx, i: int, a: dict) -> bool | None:
    """Fight Together: other heroes on the space may add their Strength or Craft (no
    abilities, rolls or weapons). Asked all at once; the sum does not depend on the order."""
    if ctx.player(i).role != "hero" or ctx.s.current != i:
        return None  # "on your turn": not when the Nemesis attacks, nor To the Death
    helpers = [j for j in living(ctx.s) if j != i and ctx.player(j).space == ctx.player(i).space]
    if not helpers:
        return None
    ctx.push("combat-roll", i, **{**a, "helpers_asked": True})
    kind = "battle" if a.get("strength") is not None else "psychic combat"
    ctx.ask(helpers, "join-forces", f"{ctx.name(i)} fights {a['name']} ({kind}) on your space. Join forces?",
            [Option("join", "add your Strength or Craft to the attack"), Option("no", "stay out")])
    return True


@on_answer("join-forces")
def join_forces(ctx: Ctx, prompt, key, arg, who) -> None:
    a = ctx.s.stack[-1].a
    battle = a.get("strength") is not None
    answers = prompt.answers or {who: key}
    for name, k in answers.items():
        if k == "join":
            q = ctx.player(ctx.index(name))
            a["bonus"] = a.get("bonus", 0) + (q.strength if battle else q.craft)
            ctx.emit("join", f"{name} joins forces.", player=name)


def foe_reroll(ctx: Ctx, i: int) -> bool | None:
    """Once per turn the Nemesis may spend 1 fate to reroll the die of the adversary, a villain
    or any enemy: asked after the hero's own reroll, only if it could help the creature."""
    s = ctx.s
    k = nemesis(s)
    if ctx.player(i).role != "hero" or not s.players[k].fate or s.counters.get("nemesis-fate-turn") == s.turn:
        return None
    if s.stack[-1].a.get("damage") == 0:
        return None  # a sacred site is a place, not a creature
    ctx.push("foe-reroll", k)
    return True


@task("foe-reroll")
def foe_reroll_task(ctx: Ctx, t) -> None:
    a = ctx.s.stack[-1].a  # the combat-resolve task under this one
    if a["roll"] + a["base"] < a["foe_roll"] + a["foe"] or a["foe_roll"] == 6:
        return
    ctx.ask(t.p, "foe-reroll", f"{a['name']} totals {a['foe_roll'] + a['foe']} against {a['roll'] + a['base']}. "
            "Spend 1 fate to reroll its die?", [Option("reroll", "spend 1 fate and reroll"), Option("keep", "keep it")])


@on_answer("foe-reroll")
def foe_reroll_answer(ctx: Ctx, prompt, key, arg, who) -> None:
    if key != "reroll":
        return
    s, p = ctx.s, ctx.player(ctx.index(who))
    a = s.stack[-1].a
    p.fate -= 1
    s.counters["nemesis-fate-turn"] = s.turn
    a["foe_roll"] = rng.die(s)
    ctx.emit("fate", f"The Nemesis spends 1 fate and rerolls {a['name']}'s die: {a['foe_roll']}.")


# -- exchanging ------------------------------------------------------------------------------

@task("exchange")
def exchange(ctx: Ctx, t) -> None:
    p, other = ctx.player(t.p), t.a["other"]
    if not p.alive or not ctx.player(other).alive:
        return
    opts = ([Option("give-gold", f"give 1 gold to {ctx.name(other)}")] if p.gold else [])
    opts += [Option(f"give-{c}", f"give {ctx.content.cards[c].name}") for c in dict.fromkeys(p.objects)]
    if opts:
        ctx.ask(t.p, "exchange", f"Exchange with {ctx.name(other)}: what do you give?", opts + [Option("done", "give nothing more")],
                other=other)


@on_answer("exchange")
def exchange_answer(ctx: Ctx, prompt, key, arg, who) -> None:
    if key == "done":
        return
    from engine.rules.items import gain_object
    i, j = ctx.index(who), prompt.data["other"]
    p, q = ctx.player(i), ctx.player(j)
    if key == "give-gold":
        p.gold -= 1
        q.gold += 1
        ctx.emit("exchange", f"{who} gives 1 gold to {q.name}.")
    else:
        card = key[5:]
        p.objects.remove(card)
        gain_object(ctx, j, card)
        ctx.emit("exchange", f"{who} gives {ctx.content.cards[card].name} to {q.name}.")
    ctx.push("exchange", i, other=j)


# -- endings ------------------------------------------------------------------------------------

def killed(ctx: Ctx, i: int) -> None:
    """Every hero death counts toward Trial 1's objective, however it came about."""
    s = ctx.s
    if ctx.player(i).role != "hero" or s.over:
        return
    s.counters["hero-deaths"] = s.counters.get("hero-deaths", 0) + 1
    if objective_met(ctx, i):
        ctx.emit("game-over", "The Nemesis completes the Trial's objective and wins!")
        finish(ctx, [ctx.name(nemesis(s))])


def objective_met(ctx: Ctx, dead: int) -> bool:
    goal = trial(ctx).prop("objective")
    if goal == "kill-three":
        return ctx.s.counters.get("hero-deaths", 0) >= 3
    return goal == "kill-x" and ctx.s.counters.get("x-token") == dead


@task("space:lair-of-the-beast")
def lair(ctx: Ctx, t) -> None:
    ctx.push("to-the-death", t.p)


@task("to-the-death")
def to_the_death(ctx: Ctx, t) -> None:
    """To the Death: with a sacred site left the Nemesis wins; else the adversary goes to the
    Lair and heroes fight it one after another until one side meets its objective."""
    s = ctx.s
    s.stack.clear()  # nothing of the turn in progress goes on
    s.current = -1  # nobody's turn: a hero's death ends no turn
    ctx.emit("to-the-death", "To the Death!")
    if tokens(s, "site"):
        ctx.emit("game-over", "A sacred site still stands: the Nemesis wins!")
        finish(ctx, [ctx.name(nemesis(s))])
        return
    src = adversary_space(s)
    if src and src != LAIR:
        move_token(ctx, "adversary", src, LAIR, s.piles[f"adversary@{src}"][0])
    ctx.push("final-champion")


@task("final-champion")
def final_champion(ctx: Ctx, t) -> None:
    s = ctx.s
    alive = living(s)
    if not alive:
        ctx.emit("game-over", "No hero is left to fight: the Nemesis wins!")
        finish(ctx, [ctx.name(nemesis(s))])
        return
    there = [i for i in alive if ctx.player(i).space == LAIR]
    if there:
        ctx.push("final-attack", there[0])
        return
    ctx.ask(alive, "champion", "To the Death: which hero fights the adversary? (most named; a tie goes to the first "
            "in turn order)", [Option(ctx.name(i), ctx.name(i)) for i in alive])


@on_answer("champion")
def champion(ctx: Ctx, prompt, key, arg, who) -> None:
    answers = prompt.answers or {who: key}
    votes = {i: list(answers.values()).count(ctx.name(i)) for i in living(ctx.s)}
    best = max(votes.values())
    i = next(i for i in living(ctx.s) if votes[i] == best)
    place(ctx, i, LAIR)
    ctx.emit("to-the-death", f"{ctx.name(i)} goes to the Lair of the Beast.")
    ctx.push("final-attack", i)


@task("final-attack")
def final_attack(ctx: Ctx, t) -> None:
    if not ctx.player(t.p).alive:
        ctx.push("final-champion")
        return
    ctx.ask(t.p, "final-attack", "Attack the adversary: with Strength or Craft?",
            [Option("battle", "battle (Strength)"), Option("psychic", "psychic combat (Craft)")])


@on_answer("final-attack")
def final_attack_answer(ctx: Ctx, prompt, key, arg, who) -> None:
    i = ctx.index(who)
    ctx.push("final-attack", i)  # continue attacking until one side is defeated
    fight_adversary(ctx, i, "strength" if key == "battle" else "craft", LAIR)


# -- what everyone sees --------------------------------------------------------------------------

def public(state, content) -> dict[str, Any]:
    """DESIGN.md: the Nemesis's hand as a count, life, fate, the board's tokens."""
    k = nemesis(state)
    nem = state.players[k]
    adv = adversary_space(state)
    return {"player": nem.name, "trial": content.cards[state.piles["trial"][0]].prop("trial"),
            "hand": len(nem.hand), "life": nem.life, "fate": nem.fate,
            "sacred_sites": sorted(tokens(state, "site")), "adversary": adv,
            "adversary_life": state.counters.get("adversary-life", 0),
            "villains": {sp: list(v) for sp, v in sorted(tokens(state, "villain").items())},
            "hero_deaths": state.counters.get("hero-deaths", 0),
            "x_token": state.players[state.counters["x-token"]].name if "x-token" in state.counters else None,
            "boons": {state.players[i].name: len(state.players[i].hand) for i in heroes(state)},
            "companions": {state.players[i].name: {"card": state.players[i].area[0],
                                                    "level": state.counters.get(f"companion@{state.players[i].name}", 1),
                                                    "talisman": len(state.players[i].area) > 1}
                           for i in heroes(state) if state.players[i].area}}

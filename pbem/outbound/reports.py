"""Mails to players and the moderator, made from the engine's views and events.

A mail is queued as the context its templates will be rendered from (pbem/outbound/render.py, when
pbem/outbound/outbox.py sends it): plain data, kept on the outbox row as JSON. So processing a move
costs the views and the data of its reports, not their rendering.

What every reader of a game state sees alike -- the board map, the players' table, the
decks -- is made once per state (`make_frame`, from a spectator's view, so it cannot hold
anything private) and shared by all the reports of that state; each report adds only what
is its reader's own: their events, their question, their sheet and Spells.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

from engine.registry import TITLES
from pbem.base import boardmap, engine_text, i18n, option_keys, printed_names, printed_texts
from pbem.base.i18n import _
from pbem.core import people
from pbem.outbound import calendar, glossary, leads, links as web_links, outbox, turnmail

if TYPE_CHECKING:
    from collections.abc import Sequence

    from engine.interface import EventLike
    from pbem.core.service import Service

NAMES = ("welcome", "report", "receipt", "error", "gameover", "digest", "stranger")
# A name no seat can have (seats are lower-case slugs: engine/config.py), so its view is what
# every player may see. Printable: it reaches the store as a reader's name (a query for its
# standing orders), and PostgreSQL takes no control character in a text.
SPECTATOR = "*spectator"


# -- addresses and threading --------------------------------------------------------

def game_address(svc: Service, game: dict) -> str:
    return game["config"].get("game", {}).get("address") or svc.settings.address


def moderator_address(svc: Service, game: dict) -> str | None:
    return game["config"].get("game", {}).get("moderator") or svc.settings.moderator


_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def _id_part(part) -> str:
    """A part of a Message-ID: names may hold anything, an id only letters, digits, - and _
    (anything else is written =XX, so two names never give one id)."""
    return _UNSAFE.sub(lambda m: "".join(f"={b:02X}" for b in m.group().encode()), str(part))


def thread_root(svc: Service, game: dict, player: str) -> str:
    """Every mail of a game to one reader refers to this id, so it is one thread. No mail has
    it as its own Message-ID, so it stays the same across restores."""
    return _message_id(svc, game, (player,))


def message_id(svc: Service, game: dict | None, *parts) -> str:
    """A mail's Message-ID, made of what the mail is (so a mail queued twice is one). After a
    restore the store's epoch is part of it: the ids the restored store would make again were
    sent before, with other content (pbem/store/backup.py)."""
    return _message_id(svc, game, parts + ((f"r{svc.epoch}",) if svc.epoch else ()))


def _message_id(svc: Service, game: dict | None, parts: tuple) -> str:
    domain = outbox.clean(outbox.domain_of(game_address(svc, game) if game else svc.settings.address))
    return f"<{'.'.join(_id_part(p) for p in ((game['id'],) if game else ()) + parts)}@{domain}>"


# -- what everyone sees alike ----------------------------------------------------------

def _names(items) -> list[str]:
    return list(items) if isinstance(items, (list, tuple)) else []


def make_frame(svc: Service, state) -> dict:
    """The public part of every report of one game state, as data (pbem/outbound/render.py `board`
    renders it): what a spectator may see, so it cannot hold anything private."""
    public = svc.engine.view(state, SPECTATOR)
    marked = glossary.state_stand_ins(state)  # stand-in spaces and characters say so
    picture = boardmap.picture(public, marked.spaces)
    out = {q.name for q in getattr(state, "players", []) if getattr(q, "out", False)}  # resigned, or dead for good
    players = []
    for name, p in public["players"].items():
        spells = p.get("spells", 0)
        mark = picture["markers"][name]
        players.append({
            "mark": mark, "colour": picture["colours"][mark], "name": name,
            "character": "Nemesis" if p.get("role") == "nemesis"
                         else p.get("character_name") or p.get("character") or "?",
            "space": whereabouts(public, name, p), "alive": p.get("alive", True), "out": name in out,
            "stand_in": p.get("character") in marked.characters, "space_stand_in": p.get("space") in marked.spaces,
            "strength": p["strength"], "craft": p["craft"], "gold": p["gold"],
            "life": f"{p['life']}/{p['max_life']}" if p.get("max_life") else p["life"],
            "fate": f"{p['fate']}/{p['max_fate']}" if p.get("max_fate") else p["fate"],
            "spells": spells if isinstance(spells, int) else len(spells),
            # what each holds in the open, by printed name: the templates say it in the reader's
            # language (a frame is made once for readers of every language; an older one has "notes")
            "held": [{"what": label, "names": _names(p.get(what))} for what, label in HELD if _names(p.get(what))]})
    return {"turn": public["turn"], "players": players, "map": picture["map"], "lying": picture["lying"],
            "decks": [{"name": k.replace("-", " ").title(), "count": n} for k, n in public.get("decks", {}).items()],
            "packs": pack_lines(public)}


HELD = (("objects", i18n.N_("Objects")), ("followers", i18n.N_("Followers")), ("trophies", i18n.N_("Trophies")))

VOYAGE = {"out": i18n.N_("at sea"), "home": i18n.N_("at sea, sailing home"),  # translated where shown
          "wreck": i18n.N_("shipwrecked, adrift"), "prison": i18n.N_("in prison")}


def whereabouts(public: dict, name: str, p: dict) -> str:
    """Where a player is: their space, or off the board (Sea Voyage: at sea)."""
    if p.get("space"):
        return p.get("space_name") or p["space"]
    voyage = ((public.get("sea-voyage") or {}).get("at_sea") or {}).get(name)
    return VOYAGE.get(voyage["phase"], voyage["phase"]) if voyage else "-"


def pack_lines(public: dict) -> list[dict]:
    """What the packs in play show everyone, in their own words (each pack's `public_text`: the
    Nemesis's Trial, adversary, villains and companions, the Cataclysm's ending and Terrain...),
    under the pack's printed title, for the board part of every report: [{pack, lines}]."""
    said = public.get("pack_said") or public.get("pack_text", {})  # messages ([id, args]); an older engine's English
    groups = [{"pack": TITLES.get(pack, pack), "lines": list(texts)} for pack, texts in said.items()]
    forces = [{"in_force": e} for e in public.get("effects", []) if not e.get("space")]
    if forces:  # a lasting effect on no space: a Blizzard (said in each reader's words: engine_text.line)
        groups.append({"pack": i18n.N_("In force"), "lines": forces})
    if "shared_fate" in public:
        shared = {"text": i18n.N_("Shared fate: %(n)s."), "args": {"n": public["shared_fate"]}}
        groups.append({"pack": i18n.N_("Heroes"), "lines": [shared]})
    return groups


# -- contexts ---------------------------------------------------------------------------

def sheet(p: dict | None, where: str = "-", marked: glossary.StandIns | None = None) -> dict | None:
    """A player's own character sheet, from their own view (`where`: see whereabouts; `marked`:
    the game's stand-ins, which the sheet says its character and space are)."""
    if not p:
        return None
    notes = []
    if p.get("toad"):
        notes.append(_("You are a Toad for %(n)s more turn(s).", n=p["toad"]))
    if p.get("miss"):
        notes.append(_("You miss %(n)s turn(s).", n=p["miss"]))
    if p.get("quest"):
        said = p.get("quest_said")  # what it asks, in the reader's words (an older engine: the quest's id)
        notes.append(_("Quest: %(quest)s", quest=engine_text.line(said) if said else p["quest"]))
    spells = p.get("spells", [])
    return {
        "character": p.get("character_name") or p.get("character") or "?",
        "space": where, "region": boardmap.ring_name(p["region"]) if p.get("region") else None,
        "stand_in": marked is not None and p.get("character") in marked.characters,
        "space_stand_in": marked is not None and p.get("space") in marked.spaces,
        "alignment": p.get("alignment", "?"), "alive": p.get("alive", True),
        "strength": p["strength"], "craft": p["craft"], "gold": p["gold"],
        "life": _("%(n)s of %(max)s", n=p["life"], max=p["max_life"]) if p.get("max_life") else p["life"],
        "fate": _("%(n)s of %(max)s", n=p["fate"], max=p["max_fate"]) if p.get("max_fate") else p["fate"],
        "spells": spells if isinstance(spells, list) else [], "objects": _names(p.get("objects")),
        "followers": _names(p.get("followers")), "trophies": _names(p.get("trophies")), "notes": notes,
        # a pack's private cards: the Nemesis's Action hand, a hero's Boon and companion
        "nemesis": p.get("role") == "nemesis", "hand": _names(p.get("hand")), "area": _names(p.get("area"))}


# A report's `deadline` and `standing_orders` are the pace layer's, which is above this one: whoever
# makes a report hands in the function that gives them (pbem/pace/deadlines.py `report_part`), with
# (svc, game, reader, the question the reader is asked or None, the state the report shows).
PacePart = Callable[["Service", dict, str, "dict | None", Any], dict]


def no_seat(svc: Service, game: dict, player: str, mine: dict | None, state) -> dict:
    """The pace part of a reader with no seat (an observer): no deadline, no standing orders."""
    return {"deadline": None, "standing_orders": {"active": [], "kind": None}}


def report_context(svc: Service, game: dict, player: str, view: dict, events: Sequence[EventLike],
                   frame: dict | None = None, state=None, *, pace: PacePart) -> dict:
    """What one reader's report shows, as data; `events`: those they may see since their last
    report; `frame` is the state's shared part (made if absent, from `state`, else the game row);
    `pace` gives its deadline and standing orders."""
    if state is None:
        state = svc.engine.decode(game["state"])
    if frame is None:
        frame = make_frame(svc, state)
    over = view["over"] or game.get("status") == "ended"  # the engine's end, or the moderator's
    mine = view.get("mine") if player != svc.engine.MODERATOR and not over else None
    prompts = engine_text.questions(svc.engine, state, view.get("prompt", []) if not over else [])
    mine = next((q for q in prompts if q["id"] == mine["id"]), mine) if mine else None  # in the reader's language
    own = view["players"].get(player)
    mine_sheet = sheet(own, whereabouts(view, player, own), glossary.state_stand_ins(state)) if own else None
    here = view.get("space_cards", {}).get(own.get("space") or "", []) if own else []
    cards = glossary.for_report(game, mine_sheet, mine, here)
    keys = [option_keys.shown(o["key"], i18n.current()) for o in mine["options"]] if mine else []
    return {
        "game": {"id": game["id"], "address": game_address(svc, game)},
        "me": player, "turn": view["turn"], "over": over, "winners": list(view.get("winners", [])),
        "board": frame,
        "sheet": {"own": mine_sheet,
                  "hidden": [{"name": p["name"], "count": p["spells"]}
                             for p in frame["players"] if p["name"] != player]}
        if own else None,
        "events": turnmail.grouped(events, cards.drawn),
        "cards": cards.entries(),  # what each card the report names does, in a line
        "around": boardmap.around(frame["map"], own.get("space"), {p["mark"]: p["name"] for p in frame["players"]})
        if own else None,
        "asked": mine,
        "leads": leads.leads(svc, state, player, mine),  # per option: where it goes, what it does
        "about": leads.attack(svc, state, player, mine),  # lines under the question: an attack's sides
        "reply_lines": [f"{mine['id']}: {key}" for key in keys] if mine else [],
        "keys": keys,  # each option's key in the reader's words ("links"), read back as the engine's
        "waiting": [n for p in prompts for n in p["players"]],
        "waiting_question": prompts[0].get("question") if prompts else None,
        # filled in for the sender of a message, and when the game is over:
        "applied": [], "failed": None, "unused": [], "check": False, "attempts": [], "press_notes": [],
        "observer": False,
        "seed": None, "commitment": game.get("seed_commitment"), "ended_by_moderator": False,
        **pace(svc, game, player, mine, state),  # deadline, standing_orders
    }


def show_text(svc: Service, game: dict, player: str, *, pace: PacePart) -> str:
    """`pbem game show`: the report's text as `player` (or the moderator) would read it now."""
    from pbem.outbound import render  # Jinja only where a mail is rendered: not in a process that only queues
    state = svc.engine.decode(game["state"])
    view = svc.engine.view(state, player)
    return render.text(svc, "_report", report_context(svc, game, player, view, [], state=state, pace=pace))


def subject(game: dict, ctx: dict, kind: str) -> str:
    tag = f"[{game['id']}] "
    if kind == "gameover":
        return tag + (_("Game over: %(names)s won", names=_(" and ").join(ctx["winners"])) if ctx["winners"]
                      else _("Game over"))
    if ctx["asked"]:
        return tag + _("Turn %(turn)s: your move", turn=ctx["turn"])
    if ctx["waiting"]:
        return tag + _("Turn %(turn)s: waiting for %(names)s", turn=ctx["turn"], names=", ".join(ctx["waiting"]))
    return tag + _("Turn %(turn)s report", turn=ctx["turn"])


# -- what to send -----------------------------------------------------------------------

def queue_report(svc: Service, game: dict, player: dict, state, *, kind: str = "report", mid_parts=(),
                 extra: dict | None = None, in_reply_to: str | None = None, inbox_id: int | None = None,
                 frame: dict | None = None, backlog: turnmail.Backlog | None = None, catch_up: bool = True,
                 stored_frame: int | None = None, reported: bool = False, pace: PacePart) -> None:
    """Queue one player's report (or receipt, error, game over: a report with more in it) of
    `state`, the game as it is now. It shows the events the player may see of the moves since
    their last report, which it now is (`catch_up` False: no events, e.g. a briefing that
    tells the story its own way); `backlog` holds them when several reports share it. Either
    way the mail keeps where its reader was (`since_seq`): a bounce rewinds them there. It is
    made in its reader's language (pbem/core/people.py). `pace`: as `report_context`'s.
    A report no one asked for (not a reply) to a seat whose address chose `mail: digest` is not
    sent: its daily digest lists the game and what happened since the seat's last mail
    (pbem/pace/daily.py)."""
    if unasked(svc, player, kind, in_reply_to):
        return
    with i18n.using(people.language(svc, game, player["name"], player.get("email"))):
        _queue_report(svc, game, player, state, kind=kind, mid_parts=mid_parts, extra=extra, in_reply_to=in_reply_to,
                      inbox_id=inbox_id, frame=frame, backlog=backlog, catch_up=catch_up, stored_frame=stored_frame,
                      reported=reported, pace=pace)


def unasked(svc: Service, player: dict, kind: str, in_reply_to: str | None) -> bool:
    """A report no one asked for (not a reply) to a seat whose address chose `mail: digest`: not
    sent, and what it would have told stays untold (`reported_seq` as it was) for the digest."""
    return kind == "report" and in_reply_to is None and "token_salt" in player and \
        not people.wants_each(svc, player.get("email"))


def _queue_report(svc: Service, game: dict, player: dict, state, *, kind: str, mid_parts, extra: dict | None,
                  in_reply_to: str | None, inbox_id: int | None, frame: dict | None, backlog: turnmail.Backlog | None,
                  catch_up: bool, stored_frame: int | None, reported: bool, pace: PacePart) -> None:
    name, seq = player["name"], game["moves"]
    events: Sequence[EventLike] = []
    since = player.get("reported_seq")
    if catch_up:
        assert since is not None, "a seat's row has its reported_seq"
        events = (backlog or turnmail.Backlog(svc, game["id"], since, seq)).since(since, name)
    if player.get("reported_seq") != seq:
        if not reported:  # `reported`: the caller has stored it, for several readers at once
            svc.store.set_reported(game["id"], name, seq)
        player["reported_seq"] = seq
    ctx = report_context(svc, game, name, svc.engine.view(state, name), events, frame or make_frame(svc, state), state,
                         pace=pace)
    ctx.update(extra or {})
    ctx["service_notes"] = _told(svc, player)
    if ctx.get("failed"):  # why a line was refused, in the reader's language
        ctx["failed"] = {**{k: v for k, v in ctx["failed"].items() if k != "msg"}, "reason": refused_why(ctx["failed"])}
    if stored_frame is not None:  # several mails show this frame: it is stored once, not in each
        ctx["board"] = {"stored": stored_frame}
    marker = outbox.new_marker() if "token_salt" in player else None  # only a seat has a token
    ctx["links"] = web_links.mail_links(svc, game, marker)  # the game's page, the reader's (pbem/web)
    root = thread_root(svc, game, player["name"])
    outbox.enqueue(svc, kind=kind, message_id=message_id(svc, game, *mid_parts, player["name"], kind),
                   sender=game_address(svc, game), to=player["email"], to_name=player["name"],
                   subject=subject(game, ctx, kind), context=ctx, game=game["id"],
                   player=player if "token_salt" in player else None, marker=marker,
                   in_reply_to=in_reply_to or root, references=[root, in_reply_to], inbox_id=inbox_id,
                   since_seq=since, extra_headers={QUESTION_HEADER: str(ctx["asked"]["id"])} if ctx["asked"] else None,
                   reply=in_reply_to is not None, calendar=calendar_part(svc, game, player, ctx))


def refused_why(failed: dict) -> str:
    """Why a line was refused (pbem/pace/moves.py `refusal`), as the current reader reads it: the
    engine's message translated, else its English; the engine says "prompt", a mail says
    "question", as its reports do."""
    return _PROMPT_WORD.sub("question", engine_text.said(failed["reason"], failed.get("msg")))


def calendar_part(svc: Service, game: dict, player: dict, ctx: dict) -> str | None:
    """The reader's deadlines in `game` as the calendar part of their mail (a seat's: an
    observer has none), with the question `ctx` asks them (pbem/outbound/calendar.py)."""
    if "token_salt" not in player:
        return None
    asked = ctx.get("asked")
    return calendar.for_mail(svc, game, player["name"], game_address(svc, game),
                             {asked["id"]: asked["question"]} if asked else {})


def tell_next(svc: Service, player: dict, note: str) -> None:
    """A line the seat's next report carries, once (kept on the seat's row until then)."""
    notes = msgspec.json.decode(player.get("notes") or "[]")
    if note not in notes:
        svc.store.update_player(player["game"], player["name"], notes=msgspec.json.encode([*notes, note]).decode())


def _told(svc: Service, player: dict) -> list[str]:
    """What `tell_next` kept for this seat's next report (now this one): said once."""
    if not player.get("notes"):
        return []
    svc.store.update_player(player["game"], player["name"], notes=None)
    notes, player["notes"] = msgspec.json.decode(player["notes"]), None
    return notes


def printed(name: str) -> str:
    """An edition or pack by the name printed on its box (the config's ids are for machines)."""
    return TITLES.get(name, name)


_PROMPT_WORD = re.compile(r"\bprompt\b")

# The question a report asks its reader: a reply to it (In-Reply-To) is known to answer that one.
QUESTION_HEADER = outbox.QUESTION_HEADER


def question_replied_to(svc: Service, game: dict, player: str, references: list[str]) -> str | None:
    """The question the report a reply answers asked (the newest of the ids it replies to that
    is a report to this player), or None."""
    for mid in references:
        row = svc.store.outbox_by_message_id(mid)
        if row and row["game"] == game["id"] and row["player"] == player:
            return msgspec.json.decode(row["headers"]).get(QUESTION_HEADER)
    return None


def queue_welcome(svc: Service, game: dict, player: dict, state) -> None:
    """The only mail whose text holds the token (as the outbox marker until it is sent)."""
    with i18n.using(people.language(svc, game, player["name"], player.get("email"))):
        _queue_welcome(svc, game, player, state)


def _queue_welcome(svc: Service, game: dict, player: dict, state) -> None:
    marker = outbox.new_marker()
    view = svc.engine.view(state, player["name"])
    me = view["players"].get(player["name"], {})
    g = game["config"]["game"]
    ctx = {
        "game": {"id": game["id"], "address": game_address(svc, game),
                 "edition": printed(g.get("edition", "revised4")),
                 "packs": [printed(p) for p in g.get("packs", [])], "ending": g.get("ending"),
                 "moderator": moderator_address(svc, game),
                 "options": [f"{k} = {v}" for k, v in sorted(g.get("options", {}).items())],
                 "commitment": game["seed_commitment"], "status": game["status"]},
        "me": player["name"],
        "character": me.get("character_name") or me.get("character"),
        "about": _character(g, me.get("character")),
        "stand_ins": {k: bool(v) for k, v in glossary.state_stand_ins(state)._asdict().items()},  # the welcome's line
        "others": [p["name"] for p in svc.store.players(game["id"], active_only=True) if p["name"] != player["name"]],
        "token": marker,
        "links": web_links.mail_links(svc, game, marker),
    }
    root = thread_root(svc, game, player["name"])
    welcome = _("Welcome, %(name)s", name=player["name"])
    outbox.enqueue(svc, kind="welcome",
                   message_id=message_id(svc, game, player["name"], player["token_salt"], "welcome"),
                   sender=game_address(svc, game), to=player["email"], to_name=player["name"],
                   subject=f"[{game['id']}] {welcome}", context=ctx,
                   game=game["id"], player=player, marker=marker, in_reply_to=root, references=[root])


def _character(g: dict, slug: str | None) -> dict | None:
    """The reader's character as the welcome describes it: its printed values and abilities
    (the content's own words, in the reader's language where its texts file gives them)."""
    from engine import content  # pure data: the welcome's only use of the rules' content
    ch = content.load(g.get("edition", "revised4"), tuple(g.get("packs", []))).characters.get(slug) if slug else None
    if ch is None:
        return None
    return {"stats": _("Strength %(strength)s, Craft %(craft)s, Life %(life)s, Fate %(fate)s, %(alignment)s, "
                       "starts at the %(start)s", strength=ch.strength, craft=ch.craft, life=ch.life, fate=ch.fate,
                       alignment=_(ch.alignment),
                       start=printed_names.name(ch.start.replace('-', ' ').title(), i18n.current())),
            "abilities": [glossary.plain(printed_texts.ability(ch.name, k, i18n.current()) or t)
                          for k, t in zip(ch.abilities, ch.ability_texts, strict=True)]}


def queue_stranger(svc: Service, to: str, *, inbox_id: int, in_reply_to: str | None) -> None:
    """The reply to a message that could not be authenticated: says nothing about any game."""
    outbox.enqueue(svc, kind="stranger", message_id=message_id(svc, None, f"in{inbox_id}", "stranger"),
                   sender=svc.settings.address, to=to, to_name=None, subject="Your message to the Talisman service",
                   context={"address": svc.settings.address}, in_reply_to=in_reply_to, references=[in_reply_to],
                   inbox_id=inbox_id)

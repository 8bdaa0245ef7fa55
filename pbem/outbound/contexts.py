"""What a report shows, as data, made from a game state: the frame every reader of a state sees
alike and each reader's own context (pbem/outbound/reports.py queues them; pbem/outbound/render.py
renders them). Below the queue: a report queued as what it is made from (`MADE`) is made whole
here when pbem/outbound/outbox.py renders it.

What every reader of a game state sees alike -- the board map, the players' table, the
decks -- is made once per state (`make_frame`, from a spectator's view, so it cannot hold
anything private) and shared by all the reports of that state; each report adds only what
is its reader's own: their events, their question, their sheet and Spells.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec

from engine import content
from engine.registry import TITLES
from pbem.base import boardmap, engine_text, i18n, option_keys
from pbem.base.i18n import _
from pbem.core import games
from pbem.outbound import glossary, leads, turnmail

if TYPE_CHECKING:
    from collections.abc import Sequence

    from engine.interface import EventLike
    from pbem.core.service import Service


# A name no seat can have (seats are lower-case slugs: engine/config.py), so its view is what
# every player may see. Printable: it reaches the store as a reader's name (a query for its
# standing orders), and PostgreSQL takes no control character in a text.
SPECTATOR = "*spectator"


def game_address(svc: Service, game: dict) -> str:
    return game["config"].get("game", {}).get("address") or svc.settings.address


# -- what everyone sees alike ----------------------------------------------------------

def _names(items) -> list[str]:
    return list(items) if isinstance(items, (list, tuple)) else []


def make_frame(svc: Service, state, public: dict | None = None) -> dict:
    """The public part of every report of one game state, as data (pbem/outbound/render.py `board`
    renders it): what a spectator may see (`public`: that view, if made), so it cannot hold
    anything private."""
    public = svc.engine.view(state, SPECTATOR) if public is None else public
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


def asking(svc: Service, game: dict, player: str, view: dict, state) -> tuple[bool, dict | None, list[dict]]:
    """Whether the game is over, the question the reader is asked and the open questions, in the
    reader's language."""
    over = view["over"] or game.get("status") == "ended"  # the engine's end, or the moderator's
    mine = view.get("mine") if player != svc.engine.MODERATOR and not over else None
    prompts = engine_text.questions(svc.engine, state, view.get("prompt", []) if not over else [])
    mine = next((q for q in prompts if q["id"] == mine["id"]), mine) if mine else None  # in the reader's language
    return over, mine, prompts


def report_context(svc: Service, game: dict, player: str, view: dict, events: Sequence[EventLike],
                   frame: dict | None = None, state=None, *, pace: PacePart) -> dict:
    """What one reader's report shows, as data; `events`: those they may see since their last
    report; `frame` is the state's shared part (made if absent, from `state`, else the game row);
    `pace` gives its deadline and standing orders."""
    if state is None:
        state = svc.engine.decode(game["state"])
    if frame is None:
        frame = make_frame(svc, state)
    over, mine, prompts = asking(svc, game, player, view, state)
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


# -- a report made when it is rendered ------------------------------------------------------------
# Handling an answer made each reader's whole context (views, sheets, the preview of the answers:
# about half of its CPU) before its commit. A report is queued with what it is made from: the
# state, stored once per move where the shared frame was (`report_frames`, so the mails name it
# as `{"board": {"stored": id}}` and pruning keeps it), and per reader the events and pace part.
# The state is stored without its seed (games.encode), and a report is made without it.

MADE = "made"  # a queued context's key: what its report is made from (`made`)


class _Made(msgspec.Struct):
    game: dict  # what report_context reads of the game row: id, status, commitment, config's game
    state: bytes  # games.encode: without its seed
    # the events of the moves its reports show (by seq, as `move_events` stores them): once for the
    # move's readers, each report naming where its own start (issue 28); none in a frame from before
    events: dict[int, msgspec.Raw] = msgspec.field(default_factory=dict)


def made_of(svc: Service, game: dict, state, after: int | None = None) -> _Made:
    """`after`: the events of the moves after it (up to the game's) go with it (`_events`)."""
    kept = {"id": game["id"], "status": game.get("status"), "seed_commitment": game.get("seed_commitment"),
            "config": {"game": game["config"].get("game", {})}}
    rows = svc.store.move_events(game["id"], after, game["moves"]) if after is not None and after < game["moves"] \
        else []  # within the answer's read_once, the moves it just stored are not read back
    return _Made(kept, games.encode(svc, state), {r["seq"]: msgspec.Raw(r["events"].encode()) for r in rows})


def store_made(svc: Service, game: dict, state, after: int | None = None) -> int:
    """Store what the reports of `state` are made from, with the events of the moves after `after`;
    its id (`made` of `queue_report`)."""
    return svc.store.add_frame(msgspec.json.encode(made_of(svc, game, state, after)).decode())


class _Stored(NamedTuple):
    game: dict
    state: Any
    frame: dict
    frame_text: str  # the frame as JSON
    events: dict[int, msgspec.Raw]
    decoded: dict[int, list]  # `events` decoded, as its readers need them
    public: dict  # the spectator's view the frame is made from
    seats: dict[str, dict]  # every seat as its own view shows it (`_view`): made at the first reader


_made_cache: dict[tuple, _Stored] = {}


def _made_from(svc: Service, stored: str) -> _Stored:
    """A stored `_Made` made ready to make reports from: the readers of one move share it."""
    key = (id(svc.engine), content.generation(), stored)
    got = _made_cache.get(key)
    if got is None:
        made = msgspec.json.decode(str(stored), type=_Made)
        # Without its seed: what a report shows cannot depend on it (the preview stops at the first
        # draw, the same whatever the seed: tests/test_report_preview.py), and no stored copy holds it.
        state = svc.engine.decode(made.state)
        public = svc.engine.view(state, SPECTATOR)
        frame = make_frame(svc, state, public)
        got = _Stored(made.game, state, frame, msgspec.json.encode(frame).decode(), made.events, {}, public, {})
        while len(_made_cache) >= 4:  # the moves of one send round, most often one
            _made_cache.pop(next(iter(_made_cache)))
        _made_cache[key] = got
    return got


def _view(svc: Service, made: _Stored, name: str) -> dict:
    """What reader `name` may see of the move's state: `engine.view(state, name)`, equal to it
    (tests/test_report_made.py), made from what the move's readers share. A seat's view is the
    spectator's with its own entry as it sees itself (its hand, its Spells), its name as `me`,
    and its questions: the rest of a view names no reader. Each seat's own entry is the same in
    the moderator's view, made once for the move's readers, so a move's N seated readers cost two
    views, not N (issue 28: a view was a tenth of a reply). Only that reader's entry goes into
    its view; the moderator's (and anyone not a seat) get the engine's own."""
    if name == svc.engine.MODERATOR or name not in made.public["players"]:
        return svc.engine.view(made.state, name)
    if not made.seats:
        made.seats.update(svc.engine.view(made.state, None)["players"])
    public = made.public
    return {**public, "me": name, "players": {**public["players"], name: made.seats[name]},
            **svc.engine.view_questions(made.state, name)}


def _events(svc: Service, made: _Stored, part: dict) -> list:
    """The events a queued report shows its reader: those it may see of the moves after `after` up
    to `upto`, stored with what it is made from (a mail queued before issue 28 carries its own; the
    moves' stored events are read if need be)."""
    if "events" in part:
        return turnmail.decode(svc.engine, part["events"])
    seqs = range(part["after"] + 1, part["upto"] + 1)
    if not all(seq in made.events for seq in seqs):
        return list(turnmail.Backlog(svc, made.game["id"], part["after"], part["upto"]).since(part["after"],
                                                                                               part["me"]))
    for seq in seqs:
        if seq not in made.decoded:
            made.decoded[seq] = turnmail.decode(svc.engine, bytes(made.events[seq]).decode())
    return list(svc.engine.filter_events([e for seq in seqs for e in made.decoded[seq]], part["me"]))


def made(svc: Service, context: dict) -> dict:
    """A queued context (`_queue_report`) made whole, as it was made when reports were made at
    once: its `board` is the stored `_Made` as read (pbem/outbound/outbox.py `rendered`), or
    `{"made": _Made}`, a report no other shares."""
    from pbem.outbound import render  # Jinja only where a mail is rendered
    context = dict(context)
    part = context.pop(MADE)
    board = context["board"]  # the stored _Made as read, or one reader's own
    stored = _made_from(svc, str(board) if isinstance(board, str) else msgspec.json.encode(board[MADE]).decode())
    game, state, frame, frame_text = stored.game, stored.state, stored.frame, stored.frame_text
    name = part["me"]
    with i18n.using(context.get("lang")):
        ctx = report_context(svc, game, name, _view(svc, stored, name), _events(svc, stored, part), frame,
                             state, pace=lambda *_: part["pace"])
    ctx.update(context)
    ctx["board"] = None  # the frame is read back from its JSON as it was stored: not again here
    ctx = msgspec.json.decode(msgspec.json.encode(ctx))  # the rest as a context stored whole read back
    ctx["board"] = render.StoredFrame(frame_text)
    return ctx


"""Mails to players and the moderator, rendered from the engine's views and events.

Each mail is a pair of Jinja2 templates, `<name>.txt.j2` and `<name>.html.j2`, rendered
from one context; autoescape is on for HTML and off for text, and a missing value is an
error (StrictUndefined). Text players wrote is only ever a value, never a template.

What every reader of a game state sees alike -- the board map, the players' table, the
decks -- is rendered once per state (`Frame`, from a spectator's view, so it cannot hold
anything private) and shared by all the reports of that state; each report adds only what
is its reader's own: their events, their question, their sheet and Spells.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

import jinja2
import msgspec
from markupsafe import Markup

from pbem import boardmap, log, outbox, turnmail
from pbem.settings import TEMPLATES

NAMES = ("welcome", "report", "receipt", "error", "gameover", "digest", "stranger")
SPECTATOR = "\x00spectator"  # a name no seat has: its view is what every player may see


class _Environment(jinja2.Environment):
    def getattr(self, obj, attribute):
        """`p.name` on a dict: the key first. Jinja tries the attribute first, and the
        AttributeError it catches each time was most of what a report cost to render."""
        if type(obj) is dict and attribute in obj:
            return obj[attribute]
        return super().getattr(obj, attribute)


class Templates:
    """One Environment, each template compiled once; HTML templates autoescape by name
    (select_autoescape does not match `*.html.j2`)."""

    def __init__(self, folder: Path = TEMPLATES):
        self.env = _Environment(
            loader=jinja2.FileSystemLoader(str(folder)), autoescape=lambda name: (name or "").endswith(".html.j2"),
            undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
            auto_reload=False)
        self._pairs: dict[str, tuple[jinja2.Template, jinja2.Template]] = {}

    def pair(self, name: str) -> tuple[jinja2.Template, jinja2.Template]:
        if name not in self._pairs:
            self._pairs[name] = (self.env.get_template(f"{name}.txt.j2"), self.env.get_template(f"{name}.html.j2"))
        return self._pairs[name]

    def render(self, name: str, context: dict[str, Any]) -> tuple[str, str]:
        text, html = self.pair(name)
        return text.render(context), html.render(context)


_shared: Templates | None = None


def templates(svc) -> Templates:
    """The service's templates: by default one set per process, compiled once."""
    global _shared
    if svc.templates is None:
        if _shared is None:
            _shared = Templates()
        svc.templates = _shared
    return svc.templates


# -- addresses and threading --------------------------------------------------------

def game_address(svc, game: dict) -> str:
    return game["config"].get("game", {}).get("address") or svc.settings.address


def moderator_address(svc, game: dict) -> str | None:
    return game["config"].get("game", {}).get("moderator") or svc.settings.moderator


_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def _id_part(part) -> str:
    """A part of a Message-ID: names may hold anything, an id only letters, digits, - and _
    (anything else is written =XX, so two names never give one id)."""
    return _UNSAFE.sub(lambda m: "".join(f"={b:02X}" for b in m.group().encode()), str(part))


def thread_root(svc, game: dict, player: str) -> str:
    """Every mail of a game to one reader refers to this id, so it is one thread."""
    return message_id(svc, game, player)


def message_id(svc, game: dict | None, *parts) -> str:
    domain = outbox.clean(outbox.domain_of(game_address(svc, game) if game else svc.settings.address))
    return f"<{'.'.join(_id_part(p) for p in ((game['id'],) if game else ()) + parts)}@{domain}>"


# -- what everyone sees alike ----------------------------------------------------------

def _names(items) -> list[str]:
    return list(items) if isinstance(items, (list, tuple)) else []


class Fragment(NamedTuple):
    text: str
    html: Markup


_fragments: dict[tuple, Fragment] = {}


def fragment(svc, name: str, ctx, key=None) -> Fragment:
    """Template `name` rendered for `ctx`, once for equal contexts: most of a report is as
    it was at the last move (the map, the players' table, each player's sheet). `key`
    stands for ctx where ctx is not plain data; then ctx may be a function that makes it."""
    key = (id(templates(svc)), name, msgspec.json.encode(ctx) if key is None else key)
    done = _fragments.get(key)
    if done is None:
        if len(_fragments) >= 2048:
            _fragments.clear()
        text, html = templates(svc).render(name, ctx() if callable(ctx) else ctx)
        done = _fragments[key] = Fragment(text.rstrip("\n"), Markup(html))
    return done


class Frame:
    """The public part of every report of one game state, rendered once (text and HTML)."""

    def __init__(self, svc, state):
        public = svc.engine.view(state, SPECTATOR)
        picture = boardmap.picture(public)
        players = []
        for name, p in public["players"].items():
            spells = p.get("spells", 0)
            players.append({
                "mark": picture["markers"][name], "name": name,
                "character": "Nemesis" if p.get("role") == "nemesis" else p.get("character_name") or p.get("character") or "?",
                "space": p.get("space_name") or p.get("space") or "-", "alive": p.get("alive", True),
                "strength": p["strength"], "craft": p["craft"], "gold": p["gold"],
                "life": f"{p['life']}/{p['max_life']}" if p.get("max_life") else p["life"],
                "fate": f"{p['fate']}/{p['max_fate']}" if p.get("max_fate") else p["fate"],
                "spells": spells if isinstance(spells, int) else len(spells),
                "notes": "; ".join(f"{what}: {', '.join(_names(p.get(what)))}" for what in ("objects", "followers", "trophies")
                                   if _names(p.get(what)))})
        decks = [{"name": k.replace("-", " ").title(), "count": n} for k, n in public.get("decks", {}).items()]
        rows = [fragment(svc, "_row", {"p": p, "colour": picture["colours"][p["mark"]]}) for p in players]
        ctx = {"turn": public["turn"], "decks": decks, "lying": picture["lying"], "packs": pack_lines(public)}
        drawn = fragment(svc, "_map", lambda: {"board": boardmap.draw(picture)}, key=picture["key"])
        self.text, self.html = fragment(
            svc, "_board", {**ctx, "rows": rows, "map_text": drawn.text, "map_html": drawn.html},
            key=(picture["key"], tuple(rows), msgspec.json.encode(ctx)))
        self.spell_counts = {p["name"]: p["spells"] for p in players}


PACK_STATE = ("cataclysm", "nemesis")  # packs' public state in a view, under the pack's name


def _words(value) -> str:
    """A pack's public value as words: slugs to titles, mappings as "key: value" lists."""
    if isinstance(value, dict):
        return "; ".join(f"{_words(k)}: {_words(v)}" for k, v in value.items()) or "none"
    if isinstance(value, (list, tuple)):
        return ", ".join(_words(v) for v in value) or "none"
    return str(value).replace("-", " ").title() if isinstance(value, str) else str(value)


def pack_lines(public: dict) -> list[dict]:
    """What the packs in play show everyone (the Cataclysm's ending and Terrain, the
    Nemesis's hand size...), as lines for the board part of every report."""
    lines = []
    for pack in PACK_STATE:
        for key, value in (public.get(pack) or {}).items():
            lines.append({"pack": pack.title(), "what": key.replace("_", " ").capitalize(), "value": _words(value)})
    if "shared_fate" in public:
        lines.append({"pack": "Heroes", "what": "Shared fate", "value": str(public["shared_fate"])})
    return lines


# -- contexts ---------------------------------------------------------------------------

def sheet(p: dict | None) -> dict | None:
    """A player's own character sheet, from their own view."""
    if not p:
        return None
    notes = []
    if p.get("toad"):
        notes.append(f"You are a Toad for {p['toad']} more turn(s).")
    if p.get("miss"):
        notes.append(f"You miss {p['miss']} turn(s).")
    if p.get("quest"):
        notes.append(f"Quest: {p['quest']}.")
    spells = p.get("spells", [])
    return {
        "character": p.get("character_name") or p.get("character") or "?",
        "space": p.get("space_name") or p.get("space") or "-", "region": boardmap.RING_NAMES.get(p.get("region")),
        "alignment": p.get("alignment", "?"), "alive": p.get("alive", True),
        "strength": p["strength"], "craft": p["craft"], "gold": p["gold"],
        "life": f"{p['life']} of {p['max_life']}" if p.get("max_life") else p["life"],
        "fate": f"{p['fate']} of {p['max_fate']}" if p.get("max_fate") else p["fate"],
        "spells": spells if isinstance(spells, list) else [], "objects": _names(p.get("objects")),
        "followers": _names(p.get("followers")), "trophies": _names(p.get("trophies")), "notes": notes,
        # a pack's private cards: the Nemesis's Action hand, a hero's Boon and companion
        "nemesis": p.get("role") == "nemesis", "hand": _names(p.get("hand")), "area": _names(p.get("area"))}


def report_context(svc, game: dict, player: str, view: dict, events: list, frame: Frame | None = None,
                   state=None) -> dict:
    """What one reader's report shows; `events`: those they may see since their last report;
    `frame` is the state's shared part (made if absent, from `state`, or from the game row)."""
    if frame is None:
        frame = Frame(svc, state if state is not None else svc.engine.decode(game["state"]))
    over = view["over"] or game.get("status") == "ended"  # the engine's end, or the moderator's
    mine = view.get("mine") if player != svc.engine.MODERATOR and not over else None
    prompts = view.get("prompt", []) if not over else []
    own = view["players"].get(player)
    return {
        "game": {"id": game["id"], "address": game_address(svc, game)},
        "me": player, "turn": view["turn"], "over": over, "winners": list(view.get("winners", [])),
        "board": frame,
        "sheet": fragment(svc, "_sheet", {
            "own": sheet(own), "hidden": [{"name": n, "count": c} for n, c in frame.spell_counts.items() if n != player],
        }) if own else None,
        "events": turnmail.grouped(events),
        "asked": mine,
        "reply_lines": [f"{mine['id']}: {o['key']}" for o in mine["options"]] if mine else [],
        "waiting": [n for p in prompts for n in p["players"]],
        "waiting_question": prompts[0].get("question") if prompts else None,
        # filled in for the sender of a message, and when the game is over:
        "applied": [], "failed": None, "unused": [], "check": False,
        "seed": None, "commitment": game.get("seed_commitment"), "ended_by_moderator": False,
        **_pace(svc, game, player, mine),  # deadline, standing_orders
    }


def _pace(svc, game: dict, player: str, mine: dict | None) -> dict:
    from pbem import standing  # here: it imports this module
    return standing.report_keys(svc, game, player, mine)


def show_text(svc, game: dict, player: str) -> str:
    """`pbem game show`: the report's text as `player` (or the moderator) would read it now."""
    state = svc.engine.decode(game["state"])
    view = svc.engine.view(state, player)
    return templates(svc).pair("_report")[0].render(report_context(svc, game, player, view, [], state=state))


def subject(game: dict, ctx: dict, kind: str) -> str:
    if kind == "gameover":
        won = f": {' and '.join(ctx['winners'])} won" if ctx["winners"] else ""
        return f"[{game['id']}] Game over{won}"
    if ctx["asked"]:
        return f"[{game['id']}] Turn {ctx['turn']}: your move"
    if ctx["waiting"]:
        return f"[{game['id']}] Turn {ctx['turn']}: waiting for {', '.join(ctx['waiting'])}"
    return f"[{game['id']}] Turn {ctx['turn']} report"


# -- what to send -----------------------------------------------------------------------

def queue_report(svc, game: dict, player: dict, state, *, kind: str = "report", mid_parts=(),
                 extra: dict | None = None, in_reply_to: str | None = None, inbox_id: int | None = None,
                 frame: Frame | None = None, backlog: turnmail.Backlog | None = None, catch_up: bool = True) -> None:
    """Queue one player's report (or receipt, error, game over: a report with more in it) of
    `state`, the game as it is now. It shows the events the player may see of the moves since
    their last report, which it now is (`catch_up` False: no events, e.g. a briefing that
    tells the story its own way); `backlog` holds them when several reports share it."""
    name, seq = player["name"], game["moves"]
    events = []
    if catch_up:
        since = player["reported_seq"]
        events = (backlog or turnmail.Backlog(svc, game["id"], since, seq)).since(since, name)
    if player.get("reported_seq") != seq:
        svc.store.set_reported(game["id"], name, seq)
        player["reported_seq"] = seq
    ctx = report_context(svc, game, name, svc.engine.view(state, name), events, frame or Frame(svc, state))
    ctx.update(extra or {})
    text, html = templates(svc).render(kind, ctx)
    root = thread_root(svc, game, player["name"])
    outbox.enqueue(svc, kind=kind, message_id=message_id(svc, game, *mid_parts, player["name"], kind),
                   sender=game_address(svc, game), to=player["email"], to_name=player["name"],
                   subject=subject(game, ctx, kind), text=text, html=html, game=game["id"],
                   player=player if "token_salt" in player else None,  # only a seat has a token
                   in_reply_to=in_reply_to or root, references=[root, in_reply_to], inbox_id=inbox_id)


def queue_reports(svc, game: dict, played, *, sender: str | None = None, sender_kind: str = "receipt",
                  sender_extra: dict | None = None, also=(), in_reply_to: str | None = None,
                  inbox_id: int | None = None) -> None:
    """After moves (`played`, a games.Played): a report to those pbem/turnmail.py names -- the
    sender (their receipt or error), `also`, the newly asked, everyone when a turn began;
    when the game is over, the game-over mail to everyone, with the seed."""
    state, seq = played.state, played.seq
    over = bool(getattr(state, "over", False))
    extra = {"seed": game["seed"], "commitment": game["seed_commitment"]} if over else {}
    to = turnmail.mailed(svc, game, played, svc.store.players(game["id"], active_only=True), sender=sender, also=also)
    frame = Frame(svc, state) if to else None
    backlog = turnmail.Backlog(svc, game["id"], min(p["reported_seq"] for p in to), seq) if to else None
    for player in to:
        mine = player["name"] == sender
        kind = "gameover" if over else sender_kind if mine else "report"
        queue_report(svc, game, player, state, kind=kind, mid_parts=("over",) if over else (seq,),
                     extra={**extra, **(sender_extra or {})} if mine else extra, frame=frame, backlog=backlog,
                     in_reply_to=in_reply_to if mine else None, inbox_id=inbox_id)
    if svc.engine.MODERATOR in svc.engine.waiting_for(state):
        queue_digest(svc, game, state, "The game waits for you: a card needs your ruling.", key=seq, frame=frame)


def queue_game_over(svc, game: dict, state, *, ended_by_moderator: bool = False) -> None:
    """The last mail of a game to every player: the final report and the seed revealed."""
    frame = Frame(svc, state)
    game = {**game, "status": "ended"}
    extra = {"seed": game["seed"], "commitment": game["seed_commitment"], "ended_by_moderator": ended_by_moderator}
    for player in svc.store.players(game["id"], active_only=True):
        queue_report(svc, game, player, state, kind="gameover", mid_parts=("over",), extra=extra, frame=frame)


def queue_digest(svc, game: dict, state, reason: str, *, key, frame: Frame | None = None) -> bool:
    """Tell the moderator what the game waits for, whose mail does not arrive and which
    cards wait for a ruling. `key` makes the mail's Message-ID (one digest per occasion)."""
    to = moderator_address(svc, game)
    if not to:
        log.get(game=game["id"]).warning("no moderator address: notice not sent", reason=reason)
        return False
    eng = svc.engine
    view = eng.view(state, None)
    prompts = view.get("prompt", [])
    card = next((p for p in prompts if eng.MODERATOR in p["players"]), None)
    commands = []
    if card:
        commands = [f'pbem game adjudicate {game["id"]} "EFFECTS"   (e.g. "NAME life -1, NAME gold +2")'] + \
            [f'pbem game answer {game["id"]} moderator "{card["id"]}: {o["key"]}"' for o in card["options"]
             if o["key"] != "adjudicate"]
    ctx = {
        "game": {"id": game["id"], "address": game_address(svc, game)}, "turn": view["turn"], "reason": reason,
        "adjudicate": card, "commands": commands,
        "waiting": [n for p in prompts for n in p["players"]],
        "question": prompts[0].get("question") if prompts else None,
        "undeliverable": [{"name": p["name"], "email": p["email"], "reason": p["undeliverable"]}
                          for p in svc.store.players(game["id"], active_only=True) if p.get("undeliverable")],
        "board": frame or Frame(svc, state),
    }
    text, html = templates(svc).render("digest", ctx)
    root = thread_root(svc, game, eng.MODERATOR)
    return outbox.enqueue(svc, kind="digest", message_id=message_id(svc, game, "digest", key),
                          sender=game_address(svc, game), to=to, to_name=None,
                          subject=f"[{game['id']}] Moderator: {reason}", text=text, html=html, game=game["id"],
                          in_reply_to=root, references=[root])


def queue_welcome(svc, game: dict, player: dict, state) -> None:
    """The only mail whose text holds the token (as the outbox marker until it is sent)."""
    marker = outbox.new_marker()
    view = svc.engine.view(state, player["name"])
    me = view["players"].get(player["name"], {})
    g = game["config"]["game"]
    ctx = {
        "game": {"id": game["id"], "address": game_address(svc, game), "edition": g.get("edition", "revised4"),
                 "packs": list(g.get("packs", [])), "ending": g.get("ending"),
                 "options": [f"{k} = {v}" for k, v in sorted(g.get("options", {}).items())],
                 "commitment": game["seed_commitment"], "status": game["status"]},
        "me": player["name"],
        "character": me.get("character_name") or me.get("character"),
        "others": [p["name"] for p in svc.store.players(game["id"], active_only=True) if p["name"] != player["name"]],
        "token": marker,
    }
    text, html = templates(svc).render("welcome", ctx)
    root = thread_root(svc, game, player["name"])
    outbox.enqueue(svc, kind="welcome", message_id=message_id(svc, game, player["name"], player["token_salt"], "welcome"),
                   sender=game_address(svc, game), to=player["email"], to_name=player["name"],
                   subject=f"[{game['id']}] Welcome, {player['name']}", text=text, html=html, game=game["id"],
                   player=player, marker=marker, in_reply_to=root, references=[root])


def queue_stranger(svc, to: str, *, inbox_id: int, in_reply_to: str | None) -> None:
    """The reply to a message that could not be authenticated: says nothing about any game."""
    text, html = templates(svc).render("stranger", {"address": svc.settings.address})
    outbox.enqueue(svc, kind="stranger", message_id=message_id(svc, None, f"in{inbox_id}", "stranger"),
                   sender=svc.settings.address, to=to, to_name=None, subject="Your message to the Talisman service",
                   text=text, html=html, in_reply_to=in_reply_to, references=[in_reply_to], inbox_id=inbox_id)

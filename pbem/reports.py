"""Mails to players, rendered from the engine's views and events.

Each mail is a pair of Jinja2 templates, `<name>.txt.j2` and `<name>.html.j2`, rendered
from one context; autoescape is on for HTML and off for text, and a missing value is an
error (StrictUndefined). Text players wrote is only ever a value, never a template.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2

from pbem import outbox
from pbem.settings import TEMPLATES

NAMES = ("welcome", "report", "receipt", "error", "stranger")


class Templates:
    def __init__(self, folder: Path = TEMPLATES):
        common = dict(loader=jinja2.FileSystemLoader(str(folder)), undefined=jinja2.StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
        self.text = jinja2.Environment(autoescape=False, **common)
        self.html = jinja2.Environment(autoescape=True, **common)

    def render(self, name: str, context: dict[str, Any]) -> tuple[str, str]:
        return (self.text.get_template(f"{name}.txt.j2").render(context),
                self.html.get_template(f"{name}.html.j2").render(context))


def templates(svc) -> Templates:
    if svc.templates is None:
        svc.templates = Templates()
    return svc.templates


# -- addresses and threading --------------------------------------------------------

def game_address(svc, game: dict) -> str:
    return game["config"].get("game", {}).get("address") or svc.settings.address


def thread_root(svc, game: dict, player: str) -> str:
    """Every mail of a game to one player refers to this id, so it is one thread."""
    return f"<{game['id']}.{player}@{outbox.domain_of(game_address(svc, game))}>"


def message_id(svc, game: dict | None, *parts) -> str:
    domain = outbox.domain_of(game_address(svc, game) if game else svc.settings.address)
    return f"<{'.'.join(str(p) for p in ((game['id'],) if game else ()) + parts)}@{domain}>"


# -- contexts -------------------------------------------------------------------------

def sheet_rows(view: dict) -> list[dict]:
    rows = []
    for name, p in view["players"].items():
        spells = p.get("spells", 0)
        rows.append({"name": name, **p, "spell_count": spells if isinstance(spells, int) else len(spells)})
    return rows


def report_context(svc, game: dict, player: str, view: dict, events: list) -> dict:
    mine = view.get("mine")
    return {
        "game": {"id": game["id"], "address": game_address(svc, game)},
        "me": player,
        "turn": view["turn"],
        "over": view["over"],
        "winners": view.get("winners", []),
        "players": sheet_rows(view),
        "own": view["players"].get(player),
        "events": [e.text for e in events],
        "asked": mine,
        "reply_lines": [f"{mine['id']}: {o['key']}" for o in mine["options"]] if mine else [],
        "waiting": [n for p in view.get("prompt", []) for n in p["players"]],
        # filled in for the sender of a message:
        "applied": [], "failed": None, "unused": [], "check": False,
    }


def subject(game: dict, view: dict) -> str:
    return f"[{game['id']}] Turn {view['turn']} report"


# -- what to send -----------------------------------------------------------------------

def queue_report(svc, game: dict, player: dict, state, events: list, *, kind: str = "report", mid_parts=(),
                 extra: dict | None = None, in_reply_to: str | None = None, inbox_id: int | None = None) -> None:
    """Queue one player's report (or receipt/error: a report with the answer to their mail)."""
    eng = svc.engine
    view = eng.view(state, player["name"])
    ctx = report_context(svc, game, player["name"], view, eng.filter_events(events, player["name"]))
    ctx.update(extra or {})
    text, html = templates(svc).render(kind, ctx)
    root = thread_root(svc, game, player["name"])
    outbox.enqueue(svc, kind=kind, message_id=message_id(svc, game, *mid_parts, player["name"], kind),
                   sender=game_address(svc, game), to=player["email"], to_name=player["name"],
                   subject=subject(game, view), text=text, html=html, game=game["id"],
                   player=player if "token_salt" in player else None,  # the moderator has no token
                   in_reply_to=in_reply_to or root, references=[root, in_reply_to], inbox_id=inbox_id)


def moderator_address(svc, game: dict) -> str | None:
    return game["config"].get("game", {}).get("moderator") or svc.settings.moderator


def queue_reports(svc, game: dict, state, events: list, *, seq: int, sender: str | None = None,
                  sender_kind: str = "receipt", sender_extra: dict | None = None, in_reply_to: str | None = None,
                  inbox_id: int | None = None) -> None:
    """After moves: a report to every active player; the sender's is their receipt or error."""
    for player in svc.store.players(game["id"], active_only=True):
        if player["name"] == sender:
            queue_report(svc, game, player, state, events, kind=sender_kind, mid_parts=(seq,), extra=sender_extra,
                         in_reply_to=in_reply_to, inbox_id=inbox_id)
        else:
            queue_report(svc, game, player, state, events, mid_parts=(seq,), inbox_id=inbox_id)
    mod = svc.engine.MODERATOR
    if mod in svc.engine.waiting_for(state) and moderator_address(svc, game):
        # a card only the moderator can settle: tell them (`pbem game answer` / `adjudicate`)
        queue_report(svc, game, {"name": mod, "email": moderator_address(svc, game)}, state, events,
                     mid_parts=(seq,), inbox_id=inbox_id)


def queue_welcome(svc, game: dict, player: dict, state) -> None:
    """The only mail whose text holds the token (as the outbox marker until it is sent)."""
    marker = outbox.new_marker()
    view = svc.engine.view(state, player["name"])
    me = view["players"].get(player["name"], {})
    ctx = {
        "game": {"id": game["id"], "address": game_address(svc, game), "edition": game["config"]["game"].get("edition", "revised4"),
                 "packs": game["config"]["game"].get("packs", []), "commitment": game["seed_commitment"],
                 "status": game["status"]},
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

"""Mails to players and the moderator, made from the engine's views and events.

A mail is queued as the context its templates will be rendered from (pbem/outbound/render.py, when
pbem/outbound/outbox.py sends it): plain data, kept on the outbox row as JSON. So processing a move
costs the views and the data of its reports, not their rendering. A report is queued as what its
context is made from, and made whole when it is rendered (pbem/outbound/contexts.py, which holds
what a report shows: the shared frame and each reader's context).
"""
from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, NamedTuple

import msgspec

from engine.registry import TITLES
from pbem.base import engine_text, i18n, printed_names, printed_texts
from pbem.base.i18n import _
from pbem.core import people
from pbem.outbound import calendar, contexts, glossary, links as web_links, outbox
from pbem.outbound.contexts import (  # what a report shows, by the names its callers know
    MADE as MADE,
    SPECTATOR as SPECTATOR,
    PacePart as PacePart,
    game_address as game_address,
    make_frame as make_frame,
    no_seat as no_seat,
    pack_lines as pack_lines,
    report_context as report_context,
    sheet as sheet,
    store_made as store_made,
    whereabouts as whereabouts,
)

if TYPE_CHECKING:
    from pbem.core.service import Service

NAMES = ("welcome", "report", "receipt", "error", "gameover", "digest", "stranger")


# -- addresses and threading --------------------------------------------------------

def moderator_address(svc: Service, game: dict) -> str | None:
    return game["config"].get("game", {}).get("moderator") or svc.settings.moderator


_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def _id_part(part) -> str:
    """A part of a Message-ID: names may hold anything, an id only letters, digits, - and _
    (anything else is written =XX, so two names never give one id)."""
    return _id_text(str(part))


@functools.lru_cache(maxsize=4096)  # a move's mails share their parts (game, names, kinds): 6 ids an answer
def _id_text(part: str) -> str:
    return _UNSAFE.sub(lambda m: "".join(f"={b:02X}" for b in m.group().encode()), part)


@functools.lru_cache(maxsize=256)
def _id_domain(address: str) -> str:
    return outbox.clean(outbox.domain_of(address))


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
    domain = _id_domain(game_address(svc, game) if game else svc.settings.address)
    return f"<{'.'.join(_id_part(p) for p in ((game['id'],) if game else ()) + parts)}@{domain}>"


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

class Shown(NamedTuple):
    """What every reader's mail of one state says alike: its turn and winners."""
    turn: int
    winners: list[str]


def open_questions(svc: Service, state) -> Shown:
    """A state's `Shown`, from its summary, once for a move's readers. Each reader's questions are
    the engine's `view_questions` (the part of their view about them): a whole view per reader (the
    board, each sheet) only for the headers was 7 % of handling an answer (issue 28)."""
    summary = svc.engine.summary(state)
    return Shown(summary["turn"], list(summary.get("winners", [])))


def queue_report(svc: Service, game: dict, player: dict, state, *, kind: str = "report", mid_parts=(),
                 extra: dict | None = None, in_reply_to: str | None = None, inbox_id: int | None = None,
                 catch_up: bool = True, made: int | None = None,
                 reported: bool = False, pace: PacePart, shown: Shown | None = None) -> None:
    """Queue one player's report (or receipt, error, game over: a report with more in it) of
    `state`, the game as it is now. It shows the events the player may see of the moves since
    their last report, which it now is (`catch_up` False: no events, e.g. a briefing that
    tells the story its own way), read from the moves' stored events when it is rendered. Either
    way the mail keeps where its reader was (`since_seq`): a bounce rewinds them there. It is
    made in its reader's language (pbem/core/people.py). `pace`: as `report_context`'s.
    `made`: the state as `store_made` stored it (with the events since the readers' last reports),
    when several reports share it; `shown`: its open
    questions (`open_questions`), likewise.
    A report no one asked for (not a reply) to a seat whose address chose `mail: digest` is not
    sent: its daily digest lists the game and what happened since the seat's last mail
    (pbem/pace/daily.py)."""
    if unasked(svc, player, kind, in_reply_to):
        return
    with i18n.using(people.language(svc, game, player["name"], player.get("email"))):
        _queue_report(svc, game, player, state, kind=kind, mid_parts=mid_parts, extra=extra, in_reply_to=in_reply_to,
                      inbox_id=inbox_id, catch_up=catch_up, made=made, reported=reported, pace=pace,
                      shown=shown)


def unasked(svc: Service, player: dict, kind: str, in_reply_to: str | None) -> bool:
    """A report no one asked for (not a reply) to a seat whose address chose `mail: digest`: not
    sent, and what it would have told stays untold (`reported_seq` as it was) for the digest."""
    return kind == "report" and in_reply_to is None and "token_salt" in player and \
        not people.wants_each(svc, player.get("email"))


def _queue_report(svc: Service, game: dict, player: dict, state, *, kind: str, mid_parts, extra: dict | None,
                  in_reply_to: str | None, inbox_id: int | None,
                  catch_up: bool, made: int | None, reported: bool, pace: PacePart, shown: Shown | None) -> None:
    """The mail is queued with what its context is made from (`made`, below), not the context:
    what the headers, the calendar part and the pace part need is read now, from the store as
    it is at this move; the rest (the reader's view, sheet, glossary, the preview of their
    answers, the shared frame) is made when the mail is rendered, the same from the same state."""
    name, seq = player["name"], game["moves"]
    since = player.get("reported_seq")
    assert since is not None or not catch_up, "a seat's row has its reported_seq"
    if player.get("reported_seq") != seq:
        if not reported:  # `reported`: the caller has stored it, for several readers at once
            svc.store.set_reported(game["id"], name, seq)
        player["reported_seq"] = seq
    shown = shown or open_questions(svc, state)
    _, mine, prompts = contexts.asking(svc, game, name, svc.engine.view_questions(state, name), state)
    head = {"turn": shown.turn, "winners": shown.winners, "asked": mine,
            "waiting": [n for p in prompts for n in p["players"]]}  # as report_context says them
    ctx = dict(extra or {})  # laid over the made context, as it was over the context made at once
    ctx["service_notes"] = _told(svc, player)
    if ctx.get("failed"):  # why a line was refused, in the reader's language
        ctx["failed"] = {**{k: v for k, v in ctx["failed"].items() if k != "msg"}, "reason": refused_why(ctx["failed"])}
    marker = outbox.new_marker() if "token_salt" in player else None  # only a seat has a token
    ctx["links"] = web_links.mail_links(svc, game, marker)  # the game's page, the reader's (pbem/web)
    # what it is made from: stored once for a move's readers, else in the one reader's context
    after = since if catch_up else seq
    ctx["board"] = {"stored": made} if made is not None else {MADE: contexts.made_of(svc, game, state, after)}
    # its events go with what it is made from, once for the move's readers, and are filtered for
    # the reader when it is rendered: not encoded into every reader's mail (issue 28)
    ctx[MADE] = {"me": name, "after": after, "upto": seq,
                 "pace": pace(svc, game, name, mine, state)}
    root = thread_root(svc, game, player["name"])
    outbox.enqueue(svc, kind=kind, message_id=message_id(svc, game, *mid_parts, player["name"], kind),
                   sender=game_address(svc, game), to=player["email"], to_name=player["name"],
                   subject=subject(game, {**head, **ctx}, kind), context=ctx, game=game["id"],
                   player=player if "token_salt" in player else None, marker=marker,
                   in_reply_to=in_reply_to or root, references=[root, in_reply_to], inbox_id=inbox_id,
                   since_seq=since, extra_headers={QUESTION_HEADER: str(mine["id"])} if mine else None,
                   reply=in_reply_to is not None, calendar=calendar_part(svc, game, player, head))


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


def replied_row(svc: Service, message_id: str, read: dict[str, dict | None] | None = None) -> dict | None:
    """What a mail that replies to our mail `message_id` asks of its outbox row (game, player, kind,
    headers: not its rendered text); `read`: the rows its handling read already, by id (it asks
    twice: whether that mail asked anything, and which question; one read: issue 28)."""
    if read is None:
        return svc.store.outbox_replied(message_id)
    if message_id not in read:
        read[message_id] = svc.store.outbox_replied(message_id)
    return read[message_id]


def question_replied_to(svc: Service, game: dict, player: str, references: list[str],
                        read: dict[str, dict | None] | None = None) -> str | None:
    """The question the report a reply answers asked (the newest of the ids it replies to that
    is a report to this player), or None. `read`: as `replied_row`'s."""
    for mid in references:
        row = replied_row(svc, mid, read)
        if row and row["game"] == game["id"] and row["player"] == player:
            return outbox.headers_of(row).get(QUESTION_HEADER)
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


def queue_stranger(svc: Service, to: str, *, inbox_id: int, in_reply_to: str | None, lang: str) -> None:
    """The reply to a message that could not be authenticated: says nothing about any game; in
    `lang`, the language `to` reads (a seat whose token was wrong reads hers; a stranger English)."""
    with i18n.using(lang):
        outbox.enqueue(svc, kind="stranger", message_id=message_id(svc, None, f"in{inbox_id}", "stranger"),
                       sender=svc.settings.address, to=to, to_name=None,
                       subject=_("Your message to the Talisman service"), context={"address": svc.settings.address},
                       in_reply_to=in_reply_to, references=[in_reply_to], inbox_id=inbox_id)

"""Mail commands: every word a mail may say to the service besides its answers, in one table.

Each `Command` says how it is written (its name and aliases, its form, what may follow it),
when it is carried out, what carries it out, and its limits. `orders.read` finds them in a
mail's lines by this table, and `carry_out` does them by it; adding a command is one entry in
`TABLE` (docs/contributing.md, "A mail command").

    status                     a line of its own, or the subject's last word: the report again
    resign [CODE]              leave the game (the code, sent in reply, confirms it)
    to: NAME | all             a message to players, on the lines after it (pbem/outbound/press.py)
    standing: | vacation: | timezone: | reports:   settings (pbem/pace/standing.py)
    email: NEW [CODE] [all]    a new address for the seat (pbem/pace/addresses.py)
    language: de               the address's own language, in every game (pbem/core/people.py)
    mail: | zone: | digest:    how the address's mail comes: each report, a daily digest, both
    help                       a short guide by mail
    back                       a seat in civil disorder taken back from its bot (pbem/pace/seats.py)

Every word has its German alias (`aufgeben`, `an:`, `urlaub:`, `sprache:`, `hilfe`...): any
player of any game may write either.
"""
from __future__ import annotations

import enum
import hashlib
import hmac
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pbem.base import i18n, option_keys
from pbem.base.i18n import N_, _, ngettext
from pbem.core import games, people
from pbem.moderate import moderator
from pbem.outbound import announce, limits, notices, outbox, press, reports
from pbem.pace import addresses, moves, reported, seats, standing

if TYPE_CHECKING:
    from pbem.core.service import Service


class Form(enum.Enum):
    WORD = "word"  # a line of its own (or the subject's last word when `subject`): `status`, `resign CODE`
    SETTING = "setting"  # a `name: value` line (from a turn file's answers too): `vacation: 5d`
    MESSAGE = "message"  # `to: NAME`, its text on the lines after it, up to the next such line


class Stage(enum.Enum):
    ALONE = "alone"  # when a mail holds it, only it is done
    BEFORE = "before"  # before the answers (a standing order filed now answers this mail's questions); a note each
    REPLY = "reply"  # the reply to a mail that answers nothing


@dataclass(frozen=True)
class Call:
    """A command as a mail wrote it."""
    command: str  # its name in the table
    value: str = ""  # what followed the word: a code, a duration, a recipient
    text: str = ""  # a message's text (Form.MESSAGE)
    index: int = 0  # its place among the mail's calls (a message's mails are named by it)


@dataclass
class Request:
    """The mail a command comes in, from an authenticated seat."""
    svc: Service
    game: dict
    player: dict
    inbox_id: int
    message_id: str | None
    check: bool  # CHECK: settings say what they would do
    notes: list[str] = field(default_factory=list)  # what the messages before became (a REPLY shows them)


Handler = Callable[[Request, Call], str]  # carries a call out; returns a note for the reply (or the outcome)


@dataclass(frozen=True)
class Command:
    name: str
    form: Form
    stage: Stage
    run: Handler
    help: str  # one line: docs/orders.md and the replies
    aliases: tuple[str, ...] = ()  # other words for it (other languages)
    takes: str = ""  # a pattern of what may follow a WORD ("": nothing)
    subject: bool = False  # a WORD also read as the subject's last word
    observers: bool = False  # an observer may send it (no seat)
    per_mail: str | None = None  # the Settings key: at most so many in one mail
    per_day: limits.Limit | None = None  # at most so many from one seat in 24 hours
    noun: str = "lines"  # what its limits count, plural
    done: str = "done"  # what the notes say of it: "sent"

    @property
    def words(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


def setting(line: Callable[[Service, dict, str, str, bool], str]) -> Handler:
    """A settings line's function (svc, game, player name, value, check) -> note, as a Handler."""
    return lambda req, call: line(req.svc, req.game, req.player["name"], call.value, req.check)


# -- what the words do ------------------------------------------------------------------------

def status(req: Request, call: Call) -> str:
    """The reader's report again, at once (with what happened since their last)."""
    svc, game = req.svc, req.game
    reports.queue_report(svc, game, req.player, games.state(svc, game), kind="report",
                         mid_parts=(f"in{req.inbox_id}", "status"), in_reply_to=req.message_id,
                         inbox_id=req.inbox_id, extra={"press_notes": req.notes}, pace=reported.part)
    return _("status: the report sent again")


def resign_code(svc: Service, player: dict) -> str:
    """The code that confirms a seat's `resign`: derived, never stored; a replaced seat (new
    salt) has a new one."""
    msg = f"resign\0{player['game']}\0{player['name']}\0{player['token_salt']}".encode()
    return hmac.new(svc.key, msg, hashlib.sha256).hexdigest()[:8]


def resign(req: Request, call: Call) -> str:
    """`resign` asks for a confirmation; `resign CODE` takes the seat out: it takes no orders and
    gets no mail, and its character leaves play by the engine's `leave-game` move."""
    svc, game, player = req.svc, req.game, req.player
    code, name = resign_code(svc, player), player["name"]
    confirmed = bool(call.value) and hmac.compare_digest(call.value, code)
    if confirmed:
        svc.store.update_player(game["id"], name, status="removed")
        left = _leave_play(svc, game, name)
        lines = [_("You have left the game %(game)s. You get no more mail from it and it takes no more answers "
                   "from you.", game=game["id"]), _("Thank you for playing.")]
        subject, outcome = _("You have left the game"), "resigned"
        notices.add(svc, "resigned", f"{name} resigned by mail (confirmed with the code sent to them). " + (
            f"Their character has left play (the move `leave-game {name}` is in the log) and the game goes on."
            if left is None else f"Their character could not leave play ({left}): the seat stays in the game "
            "and you answer for it (`pbem game answer`)."), key=name, game=game["id"])
    else:
        wrong = _("That code is not the one we sent you.") + " " if call.value else ""
        lines = [wrong + _("To leave the game %(game)s for good, reply with this line:", game=game["id"]),
                 f"{said(command('resign'))} {code}",
                 _("Nothing changes until you do; your character then leaves play and the game goes on without it.")]
        subject, outcome = _("Confirm that you resign"), "resign: confirmation asked"
    ctx = {"address": reports.game_address(svc, game), "subject": subject, "lines": lines}
    outbox.enqueue(svc, kind="notice", message_id=reports.message_id(svc, game, f"in{req.inbox_id}", name, "resign"),
                   sender=reports.game_address(svc, game), to=player["email"], to_name=name,
                   subject=f"[{game['id']}] {subject}", context=ctx, game=game["id"],
                   player=None if confirmed else player, in_reply_to=req.message_id,
                   references=[req.message_id], inbox_id=req.inbox_id, reply=True)
    return outcome


def _leave_play(svc: Service, game: dict, name: str) -> str | None:
    """A confirmed resign plays `moderator: leave-game NAME` (engine/rules/leave.py): the
    character leaves play, everyone hears it, the turns pass it by. Why it could not, or None."""
    try:
        played = moderator.answer(svc, game["id"], svc.engine.MODERATOR, f"leave-game {name}")
    except games.GameError as e:  # the game cannot take it (over meanwhile): the moderator is told
        return str(e)
    return played.failed["reason"] if played.failed else None


def back(req: Request, call: Call) -> str:
    """`back`: a seat a bot plays since civil disorder is its person's again; the reply is their
    report, the question open for them in it. From a seat its person plays, where `back` is an
    answer open to it (The Gauntlet's "turn back"), it is played as that answer."""
    svc, game, name = req.svc, req.game, req.player["name"]
    seat = svc.store.player(game["id"], name)
    if seat is not None and not seat["bot"] and not req.check and any(
            name in p.players and any(o.key == call.command for o in p.options)
            for p in svc.engine.prompts(games.state(svc, game))):
        played = moves.play(svc, game, name, [call.command], message_id=req.message_id, inbox_id=req.inbox_id)
        extra = option_keys.in_words({"applied": played.applied, "failed": played.failed, "unused": [],
                                      "check": False, "pace_notes": [], "press_notes": []}, i18n.current())
        announce.queue_reports(svc, game, played, sender=name, sender_kind="error" if played.failed else "receipt",
                               sender_extra=extra, in_reply_to=req.message_id, inbox_id=req.inbox_id,
                               pace=reported.part)
        return _("%(status)s: `%(key)s` played as an answer", status=_(PLAYED[played.status]),
                 key=option_keys.shown(call.command, i18n.current()))
    note = seats.take_back(svc, game, name)
    extra = {"applied": [], "failed": None, "unused": [], "check": False, "pace_notes": [note], "press_notes": []}
    reports.queue_report(svc, game, req.player, games.state(svc, game), kind="receipt",
                         mid_parts=(f"in{req.inbox_id}", "back"), extra=extra, in_reply_to=req.message_id,
                         inbox_id=req.inbox_id, pace=reported.part)
    return note


def take(req: Request, call: Call) -> str:
    """`take CODE` from a seat of the game: a seat offered to substitutes is taken from the
    address it was offered to, with no token (pbem/inbound/process.py `_taker`)."""
    return _("take: you play %(name)s in %(game)s already; an offered seat is taken by replying to the invitation "
             "from the address it went to", name=req.player["name"], game=req.game["id"])


def message(req: Request, call: Call) -> str:
    to = "all" if call.value.lower() in ALL_WORDS else call.value
    return press.send(req.svc, req.game, req.player, to, call.text, key=f"in{req.inbox_id}.{call.index}")


ALL_WORDS = ("all", "alle")  # `to: all`, `an: alle`
PLAYED = {"applied": N_("applied"), "partial": N_("partly applied"), "rejected": N_("not played")}  # Played.status


def language(req: Request, call: Call) -> str:
    """`language: de`: every mail and page of the seat's address in that language, in every game."""
    lang = i18n.language(call.value)
    if req.check:
        return _("language: would be %(lang)s", lang=lang)
    people.set_language(req.svc, req.player["email"], lang)
    i18n.switch(lang)  # the rest of this mail's replies are in it already
    return _("language: your mails are in %(name)s now, in every game", name=i18n.name(lang))


def mail(req: Request, call: Call) -> str:
    """`mail: each | digest | both`: how the seat's address gets its mail, in every game."""
    word = people.mail_word(call.value)
    if req.check:
        return _("mail: would be %(word)s", word=word)
    people.set_mail(req.svc, req.player["email"], word)
    if word == people.EACH:
        return _("mail: you get each report as it comes, in every game")
    return (_("mail: you get one mail a day listing every game that waits for you") if word == people.DIGEST else
            _("mail: you get each report as it comes and one mail a day listing every game that waits for you")) \
        + " " + _digest_when(req)


def _digest_when(req: Request) -> str:
    tz, at = people.digest_time(req.svc, req.player["email"])
    return _("(at %(at)s, %(zone)s; `digest: 20:00` and `zone: Europe/Berlin` change it)",
             at=at.strftime("%H:%M"), zone=tz or "UTC")


def zone(req: Request, call: Call) -> str:
    """`zone: Europe/Berlin`: the address's time zone, in which its digest's hour is read."""
    name = people.zone_name(call.value)
    if req.check:
        return _("zone: would be %(zone)s", zone=name)
    people.set_zone(req.svc, req.player["email"], name)
    return _("zone: %(zone)s, in every game", zone=name) + " " + _digest_when(req)


def digest(req: Request, call: Call) -> str:
    """`digest: 08:00`: the hour of the day the address's digest goes, in its zone."""
    hour = people.digest_hour(call.value)
    if req.check:
        return _("digest: would go at %(at)s", at=hour)
    people.set_digest_at(req.svc, req.player["email"], hour)
    note = _("digest: your daily mail goes") + " " + _digest_when(req)
    if people.mail_choice(req.svc, req.player["email"]) == people.EACH:
        note += " " + _("once you write `mail: digest` or `mail: both`")
    return note


def guide(req: Request, call: Call) -> str:
    """`help`: a short guide by mail, in the reader's language."""
    svc, game, player = req.svc, req.game, req.player
    ctx = {"address": reports.game_address(svc, game), "me": player["name"], "game": {"id": game["id"]},
           "commands": [{"words": c.words, "help": _(c.help)} for c in TABLE]}
    outbox.enqueue(svc, kind="help", message_id=reports.message_id(svc, game, f"in{req.inbox_id}", player["name"],
                                                                   "help"),
                   sender=reports.game_address(svc, game), to=player["email"], to_name=player["name"],
                   subject=f"[{game['id']}] " + _("How to play by mail"), context=ctx, game=game["id"],
                   player=player, in_reply_to=req.message_id, references=[req.message_id], inbox_id=req.inbox_id,
                   reply=True)
    return _("help: the guide sent")


# -- the table ----------------------------------------------------------------------------------

# `help` is the English text; the guide and docs/orders.md show it translated (i18n.N_ marks it).
TABLE: list[Command] = [
    Command("resign", Form.WORD, Stage.ALONE, resign, takes="[0-9a-f]{8}", subject=True, aliases=("aufgeben",),
            help=N_("leave the game; the service answers with a code, and `resign CODE` confirms")),
    Command("to", Form.MESSAGE, Stage.BEFORE, message, per_mail="press_per_mail", per_day=limits.PRESS_PER_DAY,
            noun="messages", done="sent", aliases=("an",),
            help=N_("a message to a player (or `to: all`): the lines after it, up to the next `to:` line")),
    Command("standing", Form.SETTING, Stage.BEFORE, setting(standing.standing_line), aliases=("dauerauftrag",),
            help=N_("file a standing order, or `standing: cancel N|all` (docs/pace.md)")),
    Command("vacation", Form.SETTING, Stage.BEFORE, setting(standing.vacation_line), aliases=("urlaub",),
            help=N_("pause your deadlines, e.g. `vacation: 5d`; `vacation: end` ends it")),
    Command("timezone", Form.SETTING, Stage.BEFORE, setting(standing.timezone_line), aliases=("zeitzone",),
            help=N_("the time zone your mail shows times in, e.g. `timezone: Europe/Berlin`")),
    Command("reports", Form.SETTING, Stage.BEFORE, setting(standing.reports_line), aliases=("berichte",),
            help=N_("`reports: every` brings a report after every move; `reports: turn` goes back")),
    Command("email", Form.SETTING, Stage.BEFORE, setting(addresses.mail_line), aliases=("e-mail",),
            help=N_("move the seat to a new address (`email: NEW`, confirmed by the code mailed there; `all`: "
                    "every seat of yours)")),
    Command("language", Form.SETTING, Stage.BEFORE, language, aliases=("sprache",),
            help=N_("the language of your mails and pages, in every game: `language: de` or `language: en`")),
    Command("mail", Form.SETTING, Stage.BEFORE, mail, aliases=("post",),
            help=N_("how your mail comes, in every game: `mail: each` (every report), `mail: digest` (one mail a day "
                    "listing every game that waits for you, answered in one reply) or `mail: both`")),
    Command("zone", Form.SETTING, Stage.BEFORE, zone, aliases=("ortszeit",),
            help=N_("your time zone for the daily mail, in every game, e.g. `zone: Europe/Berlin`")),
    Command("digest", Form.SETTING, Stage.BEFORE, digest, aliases=("tagesmail",),
            help=N_("the hour your daily mail goes, in your zone, e.g. `digest: 08:00`")),
    Command("back", Form.WORD, Stage.ALONE, back, aliases=("zurück",),
            help=N_("take back your seat from the bot that plays it since you missed deadlines (civil disorder)")),
    Command("take", Form.WORD, Stage.ALONE, take, takes="[0-9a-f]{20}", aliases=("übernehmen",),
            help=N_("take a seat the moderator offered you: `take CODE`, in a reply to the invitation")),
    Command("status", Form.WORD, Stage.REPLY, status, subject=True, observers=True,
            help=N_("your report again, at once (a line of its own, or the subject's last word)")),
    Command("help", Form.WORD, Stage.REPLY, guide, subject=True, aliases=("hilfe",),
            help=N_("this guide, by mail")),
]


def command(name: str) -> Command:
    return next(c for c in TABLE if c.name == name)


# -- reading: what orders.read asks ------------------------------------------------------------------

@dataclass(frozen=True)
class _Grammar:
    words: tuple[tuple[re.Pattern, str], ...]  # (a WORD line, its command)
    settings: re.Pattern  # `name: value`, the name in group "word"
    messages: re.Pattern  # `to: NAME text`
    subject: re.Pattern | None  # the subject's last word
    names: dict[str, str]  # any word or alias (lower case) -> the command's name


def _grammar(table: tuple[Command, ...]) -> _Grammar:
    """The table's words as patterns."""
    def alt(cs: Iterable[Command]) -> str:
        return "|".join(re.escape(w) for c in cs for w in c.words) or "(?!)"
    words = tuple((re.compile(rf"^(?:{alt([c])})(?:\s*:?\s*(?P<value>{c.takes}))?\W*$" if c.takes else
                              rf"^(?:{alt([c])})\W*$", re.IGNORECASE), c.name) for c in table if c.form is Form.WORD)
    subject = [c for c in table if c.form is Form.WORD and c.subject]
    return _Grammar(
        words=words,
        settings=re.compile(rf"^(?P<word>{alt(c for c in table if c.form is Form.SETTING)})\s*:\s*(?P<value>\S.*?)\s*$",
                            re.IGNORECASE),
        messages=re.compile(rf"^(?:{alt(c for c in table if c.form is Form.MESSAGE)})\s*:\s*(?P<value>[\w.-]+)\s*:?"
                            r"\s*(?P<text>.*)$", re.IGNORECASE),
        subject=re.compile(rf"\b({alt(subject)})\W*$", re.IGNORECASE) if subject else None,
        names={w.lower(): c.name for c in table for w in c.words})


# the table they were made from (held, so its entries' ids stay theirs), those ids, its patterns
_made: list[tuple[tuple[Command, ...], list[int], _Grammar]] = []


def grammar() -> _Grammar:
    """The patterns of the table as it is now (made again when an entry changes: a test may add one).
    Asked four times a mail: the entries compared by their ids at C speed, not one by one."""
    if not _made or _made[0][1] != list(map(id, TABLE)):
        _made[:] = [(tuple(TABLE), list(map(id, TABLE)), _grammar(tuple(TABLE)))]
    return _made[0][2]


def word(line: str) -> Call | None:
    """A WORD command written on this line (`status`, `resign 0a1b2c3d`), or None."""
    for pattern, name in grammar().words:
        m = pattern.match(line.strip())
        if m:
            return Call(name, (m.groupdict().get("value") or "").lower())
    return None


def setting_line(line: str) -> Call | None:
    """A SETTING line (`Vacation: 5d`), or None."""
    g = grammar()
    m = g.settings.match(line.strip())
    return Call(g.names[m.group("word").lower()], m.group("value")) if m else None


def message_start(line: str) -> Call | None:
    """The first line of a MESSAGE (`to: bob` and maybe its first words), or None."""
    g = grammar()
    m = g.messages.match(line)
    if not m:
        return None
    return Call(g.names[line.partition(":")[0].strip().lower()], m.group("value"), m.group("text"))


def subject_word(subject: str) -> Call | None:
    """A WORD command as the subject's last word (`Re: [g] status`), or None."""
    pattern = grammar().subject
    m = pattern.search(subject) if pattern else None
    return Call(grammar().names[m.group(1).lower()]) if m else None


def normal(call: Call) -> str:
    """A SETTING call as the line it stands for, normalised ("Vacation:5d" -> "vacation: 5d")."""
    return f"{call.command}: {call.value}"


# -- carrying out -------------------------------------------------------------------------------------

def before(req: Request, calls: list[Call]) -> tuple[list[str], list[str]]:
    """Carry out the mail's BEFORE calls in their order, each within its limits: (the notes on
    its messages, the notes on its settings)."""
    messages: list[str] = []
    settings: list[str] = []
    done: dict[str, int] = {}
    refused: dict[str, int] = {}
    for call in calls:
        cmd = command(call.command)
        if cmd.stage is not Stage.BEFORE:
            continue
        notes = messages if cmd.form is Form.MESSAGE else settings
        if cmd.per_mail and done.get(cmd.name, 0) >= getattr(req.svc.settings, cmd.per_mail):
            refused[cmd.name] = refused.get(cmd.name, 0) + 1
            continue
        done[cmd.name] = done.get(cmd.name, 0) + 1
        if cmd.per_day and not limits.take(req.svc, cmd.per_day, limits.seat(req.player)):
            notes.append(_over_day(req, cmd, call))
            continue
        try:
            notes.append(cmd.run(req, call))
        except (ValueError, games.GameError) as e:
            notes.append(_("%(command)s: %(value)s: not done: %(why)s", command=said(cmd), value=call.value, why=e))
    for name, n in refused.items():
        cmd = command(name)
        notes = messages if cmd.form is Form.MESSAGE else settings
        values = {"limit": getattr(req.svc.settings, cmd.per_mail or ""), "key": cmd.per_mail}
        notes.append(ngettext("%(n)s more message was not sent: at most %(limit)s messages in one mail (%(key)s).",
                              "%(n)s more messages were not sent: at most %(limit)s messages in one mail (%(key)s).",
                              n, **values) if cmd.form is Form.MESSAGE else
                     ngettext("%(n)s more line was not done: at most %(limit)s lines in one mail (%(key)s).",
                              "%(n)s more lines were not done: at most %(limit)s lines in one mail (%(key)s).",
                              n, **values))
    return messages, settings


def said(cmd: Command) -> str:
    """The command's word as its reader writes it: the table's aliases are the German words, so a
    reader not of English is shown the first of them (`urlaub`), an English reader its name."""
    return cmd.aliases[0] if cmd.aliases and i18n.current() != i18n.DEFAULT else cmd.name


def _over_day(req: Request, cmd: Command, call: Call) -> str:
    limit = cmd.per_day
    assert limit is not None
    limits.over(req.svc, limit, limits.seat(req.player), game=req.game["id"])
    span = _("the last hour") if limit.window == limits.HOUR else _("the last 24 hours") \
        if limit.window == limits.DAY else str(limit.window)
    values = {"n": limit.allowed(req.svc), "span": span, "key": limit.key}
    if cmd.form is Form.MESSAGE:
        return _("Not sent to %(to)s: you have sent %(n)s messages in %(span)s (%(key)s).", to=call.value, **values)
    return _("Not done: you have done %(n)s lines in %(span)s (%(key)s).", **values)

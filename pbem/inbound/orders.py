"""Orders: one inbound mail or turn file -> an `Order` (game, token, answer lines, commands).

No database, no engine: whether the token, the sender and the answers are right is for the
service to decide; this module only reads what the player sent, from the `Mail` read once
(pbem/inbound/mail.py), with the mail commands' table (pbem/inbound/commands.py).
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field

import msgspec

from pbem.base import option_keys
from pbem.inbound import commands, mail as mail_mod, mailtext
from pbem.inbound.commands import Call, Form
from pbem.inbound.mail import MAX_BYTES, Mail, content_hash

__all__ = ["MAX_BYTES", "Block", "Order", "OrderError", "content_hash", "parse_mail", "parse_turn_file", "read",
           "redact"]

_TOKEN = re.compile(r"[0-9a-f]{20}")
_HEX_RUN = re.compile(r"[0-9a-fA-F]{20,}")
_TOKEN_LINE = re.compile(r"^token\b\s*:?\s*(\S*)\s*$", re.IGNORECASE)
_PLUS = re.compile(r"^([^+@\s]+)\+([0-9a-fA-F]{20})@(\S+)$")
_GAME_TAG = re.compile(r"\[([A-Za-z0-9][\w.-]*)\]")
# A digest reply's block starts at a line that opens with a game's tag: "[autumn]", or the
# digest's own header line copied whole ("[autumn] anna, turn 3, question 4: ...").
_BLOCK = re.compile(r"^\[([A-Za-z0-9][\w.-]*)\](?:\s.*)?$")
# CHECK is the subject's first or last word once reply prefixes and the game tag are gone:
# "Re: [g] CHECK" and "Re: [g] Turn 4 report - check" check; "... check the dice" plays.
_CHECK = re.compile(r"^\s*(?:(?:re|aw|sv|fwd?|wg)\s*:\s*)*check\b|\bcheck\W*$", re.IGNORECASE)
_ANSWER = re.compile(r"^(?:(\d+)\s*:\s*)?([A-Za-zÄÖÜäöüß][A-Za-zÄÖÜäöüß0-9-]*)(?:\s+(\S.*))?$")
# How people number an answer: "8: left", "8 left", "8. left", "Q8: left", "#8 - left", "(8) left".
_NUMBERED = re.compile(r"^(?:q(?:uestion)?\s*|f(?:rage)?\s*|#|\()?(\d+)\)?\s*(?:[:.)=-]\s*|\s+)(?=[A-Za-zÄÖÜäöü])",
                       re.IGNORECASE)
# A line that reads as a try at an answer (a number first, or one short word) but is not one.
_ATTEMPT = re.compile(r"^(?:(?:q(?:uestion)?\s*|#)?\d+\b.*|[A-Za-z][\w-]*\W{0,3})$", re.IGNORECASE)
_MAX_WORDS = 6
# Greetings and thanks fit the answer pattern ("Hi", "Thanks") but are never option keys.
_CHAT = {"hi", "hello", "hey", "dear", "thanks", "thank", "thx", "cheers", "regards",
         "best", "greetings", "bye", "ciao", "ok", "okay", "sorry", "please",
         "hallo", "moin", "servus", "danke", "gruß", "grüße", "gruss", "gruesse", "lg", "vg", "bitte", "tschüss"}


class OrderError(ValueError):
    """An unreadable message or turn file; the message is meant for the sender.

    Any run of 20+ hex characters is masked, so no token can leak through an error.
    """

    def __init__(self, message: str):
        super().__init__(_HEX_RUN.sub("[token]", message))


@dataclass
class Block:
    """One game's part of a reply to a digest (pbem/inbound/digest.py): its answer lines and
    mail commands, as an order of a mail to that game would hold them."""
    game: str
    lines: list[str] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)


@dataclass
class Order:
    source: str                    # "mail" or "turnfile"
    game: str | None
    player: str | None
    token: str | None
    sender: str | None
    message_id: str | None
    in_reply_to: str | None
    subject: str
    check: bool
    lines: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    attachments: list[str] = field(default_factory=list)
    # ignored lines that look like a try at an answer: the reply quotes them with the forms read
    attempts: list[str] = field(default_factory=list)
    # the last line when it reads like a signed name ("Carol", "Alice Smith"): played only if
    # it is an option key (the service knows; pbem/inbound/process.py)
    signature: str | None = None
    calls: list[Call] = field(default_factory=list)  # the mail commands it holds, in order (commands.TABLE)
    references: list[str] = field(default_factory=list)  # the ids the mail replies to, newest first
    # the body's lines again, split at lines naming a game ("[autumn]"): a digest reply's games
    # (only a digest reply reads them; any other mail is read by `lines` and `calls`)
    blocks: list[Block] = field(default_factory=list)

    def called(self, form: Form | None = None) -> list[Call]:
        """Its calls of commands of `form` (all: None)."""
        return [c for c in self.calls if form is None or commands.command(c.command).form is form]


class TurnFile(msgspec.Struct, forbid_unknown_fields=True):
    answers: list[str]
    game: str | None = None
    player: str | None = None
    token: str | None = None
    check: bool = False


# --- mail ----------------------------------------------------------------------------------

def parse_mail(raw: bytes, game_address: str | None = None) -> Order:
    """Read one inbound mail from its bytes (`read` takes a `Mail` already read)."""
    return read(mail_mod.read(raw), game_address)


def read(mail: Mail, game_address: str | None = None) -> Order:
    """The order in one mail. Raises OrderError for a message that cannot be read."""
    if len(mail.raw) > MAX_BYTES:
        raise OrderError("The message is larger than 1 MB; please send your answers as text.")
    if mail.unreadable:
        raise OrderError(mail.unreadable)
    try:
        return _read(mail, game_address)
    except OrderError:
        raise
    except Exception as exc:  # noqa: BLE001 -- a reader's failure of any kind is a refusal with a reply
        raise OrderError("The message could not be read as an email.") from exc


def _read(mail: Mail, game_address: str | None) -> Order:
    subject = mail.subject
    tag = _GAME_TAG.search(subject)
    order = Order(source="mail", game=tag.group(1) if tag else None, player=None,
                  token=_plus_token(mail.recipients, game_address), sender=mail.sender, message_id=mail.message_id,
                  in_reply_to=mail.in_reply_to, subject=subject,
                  check=bool(_CHECK.search(_GAME_TAG.sub(" ", subject))), references=list(mail.references))
    in_subject = commands.subject_word(_GAME_TAG.sub(" ", subject))
    calls: list[Call] = [in_subject] if in_subject else []

    body_lines: list[tuple[str, str]] = []  # (line, answer) in the body: a note beside a turn file, if one is attached
    if mail.body is not None:
        own, messages = _messages(mailtext.own_lines(mail.body))
        for i, line in enumerate(own):
            head = _BLOCK.match(line)
            if head:  # a block's game: nothing to play in it
                order.blocks.append(Block(head.group(1)))
                order.ignored.append(line)
                continue
            token_line = _TOKEN_LINE.match(line)
            if token_line:  # the token line is never an answer, nor echoed back
                if order.token is None and _TOKEN.fullmatch(token_line.group(1).lower()):
                    order.token = token_line.group(1).lower()
                continue
            call = commands.setting_line(line) or commands.word(line)
            if call:
                calls.append(call)
                if order.blocks:
                    order.blocks[-1].calls.append(call)
                continue
            answer = _answer(line)
            if answer is None:
                order.ignored.append(line)
                if _ATTEMPT.match(line) and line.split()[0].lower().strip(",.!") not in _CHAT:
                    order.attempts.append(line)
            else:
                body_lines.append((line, answer))
                if order.blocks:
                    order.blocks[-1].lines.append(answer)
                if i == len(own) - 1 and mailtext.looks_like_name(line):
                    order.signature = answer
        calls += messages

    for attachment in mail.attachments:
        if not attachment.turn_file:
            continue
        name = attachment.name
        try:
            tf = _read_turn_file(attachment.data, name)
        except OrderError as exc:
            raise OrderError(f"Attachment {name}: {exc}") from exc
        except Exception as exc:  # nested too deep, or anything else a reader raises
            raise OrderError(f"Attachment {name}: it could not be read as a turn file.") from exc
        if tf.game and order.game and tf.game != order.game:
            raise OrderError(f"Attachment {name} is for game {tf.game!r}, "
                             f"but the subject names {order.game!r}.")
        order.game = order.game or tf.game
        order.player = order.player or tf.player
        order.token = order.token or tf.token
        order.check = order.check or tf.check
        settings, answers = _settings(tf.answers)
        calls += settings
        order.lines.extend(answers)
        order.attachments.append(name)

    if order.attachments:  # beside a turn file, only a plain answer ("21: right", "evade") is one:
        # "here it is" or "see attached" is a note, and must not block the file's answers
        notes = [(line, a) for line, a in body_lines if not (_numbered(a) or " " not in a)
                 or a == order.signature]
        order.ignored += [line for line, _ in notes]
        order.lines[:0] = [a for pair in body_lines if pair not in notes for a in pair[1:]]
        order.signature = None
    else:
        order.lines = [a for _, a in body_lines]
    order.calls = [Call(c.command, redact(c.value, order.token), redact(c.text, order.token), i)
                   for i, c in enumerate(calls)]
    made = {id(c): made for c, made in zip(calls, order.calls, strict=True)}
    for block in order.blocks:
        block.calls = [made[id(c)] for c in block.calls]
    if order.token:
        order.ignored = [redact(line, order.token) for line in order.ignored]
        order.attempts = [redact(line, order.token) for line in order.attempts]
    return order


def _messages(lines: list[str]) -> tuple[list[str], list[Call]]:
    """Split off the messages to players: a `to: NAME` line (its rest, if any, starts the
    text) and every line after it up to the next `to:` line are one message."""
    starts = [(i, commands.message_start(line)) for i, line in enumerate(lines)]
    first = next((i for i, call in starts if call), None)
    if first is None:
        return lines, []
    messages: list[Call] = []
    for (_, call), line in zip(starts[first:], lines[first:], strict=True):
        if call:
            messages.append(call)
        else:
            messages[-1] = Call(messages[-1].command, messages[-1].value, (messages[-1].text + "\n" + line).strip("\n"))
    return lines[:first], messages


def _settings(answers: list[str]) -> tuple[list[Call], list[str]]:
    """A turn file's answers: (its settings lines, its answers)."""
    calls = [(a, commands.setting_line(a)) for a in answers]
    return [c for _, c in calls if c], [a for a, c in calls if not c]


def _plus_token(recipients: tuple[str, ...], game_address: str | None) -> str | None:
    """The token in a plus address (talisman+TOKEN@example.org) among the mail's recipients."""
    base, _, domain = (game_address or "").lower().partition("@")
    for addr in recipients:
        m = _PLUS.match(addr)
        if m and (not game_address or (m.group(1), m.group(3)) == (base, domain)):
            return m.group(2)
    return None


def _answer(line: str) -> str | None:
    """The answer in a line of mail text, normalised ("17: Left", "Q17. left", "17 Left." ->
    "17: left"), or None."""
    numbered = _NUMBERED.match(line)
    if numbered:
        line = f"{numbered.group(1)}: {line[numbered.end():]}"
    if len(line.split()) <= 2:  # "Left." / "8: left!" are answers; a sentence is prose
        line = re.sub(r"(?<=\w)[.!]$", "", line)
    m = _ANSWER.match(line)
    if (not m or line[-1] in ",.;:" or "!" in line or "?" in line or len(line.split()) > _MAX_WORDS
            or m.group(2).lower() in _CHAT):
        return None
    return _format(m)


def _format(m: re.Match) -> str:
    prompt, key, arg = m.groups()
    key = key.lower()
    key = option_keys.read(key)  # "links", "friedhof": a German reader's words and names
    return (f"{prompt}: " if prompt else "") + key + (f" {arg}" if arg else "")


def _numbered(answer: str) -> bool:
    """Whether an answer `_format` wrote names its question's number."""
    m = _ANSWER.match(answer)
    assert m is not None, answer
    return m.group(1) is not None


# --- turn files ----------------------------------------------------------------------------

def parse_turn_file(data: bytes, filename: str) -> Order:
    """Read one uploaded turn file (.toml or .json). Raises OrderError naming the mistake."""
    try:
        tf = _read_turn_file(data, filename)
    except OrderError:
        raise
    except Exception as exc:  # e.g. RecursionError from a table nested 3,000 deep
        raise OrderError("The turn file could not be read (it is nested too deep or malformed).") from exc
    settings, answers = _settings(tf.answers)
    return Order(source="turnfile", game=tf.game, player=tf.player, token=tf.token,
                 sender=None, message_id=None, in_reply_to=None, subject="",
                 check=tf.check, lines=answers,
                 calls=[Call(c.command, c.value, index=i) for i, c in enumerate(settings)])


def _read_turn_file(data: bytes, filename: str) -> TurnFile:
    if len(data) > MAX_BYTES:
        raise OrderError("The turn file is larger than 1 MB.")
    data = data.removeprefix(b"\xef\xbb\xbf")
    kind = filename.lower().rpartition(".")[2]
    try:
        if kind == "toml":
            try:
                obj = tomllib.loads(data.decode("utf-8"))
            except UnicodeDecodeError:
                raise OrderError("The turn file is not UTF-8 text.") from None
            except tomllib.TOMLDecodeError as exc:  # its message says "(at line N, column M)"
                raise OrderError(f"The turn file is not valid TOML: {exc}.") from None
            tf = msgspec.convert(obj, TurnFile)
        elif kind == "json":
            tf = msgspec.json.decode(data, type=TurnFile)
        else:
            raise OrderError("A turn file must be a .toml or .json file.")
    except msgspec.ValidationError as exc:
        raise OrderError(f"Turn file: {_explain(str(exc))}.") from None
    except msgspec.DecodeError as exc:  # JSON syntax; msgspec counts bytes, players count lines
        where = _json_where(str(exc).removeprefix("JSON is malformed: "), data)
        raise OrderError(f"The turn file is not valid JSON: {where}.") from None

    if tf.token is not None:
        tf.token = tf.token.strip().lower()
        if not _TOKEN.fullmatch(tf.token):
            raise OrderError("Turn file: token must be the 20-character token "
                             "from your welcome mail.")
    answers: list[str] = []
    for i, text in enumerate(tf.answers):
        setting = commands.setting_line(text)
        if setting:
            answers.append(commands.normal(setting))
            continue
        m = _ANSWER.match(text.strip())
        if not m:
            raise OrderError(f"Turn file: answers[{i}] is not an answer; write an option "
                             "key, optionally after the question's number, such as \"17: left\".")
        answers.append(_format(m))
    tf.answers = answers
    return tf


_TYPE_NAMES = {"str": "text", "bool": "true or false", "array": "a list",
               "object": "a table of fields", "int": "a number", "null": "empty"}


def _explain(error: str) -> str:
    """msgspec's "Expected `str`, got `int` - at `$.answers[2]`" -> "answers[2] must be text"."""
    what, _, path = error.partition(" - at `$")
    path = path.rstrip("`").lstrip(".") or "it"
    if m := re.match(r"Expected `([^`]+)`, got `([^`]+)`", what):
        wanted = " or ".join(_TYPE_NAMES.get(t, t) for t in m.group(1).split(" | ") if t != "null")
        return f"{path} must be {wanted}, not {_TYPE_NAMES.get(m.group(2), m.group(2))}"
    if m := re.match(r"Object contains unknown field `([^`]*)`", what):
        known = ", ".join(TurnFile.__struct_fields__)
        return f"unknown field {m.group(1)!r} (the fields are: {known})"
    if m := re.match(r"Object missing required field `([^`]*)`", what):
        return f"the field {m.group(1)!r} is missing"
    return f"{path}: {what}"


def _json_where(error: str, data: bytes) -> str:
    """Replace msgspec's "(byte N)" by a line number."""
    m = re.search(r"\(byte (\d+)\)", error)
    if not m:
        return error
    line = data[: int(m.group(1))].count(b"\n") + 1
    return error[: m.start()] + f"(line {line})"


# --- tokens and hashes ---------------------------------------------------------------------

def redact(text: str, token: str | None) -> str:
    """`text` with every occurrence of `token` (in any letter case) masked."""
    if not token:
        return text
    return re.sub(re.escape(token), "[token]", text, flags=re.IGNORECASE)

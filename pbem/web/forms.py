"""What a seat's page sends: an answer by button, answer lines from a text box, or an
uploaded turn file -- each made into a turn file and handed to `pbem.inbound.process.handle`, the
path every mail and `pbem submit` takes: stored raw first, deduplicated, processed in one
transaction, with the same receipts by mail.

The page is authenticated by its secret link; the turn file it makes carries the seat's
token (derived here, as for every mail the service sends), which processing masks in the
stored copy. Each form carries a CSRF token bound to the browser's cookie and the id of the
question it was made for: a page left open while the game moved on cannot play the question
open now by accident.
"""
from __future__ import annotations

import hmac
import json
import re
import secrets
from typing import TYPE_CHECKING

from pbem.base.i18n import _
from pbem.base.settings import HttpSettings
from pbem.inbound import commands, orders, process
from pbem.outbound import limits, links
from pbem.sources import kind_of

if TYPE_CHECKING:
    from pbem.core.service import Service

MAX_BODY = 1024 * 1024  # the most `[http] upload_kb` may allow: the mail reader's own limit
SENT = limits.Limit("upload_kb_per_hour", limits.HOUR, "KB sent from its page")
MAX_LINES = 50
COOKIE = "pbem_browser"
_NUMBERED = re.compile(r"^\s*\d+\s*:")


class Refused(ValueError):
    """A form that is not sent on: the page says why (with this HTTP status), and keeps what
    was typed."""
    status = 409


class Forged(Refused):
    status = 403


class TooMuch(Refused):
    status = 429


def max_upload(svc: Service) -> int:
    """The most one uploaded turn file may be, in bytes (`[http] upload_kb`)."""
    return min((svc.settings.http or HttpSettings()).upload_kb * 1024, MAX_BODY)


def charge(svc: Service, player: dict, raw: bytes) -> None:
    """What the seat sends from its page, counted against `upload_kb_per_hour` (in KB, at least 1
    a message), or refused before anything is stored: the page says so and keeps what was
    typed; the moderator hears of it in the digest, once a day. A browser sent 330 MB a minute."""
    kb, who = max(1, -(-len(raw) // 1024)), limits.seat(player)
    if limits.used(svc, SENT, who) + kb <= SENT.allowed(svc):
        limits.take(svc, SENT, who, kb)
        return
    limits.over(svc, SENT, who, game=player["game"], kept=False)
    raise TooMuch(_("This seat has sent %(kb)s KB from its page in the last hour, the most it may "
                    "(upload_kb_per_hour in pbem.toml): this was not sent. Try again later, or answer by mail.",
                    kb=SENT.allowed(svc)))


def new_browser_id() -> str:
    return secrets.token_hex(16)


def field(form, name: str) -> str:
    """A form's text field; "" when absent or not text (a file sent under a text field's name)."""
    value = form.get(name)
    return value if isinstance(value, str) else ""


def file_name(name: str) -> str:
    """An uploaded file's name as it is kept: its last part, printable, at most 100 characters."""
    name = "".join(c for c in name.replace("\\", "/").rpartition("/")[2] if c.isprintable())
    return name[-100:] or "upload"


def check_csrf(svc: Service, player: dict, browser: str | None, token: str | None) -> None:
    if not browser or not token or not hmac.compare_digest(links.csrf_token(svc, player, browser).encode(),
                                                           token.encode()):
        raise Forged(_("This form did not come from your page (its security token does not match). Reload the page "
                       "and try again."))


def open_question(svc: Service, state, name: str) -> int | None:
    mine = svc.engine.view(state, name).get("mine")
    return mine["id"] if mine else None


def check_fresh(asked_now: int | None, form_prompt: str | None) -> None:
    """The form answers the question open now, or it is refused (it was made for another)."""
    made_for = int(form_prompt) if form_prompt and form_prompt.isascii() and form_prompt.isdigit() \
        and len(form_prompt) < 10 else None
    if made_for != asked_now:
        was = _("question %(id)s", id=made_for) if made_for else _("no question")
        now = _("question %(id)s is open now", id=asked_now) if asked_now else _("no question of yours is open now")
        raise Refused(_("This page was made for %(was)s, but %(now)s: nothing was sent. Look at the page as it is "
                        "now, then answer again.", was=was, now=now))


def button_lines(prompt: int | None, key: str) -> list[str]:
    if prompt is None or not re.fullmatch(r"[A-Za-z][A-Za-z0-9-]*", key or ""):
        raise Refused(_("That button answers nothing open now."))
    return [f"{prompt}: {key}"]


def text_lines(prompt: int | None, text: str) -> list[str]:
    """The text box's lines; the first answer without a question number gets the number of
    the question the page showed, so it cannot answer a later one."""
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    if not lines:
        raise Refused(_("The text box was empty: nothing was sent."))
    if len(lines) > MAX_LINES:
        raise Refused(_("At most %(n)s lines at once.", n=MAX_LINES))
    for i, line in enumerate(lines):
        if prompt is not None and commands.setting_line(line) is None:  # a settings line answers nothing
            if not _NUMBERED.match(line):
                lines[i] = f"{prompt}: {line}"
            break
    return lines


def _turn_file(svc: Service, player: dict, lines: list[str]) -> bytes:
    return json.dumps({"game": player["game"], "player": player["name"], "token": svc.token(player),
                       "answers": lines}, ensure_ascii=False).encode()


def upload(svc: Service, player: dict, filename: str, data: bytes) -> bytes:
    """An uploaded turn file as it is processed: the file itself, with the seat's token put in
    when it has none (the page's link authenticated it). A file for another game or seat, or
    with another token, is refused before anything is stored."""
    if len(data) > max_upload(svc):
        raise Refused(_("The file is larger than %(kb)s KB; a turn file is a few lines.", kb=max_upload(svc) // 1024))
    if kind_of(filename or "") != "turn":
        raise Refused(_("A turn file is a .toml or .json file."))
    try:
        order = orders.parse_turn_file(data, filename)
    except orders.OrderError as e:
        raise Refused(f"{filename}: {e}") from None
    if order.game not in (None, player["game"]):
        raise Refused(_("%(file)s is for game %(was)r, not %(game)r.", file=filename, was=order.game,
                        game=player["game"]))
    if order.player not in (None, player["name"]):
        raise Refused(_("%(file)s is for player %(was)r, not %(name)r.", file=filename, was=order.player,
                        name=player["name"]))
    token = svc.token(player)
    if order.token is not None:
        if order.token != token:
            raise Refused(_("%(file)s: its token is not this seat's token.", file=filename))
        return data
    text = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    if filename.lower().endswith(".toml"):  # top-level keys only: a line in front is one more key
        return f'token = "{token}"\n'.encode() + text.encode()
    obj = json.loads(text)
    obj["token"] = token
    return json.dumps(obj, ensure_ascii=False).encode()


def send(svc: Service, player: dict, raw: bytes, filename: str, form_id: str) -> process.Result:
    """Into the service's one path for messages (pbem/inbound/process.py). The upload id is the form's:
    the same form sent twice (a double click, a resent POST) is one message."""
    upload = f"web:{player['game']}/{player['name']}:{_safe(form_id)}"
    if len(raw) > max_upload(svc) + 1024:  # a text box as large as a file (the token put in, a little more)
        raise Refused(_("That is more than %(kb)s KB; answers are a few lines.", kb=max_upload(svc) // 1024))
    charge(svc, player, raw)
    return process.handle(svc, raw, "turn", source="web", filename=filename, upload_id=upload)


def answer(svc: Service, player: dict, lines: list[str], form_id: str) -> process.Result:
    return send(svc, player, _turn_file(svc, player, lines), "web.json", form_id)


def _safe(form_id: str) -> str:
    return re.sub(r"[^0-9a-f]", "", (form_id or "").lower())[:32] or "form"

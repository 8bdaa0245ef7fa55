"""The web face's Starlette application: routes, headers, and a service per worker thread.

Pages are made in Starlette's thread pool (the store's reads and `process.handle`'s
transaction are blocking calls); each thread opens its own Service over the same store, as
every other process of the service does, so SQLite's locking keeps them apart.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from pbem.base import i18n
from pbem.base.i18n import N_, _
from pbem.core import health, keys, people
from pbem.outbound import calendar, links, render, reports
from pbem.web import forms, pages, replay as web_replay

if TYPE_CHECKING:
    from pbem.core.service import Service

STATIC = Path(__file__).resolve().parent / "static"
CSP = ("default-src 'none'; img-src 'self' data:; style-src 'self'; script-src 'self'; form-action 'self'; "
       "frame-ancestors 'none'; base-uri 'none'")
HEADERS = {"x-content-type-options": "nosniff", "referrer-policy": "no-referrer",
           "x-frame-options": "DENY", "cross-origin-opener-policy": "same-origin"}
MAX_BODY = forms.MAX_BODY + 16 * 1024  # the largest upload `[http] upload_kb` allows, and the other fields


class SecurityHeaders:
    """Every response: a strict Content-Security-Policy (unless the route set its own), no
    Referer (a seat's link must not leak to another site), no framing, no sniffing. Wrapped
    around the whole application, Starlette's own 500 included."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def sending(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                have = {k.lower() for k, _ in headers}
                if b"content-security-policy" not in have:
                    headers.append((b"content-security-policy", CSP.encode()))
                headers += [(k.encode(), v.encode()) for k, v in HEADERS.items() if k.encode() not in have]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, sending)


class Web:
    def __init__(self, opener: Callable):
        self.opener = opener
        self._local = threading.local()

    def svc(self):
        svc = getattr(self._local, "svc", None)
        if svc is None:
            svc = self._local.svc = self.opener()
        return svc

    def html(self, name: str, ctx: dict, status: int = 200, headers: dict | None = None) -> HTMLResponse:
        """Page `name` in the language of this request (`create_app`'s `sync`; a seat's own, `_seat`)."""
        text = render.templates(self.svc()).env.get_template(f"web/{name}.html.j2").render({**ctx,
                                                                                            "lang": i18n.current()})
        return HTMLResponse(text, status_code=status, headers=headers)

    # -- pages ---------------------------------------------------------------------------

    def _game(self, game_id: str) -> dict:
        game = self.svc().store.game(game_id) if _plain(game_id, 100) else None
        if game is None:
            raise HTTPException(404, _("There is no such game."))
        return game

    def _seat(self, game: dict, secret: str, of=links.seat_secret) -> dict:
        svc = self.svc()
        try:  # a key rotated on another machine voids the links this process would still derive
            keys.still_current(svc.store, svc.settings.key_path)
        except keys.KeyMismatch:
            raise HTTPException(503, _("This server waits for the service's new key: your newest mail has "
                                       "your new link; try it again later.")) from None
        seat = None
        if _plain(secret, links.SECRET_CHARS):  # a link's shape says nothing of any seat's secret
            seat = links.find_seat(svc, game["id"], secret, of)
        if seat is None:
            raise HTTPException(404, _("This link opens no seat: it is wrong, or the seat was given to someone else "
                                       "(their mails carry the new link)."))
        i18n.switch(people.language(svc, game, seat["name"], seat["email"]))  # the seat's page: its language
        return seat

    def index_page(self, request: Request) -> Response:
        return self.html("index", pages.index(self.svc()))

    def game_page(self, request: Request) -> Response:
        svc = self.svc()
        game = self._game(request.path_params["game"])
        ctx = pages.public(svc, game, None, _number(request, "upto"))  # the state decoded only if not kept
        return self.html("game", ctx)

    def seat_page(self, request: Request, notice: dict | None = None, typed: str = "",
                  status: int = 200) -> Response:
        svc = self.svc()
        game = self._game(request.path_params["game"])
        seat = self._seat(game, request.path_params["secret"])
        browser = request.cookies.get(forms.COOKIE) or forms.new_browser_id()
        ctx = pages.private(svc, game, svc.engine.decode(game["state"]), seat, _number(request, "upto"))
        done = _number(request, "done")
        if notice is None and done:
            notice = _outcome(svc, seat, done)
        ctx.update(notice=notice, typed=typed, csrf=links.csrf_token(svc, seat, browser),
                   form_id=forms.new_browser_id(), max_upload_kb=forms.max_upload(svc) // 1024)
        response = self.html("seat", ctx, status, headers={"cache-control": "no-store"})
        if request.cookies.get(forms.COOKIE) != browser:
            response.set_cookie(forms.COOKIE, browser, max_age=365 * 86400, path="/", httponly=True,
                                samesite="strict", secure=(links.base_url(svc) or "").startswith("https:"))
        return response

    def seat_post(self, request: Request, form) -> Response:
        svc = self.svc()
        game = self._game(request.path_params["game"])
        seat = self._seat(game, request.path_params["secret"])
        typed = forms.field(form, "lines")
        try:
            forms.check_csrf(svc, seat, request.cookies.get(forms.COOKIE), forms.field(form, "csrf"))
            asked = forms.open_question(svc, svc.engine.decode(game["state"]), seat["name"])
            forms.check_fresh(asked, forms.field(form, "prompt"))
            action = forms.field(form, "action")
            if action == "upload":
                upload = form.get("turnfile")
                if upload is None or not getattr(upload, "filename", None):
                    raise forms.Refused(_("Choose a turn file to upload first."))
                data = upload.file.read(forms.max_upload(svc) + 1)
                name = forms.file_name(upload.filename)
                result = forms.send(svc, seat, forms.upload(svc, seat, name, data), name, forms.field(form, "form"))
            elif action in ("lines", "button"):
                lines = (forms.text_lines(asked, typed) if action == "lines"
                         else forms.button_lines(asked, forms.field(form, "key")))
                result = forms.answer(svc, seat, lines, forms.field(form, "form"))
            else:
                raise forms.Refused(_("The form sent nothing this page knows."))
        except forms.Refused as e:
            return self.seat_page(request, {"ok": False, "text": str(e), "detail": None}, typed, status=e.status)
        if result.status in ("refused", "rejected", "error"):  # the page shows why, and keeps the text
            return self.seat_page(request, _notice(result.status, result.said or result.outcome), typed, status=422)
        return RedirectResponse(f"{links.seat_path(svc, seat)}?done={result.inbox_id}", status_code=303)

    def calendar_feed(self, request: Request) -> Response:
        """A seat's deadlines as a calendar to subscribe to (pbem/outbound/calendar.py), at a
        secret of its own (pbem/outbound/links.py `calendar_secret`)."""
        svc = self.svc()
        game = self._game(request.path_params["game"])
        seat = self._seat(game, request.path_params["secret"], links.calendar_secret)
        text = calendar.feed(svc, game, seat["name"], reports.game_address(svc, game), svc.engine.decode(game["state"]))
        return Response(text, media_type="text/calendar; charset=utf-8", headers={"cache-control": "no-store"})

    def healthz(self, request: Request) -> Response:
        """For monitoring (README, Deployment): 200 when all is well, 503 when not; counts only
        (pbem/core/health.py `public`: no path, host, process or error text)."""
        svc = self.svc()
        report = health.public(health.report(svc.settings, svc))
        return JSONResponse(report, status_code=200 if report["ok"] else 503, headers={"cache-control": "no-store"})

    def replay_file(self, request: Request) -> Response:
        svc = self.svc()
        game = self._game(request.path_params["game"])
        if game["status"] != "ended":
            raise HTTPException(404, _("The replay opens when the game is over."))
        name = request.path_params.get("page") or "index.html"
        folder = web_replay.folder(svc, game)
        path = folder / name
        media = web_replay.media_type(name)
        if "/" in name or media is None or not path.is_file():
            raise HTTPException(404, _("There is no such page of the replay."))
        return FileResponse(path, media_type=media, headers={"content-security-policy": web_replay.CSP})


def _plain(text: str, longest: int) -> bool:
    """A path part that can name something: printable ASCII, not too long (a store is never
    asked about a NUL, a 5,000-character id or a character its text type refuses)."""
    return 0 < len(text) <= longest and text.isascii() and text.isprintable()


MOST_MOVES = 10**9  # no game has as many: a number longer than this is no move


def _number(request: Request, name: str) -> int | None:
    """A move or message number from the query (`?upto=`, `?done=`); absent: None. Anything but
    plain ASCII digits (`²`, a 5,000-digit number) is a 400, not a crash."""
    value = request.query_params.get(name)
    if not value:
        return None
    if not (value.isascii() and value.isdigit()) or len(value) > len(str(MOST_MOVES)):
        raise HTTPException(400, _("?%(name)s= takes a move number.", name=name))
    return int(value)


WORDS = {"applied": N_("Your answers were applied."), "partial": N_("Some of your answers were applied."),
         "checked": N_("Checked: nothing was applied."),
         "duplicate": N_("This was sent already: it was not applied twice.")}


def _notice(status: str, outcome: str) -> dict:
    """What the page says about a message it sent (a process.Result's status and outcome)."""
    return {"ok": status in ("applied", "checked", "duplicate"),
            "text": _(WORDS.get(status, N_("Nothing was applied."))), "detail": outcome}


def _outcome(svc: Service, seat: dict, inbox_id: int) -> dict | None:
    """What became of a message this seat sent from the page (only its own)."""
    row = svc.store.inbox(inbox_id)
    if not row or (row["game"], row["player"]) != (seat["game"], seat["name"]) or row["source"] != "web":
        return None
    outcome = row["outcome"] or row["status"]
    return _notice(outcome.partition(":")[0], outcome)


def create_app(opener: Callable) -> ASGIApp:
    """The application; `opener()` makes a Service (one per worker thread)."""
    web = Web(opener)

    def sync(method):
        def in_language(request: Request, *form):
            """In the language the browser asks for (a seat's page: the seat's, `Web._seat`)."""
            with i18n.using(i18n.preferred(request.headers.get("accept-language"))):
                return method(request, *form)

        async def endpoint(request: Request):
            if request.method == "POST":
                form = await request.form(max_files=1, max_fields=10, max_part_size=forms.MAX_BODY + 1024)
                try:
                    return await run_in_threadpool(in_language, request, form)
                finally:
                    await form.close()
            return await run_in_threadpool(in_language, request)
        return endpoint

    async def not_found(request: Request, exc: Exception) -> HTMLResponse:
        assert isinstance(exc, HTTPException)  # registered for it alone; Starlette types handlers wider
        def page() -> str:
            with i18n.using(i18n.preferred(request.headers.get("accept-language"))):
                return render.templates(web.svc()).env.get_template("web/error.html.j2").render(
                    {"status": exc.status_code, "detail": exc.detail, "lang": i18n.current()})
        text = await run_in_threadpool(page)
        return HTMLResponse(text, status_code=exc.status_code)

    routes = [
        Route("/", sync(web.index_page)),
        Route("/g/{game}", sync(web.game_page)),
        Route("/g/{game}/s/{secret}", sync(web.seat_page), methods=["GET"]),
        Route("/g/{game}/s/{secret}", sync(web.seat_post), methods=["POST"], max_body_size=MAX_BODY),
        Route("/g/{game}/c/{secret}.ics", sync(web.calendar_feed)),
        Route("/g/{game}/replay/", sync(web.replay_file)),
        Route("/g/{game}/replay/{page}", sync(web.replay_file)),
        Route("/healthz", sync(web.healthz)),
        Route("/favicon.ico", lambda request: Response(status_code=204)),  # none: the replay's pages ask for one
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]
    return SecurityHeaders(Starlette(routes=routes, exception_handlers={HTTPException: not_found}))

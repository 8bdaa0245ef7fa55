"""`pbem serve --http`: uvicorn serving pbem/web/app.py, the daemon in a thread beside it."""
from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pbem.core.service import Service


def address(svc: Service, given: str | None) -> tuple[str, int]:
    """HOST:PORT from `--http` (a bare `--http` or none: the [http] table's, else 127.0.0.1:8080)."""
    from pbem.base.settings import HttpSettings
    http = svc.settings.http or HttpSettings()
    if not given:
        return http.host, http.port
    host, sep, port = given.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        import click
        raise click.BadParameter(f"{given!r}: give HOST:PORT, e.g. 127.0.0.1:8080", param_hint="--http")
    return host.strip("[]") or http.host, int(port)


def _server(config, stop: threading.Event):
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's, but a signal also stops the daemon, and is not raised again once the
        server stopped (uvicorn would, and the process would die before the daemon finished
        the message in hand)."""

        def handle_exit(self, sig, frame):
            stop.set()
            super().handle_exit(sig, frame)

        @contextlib.contextmanager
        def capture_signals(self):
            with super().capture_signals():
                yield
                self._captured_signals.clear()

    return Server(config)


def limits(svc: Service):
    """The [http] table's limits on slow and greedy clients (pbem/web/guard.py)."""
    from pbem.base.settings import HttpSettings
    from pbem.web import guard
    http = svc.settings.http or HttpSettings()
    return guard.Limits(header_seconds=http.header_seconds, body_seconds=http.body_seconds,
                        connections=http.connections, per_address=http.per_address)


def config(app, host: str, port: int, limits):
    """uvicorn's settings for the pages: the guarded h11 protocol within the process's open
    files, a short listen queue, no access log (a seat's page address is its secret), the
    server's own lines rate-limited."""
    import uvicorn

    from pbem.web import guard
    guard.quiet_server()
    return uvicorn.Config(app, host=host, port=port, http=guard.protocol(guard.within_files(limits)),
                          backlog=guard.BACKLOG, log_level="warning", access_log=False, server_header=False,
                          proxy_headers=False, timeout_keep_alive=5)


def serve(svc: Service, given: str | None = None) -> None:
    """The pages on HOST:PORT, and the daemon (pbem/daemon.py) in a thread beside them, until
    SIGINT or SIGTERM: the server stops taking requests, the daemon finishes what it holds."""

    from pbem import daemon
    from pbem.base import log
    from pbem.core.service import open_service
    from pbem.web.app import create_app

    host, port = address(svc, given)
    stop = threading.Event()
    app = create_app(lambda: open_service(settings=svc.settings, engine=svc.engine, clock=svc.clock))
    server = _server(config(app, host, port, limits(svc)), stop)
    ended: list[BaseException] = []

    def mail_side_run():
        try:
            asyncio.run(daemon.serve(svc, stop=stop))
        except BaseException as e:  # noqa: BLE001 -- raised again below, in the main thread
            ended.append(e)
        finally:
            server.should_exit = True  # the pages never outlive the mail side (e.g. its key was rotated away)

    mail_side = threading.Thread(target=mail_side_run, name="pbem-daemon")
    log.get().info("web pages", host=host, port=port)
    mail_side.start()
    try:
        server.run()
    finally:
        stop.set()
        mail_side.join()
    if ended:
        raise ended[0]

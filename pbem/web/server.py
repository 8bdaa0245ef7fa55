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


def serve(svc: Service, given: str | None = None) -> None:
    """The pages on HOST:PORT, and the daemon (pbem/daemon.py) in a thread beside them, until
    SIGINT or SIGTERM: the server stops taking requests, the daemon finishes what it holds."""
    import uvicorn

    from pbem import daemon
    from pbem.base import log
    from pbem.core.service import open_service
    from pbem.web.app import create_app

    host, port = address(svc, given)
    stop = threading.Event()
    app = create_app(lambda: open_service(settings=svc.settings, engine=svc.engine, clock=svc.clock))
    server = _server(uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                                    server_header=False, proxy_headers=False), stop)
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

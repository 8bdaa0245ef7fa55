"""`pbem serve --http`: uvicorn serving pbem/web/app.py, the daemon in a thread beside it."""
from __future__ import annotations

import asyncio
import threading


def address(svc, given: str | None) -> tuple[str, int]:
    """HOST:PORT from `--http` (a bare `--http` or none: the [http] table's, else 127.0.0.1:8080)."""
    from pbem.settings import HttpSettings
    http = svc.settings.http or HttpSettings()
    if not given:
        return http.host, http.port
    host, sep, port = given.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--http {given!r}: give HOST:PORT, e.g. 127.0.0.1:8080")
    return host.strip("[]") or http.host, int(port)


def serve(svc, given: str | None = None) -> None:
    """The pages on HOST:PORT, and the daemon (pbem/daemon.py) in a thread beside them, until
    SIGINT or SIGTERM (uvicorn's handlers stop the server; then the daemon is stopped)."""
    import uvicorn

    from pbem import daemon, log
    from pbem.service import open_service
    from pbem.web.app import create_app

    host, port = address(svc, given)
    stop = threading.Event()
    mail_side = threading.Thread(target=lambda: asyncio.run(daemon.serve(svc, stop=stop)), name="pbem-daemon")
    app = create_app(lambda: open_service(settings=svc.settings, engine=svc.engine, clock=svc.clock))
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                                           server_header=False, proxy_headers=False))
    log.get().info("web pages", host=host, port=port)
    mail_side.start()
    try:
        server.run()
    finally:
        stop.set()
        mail_side.join()

"""The web face (docs/web.md): `pbem serve --http HOST:PORT` serves, from the same store as
the mail side, the index of public games, each game's page, each seat's private page (where
the player answers by button, by answer lines or by an uploaded turn file) and the replay of
a finished game. Modules: links (addresses and secrets), pages (what a page shows), board
(the SVG), forms (what a page sends, into pbem/inbound/process.py), replay, app (Starlette),
server (uvicorn and the daemon). Nothing is imported here: pbem/outbound/reports.py imports links on
every mail's path."""

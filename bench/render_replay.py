"""Issue 28: the rendering of a reply on its own -- what `render.render` costs for the replies
answered mails cause, replayed from a recording, and the bytes it makes.

`record FILE`: games of several pack sets and languages (players reading English and German)
played by mail, the daemon's way (bench/answer.py's answered mails); every `render.render`
call `send_due` makes (its kind and its context, made whole) kept in FILE, in the order sent.

`replay FILE`: the recording rendered again in this process: a first pass untimed (the
templates compiled), then `--passes` passes, each with the fragment and cell caches emptied
first (the recording's order brings back the hits a daemon has: the readers of a move share
their board), the recording itself frozen out of the collector's work. Prints the CPU per
reply (median and spread of the passes) and the digest of every text and HTML part made: two
trees must print the same digest.

`compare FILE OTHER_TREE`: replay in this tree and in OTHER_TREE (a checkout of another
commit) taking turns, `--runs` processes each, niced; prints both and the ratio.

`--rows` (with each of the three): the whole reply before its file, not only its templates: every
queued outbox row `send_due` renders kept with the stored frame it names, and replayed through
`outbox.rendered` (its context made whole: views, sheets, the preview's leads; then rendered) and
`mime.message` (its bytes, a counted boundary in place of the random one, the token's marker
left in), with the digest of every text, HTML and wire. The caches a daemon keeps across
a batch only (`contexts._made_cache`) are emptied with the others before each pass.

    .venv/bin/python bench/render_replay.py record /tmp/replies.pickle [--mails 60]
    .venv/bin/python bench/render_replay.py compare /tmp/replies.pickle /tmp/base-tree [--runs 5]
    .venv/bin/python bench/render_replay.py record /tmp/rows.pickle --rows; ... compare --rows ...
"""
from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

TREE = Path(os.environ.get("RENDER_TREE") or Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(TREE))
sys.path.insert(1, str(Path(__file__).resolve().parent))

SETS = [([], "en"), (["city"], "de"), (["dungeon"], "en"), (["cataclysm"], "de"),
        (["city", "dungeon", "deep-realms"], "en"), (["lost-realms"], "de"), (["city", "dungeon"], "de")]


def record(path: Path, mails: int, salt: str = "", english: bool = False, rows: bool = False) -> None:
    import asyncio

    import msgspec
    from pipeline import PLAYERS, Games

    from pbem.base import log, settings as settings_mod
    from pbem.core.service import open_service
    from pbem.inbound.process import handle
    from pbem.moderate import newgame
    from pbem.outbound import render, sending

    log.configure("json", "warning")
    calls: list[tuple[str, dict]] = []
    real = render.render

    def kept(svc, name, ctx):
        calls.append((name, pickle.loads(pickle.dumps(ctx))))
        return real(svc, name, ctx)
    if rows:  # the queued rows instead, each with the frame it names
        real_rows = sending.rendered

        def kept_row(svc, row, frames=None):
            board = msgspec.json.decode(row["context"]).get("board") if row.get("context") else None
            stored = board.get("stored") if isinstance(board, dict) else None
            calls.append((dict(row), {stored: svc.store.frame(stored)} if stored is not None else {}))
            return real_rows(svc, row, frames)
        sending.rendered = kept_row
    else:
        render.render = kept
    for n, (packs, lang) in enumerate(SETS):
        with tempfile.TemporaryDirectory() as home:
            svc = open_service(settings=settings_mod.Settings(home=home, db="pbem.db", mails_per_hour=10 ** 9))

            class Set(Games):
                def new(self, packs=packs, lang=lang, n=n):
                    self.n += 1
                    players = [{"name": p, "email": e, **({"language": lang} if i % 2 and not english else {})}
                               for i, (p, e) in enumerate(PLAYERS)]
                    self.game = newgame.create(self.svc, {
                        "game": {"name": f"replay-{n}-{self.n}", "address": "talisman@example.org",
                                 "seed": f"render-replay-seed{salt}-{n}-{self.n}", "moderator": "mod@example.org",
                                 "packs": packs},
                        "players": players, "observers": [{"name": "watcher", "email": "w@example.org"}]})
                    self.tokens = {p: self.svc.token(self.svc.store.player(self.game, p)) for p, _ in PLAYERS}
            try:
                g = Set(svc)
            except Exception as e:  # a pack set this config cannot start: said, skipped
                print(f"{packs} {lang}: skipped ({e})", file=sys.stderr)
                continue
            loop, sender = asyncio.new_event_loop(), sending.sender_for(svc.settings)
            loop.run_until_complete(sending.send_due(svc, sender))
            for _ in range(mails):
                result = handle(svc, g.next_mail())
                assert result.status == "applied", result.outcome
                loop.run_until_complete(sending.send_due(svc, sender))
            loop.close()
            print(f"{packs} {lang}: {len(calls)} renders so far", file=sys.stderr)
    path.write_bytes(pickle.dumps(calls))


def _clear(render) -> None:
    """The caches a tree keeps, emptied, where it keeps them."""
    render._fragments.clear()
    render._cells.clear()
    render._wrapped.cache_clear()
    getattr(render, "_said", {}).clear()
    if hasattr(render.boardmap, "_printed"):
        render.boardmap._printed.cache_clear()
    from pbem.outbound import contexts
    getattr(contexts, "_made_cache", {}).clear()


def _whole(svc, outbox, mime, row: dict, frames: dict) -> tuple[str, str, bytes]:
    """A queued row as `send_due` renders it, and its bytes (the marker in place of the token)."""
    done = outbox.rendered(svc, row, dict(frames))
    return done["text"], done["html"] or "", mime.message(json.loads(done["headers"]), done["text"], done["html"])


def replay(path: Path, passes: int, rows: bool = False) -> None:
    from pbem.base import settings as settings_mod
    from pbem.core.service import open_service
    from pbem.outbound import mime, outbox, render

    render.PACKAGED = TREE / "templates"  # the editable install maps pbem.templates to its own checkout
    assert Path(render.__file__).is_relative_to(TREE), render.__file__
    calls = pickle.loads(path.read_bytes())
    gc.collect()
    gc.freeze()  # the recording's objects out of the collector's counts: a daemon does not hold them
    with tempfile.TemporaryDirectory() as home:
        svc = open_service(settings=settings_mod.Settings(home=home, db="pbem.db"))
        digest = hashlib.sha256()
        if rows:
            counted = iter(range(10 ** 9))
            mime.secrets = types.SimpleNamespace(token_hex=lambda n: f"{next(counted):0{2 * n}d}")
            one = lambda a, b: _whole(svc, outbox, mime, a, b)  # noqa: E731
        else:
            one = lambda a, b: (*render.render(svc, a, b), b"")  # noqa: E731
        for a, b in calls:  # untimed: compiled, and the bytes
            text, html, wire = one(a, b)
            digest.update(text.encode() + b"\0" + html.encode() + b"\0" + wire + b"\0")
        times = []
        for _ in range(passes):
            _clear(render)
            c0 = time.process_time()
            for a, b in calls:
                one(a, b)
            times.append((time.process_time() - c0) / len(calls) * 1e6)
    print(f"{statistics.median(times):.0f} {min(times):.0f} {max(times):.0f} {len(calls)} {digest.hexdigest()}")


def compare(path: Path, other: Path, runs: int, passes: int, rows: bool = False) -> None:
    out: dict[str, list[list[str]]] = {"before": [], "after": []}
    for _ in range(runs):
        for label, tree in (("before", other), ("after", TREE)):
            env = {**os.environ, "RENDER_TREE": str(tree)}
            got = subprocess.run(["nice", sys.executable, __file__, "replay", str(path), "--passes", str(passes),
                                  *(["--rows"] if rows else [])],
                                 env=env, capture_output=True, text=True, check=True).stdout.split()
            out[label].append(got)
            print(label, " ".join(got[:3]), "us a reply (median min max)", got[4][:16], flush=True)
    for label, got in out.items():
        print(f"{label}: medians {', '.join(g[0] for g in got)} us; digest {sorted({g[4][:16] for g in got})}")
    b = statistics.median(float(g[0]) for g in out["before"])
    a = statistics.median(float(g[0]) for g in out["after"])
    print(f"after / before: {a / b:.2f} ({a:.0f} / {b:.0f} us a reply, {out['after'][0][3]} replies)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("record", "replay", "compare"))
    ap.add_argument("file", type=Path)
    ap.add_argument("other", type=Path, nargs="?")
    ap.add_argument("--mails", type=int, default=40, help="answered mails a pack set (record)")
    ap.add_argument("--salt", default="", help="in every game's seed (record): other games, other positions")
    ap.add_argument("--english", action="store_true", help="every reader reads English (record)")
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--rows", action="store_true", help="the whole reply: context made, rendered, its bytes")
    a = ap.parse_args()
    if a.what == "record":
        record(a.file, a.mails, a.salt, a.english, a.rows)
    elif a.what == "replay":
        replay(a.file, a.passes, a.rows)
    else:
        compare(a.file, a.other, a.runs, a.passes, a.rows)


if __name__ == "__main__":
    main()

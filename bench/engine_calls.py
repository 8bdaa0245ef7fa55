"""Issue 28: the engine's share of an answered mail -- the engine calls the service makes for one
answer, replayed over the positions of recorded games, for today's engine against an older one.

The positions: every state where one player (not the moderator) is asked, along a six-player
base game played as bench/answer.py plays it (the first legal answer) and random bot games
(pbem/bot.py) of six players in three sets of packs. They are recorded once, by today's engine,
as encoded states with the move played next; each side decodes them with its own engine.

Per position, "mail" replays what pbem does for one answered mail (bench/answer.py's profile):
the state decoded (the answer is read), the move applied, the new state encoded and hashed,
decoded twice more (the replies' contexts), its public view and three readers' views, the
summary, and the preview of the next asked reader's answers. Each call is also timed apart
(`preview`, `view`: a reader's and the spectator's, `apply`, `decode3`: a state encoded then
decoded three times, `hash`, `summary`). A call that keeps results between calls (a decode
cache) starts each pass empty (`api.forget()` where the engine has it).

`--tree DIR` times an older engine compiled in DIR against today's, a fresh process of each in
every round, each first in turn; both must give the same results (a digest per kind of call):

    git archive OLD engine tools setup.py pyproject.toml | tar -x -C DIR
    (cd DIR && /work/.../.venv/bin/python tools/compile_engine.py)
    nice .venv/bin/python bench/engine_calls.py --tree DIR [--rounds 5] [--per-round 3]

Without `--tree`, today's engine alone. CPU time (this process) per call, median and spread
(lowest..highest) over the rounds; a round keeps the median of its `--per-round` passes.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_SIDE = sys.argv[sys.argv.index("--side") + 1] if "--side" in sys.argv else None
sys.path.insert(0, _SIDE or str(REPO))  # a `--tree` side: that engine first on the path

import msgspec  # noqa: E402

SPECTATOR = "*spectator"  # pbem/outbound/contexts.py
PACK_SETS = ([], ["cataclysm", "lost-realms"], ["timescape"])
PLAYERS = [{"name": f"p{i}"} for i in range(6)]


def record(moves: int) -> list[list]:
    """[state, reader, move key, prompt id] of every position, the state encoded."""
    from engine import api
    from pbem import bot
    out = []

    def keep(state, move):
        asked = state.prompt.players if state.prompt else []
        if len(asked) == 1 and asked[0] != api.MODERATOR:
            out.append([api.encode(state), asked[0], move.key, move.prompt])

    state = api.new_game({"players": PLAYERS}, "bench-calls-answer")
    for _ in range(moves):  # bench/answer.py's game: the first legal answer, the moderator skips
        if state.over:
            break
        move = api.legal_moves(state)[0]
        if move.player == api.MODERATOR:
            move = api.Move(move.player, "skip", move.prompt)
        keep(state, move)
        state, _ = api.apply(state, move)
    for n, packs in enumerate(PACK_SETS):
        state, rnd = api.new_game({"players": PLAYERS, "packs": packs}, f"bench-calls-{n}"), random.Random(n)
        for _ in range(moves):
            move = bot.choose(state, rnd)
            if move is None or state.over:
                break
            keep(state, move)
            state, _ = api.apply(state, move)
    return out


def side(corpus_file: str, per_round: int) -> None:
    """One process's part of a round: per kind of call, its results' digest and each pass's CPU
    seconds per call, as JSON."""
    from engine import api
    rows = msgspec.msgpack.decode(Path(corpus_file).read_bytes())
    states = [api.decode(r[0]) for r in rows]
    moves = [api.Move(r[1], r[2], r[3]) for r in rows]
    readers = [r[1] for r in rows]
    names = [[p.name for p in s.players] for s in states]
    forget = getattr(api, "forget", lambda: None)

    def mail(i: int) -> list:
        s = api.decode(rows[i][0])
        new, events = api.apply(s, moves[i])
        blob = api.encode(new)
        h = api.state_hash(new)
        again = [api.decode(blob), api.decode(blob)]
        nxt = api.prompts(new)
        asked = nxt[0].players if nxt else []
        reader = asked[0] if len(asked) == 1 and asked[0] != api.MODERATOR else None
        others = [n for n in names[i] if n != reader][:3 if reader is None else 2]
        views = [api.view(again[0], who) for who in [SPECTATOR, *([reader] if reader else []), *others]]
        out = [blob, h, [str(e) for e in events], views, api.summary(again[1])]
        if reader is not None:
            out.append(api.preview(again[1], reader))
        return out

    def decode3(i: int) -> list:
        blob = api.encode(states[i])
        return [api.decode(blob), api.decode(blob), api.decode(blob)]

    calls = {
        "mail": (mail, 1),
        "preview": (lambda i: api.preview(states[i], readers[i]), 1),
        "view": (lambda i: [api.view(states[i], readers[i]), api.view(states[i], SPECTATOR)], 2),
        "apply": (lambda i: api.apply(states[i], moves[i]), 1),
        "decode3": (decode3, 3),
        "hash": (lambda i: api.state_hash(states[i]), 1),
        "summary": (lambda i: api.summary(states[i]), 1),
    }
    out: dict = {"file": api.__file__, "calls": len(rows), "kinds": {}}
    for kind, (fn, per) in calls.items():
        forget()
        got = repr([fn(i) for i in range(len(rows))])
        if kind == "apply":
            got = repr([(api.encode(new), [repr(e) for e in ev]) for new, ev in (fn(i) for i in range(len(rows)))])
        digest = hashlib.sha256(got.encode()).hexdigest()
        cpu = []
        for _ in range(per_round):
            forget()
            c0 = time.process_time()
            for i in range(len(rows)):
                fn(i)
            cpu.append((time.process_time() - c0) / (len(rows) * per))
        out["kinds"][kind] = {"digest": digest, "cpu": cpu}
    print(json.dumps(out))


def run_side(where: str, corpus_file: str, per_round: int) -> dict:
    done = subprocess.run([sys.executable, __file__, "--side", where, "--corpus", corpus_file,
                           "--per-round", str(per_round)], capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{where}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def spread(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e6:8.1f} us  ({min(values) * 1e6:.1f}..{max(values) * 1e6:.1f})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--per-round", type=int, default=3)
    ap.add_argument("--moves", type=int, default=150, help="moves of each recorded game")
    ap.add_argument("--tree", help="a folder holding an older engine, compiled: timed against today's")
    ap.add_argument("--side", help=argparse.SUPPRESS)
    ap.add_argument("--corpus", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.side:
        side(args.corpus, args.per_round)
        return
    sides = {"old": args.tree, "new": str(REPO)} if args.tree else {"new": str(REPO)}
    with tempfile.NamedTemporaryFile(suffix=".msgpack") as f:
        f.write(msgspec.msgpack.encode(record(args.moves)))
        f.flush()
        got: dict[str, dict[str, list[float]]] = {name: {} for name in sides}
        digests: dict[str, set] = {}
        for n in range(args.rounds):
            for name, where in (list(sides.items()) if n % 2 == 0 else list(sides.items())[::-1]):  # each first in turn
                one = run_side(where, f.name, args.per_round)
                if not one["file"].endswith(".so"):
                    print(f"warning: {where}: the engine is not compiled ({one['file']})", file=sys.stderr)
                for kind, k in one["kinds"].items():
                    got[name].setdefault(kind, []).append(statistics.median(k["cpu"]))
                    digests.setdefault(kind, set()).add(k["digest"])
        calls = one["calls"]
    differ = [kind for kind, d in digests.items() if len(d) > 1]
    print(f"{calls} positions, {args.rounds} rounds of {args.per_round} passes; CPU per call, median (spread)")
    if differ:
        raise SystemExit(f"the two engines' results differ: {', '.join(differ)}")
    if args.tree:
        print("the same results from both engines (a digest per kind of call)")
    for kind in got["new"]:
        line = "  ".join(f"{name} {spread(got[name][kind])}" for name in sides)
        if args.tree:
            ratios = [n / o for n, o in zip(got["new"][kind], got["old"][kind])]
            line += f"  new/old {statistics.median(ratios):.2f} ({min(ratios):.2f}..{max(ratios):.2f})"
        print(f"{kind:8} {line}")


if __name__ == "__main__":
    main()

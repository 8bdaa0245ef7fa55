"""The cost of `engine.api.preview` (engine/preview.py), which the service asks for every
report (pbem/outbound/leads.py): the preview of today's engine against an older one's, on the
same positions, taking turns in each round.

The positions are those of random games (the bots of pbem/bot.py, three sets of packs) where
one player is asked: the reader the preview is for. The older preview is engine/preview.py as
it stood at `--old` (git show), run as a module of its own against today's engine; before
timing, both must give the same outcome on every position. A round previews every position
with each, in turn, `--per-round` times and keeps the medians; a call's cost is a round's
median over the number of positions. CPU time (this process) beside wall time, medians and
the spread over `--rounds` rounds:

    .venv/bin/python bench/preview.py [--rounds 7] [--per-round 3] [--old e892437] [--interpreted]
    PBEM_PURE=1 .venv/bin/python bench/preview.py     # the engine from its sources

A change made for the compiled engine shows only there: `--tree DIR` times today's compiled
engine against an older one compiled in DIR, each round in a fresh process of each (their
outcomes' digests must agree):

    git archive OLD engine tools setup.py pyproject.toml | tar -x -C DIR
    (cd DIR && /work/.../.venv/bin/python tools/compile_engine.py)
    .venv/bin/python bench/preview.py --tree DIR
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import subprocess
import sys
import types
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
_SIDE = sys.argv[sys.argv.index("--side") + 1] if "--side" in sys.argv else None
if _SIDE:  # a process of `--tree`'s: this engine (DIR's or today's) first on the path
    sys.path.insert(0, _SIDE)

import timing

from engine import api, preview, registry
from pbem import bot

PLAYERS = [{"name": "alice", "character": "wizard"}, {"name": "bob", "character": "priest"}, {"name": "carol"}]
PACKS = ([], ["cataclysm", "lost-realms"], ["timescape"])


def positions(moves: int) -> list[tuple]:
    """(state, the one player asked, the game's packs as hooks) along one bot game per set of packs."""
    out = []
    for n, packs in enumerate(PACKS):
        state = api.new_game({"players": PLAYERS, "packs": packs}, f"bench-preview-{n}")
        out += [(at, reader, registry.hooks(at.packs, ()))
                for at, reader in bot.asked_alone(state, random.Random(n), moves)]
    return out


def older(rev: str | None) -> types.ModuleType:
    """engine/preview.py at `rev` (None: as it is in the tree), as a module beside today's (it
    imports today's engine): run from its source, not compiled."""
    src = ((REPO / "engine" / "preview.py").read_text() if rev is None else
           subprocess.run(["git", "show", f"{rev}:engine/preview.py"], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout)
    module = types.ModuleType(f"preview_{rev or 'tree'}")
    exec(compile(src, f"{rev or 'tree'}:engine/preview.py", "exec"), module.__dict__)  # noqa: S102 -- our own code
    return module


def side(moves: int, per_round: int) -> None:
    """One process's part of a `--tree` round: the outcomes' digest, and each pass's CPU and wall
    seconds, as JSON."""
    corpus = positions(moves)
    digest = hashlib.sha256(repr([preview.outcomes(s, p, h) for s, p, h in corpus]).encode()).hexdigest()
    got = [timing.timed(lambda: [preview.outcomes(s, p, h) for s, p, h in corpus]) for _ in range(per_round)]
    print(json.dumps({"file": preview.__file__, "digest": digest, "calls": len(corpus),
                      "cpu": [g.cpu for g in got], "wall": [g.wall for g in got]}))


def trees(tree: str, args: argparse.Namespace) -> None:
    """Today's compiled engine against the one compiled in `tree`, a process of each a round."""
    got: dict[str, list[timing.Sample]] = {"old": [], "new": []}
    digests, calls = set(), 0
    for _ in range(args.rounds):
        for name, where in (("old", tree), ("new", str(REPO))):
            run = subprocess.run([sys.executable, __file__, "--side", where, "--moves", str(args.moves),
                                  "--per-round", str(args.per_round)], capture_output=True, text=True, check=True)
            one = json.loads(run.stdout.splitlines()[-1])
            if not one["file"].endswith(".so"):
                raise SystemExit(f"{where}: the engine is not compiled ({one['file']})")
            digests.add(one["digest"])
            calls = one["calls"]
            got[name].append(timing.Sample(statistics.median(one["cpu"]), statistics.median(one["wall"])))
    if len(digests) != 1:
        raise SystemExit("the two engines' previews differ")
    print(f"{calls} positions, the same outcomes from both (digest {digests.pop()[:16]})")
    for name in ("old", "new"):
        print(timing.report(f"{name} ({tree if name == 'old' else 'today'}), a call", got[name], 1e6 / calls, " us"))
    print(timing.ratio("new / old", got["new"], got["old"]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--per-round", type=int, default=3)
    ap.add_argument("--moves", type=int, default=200, help="moves of each bot game the positions come from")
    ap.add_argument("--old", default="e892437", help="the commit whose engine/preview.py is the reference")
    ap.add_argument("--interpreted", action="store_true",
                    help="today's preview.py run from its source too, as the older one is: the ratio is the change's "
                         "alone (by default today's is the compiled module, when built)")
    ap.add_argument("--tree", help="a folder holding an older engine, compiled: timed against today's compiled one")
    ap.add_argument("--side", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.side:
        side(args.moves, args.per_round)
        return
    if args.tree:
        trees(args.tree, args)
        return
    old = older(args.old)
    new = older(None) if args.interpreted else preview
    corpus = positions(args.moves)
    differ = [p for s, p, h in corpus if old.outcomes(s, p, h) != new.outcomes(s, p, h)]
    if differ:
        raise SystemExit(f"the previews differ on {len(differ)} of {len(corpus)} positions")
    print(f"{len(corpus)} positions, the same outcomes from both; engine build: {api.__file__}; "
          f"today's preview: {'from its source' if args.interpreted else preview.__file__}")

    def each(fn):
        return lambda: timing.timed(lambda: [fn(s, p, h) for s, p, h in corpus])

    got = timing.rounds({"old": each(old.outcomes), "new": each(new.outcomes)}, args.rounds, args.per_round)
    per_call = 1e6 / len(corpus)
    for name in ("old", "new"):
        print(timing.report(f"{name} ({args.old if name == 'old' else 'today'}), a call", got[name], per_call, " us"))
    print(timing.ratio("new / old", got["new"], got["old"]))


if __name__ == "__main__":
    main()

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
"""
from __future__ import annotations

import argparse
import random
import subprocess
import sys
import types
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import timing

from engine import api, preview, registry
from pbem import bot

PLAYERS = [{"name": "alice", "character": "wizard"}, {"name": "bob", "character": "priest"}, {"name": "carol"}]
PACKS = ([], ["cataclysm", "lost-realms"], ["timescape"])


def positions(moves: int) -> list[tuple]:
    """(state, the one player asked, the game's packs as hooks) along one bot game per set of packs."""
    out = []
    for n, packs in enumerate(PACKS):
        rnd = random.Random(n)
        state = api.new_game({"players": PLAYERS, "packs": packs}, f"bench-preview-{n}")
        for _ in range(moves):
            move = bot.choose(state, rnd)
            if move is None:
                break
            asked = state.prompt.players if state.prompt else []
            if len(asked) == 1 and asked[0] != api.MODERATOR:
                out.append((state, asked[0], registry.hooks(state.packs, ())))
            state, _ = api.apply(state, move)
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--per-round", type=int, default=3)
    ap.add_argument("--moves", type=int, default=200, help="moves of each bot game the positions come from")
    ap.add_argument("--old", default="e892437", help="the commit whose engine/preview.py is the reference")
    ap.add_argument("--interpreted", action="store_true",
                    help="today's preview.py run from its source too, as the older one is: the ratio is the change's "
                         "alone (by default today's is the compiled module, when built)")
    args = ap.parse_args()
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

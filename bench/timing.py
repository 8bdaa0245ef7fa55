"""What every bench times with: CPU time beside wall time, the reference run in short
rounds interleaved with the measured work (so a busy neighbour on a shared machine slows
both alike), and medians with the spread over the rounds.

A round runs each piece of work a few times and keeps its median; the ratio of a round is
taken between medians of the same round; the result is the median of the rounds' ratios,
with their lowest and highest: a figure decides only if its spread does.
"""
from __future__ import annotations

import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

# A bench plays a game's mails in seconds, faster than any seat may write (mails_per_hour):
# its homes lift the limit, and still pay for counting against it.
UNLIMITED = 10**9


class Sample:
    """One run's CPU seconds (user + system) and wall seconds."""
    __slots__ = ("cpu", "wall")

    def __init__(self, cpu: float, wall: float):
        self.cpu, self.wall = cpu, wall


def timed(fn: Callable[[], object]) -> Sample:
    """`fn` run once in this process."""
    c0, w0 = time.process_time(), time.perf_counter()
    fn()
    return Sample(time.process_time() - c0, time.perf_counter() - w0)


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def process(cmd: list[str], stdin: bytes = b"", env: dict | None = None, cwd=None,
            ok: tuple[int, ...] = (0,)) -> Sample:
    """`cmd` run as a new process, timed as a whole (start-up, imports and exit included);
    it must exit with a code of `ok`."""
    c0, w0 = _children_cpu(), time.perf_counter()
    done = subprocess.run(cmd, input=stdin, env=env, cwd=cwd, capture_output=True, check=False)
    sample = Sample(_children_cpu() - c0, time.perf_counter() - w0)
    if done.returncode not in ok:
        raise SystemExit(f"{' '.join(map(str, cmd))} exited {done.returncode}: {done.stderr.decode()[-600:]}")
    return sample


def floor_path() -> Path:
    """../shared/bench/floor.py, seen from the checkout or from a worktree below it."""
    here = Path(__file__).resolve().parent.parent
    for up in here.parents:
        if (up / "shared" / "bench" / "floor.py").is_file():
            return up / "shared" / "bench" / "floor.py"
    return here.parent / "shared" / "bench" / "floor.py"


def floor_round(path, moves: int) -> Sample:
    """The floor (../shared/bench/floor.py) for `moves` moves in this process, per move: its
    own code, run with N = `moves` and cut before its summary, timed as a whole (its setup,
    a few milliseconds, is shared out over the moves)."""
    src = Path(path).read_text()
    src = src.replace("N = 1 if ONCE else 2000", f"N = {int(moves)}").split("ts.sort()")[0]
    code = compile(src, str(path), "exec")
    import types
    module = sys.modules["floor_round"] = types.ModuleType("floor_round")  # msgspec reads its Structs' module
    argv, sys.argv = sys.argv, [str(path)]  # not --once
    try:
        sample = timed(lambda: exec(code, module.__dict__))  # noqa: S102 -- the shared floor's own code
    finally:
        sys.argv = argv
        del sys.modules["floor_round"]
        _drop_floor_folder(module.__dict__)
    return Sample(sample.cpu / moves, sample.wall / moves)


def _drop_floor_folder(floor: dict) -> None:
    """The floor's database closed and its temporary folder removed: the floor makes one a run
    and leaves it (a bench of 9 rounds left 9 behind; thousands of them in /tmp made each new
    file there, as the benches' .eml, cost several times more)."""
    if floor.get("db") is not None:
        floor["db"].close()
    if isinstance(floor.get("d"), str) and Path(floor["d"]).name.startswith("tmp"):
        shutil.rmtree(floor["d"], ignore_errors=True)


def rounds(work: dict[str, Callable[[], Sample]], n_rounds: int, per_round: int) -> dict[str, list[Sample]]:
    """Each round runs every piece of `work` `per_round` times, the pieces taking turns
    (a, b, a, b...); returns each piece's per-round medians (CPU and wall)."""
    out: dict[str, list[Sample]] = {name: [] for name in work}
    for _ in range(n_rounds):
        got: dict[str, list[Sample]] = {name: [] for name in work}
        for _ in range(per_round):
            for name, fn in work.items():
                got[name].append(fn())
        for name, samples in got.items():
            out[name].append(Sample(statistics.median(s.cpu for s in samples),
                                    statistics.median(s.wall for s in samples)))
    return out


def spread(values: list[float], scale: float = 1.0, unit: str = "", digits: int = 0) -> str:
    """'median (low-high over n)'."""
    v = sorted(x * scale for x in values)
    return (f"{statistics.median(v):.{digits}f}{unit} ({v[0]:.{digits}f}-{v[-1]:.{digits}f} over {len(v)})")


def report(name: str, samples: list[Sample], scale: float = 1e3, unit: str = " ms") -> str:
    """One line: CPU and wall medians with their spread."""
    return (f"{name}: CPU {spread([s.cpu for s in samples], scale, unit, 1)}, "
            f"wall {spread([s.wall for s in samples], scale, unit, 1)}")


def ratio(name: str, measured: list[Sample], reference: list[Sample], target: float | None = None) -> str:
    """The rounds' CPU ratios measured / reference (and wall's), with the target if any."""
    cpu = [m.cpu / r.cpu for m, r in zip(measured, reference)]
    wall = [m.wall / r.wall for m, r in zip(measured, reference)]
    verdict = ""
    if target is not None:
        met = "met" if max(cpu) <= target else "met at the median" if statistics.median(cpu) <= target else "NOT met"
        verdict = f"; target <= {target}x: {met}"
    return f"{name}: CPU {spread(cpu, 1, 'x', 2)}, wall {spread(wall, 1, 'x', 2)}{verdict}"

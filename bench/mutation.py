"""Mutation testing of the whole engine (engine/, the rules and the packs included) against the
engine-facing tests of the default run, on a seeded random sample of mutants. Too slow for CI
(tens of minutes on two cores); run by hand, see bench/README.md:

    .venv/bin/python bench/mutation.py [--seed 13] [--sample 300] [--commit HEAD]
    .venv/bin/python bench/mutation.py --report        # print the last campaign's result again
    .venv/bin/python bench/mutation.py --resume        # go on with a campaign that was stopped, and
                                                       # test its timeouts again (bench/mutmut.toml's limits)
    .venv/bin/python bench/mutation.py --resume --sample 120   # grow the sample to 120, same draw

The tool is mutmut 3 (`pip install 'mutmut==3.8.1'`). Its settings are bench/mutmut.toml. A
campaign works in a snapshot, bench/.mutation/, built afresh from a commit (`git archive`): the
work tree may hold other people's half-done edits, and mutmut copies every file of the package
it mutates, mypyc's builds included, which would shadow the mutated sources (engine/compiled.py:
without its shared library beside engine/, the builds are not set aside). PBEM_PURE=1 makes the
engine load from its Python sources regardless. `--overlay` lays files of the work tree over the
snapshot (new scenarios not yet committed, say), so the same commit's mutants can be measured
again with them: `--again --overlay tests/scenarios/new.toml` tests the last campaign's mutants
that were not killed against those files alone (the rest of the suite has already been run on
them; a killed mutant stays killed, its tests being unchanged and deterministic).

The sample is drawn with random.Random(seed) from every mutant of the commit in name order, so
the same commit and seed give the same sample; a smaller sample is the start of a larger one
(random.sample draws one name after another), so a campaign can begin with a few mutants to
time them and then grow (`--resume --sample N`) without testing those again. The score is killed / sampled; timeouts and
survivors are listed by file:line with the mutation, and written with their diffs to
--survivors (default bench/.mutation/survivors.txt).
"""
from __future__ import annotations

import argparse
import ast
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / ".mutation"
AGAIN = WORK / "again.verdicts.json"  # --again's verdicts, apart: a --resume running meanwhile rewrites campaign.json
SETTINGS = ROOT / "bench" / "mutmut.toml"
SNAPSHOT = ["engine", "pbem", "tests", "tools", "templates", "docs", "pyproject.toml"]
MUTMUT = Path(sys.executable).parent / "mutmut"
ENV = {**os.environ, "PBEM_PURE": "1"}  # the engine from its (mutated) Python sources
NICE = ["nice", "-n", os.environ.get("MUTATION_NICE", "19")]  # the machine's two cores are shared
AGAIN_TIMEOUT = 300  # seconds for one mutant against the new tests (each takes a few)
# mutmut's first step alone (the start of `mutmut run`): copy the sources into mutants/ and
# write every mutant, so that the sample can be drawn before any test runs
GENERATE = ("from mutmut.__main__ import copy_src_dir, copy_also_copy_files, setup_source_paths, "
            "create_mutants\ncopy_src_dir(); copy_also_copy_files(); setup_source_paths()\n"
            "print(create_mutants({children}))")

# --again's runner, in mutants/: each mutant in a child forked from one process that has the
# engine and pytest loaded (as mutmut runs them); a child past AGAIN_TIMEOUT is a timeout
RETEST = """
import json, os, signal, sys
sys.path.insert(0, os.getcwd())
import pytest
import engine.api, engine.scenario
job = json.load(open("../again.json"))
verdicts = {}
for name in job["names"]:
    pid = os.fork()
    if pid == 0:
        os.environ["MUTANT_UNDER_TEST"] = name
        signal.alarm(AGAIN_TIMEOUT)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        os._exit(int(pytest.main(["-x", "-q", "-p", "no:cacheprovider", *job["tests"]])))
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    verdicts[name] = {0: "survived", 1: "killed", -signal.SIGALRM: "timeout"}.get(code, f"exit {code}")
print(json.dumps(verdicts))
"""


@dataclass
class Mutant:
    name: str  # mutmut's: engine.rules.combat.x_attack__mutmut_3
    path: str  # the source, relative to the snapshot: engine/rules/combat.py
    status: str  # mutmut's word: killed, survived, timeout, no tests, ...
    line: int = 0
    change: str = ""
    diff: str = ""


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def lay_over(overlay: list[str], *folders: Path) -> None:
    for name in {n.split("::")[0] for n in overlay}:  # FILE::TEST names one test of FILE
        source = (ROOT / name).resolve()
        rel = source.relative_to(ROOT)
        for folder in folders:
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / rel)


def build_snapshot(commit: str, overlay: list[str]) -> str:
    """bench/.mutation/ afresh: the commit's sources and tests, the overlay, mutmut's settings."""
    sha = git("rev-parse", "--verify", commit + "^{commit}").strip()
    if WORK.exists():
        shutil.rmtree(WORK)
    WORK.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "--format=tar", sha, *SNAPSHOT], cwd=ROOT,
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(WORK, filter="data")
    lay_over(overlay, WORK)
    write_settings(sha)
    (WORK / "campaign.json").write_text(json.dumps({"commit": sha, "overlay": overlay}))
    return sha


def write_settings(sha: str) -> None:
    """The snapshot's pyproject.toml: the commit's, with bench/mutmut.toml's table appended
    (rewritten by --resume, so that changed timeout limits apply to the timeouts it re-tests:
    mutmut then resets its timeout verdicts, and keeps every other)."""
    pyproject = git("show", f"{sha}:pyproject.toml")
    (WORK / "pyproject.toml").write_text(pyproject + "\n" + SETTINGS.read_text())


def all_mutants() -> dict[str, str]:
    """Every generated mutant's name -> its source path, from mutmut's .meta files."""
    found = {}
    for meta in sorted((WORK / "mutants").rglob("*.py.meta")):
        path = str(meta.relative_to(WORK / "mutants"))[: -len(".meta")]
        for name in json.loads(meta.read_text())["exit_code_by_key"]:
            found[name] = path
    return found


def results(names: list[str], paths: dict[str, str]) -> list[Mutant]:
    from mutmut.stats import status_by_exit_code

    codes = {}
    for path in {paths[n] for n in names}:
        meta = json.loads((WORK / "mutants" / (path + ".meta")).read_text())
        codes.update(meta["exit_code_by_key"])
    return [Mutant(n, paths[n], status_by_exit_code[codes[n]]) for n in names]


def describe(mutant: Mutant) -> None:
    """The mutant's diff (mutmut's, of the one function), its first changed line in the
    source and the change in one line."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    from mutmut.utils.format_utils import orig_function_and_class_names_from_key

    cwd = os.getcwd()
    os.chdir(WORK)
    try:
        mutant.diff = get_diff_for_mutant(mutant.name, path=mutant.path)
    finally:
        os.chdir(cwd)
    body = mutant.diff.splitlines()[2:]
    removed = [ln[1:].strip() for ln in body if ln.startswith("-")]
    added = [ln[1:].strip() for ln in body if ln.startswith("+")]
    mutant.change = f"{' / '.join(removed) or '(nothing)'}  ->  {' / '.join(added) or '(deleted)'}"
    source = (WORK / mutant.path).read_text().splitlines()
    function, cls = orig_function_and_class_names_from_key(mutant.name)
    node = find_function(ast.parse("\n".join(source)), function, cls)
    if node is None or not removed:
        mutant.line = node.lineno if node else 0
        return
    first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
    hunk = next((ln for ln in body if ln.startswith("@@")), "@@ -1")
    guess = first + int(hunk.split()[1].lstrip("-").split(",")[0]) - 1
    offset = next(i for i, ln in enumerate(b for b in body if not b.startswith(("@@", "+")))
                  if ln.startswith("-"))
    guess += offset
    candidates = [i + 1 for i in range(first - 1, node.end_lineno or len(source))
                  if source[i].strip() == removed[0]]
    mutant.line = min(candidates, key=lambda n: abs(n - guess)) if candidates else guess


def find_function(tree: ast.Module, name: str, cls: str | None):
    body = tree.body
    if cls is not None:
        body = next((n.body for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls), [])
    return next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.name == name), None)


# --lighten: the random playouts are 94 % of the selection's time (1,306 of 1,391 s in the stats
# of d6a8ec9) and reach nearly every function, so a survivor ran them all (about 20 min under
# load). Lightened, a mutant runs one playout per pack set (three players, seed 0) besides the rest.
HEAVY = ("tests/test_playouts.py::test_cataclysm_game_plays_to_its_end", "tests/test_playouts.py::test_many_playouts",
         "tests/test_packs.py::test_the_registry_alone_imports_every_pack")
PLAYOUT = "tests/test_playouts.py::test_random_game_keeps_invariants_and_replays["


def lighten() -> None:
    """Cut the stats' tests of each function to the light set (the durations stay, so mutmut
    does not collect them again; mutmut-stats-full.json keeps the whole)."""
    stats_file = WORK / "mutants" / "mutmut-stats.json"
    stats = json.loads(stats_file.read_text())
    shutil.copy2(stats_file, stats_file.with_name("mutmut-stats-full.json"))
    light = [t for t in stats["duration_by_test"] if t not in HEAVY and (
        not t.startswith(PLAYOUT) or t[len(PLAYOUT):].split("-")[:2] == ["3", "0"])]
    keep = set(light)
    for name, tests in stats["tests_by_mangled_function_name"].items():
        stats["tests_by_mangled_function_name"][name] = [t for t in tests if t in keep]
    stats_file.write_text(json.dumps(stats))
    print(f"lightened: {len(light)} of {len(stats['duration_by_test'])} tests, "
          f"{sum(stats['duration_by_test'][t] for t in light):.0f} s of the stats' "
          f"{sum(stats['duration_by_test'].values()):.0f} s")


def again_verdicts(campaign: dict) -> dict[str, str]:
    """--again's verdicts so far (an older campaign kept them in campaign.json)."""
    kept = json.loads(AGAIN.read_text())["verdicts"] if AGAIN.is_file() else {}
    return {**campaign.get("again", {}), **kept}


def report(survivors_file: Path) -> float:
    campaign = json.loads((WORK / "campaign.json").read_text())
    names = campaign["sample"]
    mutants = results(names, all_mutants())
    for m in mutants:  # killed by --again's new tests
        if again_verdicts(campaign).get(m.name) == "killed":
            m.status = "killed"
    by_status: dict[str, list[Mutant]] = {}
    for m in mutants:
        by_status.setdefault(m.status, []).append(m)
    killed = len(by_status.get("killed", []))
    print(f"\ncommit {campaign['commit'][:12]}, seed {campaign['seed']}: {len(names)} of "
          f"{campaign['population']} mutants sampled; overlay: {campaign['overlay'] or 'none'}")
    print(f"mutation score: {killed}/{len(names)} killed = {100 * killed / len(names):.1f} %  ("
          + ", ".join(f"{len(v)} {k}" for k, v in sorted(by_status.items())) + ")")
    unchecked = len(by_status.get("not checked", []))
    if unchecked:  # a campaign stopped before its end: --resume goes on
        tested = len(names) - unchecked
        print(f"  {unchecked} not yet tested: {killed}/{tested} of those tested killed = "
              f"{100 * killed / tested:.1f} %")
    again = json.loads(AGAIN.read_text()) if AGAIN.is_file() else campaign.get("again") and {
        "overlay": campaign["again_overlay"], "seconds": campaign["again_seconds"]}
    if again:
        before = sum(m.status == "killed" and again_verdicts(campaign).get(m.name) != "killed" for m in mutants)
        print(f"before --again with {' '.join(again['overlay'])}: {before}/{len(names)} killed = "
              f"{100 * before / len(names):.1f} %; the rest re-tested in {again['seconds'] / 60:.1f} min")
    if "seconds" in campaign:
        print(f"campaign time: {campaign['seconds'] / 60:.1f} min")
    listed = [m for m in mutants if m.status not in ("killed", "not checked")]
    for m in listed:
        describe(m)
    listed.sort(key=lambda m: (m.status, m.path, m.line))
    lines = []
    for status in sorted({m.status for m in listed}):
        group = [m for m in listed if m.status == status]
        print(f"\n{status} ({len(group)}):")
        for m in group:
            print(f"  {m.path}:{m.line}  {m.change}")
            lines.append(f"{status}\t{m.path}:{m.line}\t{m.name}\t{m.change}\n{m.diff}\n")
    survivors_file.parent.mkdir(parents=True, exist_ok=True)
    survivors_file.write_text(
        f"# commit {campaign['commit']}, seed {campaign['seed']}, {len(names)} sampled, "
        f"{killed} killed; every mutant not killed, with mutmut's diff\n\n" + "\n".join(lines))
    print(f"\nwritten: {survivors_file}")
    return killed / len(names)


def draw(seed: int, paths: dict[str, str], size: int) -> list[str]:
    """The campaign's sample: `size` of every mutant's name, drawn with the seed."""
    return random.Random(seed).sample(sorted(paths), min(size, len(paths)))


def grow(campaign: dict, size: int) -> None:
    """The last campaign's sample made `size` long: the same draw, longer (its start is the sample
    already tested), as a fresh campaign of `size` would have drawn it."""
    sample = draw(campaign["seed"], all_mutants(), size)
    if sample[: len(campaign["sample"])] != campaign["sample"]:
        sys.exit("the grown sample does not begin with the campaign's: a new campaign is needed")
    print(f"the sample grows from {len(campaign['sample'])} to {len(sample)} mutants", flush=True)
    campaign["sample"] = sample
    (WORK / "campaign.json").write_text(json.dumps(campaign, indent=1))


def mutmut_run(names: list[str], children: int, log_name: str) -> None:
    with open(WORK / log_name, "w") as log:
        run = subprocess.run([*NICE, str(MUTMUT), "run", "--max-children", str(children), *names],
                             cwd=WORK, env=ENV, stdout=log, stderr=subprocess.STDOUT, check=False)
    if run.returncode != 0:
        sys.exit(f"mutmut failed ({run.returncode}); see {WORK / log_name}")


def again(args: argparse.Namespace, start: float) -> None:
    """The last campaign's mutants not killed, each against the overlay's tests alone (the rest
    of the suite has already failed to kill it), run as mutmut runs a mutant: MUTANT_UNDER_TEST
    names the mutant that the trampolines in mutants/ call."""
    campaign = json.loads((WORK / "campaign.json").read_text())
    paths = all_mutants()
    left = [m.name for m in results(campaign["sample"], paths)
            if m.status not in ("killed", "not checked")  # not checked: --resume first
            and again_verdicts(campaign).get(m.name) != "killed"
            and (not args.only or paths[m.name].startswith(tuple(args.only)))]
    if args.survivors.is_file():
        shutil.copy2(args.survivors, args.survivors.with_name(args.survivors.stem + "-before.txt"))
    lay_over(args.overlay, WORK, WORK / "mutants")
    print(f"re-testing the {len(left)} mutants not killed against {args.overlay}", flush=True)
    tests = [f"tests/test_scenarios.py::test_scenario[{Path(n).stem}]" if n.endswith(".toml") else n
             for n in args.overlay]
    names = ["", *left]  # "" first: the new tests must pass without a mutant
    (WORK / "again.json").write_text(json.dumps({"names": names, "tests": tests}))
    out = subprocess.run([*NICE, sys.executable, "-c", f"AGAIN_TIMEOUT = {AGAIN_TIMEOUT}\n{RETEST}"],
                         cwd=WORK / "mutants", env=ENV,
                         check=True, capture_output=True, text=True).stdout
    verdicts = json.loads(out.splitlines()[-1])
    if verdicts.pop("") != "survived":
        sys.exit(f"the overlay's tests fail without a mutant: {' '.join(tests)}")
    kept = json.loads(AGAIN.read_text()) if AGAIN.is_file() else {"overlay": [], "verdicts": {}, "seconds": 0}
    kept["overlay"] += args.overlay
    kept["verdicts"].update({n: v for n, v in verdicts.items() if kept["verdicts"].get(n) != "killed"})
    kept["seconds"] += round(time.monotonic() - start)
    AGAIN.write_text(json.dumps(kept, indent=1))
    report(args.survivors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=13, help="the sample's seed (default 13)")
    parser.add_argument("--sample", type=int, default=None,
                        help="mutants to test (default 300); with --resume, grow the last campaign's sample to this")
    parser.add_argument("--commit", default="HEAD", help="the commit whose sources and tests run")
    parser.add_argument("--overlay", nargs="*", default=[], metavar="PATH",
                        help="work-tree files laid over the snapshot (new scenarios); FILE::TEST: one test")
    parser.add_argument("--max-children", type=int, default=2, help="mutants tested at once")
    parser.add_argument("--survivors", type=Path, default=WORK / "survivors.txt",
                        help="where to write the mutants not killed")
    parser.add_argument("--only", nargs="*", default=[], metavar="PATH",
                        help="with --again: only the mutants of sources under these paths (engine/bots/)")
    parser.add_argument("--lighten", action="store_true",
                        help="cut each function's tests to the light set (after a stopped run's stats; then --resume)")
    parser.add_argument("--again", action="store_true",
                        help="re-test the last campaign's mutants not killed, with --overlay")
    parser.add_argument("--resume", action="store_true",
                        help="go on with the last campaign's mutants not yet tested (if it was stopped) "
                             "and test its timeouts again")
    parser.add_argument("--report", action="store_true",
                        help="only report the campaign last run in bench/.mutation/")
    args = parser.parse_args()
    if not MUTMUT.is_file():
        sys.exit(f"{MUTMUT} not found: pip install 'mutmut==3.8.1' (bench/README.md)")
    if args.report:
        report(args.survivors)
        return
    if args.lighten:
        lighten()
        return

    start = time.monotonic()
    if args.again:
        again(args, start)
        return
    if args.resume:
        campaign = json.loads((WORK / "campaign.json").read_text())
        if args.sample and args.sample > len(campaign["sample"]):
            grow(campaign, args.sample)
        # a timeout again too: on a loaded machine under nice 19, mutmut's wall-clock limit (half
        # its CPU limit) can fire on a mutant whose tests are merely slow to get the CPU
        todo = [m.name for m in results(campaign["sample"], all_mutants()) if m.status in ("not checked", "timeout")]
        write_settings(campaign["commit"])
        print(f"testing the {len(todo)} mutants of the sample not yet tested or timed out", flush=True)
        mutmut_run(todo, args.max_children, "mutmut-resume.log")
        campaign["seconds"] = campaign.get("seconds", 0) + round(time.monotonic() - start)
        (WORK / "campaign.json").write_text(json.dumps(campaign, indent=1))
        report(args.survivors)
        return
    sha = build_snapshot(args.commit, args.overlay)
    subprocess.run([*NICE, sys.executable, "-c", GENERATE.format(children=args.max_children)],
                   cwd=WORK, env=ENV, check=True, stdout=subprocess.DEVNULL)
    paths = all_mutants()
    sample = draw(args.seed, paths, args.sample or 300)
    campaign = json.loads((WORK / "campaign.json").read_text())
    campaign.update(seed=args.seed, population=len(paths), sample=sample)
    (WORK / "campaign.json").write_text(json.dumps(campaign, indent=1))
    print(f"commit {sha[:12]}: {len(paths)} mutants; testing {len(sample)} (seed {args.seed}); "
          f"mutmut's output goes to {WORK / 'mutmut.log'}", flush=True)
    mutmut_run(sample, args.max_children, "mutmut.log")
    campaign["seconds"] = round(time.monotonic() - start)
    (WORK / "campaign.json").write_text(json.dumps(campaign, indent=1))
    report(args.survivors)


if __name__ == "__main__":
    main()

"""`pbem verify`'s own ways of reading and re-running an archive (issue 28): whatever way it
takes, it checks what the plain one checks and names the same first problem."""
import json
import random
from pathlib import Path

import msgspec
import pytest
from conftest import game_config
from test_archive import _tamper, finished  # noqa: F401 -- the fixture: a finished game's archive

from engine import content
from pbem import bot
from pbem.archive import archive, verify
from pbem.core import games
from pbem.moderate import moderator, newgame
from pbem.store import _CHAINED, chain_hash


def test_checking_reads_every_top_level_key_the_export_wrote_in_one_pass(finished, monkeypatch):  # noqa: F811
    path, _ = finished
    written = json.loads(path.read_text())
    calls = []
    decode = msgspec.json.decode
    monkeypatch.setattr(msgspec.json, "decode", lambda *a, **k: calls.append(1) or decode(*a, **k))
    data = verify.read(path)
    assert len(calls) == 1  # the file's megabytes parsed once
    assert data.keys() == written.keys()
    assert {k: v for k, v in data.items() if k != "moves"} == {k: v for k, v in written.items() if k != "moves"}
    # a key it does not know is not kept, and nothing it knows is made up
    (path.parent / "lean.json").write_text(json.dumps({k: v for k, v in written.items() if k != "board"}
                                                      | {"remark": 1}))
    lean = verify.read(path.parent / "lean.json")
    assert "board" not in lean and "remark" not in lean and lean["seed"] == written["seed"]


def test_verify_leaves_the_engines_content_alone_when_the_archive_reads_the_same(finished):  # noqa: F811
    """Swapping the content overlay empties the engine's content caches (and whatever a
    daemon keys on its generation): an archive that carries the files in use keeps them."""
    path, _ = finished
    before = content.generation()
    assert verify.verify(verify.read(path)).ok
    assert content.generation() == before


def _rolled_back(svc, name: str, rollbacks: dict[int, int], bot_seed: int = 11) -> str:
    """A game played to its end by the moderator, rolled back after move n to move
    rollbacks[n] (0: the setup; a rollback may return to another rollback)."""
    gid = newgame.create(svc, game_config(name=name, seed=f"s-{name}", options={"turn_cap": 4}))
    rnd = random.Random(bot_seed)
    for n in range(1, 500):
        state = games.state(svc, games.get(svc, gid))
        if state.over:
            return gid
        move = bot.choose(state, rnd)
        assert moderator.answer(svc, gid, move.player, f"{move.prompt}: {move.key}").applied
        if n in rollbacks:
            moderator.rollback(svc, gid, rollbacks[n])
    raise AssertionError("the game did not end")


@pytest.fixture
def rolled(svc, tmp_path):
    """A finished game's archive holding rollbacks: to the setup, to a move, to a rollback."""
    gid = _rolled_back(svc, "rolled", {2: 0, 5: 3, 8: 6, 9: 7})
    path = tmp_path / "rolled.json"
    archive.save(archive.export(svc, gid), path)
    kinds = [m["kind"] for m in archive.load(path)["moves"]]
    assert [s for s, k in enumerate(kinds, 1) if k == "rollback"] == [3, 7, 11, 13]  # 13: back to 7
    return path


def _both(path: Path) -> tuple[verify.Verdict, verify.Verdict]:
    """The verdicts of the plain reading (re-run through `replay`) and of `pbem verify`'s."""
    return verify.verify(archive.load(path)), verify.verify(verify.read(path))


def test_a_checked_archive_is_rerun_by_the_fold_not_the_replay(finished, rolled, monkeypatch):  # noqa: F811
    monkeypatch.setattr(verify, "replay", lambda *a: pytest.fail("verify went through replay"))
    for path in (finished[0], rolled):
        verdict = verify.verify(verify.read(path))
        assert verdict.ok and verdict.rerun and verdict.moves == len(archive.load(path)["moves"]), verdict


def test_rollbacks_verify_the_same_through_the_fold(rolled):
    plain, checked = _both(rolled)
    assert plain.ok and plain == checked


def _rechained(data: dict) -> dict:
    """The chain made again over the moves as they now are: only the re-run can catch them."""
    prev = data["seed_commitment"]
    for row in data["moves"]:
        record = {k: row[k] for k in _CHAINED if k != "game"} | {"game": data["game"]}
        row["prev_hash"], row["hash"] = prev, chain_hash(prev, record, row["state_hash"])
        prev = row["hash"]
    return data


@pytest.mark.parametrize("seq,change,problem", [
    (3, {"line": "rollback 1"}, "state hash differs"),  # another earlier move
    (3, {"line": "rollback 3"}, "not a rollback to an earlier move: 'rollback 3'"),
    (3, {"line": "rollback x"}, "not a rollback to an earlier move: 'rollback x'"),
    (13, {"line": "rollback 12"}, "state hash differs"),  # not to the rollback (move 7) it returned to
    (7, {"kind": "move"}, "cannot be applied"),  # a rollback read as an answer
    (4, {"kind": "rollback"}, "not a rollback to an earlier move"),  # an answer read as a rollback
    (8, {"turn": 99}, "turn differs"),  # a move after a rollback
    (11, {"seq": 12}, "missing (the next move in the archive is 12)"),
])
def test_a_changed_rollback_is_caught_the_same_through_the_fold(rolled, tmp_path, seq, change, problem):
    data = json.loads(rolled.read_text())
    data["moves"][seq - 1].update(change)
    bad = tmp_path / "bad.json"
    archive.save(_rechained(data) if "seq" not in change else data, bad)
    plain, checked = _both(bad)
    assert not plain.ok and problem in plain.problem and plain.problem.startswith(f"move {seq}: ")
    assert plain == checked


@pytest.mark.parametrize("key", ["line", "state_hash", "hash", "events", "positions", "turn", "rng"])
def test_a_changed_byte_after_a_rollback_is_caught_the_same_through_the_fold(rolled, tmp_path, key):
    seq = 8  # the first answer after the rollback to the setup and one to move 3
    bad = tmp_path / "bad.json"
    bad.write_text(_tamper(rolled.read_text(), seq, key))
    plain, checked = _both(bad)
    assert not plain.ok and plain.problem.startswith(f"move {seq}: ") and plain == checked

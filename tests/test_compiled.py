"""The compiled engine (tools/compile_engine.py) and its Python sources play alike, and a
source changed after the build is never shadowed by its old build (engine/compiled.py)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_playouts import PACK_SETS, game_config

import engine
from engine import api, compiled
from engine.rules import machine
from pbem.bot import playout

ROOT = Path(__file__).resolve().parent.parent
GAMES = [(packs, f"twin-{i}") for i, packs in enumerate(PACK_SETS[:6] + PACK_SETS[-3:])]

# Plays GAMES and prints each final state's hash, with the build that ran
SCRIPT = """
import json, sys
sys.path.insert(0, "tests")
import engine
from engine.rules import machine
from pbem.bot import playout
from test_compiled import GAMES
from test_playouts import game_config
from engine import api
out = [api.state_hash(playout(game_config(p, 4, {"turn_cap": 25}), seed, 7)[0]) for p, seed in GAMES]
print(json.dumps({"build": engine.BUILD, "machine": machine.__file__, "hashes": out}))
"""


def test_a_source_changed_since_the_build_is_found(tmp_path):
    (tmp_path / "rules").mkdir()
    a, b = tmp_path / "a.py", tmp_path / "rules" / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    record = tmp_path / "compiled.json"
    record.write_text(json.dumps({"sources": {"a.py": compiled.digest(a), "rules/b.py": compiled.digest(b)}}))
    assert compiled.changed(record) == []
    b.write_text("y = 3\n")
    assert compiled.changed(record) == ["rules/b.py"]
    a.unlink()
    assert compiled.changed(record) == ["a.py", "rules/b.py"]


def test_the_sources_finder_passes_over_an_extension_module(tmp_path):
    (tmp_path / "mod.py").write_text("x = 1\n")
    (tmp_path / "mod.cpython-311-x86_64-linux-gnu.so").write_bytes(b"not a library")
    spec = compiled.SourcesOnly().find_spec("engine.mod", [str(tmp_path)])
    assert spec.origin == str(tmp_path / "mod.py")
    assert compiled.SourcesOnly().find_spec("pbem.mod", [str(tmp_path)]) is None  # engine modules only


@pytest.mark.skipif(engine.BUILD != "compiled", reason=f"the engine is not compiled here ({engine.BUILD})")
def test_the_compiled_engine_and_its_sources_play_the_same_games():
    assert machine.__file__.endswith(".so")  # the build is what runs here
    mine = [api.state_hash(playout(game_config(p, 4, {"turn_cap": 25}), seed, 7)[0]) for p, seed in GAMES]
    run = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={**os.environ, "PBEM_PURE": "1"})
    theirs = json.loads(run.stdout)
    assert theirs["build"] == "sources" and theirs["machine"].endswith("machine.py")
    assert theirs["hashes"] == mine

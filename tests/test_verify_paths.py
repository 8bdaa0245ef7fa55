"""`pbem verify`'s own ways of reading and re-running an archive (issue 28): whatever way it
takes, it checks what the plain one checks and names the same first problem."""
import json

import msgspec
from test_archive import finished  # noqa: F401 -- the fixture: a finished game's archive

from engine import content
from pbem.archive import archive


def test_checking_reads_every_top_level_key_the_export_wrote_in_one_pass(finished, monkeypatch):  # noqa: F811
    path, _ = finished
    written = json.loads(path.read_text())
    calls = []
    decode = msgspec.json.decode
    monkeypatch.setattr(msgspec.json, "decode", lambda *a, **k: calls.append(1) or decode(*a, **k))
    data = archive.load(path, checking=True)
    assert len(calls) == 1  # the file's megabytes parsed once
    assert data.keys() == written.keys()
    assert {k: v for k, v in data.items() if k != "moves"} == {k: v for k, v in written.items() if k != "moves"}
    # a key it does not know is not kept, and nothing it knows is made up
    (path.parent / "lean.json").write_text(json.dumps({k: v for k, v in written.items() if k != "board"}
                                                      | {"remark": 1}))
    lean = archive.load(path.parent / "lean.json", checking=True)
    assert "board" not in lean and "remark" not in lean and lean["seed"] == written["seed"]


def test_verify_leaves_the_engines_content_alone_when_the_archive_reads_the_same(finished):  # noqa: F811
    """Swapping the content overlay empties the engine's content caches (and whatever a
    daemon keys on its generation): an archive that carries the files in use keeps them."""
    path, _ = finished
    before = content.generation()
    assert archive.verify(archive.load(path, checking=True)).ok
    assert content.generation() == before

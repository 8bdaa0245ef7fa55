"""The pack recipe is a test (docs/contributing.md, "A pack"; issue 32). A `house` pack kept
outside the engine (tests/house/: its module, its content folder, its scenarios), written as the
guide's worked example says (the guide's blocks are these files), is handed to the engine and
plays its scenarios and its playouts; nothing else is edited: the mixes the playouts play, the
coverage report and the content schema read its declaration."""
import re
from pathlib import Path

import pytest
from house import pack as house
from test_playouts import game_config, pack_mixes
from test_scenarios import check

from engine import api, coverage, registry, schema
from pbem.bot import playout

HERE = Path(__file__).resolve().parent / "house"
GUIDE = Path(__file__).resolve().parent.parent / "docs" / "contributing.md"
HOUSE = (house.PACK,)  # handed in: no list of the engine's is changed
SCENARIOS = sorted((HERE / "scenarios").glob("*.toml"))


def test_the_guides_worked_example_is_this_pack():
    """Each block of the guide that names a file of house/ holds that file, whole."""
    blocks = re.findall(r"```(?:python|toml)\n# (house/[\w/.-]+)\n(.*?)```", GUIDE.read_text("utf-8"), re.S)
    shown = {path: text for path, text in blocks}
    assert set(shown) == {"house/pack.py", "house/content/house/windfall.toml", "house/scenarios/house-windfall.toml"}
    for path, text in shown.items():
        assert text == (HERE.parent / path).read_text("utf-8"), path


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_it_plays_its_scenarios(path):
    check(path, HOUSE)


def test_it_is_unknown_where_it_is_not_handed_in():
    with pytest.raises(api.ConfigError, match="unknown pack 'house'"):
        api.new_game(game_config(["house"], 2), "s")


HOUSE_MIXES = [m for m in pack_mixes(HOUSE) if "house" in m]


@pytest.mark.parametrize("packs", HOUSE_MIXES, ids=["+".join(m) for m in HOUSE_MIXES])
def test_it_plays_its_playouts(packs):
    """Alone, beside every pack it goes with and in the mix of every pack: invariants after every
    move, and a replay of the moves gives the same game."""
    for seed, players in ((1, 3),) if len(packs) > 1 else ((1, 2), (2, 4)):
        config = game_config(packs, players, {"turn_cap": 25, "house_gold": 1 + seed})
        final, moves = playout(config, f"house-{seed}", bot_seed=seed, check=True, packs=HOUSE)
        assert final.over
        replayed = api.replay(api.new_game(config, f"house-{seed}", packs=HOUSE), moves, packs=HOUSE)
        assert api.encode(replayed) == api.encode(final)


def test_one_more_pack_adds_its_own_mixes_not_a_doubling():
    """The playouts' mixes grow by the pack alone, its pairs and the full mix: linearly."""
    before, after = pack_mixes(), pack_mixes(HOUSE)
    playable = [p for p in registry.PACKS if p.playable]
    assert ["house"] in after and all([p.name, "house"] in after or p.sole for p in playable if not p.requires)
    assert len(after) - len(before) <= len(playable) + 1  # alone, and one pair per pack
    kept = [m for m in before if len(m) <= 2 or m == ["city", "dungeon", "deep-realms"]]  # singles and pairs
    assert all(m in after for m in kept)


def test_the_coverage_report_and_the_content_schema_read_its_declaration():
    rows = coverage.report("house", packs=HOUSE)
    assert [(r["slug"], r["automated"]) for r in rows] == [("windfall", True)]
    files = {p.relative_to(HERE / "content").as_posix(): p.read_text("utf-8")
             for p in (HERE / "content").rglob("*.toml")}
    assert schema.problems(files, [registry.BASE, *registry.PACKS, house.PACK]) == []

"""Rules scenarios: every file in tests/scenarios/ sets up a position, forces dice, plays
answers and checks the public summary. Each file names the rule it checks in `rule`.

`[expect]` maps dotted paths into the summary (`"players.alice.life" = 3`) to values;
`[expect_events]` `contains = [...]` lists texts that must appear in the events;
`error = "..."` expects the last move to be refused with a message containing it.
"""
import tomllib
from pathlib import Path

import pytest

from engine import api, scenario

FILES = sorted((Path(__file__).parent / "scenarios").glob("*.toml"))


def dig(data, path):
    for part in path.split("."):
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_scenario(path):
    check(path)


def check(path: Path, packs=()) -> None:
    """Play one scenario file and check what it expects (`packs`: packs handed in, a house's)."""
    data = tomllib.loads(path.read_text())
    assert data.get("rule"), f"{path.name} must cite the rule it checks"
    if "error" in data:
        *good, bad = data["moves"]
        state, _ = scenario.run({**data, "moves": good}, packs)
        with pytest.raises(api.IllegalMove) as err:
            api.apply(state, api.parse_move(bad), packs=packs)
        assert data["error"] in str(err.value)
        return
    state, events = scenario.run(data, packs)
    summary = api.summary(state, packs=packs)
    for key, want in data.get("expect", {}).items():
        assert dig(summary, key) == want, f"{key}: {dig(summary, key)!r} != {want!r}"
    texts = "\n".join(e.text for e in events)
    for text in data.get("expect_events", {}).get("contains", []):
        assert text in texts, f"{text!r} not in events:\n{texts}"
    for text in data.get("expect_events", {}).get("absent", []):
        assert text not in texts, f"{text!r} unexpectedly in events:\n{texts}"
    assert not state.forced, f"forced dice left unused: {state.forced}"


def test_a_scenario_without_a_game_table_gets_the_config_message():
    """A scenario file missing [game] is bad input: the message says what is wrong."""
    from engine.config import ConfigError
    with pytest.raises(ConfigError, match="1 to 6 players"):
        scenario.build({"moves": []})

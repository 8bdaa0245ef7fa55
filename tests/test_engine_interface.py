"""The service's engine door (engine/interface.py `Engine`): engine.api and tests/fake_engine.py
both keep it, in their signatures and in the fields of view() (issue 14)."""
import inspect
import time
import types
from pathlib import Path

import fake_engine
import pytest
from test_playouts import PACK_SETS, game_config

from engine import api, interface
from engine.interface import Engine, OptionView, PlayerView, PromptView, ViewFields

ROOT = Path(__file__).resolve().parent.parent
MEMBERS = [n for n in vars(Engine) if not n.startswith("_")]
# the methods, not the properties (compiled by mypyc, a property is a getset descriptor)
FUNCTIONS = [n for n in MEMBERS if not isinstance(vars(Engine)[n], (property, types.GetSetDescriptorType))]


def _params(fn) -> list[tuple]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values() if p.name != "self"]


@pytest.mark.parametrize("impl", [api, fake_engine], ids=["engine.api", "fake_engine"])
def test_every_member_is_there(impl):
    assert len(FUNCTIONS) >= 12
    assert not [n for n in MEMBERS if not hasattr(impl, n)]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_the_fake_takes_the_same_arguments(name):
    assert _params(getattr(fake_engine, name)) == _params(vars(Engine)[name]), name


def test_engine_api_takes_the_same_arguments():
    """Checked by mypy (engine/interface.py assigns engine.api to an Engine); here too where the
    build lets inspect read a signature (a compiled function may not say). engine.api may take
    more keyword-only arguments with defaults, which the service does not pass (`packs`: packs
    handed in beside the listed ones)."""
    for name in FUNCTIONS:
        try:
            mine = _params(getattr(api, name))
        except (ValueError, TypeError):
            continue
        door = _params(vars(Engine)[name])
        extra = [p for p in mine if p[0] not in {q[0] for q in door}]
        assert all(p[1] == inspect.Parameter.KEYWORD_ONLY and p[2] is not inspect.Parameter.empty for p in extra), name
        assert [p[:2] for p in mine if p not in extra] == [p[:2] for p in door], name


def test_the_fake_is_an_engine_to_mypy(tmp_path, monkeypatch):
    """The static check: mypy accepts tests/fake_engine.py where an Engine is wanted."""
    mypy = pytest.importorskip("mypy.api")
    monkeypatch.setenv("MYPYPATH", f"{ROOT / 'tests'}:{ROOT}")
    probe = tmp_path / "probe.py"
    probe.write_text("import fake_engine\nfrom engine.interface import Engine\n\nE: Engine = fake_engine\n")
    start = time.monotonic()
    out, err, status = mypy.run([str(probe), "--follow-imports=silent", "--no-error-summary",
                                 "--cache-dir", str(ROOT / ".mypy_cache")])
    assert status == 0, out + err
    assert time.monotonic() - start < 120


def _keys(d: dict, fields) -> set:
    return set(d) - set(fields.__annotations__)


def _check_view(view: dict, extra: set) -> None:
    assert set(ViewFields.__annotations__) <= set(view)
    assert _keys(view, ViewFields) == extra  # the packs' keys and the shared pools
    for sheet in view["players"].values():
        assert set(sheet) - set(interface.OPTIONAL_PLAYER_FIELDS) == set(PlayerView.__annotations__)
    for prompt in view["prompt"] + ([view["mine"]] if view["mine"] else []):
        assert set(prompt) == set(PromptView.__annotations__)
        assert all(set(o) == set(OptionView.__annotations__) for o in prompt["options"])


@pytest.mark.parametrize("packs", PACK_SETS[:7], ids=["+".join(p) or "base" for p in PACK_SETS[:7]])
def test_engine_views_hold_the_declared_fields(packs):
    state = api.new_game(game_config(packs, 3), "fields")
    for who in [None, *[p.name for p in state.players]]:
        _check_view(api.view(state, who), set(packs) | set(state.pools))


def test_the_fakes_views_hold_the_declared_fields():
    state = fake_engine.new_game({"players": [{"name": "alice"}, {"name": "bob"}]}, "fields")
    for who in [None, "alice", "bob"]:
        _check_view(fake_engine.view(state, who), set())
    assert fake_engine.view(state, "alice")["mine"]["kind"] == "move"

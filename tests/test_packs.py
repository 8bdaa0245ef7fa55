"""A pack is one declared object (engine/packs/base.py) listed once (engine.registry.PACKS):
its hooks are methods whose combination across packs is stated per hook, and the config checks
read its declaration (issue 14)."""
import ast
import importlib
import inspect
from pathlib import Path

import pytest

from engine import config as config_mod, packs, registry
from engine.config import ConfigError, GameConfig
from engine.packs.base import AGREE, ALL, COMBINE, FIRST, Pack, PackConflict, RuleOption, combine
from engine.state import Option

ENGINE = Path(__file__).resolve().parent.parent / "engine"
# the methods (compiled by mypyc they are not Python functions: callable attributes of the class)
HOOKS = {n for n in dir(Pack) if not n.startswith("_") and callable(getattr(Pack, n))} - {"folder"}


def test_every_hook_says_how_packs_combine():
    assert HOOKS == set(COMBINE), "a Pack method without a COMBINE entry, or an entry without a method"


def test_the_core_asks_only_declared_hooks():
    """Every `packs.call(state, "<hook>", ...)` in the engine names a hook that is combined."""
    asked = {}
    for path in ENGINE.rglob("*.py"):
        for call in [n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.Call)]:
            f = call.func
            if isinstance(f, ast.Attribute) and f.attr == "call" and getattr(f.value, "id", "") == "packs":
                hook = call.args[1]
                assert isinstance(hook, ast.Constant), f"{path}:{call.lineno}: the hook's name is not written out"
                asked[hook.value] = f"{path.name}:{call.lineno}"
    assert len(asked) > 20
    bad = {h: where for h, where in asked.items() if COMBINE.get(h) not in (ALL, FIRST, AGREE)}
    assert not bad, f"asked through packs.call but not a combined hook: {bad}"


def _names(fn) -> list[str] | None:
    try:
        return list(inspect.signature(fn).parameters)
    except (ValueError, TypeError):  # a compiled method may not say (mypy checks the overrides)
        return None


def test_overridden_hooks_keep_the_base_signature():
    assert len(HOOKS) > 25
    for pack in registry.PACKS:
        for hook in HOOKS:
            mine, base = getattr(type(pack), hook), getattr(Pack, hook)
            if mine is not base and _names(base) is not None:
                assert _names(mine) == _names(base), f"{pack.name}.{hook}"


def test_every_pack_module_is_listed_once_with_its_content():
    names = [p.name for p in registry.PACKS]
    assert len(set(names)) == len(names)
    for pack in registry.PACKS:
        assert (ENGINE / "content" / pack.folder()).is_dir(), pack.name
    listed = {type(p) for p in registry.PACKS}
    for path in (ENGINE / "packs").glob("*.py"):
        module = importlib.import_module(f"engine.packs.{path.stem}")
        declared = [c for c in vars(module).values()
                    if isinstance(c, type) and issubclass(c,
                                                          Pack) and c is not Pack and c.__module__ == module.__name__]
        assert all(c in listed for c in declared), f"{path.name} declares a pack engine.registry.PACKS does not list"


def test_the_config_tables_are_read_from_the_declarations():
    assert config_mod.PLAYABLE_PACKS == ("cataclysm", "lost-realms", "nemesis", "sea-voyage", "timescape", "city",
                                         "dungeon",
                                          "deep-realms")
    assert config_mod.SOLE_PACKS == ("nemesis",)
    assert config_mod.ENDING_PACKS == ("cataclysm", "lost-realms")
    assert config_mod.PACK_EDITIONS == {"cataclysm": ("revised4",), "lost-realms": ("revised4",),
                                        "nemesis": ("fifth",), "city": ("revised4",),
                                        "dungeon": ("revised4",), "deep-realms": ("revised4",)}
    assert config_mod.DEFAULT_OPTIONS["trial"] == 1 and config_mod.DEFAULT_OPTIONS["hunt_crown"] == "open"


class _Answers(Pack):
    """A pack for the combination tests: answers what it is given."""

    def __init__(self, first: int | None, options: list[Option] | None) -> None:
        self.first, self.opts = first, options

    def first_player(self, ctx):
        return self.first

    def move_options(self, ctx, i):
        return self.opts

    def turn_start(self, ctx, i):
        return self.first


def test_first_wins_all_join_agree_must_agree():
    a, b = _Answers(None, [Option("x", "x")]), _Answers(2, [Option("y", "y")])
    assert combine([a, b], "turn_start", (None, 0)) == 2  # a answers None: b's answer
    assert [o.key for o in combine([a, b], "move_options", (None, 0))] == ["x", "y"]
    assert combine([a, b], "first_player", (None,)) == 2
    assert combine([b, _Answers(2, None)], "first_player", (None,)) == 2
    with pytest.raises(PackConflict, match="disagree on first_player: 2 and 0"):
        combine([b, _Answers(0, None)], "first_player", (None,))
    with pytest.raises(ValueError, match="asked of one pack"):
        combine([a], "public", (None, None))


class HouseRules(Pack):
    """The guide's worked example (docs/contributing.md): a pack with an option and a rule."""
    name = "house-rules"
    requires = ("cataclysm",)
    options = (RuleOption("house_gold", 1, "gold a character starts with", choices=(1, 2, 3)),)


@pytest.fixture
def house(monkeypatch):
    """HouseRules listed in engine.registry.PACKS: the one list a pack is added to."""
    monkeypatch.setattr(registry, "PACKS", registry.PACKS + (HouseRules(),))
    monkeypatch.setattr(packs, "_BY_NAME", {})
    return HouseRules


def test_a_pack_added_to_the_list_is_known_to_the_config(house):
    players = [{"name": "alice"}, {"name": "bob"}]
    cfg = GameConfig.from_dict({"packs": ["cataclysm", "house-rules"], "players": players,
                                "options": {"house_gold": 2}})
    assert cfg.option("house_gold") == 2 and packs.get("house-rules").name == "house-rules"
    with pytest.raises(ConfigError, match="needs the cataclysm pack"):
        GameConfig.from_dict({"packs": ["house-rules"], "players": players})
    with pytest.raises(ConfigError, match="house_gold: one of 1, 2, 3"):
        GameConfig.from_dict({"packs": ["cataclysm", "house-rules"], "players": players, "options": {"house_gold": 9}})
    with pytest.raises(ConfigError, match="the house_gold option needs the house-rules pack"):
        GameConfig.from_dict({"packs": ["cataclysm"], "players": players, "options": {"house_gold": 2}})


def test_without_the_entry_the_pack_is_unknown():
    with pytest.raises(ConfigError, match="unknown pack 'house-rules'"):
        GameConfig.from_dict({"packs": ["house-rules"], "players": [{"name": "alice"}]})


def test_every_pack_has_its_printed_title():
    """Players read the names on the boxes ("The City"), not the config's ids."""
    untitled = [p.name for p in registry.PACKS if not p.title]
    assert untitled == [] and config_mod.TITLES["revised4"] == "Revised 4th Edition"

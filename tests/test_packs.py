"""A pack is one declared object (engine/packs/base.py) listed once (engine.registry.PACKS) or
handed in (`packs=`): its hooks are methods, resolved for a game into a typed `Hooks`
(engine/hooks.py) whose methods say how several packs' answers combine; the config checks read
the declarations they are given (issues 14 and 32)."""
import ast
import importlib
import inspect
from pathlib import Path

import mypy.api
import pytest

from engine import api, ops, registry
from engine.config import ConfigError, RuleOption
from engine.hooks import HOOKS, Hooks, PackConflict
from engine.packs.base import Pack
from engine.rules import machine, spells
from engine.state import Option

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"
# The declaration's methods that are not hooks: asked by the config check and the content loader
DECLARATION = {"check_config", "option", "source"}
# the methods (compiled by mypyc they are not Python functions: callable attributes of the class);
# not mutmut's copies of a method it mutates (bench/mutation.py), named "xǁPackǁ<method>__mutmut_<n>"
METHODS = {n for n in dir(Pack) if not n.startswith("_") and "ǁ" not in n and callable(getattr(Pack, n))}


def _names(fn) -> list[str] | None:
    try:
        return list(inspect.signature(fn).parameters)
    except (ValueError, TypeError):  # a compiled method may not say (mypy checks the overrides)
        return None


def test_every_hook_has_its_typed_method_on_the_hooks():
    """One method per hook on Hooks, with the Pack method's parameters: the core's calls are typed."""
    assert METHODS - DECLARATION == set(HOOKS)
    assert len(HOOKS) > 35
    for hook in HOOKS:
        mine, pack = getattr(Hooks, hook), getattr(Pack, hook)
        if _names(pack) is not None and _names(mine) is not None:
            assert _names(mine) == _names(pack), hook


def test_the_core_asks_a_pack_only_through_the_hooks():
    """No string names a hook any more, and no module but the registry looks packs up."""
    for path in ENGINE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "packs.call(" not in text and "packs.get(" not in text, path


def test_overridden_hooks_keep_the_base_signature():
    for pack in (registry.BASE, *registry.PACKS):
        for hook in HOOKS:
            mine, base = getattr(type(pack), hook), getattr(Pack, hook)
            if mine is not base and _names(base) is not None:
                assert _names(mine) == _names(base), f"{pack.name}.{hook}"


def test_every_pack_module_is_listed_once_with_its_content():
    names = [p.name for p in registry.PACKS]
    assert len(set(names)) == len(names)
    for pack in registry.PACKS:
        assert (ENGINE / "content" / pack.name).is_dir(), pack.name
    listed = {type(p) for p in (registry.BASE, *registry.PACKS)}
    for path in (ENGINE / "packs").glob("*.py"):
        module = importlib.import_module(f"engine.packs.{path.stem}")
        declared = [c for c in vars(module).values()
                    if isinstance(c, type) and issubclass(c, Pack) and c is not Pack
                    and c.__module__ == module.__name__]
        assert all(c in listed for c in declared), f"{path.name} declares a pack engine.registry.PACKS does not list"


def test_the_service_tables_are_read_from_the_declarations():
    assert registry.PLAYABLE_PACKS == ("cataclysm", "lost-realms", "nemesis", "sea-voyage", "timescape", "city",
                                       "dungeon", "deep-realms")
    assert registry.TITLES["revised4"] == "Revised 4th Edition" and registry.TITLES["city"] == "The City"


class _Answers(Pack):
    """A pack for the combination tests: answers what it is given."""
    name = "answers"

    def __init__(self, first: int | None, options: list[Option] | None) -> None:
        self.first, self.opts = first, options

    def first_player(self, ctx):
        return self.first

    def move_options(self, ctx, i):
        return self.opts

    def turn_start(self, ctx, i):
        return True if self.first is not None else None


class _Other(_Answers):
    name = "other"


def test_all_join_first_claims_once_agree_must_agree():
    base, ctx = Pack(), api.context(api.new_game({"players": [{"name": "a"}, {"name": "b"}]}, "s"))
    a, b = _Answers(None, [Option("x", "x")]), _Other(2, [Option("y", "y")])
    hooks = Hooks(base, [a, b])
    assert hooks.turn_start(ctx, 0) is True  # a answers None: b claims it
    assert [o.key for o in hooks.move_options(ctx, 0)] == ["x", "y"]
    assert hooks.first_player(ctx) == 2
    assert Hooks(base, [b, _Answers(2, None)]).first_player(ctx) == 2
    with pytest.raises(PackConflict, match="disagree on first_player: 2 and 0"):
        Hooks(base, [b, _Answers(0, None)]).first_player(ctx)
    with pytest.raises(PackConflict, match="'answers' and 'other' both claim turn_start"):
        Hooks(base, [_Answers(1, None), b]).turn_start(ctx, 0)  # two packs take over one turn: an error


def test_only_the_packs_that_override_a_hook_are_asked_it():
    hooks = Hooks(registry.BASE, [_Answers(None, None)])
    assert [p.name for p in hooks._by["fight_options"]] == ["revised4"]  # the base game's cards: always first
    assert [p.name for p in hooks._by["move_options"]] == ["answers"]
    assert hooks._by["killed"] == ()


def test_a_hook_call_with_wrong_arguments_fails_mypy(tmp_path, monkeypatch):
    """The core's hook calls are typed: mypy refuses a call with an argument of the wrong type, or
    one missing, where the string call `packs.call(s, "killed", ctx, i)` passed anything."""
    probe = tmp_path / "probe.py"
    probe.write_text("from engine.rules.machine import Ctx\n\n\n"
                     "def died(ctx: Ctx) -> None:\n"
                     "    ctx.hooks.killed(ctx, 0)\n"  # right
                     "    ctx.hooks.killed(ctx, 'alice')\n"  # a name where an index goes
                     "    ctx.hooks.move_choice(ctx, 0)\n", encoding="utf-8")  # the key missing
    monkeypatch.chdir(ROOT)  # mypy finds the engine from the project's folder; its cache is the test's own
    report, errors, status = mypy.api.run(["--cache-dir", str(tmp_path / "cache"), "--config-file",
                                           str(ROOT / "pyproject.toml"), str(probe)])
    assert status == 1, report + errors
    assert 'Argument 2 to "killed" of "Hooks" has incompatible type "str"; expected "int"' in report
    assert 'Missing positional argument "key" in call to "move_choice" of "Hooks"' in report
    assert [line.split(":")[1] for line in report.splitlines() if "error:" in line] == ["6", "7"], report


class HouseRules(Pack):
    """A pack with an option and a requirement, handed in: nothing listed, nothing patched."""
    name = "house-rules"
    requires = ("cataclysm",)
    options = (RuleOption("house_gold", 1, "gold a character starts with", choices=(1, 2, 3)),)


HOUSE = (HouseRules(),)


def test_a_pack_handed_in_is_known_to_the_config():
    players = [{"name": "alice"}, {"name": "bob"}]
    cfg = api.game_config({"packs": ["cataclysm", "house-rules"], "players": players, "options": {"house_gold": 2}},
                          HOUSE)
    assert cfg.options["house_gold"] == 2 and HOUSE[0].option(cfg.options, "house_gold") == 2
    assert HOUSE[0].option({}, "house_gold") == 1
    with pytest.raises(ConfigError, match="needs the cataclysm pack"):
        api.game_config({"packs": ["house-rules"], "players": players}, HOUSE)
    with pytest.raises(ConfigError, match="house_gold: one of 1, 2, 3"):
        api.game_config({"packs": ["cataclysm", "house-rules"], "players": players, "options": {"house_gold": 9}},
                        HOUSE)
    with pytest.raises(ConfigError, match="the house_gold option needs the house-rules pack"):
        api.game_config({"packs": ["cataclysm"], "players": players, "options": {"house_gold": 2}}, HOUSE)


def test_without_it_the_pack_is_unknown():
    with pytest.raises(ConfigError, match="unknown pack 'house-rules'"):
        api.game_config({"packs": ["house-rules"], "players": [{"name": "alice"}]})


def test_a_pack_handed_in_may_not_take_a_listed_name():
    class Impostor(Pack):
        name = "city"

    with pytest.raises(ConfigError, match="pack 'city' is declared twice"):
        api.game_config({"packs": ["city"], "players": [{"name": "alice"}]}, (Impostor(),))


def test_every_pack_has_its_printed_title():
    """Players read the names on the boxes ("The City"), not the config's ids."""
    assert [p.name for p in registry.PACKS if not p.title] == []


def test_the_registry_alone_imports_every_pack():
    """A rules module or a pack imports no other pack's module (its own topic modules aside)."""
    packs = {p.stem for p in (ENGINE / "packs").glob("*.py")} - {"__init__", "base"}
    for path in ENGINE.rglob("*.py"):
        if path.name == "registry.py":
            continue
        own = path.stem.split("_")[0] if path.parent.name == "packs" else None
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                named = [node.module.split(".")[-1]] if node.module.startswith("engine.packs.") else \
                    [a.name for a in node.names] if node.module == "engine.packs" else []
                for stem in [n for n in named if n in packs]:
                    assert own is not None and stem.split("_")[0] == own, f"{path.relative_to(ROOT)} imports {stem}"


@pytest.mark.parametrize("register,table,name", [
    (machine.task, machine.TASKS, "walk"), (ops.op, ops.OPS, "gain"), (machine.on_answer, machine.ANSWERS, "choose"),
    (machine.useful, machine.USEFUL, "terrain"), (spells.spell_hook, spells.HOOKS, "teleport")])
def test_a_name_taken_is_an_error_not_a_replacement(register, table, name):
    """A pack (or a test) that registers a task, op, answer handler or check under a name already
    taken is told so, naming both; the first stays (they were silently replaced before)."""
    first = table[name]
    with pytest.raises(ValueError, match=f"{name!r} is registered twice: .* and test_packs"):
        register(name)(lambda *args: None)
    assert table[name] is first


def test_a_question_kind_taken_is_an_error():
    with pytest.raises(ValueError, match="question kind 'choose' is declared twice"):
        machine.on_answer("choose", "again", default=("no",))

"""Every kind of question the engine can ask is declared once, where it is asked
(engine/questions.py): found in the sources, and in the prompts of short playouts of every pack
mix. The service reads the declarations: its deadline defaults (pbem/pace/pace.py) and its standing
orders (pbem/pace/standing.py) know every kind (issue 14)."""
import ast
import random
from pathlib import Path

import pytest
from test_playouts import PACK_SETS, game_config

from engine import api, questions
from engine.rules import machine
from engine.state import Option, Prompt
from pbem.bot import choose
from pbem.pace import pace, standing

ENGINE = Path(__file__).resolve().parent.parent / "engine"
# Functions that ask a kind they are given: (module, function) -> where their kinds come from.
FORWARDERS = {
    ("rules/spells.py", "choose_character"): "the literal kinds its callers pass (scanned below)",
    ("rules/items.py", "reopen"): "the kind of a question already asked, asked again after a ditch",
}


def _literal(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def asked_in_sources() -> tuple[dict[str, str], list[str]]:
    """The kinds the engine's sources ask ({kind: where}), and the asks whose kind is not
    written out and not in FORWARDERS."""
    kinds: dict[str, str] = {}
    unknown: list[str] = []
    for path in sorted(ENGINE.rglob("*.py")):
        rel = str(path.relative_to(ENGINE))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
            for call in [n for n in ast.walk(fn) if isinstance(n, ast.Call)]:
                name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
                # ctx.ask(who, kind, ...); choose_character(ctx, i, kind, ...); Prompt(id, players, kind, ...)
                at = {"ask": 1, "choose_character": 2, "Prompt": 2}.get(name)
                if at is None or len(call.args) <= at:
                    continue
                kind = _literal(call.args[at])
                if kind is not None:
                    kinds.setdefault(kind, f"{rel}:{call.lineno}")
                elif name == "ask" and (rel, fn.name) not in FORWARDERS:
                    unknown.append(f"{rel}:{call.lineno} ({fn.name})")
    return kinds, unknown


def test_every_kind_asked_in_the_sources_is_declared():
    kinds, unknown = asked_in_sources()
    declared = {k.name for k in api.question_kinds()}
    assert len(kinds) > 60  # the scan finds the asks (it would pass vacuously if it found none)
    assert not unknown, f"asks whose kind the scan cannot read: add them to FORWARDERS after a look: {unknown}"
    missing = {k: where for k, where in kinds.items() if k not in declared}
    assert not missing, f"question kinds asked but not declared (@on_answer(kind, means, default=...)): {missing}"


def test_every_answered_kind_is_declared_once_and_answered():
    """A kind is asked only with an answer handler (Ctx.ask calls it), and declared beside it."""
    declared = {k.name for k in api.question_kinds()}
    assert set(machine.ANSWERS) == declared
    with pytest.raises(ValueError, match="declared twice"):
        questions.declare("direction", "again", ("left",))


def test_declarations_say_what_they_mean():
    for k in api.question_kinds():
        assert k.means.strip(), k.name
        assert k.default is None or all(isinstance(key, str) and key for key in k.default), k.name
    assert [k.name for k in api.question_kinds()] == sorted(k.name for k in api.question_kinds())


@pytest.mark.parametrize("packs", PACK_SETS, ids=["+".join(p) or "base" for p in PACK_SETS])
def test_every_kind_asked_in_a_playout_is_declared(packs):
    declared = {k.name for k in api.question_kinds()}
    state = api.new_game(game_config(packs, 3, {"turn_cap": 12}), "kinds")
    rnd, asked = random.Random(1), set()
    for _ in range(1500):
        if state.over:
            break
        asked |= {p.kind for p in api.prompts(state)}
        state, _ = api.apply(state, choose(state, rnd), copy=False)
    assert asked and asked <= declared, f"asked but not declared: {sorted(asked - declared)}"


def test_deadline_defaults_come_from_the_declarations():
    assert set(pace.DEFAULTS) == {k.name for k in api.question_kinds()}
    sell = Prompt(1, ["alice"], "sea-sell", "Sell Cargo?", [Option("sell-2", "sell 2"),
                                                               Option("keep", "sell none")])
    assert pace.default_key(sell, "alice") == "keep"
    healing = Prompt(2, ["alice"], "spell-healing", "On whom?", [Option("bob", "bob"),
                                                                      Option("alice", "alice")])
    assert pace.default_key(healing, "alice") == "alice"  # SELF: Healing on oneself


@pytest.mark.parametrize("kind", ["sea-sell", "ts-warp", "visit"])
def test_a_standing_order_for_any_declared_kind_is_accepted(kind):
    """These were refused as unknown kinds when pace.py named 35 kinds by hand."""
    note = standing.carry_out(None, "g", "alice", f"when {kind} answer keep", check=True)
    assert note == f"standing: when {kind} answer keep: would be filed"


def test_a_standing_order_for_an_unknown_kind_is_still_questioned():
    note = standing.carry_out(None, "g", "alice", "when sea-sel answer keep", check=True)
    assert "no question of kind 'sea-sel' is known yet" in note

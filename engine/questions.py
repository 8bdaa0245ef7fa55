"""The kinds of question the engine asks, each declared once, beside its answer handler
(`@on_answer(kind, means, default=...)` in engine/rules/machine.py): what it asks and what its
options mean, and the answer a missed deadline plays. `engine.api.question_kinds()` lists them;
the service's defaults, standing orders and docs read them from there (docs/pace.md), and
tests/test_question_kinds.py fails when a kind the engine can ask is not declared.

`default` is the keys a missed deadline plays, in order: the first one open is played. Two
stand for a player's name: SELF (the one asked: Healing on oneself) and OTHER (another player:
a Spell cast on someone else). The rule behind them (docs/pace.md): spend nothing (fate,
Spells, gold), attack no one, leave no region by choice, take the danger in front of you rather
than flee, and decline what is optional (DECLINE).
FIRST_OPTION: nothing here is free to decline; the first option is played.
NO_DEFAULT (None): no deadline plays it (only the moderator answers it).
"""
from __future__ import annotations

SELF, OTHER = "<self>", "<other>"
FIRST_OPTION: tuple[str, ...] = ()
NO_DEFAULT = None
# what is declined, in order, where nothing better is said: the service's rule for a kind it
# does not know (pbem/pace/pace.py GENERIC) as well
DECLINE: tuple[str, ...] = ("done", "no", "none", "keep", "let", "continue", "pass")


class QuestionKind:
    """One kind of question: its name (a prompt's `kind`), what it asks and what its options
    mean, and its deadline default (see the module's docstring)."""

    def __init__(self, name: str, means: str, default: tuple[str, ...] | None) -> None:
        self.name = name
        self.means = means
        self.default = default

    def __repr__(self) -> str:
        return f"QuestionKind({self.name!r}, default={self.default!r})"


KINDS: dict[str, QuestionKind] = {}  # filled by on_answer as the rules modules load


def declare(name: str, means: str, default: tuple[str, ...] | None) -> None:
    if name in KINDS:
        raise ValueError(f"question kind {name!r} is declared twice")
    KINDS[name] = QuestionKind(name, means, default)

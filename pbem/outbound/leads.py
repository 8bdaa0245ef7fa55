"""What each answer of a report's question leads to, in the report's words, from the engine's
preview (engine/preview.py): where a move ends and what it meets on the way, what a kept roll
does, what each face of a reroll would do.

The preview stops at the first die, card or question nobody may know yet, so these lines say
only what the rules already decide. They are in the reader's language: the engine's texts from
their messages (pbem/base/engine_text.py), the lines' own words from the catalogue.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.base import boardmap, engine_text, i18n, log, option_keys
from pbem.base.i18n import _

if TYPE_CHECKING:
    from pbem.core.service import Service

KEEP = "keep"  # the answer that keeps a roll a reroll is offered for


def _then() -> str:
    """The word between an answer and what it leads to ("then Fields"): a word, not an arrow, which
    a screen reader reads as "rightwards arrow"."""
    return _("then")


def _key(key: str) -> str:
    """A nested question's answer as the reader writes it, as the top-level answer lines show keys
    (pbem/base/option_keys.py: only where it reads back)."""
    return option_keys.shown(key, i18n.current())


def region(ring: str | None) -> str:
    return boardmap.RING_NAMES.get(ring or "", (ring or "").replace("-", " ").title())


def _where(o: dict) -> str:
    if not o.get("space_name"):
        return _("off the board")
    return f"{engine_text.name(o['space_name'])} ({_(region(o['region']))})"


def _texts(o: dict, key: str) -> list[str]:
    """A preview's events (`key` "events") or effects ("effects") in the reader's language."""
    return [engine_text.said(text, m) for text, m in zip(o[key], o.get(key[:-1] + "_msgs") or [None] * len(o[key]))]


def _question(o: dict) -> str:
    return engine_text.said(o["question"], o.get("question_msg")) if o["question"] else ""


def _next(o: dict) -> str:
    """What a preview's stop means, for a line that has no more to say."""
    cut = o.get("cut") or {}
    if o["stop"] == "unknown":
        if cut.get("name") and ("strength" in cut or "craft" in cut):
            kind, value = (_("Strength"), cut["strength"]) if "strength" in cut else (_("Craft"), cut["craft"])
            return _("a fight with %(name)s (%(kind)s %(value)s): the dice decide", name=engine_text.name(cut["name"]),
                     kind=kind,
                     value=value)
        return _("the dice or the cards decide")
    if o["stop"] == "question":
        return _question(o) or _("another question")
    return _("no effect at once")


def _said(o: dict) -> str:
    """A kept roll's (or a face's) outcome: the engine's events, else what comes next (after
    "then" already: no second "Then" when no event comes before it)."""
    events = _texts(o, "events")
    if o["effects"]:
        return " ".join(events)
    return " ".join([*events, _("Then %(next)s.", next=_next(o))]) if events else _next(o)


def _walk(o: dict) -> list[str]:
    """Where a move ends, or the crossing it stops at and where each answer there leads."""
    if o["moved"]:
        return [f"{_then()} {_where(o)}"]
    ways = [f"{_key(k)}, {_then()} {_where(t)}" for k, t in (o.get("then") or {}).items() if t["moved"]]
    if ways:  # a question on the way (a bridge, the Portal) whose answers move on
        return [f"{_then()} " + _("on the way: %(question)s (%(ways)s)", question=_question(o), ways="; ".join(ways))]
    if o["stop"] == "unknown" and (o.get("cut") or {}).get("name"):  # a fight on the way (the Sentinel)
        return [f"{_then()} {_next(o)}"]
    return []


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _short(o: dict) -> str:
    if o["moved"]:
        return engine_text.name(o["space_name"])
    if o.get("at"):
        return _("a question at %(space)s", space=engine_text.name(o["at"]))
    return _("a question") if o["stop"] == "question" else "?"


def _faces(faces: dict) -> list[str]:
    """What a reroll could give: per face, where each way leads (a move) or what it does."""
    if any(f.get("then") for f in faces.values()):  # a movement roll: each face asks the way again
        ways: dict[str, list[tuple[str, str]]] = {}
        for face, o in faces.items():
            for key, t in (o.get("then") or {}).items():
                ways.setdefault(key, []).append((face, _short(t)))
        return [f"{_then()} " + _("a new roll:") + " " + "; ".join(
            f"{_key(k)}: {', '.join(f'{fs} {text}' for fs, text in _runs(v))}" for k, v in ways.items())]
    said = _runs([(face, " ".join(_texts(o, "effects")) if o["effects"] else _cap(_next(o)) + ".") for face,
                  o in faces.items()])
    return [f"{_then()} " + _("a new die:")] + [f"{fs}: {text}" for fs, text in said]


def _runs(faces: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Faces in a row that read the same as one: ("1-3", text)."""
    runs: list[tuple[list[str], str]] = []
    for face, text in faces:
        if runs and runs[-1][1] == text:
            runs[-1][0].append(face)
        else:
            runs.append(([face], text))
    return [(fs[0] if len(fs) == 1 else f"{fs[0]}-{fs[-1]}", text) for fs, text in runs]


def leads(svc: Service, state, player: str, asked: dict | None) -> dict[str, list[str]]:
    """Per option key of the reader's open question, the lines that say what it leads to."""
    preview = getattr(svc.engine, "preview", None)
    if not asked or preview is None or state is None:
        return {}
    try:
        outcomes = preview(state, player)
    except Exception as e:  # noqa: BLE001  (an engine fault here must not hold back the report)
        log.get().warning("no preview of the answers", player=player, error=repr(e))
        return {}
    out: dict[str, list[str]] = {}
    for key, o in outcomes.items():
        if key == KEEP:  # a kept roll: what it does, in the engine's words
            lines = [f"{_then()} {_said(o)}"] if o["events"] or o["stop"] != "end" else []
        else:
            lines = _walk(o)
        if "faces" in o:
            lines += _faces(o["faces"])
        if lines:
            out[key] = lines
    return out


def attack(svc: Service, state, player: str, asked: dict | None) -> list[str]:
    """For a question within an attack between characters: who attacks whom, and with what."""
    duel = getattr(svc.engine, "duel", None)
    if not asked or duel is None or state is None:
        return []
    d = duel(state, player)
    if d is None:
        return []

    def side(name: str) -> str:
        s = d["sides"][name]
        value = f"{_(d['attribute'])} {s['value']}"
        return _("%(value)s (with %(cards)s)", value=value, cards=", ".join(s["with"])) if s["with"] else value

    them = d["attacker"] if player == d["defender"] else d["defender"]
    psychic = d["kind"] == "psychic combat"
    if player == d["defender"]:
        said = (_("%(name)s attacks you in psychic combat with %(theirs)s, against your %(yours)s; "
                  "each side adds a die.") if psychic else
                _("%(name)s attacks you in battle with %(theirs)s, against your %(yours)s; each side adds a die."))
        return [said % {"name": them, "theirs": side(them), "yours": side(player)}]
    said = (_("You attack %(name)s in psychic combat with %(yours)s, against their %(theirs)s; each side adds a die.")
            if psychic else
            _("You attack %(name)s in battle with %(yours)s, against their %(theirs)s; each side adds a die."))
    return [said % {"name": them, "theirs": side(them), "yours": side(player)}]

"""Which cards and spaces the engine settles itself, and which the moderator settles."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import ops, registry  # the registry: every rule and pack registered
from engine.content import Card, Content, load
from engine.packs.base import Pack
from engine.rules import machine, spells
from engine.schema import NOT_RULES, card_props

# Spells the rules resolve where they apply (combat.py, spells.py, turn.lose_life).
REACTIONS = {"psionic-blast", "invisibility", "immobility", "counterspell", "preservation"}


def _card_automated(card: Card, packs: Sequence[Pack] = ()) -> tuple[bool, str]:
    """Whether the engine settles a card itself, and why not (`packs`: packs handed in beside the
    listed ones: their card hooks and the properties their rules read are theirs to declare)."""
    for row in card.prop("levels", ()):  # a Nemesis companion: each level's cost and ability
        if not ops.automated(row.get("effect", []) + row.get("pay", [])):
            return False, f"level {row.get('level')} settled by the moderator"
    if card.hook:
        if card.type == "spell" and card.hook in spells.HOOKS:
            return True, ""
        if card.hook in REACTIONS or card.hook in _hooked(card.pack, packs) or card.prop("target_effect"):
            return True, ""
        return False, f"hook {card.hook!r} not implemented"
    if card.effect and not ops.automated(card.effect):
        return False, "effect settled by the moderator"
    unknown = set(card.props) - card_props(_declared(packs)) - NOT_RULES
    if unknown:
        return False, "properties not read by the rules: " + ", ".join(sorted(unknown))
    if card.type in ("event", "stranger", "place", "spell", "denizen", "ending") and not card.effect:
        return False, "no effect written"
    return True, ""


# Character abilities the rules implement; the others are settled by the moderator.
ABILITIES = {"assassin-no-defence", "druid-forest", "druid-refill-woods", "dwarf-chasm", "dwarf-crags",
             "dwarf-evade-hills", "dwarf-mines", "elf-evade-woods", "elf-forest", "ghoul-life-drain",
             "keep-one-spell", "minstrel-animals", "monk-craft-in-battle", "no-weapons-armour", "prayer-bonus",
             "priest-destroy-spirits", "prophetess-redraw", "psychic-attacks-on-characters", "sorceress-beguile",
             "thief-steal", "troll-regenerate", "two-weapons", "warrior-two-dice"}


def _declared(packs: Sequence[Pack]) -> list[Pack]:
    """The base game's declaration, then every pack's: the listed ones and those handed in."""
    return [registry.BASE, *registry.declared(packs).values()]


def _hooked(pack: str, packs: Sequence[Pack] = ()) -> frozenset[str]:
    """The card hooks implemented for a pack's cards: the base game's, and the pack's own `card_hooks`."""
    own = next((p.card_hooks for p in _declared(packs) if p.name == pack and p.playable), frozenset())
    return registry.BASE.card_hooks | own


def report(pack: str | None = None, packs: Sequence[Pack] = ()) -> list[dict[str, Any]]:
    """One row per character, card and space; `pack` keeps only that pack's. A pack's rows are
    read with the pack loaded over the base (its board, its decks) and its module imported
    (what registers its space hooks and ops). `packs`: packs handed in beside the listed ones."""
    declared = registry.declared(packs)
    if pack in (None, "revised4"):
        rows = _rows(load("revised4", ()), packs)
        if pack is None:
            for p in (p for p in declared.values() if p.playable):
                rows += [r for r in _rows(load("revised4", (p.source(),)), packs) if r["pack"] == p.name]
    else:
        assert pack is not None
        rows = _rows(load("revised4", (declared[pack].source(),)), packs)
    return [r for r in rows if pack in (None, r["pack"])]


def _rows(content: Content, packs: Sequence[Pack]) -> list[dict[str, Any]]:
    rows = []
    for ch in content.characters.values():
        missing = [a for a in ch.abilities if a not in ABILITIES]
        rows.append({"pack": "revised4", "kind": "character", "slug": ch.slug, "name": ch.name,
                     "automated": not missing,
                     "note": "abilities settled by the moderator: " + ", ".join(missing) if missing else "",
                     "confirmed": ch.confirmed})
    for card in content.cards.values():
        ok, why = _card_automated(card, packs)
        rows.append({"pack": card.pack, "kind": card.deck, "slug": card.slug, "name": card.name,
                     "automated": ok, "note": why, "confirmed": card.confirmed})
    for space in content.board.spaces.values():
        if space.hook:
            ok = f"space:{space.hook}" in machine.TASKS
            why = "" if ok else f"hook {space.hook!r} not implemented"
        else:
            ok = ops.automated(space.effect)
            why = "" if ok else "effect settled by the moderator"
        rows.append({"pack": space.pack, "kind": "space", "slug": space.id, "name": space.name,
                     "automated": ok, "note": why, "confirmed": space.confirmed})
    return rows


def stand_in_counts(rows: list[dict]) -> dict[str, dict[str, int]]:
    """Per pack, how many rows are confirmed against the printed game and how many are stand-ins."""
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        counts = out.setdefault(r["pack"], {"confirmed": 0, "stand-in": 0})
        counts["confirmed" if r["confirmed"] else "stand-in"] += 1
    return out

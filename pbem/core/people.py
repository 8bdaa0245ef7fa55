"""One person across games: what an address chose once -- its language -- holds in every game
it plays.

A mail line (`language: de`, pbem/inbound/commands.py) or the seat's page sets them for the
address, in the store (`address_settings`); where the address chose nothing, the seat's
`[[players]]` table, then the game's `[game]` table, then English.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.base import i18n
from pbem.core.games import seat_config

if TYPE_CHECKING:
    from pbem.core.service import Service


def chosen(svc: Service, address: str | None) -> dict:
    """What `address` chose (its row, or nothing)."""
    return (svc.store.address_settings(address) if address else None) or {}


def language(svc: Service, game: dict | None, name: str | None, address: str | None) -> str:
    """The language a reader's mail is made in."""
    lang = chosen(svc, address).get("language")
    if not lang and game is not None:
        lang = (seat_config(game, name).get("language") if name else None) or \
            game.get("config", {}).get("game", {}).get("language")
    try:
        return i18n.language(lang) if lang else i18n.DEFAULT
    except ValueError:  # a catalogue since removed: the mail still goes, in English
        return i18n.DEFAULT


def set_language(svc: Service, address: str, value: str) -> str:
    lang = i18n.language(value)
    svc.store.set_address_settings(address, language=lang)
    return lang

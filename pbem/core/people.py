"""One person across games: what an address chose once -- its language, its time zone, how
its mail comes (`mail: each | digest | both`) -- holds in every game it plays.

A mail line (`language: de`, pbem/inbound/commands.py) or the seat's page sets them for the
address, in the store (`address_settings`); where the address chose nothing, the seat's
`[[players]]` table, then the game's `[game]` table, then English.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.base import clock, i18n
from pbem.core.games import seat_config

if TYPE_CHECKING:
    from pbem.core.service import Service

EACH, DIGEST, BOTH = "each", "digest", "both"  # how an address's mail comes
MAIL_MODES = (EACH, DIGEST, BOTH)
DIGEST_HOUR = 7  # the local hour a digest is made, where the address named none


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


def timezone(svc: Service, game: dict | None, name: str | None, address: str | None) -> str | None:
    """The zone a reader's times are shown in: the address's, else the seat's."""
    return chosen(svc, address).get("timezone") or (seat_config(game, name).get("timezone")
                                                    if game is not None and name else None)


def mail_mode(svc: Service, address: str | None) -> str:
    return chosen(svc, address).get("mail") or EACH


def set_language(svc: Service, address: str, value: str) -> str:
    lang = i18n.language(value)
    svc.store.set_address_settings(address, language=lang)
    return lang


def set_timezone(svc: Service, address: str, value: str) -> None:
    clock.zone(value)
    svc.store.set_address_settings(address, timezone=value)


def set_mail(svc: Service, address: str, value: str) -> tuple[str, int | None]:
    """`each`, `digest` or `both`, optionally with the digest's local hour (`digest 18`)."""
    word, _, hour = value.strip().lower().partition(" ")
    word = MAIL_WORDS.get(word, word)
    if word not in MAIL_MODES:
        raise ValueError(i18n._("%(value)r: write each, digest or both (and for a digest an hour, e.g. "
                                "\"digest 18\")", value=value))
    fields: dict = {"mail": word}
    if hour.strip():
        h = hour.strip().removesuffix("h").removesuffix(":00")
        if not h.isdigit() or not 0 <= int(h) <= 23:
            raise ValueError(i18n._("%(value)r: the hour is a whole number from 0 to 23", value=hour.strip()))
        fields["digest_hour"] = int(h)
    svc.store.set_address_settings(address, **fields)
    return word, fields.get("digest_hour")


# What a German player may write for the modes.
MAIL_WORDS = {"einzeln": EACH, "jede": EACH, "sammel": DIGEST, "sammelmail": DIGEST, "beides": BOTH}

"""One person across games: what an address chose once -- its language, how its mail comes
(each report, one digest a day, or both), its time zone and its digest's hour -- holds in every
game it plays.

A mail line (`language: de`, `mail: digest`, `zone: Europe/Berlin`, `digest: 08:00`;
pbem/inbound/commands.py), the seat's page or the moderator (`pbem player mail`) sets them for the
address, in the store (`address_settings`); where the address chose no language, the seat's
`[[players]]` table, then the game's `[game]` table, then English.
"""
from __future__ import annotations

import re
from datetime import time
from typing import TYPE_CHECKING

from pbem.base import clock, i18n, tokens
from pbem.base.i18n import _
from pbem.core.games import seat_config

if TYPE_CHECKING:
    from pbem.core.service import Service


def chosen(svc: Service, address: str | None) -> dict:
    """What `address` chose (its row, or nothing)."""
    return (svc.store.address_settings(address) if address else None) or {}


def zone(svc: Service, game: dict, name: str, address: str | None = None) -> str | None:
    """A seat's time zone for its deadlines: its own `timezone:` in this game (a mail line or its
    `[[players]]` table), else its address's `zone:` (one setting for a person, in every game),
    else None (UTC). `address`: the seat's, when the caller has it (else read from the seat)."""
    own = seat_config(game, name).get("timezone")
    if own:
        return own
    if address is None:
        seat = svc.store.player(game["id"], name)
        address = seat["email"] if seat else None
    return chosen(svc, address).get("zone")


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


CARRIED = ("language", "mail", "zone", "digest_at")  # what a seat's person chose, kept when it moves


def carry_over(svc: Service, old: str, new: str) -> None:
    """A seat moved from `old` to `new` (pbem/pace/addresses.py): what the person chose for the
    old address -- the language above all, else her mail would turn English -- holds for the new
    one where it chose nothing of its own. Never its digest token's salt: the new address gets
    its own."""
    had, has = chosen(svc, old), chosen(svc, new)
    kept = {k: had[k] for k in CARRIED if had.get(k) and not has.get(k)}
    if kept:
        svc.store.set_address_settings(new, **kept)


def set_language(svc: Service, address: str, value: str) -> str:
    lang = i18n.language(value)
    svc.store.set_address_settings(address, language=lang)
    return lang


# -- how the address's mail comes: each report, a daily digest, or both ------------------------------

EACH, DIGEST, BOTH = "each", "digest", "both"
MAIL_WORDS = {"each": EACH, "digest": DIGEST, "both": BOTH,  # `mail: digest`, `post: täglich`
              "einzeln": EACH, "täglich": DIGEST, "taeglich": DIGEST, "beides": BOTH}
DIGEST_AT = "08:00"  # the hour a digest goes when the address chose none
_HOUR = re.compile(r"^([01]?\d|2[0-3])[:.h]?([0-5]\d)?$")


def mail_choice(svc: Service, address: str | None) -> str:
    """each (every report, as sent today), digest (one mail a day) or both."""
    return chosen(svc, address).get("mail") or EACH


def wants_each(svc: Service, address: str | None) -> bool:
    return mail_choice(svc, address) != DIGEST


def mail_word(value: str) -> str:
    """`each`, `digest`, `both` (or the German words) as the stored choice; ValueError says what is read."""
    word = MAIL_WORDS.get(value.strip().lower())
    if word is None:
        raise ValueError(_("%(value)r is not a way to get mail: write each, digest or both", value=value))
    return word


def digest_hour(value: str) -> str:
    """"8", "08:00", "8.30", "20h" as HH:MM; ValueError says what is read."""
    m = _HOUR.match(value.strip().lower())
    if not m:
        raise ValueError(_("%(value)r is not an hour of the day (write e.g. 08:00 or 20:30)", value=value))
    return f"{int(m.group(1)):02d}:{m.group(2) or '00'}"


def zone_name(value: str) -> str:
    clock.zone(value.strip())  # ValueError: "'Berlin' is not a time zone (write e.g. Europe/Berlin)"
    return value.strip()


def digest_time(svc: Service, address: str) -> tuple[str | None, time]:
    """The address's zone (None: UTC) and the hour of the day its digest goes in it."""
    row = chosen(svc, address)
    hh, mm = (row.get("digest_at") or DIGEST_AT).split(":")
    return row.get("zone"), time(int(hh), int(mm))


def set_mail(svc: Service, address: str, value: str) -> str:
    word = mail_word(value)
    svc.store.set_address_settings(address, mail=word)
    return word


def set_zone(svc: Service, address: str, value: str) -> str:
    name = zone_name(value)
    svc.store.set_address_settings(address, zone=name)
    return name


def set_digest_at(svc: Service, address: str, value: str) -> str:
    hour = digest_hour(value)
    svc.store.set_address_settings(address, digest_at=hour)
    return hour


def digest_token(svc: Service, address: str) -> str:
    """The token a digest's reply carries (in its Reply-To, as a report's carries the seat's):
    derived from the service's key, the address and a salt of the address's own (made on first
    use), never stored. It opens only the seats of that address, and only for mail From it."""
    salt = chosen(svc, address).get("digest_salt")
    if not salt:
        salt = tokens.new_salt()
        svc.store.set_address_settings(address, digest_salt=salt)
    return tokens.token_for(svc.key, "*digest*", address.lower(), salt)


def digest_token_matches(svc: Service, address: str, token_hash: str) -> bool:
    """Does the token whose hash is `token_hash` open `address`'s digest reply (constant time)?"""
    salt = chosen(svc, address).get("digest_salt")
    return salt is not None and tokens.matches(tokens.token_for(svc.key, "*digest*", address.lower(), salt),
                                               token_hash)

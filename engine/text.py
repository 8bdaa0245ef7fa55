"""The engine's texts as messages: a message id and its arguments, which a reader's language
translates (the service, pbem/base/engine_text.py); the engine itself stays English and free
of gettext.

`msg("{player} rolls {roll} for movement.", player=p.name, roll=roll)`: the id is the English
pattern with named placeholders (str.format), the arguments are what fills them, as plain
values: numbers, and names (cards, spaces, characters, players) as printed; `{s}` is an English
plural ending ("turn{s}", s="s" or ""), which a translation may leave out. `msg` is the
keyword pybabel extracts the engine's ids by (`make locale`, into the catalogue domain
"engine"). An Event, an Option and a Prompt keep their English `text`/`question` (formatted
once, where the message is made) beside the message, which they carry in `msg`.
"""
from __future__ import annotations

import string
from typing import Any

import msgspec


class Msg(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """A message: `id`, the English pattern; `args`, its placeholders' values (none: `id` is
    the text as it is, braces and all)."""
    id: str
    args: dict[str, Any] = {}

    def english(self) -> str:
        return self.id.format(**self.args) if self.args else self.id

    def __format__(self, spec: str) -> str:
        """A message as another's value (a word, `word`) is its English there."""
        return format(self.english(), spec)


def msg(msgid: str, /, **args: Any) -> Msg:
    """The message `msgid` with its placeholders' values (pybabel's keyword for the engine)."""
    return Msg(msgid, args) if args else Msg(msgid)


# The words a message's value may be, as messages themselves ("Strength" is "Stärke" in a German
# report): a characteristic, a counter, the two kinds of fight, an alignment as a sentence names it
# ("becomes Good").
WORDS = {"strength": msg("Strength"), "craft": msg("Craft"), "life": msg("life"), "lives": msg("lives"),
         "fate": msg("fate"), "gold": msg("gold"),
         "battle": msg("battle"), "psychic combat": msg("psychic combat"),
         "good": msg("Good"), "evil": msg("Evil"), "neutral": msg("Neutral")}

# The decks a message names ("The Adventure discards are shuffled..."): apart from WORDS, where
# "spell" would be another word.
DECKS = {"adventure": msg("Adventure"), "spell": msg("Spell"), "purchase": msg("Purchase"),
         "talisman": msg("Talisman"), "denizen": msg("Denizen"), "terrain": msg("Terrain"),
         "remnant": msg("Remnant"), "ending": msg("Ending"), "nether": msg("Nether"), "city": msg("City"),
         "dungeon": msg("Dungeon"), "treasure": msg("Treasure"), "action": msg("Action"), "tunnel": msg("Tunnel"),
         "villain": msg("Villain"), "quest": msg("Quest"), "trial": msg("Trial"), "site": msg("Site"),
         "companion": msg("Companion"), "ship": msg("Ship"), "timescape": msg("Timescape")}


def printed(name: str) -> str:
    """A card's, space's or character's name as printed, where a message names one of its own
    ("{player} reaches the {crown}!", crown=printed("Crown of Command")): a value, so a reader reads
    the name their language gives (pbem/base/printed_names.py), as they do a name the state holds."""
    return name


def word(key: str, shown: str | None = None) -> Msg:
    """`key` ("strength", "gold") as a message: a word of WORDS, else `shown` (the key when
    none) as it is, untranslated."""
    return WORDS.get(key) or Msg(key if shown is None else shown)


def deck_name(key: str) -> Msg:
    """A deck's name as a message: one of DECKS, else the key title-cased, untranslated."""
    return DECKS.get(key) or Msg(key.title())


def revived(value: Any) -> Any:
    """A message as a decoded state keeps it (msgspec writes a Msg as `[id, args]`, its values
    likewise) as a Msg again; a Msg, or anything else, as it is."""
    if isinstance(value, list) and 1 <= len(value) <= 2 and isinstance(value[0], str) and (
            len(value) == 1 or isinstance(value[1], dict)):
        return Msg(value[0], {k: revived(v) for k, v in (value[1] if len(value) > 1 else {}).items()})
    return value


def content_text(text: str | Msg) -> Msg:
    """A text a content file holds and a player reads (a card's choice: its question, its options'
    words) as a message: its id the text as the file has it (pbem/base/content_texts.py extracts
    these for the catalogue), each printed name it writes in braces ("Roll on the {Crags} table",
    docs/content.md) a value that is that name, so a reader reads the name their language gives
    and the English is the text without the braces; a message as it is."""
    if isinstance(text, Msg):
        return text
    names = braced(text)
    return Msg(text, names) if names else Msg(text)


def braced(text: str) -> dict[str, str]:
    """The printed names a content text writes in braces, each its own value ({"Crags": "Crags"});
    none where it has no braces or braces that hold no plain name (a format spec, an index): such a
    text is shown as written, braces and all, rather than failing the game."""
    if "{" not in text:
        return {}
    try:
        fields = [(name, spec, conv) for _, name, spec, conv in string.Formatter().parse(text) if name is not None]
    except ValueError:
        return {}
    if any(spec or conv or not name.strip() or name.isdigit() or "." in name or "[" in name
           for name, spec, conv in fields):
        return {}
    return {name: name for name, _, _ in fields}


Text = str | Msg  # what an emit, a question or an option takes: a message, or an English text not yet one


def english(text: Text) -> tuple[str, Msg | None]:
    """A text as the engine keeps it: its English, and its message if it is one."""
    if isinstance(text, Msg):
        return text.english(), text
    return text, None

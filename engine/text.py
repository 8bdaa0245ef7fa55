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


# The words a message's value may be (a characteristic, a counter), as messages themselves: "Strength"
# is "Stärke" in a German report.
WORDS = {"strength": msg("Strength"), "craft": msg("Craft"), "life": msg("life"), "lives": msg("lives"),
         "fate": msg("fate"), "gold": msg("gold")}


def word(key: str) -> Msg:
    """`key` ("strength", "gold") as a message: a word of WORDS, else the key as it is."""
    return WORDS.get(key) or Msg(key)


Text = str | Msg  # what an emit, a question or an option takes: a message, or an English text not yet one


def english(text: Text) -> tuple[str, Msg | None]:
    """A text as the engine keeps it: its English, and its message if it is one."""
    if isinstance(text, Msg):
        return text.english(), text
    return text, None

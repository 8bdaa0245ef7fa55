"""An option's key in the reader's words, both ways.

The engine's option keys are English words ("left", "reroll", "done") and printed names' keys
("graveyard", "cast-healing"); they stay the engine's. A player may answer with the words of any
language the service has (`ALIASES`) or a name as they were shown it (pbem/base/printed_names.py),
in any game (`read`). A reader of another language than English is shown those words in the
answer lines (`shown`): only where `read` takes the shown word back to the same key, so a line
copied from a German report is the same move. A player's name, a number and a key no language
has a word for are shown as they are.
"""
from __future__ import annotations

from pbem.base import i18n, printed_names

# A language's words for the commonest keys, each -> the engine's key. The first word given for a
# key is the one shown; the others (spelled without umlauts, a shorter word) are read too. No
# engine key is a German word, so the words never shadow a key of their own.
WORDS: dict[str, dict[str, str]] = {"de": {
    "links": "left", "rechts": "right", "behalten": "keep", "fertig": "done", "neu-würfeln": "reroll",
    "neu-wuerfeln": "reroll", "nochmal": "reroll", "nein": "no", "ja": "yes", "gold": "gold", "bleiben": "stay",
    "psychisch": "psychic", "weiter": "continue", "kämpfen": "battle", "kampf": "battle", "kaempfen": "battle",
    "nichts": "none", "ausweichen": "evade", "begegnung": "encounter-space", "feld-begegnen": "encounter-space",
    "überqueren": "cross", "ueberqueren": "cross", "stärke": "strength", "staerke": "strength", "anhalten": "stop",
    "würfeln": "roll", "wuerfeln": "roll", "leben": "life", "list": "craft", "aussetzen": "skip", "passen": "pass",
    "verlassen": "leave", "später": "later", "spaeter": "later", "zurück": "back", "zurueck": "back",
}}
ALIASES = {word: key for words in WORDS.values() for word, key in words.items()}  # read in every game
_SHOWN = {lang: {key: word for word, key in reversed(words.items())} for lang, words in WORDS.items()}


def read(key: str) -> str:
    """An answer's key (lower case) as the engine's: a language's word ("links" -> "left"), a
    translated name ("friedhof" -> "graveyard", "cast-heilung" -> "cast-healing"), else as it is."""
    return ALIASES.get(key) or printed_names.answer_key(key)


def shown(key: str, lang: str) -> str:
    """The engine's option `key` as a reader of `lang` is shown it in an answer line: their
    language's word or the name they were shown, where `read` gives `key` back; else `key`."""
    if lang == i18n.DEFAULT or not key:  # a deadline row without a default has None
        return key
    word = _SHOWN.get(lang, {}).get(key) or printed_names.shown_key(key, lang)
    return word if read(word) == key else key

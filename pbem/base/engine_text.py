"""The engine's texts in the reader's language.

The engine writes English and, beside each text it makes (an event, a question, an option),
the message it made it from (engine/text.py): an id, the English pattern with named
placeholders, and the values that fill them. A reader's catalogue (domain "engine",
pbem/locale/<lang>/LC_MESSAGES/engine.po, `make locale`) translates the pattern, and the values
fill it in: numbers as they are, names (cards, spaces, characters) in the reader's language
where the content gives them, else as printed (`name`), a value that is itself a message translated the same way.
"""
from __future__ import annotations

from typing import Any

from engine import words
from engine.text import revived
from pbem.base import boardmap, i18n, printed_names


def name(value: str) -> str:
    """A name a message shows (a card's, a space's, a character's, a player's) as the current
    reader sees it: the name the content gives in their language (pbem/base/printed_names.py), else
    as printed. A fight's English name is a name too (a preview's "a fight with ..."): a foe of the
    engine's own words (`words.FOES`, "the Lord of Darkness") is its message, Enemies met together
    ("Wild Boar and Goblin") each by its name, joined by the message that joins them."""
    lang = i18n.current()
    shown = printed_names.name(value, lang)
    if shown != value or lang == i18n.DEFAULT or not isinstance(value, str):
        return shown
    if value in words.FOES:
        return translated(words.FOES[value])
    parts = value.split(" and ")
    if len(parts) > 1 and any(printed_names.name(p, lang) != p for p in parts):
        return translated(words.joined(list(parts)))
    return value


def _parts(message: Any) -> tuple[str, dict[str, Any]]:
    """A message's id and arguments: the engine's Msg, or as stored in JSON (`[id, args]`)."""
    if isinstance(message, (list, tuple)):
        return message[0], (message[1] if len(message) > 1 else {}) or {}
    return message.id, message.args


def _is_message(value: Any) -> bool:
    return hasattr(value, "args") and hasattr(value, "id") or (
        isinstance(value, list) and 1 <= len(value) <= 2 and isinstance(value[0], str)
        and (len(value) == 1 or isinstance(value[1], dict)))


def _value(value: Any) -> Any:
    if isinstance(value, str):
        return name(value)
    if _is_message(value):
        return translated(value)
    return value


def translated(message: Any) -> str:
    """A message in the current language (its English pattern filled in when the language has no
    translation of it)."""
    mid, args = _parts(message)
    pattern = i18n.translations(i18n.current(), i18n.ENGINE_DOMAIN).gettext(mid)
    return pattern.format(**{k: _value(v) for k, v in args.items()}) if args else pattern


def said(text: str, message: Any) -> str:
    """An engine text as the current reader reads it: `text` (the engine's English) when it
    has no message or the reader reads English, else its message translated. A translation
    whose placeholders do not fit its id gives the English rather than a broken mail
    (tests/test_engine_text.py keeps the catalogue from holding one)."""
    if message is None or i18n.current() == i18n.DEFAULT:
        return text
    try:
        return translated(message)
    except (KeyError, IndexError, ValueError):
        return text


def line(value: Any) -> str:
    """A line under a pack's title in a report's frame (pbem/outbound/reports.py `pack_lines`) as
    the current reader reads it: a pack's sentence (the view's `pack_said`), a message in their
    language (in English, its English); a lasting effect in force (`{"in_force": effect}`); the
    service's own text (`{"text", "args"}`, from its catalogue); a text as it is (a frame stored
    before the lines were messages)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return boardmap.forced(value["in_force"]) if "in_force" in value else i18n._(value["text"], **value["args"])
    english = revived(value).english()
    return said(english, value)


def event_text(event: Any) -> str:
    """An event's text as the current reader reads it."""
    return said(event.text, getattr(event, "msg", None))


def questions(eng: Any, state: Any, prompts: list[dict]) -> list[dict]:
    """A view's questions as the current reader reads them (the engine's open prompts of `state`
    hold their messages)."""
    if not prompts or i18n.current() == i18n.DEFAULT:
        return prompts
    asked = {p.id: p for p in eng.prompts(state)}
    return [q if (worded := question(q, asked.get(q["id"]))) is None else worded for q in prompts]


def question(prompt: dict | None, asked: Any) -> dict | None:
    """A view's question (`{"id", "question", "options": [{"key", "text"}]}`) as the current
    reader reads it, from `asked`, the engine's prompt of that id (which holds the messages)."""
    if prompt is None or asked is None or not prompt["question"] or i18n.current() == i18n.DEFAULT:
        return prompt  # a question hidden from its reader (another's: "") stays hidden
    by_key = {o.key: getattr(o, "msg", None) for o in asked.options}
    return {**prompt, "question": said(prompt["question"], getattr(asked, "msg", None)),
            "options": [{**o, "text": option_text(o["text"], by_key.get(o["key"]))} for o in prompt["options"]]}


def option_text(text: str, message: Any) -> str:
    """An option as the current reader reads it: its message translated; an option with none is a
    name (a space to move to, a card, a player: the engine's `Option(key, name)`), in the reader's
    names."""
    return said(text, message) if message is not None else name(text)

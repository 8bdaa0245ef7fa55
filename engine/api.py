"""The only door into the engine: new_game, prompts, legal moves, apply, view, summary.

Everything here is pure: the same state and move always give the same result, and no input
is ever changed.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from engine import adjudicate, content, preview as outcomes, questions, registry, visibility
from engine.clone import clone
from engine.config import ConfigError, GameConfig, PlayerConfig  # noqa: F401  (re-exported)
from engine.errors import MODERATOR, IllegalMove  # noqa: F401  (re-exported)
from engine.packs.base import Pack
from engine.questions import DECLINE  # noqa: F401  (re-exported)
from engine.rules import leave, machine, setup
from engine.state import Event, Game, Move, Option, Prompt
from engine.text import msg

# 0.2: the Cataclysm pack, turn-ending Events discarded; 0.3: defaults not encoded;
# 0.3.1: fate rerolls share one event wording; 0.4: the Nemesis pack (fate through stats.fate, hooks)
# 0.5: fate rerolls at the Portal, the Crypt and the Mines; Counterspell against the Command Spell
# 0.6: armour rerolls, Spells on others' turns (one each), ditching, the Hex's space, the Hermit;
#      the Lost Realms, Timescape and Sea Voyage packs
# 0.7: issue 13: roll tables read no nearest row, encounter order, looting the killed, deaths
#      decided after the whole effect, the Eternal Crown's timing, Terrain on named spaces,
#      cards met by object, no impossible quests, no questions that can do nothing, the dead at 0
# 0.8: packs as declared objects, question kinds declared; `leave-game` (a resigned character leaves
# play); a teleport leaves no way back to the space before it (the Gauntlet's turning back); an
# attack between characters is told to everyone, with both sides' values
# 0.9: The Hunt's dead end ends the game with no winner; names in the events' words are values
# (printed), packs' status lines and foes as messages, the Warlock quest's words mended: the
# wording changed, so archives of 0.8 verify with a note, not as tampered
# 0.10: names inside the content files' choices are values ("Roll on the {Crags} table"), an
# attack's dice, what gold pays for, a companion level's source and the Timescape's gates are
# messages: the ids changed (the English did not), so archives of 0.9 verify with a note
# 0.11: the Hex and the Potion of Strength values in their sentences, the Deep Realms' realms, the
# Lord of Darkness and Enemies met together (why a life is lost) messages: ids changed, not the English
# 0.11.1: the Vampire and the Lich (their drink, a life or a Follower lost to them) as messages
# 0.11.2: the Pirate, the Pirate-Captain, the hostile natives, the Rat Queen and the Wraith Lord as messages
# 0.11.3: the Sea Voyage's tables as messages where a roll names them
ENGINE_VERSION = "0.11.3"


_ENC = msgspec.msgpack.Encoder()
_DEC = msgspec.msgpack.Decoder(Game)


def encode(state: Game) -> bytes:
    """The state as bytes (msgpack): what snapshots store. Holds the secret seed."""
    return _ENC.encode(state)


def decode(blob: bytes) -> Game:
    return _DEC.decode(blob)


def state_hash(state: Game) -> str:
    """The hash of the game, not of its words: the open question's messages (engine/text.py) are
    left out, so a game logged before the engine had them, or a message worded anew, hashes
    the same (pbem/archive: replays are checked against the logged hashes)."""
    return hashlib.sha256(encode(_unworded(state))).hexdigest()


def _unworded(state: Game) -> Game:
    p = state.prompt
    back = p.data.get("back") if p is not None else None  # a question to ask again (rules/items.py `reopen`)
    worded_back = isinstance(back, dict) and "words" in back
    if p is None or (p.msg is None and all(o.msg is None for o in p.options) and not worded_back):
        return state
    bare = msgspec.structs.replace(p, msg=None, options=[Option(o.key, o.text) for o in p.options])
    if isinstance(back, dict) and worded_back:
        bare.data = {**p.data, "back": {k: v for k, v in back.items() if k != "words"}}
    return msgspec.structs.replace(state, prompt=bare)


# Every function that plays or reads a game takes `packs`: packs declared outside the engine's
# list (engine/registry.py) that the game may name, e.g. a house rules pack, or one a test
# defines. The game's packs are resolved here, once per call, into the Hooks its rules ask.

def game_config(data: dict[str, Any], packs: Sequence[Pack] = ()) -> GameConfig:
    """A game config read and checked (ConfigError) against the declared packs and `packs`."""
    return GameConfig.from_dict(data, registry.declared(packs))


def new_game(config: GameConfig | dict[str, Any], seed: str, *, packs: Sequence[Pack] = ()) -> Game:
    """A game set up and run to its first prompt."""
    if isinstance(config, dict):
        config = game_config(config, packs)
    ctx = setup.new_game(config, seed, registry.hooks(config.packs, packs))
    machine.run(ctx)
    return ctx.s


def context(state: Game, events: list[Event] | None = None, *, packs: Sequence[Pack] = ()) -> machine.Ctx:
    """The context rules run in, for `state` as it is (changed in place): for tools and tests
    that drive a rule directly."""
    return machine.Ctx(state, [] if events is None else events, registry.hooks(state.packs, packs))


def replay(state: Game, moves: Iterable[Move], *, packs: Sequence[Pack] = ()) -> Game:
    """The state after `moves` are applied in turn to `state` (which is left as it was)."""
    state = clone(state)
    for move in moves:
        state, _ = apply(state, move, copy=False, packs=packs)
    return state


def prompts(state: Game) -> list[Prompt]:
    """The open prompts (at most one in the base game), each with the players still to answer."""
    if state.over or state.prompt is None:
        return []
    p = state.prompt
    waiting = [n for n in p.players if n not in p.answers]
    return [msgspec.structs.replace(p, players=waiting)]


def waiting_for(state: Game) -> list[str]:
    return [n for p in prompts(state) for n in p.players]


def legal_moves(state: Game, player: str | None = None) -> list[Move]:
    out: list[Move] = []
    for p in prompts(state):
        for name in p.players:
            if player is None or player == name:
                out.extend(Move(name, o.key, p.id) for o in p.options)
    return out


def apply(state: Game, move: Move, *, copy: bool = True, packs: Sequence[Pack] = ()) -> tuple[Game, list[Event]]:
    """The state after `move` and the events it caused. Raises IllegalMove.

    `state` is left as it was; the result shares with it what the move did not change (the
    players it did not touch). A caller that owns its state and wants only the result (a
    replay, which folds many moves over one copy) may pass copy=False: then `state` itself
    is changed and returned, and after an IllegalMove it must be dropped. A state owned so is
    one from new_game, decode or replay, or from such a fold: not one `apply` returned while
    its input is still in use."""
    if state.over:
        raise IllegalMove(msg("the game is over"), [])
    new = clone(state, players=False) if copy else state
    events: list[Event] = []
    ctx = machine.Ctx(new, events, registry.hooks(new.packs, packs), shared=copy)
    if move.key == leave.KEY:  # a player resigns: the character leaves play, whatever is asked
        leave.leave(ctx, move)
    elif move.key == adjudicate.KEY:  # the moderator settles a card, whatever is asked
        adjudicate.answer(ctx, move)
    else:
        machine.answer(ctx, move)
    machine.run(ctx)
    new.moves += 1
    return new, events


_MOVE = re.compile(r"^\s*(?:(?P<player>[A-Za-z][\w-]*)\s*:\s*)?(?:(?P<prompt>\d+)\s*:\s*)?"
                   r"(?P<key>[A-Za-z0-9][\w-]*)(?:\s+(?P<arg>.+?))?\s*$")


def parse_move(text: str, player: str | None = None) -> Move:
    """`"17: left"`, `"alice: 17: left"` or `"left"` (player given) as a Move."""
    m = _MOVE.match(text)
    if not m:
        raise IllegalMove(msg("cannot read {text!r} as an answer", text=text), [])
    name = m["player"].lower() if m["player"] else player
    if name is None:
        raise IllegalMove(msg("{text!r} does not say who answers", text=text), [])
    return Move(name, m["key"].lower(), int(m["prompt"]) if m["prompt"] else None, m["arg"])


def view(state: Game, player: str | None, *, packs: Sequence[Pack] = ()) -> dict[str, Any]:
    """What `player` may see (None or "moderator": everything but the seed)."""
    return visibility.view(state, player, registry.hooks(state.packs, packs))


def view_questions(state: Game, player: str | None) -> dict[str, Any]:
    """The part of `player`'s view about the open questions ("over", "prompt", "mine"), without the
    rest of the view: what a mail's headers name (pbem/outbound/reports.py)."""
    return visibility.view_questions(state, player)


def redeal(state: Game, player: str, seed: str, *, packs: Sequence[Pack] = ()) -> Game:
    """A game `player` cannot tell from `state`: a new seed, and every card they may not see dealt
    again at random (engine/visibility.py): what a bot plays ahead on (engine/bots/)."""
    return visibility.redeal(state, player, seed, registry.hooks(state.packs, packs))


def summary(state: Game, *, packs: Sequence[Pack] = ()) -> dict[str, Any]:
    """The public summary: the JSON contract of DESIGN.md."""
    return visibility.summary(state, registry.hooks(state.packs, packs))


def crown_wins(state: Game, player: str, *, packs: Sequence[Pack] = ()) -> bool:
    """Whether reaching the Crown of Command could win the game for `player`'s character as
    things stand (an ending may ask more first: The Hunt's four Nether Enemies, a public count)."""
    ctx = context(state, packs=packs)
    return ctx.hooks.crown_wins(ctx, ctx.index(player))


def filter_events(events: list[Event], player: str | None) -> list[Event]:
    return [e for e in events if visibility.may_see(e, player)]


def question_kinds() -> list[questions.QuestionKind]:
    """Every kind of question the engine may ask, by name: what it asks, what its options mean
    and the keys a missed deadline plays (engine/questions.py)."""
    return [questions.KINDS[k] for k in sorted(questions.KINDS)]


def board(config: GameConfig | dict[str, Any], *, packs: Sequence[Pack] = ()) -> dict[str, list[str]]:
    if isinstance(config, dict):
        config = game_config(config, packs)
    return content.load(config.edition, registry.hooks(config.packs, packs).sources).board.rings


def preview(state: Game, player: str, *, packs: Sequence[Pack] = ()) -> dict[str, Any]:
    """What each answer open to `player` would lead to, up to the first die, card or question
    (engine/preview.py: nothing not yet known is in it)."""
    return outcomes.outcomes(state, player, registry.hooks(state.packs, packs))


def duel(state: Game, player: str, *, packs: Sequence[Pack] = ()) -> dict[str, Any] | None:
    """The attack between characters `player` is in: who, how, each side's value (engine/preview.py)."""
    return outcomes.duel(state, player, registry.hooks(state.packs, packs))

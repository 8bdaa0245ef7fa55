"""The engine's preview of each answer (engine/preview.py), which reports turn into "left →
Chapel (Outer Region)" and "a new die: 1: ...": it knows only what the rules already decide."""
import random

import msgspec
import pytest

from engine import api
from pbem import bot

HEROES = [{"name": "alice", "character": "wizard"}, {"name": "bob", "character": "priest"}]


def at_the_tavern_roll(roll: int):
    """alice one space short of the Tavern with a movement die of 1, then `roll` for the table."""
    state = api.new_game({"players": HEROES}, "preview-tavern")
    state.players[0].space, state.forced = "fields-5", [1, roll]
    while state.prompt.kind != "table-reroll":
        key = {"direction": "left"}.get(state.prompt.kind, "done")
        state, _ = api.apply(state, api.Move("alice", key, state.prompt.id))
    return state


def test_a_kept_roll_says_what_it_does_and_a_reroll_each_face():
    state = at_the_tavern_roll(3)
    assert state.prompt.question.startswith("You roll 3 for Tavern")
    out = api.preview(state, "alice")
    assert out["keep"]["events"] == ["alice rolls 3 for Tavern: 3.", "alice loses 1 gold."]
    faces = out["reroll"]["faces"]
    assert faces["4"]["effects"] == ["alice gains 1 gold."] and faces["1"]["effects"] == ["alice will miss 1 turn(s)."]
    assert faces["2"]["stop"] == "unknown" and faces["2"]["cut"]["name"] == "Farmer" and faces["2"]["cut"]["strength"] == 3
    # each face is what the engine then really does with that die
    for face in ("1", "3", "4"):
        trial = msgspec.structs.replace(state, forced=[int(face)])
        _, events = api.apply(trial, api.Move("alice", "reroll", state.prompt.id))
        texts = [e.text for e in events]
        assert all(t in texts for t in faces[face]["events"]), (face, texts)


def test_a_move_names_where_it_ends_and_the_bridge_it_stops_at():
    state = api.new_game({"players": HEROES}, "preview-bridge")
    state.players[0].space, state.forced = "woods", [4]
    while state.prompt.kind != "direction":
        state, _ = api.apply(state, api.Move("alice", "done", state.prompt.id))
    out = api.preview(state, "alice")
    assert out["left"]["moved"] and out["left"]["space_name"] == "Fields" and out["left"]["region"] == "outer"
    right = out["right"]
    assert not right["moved"] and right["stop"] == "question" and right["at"] == "Sentinel"
    assert "Sentinel's bridge" in right["question"]
    asked, _ = api.apply(state, api.Move("alice", "right", state.prompt.id))
    assert asked.prompt.question == right["question"]
    went, _ = api.apply(asked, api.Move("alice", "continue", asked.prompt.id))
    assert right["then"]["continue"]["space"] == went.players[0].space != "woods"
    assert right["then"]["cross"]["cut"]["name"] == "Sentinel" or right["then"]["cross"]["stop"] == "question"


def hidden_changed(state):
    """The same game with everything nobody may know changed: another seed, every deck reversed."""
    return msgspec.structs.replace(state, seed=state.seed + "-other",
                                   decks={k: v[::-1] for k, v in state.decks.items()})


@pytest.mark.parametrize("packs", [[], ["cataclysm"], ["timescape"]])
def test_a_preview_holds_nothing_not_yet_known_and_changes_nothing(packs):
    """Along random games: the preview of every open question is the same whatever the seed and
    the order of the decks (so no die to come and no card to be drawn is in it), and it leaves
    the state as it was."""
    rnd = random.Random(7)
    state = api.new_game({"players": HEROES + [{"name": "carol"}], "packs": packs}, "preview-leak")
    previews = 0
    for _ in range(150):
        move = bot.choose(state, rnd)
        if move is None:
            break
        asked = api.prompts(state)[0].players
        if len(asked) == 1 and asked[0] != api.MODERATOR:
            before = api.state_hash(state)
            seen = api.preview(state, asked[0])
            api.duel(state, asked[0])
            assert api.state_hash(state) == before
            assert seen == api.preview(hidden_changed(state), asked[0]), (packs, state.prompt)
            previews += 1
        state, _ = api.apply(state, move)
    assert previews > 50


def test_no_preview_for_the_moderator_or_one_not_asked():
    state = api.new_game({"players": HEROES}, "preview-who")
    assert api.preview(state, api.MODERATOR) == {} and api.preview(state, "bob") == {}
    assert api.preview(state, "alice")  # the one asked has one

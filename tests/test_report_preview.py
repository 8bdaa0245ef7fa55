"""The engine's preview of each answer (engine/preview.py), which reports turn into "left: then
Chapel (Outer Region)" and "a new die: 1: ...": it knows only what the rules already decide."""
import random

import msgspec
import pytest

from engine import api
from pbem import bot

HEROES = [{"name": "alice", "character": "wizard"}, {"name": "bob", "character": "priest"}]


def one_asked_along_a_game(packs: list[str], seed: str, rnd_seed: int, moves: int):
    """(state, reader, hooks) at each move of a random game where one player (not the moderator) is asked."""
    state = api.new_game({"players": HEROES + [{"name": "carol"}], "packs": packs}, seed)
    hooks = api.context(state).hooks
    for at, reader in bot.asked_alone(state, random.Random(rnd_seed), moves):
        yield at, reader, hooks


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
    assert faces["2"]["stop"] == "unknown"
    assert faces["2"]["cut"]["name"] == "Farmer" and faces["2"]["cut"]["strength"] == 3
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


def played_copying_every_task(state, player, key, faces=None):
    """The preview's stopping point found the plain way (the way engine/preview.py first did it:
    a copy kept before every task, taken back when the task draws or ends the turn), as an
    oracle for `preview.play`, which keeps only where the reader stood before each task: where
    the character stands (the space's name as it stood then), whether it moved, what the reader
    saw, where and why it stopped; and, when a task was taken back, how many ran before it and
    the hash of the game as they left it."""
    from engine import visibility
    from engine.clone import clone
    from engine.preview import _unknown_marks
    from engine.rules import machine
    s = clone(state)
    s.forced = list(faces or [])
    i = api.context(s).index(player)
    turn, marks, events, stop, cut, back = s.turn, _unknown_marks(s), [], "end", None, None
    before = clone(s)
    machine.answer(api.context(s, events), api.Move(player, key, s.prompt.id))
    if _unknown_marks(s) != marks:
        s, stop, events = before, "unknown", []
    else:
        ctx, ran = api.context(s, events), 0
        while s.prompt is None and s.stack and not s.over:
            seen, before, t, ran = len(events), clone(s), s.stack.pop(), ran + 1
            meets = {"op": t.op, **{k: t.a[k] for k in ("name", "strength", "craft") if k in t.a}}
            machine.TASKS[t.op](ctx, t)
            if _unknown_marks(s) != marks or s.turn != turn:
                stop, cut = ("unknown", meets) if _unknown_marks(s) != marks else (stop, cut)
                s, events, back = before, events[:seen], (ran - 1, api.state_hash(before))
                break
        else:
            stop = "question" if s.prompt is not None else "end"
    sid = s.players[i].space
    return {"events": [e.text for e in events if visibility.may_see(e, player)], "space": sid,
            "space_name": api.context(s).space(sid).name if sid else None,
            "moved": sid != state.players[i].space,
            "stop": stop, "cut": cut, "question": s.prompt.question if stop == "question" else None}, back


@pytest.mark.parametrize("packs", [[], ["cataclysm", "lost-realms"], ["timescape"]])
def test_the_preview_stops_where_a_copy_before_every_task_would(packs):
    """engine/preview.py keeps where the reader stood before each task instead of a copy of the
    game (issue 18: the copies were a quarter of the mail pipeline's time; issue 28: the tasks
    played again were a quarter of a preview): along random games, every answer's outcome (a
    reroll's too, face by face) is the one the plain way finds."""
    from engine import preview
    compared = set()
    for state, reader, hooks in one_asked_along_a_game(packs, "preview-replay", 11, 120):
        for o in state.prompt.options:
            for faces in ([None] + [[f] for f in preview.FACES] if o.key == preview.REROLL else [None]):
                got = preview.play(state, reader, o.key, hooks, faces, deeper=False)
                want, back = played_copying_every_task(state, reader, o.key, faces)
                assert {k: got[k] for k in want} == want, (packs, state.prompt.kind, o.key, faces)
                compared.add((want["stop"], bool(want["events"]), back is not None))
    assert {("unknown", True, True), ("question", True, False), ("end", True, True)} <= compared  # each way met


def test_where_an_answer_leads_is_named_in_the_readers_language(svc):
    """A German reader's 'dann Felder (Äußere Region)': the space by the names file's German, as
    everywhere else she reads it (it said 'dann Fields'); an English reader's line unchanged."""
    from pbem.base import i18n
    from pbem.outbound import leads
    state = api.new_game({"players": HEROES}, "preview-bridge")
    state.players[0].space, state.forced = "woods", [4]
    while state.prompt.kind != "direction":
        state, _ = api.apply(state, api.Move("alice", "done", state.prompt.id))
    asked = svc.engine.view(state, "alice")["mine"]
    with i18n.using("de"):
        german = leads.leads(svc, state, "alice", asked)["left"]
    english = leads.leads(svc, state, "alice", asked)["left"]
    assert german == ["dann Felder (Äußere Region)"], german
    assert english == ["then Fields (Outer Region)"], english


@pytest.mark.parametrize("packs", [[], ["cataclysm", "lost-realms"], ["timescape"]])
def test_each_answer_to_the_next_question_is_played_as_on_its_own_copy(packs):
    """The reader's next question (a crossing, each face of a reroll's new direction): its last
    answer is played on the preview's own copy, not a new one (issue 28). Along random games,
    each of its answers leads where it would from the game that answer's move makes, and an
    answer played in place (`own`) on a copy leads where it does on the game itself."""
    from engine import preview
    from engine.clone import clone
    nested = 0
    for state, reader, hooks in one_asked_along_a_game(packs, "preview-then", 5, 150):
        before = api.state_hash(state)
        out = api.preview(state, reader)
        for o in state.prompt.options:
            alone = {k: v for k, v in out[o.key].items() if k != "faces"}  # outcomes adds a reroll's faces
            assert preview.play(clone(state), reader, o.key, hooks, own=True) == alone
            for face, got in [(None, out[o.key])] + [([int(f)], g) for f, g in out[o.key].get("faces", {}).items()]:
                if "then" not in got:
                    continue
                made, _ = api.apply(msgspec.structs.replace(state, forced=face or []),
                                    api.Move(reader, o.key, state.prompt.id))
                assert got["then"] == {k.key: preview.play(made, reader, k.key, hooks, deeper=False)
                                       for k in made.prompt.options}, (packs, o.key, face)
                nested += 1
        assert api.state_hash(state) == before
    assert nested > 5


def test_a_terrain_laid_on_the_readers_space_is_its_name_when_a_later_task_is_taken_back(monkeypatch):
    """engine/preview.py makes where the reader stands again before a task only when the space
    changed or a Terrain card covers it (issue 28: made before every task, it was a twentieth of
    a preview). A task that lays a Terrain on the reader's space without a draw (as a Terrain
    moved from another space does), then one that draws: the outcome names the space as the
    Terrain had it just before the draw, not as it was when the play began."""
    from engine import preview
    from engine.rules import machine
    from engine.state import Prompt, Task, option
    state = api.new_game({"players": HEROES}, "preview-terrain")
    sid, card = state.players[0].space, "wolf"
    assert card in api.context(state).content.cards
    monkeypatch.setitem(machine.ANSWERS, "test-nothing", lambda ctx, prompt, key, arg, who: None)
    monkeypatch.setitem(machine.TASKS, "test-cover", lambda ctx, t: ctx.s.piles.__setitem__(f"terrain@{sid}", [card]))
    monkeypatch.setitem(machine.TASKS, "test-draw", lambda ctx, t: setattr(ctx.s, "rng", ctx.s.rng + 1))
    state.prompt = Prompt(state.next_prompt, ["alice"], "test-nothing", "?",
                          [option("go", "go"), option("stay", "stay")])
    state.stack.extend([Task("test-draw", 0, {}), Task("test-cover", 0, {})])  # the last runs first
    out = preview.play(state, "alice", "go", api.context(state).hooks)
    assert out["stop"] == "unknown" and out["cut"] == {"op": "test-draw"}
    assert out["space"] == sid and out["space_name"] == api.context(state).content.cards[card].name != \
        api.context(state).content.space(sid).name

"""Issue 17, "Done means": a whole game with the City, the Dungeon and the Deep Realms plays
through by mail with the bot. Every question is answered by a player's mail (the moderator's by
`game answer`) as tests/bymail.py plays it, until the game ends; every mail it queued renders."""
from bymail import play_by_mail
from conftest import game_config

from engine.content import load
from pbem.core import games
from pbem.moderate import newgame
from pbem.outbound import outbox

DEEP = ["city", "dungeon", "deep-realms"]
BESIDE = ("city", "dungeon", "rat-lair", "wraith-domain")  # the rings of the three packs' boards
HEROES = [("alice", "troll"), ("bob", "warrior"), ("carol", "dwarf")]
ROUNDS = 30  # the config's turn cap: the game ends (no winner) after these rounds, if no one won first
# A game that never left the main board would prove little, so the seeds are tried in turn until
# one takes characters into the City, the Dungeon and a Realm within the turn cap (a rules change
# moves the dice, so no single seed is kept); every game tried must still end and render.
SEEDS = [f"deep-by-mail-{i}" for i in range(12)]


def test_a_whole_city_dungeon_and_deep_realms_game_plays_through_by_mail(make_service, tmp_path):
    board = load("revised4", tuple(DEEP)).board
    beside = {s for ring in BESIDE for s in board.rings[ring]}
    tried = {}
    for seed in SEEDS:
        svc = make_service(home=tmp_path / seed)
        rings = play(svc, seed, beside, board)
        if {"city", "dungeon"} <= rings and rings & {"rat-lair", "wraith-domain"}:
            return
        tried[seed] = sorted(rings)
    raise AssertionError(f"no seed took a character into the City, the Dungeon and a Realm: {tried}")


def play(svc, seed, beside, board) -> set[str]:
    """One whole game by mail; the rings of the three packs' boards its characters were seen on."""
    g = newgame.create(svc, game_config(name="deep-mail", seed=seed, packs=DEEP, options={"turn_cap": ROUNDS},
                                        players=[(n, f"{n}@example.org") for n, _ in HEROES],
                                        characters=dict(HEROES)))
    went = set()  # (player, ring) of each character seen in the City, the Dungeon or a Realm
    answers = 0
    for step in play_by_mail(svc, g, 3, 5000):
        answers += 1
        went |= {(p.name, board.spaces[p.space].ring) for p in step.state.players if p.space in beside}
    state = games.state(svc, games.get(svc, g))
    assert state.over and games.get(svc, g)["status"] == "ended", (seed, answers, state.turn)
    rows = svc.store.outbox_rows()
    assert any(r["kind"] == "gameover" for r in rows)
    for r in rows:  # every mail renders, both parts
        mail = outbox.mail(svc, r["id"])
        assert mail["text"].strip() and mail["html"].strip(), (r["kind"], r["player"])
    return {ring for _, ring in went}

"""No view shows a facedown Tunnel stack's cards before they are turned (lost-realms.txt, Old
Sewers and Catacombs: "hidden from every player, its owner included"). A game with the City, the
Dungeon and the Deep Realms is played by mail (tests/bymail.py) until characters hold facedown
stacks; then, at every move, the cards still facedown are canaries that no mail, no page (public
or a seat's), no engine view or summary, and no scoped archive or replay may name -- for any
reader, the stack's owner included -- unless what that reader may see names the card otherwise (a
copy turned faceup, one on a sheet). Done the way tests/test_leaks.py and tests/test_web_leaks.py
read mails and pages."""
import functools
import html
import io
import re
from collections import Counter

from bymail import play_by_mail
from conftest import game_config
from test_web import seat_url, web  # noqa: F401 -- the fixture

from engine.clone import clone
from engine.content import load
from pbem import bot
from pbem.archive import archive, replay
from pbem.moderate import moderator, newgame
from pbem.outbound import outbox, reports

HEROES = [("alice", "troll"), ("bob", "warrior"), ("carol", "dwarf")]
DEEP = ["city", "dungeon", "deep-realms"]
MOVES = 800  # at most: the game stops being watched once stacks were held long enough
ENOUGH = 40  # moves with a stack facedown


def named(name: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def readable(svc, row: dict) -> str:
    msg = outbox.build(svc, row)
    texts = [p.get_content() for p in msg.walk() if p.get_content_maintype() == "text"]
    return "\n".join([*(f"{k}: {v}" for k, v in msg.items()), *texts])


def facedown(state) -> Counter:
    """The names of the cards lying facedown in every Tunnel stack now (the turned ones on top apart)."""
    content = load(state.edition, tuple(state.packs))
    out: Counter = Counter()
    for p in state.players:
        cards = state.decks.get(f"tunnel-stack-{p.name}", [])
        out.update(content.cards[c].name for c in cards[:len(cards) - p.flags.get("dr-faceup", 0)])
    return out


def times(name: str, text: str) -> int:
    return len(re.findall(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text))


def without_facedown(state):
    """The state with the stacks' facedown cards taken away: a view of it names a card as often as
    the real one does only if the real one does not name the facedown cards."""
    bare = clone(state)
    for p in bare.players:
        deck = f"tunnel-stack-{p.name}"
        if deck in bare.decks:
            up = p.flags.get("dr-faceup", 0)
            bare.decks[deck] = bare.decks[deck][len(bare.decks[deck]) - up:]
    return bare


def canaries_for(eng, seen, bare, hidden, just_turned, reader) -> set[str]:
    """What the reader may not see named: unless an event it was shown before, or its view of the
    game without the facedown cards, names it (a copy turned faceup, one on a sheet)."""
    visible = "\n".join(seen[reader] + [repr(eng.view(bare, reader) if reader else eng.summary(bare))])
    return {c for c in hidden if not named(c, visible) and c not in just_turned}


def steer(real):
    """The bot, but into the Realms whenever it may be: the stacks are dealt early and often."""
    def choose(state, rnd):
        move = real(state, rnd)
        if move is not None and state.prompt is not None:
            keys = [o.key for o in state.prompt.options]
            for key in ("enter-old-sewers", "enter-catacombs"):
                if key in keys:
                    return bot.api.Move(move.player, key, move.prompt)
        return move
    return choose


def test_no_report_page_view_or_archive_shows_a_facedown_tunnel_card(web, monkeypatch, tmp_path):  # noqa: F811
    svc, client = web
    eng = svc.engine
    names = [n for n, _ in HEROES]
    monkeypatch.setattr(bot, "choose", steer(bot.choose))
    g = newgame.create(svc, game_config(name="deep-leaks", seed="deep-leak-seed-1", packs=DEEP,
                                        players=[(n, f"{n}@example.org") for n in names], characters=dict(HEROES)))
    # The moderator's word puts bob and carol beside the Realms for their first turns (alice's is open).
    moderator.adjudicate(svc, g, "bob space sewer-grate, carol space crypt-stair")
    seen = {n: [] for n in [None, *names]}  # every event text each reader has been shown
    mails = pages = views = held = turned = 0
    before: Counter = Counter()
    for i, step in enumerate(play_by_mail(svc, g, 1, MOVES)):
        state = step.state
        hidden = facedown(state)
        bare = without_facedown(state)
        just_turned = before - hidden  # named by the events that turn them (a copy may stay facedown)
        before = hidden
        turned += sum(1 for e in step.events if "turns up" in e.text and "Tunnel stack" in e.text)

        canaries = functools.partial(canaries_for, eng, seen, bare, hidden, just_turned)
        for reader in seen:  # this move's events first: none names a card still facedown
            texts = [e.text for e in eng.filter_events(step.events, reader or reports.SPECTATOR)]
            leaked = [c for c in canaries(reader) if any(named(c, t) for t in texts)]
            assert not leaked, (reader, "events", leaked, texts)
            seen[reader] += texts
        if held >= ENOUGH and turned:
            break
        if not hidden:
            if not state.over and state.current != 1 and state.players[1].alive:
                moderator.adjudicate(svc, g, "bob space sewer-grate")  # back to the Realm's door
            continue
        held += 1
        for reader in [*names, None]:  # the engine's views, the owner's own included: exactly
            view, other = (eng.view(s, reader) if reader else eng.summary(s) for s in (state, bare))
            assert [times(c, repr(view)) for c in hidden] == [times(c, repr(other)) for c in hidden], (reader, hidden)
            views += 1
        for r in step.new:
            if r["player"] is None:
                continue
            text = readable(svc, outbox.mail(svc, r["id"]))
            leaked = [c for c in canaries(r["player"]) if named(c, text)]
            assert not leaked, (r["kind"], r["player"], leaked)
            mails += 1
        if i % 4 == 0:
            for reader in [None, *names]:
                r = client.get(f"/g/{g}" if reader is None else seat_url(svc, g, reader))
                assert r.status_code == 200
                leaked = [c for c in canaries(reader) if named(c, html.unescape(r.text))]
                assert not leaked, (reader, "page", leaked)
                pages += 1
        if held == 20:  # the archives of a game with stacks facedown, as each player may read them
            full = archive.export(svc, g)
            for reader in names:
                mine = archive.export(svc, g, reader)
                out, out_full = io.StringIO(), io.StringIO()
                replay.show(mine, reader, out=out)
                replay.show(full, reader, out=out_full)
                written = replay.write_html(full, tmp_path / reader, reader)
                for what, text in {"export --as": archive.dumps(mine), "replay --as": out.getvalue(),
                                   "replay --as (full file)": out_full.getvalue(),
                                   "replay --html --as": "\n".join(p.read_text() for p in written)}.items():
                    leaked = [c for c in canaries(reader) if named(c, text)]
                    assert not leaked, (reader, what, leaked)
    assert held >= ENOUGH and views > 90 and mails > 20 and pages > 20, (held, views, mails, pages)
    assert turned, "no Tunnel card was ever turned: the test did not see a stack met"

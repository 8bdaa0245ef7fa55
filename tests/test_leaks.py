"""No mail shows a player what they may not see. Random playouts (pbem.bot) are played
through the service -- every answer a player's mail, the moderator's by `game answer` --
with characters that start with Spells, and after every move each new mail is read as its
reader gets it: it must name no Spell that another player holds at that moment and the
reader does not (unless what the reader may see names it: a Spell cast in the open, a
space of the same name), hold neither the seed (until the game-over mail) nor any token
but the reader's own, and that one only in the Reply-To (and the welcome).

Players are mailed at turns, not at every move (pbem/outbound/turnmail.py): a report shows every event
its reader may see of the moves since their last report, so what a reader may see is what
tests/bymail.py gathered for them since then.

Each test has a PostgreSQL half (one playout each) behind the `postgres` marker."""
import functools
import re
from pathlib import Path

import pytest
from bymail import play_by_mail
from conftest import game_config, token

from engine import content
from pbem.base import printed_names
from pbem.core import games
from pbem.moderate import newgame
from pbem.outbound import glossary, outbox, render, reports
from pbem.pace import daily

HEROES = [("alice", "wizard"), ("bob", "priest"), ("carol", "sorceress"), ("dave", "prophetess")]
MOVES = 200  # per game: enough for Spells to be drawn, cast and traded, and for mails at each turn


def readable(svc, row: dict) -> str:
    """The mail as its reader sees it: headers and both parts, decoded."""
    msg = outbox.build(svc, row)
    texts = [p.get_content() for p in msg.walk() if p.get_content_maintype() == "text"]  # not the game-over archive
    return "\n".join([*(f"{k}: {v}" for k, v in msg.items()), *texts])


def spells_held(svc, state) -> dict[str, set[str]]:
    return {n: set(svc.engine.view(state, n)["players"][n]["spells"]) for n, _ in HEROES}


@functools.cache
def explained() -> dict[str, frozenset[str]]:
    """Each card's name -> its one-line explanations, in English and in German (a report's line
    for a card tells which card it is as its name does: printed_texts.py)."""
    out: dict[str, set[str]] = {}
    for pack in sorted(p.name for p in (Path(content.__file__).parent / "content").iterdir() if p.is_dir()):
        for card in content.load("revised4", () if pack == "revised4" else (pack,)).cards.values():
            if card.text:
                out.setdefault(card.name, set()).update(" ".join(glossary.one_line(card, lang).split())
                                                        for lang in ("en", "de"))
    return {name: frozenset(lines) for name, lines in out.items()}


def named(name: str, text: str) -> bool:
    """Whether `text` names the card: as printed, as a German reader's names file gives it, or by
    its text in either language."""
    if any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text) is not None
           for n in {name, printed_names.name(name, "de")}):
        return True
    flat = " ".join(text.split())
    return any(line in flat for line in explained().get(name, ()))


@pytest.mark.parametrize("seed,packs,lang", [(1, [], "en"), (2, [], "de"), (3, [], "en"),
                                             (4, ["cataclysm", "lost-realms"], "de"), (5, ["timescape"], "en"),
                                             (6, ["sea-voyage"], "en")])
def test_no_mail_leaks_another_players_spells_the_seed_or_a_token(svc, seed, packs, lang):
    """Every pack's part of the reports (pack_lines) passes through here too; in English and in
    German (issue 29: a mail in its reader's language is made by the same code)."""
    config = game_config(name=f"leaks-{seed}", seed=f"leak-seed-{seed}", language=lang,
                         players=[(n, f"{n}@example.org") for n, _ in HEROES], characters=dict(HEROES), packs=packs)
    g = newgame.create(svc, config)
    eng = svc.engine
    toks = {n: token(svc, g, n) for n, _ in HEROES}
    seed_text = games.seed(svc, svc.store.game(g))
    checked = canaries = own_shown = 0
    for i, step in enumerate(play_by_mail(svc, g, seed, MOVES)):
        state = step.state
        held = spells_held(svc, state)
        public = render.board(svc, reports.make_frame(svc, state)).text
        for r in [*step.new, *(digests(svc, i) if i % 10 == 0 else [])]:
            reader = r["player"]
            if reader is None:  # the moderator's notices: the moderator sees everything
                continue
            text = readable(svc, outbox.mail(svc, r["id"]))
            assert f"Content-Language: {lang}" in text
            asked = [p["question"] + " " + " ".join(o["text"] for o in p["options"])
                     for p in eng.view(state, reader)["prompt"]]  # e.g. the roll for a Spell one cast
            visible = "\n".join([public, *asked, *step.since[reader]])
            canary = set().union(*(held[o] for o in held if o != reader)) - held[reader]
            canary = {s for s in canary if not named(s, visible)}
            leaked = [s for s in canary if named(s, text)]
            assert not leaked, (f"{r['kind']} to {reader} names {leaked}, held by others",
                                [ln for ln in text.splitlines() if any(named(s, ln) for s in leaked)])
            own_shown += all(named(s, text) for s in held[reader]) and bool(held[reader])
            canaries += bool(canary)
            checked += 1
            assert (seed_text in text) == (r["kind"] == "gameover"), r["kind"]
            for name, tok in toks.items():
                if name != reader or r["kind"] == "daily":  # a digest carries the address's token, no seat's
                    assert tok not in text, f"{r['kind']} to {reader} holds {name}'s token"
                elif r["kind"] != "welcome":
                    assert text.count(tok) == 1 and f"Reply-To: talisman+{tok}@" in text
    assert checked > 100 and canaries > 50 and own_shown > 20, (checked, canaries, own_shown)


def digests(svc, i: int) -> list[dict]:
    """Each hero's digest now (issue 29: it lists the reader's own question and options, and what
    happened since the seat's last mail), as outbox rows with the reader's name, checked as every
    other mail."""
    made = []
    for name, _ in HEROES:
        if daily.queue(svc, f"{name}@example.org", mid_parts=("leak", i), catch_up=True):
            row = [r for r in svc.store.outbox_rows() if r["kind"] == "daily"][-1]
            made.append({**row, "player": name})
    return made


NEMESIS = "nick"
NEMESIS_HEROES = ["ann", "ben", "cat"]


@pytest.mark.parametrize("seed", [1, 2])
def test_a_nemesis_game_by_mail_never_shows_a_hero_the_nemesis_hand(svc, seed):
    """issue 7's end: a Nemesis game with 3 heroes played to its end through the mail
    pipeline; no hero's mail names an Action card in the Nemesis's hand at that moment (one
    played in the open may be named), and the Nemesis's own reports do show the hand."""
    names = [NEMESIS] + NEMESIS_HEROES
    config = game_config(name=f"nemesis-{seed}", seed=f"nem-seed-{seed}", edition="fifth", packs=["nemesis"],
                         players=[(n, f"{n}@example.org") for n in names])
    config["players"][0]["role"] = "nemesis"
    g = newgame.create(svc, config)
    eng = svc.engine
    hero_mails = hand_shown = 0
    for step in play_by_mail(svc, g, seed, 4000):
        hand = set(eng.view(step.state, NEMESIS)["players"][NEMESIS]["hand"])
        for r in step.new:
            text = readable(svc, outbox.mail(svc, r["id"]))
            if r["player"] == NEMESIS:
                hand_shown += bool(hand) and all(named(c, text) for c in hand)
            elif r["player"] in NEMESIS_HEROES:
                public = "\n".join(step.since[r["player"]])
                leaked = [c for c in hand if named(c, text) and not named(c, public)]
                assert not leaked, (r["kind"], r["player"], leaked)
                hero_mails += 1
    final = games.state(svc, games.get(svc, g))
    assert final.over and final.winners, "the game reached its end"
    assert hero_mails > 100 and hand_shown > 10, (hero_mails, hand_shown)
    # issue 31: every Nemesis card plays by itself: the moderator was never asked to adjudicate
    assert not [r["line"] for r in svc.store.moves(g) if r["player"] == eng.MODERATOR]


def test_player_scoped_exports_and_replays_show_others_answers_only_as_public_events(svc, tmp_path):
    """Issue 21 (5): `export --as`, `replay --as` and `replay --html --as` printed every move
    line, so the Nemesis's archive showed which Boon each hero took (`ann: 19: boon-1`). A
    Nemesis game played by mail, then every scoped form read for every other player's line."""
    import io

    from pbem.archive import archive, replay, verify

    names = [NEMESIS] + NEMESIS_HEROES
    config = game_config(name="scoped", seed="scoped-archive-seed-1", edition="fifth", packs=["nemesis"],
                         players=[(n, f"{n}@example.org") for n in names])
    config["players"][0]["role"] = "nemesis"
    g = newgame.create(svc, config)
    for _ in play_by_mail(svc, g, 7, 300):
        pass
    logged = [m for m in svc.store.moves(g) if m["kind"] == "move"]
    full = archive.export(svc, g)
    assert all(any(m["line"] in mm["line"] for mm in full["moves"]) for m in logged[:5])  # the full one has them
    for reader in names:
        others = [m["line"] for m in logged if m["player"] != reader]
        own = [m["line"] for m in logged if m["player"] == reader]
        mine = archive.export(svc, g, reader)
        out = io.StringIO()
        replay.show(mine, reader, out=out)  # replay --as from the store
        out_full = io.StringIO()
        replay.show(full, reader, out=out_full)  # replay --as of a full archive file
        pages = replay.write_html(full, tmp_path / reader, reader)  # replay --html --as
        texts = {"export --as": archive.dumps(mine), "replay --as": out.getvalue(),
                 "replay --as (full file)": out_full.getvalue(),
                 "replay --html --as": "\n".join(p.read_text() for p in pages)}
        for what, text in texts.items():
            shown = [line for line in others if line in text]
            assert not shown, (reader, what, shown[:3])
        assert own and all(line in texts["replay --as"] for line in own)  # a reader's own answers stay
        assert verify.verify(mine).ok  # the links of the hidden moves still hold
    boons = [m["line"] for m in logged if "boon" in m["line"]]
    assert boons, "no Boon was taken: the test did not reach the private choice it guards"


@pytest.mark.postgres
def test_no_mail_leaks_on_postgresql_either(make_service, pg_url):
    """The same playout with the store on PostgreSQL: what a mail shows is the store's
    rows read back, so a store that returned them differently would show it here (in German:
    the translated mails too)."""
    test_no_mail_leaks_another_players_spells_the_seed_or_a_token(make_service(db=pg_url), 2, [], "de")


@pytest.mark.postgres
def test_player_scoped_exports_on_postgresql_either(make_service, pg_url, tmp_path):
    test_player_scoped_exports_and_replays_show_others_answers_only_as_public_events(make_service(db=pg_url),
                                                                                      tmp_path)


@pytest.mark.postgres
def test_a_nemesis_game_on_postgresql_either(make_service, pg_url):
    """A game played to its end by mail on PostgreSQL: a hand private to one seat, the
    game-over mail and its archive, all read back from the other store."""
    test_a_nemesis_game_by_mail_never_shows_a_hero_the_nemesis_hand(make_service(db=pg_url), 1)


def test_a_cards_text_names_it_in_either_language():
    """A report's line for a card tells which card it is: a hidden Spell's German line, wrapped as
    a text mail wraps it, counts as naming it, as its name does."""
    wrapped = "  Heilen Sie eine beliebige Figur, Sie selbst\n    eingeschlossen, bis zu ihrem Lebenswert."
    assert named("Healing", wrapped)
    assert named("Healing", "Heal any one character, yourself included, up to their Life value.")
    assert not named("Healing", "Heilen Sie sich selbst.")

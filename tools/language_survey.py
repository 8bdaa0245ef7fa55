"""Issue 29: the English a German reader still meets, found by playing.

One short game of each pack set is played by mail through the real pipeline (as
bench/pipeline.py does: a reply mail per answer handed to `process.handle`, a bot choosing a
random legal answer, the moderator's questions skipped), with one seat (`anna`) reading German
(`language = "de"` in [[players]]). Between her answers she writes the service a few of its
commands in German (status, help, a new address, a vacation, a standing order, a wrong line...),
so the replies to those are read too. The game has deadlines, and now and then the clock moves
on by hours (reminders, answers played by default, her daily digest); another seat writes her a
message; at the end the moderator ends the game (the game-over mail). Every mail she gets (its
subject and text part, or with --html its HTML part; the code mail to a new address included)
is rendered as it would be sent, and each line is checked against a list of common English
words that are not German words: the lines with one are printed once each (digits folded, the
first one seen shown), with the words found and the pack sets that showed it; then the count
per pack set.

Printed names that have no German name yet (the stand-ins, as printed) and their answer keys
are taken out of a line before it is checked: a line whose only English is such a name is not
counted. Everything else is: an English answer key ("right-1") is English to the reader.

    .venv/bin/python tools/language_survey.py [--sets revised4,city] [--moves 60] [--seed 1] [--quiet]
                                              [--dump DIR] [--html]

Exit status 0 whatever it finds (a survey, not a test); about 10 s CPU for every set.
"""
from __future__ import annotations

import argparse
import html
import random
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine import content, registry  # noqa: E402
from pbem import demo  # noqa: E402
from pbem.base import log, printed_names, settings as settings_mod  # noqa: E402
from pbem.core import games  # noqa: E402
from pbem.core.service import open_service  # noqa: E402
from pbem.inbound.process import handle  # noqa: E402
from pbem.moderate import moderator, newgame  # noqa: E402
from pbem.outbound import outbox  # noqa: E402
from pbem.pace import daily, deadlines  # noqa: E402

# name -> (edition, packs); with nemesis a seat (not the German one) plays the Nemesis
PACK_SETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "revised4": ("revised4", ()),
    "cataclysm": ("revised4", ("cataclysm",)),
    "lost-realms": ("revised4", ("lost-realms",)),
    "city": ("revised4", ("city",)),
    "dungeon": ("revised4", ("dungeon",)),
    "deep-realms": ("revised4", ("city", "dungeon", "deep-realms")),
    "sea-voyage": ("revised4", ("sea-voyage",)),
    "timescape": ("revised4", ("timescape",)),
    "nemesis": ("fifth", ("nemesis",)),
}
READER, ADDRESS, NEW_ADDRESS = "anna", "anna@example.de", "anna@neu.example.de"
PLAYERS = [(READER, ADDRESS), ("bob", "bob@example.org"), ("carl", "carl@example.org")]

# What the German reader writes the service after the game's answer number N (a mail of its own).
COMMANDS: dict[int, list[str]] = {
    2: ["status"],
    4: ["hilfe"],
    6: ["urlaub: 1d alle"],
    8: [f"e-mail: {NEW_ADDRESS}"],
    10: ["dauerauftrag: wenn kampf antworte kämpfen"],
    12: ["dauerauftrag: when fight answer fight"],
    14: ["99: links"],
    16: ["zurück"],
    18: ["berichte: jede"],
    20: ["an: alle", "Hallo zusammen"],
    22: ["zeitzone: Europe/Berlin"],
    24: ["aufgeben"],
    26: ["post: beides"],
    28: ["dauerauftrag: quatsch"],
    30: ["urlaub: ende"],
}
# After the game's answer number N the clock moves on (hours), at the next answer that leaves the
# German seat asked: her reminders, her defaults, her daily digest. The game has deadlines (PACE).
LATER: dict[int, int] = {9: 7, 19: 13, 29: 25, 39: 7, 49: 13}
PACE = {"deadline": "12h", "reminders": ["6h"], "vacation_days": 14}
# Another seat writes the German one a message now and then (her copy of it is read).
PRESS: dict[int, list[str]] = {5: ["to: anna", "Hello Anna"]}


# Common English words that are not German words (so not "was", "will", "an", "die", "man",
# "also", "hat", "war", "so", "in", "bald", "gift", "mail", "code", "status", "start"...): one in a line
# marks it English. Case is not looked at.
ENGLISH = frozenset("""
the and of you your then answer answers roll rolls to is are with for this that it its be has have
on at by from or not if when which who what whom where there their they them he she his her him
can may must would should could been being were does did done do any each every all none no yes
one two three four five six first next last other another more most less than only just
than into onto out up down over under again after before until while because about
here how why turn turns player players move moves moved space spaces card cards question questions
game games round rounds time times day days hour hours week weeks left right keep reroll continue
battle evade cross strength craft life lives fate stay stop fight fights draw draws lose loses
gain gains take takes taken encounter encountered spell spells cast casts follower followers
object objects enemy enemies none pass leave later skip please reply replies send sent
address new old confirm confirms confirmed change changed played play plays asked ask asks
waiting wait waits deadline deadlines reminder vacation standing order orders report reports
reply help resign resigned back message messages note notes kind key keys default
shown show read write wrote written line lines said says say nothing something everyone
won win wins ends end ended begin begins began starts started yet still now
you're don't can't isn't won't it's
""".split())
WORD = re.compile(r"[A-Za-zÄÖÜäöüß']+")
FOLD = re.compile(r"\d+")
NOISE = [re.compile(p) for p in (
    r"^[\w-]+ / (?=\S+:)",  # the guide's command names, each beside its German word
    r"\b[A-Z][a-z]+/[A-Za-z_]+\b",  # a time zone's name (America/New_York)
    r"https?://\S+", r"[\w.+-]+@[\w.-]+", r"\b[0-9a-f]{8,}\b", r"\bpbemtoken\w*", r"^Subject: \[[^\]]*\]",
)]


@dataclass
class Found:
    example: str
    words: list[str]
    sets: dict[str, int] = field(default_factory=dict)


def stand_ins(edition: str, packs: tuple[str, ...]) -> list[str]:
    """The printed names of the set (cards, spaces, characters, the packs' titles) a German
    reader still sees as printed, and their answer keys, longest first (so "Wild Boar" goes
    before "Boar")."""
    got = content.load(edition, packs)
    german = printed_names.table("de")
    names = {c.name for c in got.cards.values()} | {s.name for s in got.board.spaces.values()} \
        | {c.name for c in got.characters.values()} | set(registry.TITLES.values())
    kept = {n for n in names if n and german.get(n, n) == n}
    out = kept | {content.slug(n) for n in kept}
    return sorted(out, key=len, reverse=True)


def english(line: str, names: list[str]) -> list[str]:
    """The English words of `line` once the names kept as printed, addresses and tokens are out."""
    for rx in NOISE:
        line = rx.sub(" ", line)
    for n in names:
        if n in line:
            line = line.replace(n, " ")
    return [w for w in WORD.findall(line) if w.lower() in ENGLISH]


class Clock:
    """The service's clock: a second a reading, moved on by hours where the survey says."""

    def __init__(self) -> None:
        self.t = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.t += timedelta(seconds=1)
        return self.t


class Game:
    """One game of a pack set, anna reading German, played by mail."""

    def __init__(self, svc, name: str, edition: str, packs: tuple[str, ...], seed: int):
        self.svc, self.name, self.mid = svc, name, 0
        cfg = {"game": {"name": name, "edition": edition, "packs": list(packs), "address": "talisman@example.org",
                        "seed": f"survey-{name}-{seed}", "moderator": "mod@example.org", "pace": PACE},
               "players": [{"name": p, "email": e} for p, e in PLAYERS]}
        cfg["players"][0]["language"] = "de"
        if "nemesis" in packs:  # the German reader plays a hero; another seat the Nemesis
            cfg["players"][1]["role"] = "nemesis"
        newgame.create(svc, cfg)
        self.rnd = random.Random(seed)
        self.tokens = {p: svc.token(svc.store.player(name, p)) for p, _ in PLAYERS}

    def send(self, player: str, lines: list[str]) -> None:
        self.mid += 1
        address = dict(PLAYERS)[player]
        handle(self.svc, demo.reply(self.name, player, address, self.tokens[player], "\n".join(lines),
                                    f"<survey-{self.name}-{self.mid}@example.org>"))

    def step(self) -> bool:
        """One answer by whoever is asked (a random legal one); False once the game is over."""
        for _ in range(50):
            state = games.state(self.svc, games.get(self.svc, self.name))
            if state.over:
                return False
            moves = [m for m in self.svc.engine.legal_moves(state)]
            if not moves:
                return False
            move = self.rnd.choice(moves)
            if move.player != self.svc.engine.MODERATOR:
                self.send(move.player, [f"{move.prompt}: {move.key}"])
                return True
            moderator.answer(self.svc, self.name, move.player, f"{move.prompt}: skip")
        return False


def html_lines(page: str) -> list[str]:
    """An HTML part's text, a line per element (its style and tags out)."""
    page = re.sub(r"(?s)<(style|head)\b.*?</\1>", " ", page)
    return html.unescape(re.sub(r"<[^>]+>", "\n", page)).splitlines()


def survey(set_name: str, moves: int, seed: int, found: dict[str, Found], dump: Path | None = None,
           part: str = "text") -> tuple[int, int]:
    """Play the set's game; (mails read, English lines in them) added to `found`; each mail's
    subject and text written to `dump`/SET.txt too when given."""
    edition, packs = PACK_SETS[set_name]
    names = stand_ins(edition, packs)
    with tempfile.TemporaryDirectory() as home:
        clk = Clock()
        svc = open_service(settings=settings_mod.Settings(home=home, mails_per_hour=10 ** 9), clock=clk)
        g = Game(svc, set_name, edition, packs, seed)
        later = 0
        for n in range(1, moves + 1):
            if not g.step():
                break
            if n in COMMANDS:
                g.send(READER, COMMANDS[n])
            if n in PRESS:
                g.send(PLAYERS[1][0], PRESS[n])
            later += LATER.get(n, 0)
            state = games.state(svc, games.get(svc, set_name))
            if later and READER in svc.engine.waiting_for(state):  # her reminder, her default
                clk.t += timedelta(hours=later)
                later = 0
                deadlines.tick(svc)
                daily.tick(svc)
        if not games.get(svc, set_name)["status"] == "ended":
            moderator.end(svc, set_name)  # the game-over mail
        mails = lines = 0
        texts = []
        for row in svc.store.outbox_rows():
            if row["to_addr"] not in (ADDRESS, NEW_ADDRESS):
                continue
            mail = outbox.mail(svc, row["id"])
            if mail is None:
                continue
            mails += 1
            texts.append(f"=== {row['id']} {row['kind']} to {row['to_addr']}: {row['subject']}\n{mail.get('text')}\n")
            body = html_lines(mail.get("html") or "") if part == "html" else (mail.get("text") or "").splitlines()
            for line in [f"Subject: {row['subject']}", *body]:
                line = line.strip()
                words = english(line, names)
                if not words:
                    continue
                lines += 1
                key = FOLD.sub("#", line)
                entry = found.setdefault(key, Found(line, sorted(set(words))))
                entry.sets[set_name] = entry.sets.get(set_name, 0) + 1
        svc.store.close()
    if dump is not None:
        dump.mkdir(parents=True, exist_ok=True)
        (dump / f"{set_name}.txt").write_text("".join(texts))
    return mails, lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default=",".join(PACK_SETS), help=f"comma-separated, of: {', '.join(PACK_SETS)}")
    ap.add_argument("--moves", type=int, default=60, help="answers played in each game")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quiet", action="store_true", help="only the counts per pack set")
    ap.add_argument("--dump", type=Path, metavar="DIR", help="every mail the German seat got, to DIR/SET.txt")
    ap.add_argument("--html", action="store_true", help="read the mails' HTML parts (their text) instead")
    args = ap.parse_args()
    log.configure("json", "error")
    chosen = [s.strip() for s in args.sets.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in PACK_SETS]
    if unknown:
        ap.error(f"unknown pack set(s): {', '.join(unknown)}; known: {', '.join(PACK_SETS)}")
    found: dict[str, Found] = {}
    counts: dict[str, tuple[int, int, int]] = {}
    start = time.process_time()
    for s in chosen:
        before = {k for k, f in found.items() if s in f.sets}
        mails, lines = survey(s, args.moves, args.seed, found, args.dump, "html" if args.html else "text")
        distinct = sum(1 for f in found.values() if s in f.sets) - len(before)
        counts[s] = (mails, lines, distinct)
    if not args.quiet:
        for f in sorted(found.values(), key=lambda f: (-sum(f.sets.values()), f.example)):
            sets = ", ".join(f"{k} {n}" for k, n in f.sets.items())
            print(f"{f.example}\n    [{', '.join(f.words)}] {sum(f.sets.values())}x: {sets}")
        print()
    print(f"{'pack set':<12} {'mails':>6} {'English lines':>14} {'distinct':>9}")
    for s, (mails, lines, distinct) in counts.items():
        print(f"{s:<12} {mails:>6} {lines:>14} {distinct:>9}")
    print(f"{len(found)} distinct lines in all; {time.process_time() - start:.1f} s CPU")


if __name__ == "__main__":
    main()

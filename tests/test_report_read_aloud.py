"""The plain-text report read without sight (issue 29): it reads in order, as a screen reader or
a speech synthesizer says it, and nothing in it is said only by its layout -- the board is a
list (each region; each space where someone stands or something lies, with who and what, by
name), the players a list of sentences, no grid, no table columns, no letters or signs standing
for players or things. Checked on the text report of every kind of question the engine asks
(the kinds engine/questions.py declares: tests/test_question_kinds.py), found in the rules
scenarios, short playouts of every pack mix, and two set-ups of the rarest; and one report read
through espeak-ng."""
import random
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from test_playouts import PACK_SETS, game_config

from engine import api, scenario
from pbem.bot import choose
from pbem.outbound import render, reports
from pbem.pace import reported

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.toml"))
# The two kinds neither the scenarios nor the playouts reach: a set-up and the moves that ask them.
RARE = [
    {"game": {"seed": "s", "players": [{"name": "alice", "character": "thief"}, {"name": "bob", "character": "troll"},
                                            {"name": "carol", "character": "elf"}]},
     "setup": {"alice": {"space": "valley-of-fire", "objects": ["talisman"]}, "bob": {"space": "crown-of-command"},
               "carol": {"space": "crown-of-command"}},
     "dice": [6], "moves": ["alice: crown"]},  # crown-attack: another stands on the Crown
    {"game": {"edition": "fifth", "packs": ["nemesis"], "seed": "s",
              "players": [{"name": "nem", "role": "nemesis"}, {"name": "h1", "character": "elf"},
                          {"name": "h2", "character": "dwarf"}, {"name": "h3", "character": "dwarf"}]},
     "setup": {"h1": {"space": "hunting-grounds-3", "strength": 1, "life": 1}, "nem": {"fate": 0}},
     "piles": {"site@graveyard": [], "site@crags": [], "site@oasis": []},
     "dice": [6, 1, 6], "moves": ["h3: companion-a", "h2: companion-c", "h1: companion-b", "h1: right", "h1: battle",
                                  "h1: keep"]},  # champion
]
# grids, boxes, brackets, a * for "something", an arrow (read aloud as "rightwards arrow")
ART = re.compile(r"[|\u2190-\u21ff\u2500-\u259f]|\+-|--|==|__|\[|\]|(?<!\S)\*(?!\S)")
COLUMNS = re.compile(r"\S {2,}\d.*\S {2,}\d")  # numbers set in columns under a header (a table's row)


def _asking(state, found: dict) -> None:
    for p in api.prompts(state):
        if p.kind not in found:  # a copy: a playout applies its moves in place
            found[p.kind] = (api.decode(api.encode(state)), p.players[0])


def _played(data: dict, found: dict) -> None:
    """Each state of a scenario's moves, its questions noted (a refused move ends it)."""
    moves = data.get("moves", [])[:-1] if "error" in data else data.get("moves", [])
    state = scenario.build(data)
    for move in moves:
        _asking(state, found)
        try:
            state, _ = api.apply(state, api.parse_move(move))
        except api.IllegalMove:
            return
    _asking(state, found)


@pytest.fixture(scope="module")
def asked_of_every_kind() -> dict:
    """{kind: (a state asking it, a player it asks)}, for every declared kind."""
    found: dict = {}
    for data in RARE:
        _played(data, found)
    for path in SCENARIOS:
        _played(tomllib.loads(path.read_text()), found)
    declared = {k.name for k in api.question_kinds()}
    for packs in PACK_SETS:  # what the scenarios do not ask, playouts do
        for seed in range(3):
            state, rnd = api.new_game(game_config(packs, 4, {"turn_cap": 30}), f"kinds{seed}"), random.Random(seed)
            for _ in range(3000):
                if state.over or declared <= found.keys():
                    break
                _asking(state, found)
                state, _ = api.apply(state, choose(state, rnd), copy=False)
    return found


def text_report(svc, state, player: str) -> str:
    """The text part of `player`'s report of `state` (the report of a game of that content)."""
    game = {"id": "kinds", "status": "active", "seed_commitment": None,
            "config": {"game": {"edition": state.edition, "packs": list(state.packs)}}}
    view = svc.engine.view(state, player)
    return render.text(svc, "_report", reports.report_context(svc, game, player, view, [], state=state,
                                                              pace=reported.part))


def unreadable(text: str, view: dict, reader: str) -> list[str]:
    """What in a text report is said only by its layout, or not said at all."""
    problems = [f"art or signs: {line!r}" for line in text.splitlines() if ART.search(line)]
    problems += [f"a table's columns: {line!r}" for line in text.splitlines() if COLUMNS.search(line)]
    board = text.split("\nWhere everyone is, turn ", 1)[1].split("\nThe players:", 1)[0]
    lines = board.splitlines()
    names = view["space_names"]
    for name, p in view["players"].items():
        if p.get("alive", True) and p.get("space"):  # each player by name, on the line of their space
            space = names.get(p["space"], p["space"])
            if not any(line.lstrip().startswith(f"{space}") and re.search(rf"\b{re.escape(name)}\b", line)
                       for line in _joined(lines)):
                problems.append(f"{name} is not said to be at {space}")
        if not re.search(rf"^  {re.escape(name)}: .*\n    {_('Strength')} \d", text, re.MULTILINE):
            problems.append(f"{name} has no line in the list of players")
    for space, cards in view.get("space_cards", {}).items():
        for card in cards:
            if not any(line.lstrip().startswith(names.get(space, space)) and card in line for line in _joined(lines)):
                problems.append(f"{card} is not said to lie at {names.get(space, space)}")
    asked = view.get("mine") if reader != api.MODERATOR else None  # the moderator answers with `pbem game answer`
    for prompt in [asked] if asked else []:
        if prompt["question"].split("\n")[0][:40] not in text.replace("\n", " "):
            problems.append("the question is not read")
        for o in prompt["options"]:
            if not re.search(rf"^  {re.escape(o['key'])} +\S", text, re.MULTILINE):
                problems.append(f"option {o['key']} is not read with its words")
    return problems


def _(text: str) -> str:
    return text  # the English report


def _joined(lines: list[str]) -> list[str]:
    """A wrapped line and its continuation lines as one."""
    out: list[str] = []
    for line in lines:
        if out and line.startswith("      "):
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return out


def test_every_kind_of_question_is_found(asked_of_every_kind):
    missing = {k.name for k in api.question_kinds()} - set(asked_of_every_kind)
    assert not missing, f"no state found asking {sorted(missing)}: add a set-up to RARE"


def test_the_text_report_of_every_kind_reads_without_sight(svc, asked_of_every_kind):
    bad = {}
    for kind, (state, player) in sorted(asked_of_every_kind.items()):
        text = text_report(svc, state, player)
        problems = unreadable(text, svc.engine.view(state, player), player)
        if problems:
            bad[kind] = problems
    assert not bad, bad


def test_the_old_layout_fails_the_check(svc, asked_of_every_kind):
    """The rules catch what they are for: the board drawn as letters, a players' table."""
    state, player = asked_of_every_kind["direction"]
    text = text_report(svc, state, player)
    view = svc.engine.view(state, player)
    me = view["players"][player]
    space = view["space_names"][me["space"]]
    lettered = re.sub(rf"^(    {re.escape(space)}:) .*$", rf"\1 {player[0].upper()}.", text, flags=re.MULTILINE)
    assert any(f"{player} is not said to be at" in p for p in unreadable(lettered, view, player))
    tabled = text + ("\n   Player      Character  Space             Str Craft  Life  Fate Gold Spells"
                     "\n A alice       Wizard     Graveyard           2     5   4/4   3/3    1      0\n")
    assert any(p.startswith("a table's columns") for p in unreadable(tabled, view, player))
    assert any(p.startswith("art or signs") for p in unreadable(text + "\n+----------+\n", view, player))


@pytest.mark.parametrize("voice", ["en", "de"])
def test_a_report_reads_through_a_speech_synthesizer(svc, asked_of_every_kind, tmp_path, voice):
    """espeak-ng (Debian's espeak-ng; .ci/run installs it) reads a whole report, English and
    German, to a sound file: it runs, and says something of each line."""
    espeak = shutil.which("espeak-ng")
    if espeak is None:
        pytest.skip("espeak-ng is not installed (apt install espeak-ng): the report is not read aloud here")
    from pbem.base import i18n
    state, player = asked_of_every_kind["direction"]
    with i18n.using(voice):
        text = text_report(svc, state, player)
    (tmp_path / "report.txt").write_text(text, encoding="utf-8")
    wav = tmp_path / "report.wav"
    done = subprocess.run([espeak, "-v", voice, "-w", str(wav), "-f", str(tmp_path / "report.txt")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seconds = (wav.stat().st_size - 44) / (22050 * 2)  # 16-bit mono at espeak-ng's 22,050 Hz
    assert seconds > len(text.split()) / 6, (seconds, len(text.split()))  # at most ~6 words a second: it read it all

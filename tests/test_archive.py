"""Archives (issue 6): export -> verify round trips, tampering, the dice script, player exports."""
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner
from conftest import PLAYERS, game_config, mail, token

from engine import api
from pbem import bot
from pbem.archive import archive, verify
from pbem.cli import main
from pbem.core import games
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame
from pbem.pace import moves
from pbem.store import _CHAINED, chain_hash

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tools" / "verify_dice.py"
FIXTURE = Path(__file__).parent / "fixtures" / "finished-game.json"
THREE = PLAYERS + [("carol", "carol@example.org")]


def play_out(svc, name, seed, *, players=PLAYERS, turn_cap=3, bot_seed=0, moderator_every=0, rollback_at=None,
             stop_after=None):
    """Play a game through the service: players' answers as mails, every `moderator_every`-th
    answer by the moderator, one rollback after move `rollback_at`. Returns the game id."""
    gid = newgame.create(svc, game_config(name=name, seed=seed, players=players, options={"turn_cap": turn_cap}))
    rnd = random.Random(bot_seed)
    emails = dict(players)
    for n in range(1, 500):
        state = games.state(svc, games.get(svc, gid))
        if state.over or n == stop_after:
            return gid
        move = bot.choose(state, rnd)
        line = f"{move.prompt}: {move.key}"
        if move.player == api.MODERATOR or (moderator_every and n % moderator_every == 0):
            assert moderator.answer(svc, gid, move.player, line).applied
        else:
            raw = mail([line], sender=emails[move.player], tok=token(svc, gid, move.player), game=gid)
            assert handle(svc, raw).status == "applied"
        if n == rollback_at:
            moderator.rollback(svc, gid, n - 2)
    raise AssertionError("the game did not end")


def cli(svc, *args, code=0):
    result = CliRunner().invoke(main, ["--home", svc.settings.home, *map(str, args)])
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    return result


PLAYOUTS = [  # (players, turn cap, bot seed, moderator every, rollback after)
    (PLAYERS, 3, 1, 0, None),
    (THREE, 3, 2, 4, None),
    (PLAYERS, 5, 3, 0, 6),
    (THREE, 4, 4, 3, 9),
]


@pytest.mark.parametrize("players,cap,bot_seed,mod_every,rollback_at", PLAYOUTS)
def test_export_then_verify_round_trips(svc, tmp_path, players, cap, bot_seed, mod_every, rollback_at):
    gid = play_out(svc, f"g{bot_seed}", f"seed-{bot_seed}", players=players, turn_cap=cap, bot_seed=bot_seed,
                   moderator_every=mod_every, rollback_at=rollback_at)
    path = tmp_path / "game.json"
    assert "seed included" in cli(svc, "export", gid, "-o", path).stdout
    data = archive.load(path)
    rows = svc.store.moves(gid)
    assert data["seed"] == f"seed-{bot_seed}" and data["status"] == "ended" and data["final"]["over"]
    assert [m["line"] for m in data["moves"]] == [r["line"] for r in rows]
    assert [(m["actor"], m["message_id"], m["hash"]) for m in data["moves"]] == \
        [(r["actor"], r["message_id"], r["hash"]) for r in rows]
    assert data["engine_version"] == api.ENGINE_VERSION and data["content_version"] == archive.content_version()
    if mod_every:
        assert any(m["actor"] == "moderator" for m in data["moves"])
    if rollback_at:
        assert any(m["kind"] == "rollback" for m in data["moves"])
    verdict = verify.verify(data)
    assert verdict.ok and verdict.rerun and verdict.moves == len(rows), verdict
    assert "re-run from the seed" in cli(svc, "verify", path).stdout


def test_a_running_game_verifies_its_chain_only(svc, tmp_path):
    gid = play_out(svc, "running", "s-run", turn_cap=6, stop_after=6)
    path = tmp_path / "running.json"
    cli(svc, "export", gid, "-o", path)
    data = archive.load(path)
    assert "seed" not in data and "rng" not in data["moves"][0] and data["status"] == "active"
    out = cli(svc, "verify", path).stdout
    assert "only the hash chain was checked" in out and "ok (5 moves, hash chain)" in out


def _tamper(text: str, seq: int, key: str) -> str:
    """Change one byte of move `seq`: the first letter or digit of its `key` value."""
    lines = text.split("\n")
    i = next(i for i, ln in enumerate(lines) if ln.startswith(f'  {{"seq":{seq},'))
    at = lines[i].index(f'"{key}":') + len(key) + 3
    at = next(j for j in range(at, len(lines[i])) if lines[i][j].isalnum())
    c = lines[i][at]
    swapped = "1" if c == "0" else "0" if c.isdigit() else "x" if c != "x" else "y"
    lines[i] = lines[i][:at] + swapped + lines[i][at + 1:]
    return "\n".join(lines)


@pytest.fixture
def finished(svc, tmp_path):
    """A finished game's archive file, and a move with mail, events and dice to tamper with."""
    gid = play_out(svc, "tamper", "s-tamper", turn_cap=4, bot_seed=5)
    path = tmp_path / "game.json"
    cli(svc, "export", gid, "-o", path)
    data = archive.load(path)
    seq = next(m["seq"] for m in data["moves"][3:] if m["message_id"] and m["events"] and m["rng"]["draws"])
    return path, seq


@pytest.mark.parametrize("key,problem", [
    ("line", "chain broken"), ("at", "chain broken"), ("message_id", "chain broken"), ("actor", "chain broken"),
    ("state_hash", "chain broken"), ("prev_hash", "chain broken"), ("hash", "chain broken"),
    ("events", "events differ"), ("positions", "positions differ"), ("turn", "turn differs"),
    ("rng", "random draws differ"),
])
def test_one_changed_byte_names_its_move(svc, finished, tmp_path, key, problem):
    path, seq = finished
    bad = tmp_path / "bad.json"
    bad.write_text(_tamper(path.read_text(), seq, key))
    assert verify.verify(archive.load(bad)).problem == f"move {seq}: {problem}"
    assert f"move {seq}: {problem}" in cli(svc, "verify", bad, code=1).stderr


@pytest.mark.parametrize("pattern,problem", [
    (r'\["die",(\d)', "random draws differ"),  # a die's face
    (r'"text":"\w+ (\w)', "events differ"),  # a letter of an event's text
    (r'"life":(\d)', "positions differ"),
])
def test_a_changed_value_names_its_move(finished, tmp_path, pattern, problem):
    path, seq = finished
    lines = path.read_text().split("\n")
    i = next(i for i, ln in enumerate(lines) if ln.startswith(f'  {{"seq":{seq},'))
    at = re.search(pattern, lines[i]).start(1)
    swapped = "2" if lines[i][at] == "1" else "1" if lines[i][at].isdigit() else "q"
    lines[i] = lines[i][:at] + swapped + lines[i][at + 1:]
    (tmp_path / "bad.json").write_text("\n".join(lines))
    assert verify.verify(archive.load(tmp_path / "bad.json")).problem == f"move {seq}: {problem}"
    assert verify.verify(verify.read(tmp_path / "bad.json")).problem == f"move {seq}: {problem}"


def test_an_archive_written_by_another_program_verifies_as_read(finished, tmp_path):
    """`pbem verify` compares a move's events, positions and dice as the bytes `dumps` writes;
    a file written otherwise (indented, keys in another order) is compared as data instead."""
    path, _ = finished
    data = json.loads(path.read_text())
    for m in data["moves"]:
        m["positions"] = dict(reversed(list(m["positions"].items())))
    (tmp_path / "other.json").write_text(json.dumps(data, indent=2))
    verdict = verify.verify(verify.read(tmp_path / "other.json"))
    assert verdict.ok and verdict.rerun and verdict.moves == len(data["moves"]), verdict.problem


def test_a_forged_move_with_a_chain_made_again_fails_the_rerun(finished):
    """Whoever holds the seed could rebuild the chain over another move; re-running catches it."""
    path, _ = finished
    data = archive.load(path)
    m = next(m for m in data["moves"] if m["line"].endswith((": left", ": right")))
    m["line"] = m["line"].rsplit(" ", 1)[0] + (" right" if m["line"].endswith("left") else " left")
    prev = data["seed_commitment"]
    for row in data["moves"]:
        record = {k: row[k] for k in _CHAINED if k != "game"} | {"game": data["game"]}
        row["prev_hash"], row["hash"] = prev, chain_hash(prev, record, row["state_hash"])
        prev = row["hash"]
    assert verify.verify(data).problem == f"move {m['seq']}: state hash differs"


def test_a_changed_seed_or_config_is_caught(finished):
    path, _ = finished
    data = archive.load(path)
    assert (verify.verify({**data, "seed": data["seed"] + "x"}).problem
            == "setup: the seed does not match its commitment")
    config = {**data["config"], "options": {"turn_cap": 9}}
    assert not verify.verify({**data, "config": config}).ok


def test_a_changed_chain_is_caught_without_the_seed_too(finished):
    path, seq = finished
    data = json.loads(_tamper(path.read_text(), seq, "line"))
    del data["seed"]
    assert verify.verify(data).problem == f"move {seq}: chain broken"


def test_the_dice_script_reproduces_every_recorded_roll(svc, tmp_path):
    gid = play_out(svc, "dice", "s-dice", players=THREE, turn_cap=5, bot_seed=7)
    path = tmp_path / "game.json"
    cli(svc, "export", gid, "-o", path)
    data = archive.load(path)
    run = subprocess.run([sys.executable, str(SCRIPT), str(path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout
    assert "every random value agrees with the seed" in run.stdout
    assert f"SHA-256 of the seed is {data['seed_commitment']}" in run.stdout
    recorded = [d[1] for m in data["moves"] for d in m["rng"]["draws"] if d[0] == "die"]
    printed = [int(x) for x in re.findall(r"#\d+ die (\d)", run.stdout.split("\nmove 1 ", 1)[1])]
    assert printed == recorded and recorded
    # the counter of the game as the service keeps it is where the archive's draws end
    assert data["moves"][-1]["rng"]["to"] == games.state(svc, games.get(svc, gid)).rng
    named = [e for m in data["moves"] for e in m["events"] if "roll" in e["data"] or "dice" in e["data"]]
    assert named and run.stdout.count("a die of this turn]") + run.stdout.count("no die of this turn") >= len(named)
    # one die changed: the script says so and fails
    m = next(m for m in data["moves"] if any(d[0] == "die" for d in m["rng"]["draws"]))
    d = next(d for d in m["rng"]["draws"] if d[0] == "die")
    d[1] = d[1] % 6 + 1
    archive.save(data, path)
    run = subprocess.run([sys.executable, str(SCRIPT), str(path)], capture_output=True, text=True)
    assert run.returncode == 1 and f"MISMATCH: move {m['seq']}:" in run.stdout


def _hidden_spells(state, me: str, public: str) -> set[str]:
    """Names of Spells others hold that `me` does not and no public event named."""
    held = api.view(state, None)["players"]
    return {n for p in held if p != me for n in held[p]["spells"] if n not in held[me]["spells"] and n not in public}


def test_a_players_export_holds_no_seed_and_no_other_players_spells(svc, tmp_path):
    checked = 0
    for s in range(12):
        gid = play_out(svc, f"spells-{s}", f"s-spells-{s}", turn_cap=3, bot_seed=s)
        state = games.state(svc, games.get(svc, gid))
        for me in ("alice", "bob"):
            path = tmp_path / f"{gid}-{me}.json"
            cli(svc, "export", gid, "--as", me, "-o", path)
            text = path.read_text()
            data = json.loads(text)
            assert f"s-spells-{s}" not in text and "seed" not in data and data["scope"] == "player"
            assert all("rng" not in m for m in data["moves"]) and "rng" not in data["start"]
            other = "bob" if me == "alice" else "alice"
            assert isinstance(data["final"]["view"]["players"][other]["spells"], int)
            assert all(e["to"] is None or me in e["to"] for m in data["moves"] for e in m["events"])
            public = " ".join(e["text"] + json.dumps(e["data"]) for m in data["moves"] for e in m["events"])
            hidden = _hidden_spells(state, me, public)
            assert not any(n in text for n in hidden), hidden
            checked += len(hidden)
            assert verify.verify(data).ok
    assert checked  # some game ended with a Spell only its holder knew


def test_a_question_to_someone_else_shows_only_who_is_asked(svc, tmp_path):
    """A question's options can name the asked player's Spells: another player's export
    keeps only the prompt's id and who is asked."""
    for s in range(30):
        gid = newgame.create(svc, game_config(name=f"window-{s}", seed=f"s-window-{s}", options={"turn_cap": 4}))
        rnd = random.Random(s)
        state = games.state(svc, games.get(svc, gid))
        while not state.over and not any(o.key.startswith("cast-") for o in state.prompt.options):
            move = bot.choose(state, rnd)
            moves.play(svc, games.get(svc, gid), move.player, [f"{move.prompt}: {move.key}"])
            state = games.state(svc, games.get(svc, gid))
        if not state.over:
            break
    else:
        pytest.skip("no Spell window opened in these games")
    asked = state.prompt.players[0]
    other = next(p.name for p in state.players if p.name != asked)
    data = archive.export(svc, gid, other)
    assert data["final"]["view"]["prompt"] == [{"id": state.prompt.id, "players": [asked]}]
    assert "cast-" not in json.dumps(data["final"]["view"])
    mine = archive.export(svc, gid, asked)["final"]["view"]["prompt"][0]
    assert any(o["key"].startswith("cast-") for o in mine["options"])


def test_the_committed_fixture_still_verifies():
    """An archive made by an earlier version (tests/fixtures/make_archive.py): if this fails,
    the engine changed how old games replay."""
    data = archive.load(FIXTURE)
    verdict = verify.verify(data)
    assert verdict.ok and verdict.rerun, verdict
    assert data["config"]["options"] == {"turn_cap": 3} and len(data["config"]["players"]) == 2
    run = subprocess.run([sys.executable, str(SCRIPT), str(FIXTURE)], capture_output=True, text=True)
    assert run.returncode == 0 and "every random value agrees with the seed" in run.stdout


def test_another_engine_version_is_noted():
    data = archive.load(FIXTURE)
    verdict = verify.verify({**data, "engine_version": "0.0.1", "content_version": "ab" * 32})
    assert verdict.ok
    assert verdict.notes[:2] == [
        f"made by engine 0.0.1, checked with engine {api.ENGINE_VERSION}",
        f"made with content abababababab, checked with content {archive.content_version()[:12]}"]
    # Event wording may differ between engines; that is noted, never a failure by itself.
    assert all(n.startswith("event wording") for n in verdict.notes[2:])


def test_a_game_records_its_engine_and_content_versions(svc, game):
    g = games.get(svc, game)
    assert g["engine_version"] == api.ENGINE_VERSION
    assert g["config"]["versions"] == {"engine": api.ENGINE_VERSION, "content": archive.content_version()}
    assert re.fullmatch(r"[0-9a-f]{64}", archive.content_version())


def test_refusals(svc, game, tmp_path):
    assert "no player 'zed'" in cli(svc, "export", game, "--as", "zed", "-o", tmp_path / "x.json", code=1).stderr
    assert "no game 'nope'" in cli(svc, "export", "nope", "-o", tmp_path / "x.json", code=1).stderr
    (tmp_path / "junk.json").write_text('{"hello": 1}')
    assert "not a Talisman archive" in cli(svc, "verify", tmp_path / "junk.json", code=1).stderr
    data = archive.load(FIXTURE)
    archive.save({**data, "version": 99}, tmp_path / "future.json")
    assert "archive version 99" in cli(svc, "verify", tmp_path / "future.json", code=1).stderr


def test_the_seed_script_still_takes_a_bare_seed():
    out = subprocess.run([sys.executable, str(SCRIPT), "x", "--commitment"], capture_output=True, text=True).stdout
    assert out.strip() == __import__("hashlib").sha256(b"x").hexdigest()


# The English wording of the engine's events (engine.pot's messages) by engine version. An
# archive re-run by the engine version that made it must match word for word ("events differ"
# reads as tampering), so new wording needs a new ENGINE_VERSION: older archives then verify
# with a note. When this fails, raise ENGINE_VERSION (engine/api.py says what changed) and add
# the pair the message names.
WORDINGS = {"0.9.0": "95666fb0836d71bb", "0.10.0": "ae956bb0c8802325",
            "0.11.0": "2163d897ad1b0822", "0.11.1": "a9f7195cd96a9f76",
            "0.11.2": "eed2fa35b558205e",
            "0.11.3": "8b21eacb1a46a245"}


def test_a_change_of_the_engines_wording_comes_with_a_new_engine_version():
    import hashlib

    from babel.messages.pofile import read_po
    with (Path(__file__).parent.parent / "pbem" / "locale" / "engine.pot").open("rb") as f:
        ids = sorted(str(m.id) for m in read_po(f) if m.id)
    wording = hashlib.sha256("\n".join(ids).encode()).hexdigest()[:16]
    assert WORDINGS.get(api.ENGINE_VERSION) == wording, (
        f"the engine's wording is {wording}, recorded for no version or another: archives made by "
        f"engine {api.ENGINE_VERSION} would no longer verify. Raise ENGINE_VERSION and add "
        f"{{'<new version>': '{wording}'}} to WORDINGS")


@pytest.mark.parametrize("values", [
    {},
    {"line": 'p0 7: say "hi" \\ \u00e9\u2028\u2029\x00\x1f\U0001f600', "at": None, "message_id": "<a\u00ff@b>"},
    {"player": None, "actor": None, "prompt": None, "inbox_id": 2**62, "kind": "rollback"},
])
def test_a_checked_move_is_linked_as_the_store_links_it(finished, values):
    """`verify` hashes the links of moves read with load's `checking` (their fields validated
    as strings, integers or null) from one encoded Struct, not chain_hash's sorted dict: the
    same hash for every value a field may hold (escapes, non-ASCII, null, large integers)."""
    assert verify._Link.__struct_fields__ == tuple(sorted(_CHAINED))
    path, seq = finished
    data = verify.read(path)
    assert isinstance(data["moves"], verify._Plain)
    m = msgspec.structs.replace(data["moves"][seq - 1], **values)
    prev = data["moves"][seq - 2]["hash"]
    record = {k: m[k] for k in _CHAINED if k != "game"} | {"game": data["game"]}
    m = msgspec.structs.replace(m, hash=chain_hash(prev, record, m.state_hash))
    assert verify._check_checked_link(data["game"], m, seq, prev) == m.hash
    with pytest.raises(archive.Divergence, match="chain broken"):
        verify._check_checked_link(data["game"], msgspec.structs.replace(m, line=m.line + " "), seq, prev)


def test_verify_of_a_checked_archive_links_without_chain_hash(finished, monkeypatch):
    path, _ = finished
    monkeypatch.setattr(verify, "chain_hash", lambda *a: pytest.fail("chain_hash on a checked archive"))
    verdict = verify.verify(verify.read(path))
    assert verdict.ok and verdict.rerun, verdict.problem


def test_verify_tells_its_progress_every_tick_and_at_the_end(finished, monkeypatch):
    """A terminal's progress bar costs a microsecond a call: verify tells it every TICK moves
    and at the last, with or without the seed."""
    path, _ = finished
    monkeypatch.setattr(verify, "TICK", 3)
    data = verify.read(path)
    n = len(data["moves"])
    expected = [(s, n) for s in range(3, n + 1, 3)] + ([(n, n)] if n % 3 else [])
    for each in (data, {k: v for k, v in data.items() if k != "seed"}):
        told = []
        assert verify.verify(each, progress=lambda done, total: told.append((done, total))).ok
        assert told == expected


def test_every_move_of_an_export_is_checked_as_bytes(finished, monkeypatch):
    """What the replay shows is encoded as `dumps` wrote it: each move of an exported archive
    is checked in one comparison of bytes, never the slower data comparison."""
    path, _ = finished
    monkeypatch.setattr(verify, "shown_events", lambda *a: pytest.fail("a move compared as data"))
    verdict = verify.verify(verify.read(path))
    assert verdict.ok and verdict.rerun, verdict.problem

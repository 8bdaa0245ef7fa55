"""The moderator's content folder (issue 17): merged over the package, checked by `pbem rules
check`, recorded by a game, carried by its archive so it verifies on a home without the folder."""
import email
import email.policy
import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ADDRESS

from engine import api, content, scenario
from pbem import bot
from pbem.archive import archive
from pbem.base import content_overlay, settings as settings_mod
from pbem.cli import main
from pbem.core import games
from pbem.core.service import open_service
from pbem.moderate import moderator

SHADE = '[[card]]\nname = "Restless Shade"\ntext = "The printed text."\nconfirmed = true\n'
# More Wolves in the Adventure deck: the shuffles, and so the game, differ from the package's.
WOLVES = '[[card]]\nname = "Wolf"\ncount = 9\n'
GAME = f"""
[game]
name = "owned"
address = "{ADDRESS}"
seed = "overlay-seed"
options = {{ turn_cap = 3 }}

[[players]]
name = "alice"
email = "alice@example.org"

[[players]]
name = "bob"
email = "bob@example.org"
"""


@pytest.fixture(autouse=True)
def no_overlay_after():
    yield
    content.use_overlay({})


def invoke(home, *args, code=0):
    result = CliRunner().invoke(main, ["--home", str(home), *map(str, args)])
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    return result


def write(folder, files):
    for path, text in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    return folder


def test_an_overlay_row_changes_only_the_fields_it_gives():
    before = content.load("revised4", ("cataclysm",)).cards["restless-shade"]
    content.use_overlay({"cataclysm/remnants.toml": SHADE})
    after = content.load("revised4", ("cataclysm",)).cards["restless-shade"]
    assert (after.text, after.confirmed) == ("The printed text.", True)
    assert (after.craft, after.count, after.kind) == (before.craft, before.count, before.kind)
    content.use_overlay({})
    assert content.load("revised4", ("cataclysm",)).cards["restless-shade"].text == before.text


def test_a_new_row_is_added_and_a_count_changes_the_deck():
    content.use_overlay({"revised4/adventure.toml": WOLVES + '[[card]]\nname = "Cave Bear"\ntype = "enemy"\n'
                         'kind = "animal"\nnumber = 2\nstrength = 5\ntext = "A bear."\n'})
    c = content.load("revised4", ())
    assert c.decks["adventure"].count("wolf") == 9 and c.cards["cave-bear"].strength == 5


def test_rules_check_names_file_line_field_and_what_is_allowed(tmp_path):
    good = write(tmp_path / "good", {"cataclysm/remnants.toml": SHADE})
    assert "1 content files, 1 rows: ok" in invoke(tmp_path, "rules", "check", good).stdout
    bad = write(tmp_path / "bad", {
        "cataclysm/remnants.toml": '[[card]]\nname = "Restless Shade"\ncraft = "four"\nflavour = 1\n',
        "nowhere/x.toml": "a = 1\n", "revised4/extra.toml": "a = 1\n", "nemesis/new.toml": "[[card]]\nname = 'X'\n",
        "timescape/board.toml": "a = \n", "city/board.toml": "[shops]\njail = 1\n"})
    err = invoke(tmp_path, "rules", "check", bad, code=1).stderr
    assert "cataclysm/remnants.toml:3: [[card]] 'Restless Shade': field `craft` must be a whole number" in err
    assert "remnants.toml:4:" in err and "unknown field `flavour`; allowed:" in err and "strength" in err
    assert "nowhere/x.toml: not a content file" in err and "revised4/extra.toml: the base game reads only" in err
    assert "nemesis/new.toml: a new file of a pack is a deck" in err
    assert "timescape/board.toml: not TOML" in err and "line 1" in err
    assert "city/board.toml: `shops` is not read from this file; it may hold: adventure, card, character, city," in err
    # what only the loader itself knows: a card already in another deck
    clash = write(tmp_path / "clash", {"cataclysm/new.toml": 'deck = "mine"\n[[card]]\nname = "Wolf"\n'})
    assert "already a adventure card" in invoke(tmp_path, "rules", "check", clash, code=1).stderr


def test_a_broken_content_folder_is_refused_when_the_service_opens(tmp_path):
    home = tmp_path / "var"
    home.mkdir()
    write(home / "content", {"cataclysm/remnants.toml": '[[card]]\nname = "Restless Shade"\ncount = "x"\n'})
    (home / "pbem.toml").write_text('content = "content"\n')
    with pytest.raises(settings_mod.SettingsError, match="remnants.toml:3.*`count` must be a whole number"):
        open_service(settings=settings_mod.load(home))
    assert invoke(home, "rules", "check", code=1).stderr.count("`count`") == 1  # DIR from pbem.toml


def test_coverage_counts_confirmed_and_stand_in_rows_per_pack(tmp_path):
    out = invoke(tmp_path, "rules", "coverage", "--pack", "cataclysm").stdout
    assert "stand-in" in out
    line = next(ln for ln in out.splitlines() if ln.startswith("cataclysm: "))
    confirmed, stand_in = (int(w) for w in line.split() if w.isdigit())
    rows = json.loads(invoke(tmp_path, "rules", "coverage", "--pack", "cataclysm", "--json").stdout)
    assert (confirmed, stand_in) == (sum(r["confirmed"] for r in rows), sum(not r["confirmed"] for r in rows))
    assert stand_in > 0
    home = tmp_path / "var"  # the home's own texts count: the Restless Shade is confirmed there
    write(home / "content", {"cataclysm/remnants.toml": SHADE})
    (home / "pbem.toml").write_text('content = "content"\n')
    out = invoke(home, "rules", "coverage", "--pack", "cataclysm").stdout
    assert f"cataclysm: {confirmed + 1} confirmed, {stand_in - 1} stand-in" in out


def play(home):
    svc = open_service(settings=settings_mod.load(home))
    try:
        rnd = random.Random(1)
        for _ in range(500):
            state = games.state(svc, games.get(svc, "owned"))
            if state.over:
                return
            move = bot.choose(state, rnd)
            assert moderator.answer(svc, "owned", move.player, f"{move.prompt}: {move.key}").applied
        raise AssertionError("the game did not end")
    finally:
        svc.store.close()


def test_a_game_with_the_owners_texts_verifies_on_a_home_without_them(tmp_path):
    home = tmp_path / "var"
    invoke(home, "init")
    write(home / "content", {"revised4/adventure.toml": WOLVES, "cataclysm/remnants.toml": SHADE})
    (home / "pbem.toml").write_text('content = "content"\n')
    (tmp_path / "game.toml").write_text(GAME)
    invoke(home, "game", "new", tmp_path / "game.toml")
    play(home)
    path = tmp_path / "owned.json"
    assert "seed included" in invoke(home, "export", "owned", "-o", path).stdout
    data = json.loads(path.read_text())
    assert data["content_files"] == {"revised4/adventure.toml": WOLVES}  # the base game's only: no Cataclysm
    assert data["content_files_at_start"] == content_overlay.fingerprint({"revised4/adventure.toml": WOLVES})
    content.use_overlay({})
    assert data["content_version"] != archive.content_version()  # the package alone hashes otherwise

    elsewhere = tmp_path / "elsewhere"  # no pbem.toml, no content folder
    out = invoke(elsewhere, "verify", path).stdout
    assert "re-run from the seed" in out and "moderator's content file(s) it carries: revised4/adventure.toml" in out
    assert "made with content" not in out  # the hash it recorded is the hash it is checked with
    assert "changed after the game started" not in out
    assert content.overlay() == {}  # verify puts the home's own content back

    changed = {**data, "content_files_at_start": {"revised4/adventure.toml": "0" * 64}}
    path.write_text(json.dumps(changed))
    assert "changed after the game started" in invoke(elsewhere, "verify", path).stdout

    del data["content_files"]  # without the files the game does not replay: the check has teeth
    path.write_text(json.dumps(data))
    assert "made with content" in invoke(elsewhere, "verify", path, code=1).stdout


def test_a_game_without_an_overlay_records_what_it_always_did(tmp_path):
    home = tmp_path / "var"
    invoke(home, "init")
    (tmp_path / "game.toml").write_text(GAME)
    invoke(home, "game", "new", tmp_path / "game.toml")
    svc = open_service(settings=settings_mod.load(home))
    try:
        versions = games.get(svc, "owned")["config"]["versions"]
    finally:
        svc.store.close()
    assert versions == {"engine": api.ENGINE_VERSION, "content": archive.content_version()}


def test_the_welcome_explains_the_stand_in_mark(tmp_path):
    home = tmp_path / "var"
    invoke(home, "init")
    (tmp_path / "game.toml").write_text(GAME)
    invoke(home, "game", "new", tmp_path / "game.toml")
    invoke(home, "serve", "--once")
    welcomes = [m for m in (home / "outbox").glob("*.eml") if "Welcome" in email.message_from_bytes(
        m.read_bytes(), policy=email.policy.default)["Subject"]]
    assert welcomes
    for m in welcomes:
        msg = email.message_from_bytes(m.read_bytes(), policy=email.policy.default)
        text = msg.get_body(("plain",)).get_content()
        html = msg.get_body(("html",)).get_content()
        assert 'A card marked "(stand-in)" in a report is a placeholder' in text
        assert "A card marked <em>(stand-in)</em> in a report is a placeholder" in html


def test_an_overlay_corrects_a_packs_own_table():
    """A pack's own tables (the City's Jail chart in city/board.toml's [city]) come through the
    overlay as its decks do: an owner who knows the printed chart can put it in."""
    path = "tests/scenarios/city-jail-chart-stay.toml"
    assert scenario.run_file(path)["city"]["jailed"] == ["alice"]  # the stand-in chart: a 3 stays
    content.use_overlay({"city/board.toml": '[city]\njail_chart = { "1-2" = "stay", "3-6" = "free" }\n'})
    assert scenario.run_file(path)["city"]["jailed"] == []
    content.use_overlay({})
    assert scenario.run_file(path)["city"]["jailed"] == ["alice"]


def test_only_the_loader_reads_content_files():
    """Every content file is read through engine/content.py, where the overlay lies over it: a
    pack reading its file itself would ignore the owner's corrections without a word."""
    readers = [str(p) for p in (Path(__file__).parent.parent / "engine").rglob("*.py")
               if p.name != "content.py" and 'resources.files("engine")' in p.read_text()]
    assert readers == []


def test_the_glossary_follows_an_overlay_laid_later_in_the_process():
    """The reports' card lines and stand-in marks are cached per edition and packs: an owner's
    folder laid afterwards (another home in the same process) must not be read from the cache."""
    from pbem.outbound import glossary
    game = {"config": {"game": {"packs": ["cataclysm"]}}}
    before = glossary.Glossary(game).by_slug["restless-shade"]
    assert not before.confirmed
    content.use_overlay({"cataclysm/remnants.toml": SHADE})
    after = glossary.Glossary(game).by_slug["restless-shade"]
    assert (after.text, after.confirmed) == ("The printed text.", True)
    assert glossary.stand_ins("revised4", ("city",)) == glossary.stand_ins("revised4", ("city",))

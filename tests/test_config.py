"""Strict configs: a typo in a game config or in pbem.toml is an error naming the key and the
nearest known one; a config of the wrong shape is refused with a message, never a traceback."""
import pytest
from click.testing import CliRunner
from conftest import ADDRESS

from pbem.base import settings as settings_mod
from pbem.cli import main
from pbem.core.games import GameError
from pbem.moderate import newgame

PLAYERS = ('[[players]]\nname = "alice"\nemail = "alice@example.org"\n\n'
           '[[players]]\nname = "bob"\nemail = "bob@example.org"\n')


def config(game="", players=PLAYERS, extra=""):
    return f'[game]\nname = "autumn"\naddress = "{ADDRESS}"\n{game}\n{extra}\n{players}'


@pytest.fixture
def cli(tmp_path):
    home = tmp_path / "var"
    assert CliRunner().invoke(main, ["--home", str(home), "init"]).exit_code == 0

    def new(text):
        (tmp_path / "g.toml").write_text(text)
        return CliRunner().invoke(main, ["--home", str(home), "game", "new", str(tmp_path / "g.toml")])
    new.home = home
    return new


@pytest.mark.parametrize("text, message", [
    (config('pack = ["cataclysm"]'), "[game]: unknown key `pack`: did you mean `packs`?"),
    (config('timzone = "Europe/Berlin"'), "[game]: unknown key `timzone`"),
    (config(players=PLAYERS.replace('name = "bob"', 'name = "bob"\ncharakter = "wizard"')),
     "[[players]] bob: unknown key `charakter`: did you mean `character`?"),
    (config(players=PLAYERS.replace('name = "bob"', 'name = "bob"\ntimzone = "Europe/Berlin"')),
     "[[players]] bob: unknown key `timzone`: did you mean `timezone`?"),
    (config(extra='[game.pace]\ndeadlin = "48h"'), "[game.pace]: unknown key `deadlin`: did you mean `deadline`?"),
    (config() + '\n[player]\nname = "x"\n', "the config: unknown key `player`: did you mean `players`?"),
])
def test_a_typo_names_the_key_and_the_nearest_known_one(cli, text, message):
    result = cli(text)
    assert result.exit_code == 1 and message in result.stderr, result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("text, message", [
    (f'[[game]]\nname = "autumn"\naddress = "{ADDRESS}"\n' + PLAYERS, "[game] must be one table"),
    ('players = ["alice", "bob"]\n' + config(players=""), "players are tables"),
    (config(players='players = [{name = "alice"}, {name = "bob"}]\n'), "players go in `[[players]]` tables"),
    (config(players='[players]\nname = "alice"\nemail = "alice@example.org"\n'), "players are tables"),
    (config(players=PLAYERS.replace('name = "bob"', 'name = "bob"\ntimezone = 2')), "`timezone` must be a string"),
    (config('packs = "cataclysm"'), "`packs` must be a list"),
    (config('options = 3'), "`options` must be a table"),
    (config(players=PLAYERS.replace('"bob@example.org"', '"ALICE@example.org"')), "have the same address"),
    (config(players=PLAYERS.split("\n\n")[0] + "\n"), "at least 2 players, not 1"),
    ('players = 1\n', "needs a [game] table"),
])
def test_a_config_of_the_wrong_shape_is_refused_with_a_message(cli, text, message):
    result = cli(text)
    assert result.exit_code == 1 and message in result.stderr, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_the_sample_game_config_is_valid(cli):
    from pathlib import Path
    result = cli((Path(__file__).parent.parent / "deploy" / "game.toml").read_text())
    assert result.exit_code == 0, result.output


def test_a_waiting_game_may_start_with_one_seat_but_not_play_with_one(cli, tmp_path):
    (tmp_path / "g.toml").write_text(config(players=PLAYERS.split("\n\n")[0] + "\n"))
    run = lambda *a: CliRunner().invoke(main, ["--home", str(cli.home), *a])  # noqa: E731
    assert run("game", "new", str(tmp_path / "g.toml"), "--wait").exit_code == 0
    started = run("game", "start", "autumn")
    assert started.exit_code == 1 and "at least 2 players" in started.stderr
    dup = run("player", "add", "autumn", "bob", "Alice@example.org")
    assert dup.exit_code == 1 and "the same address" in dup.stderr
    assert run("player", "add", "autumn", "bob", "bob@example.org").exit_code == 0
    assert run("game", "start", "autumn").exit_code == 0


def test_player_vacation_too_long_is_a_usage_error_not_a_traceback(cli, tmp_path):
    assert cli(config(extra='[game.pace]\ndeadline = "48h"')).exit_code == 0
    run = lambda *a: CliRunner().invoke(main, ["--home", str(cli.home), *a])  # noqa: E731
    for days in ("99999999999", "99999999"):
        result = run("player", "vacation", "autumn", "alice", days)
        assert result.exit_code in (1, 2) and "Traceback" not in result.output, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception


# -- pbem.toml ---------------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ('adress = "x@example.org"\n', "unknown key `adress`: did you mean `address`?"),
    ('[service]\nmoderater = "m@example.org"\n', "unknown key `moderater`: did you mean `moderator`?"),
    ('[smtp]\nhost = "h"\nusername = "u"\npasword = "p"\n', "[smtp]: unknown key `pasword`: did you mean `password`?"),
    ('[imap]\nhost = "h"\nusername = "u"\npassword = "p"\nfolderr = "X"\n', "did you mean `folder`?"),
    ('service = 3\n', "[service] must be a table"),
])
def test_pbem_toml_typos_are_refused(tmp_path, text, message):
    (tmp_path / "pbem.toml").write_text(text)
    with pytest.raises(settings_mod.SettingsError, match=message.replace("[", r"\[").replace("?", r"\?")):
        settings_mod.load(tmp_path)


def test_pbem_toml_known_keys_come_from_the_settings_definition(tmp_path):
    """Every field of Settings (and of its [smtp] and [imap]) is a known key: the sample that
    `pbem init` writes names each one, and uncommented it loads."""
    import msgspec
    text = settings_mod.sample()
    for f in msgspec.structs.fields(settings_mod.Settings):
        if f.name != "home":
            assert f"# {f.name} = " in text or f"# [{f.name}]" in text
    live = "\n".join(line[2:] if line.startswith("# ") and "=" in line or line.startswith("# [") else line
                     for line in text.splitlines())
    (tmp_path / "pbem.toml").write_text(live.replace('= "..."', '= "x"').replace('host = ""', 'host = "h"')
                                        .replace('username = ""', 'username = "u"').replace('password = ""',
                                                                                            'password = "p"'))
    cfg = settings_mod.load(tmp_path)
    assert cfg.smtp.host == "h" and cfg.imap.username == "u"


def test_game_config_check_is_the_library_call_too(svc):
    with pytest.raises(GameError, match="did you mean `packs`"):
        newgame.create(svc, {"game": {"name": "x", "pack": []}, "players": [
            {"name": "alice", "email": "a@example.org"}, {"name": "bob", "email": "b@example.org"}]})


def test_a_seed_of_the_wrong_type_is_refused_without_being_echoed(cli):
    result = cli(config("seed = 123456.789"))
    assert result.exit_code == 1 and "`seed` must be a string" in result.stderr and "123456" not in result.output

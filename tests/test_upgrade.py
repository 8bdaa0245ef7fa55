"""A release that plays differently (issue 26): `pbem upgrade-check` replays every running game's
log on the installed engine against the recorded state hashes and names the first move that
differs; `verify` of an archive that diverges names the engine version that re-runs it. A
"new release" is simulated by a rule change from turn 3 on: everyone gains 1 gold after
every move (the engine's `apply`, as pbem calls it, wrapped)."""
from __future__ import annotations

import json

import pytest
from bymail import play_by_mail
from click.testing import CliRunner
from conftest import game_config

from engine import api
from pbem.archive import archive, upgrade, verify
from pbem.cli import main
from pbem.core import games
from pbem.moderate import moderator, newgame

STARTED = api.ENGINE_VERSION


@pytest.fixture
def league(make_service):
    svc = make_service()
    for name, moves in (("autumn", 40), ("winter", 4), ("spring", 10)):
        g = newgame.create(svc, game_config(name=name, seed=f"{name}-upgrade-seed-01"))
        for _ in play_by_mail(svc, g, seed=3, moves=moves):
            pass
    moderator.end(svc, "spring")
    return svc


@pytest.fixture
def new_release(monkeypatch):
    """The installed engine is a later version whose rules differ from turn 3 on."""
    real = api.apply

    def apply(state, move, *, copy=True):
        state, events = real(state, move, copy=copy)
        if state.turn >= 3:
            for p in state.players:
                p.gold += 1
        return state, events
    monkeypatch.setattr(api, "apply", apply)
    monkeypatch.setattr(api, "ENGINE_VERSION", "99.0.0")


def first_move_of_turn(svc, game, turn):
    """The first logged move after which the game is at `turn` (by the engine it was played on)."""
    row = games.get(svc, game)
    state = api.new_game(games.engine_config(row["config"]), games.seed(svc, row))
    for row in svc.store.moves(game):
        state, _ = api.apply(state, api.parse_move(row["line"]))
        if state.turn >= turn:
            return row["seq"]
    return None


def cli(svc, *args, code=0):
    result = CliRunner().invoke(main, ["--home", svc.settings.home, *args])
    assert result.exit_code == code, (result.output, result.exception)
    return result.stdout


def test_every_running_game_plays_the_same_on_its_own_engine(league):
    found = upgrade.check(league)
    assert [(f.game, f.same, f.started_on, f.engine) for f in found] == [
        ("autumn", True, STARTED, STARTED), ("winter", True, STARTED, STARTED)]  # spring has ended
    out = cli(league, "upgrade-check")
    assert f"autumn (active, 40 moves, started on engine {STARTED}): plays the same on engine {STARTED}" in out


def test_a_release_that_changes_the_rules_is_found_before_the_upgrade(league, new_release):
    at = first_move_of_turn(league, "autumn", 3)
    assert at is not None and first_move_of_turn(league, "winter", 3) is None  # winter is still in turn 1 or 2
    autumn, winter = upgrade.check(league)
    assert not autumn.same and autumn.diverges_at == at and autumn.what == "state hash differs"
    assert autumn.started_on == STARTED and autumn.engine == "99.0.0"
    assert winter.same
    result = CliRunner().invoke(main, ["--home", league.settings.home, "upgrade-check"])
    assert result.exit_code == 1
    assert (f"autumn (active, 40 moves, started on engine {STARTED}): plays differently on engine 99.0.0 from "
            f"move {at} (state hash differs): finish it on engine {STARTED}") in result.stdout
    assert "winter (active, 4 moves" in result.stdout and "plays the same on engine 99.0.0" in result.stdout
    rows = json.loads(CliRunner().invoke(main, ["--home", league.settings.home, "upgrade-check", "--json"]).stdout)
    assert [(r["game"], r["same"], r["diverges_at"]) for r in rows] == [("autumn", False, at), ("winter", True, None)]


def test_verify_names_the_engine_an_archive_needs(league, monkeypatch):
    data = archive.export(league, "spring")  # ended: it holds the seed and re-runs
    assert verify.verify(data).ok
    real = api.apply

    def apply(state, move, *, copy=True):
        state, events = real(state, move, copy=copy)
        state.players[0].gold += 1
        return state, events
    monkeypatch.setattr(api, "apply", apply)
    monkeypatch.setattr(api, "ENGINE_VERSION", "99.0.0")
    verdict = verify.verify(data)
    assert not verdict.ok and verdict.problem.startswith("move 1: state hash differs")
    assert (f"the game was played by engine {STARTED}: verify it with a pbem whose engine is {STARTED} "
            "(`pbem --version` names it); this one is engine 99.0.0") in verdict.problem
    mixed = {**data, "exported_with": {**data["exported_with"], "engine": "98.0.0"}}
    assert f"the game started on engine {STARTED} and went on under engine 98.0.0" in verify.verify(mixed).problem
    monkeypatch.setattr(api, "ENGINE_VERSION", STARTED)  # the same engine: a damaged archive, no engine named
    assert "engine" not in verify.verify(data).problem




@pytest.fixture
def schema_ahead(monkeypatch) -> int:
    """The installed release brings one migration more than the store has: the store's schema."""
    from pbem.store import migrations
    now = max(v for v, *_ in migrations.MIGRATIONS)
    later = (now + 1, "a later release's", "CREATE TABLE later (x INTEGER)")
    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, later])
    return now


def test_the_check_leaves_a_store_this_release_would_migrate_as_it_was(league, new_release, schema_ahead):
    """The check runs on a copy, so the store stays as the running release left it (which could
    not open it migrated), and the copy goes."""
    import hashlib
    from pathlib import Path

    from pbem.store import schema_of
    league.store.close()
    db = Path(league.settings.db_path)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    out = cli(league, "upgrade-check", code=1)
    assert "autumn (active, 40 moves" in out and "plays differently on engine 99.0.0" in out  # checked all the same
    assert schema_of(db) == schema_ahead and hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not list(Path(league.settings.home).glob("upgrade-check-*"))


@pytest.mark.postgres
def test_on_postgresql_a_check_that_would_migrate_is_refused_and_changes_nothing(make_service, pg_url, request):
    from pbem.store import schema_of
    svc = make_service(db=pg_url)
    newgame.create(svc, game_config(name="autumn", seed="autumn-upgrade-seed-01"))
    svc.store.close()
    schema_ahead = request.getfixturevalue("schema_ahead")  # the release installed after the store was made
    with pytest.raises(upgrade.UpgradeError) as refused:
        upgrade.check_home(svc.settings)
    assert f"this release would migrate the store (schema {schema_ahead} -> {schema_ahead + 1})" in str(refused.value)
    assert "pg_dump" in str(refused.value)
    assert schema_of(pg_url) == schema_ahead

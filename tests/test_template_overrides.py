"""A home's own templates (docs/architecture.md, "Templates"): `<home>/templates/` is searched before
the packaged templates, `default:NAME` reaches the packaged one so an override can extend it, and
`pbem templates check` compiles the overrides and renders the queued mail with them."""
from __future__ import annotations

from click.testing import CliRunner
from conftest import game_config

from pbem.cli import main
from pbem.moderate import newgame
from pbem.outbound import outbox, render

HOUSE = "House rule of this league: answer by Sunday."


def _welcome(svc) -> dict:
    row = next(r for r in svc.store.outbox_rows() if r["kind"] == "welcome")
    return outbox.rendered(svc, svc.store.outbox_mail(row["id"]))


def test_an_override_extends_the_packaged_template(make_service, tmp_path):
    home = tmp_path / "league"
    (home / "templates").mkdir(parents=True)
    (home / "templates" / "welcome.txt.j2").write_text('{% include "default:welcome.txt.j2" %}\n' + HOUSE + "\n")
    svc = make_service(home=home)
    newgame.create(svc, game_config())
    plain = make_service(home=tmp_path / "other")
    newgame.create(plain, game_config())
    mine, packaged = _welcome(svc), _welcome(plain)
    assert mine["text"].rstrip().endswith(HOUSE)
    assert mine["text"].startswith(packaged["text"].split("\n", 1)[0])  # the packaged welcome, then the house line
    assert HOUSE not in packaged["text"] and HOUSE not in mine["html"]  # the HTML part was not overridden
    assert render.templates(svc) is not render.templates(plain)


def test_templates_check_names_what_breaks(make_service, tmp_path):
    home = tmp_path / "league"
    svc = make_service(home=home)
    newgame.create(svc, game_config())  # welcome mails queued: contexts to render
    (home / "pbem.toml").write_text("")
    run = lambda: CliRunner().invoke(main, ["--home", str(home), "templates", "check"])
    from pbem.core import home as home_mod
    home_mod.init(home)

    result = run()
    assert result.exit_code == 0 and "no templates of the home's own" in result.output
    folder = home / "templates"
    folder.mkdir()
    (folder / "welcome.txt.j2").write_text('{% include "default:welcome.txt.j2" %}\n' + HOUSE + "\n")
    result = run()
    assert result.exit_code == 0, result.output
    assert "1 template(s) of the home's own compile" in result.output

    (folder / "receipt.txt.j2").write_text("{% if %}broken\n")
    result = run()
    assert result.exit_code == 1 and "receipt.txt.j2" in result.stderr

    (folder / "receipt.txt.j2").unlink()
    (folder / "welcome.txt.j2").write_text("{{ no_such_value }}\n")
    result = run()
    assert result.exit_code == 1 and "(welcome)" in result.stderr and "no_such_value" in result.stderr

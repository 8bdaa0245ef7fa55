"""The deployment files: the systemd unit is one systemd accepts (syntax and sandboxing
directives), and the sample configs load. (No container engine runs here: the Containerfile
is not built by the tests.)"""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="systemd-analyze is not installed")
def test_the_systemd_unit_verifies(tmp_path):
    unit = (ROOT / "deploy" / "pbem.service").read_text()
    exe = Path(sys.executable).with_name("pbem")  # an executable that exists here, in place of /opt/pbem's
    (tmp_path / "pbem.service").write_text(unit.replace("/opt/pbem/venv/bin/pbem", str(exe)))
    result = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "pbem.service")], capture_output=True,
                            text=True, timeout=60)
    problems = [line for line in (result.stdout + result.stderr).splitlines()
                if "pbem.service" in line and "User" not in line]  # the pbem user does not exist here
    assert problems == [], problems


def test_the_unit_and_the_pipes_name_the_same_install_and_home():
    unit = (ROOT / "deploy" / "pbem.service").read_text()
    assert "ExecStart=/opt/pbem/venv/bin/pbem serve" in unit and "PBEM_HOME=/var/lib/pbem" in unit
    assert "ReadWritePaths=/var/lib/pbem" in unit
    assert "/opt/pbem/venv/bin/pbem --home /var/lib/pbem ingest" in (ROOT / "deploy" / "postfix-master.cf").read_text()

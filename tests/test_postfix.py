"""A real Postfix, wired as the README's Deployment says, takes a player's reply and a bounce over
SMTP and hands each to `pbem ingest` through its pipe(8) transport, as the user the README names.

The Postfix is an instance of its own (`postfix -c DIR`: its own main.cf, master.cf, queue and
log in a temporary folder; the machine's own Postfix, if any, is not touched), its smtpd on a free
port of 127.0.0.1. Its main.cf is a loopback instance's few lines plus deploy/postfix-main.cf; its
master.cf Debian's plus deploy/postfix-master.cf; the transport map the line deploy/postfix-main.cf
gives -- only the paths (/etc/postfix, /opt/pbem/venv, /var/lib/pbem) are this test's. The pipe
runs `pbem` as the user `pbem` (made here as README's step 2 does, where missing), from a venv
that user can run, with the home made as README's step 2 does (`install -d -o pbem -m 0700`).

Needs root and Debian's `postfix` package (.ci/run installs both): it skips, saying why, without.
Behind the `postfix` marker, which .ci/run runs (`pytest -m postfix`): a venv with the service
installed in it, and the Postfix, take a minute or two."""
import json
import os
import pwd
import re
import shutil
import smtplib
import socket
import sys
import tempfile
import time
from pathlib import Path

import pytest
from test_install import clean_env, run, snapshot
from test_smtp import dsn

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
POSTFIX = shutil.which("postfix") or "/usr/sbin/postfix"
USER = "pbem"  # deploy/postfix-master.cf's user=
pytestmark = [
    pytest.mark.postfix,
    pytest.mark.timeout(1200),  # the first test waits for the venv and the service installed in it
    pytest.mark.skipif(os.geteuid() != 0, reason="a Postfix instance and the pbem user need root"),
    pytest.mark.skipif(not Path(POSTFIX).exists(), reason="Postfix is not installed (Debian's postfix; .ci/run)"),
]

CONFIG = """
[game]
name = "postfixed"
address = "talisman@example.org"

[[players]]
name = "alice"
email = "alice@example.org"

[[players]]
name = "bob"
email = "bob@example.org"
"""


def as_user(*args, cwd, check=True):
    return run("runuser", "-u", USER, "--", *args, cwd=cwd, env=clean_env(LANG="C.UTF-8"), check=check)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def until(predicate, seconds: float = 90.0) -> bool:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)
    return True


def deploy_lines(name: str) -> str:
    """A file of deploy/ as the README says to add it: its lines that are not comments."""
    return "".join(line + "\n" for line in (DEPLOY / name).read_text().splitlines() if not line.startswith("#"))


@pytest.fixture(scope="module")
def work():
    """A folder every user may pass through (pytest's own are root's alone)."""
    path = Path(tempfile.mkdtemp(prefix="pbem-postfix-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def user():
    try:
        pwd.getpwnam(USER)
    except KeyError:  # README's step 2 (without the home folder: the test makes its own)
        run("useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin",
            USER, cwd="/")
    return USER


@pytest.fixture(scope="module")
def pbem(work, user):
    """The service installed in a venv the pbem user can run: made from this interpreter where
    that user may run it, else from the system's python3 (this one may lie in root's folder)."""
    for python in (Path(getattr(sys, "_base_executable", sys.executable)), Path("/usr/bin/python3")):
        if python.exists() and as_user(python, "-c", "import venv, ensurepip", cwd=work, check=False).returncode == 0:
            break
    else:
        pytest.skip(f"no Python with venv that the user {user} may run")
    venv = work / "venv"
    run(python, "-m", "venv", venv, cwd=work, env=clean_env())
    clone = snapshot(work / "clone")
    run(venv / "bin" / "pip", "install", "-q", ".", cwd=clone, env=clean_env(PBEM_PURE_WHEEL="1"))
    shutil.rmtree(clone)
    return venv / "bin" / "pbem"


@pytest.fixture(scope="module")
def home(work, user, pbem):
    """README's step 2, and a game whose welcome mails hold the players' tokens."""
    home = work / "home"
    run("install", "-d", "-o", user, "-g", user, "-m", "0700", home, cwd=work)
    (work / "game.toml").write_text(CONFIG)
    as_user(pbem, "--home", home, "init", cwd=work)
    as_user(pbem, "--home", home, "game", "new", work / "game.toml", cwd=work)
    as_user(pbem, "--home", home, "serve", "--once", cwd=work)
    return home


@pytest.fixture(scope="module")
def postfix(work, pbem, home):
    """(port, maillog): a Postfix instance on 127.0.0.1 wired as deploy/ says, started; stopped after."""
    etc, port = work / "postfix", free_port()
    etc.mkdir()
    for folder, owner in (("queue", "root"), ("data", "postfix")):
        (work / folder).mkdir()
        shutil.chown(work / folder, owner)
    here = lambda text: (text.replace("/etc/postfix", str(etc)).replace("/opt/pbem/venv/bin/pbem", str(pbem))  # noqa: E731
                         .replace("/var/lib/pbem", str(home)))
    (etc / "main.cf").write_text(f"""# a second Postfix on loopback, for this test alone
compatibility_level = 3.6
queue_directory = {work}/queue
data_directory = {work}/data
maillog_file = {work}/maillog
maillog_file_prefixes = {work}
myhostname = mx.example.org
mydestination = example.org
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
alias_maps =
alias_database =
# the README's lines (deploy/postfix-main.cf):
""" + here(deploy_lines("postfix-main.cf")))
    master = Path("/usr/share/postfix/master.cf.dist")
    (etc / "master.cf").write_text((master.read_text() if master.exists() else "")
                                   + here(deploy_lines("postfix-master.cf")))
    [transport] = re.findall(r"echo '([^']+)' > /etc/postfix/transport", (DEPLOY / "postfix-main.cf").read_text())
    (etc / "transport").write_text(transport + "\n")
    run("postmap", "-c", etc, etc / "transport", cwd=work)
    run("postconf", "-c", etc, "-F", "*/*/chroot = n", cwd=work)  # no copies of /etc in a chroot jail
    run("postconf", "-c", etc, "-M", f"smtp/inet=127.0.0.1:{port} inet n - n - - smtpd", cwd=work)
    run(POSTFIX, "-c", etc, "start", cwd=work)
    try:
        assert until(lambda: _listening(port), 30), (work / "maillog").read_text()
        yield port, work / "maillog"
    finally:
        run(POSTFIX, "-c", etc, "stop", cwd=work, check=False)


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def tokens(home: Path) -> dict[str, str]:
    found = {}
    for eml in (home / "outbox").glob("*.eml"):
        text = eml.read_text()
        m = re.search(r"^token: ([0-9a-f]{20})$", text, re.M)
        w = re.search(r"Welcome, (alice|bob)", text)
        if m and w:
            found[w.group(1)] = m.group(1)
    return found


def test_a_reply_and_a_bounce_over_smtp_reach_the_store_once_through_the_pipe(work, pbem, home, postfix):
    port, maillog = postfix
    cli = lambda *a: json.loads(as_user(pbem, "--home", home, *a, cwd=work).stdout)  # noqa: E731
    summary = cli("game", "show", "postfixed", "--json")
    prompt = summary["prompt"][0]
    player, line = prompt["players"][0], f"{prompt['id']}: {prompt['options'][0]}"
    to = f"talisman+{tokens(home)[player]}@example.org"
    reply = (f"From: {player}@example.org\r\nTo: {to}\r\nSubject: Re: [postfixed] Turn 1\r\n"
             f"Message-ID: <reply-1@example.org>\r\n\r\n{line}\r\n")
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        assert smtp.sendmail(f"{player}@example.org", [to], reply) == {}  # every recipient accepted
        assert smtp.sendmail(f"{player}@example.org", [to], reply) == {}  # sent again (a client's retry)
    delivered = lambda: re.findall(r"relay=pbem, .*status=(\w+)", maillog.read_text())  # noqa: E731
    assert until(lambda: len(delivered()) == 2), maillog.read_text()[-3000:]
    # a bounce of bob's last report, to its envelope sender (VERP), as a receiving MTA sends it
    row = json.loads(as_user(pbem.with_name("python"), "-c", BOUNCED.format(home=home), cwd=work).stdout)
    assert row["return_path"].startswith("talisman+bounce-")
    bounce = dsn(row["to"], row["message_id"], to=row["return_path"]).split(b"\n", 1)[1]  # Postfix adds Delivered-To
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        assert smtp.sendmail("", [row["return_path"]], bounce) == {}
    assert until(lambda: len(delivered()) == 3), maillog.read_text()[-3000:]
    # each delivered by the pipe, none deferred or bounced; the reply's second copy stored as the first
    assert delivered() == ["sent", "sent", "sent"], maillog.read_text()[-3000:]
    assert "User unknown" not in maillog.read_text() and "status=deferred" not in maillog.read_text()
    inbox = cli("inbox", "list", "--json")
    assert [(r["message_id"], r["status"], r["player"]) for r in inbox] == [
        ("<reply-1@example.org>", "processed", player), (f"<dsn-{row['to']}-failed@mx.example.net>", "processed", "bob")
    ], inbox
    assert inbox[0]["outcome"].startswith("applied: 1 of 1") and inbox[0]["source"] == "stdin", inbox
    assert inbox[1]["outcome"] == "bounce: postfixed/bob undeliverable", inbox
    assert len(cli("log", "postfixed", "--json")) == 1  # the reply played once
    bob = [p for p in cli("player", "list", "postfixed", "--json") if p["name"] == "bob"]
    assert bob and "5.1.1" in (bob[0]["undeliverable"] or "")
    assert {p.owner() for p in home.iterdir()} == {USER}  # what ingest wrote, it wrote as pbem


# run as the pbem user with the installed service: bob's last report and where its bounce goes
BOUNCED = """
import json
from pbem.base import settings
from pbem.core.service import open_service
from pbem.outbound import sending
svc = open_service(settings=settings.load("{home}"))
row = max((r for r in svc.store.outbox_rows() if r["player"] == "bob" and r["status"] == "sent"), key=lambda r: r["id"])
print(json.dumps({{"to": row["to_addr"], "message_id": row["message_id"],
                  "return_path": sending.return_path(svc, svc.store.outbox_mail(row["id"]))}}))
"""

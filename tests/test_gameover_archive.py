"""The game-over mail attaches the game's archive it tells players to verify (issue 18),
through the pipeline: the last answer comes in by mail, the game-over mails go out (as .eml
files, as sent), and `pbem verify` accepts the archive attached to each."""
import asyncio
import email
import email.policy
import hashlib
import random

from conftest import PLAYERS, game_config, mail, token
from test_archive import cli

from engine import api
from pbem import bot, daemon
from pbem.archive import archive
from pbem.core import games
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame


def play_to_the_end_by_mail(svc, gid: str, bot_seed: int) -> int:
    """Bots answer by mail (the moderator's questions by `game answer`) until the game ends;
    returns the inbox id of the mail that ended it."""
    rnd, emails = random.Random(bot_seed), dict(PLAYERS)
    for _ in range(2000):
        state = games.state(svc, games.get(svc, gid))
        move = bot.choose(state, rnd)
        line = f"{move.prompt}: {move.key}"
        if move.player == api.MODERATOR:
            assert moderator.answer(svc, gid, move.player, line).applied
            continue
        result = handle(svc, mail([line], sender=emails[move.player], tok=token(svc, gid, move.player), game=gid))
        assert result.status == "applied", result.outcome
        if games.state(svc, games.get(svc, gid)).over:
            return result.inbox_id
    raise AssertionError("the game did not end")


def sent_mails(svc) -> list[email.message.EmailMessage]:
    return [email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
            for p in sorted(svc.settings.outbox_path.glob("*.eml"))]


def test_the_game_over_mail_attaches_the_archive_that_pbem_verify_accepts(svc, tmp_path):
    other = newgame.create(svc, game_config(name="other", seed="the-other-games-secret-seed"))  # still running
    gid = newgame.create(svc, game_config(name="ending", seed="ending-game-seed-42", options={"turn_cap": 2}))
    play_to_the_end_by_mail(svc, gid, bot_seed=3)
    asyncio.run(daemon.cycle(svc))  # sends: the outbox folder holds each mail as it went out
    over = [m for m in sent_mails(svc) if m["Subject"].startswith(f"[{gid}] Game over")]
    assert sorted(m["To"].addresses[0].addr_spec for m in over) == sorted(e for _, e in PLAYERS)
    toks = {p: token(svc, g, p) for g in (gid, other) for p, _ in PLAYERS}
    for m in over:
        assert "ending-game-seed-42" in m.get_body(("plain",)).get_content()  # the seed, stated
        [part] = [p for p in m.iter_attachments()]
        assert part.get_content_type() == "application/json" and part.get_filename() == f"talisman-{gid}.json"
        data = part.get_content()
        text = data.decode() if isinstance(data, bytes) else data
        assert "the-other-games-secret-seed" not in text  # nothing of another game
        assert not any(t in text for t in toks.values())  # no token of anyone
        assert not any(address in text for _, address in PLAYERS)  # no address (Message-IDs are chained)
        path = tmp_path / part.get_filename()
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
        loaded = archive.load(path)
        assert loaded["seed"] == "ending-game-seed-42"
        assert hashlib.sha256(loaded["seed"].encode()).hexdigest() == loaded["seed_commitment"]
        assert loaded["moves"] and len(loaded["moves"]) == games.get(svc, gid)["moves"]
        out = cli(svc, "verify", path).stdout
        assert f"ok ({len(loaded['moves'])} moves, re-run from the seed)" in out, out
    assert len({p.get_content() for m in over for p in m.iter_attachments()}) == 1  # one archive for all


def test_a_tampered_attachment_does_not_verify(svc, tmp_path):
    gid = newgame.create(svc, game_config(name="tamper", seed="tamper-game-seed-17", options={"turn_cap": 2}))
    play_to_the_end_by_mail(svc, gid, bot_seed=5)
    asyncio.run(daemon.cycle(svc))
    [m, *_] = [m for m in sent_mails(svc) if m["Subject"].startswith(f"[{gid}] Game over")]
    [part] = list(m.iter_attachments())
    data = part.get_content()
    text = data.decode() if isinstance(data, bytes) else data
    path = tmp_path / "tampered.json"
    path.write_text(text.replace("tamper-game-seed-17", "tamper-game-seed-18"))
    cli(svc, "verify", path, code=1)

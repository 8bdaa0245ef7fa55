"""The moderator's lines are played as the log keeps them (issue 32): a store keeps a control
character as its visible picture (pbem/store/common.py `storable`), so a ruling or an answer
played with the raw character would be logged as another text, and a replay of the log would
part from the game. A mail's lines are cleaned when the mail is read; `game answer` and
`game adjudicate` lines are cleaned before they are played."""
from __future__ import annotations

import pytest

from pbem.archive import archive
from pbem.core import games
from pbem.moderate import moderator


def test_a_ruling_is_played_as_the_log_keeps_it(svc, game):
    moderator.adjudicate(svc, game, "alice gold +1")
    # "\x1f" splits words as a space does; its stored picture "␟" does not
    with pytest.raises(games.GameError, match="cannot read 'alice gold␟\\+1'"):
        moderator.adjudicate(svc, game, "alice gold\x1f+1")
    assert [r["line"] for r in svc.store.moves(game)] == ["moderator: adjudicate alice gold +1"]
    archive.export(svc, game)  # re-runs the log from the seed: raises where it parts from the game


def test_an_answer_in_a_players_place_is_read_as_a_mails_line_is(svc, game):
    """The same text as a mail's line, so the moderator's answer is refused or played as the
    player's own would be, and the line it quotes back is the one a store keeps."""
    st = games.state(svc, games.get(svc, game))
    move = svc.engine.legal_moves(st)[0]
    played = moderator.answer(svc, game, move.player, f"{move.prompt}:\x1f{move.key}")
    assert played.applied == [] and played.failed["line"] == f"{move.prompt}:␟{move.key}", played.failed
    played = moderator.answer(svc, game, move.player, f"{move.prompt}: {move.key}")
    assert played.applied and played.failed is None
    archive.export(svc, game)

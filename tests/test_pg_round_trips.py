"""An answered mail on PostgreSQL waits for the server as few times as it can (issue 28): within a
transaction the writes whose count nobody reads, BEGIN and COMMIT go in psycopg's pipeline mode
without waiting for their answers (pbem/store/postgres.py). Counted at the protocol level, as
libpq traces the messages both ways: each turn from the client's messages to the server's is
one round trip; each Execute (or simple Query) one statement."""
import asyncio
import collections
from datetime import UTC, datetime

import fake_engine
import psycopg
from conftest import StillClock, game_config, mail, token

from pbem.inbound.process import handle
from pbem.moderate import newgame
from pbem.outbound import sending

FOUR = [(n, f"{n}@example.org") for n in ("alice", "bob", "carol", "dave")]


def answered(svc, line: str, sender: str) -> None:
    who = sender.split("@")[0]
    assert handle(svc, mail([line], sender=sender, tok=token(svc, "autumn", who))).status == "applied"
    asyncio.run(sending.send_due(svc, sending.sender_for(svc.settings)))


def test_an_answered_mail_pipelines_its_writes_on_postgresql(make_service, pg_url, monkeypatch, tmp_path):
    conns: list[psycopg.Connection] = []
    connect = psycopg.Connection.connect.__func__  # type: ignore[attr-defined]

    def kept(cls, *args, **kwargs):
        conns.append(connect(cls, *args, **kwargs))
        return conns[-1]
    monkeypatch.setattr(psycopg.Connection, "connect", classmethod(kept))
    svc = make_service(engine=fake_engine, db=pg_url, clock=StillClock(datetime(2026, 10, 23, 9, 0, tzinfo=UTC)))
    newgame.create(svc, game_config(players=FOUR, options={"turn_cap": 20}))
    answered(svc, "1: rest", "alice@example.org")  # warm: the pool's connection, its prepared statements
    trace = tmp_path / "libpq.trace"
    with trace.open("w") as out:
        for conn in conns:
            if not conn.closed:
                conn.pgconn.trace(out.fileno())
                conn.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
        answered(svc, "1: rest", "bob@example.org")
        for conn in conns:
            if not conn.closed:
                conn.pgconn.untrace()
    messages = [line.split("\t") for line in trace.read_text().splitlines() if line[:2] in ("F\t", "B\t")]
    sent = collections.Counter(m[2].strip() for m in messages if m[0] == "F")
    statements = sent["Execute"] + sent["Query"]
    waits = sum(1 for before, after in zip(messages, messages[1:]) if before[0] == "F" and after[0] == "B")
    assert statements >= 11, sent  # the answer, its four replies queued, rendered and marked sent
    # Without the pipeline every statement, BEGIN, SAVEPOINT and COMMIT was a wait of its own: 47
    # round trips for 45 statements here. With it 37: the answer's unread writes, its lock, its
    # notifications, BEGIN and COMMIT share the waits of the reads that follow them. Its four
    # mails then read their seats once (sending.send_due: read_once), not once each: 35 for 42;
    # and its four outbox rows go in the pipeline too (outbox.enqueue not `counted`): 31; with the
    # answer's own reads made once with its reports' (read_once around both): 29 for 40. Then
    # fewer statements (perf28k): the open deadlines and those owed one read, the stored state
    # and the move's events not read back (reads, so waits too), the limit's DELETE in its INSERT
    # (a write the pipeline sent without waiting): 26 for 35; others' cuts since: 24 for 33. The
    # four mails' marks "sent", one statement and one commit for the batch (perf28o): 21 for 30;
    # the chain's head read with the game under its lock, not again by append_move: 20 for 29;
    # the four outbox rows one INSERT (PostgresStore._write_row; writes not waited for): 20 for 26;
    # the move's frame under an id reserved beforehand, not read back (PostgresStore.add_frame): 19;
    # the standing orders read with the address settings, one wait for both (_all_at_once): 18;
    # the processing's savepoint the store's own, one sync where psycopg's made three: 15.
    # The writes nobody reads next to each other, of tables no other of them writes, one statement
    # (PostgresStore._pend: the move, its events, the game, the frame and the seats' marks one;
    # the mails and the message's outcome one): 15 for 21, the waits as they were (perf28u).
    # The message's INSERT brings what the answer reads first (PostgresStore._read_ahead: the
    # token's seats, its game locked and read, the seats, deadlines, standing orders and address
    # settings): five waits fewer, and with no read between them the answer's writes all one
    # statement: 10 for 20. The claim brings the seats its mails read (PostgresStore._loose_reads),
    # the marks that end the round what still waits: 8. The savepoint's RELEASE held back, and
    # not sent when the COMMIT follows it: 19 statements. The reads ahead after the lock one
    # statement (the game's row, and its seats, deadlines, orders and addresses as JSON): 15.
    # The NOTIFY the SELECT of the savepoint's last writes: 14. The claim's rows with their seats
    # as JSON, one statement: 13. The token's seats read with the lock, one statement: 12 (each
    # of these cuts a statement, not a wait: the margin below shrinks with them).
    assert waits <= statements - 4, (waits, sent)
    assert waits <= 8 and statements <= 12, (waits, sent)

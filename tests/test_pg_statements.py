"""What an answered mail costs PostgreSQL in statements (issue 28: its CPU, the server's
counted, against SQLite's): a transaction wakes the other daemons with one NOTIFY at its
commit, naming every kind of work it queued, not a statement for each kind; a connection keeps
its cursors. And the pipeline's transactions hold: a savepoint is one wherever it starts."""
import select

import psycopg
import pytest

from pbem.store import open_store
from pbem.store.postgres import CHANNEL


def _heard(conn: psycopg.Connection) -> list[str]:
    select.select([conn.fileno()], [], [], 2.0)
    return [n.payload for n in conn.notifies(timeout=0.5, stop_after=10)]


def _statements(monkeypatch) -> list[str]:
    """The text of every statement sent from now on, in order (psycopg's Cursor.execute counted)."""
    sent: list[str] = []
    execute = psycopg.Cursor.execute

    def counted(self, query, params=None, **kwargs):
        sent.append(str(query))
        return execute(self, query, params, **kwargs)
    monkeypatch.setattr(psycopg.Cursor, "execute", counted)
    return sent


def test_a_transaction_notifies_once_for_every_kind_it_queued(pg_url):
    store = open_store(pg_url)
    listener = psycopg.connect(pg_url, autocommit=True)
    try:
        listener.execute(f"LISTEN {CHANNEL}")
        sent: list[str] = []
        write = store._write

        def counted(sql, params=()):
            sent.append(sql)
            return write(sql, params)
        store._write = counted  # type: ignore[method-assign]
        with store.transaction():
            store.notify("inbox")
            store.notify("outbox")
            store.notify("outbox")
            assert not any("pg_notify" in s for s in sent)  # nothing before the commit
        assert _heard(listener) == [f"inbox outbox {store.origin}"]
        with store.transaction():  # a transaction that queued nothing notifies nobody
            store.game("none")
        store.notify("deadlines")  # outside a transaction: at once, alone
        assert _heard(listener) == [f"deadlines {store.origin}"]
    finally:
        listener.close()
        store.close()


def test_what_a_rolled_back_savepoint_queued_is_not_told(pg_url):
    store = open_store(pg_url)
    listener = psycopg.connect(pg_url, autocommit=True)
    try:
        listener.execute(f"LISTEN {CHANNEL}")
        with store.transaction():
            store.notify("inbox")
            try:
                with store.transaction(savepoint=True):
                    store.notify("outbox")
                    raise RuntimeError("undone")
            except RuntimeError:
                pass
        assert _heard(listener) == [f"inbox {store.origin}"]
    finally:
        listener.close()
        store.close()


def test_a_connection_keeps_its_cursors(pg_url, monkeypatch):
    """A statement ran on a cursor of its own, about 10 us of CPU each, some 35 an answer: a
    connection's two cursors (reads and counted writes; the writes nobody reads) are kept. Reads
    after pipelined writes still see their own rows."""
    store = open_store(pg_url)
    try:
        store.set_meta("warm", "1")
        with store.transaction():
            store.meta("warm")
            store._write("INSERT INTO service_meta (name, value) VALUES (?, ?)", ("w", "0"))
        made = []
        cursor = psycopg.Connection.cursor

        def counted(self, *args, **kwargs):
            made.append(1)
            return cursor(self, *args, **kwargs)
        monkeypatch.setattr(psycopg.Connection, "cursor", counted)
        with store.transaction():
            for n in range(5):
                store._write("INSERT INTO service_meta (name, value) VALUES (?, ?)", (f"k{n}", str(n)))
                assert store.meta(f"k{n}") == str(n)
            assert store._run("UPDATE service_meta SET value = 'x' WHERE name LIKE 'k%'") == 5
        assert store.meta("k3") == "x" and store.schema_version() > 0
        assert made == []
    finally:
        store.close()


def test_a_savepoint_after_a_read_is_a_savepoint(pg_url):
    """In psycopg's pipeline libpq knows the transaction's state only from the server's answer to
    a Sync: right after a read, with nothing pending, it said idle, and psycopg opened a
    transaction of its own (BEGIN, then COMMIT) where a savepoint belonged: the outer transaction
    was committed half-way and its failure undid nothing."""
    store = open_store(pg_url)
    try:
        put = "INSERT INTO service_meta (name, value) VALUES (?, ?)"  # a write nobody reads: never synced
        with pytest.raises(RuntimeError), store.transaction():
            store._write(put, ("outer", "1"))
            store.meta("outer")  # a read: nothing pending
            with store.transaction(savepoint=True):
                store._write(put, ("inner", "1"))
            raise RuntimeError("the outer transaction fails")
        assert store.meta("outer") is None and store.meta("inner") is None
        with store.transaction():
            store._write(put, ("outer", "2"))
            store.meta("outer")
            with pytest.raises(RuntimeError), store.transaction(savepoint=True):
                store._write(put, ("inner", "2"))
                raise RuntimeError("the savepoint fails")
            assert store.meta("inner") is None and store.meta("outer") == "2"
        assert store.meta("outer") == "2" and store.meta("inner") is None
    finally:
        store.close()


def test_a_frame_this_store_stored_is_not_read_back(pg_url):
    """The state a move's reports are made from (report_frames) is stored by the answer and read
    by the sending, most often in the same process: kept, it is no statement. A rolled-back
    row's id is never given again (an identity column), so what is kept is what is stored."""
    store = open_store(pg_url)
    try:
        try:
            with store.transaction():
                undone = store.add_frame('{"undone": 1}')
                raise RuntimeError("rolled back")
        except RuntimeError:
            pass
        with store.transaction():
            kept = store.add_frame('{"kept": 1}')
        assert kept != undone
        read: list[str] = []
        all_ = store._all
        store._all = lambda sql, params=(): read.append(sql) or all_(sql, params)  # type: ignore[method-assign]
        assert store.frame(kept) == '{"kept": 1}' and read == []
        other = open_store(pg_url)  # another process's store reads it
        try:
            assert other.frame(kept) == '{"kept": 1}'
        finally:
            other.close()
    finally:
        store.close()


def test_frames_stored_in_a_transaction_take_reserved_ids_and_wait_for_nothing(pg_url):
    """Within a transaction a frame goes under an id the store reserved from the identity's
    sequence (16 at a time): a write sent without waiting, where INSERT ... RETURNING id was a
    read and a wait each. Two stores (processes) never share an id; an id of a rolled-back frame
    is not given again; every frame reads back as stored, from any store."""
    store, other = open_store(pg_url), open_store(pg_url)
    try:
        reads: list[str] = []
        all_ = store._all
        store._all = lambda sql, params=(): reads.append(sql) or all_(sql, params)  # type: ignore[method-assign]
        ids = {}
        for i in range(20):
            for s in (store, other):
                with s.transaction():
                    ids[s.add_frame(f'{{"n": {i}, "by": {id(s)}}}')] = f'{{"n": {i}, "by": {id(s)}}}'
        assert len(ids) == 40  # none given twice
        assert len(reads) == 2 and all("nextval" in sql for sql in reads)  # 16, then 4 of the next 16
        with pytest.raises(RuntimeError), store.transaction():
            undone = store.add_frame('{"undone": 1}')
            raise RuntimeError("rolled back")
        with store.transaction():
            kept = store.add_frame('{"kept": 1}')
        assert undone not in ids and kept not in {*ids, undone}
        with pytest.raises(AssertionError):
            other.frame(undone)  # no such row
        fresh = open_store(pg_url)
        try:
            assert all(fresh.frame(i) == frame for i, frame in ids.items())
            assert fresh.frame(kept) == '{"kept": 1}'
        finally:
            fresh.close()
    finally:
        store.close()
        other.close()


def test_a_savepoint_undoes_its_own_failures_and_only_them(pg_url):
    """The savepoint is the store's own (PostgresStore._savepoint: SAVEPOINT and RELEASE sent
    without waiting, one sync at its end, where psycopg's synced three times). A write of it that
    fails (found at its end, or at a read within it), an exception with its writes not yet sent,
    a savepoint within a savepoint: each undoes its own rows and the transaction goes on. A write
    before it that fails fails the transaction, not the savepoint. Prepared statements keep
    working after all of it."""
    store = open_store(pg_url)
    put = "INSERT INTO service_meta (name, value) VALUES (?, ?)"
    names = lambda: sorted(r["name"] for r in store.query("SELECT name FROM service_meta WHERE name LIKE 't%'"))
    try:
        for round in range(7):  # past psycopg's prepare threshold (5): prepared statements after failures
            with store.transaction():
                store._write(put, (f"t{round}a", "1"))
                with pytest.raises(psycopg.errors.UniqueViolation), store.transaction(savepoint=True):
                    store._write(put, (f"t{round}x", "1"))
                    store._write(put, (f"t{round}a", "again"))  # found at the savepoint's end
                with pytest.raises(psycopg.errors.UniqueViolation), store.transaction(savepoint=True):
                    store._write(put, (f"t{round}y", "1"))
                    store._write(put, (f"t{round}a", "again"))
                    store.meta(f"t{round}y")  # found at a read within it
                with pytest.raises(RuntimeError), store.transaction(savepoint=True):
                    store._write(put, (f"t{round}z", "1"))  # not yet sent
                    raise RuntimeError("ours")
                with store.transaction(savepoint=True):
                    store._write(put, (f"t{round}b", "1"))
                    with pytest.raises(psycopg.errors.UniqueViolation), store.transaction(savepoint=True):
                        store._write(put, (f"t{round}w", "1"))
                        store._write(put, (f"t{round}b", "again"))
                    store._write(put, (f"t{round}c", "1"))
                assert store.meta(f"t{round}c") == "1"
        assert names() == sorted(f"t{r}{k}" for r in range(7) for k in "abc")
        with pytest.raises(psycopg.errors.UniqueViolation), store.transaction():
            store._write(put, ("t9", "1"))
            store._write(put, ("t0a", "again"))  # before the savepoint: the transaction's to fail
            with store.transaction(savepoint=True):
                store._write(put, ("t9b", "1"))
        assert "t9" not in names() and "t9b" not in names()
        with store.transaction():
            store._write(put, ("t9", "1"))
        assert "t9" in names()
    finally:
        store.close()


def test_writes_nobody_reads_go_as_one_statement_and_hold_as_several(pg_url, monkeypatch):
    """Within a transaction the writes whose count nobody reads, of tables no other of them
    writes, go as one statement (PostgresStore._pend: each but the last in a WITH): a row may
    refer to one written in the same statement (foreign keys are checked at its end), a write of
    a table already written goes after (it sees those rows), and an error in any undoes them
    all, found at the next wait as before."""
    store = open_store(pg_url)
    sent = _statements(monkeypatch)
    try:
        with store.transaction():
            store.add_game("g", {}, "seed", "commitment", b"state", "1", "active")
            store.add_player("g", "a", 1, "a@example.org", "hash-a", "salt")  # its game in the same statement
            store._write("INSERT INTO service_meta (name, value) VALUES (?, ?)", ("m", "1"))
            store._write("UPDATE players SET email = ? WHERE game = ? AND name = ?", ("b@example.org", "g", "a"))
            store._write("UPDATE games SET moves = ? WHERE id = ?", (1, "g"))
        writes = [s for s in sent if s not in ("BEGIN", "COMMIT")]
        assert len(writes) == 2 and writes[0].startswith("WITH w0 AS (INSERT INTO games"), writes
        assert writes[1].startswith("WITH w0 AS (UPDATE players"), writes
        assert store.player("g", "a")["email"] == "b@example.org"  # the UPDATE went after the INSERT
        assert store.game("g")["moves"] == 1 and store.meta("m") == "1"
        with pytest.raises(psycopg.errors.UniqueViolation), store.transaction():
            store._write("INSERT INTO service_meta (name, value) VALUES (?, ?)", ("n", "1"))
            store.add_player("g", "c", 2, "c@example.org", "hash-c", "salt")
            store._write("UPDATE games SET moves = ? WHERE id = ?", (2, "g"))
            store._write("INSERT INTO service_meta (name, value) VALUES (?, ?)", ("m", "again"))  # fails
            store._write("UPDATE games SET moves = ? WHERE id = ?", (3, "g"))
        assert store.meta("n") is None and store.player("g", "c") is None and store.game("g")["moves"] == 1
        with store.transaction():
            store._write("INSERT INTO service_meta (name, value) VALUES (?, ?)", ("o", "1"))
            with pytest.raises(psycopg.errors.UniqueViolation), store.transaction(savepoint=True):
                store.add_player("g", "d", 3, "d@example.org", "hash-d", "salt")
                store._write("INSERT INTO service_meta (name, value) VALUES (?, ?)", ("m", "again"))
            store._write("UPDATE games SET moves = ? WHERE id = ?", (4, "g"))
        assert store.meta("o") == "1" and store.player("g", "d") is None and store.game("g")["moves"] == 4
    finally:
        store.close()


def test_a_message_with_a_token_brings_what_its_answer_reads_first(pg_url, monkeypatch):
    """A message stored with a token (add_inbox within a transaction) brings, in the same round
    trip, the token's seats and, when they are of one game, that game locked and its row, seats,
    deadlines, standing orders and address settings, each served once to the read that asks for
    it, as a read of the server would have answered it: a write of its table since, or a
    savepoint undone, has it read again. The lock is held: `game` does not take it again."""
    store, other = open_store(pg_url), open_store(pg_url)
    for s in ("a", "b"):
        store.add_game(s, {}, "seed", f"commitment-{s}", b"state", "1", "active")
    store.add_player("a", "ann", 1, "Ann@Example.org", "hash-ann", "salt")
    store.add_player("a", "bob", 2, "bob@example.org", "hash-bob", "salt")
    store.add_player("b", "cat", 1, "cat@example.org", "hash-cat", "salt")
    store.add_player("b", "two", 2, "two@example.org", "hash-two", "salt")
    store.add_player("a", "two", 3, "two@example.org", "hash-two", "salt")  # one token, two games
    store.set_address_settings("ann@example.org", language="de")
    def stored(token_hash: str, n: int) -> None:
        store.add_inbox(b"mail", source="stdin", kind="mail", content_hash=f"c{n}", token_hash=token_hash)
    locked = "SELECT pg_try_advisory_xact_lock(hashtextextended('a', 0)) AS free"
    try:
        store.open_deadline("a", 3, "ann", kind="fight", default_key="fight", opened_at="2026-01-01T00:00:00Z",
                            due_at="2026-01-02T00:00:00Z", reminded="", next_at="2026-01-01T12:00:00Z")
        store.open_deadline("a", 2, "ann", kind="move", default_key="rest", opened_at="2026-01-01T00:00:00Z",
                            due_at="2026-01-02T00:00:00Z", reminded="3600", next_at="2026-01-01T12:00:00Z",
                            email="ann@example.org")
        store.file_standing_order("a", "ann", "when fight answer fight")
        store.file_standing_order("a", "ann", "when rest answer rest")
        plain = {"seats": store.players_by_token_hash("hash-ann"), "game": store.game("a"),
                 "players": store.players("a"), "deadlines": store.deadlines("a", "ann"),
                 "orders": store.standing_orders("a", "ann"), "address": store.address_settings("ann@example.org")}
        assert len(plain["deadlines"]) == 2 and len(plain["orders"]) == 2
        sent = _statements(monkeypatch)
        with store.transaction():
            stored("hash-ann", 1)
            reads = len(sent)
            assert repr(store.players_by_token_hash("hash-ann")) == repr(plain["seats"])
            assert store.game("a") == plain["game"]
            with store.read_once("a"):
                assert repr(store.players("a")) == repr(plain["players"])
                # as the server's rows: values, their types, the columns' and the rows' order
                assert repr(store.deadlines("a", "ann")) == repr(plain["deadlines"])
                assert repr(store.standing_orders("a", "ann")) == repr(plain["orders"])
                with store.read_once("a", [p["email"] for p in store.players("a", active_only=True)]):
                    assert repr(store.address_settings("Ann@example.org")) == repr(plain["address"])
                    assert plain["address"]["language"] == "de"
            assert len(sent) == reads, sent[reads:]  # none of them a statement: read with the INSERT
            with other.transaction():
                assert other.query(locked) == [{"free": False}]  # the game is locked for the transaction
            store._write("UPDATE players SET email = ? WHERE game = ? AND name = ?", ("b@example.org", "a", "bob"))
            assert store.players_by_token_hash("hash-bob")[0]["email"] == "b@example.org"  # written: read again
        with store.transaction():
            stored("hash-ann", 2)
            store.update_player("a", "ann", status="gone")
            assert store.players_by_token_hash("hash-ann")[0]["status"] == "gone"
        with store.transaction():
            stored("hash-bob", 3)
            with pytest.raises(RuntimeError), store.transaction(savepoint=True):
                store._write("INSERT INTO service_meta (name, value) VALUES (?, ?)", ("x", "1"))
                raise RuntimeError("undone")
            reads = len(sent)
            assert store.game("a")["id"] == "a"
            assert len(sent) == reads + 2  # a savepoint undone: locked and read again
        with store.transaction():
            stored("hash-two", 4)  # seats of two games: the seats read, no game locked
            assert sorted(p["game"] for p in store.players_by_token_hash("hash-two")) == ["a", "b"]
            with other.transaction():
                assert other.query(locked) == [{"free": True}]
    finally:
        store.close()
        other.close()


def test_a_claim_brings_its_seats_and_the_last_marks_what_waits(pg_url, monkeypatch):
    """Outside a transaction a claim brings, in its statement, the seats of its first mail's game
    (the sender reads them next), and the marks that end a claim that took all that was due bring
    what still waits (read next, at the round's end). Each serves only the statement right after
    it: anything else between, and the read is made then."""
    store = open_store(pg_url)
    store.add_game("a", {}, "seed", "commitment", b"state", "1", "active")
    store.add_player("a", "ann", 1, "ann@example.org", "hash-ann", "salt")

    def queue(n: int) -> None:
        for i in range(n):
            store.add_outbox(message_id=f"<m{i}-{len(store.outbox_rows())}@example.org>", kind="report",
                             to_addr="ann@example.org", subject="s", headers={}, text="t", game="a", player="ann")
    try:
        seats, waiting = store.players("a"), store.outbox_waiting()
        queue(2)
        columns = set(store.query("SELECT * FROM outbox LIMIT 1")[0])
        sent = _statements(monkeypatch)
        rows = store.claim_outbox_rows("me", 60, 5)
        assert len(sent) == 1 and "pbem_seats" in sent[0]  # the claim and the seats, one statement
        assert len(rows) == 2 and all(set(r) == columns and r["claimed_by"] == "me" for r in rows)
        with store.read_once("a"):
            assert repr(store.players("a")) == repr(seats) and len(sent) == 1  # no statement
        assert store.outbox_sent_rows([(r["id"], "t", None) for r in rows], "me") == {r["id"] for r in rows}
        assert len(sent) == 3  # the marks and what waits, one round trip
        assert store.outbox_waiting() == waiting and len(sent) == 3
        queue(3)
        sent.clear()
        rows = store.claim_outbox_rows("me", 60, 3)  # took as many as it might: more may be due
        store.meta("between")  # a statement between: the seats are read when asked
        with store.read_once("a"):
            assert store.players("a") == seats
        assert len(sent) == 1 + 1 + 1
        store.outbox_sent_rows([(r["id"], "t", None) for r in rows], "me")
        assert len(sent) == 4  # the marks alone
        assert store.outbox_waiting() == waiting and len(sent) == 5
    finally:
        store.close()


def test_a_savepoint_is_released_by_the_commit_or_before_the_next(pg_url, monkeypatch):
    """A savepoint's RELEASE is held back: the COMMIT that follows it commits what it did (an
    answered mail's case: a statement less), another savepoint sends it first (none stays open
    under it), and what runs between stays the transaction's: kept by the commit, undone with
    it. A later savepoint undoes only its own."""
    store = open_store(pg_url)
    put = "INSERT INTO service_meta (name, value) VALUES (?, ?)"
    names = lambda: sorted(r["name"] for r in store.query("SELECT name FROM service_meta WHERE name LIKE 'r%'"))
    sent = _statements(monkeypatch)
    try:
        with store.transaction():
            with store.transaction(savepoint=True):
                store._write(put, ("r1", "1"))
        assert not any(s.startswith("RELEASE") for s in sent), sent
        with store.transaction():
            with store.transaction(savepoint=True):
                store._write(put, ("r2", "1"))
            store._write(put, ("r3", "1"))  # between: within the one not yet released
            with pytest.raises(psycopg.errors.UniqueViolation), store.transaction(savepoint=True):
                store._write(put, ("r4", "1"))
                store._write(put, ("r1", "again"))
            with store.transaction(savepoint=True):
                with store.transaction(savepoint=True):
                    store._write(put, ("r5", "1"))
                store._write(put, ("r6", "1"))
        assert names() == ["r1", "r2", "r3", "r5", "r6"]
        assert sent.count("RELEASE SAVEPOINT pbem_1") == 2 and sent.count("RELEASE SAVEPOINT pbem_2") == 0, sent
        with pytest.raises(RuntimeError), store.transaction():
            with store.transaction(savepoint=True):
                store._write(put, ("r7", "1"))
            store._write(put, ("r8", "1"))
            raise RuntimeError("the transaction fails")
        assert names() == ["r1", "r2", "r3", "r5", "r6"]
    finally:
        store.close()


def test_a_savepoints_writes_carry_the_transactions_notify(pg_url, monkeypatch):
    """The NOTIFY of what a transaction queued goes as the SELECT of the statement that ends a
    savepoint's writes (not a statement of its own at the commit), and is heard once, at the
    commit; a savepoint whose writes failed takes its NOTIFY with it, and the commit tells
    what is left."""
    store = open_store(pg_url)
    listener = psycopg.connect(pg_url, autocommit=True)
    put = "INSERT INTO service_meta (name, value) VALUES (?, ?)"
    try:
        listener.execute(f"LISTEN {CHANNEL}")
        store.set_meta("taken", "1")
        sent = _statements(monkeypatch)
        with store.transaction():
            store.notify("inbox")
            with store.transaction(savepoint=True):
                store._write(put, ("n1", "1"))
                store.notify("outbox")
        assert sent[-1] == "COMMIT" and "pg_notify" in sent[-2] and sent[-2].startswith("WITH w0 AS (INSERT"), sent
        assert _heard(listener) == [f"inbox outbox {store.origin}"]
        with store.transaction():
            store.notify("inbox")
            with pytest.raises(psycopg.errors.UniqueViolation), store.transaction(savepoint=True):
                store._write(put, ("taken", "again"))
                store.notify("outbox")
        assert _heard(listener) == [f"inbox {store.origin}"] and store.meta("n1") == "1"
    finally:
        listener.close()
        store.close()

"""The store: migrations, transactions, the hash-chained move log, dedupe; on both stores
(SQLite, and a real PostgreSQL: tests/pgcluster.py) where the behaviour is the store's."""
import sqlite3
from datetime import timedelta

import pytest
from conftest import Clock

from pbem.store import StoreUnavailable, migrations, open_store


@pytest.fixture
def store(tmp_path, db_setting):
    s = open_store(db_setting.get("db") or tmp_path / "db.sqlite", clock=Clock())
    yield s
    s.close()


@pytest.fixture
def sqlite_store(tmp_path):
    s = open_store(tmp_path / "db.sqlite", clock=Clock())
    yield s
    s.close()


def add_game(store, id="g"):
    with store.transaction():
        store.add_game(id, {"game": {}}, "seed", "c" * 64, b"state0", "v", "active")


def test_migrations_run_once_and_are_recorded(tmp_path):
    s = open_store(tmp_path / "db.sqlite")
    assert s.schema_version() == len(migrations.MIGRATIONS)
    s.close()
    again = open_store(tmp_path / "db.sqlite")
    assert again.migrate() == []  # nothing left to apply
    names = {r["name"] for r in again.db.query("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"games", "players", "moves", "snapshots", "inbox", "outbox", "schema_migrations"} <= names
    assert again.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    again.close()


def test_migrations_fill_in_each_dialect():
    pg = " ".join(migrations.statements(2, "postgresql"))
    assert "BYTEA" in pg and "IDENTITY" in pg and "{" not in pg
    assert not any("RAISE(ABORT" in s for s in migrations.statements(1, "postgresql"))  # SQLite's trigger syntax
    assert any("EXECUTE FUNCTION" in s for s in migrations.statements(1, "postgresql"))


def test_unopenable_store_is_unavailable(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(StoreUnavailable):
        open_store(tmp_path / "file" / "db.sqlite")


def test_transaction_rolls_back(store):
    add_game(store)
    with pytest.raises(RuntimeError):
        with store.transaction():
            store.append_move("g", kind="move", player="a", actor="a", line="a: 1: left", state_hash="s1")
            raise RuntimeError("crash")
    assert store.moves("g") == [] and store.game("g")["moves"] == 0


def test_a_move_appended_after_its_game_was_read_reads_no_chain_and_the_chain_holds(store, tmp_path):
    """append_move takes the chain's head from the game's read under its lock (Store.game) or its
    own last append in the same transaction: no read of its own (a statement and a wait an
    answer on PostgreSQL). What a savepoint undid, or another process appended between two
    transactions, is read again: the chain holds, every seq once."""
    add_game(store)
    move = dict(kind="move", player="a", actor="a", line="a: 1: left")
    with store.transaction():
        store.append_move("g", state_hash="s1", **move)  # the game not read: its chain is
    seen: list[str] = []
    real = store._all
    store._all = lambda sql, params=(): seen.append(sql) or real(sql, params)
    with store.transaction():
        game = store.game("g")
        assert game["moves"] == 1 and "chain_head" not in game
        store.append_move("g", state_hash="s2", **move)
        row = store.append_move("g", state_hash="s3", count=False, **move)
        store.update_game("g", moves=row["seq"])
        with pytest.raises(RuntimeError):
            with store.transaction(savepoint=True):
                store.append_move("g", state_hash="undone", **move)
                raise RuntimeError("undone")
        store.append_move("g", state_hash="s4", **move)  # after the undone one: read again
    assert [s for s in seen if s.startswith("SELECT moves, seed_commitment")] == [seen[-1]]
    del store._all
    other = open_store(store.target, clock=Clock())  # another process, between two transactions
    try:
        with store.transaction():
            store.game("g")
        with other.transaction():
            other.game("g")
            other.append_move("g", state_hash="s5", **move)
    finally:
        other.close()
    with store.transaction():
        store.game("g")
        store.append_move("g", state_hash="s6", **move)
    assert store.verify_chain("g") == []
    assert [m["state_hash"] for m in store.moves("g")] == ["s1", "s2", "s3", "s4", "s5", "s6"]
    assert store.game("g")["moves"] == 6


def test_a_savepoint_undoes_its_own_work_only(store):
    add_game(store)
    with store.transaction():
        store.append_move("g", kind="move", player="a", actor="a", line="a: 1: left", state_hash="s1")
        with pytest.raises(RuntimeError):
            with store.transaction(savepoint=True):
                store.append_move("g", kind="move", player="a", actor="a", line="a: 2: left", state_hash="s2")
                raise RuntimeError("crash")
    assert [m["seq"] for m in store.moves("g")] == [1]


def test_a_sqlite_transaction_is_immediate(sqlite_store):
    store = sqlite_store
    other = sqlite3.connect(store.db.conn.execute("PRAGMA database_list").fetchone()[2], timeout=0)
    with store.transaction():  # BEGIN IMMEDIATE holds the write lock from the start
        with pytest.raises(sqlite3.OperationalError):
            other.execute("BEGIN IMMEDIATE")
    other.close()


def test_hash_chain_holds_and_starts_at_the_seed_commitment(store):
    add_game(store)
    with store.transaction():
        rows = [store.append_move("g", kind="move", player="a", actor="a", line=f"a: {i}: left", state_hash=f"s{i}")
                for i in range(1, 4)]
    assert [r["seq"] for r in rows] == [1, 2, 3]
    assert rows[0]["prev_hash"] == "c" * 64
    assert rows[1]["prev_hash"] == rows[0]["hash"]
    assert store.verify_chain("g") == []
    assert store.game("g")["moves"] == 3


def _tamper(store, sql, params=()):
    on = " ON moves" if store.dialect == "postgresql" else ""  # as someone with the database's password could
    store._run(f"DROP TRIGGER moves_no_update{on}")
    store._run(f"DROP TRIGGER moves_no_delete{on}")
    store._run(sql, params)


def test_moves_are_append_only(store):
    add_game(store)
    store.append_move("g", kind="move", player="a", actor="a", line="a: 1: left", state_hash="s")
    with pytest.raises(store.errors, match="append-only"):
        store._run("UPDATE moves SET line = 'a: 1: right'")
    with pytest.raises(store.errors, match="append-only"):
        store._run("DELETE FROM moves")
    assert store.verify_chain("g") == []


@pytest.mark.parametrize("sql, expected", [
    ("UPDATE moves SET line = 'a: 2: right' WHERE seq = 2", "move 2: its record was changed"),
    ("UPDATE moves SET state_hash = 'forged' WHERE seq = 1", "move 1: its record was changed"),
    ("DELETE FROM moves WHERE seq = 2", "move 2 is missing"),
    ("DELETE FROM moves WHERE seq = 3", "the game counts 3 moves, the log holds 2"),
])
def test_tampering_is_detected(store, sql, expected):
    add_game(store)
    for i in range(1, 4):
        store.append_move("g", kind="move", player="a", actor="a", line=f"a: {i}: left", state_hash=f"s{i}")
    _tamper(store, sql)
    problems = store.verify_chain("g")
    assert any(expected in p for p in problems), problems


def test_rewriting_a_move_and_its_hash_breaks_the_next_link(store):
    add_game(store)
    for i in range(1, 4):
        store.append_move("g", kind="move", player="a", actor="a", line=f"a: {i}: left", state_hash=f"s{i}")
    from pbem.store import _CHAINED, chain_hash
    row = store.moves("g")[0]
    row["line"] = "a: 1: right"
    forged = chain_hash(row["prev_hash"], {k: row[k] for k in _CHAINED}, row["state_hash"])
    _tamper(store, "UPDATE moves SET line = ?, hash = ? WHERE seq = 1", (row["line"], forged))
    assert store.verify_chain("g") == ["move 2: does not follow move 1"]


def test_inbox_dedupe_by_message_id_and_content(store):
    with store.transaction():
        first = store.add_inbox(b"raw", source="file", kind="mail", content_hash="h1", message_id="<a@x>")
    assert store.find_inbox("<a@x>", "other")["id"] == first
    assert store.find_inbox(None, "h1")["id"] == first
    assert store.find_inbox("<b@x>", "h2") is None
    # stored meanwhile by another process: the earlier one is it, no second row
    assert store.add_inbox(b"raw2", source="file", kind="mail", content_hash="h2", message_id="<a@x>") == first
    assert store.add_inbox(b"raw", source="file", kind="mail", content_hash="h1") == first
    assert len(store.inbox_rows()) == 1
    store.add_inbox(b"t1", source="submit", kind="turn", content_hash="h3")  # no Message-ID: several may lack one
    store.add_inbox(b"t2", source="submit", kind="turn", content_hash="h4")


def test_a_stored_message_is_handed_back_as_it_would_be_read(store):
    """add_inbox(stored=) fills in the new row so that processing need not read it back."""
    stored: dict = {}
    with store.transaction():
        id = store.add_inbox(b"raw", source="file", kind="mail", content_hash="h1", message_id="<a@x>", stored=stored)
    assert stored == store.inbox(id)
    again: dict = {}
    assert store.add_inbox(b"raw", source="file", kind="mail", content_hash="h1", stored=again) == id
    assert again == {}  # stored before: the caller reads it as it is now


def test_reported_is_set_for_one_seat_or_several_at_once(store):
    add_game(store)
    with store.transaction():
        for seat, name in enumerate(("alice", "bob", "carol")):
            store.add_player("g", name, seat, f"{name}@x", "t" * 64, "s")
        store.set_reported("g", ["alice", "bob"], 7)
        store.set_reported("g", "carol", 3)
        store.set_reported("g", [], 9)  # nobody: nothing written
    assert {p["name"]: p["reported_seq"] for p in store.players("g")} == {"alice": 7, "bob": 7, "carol": 3}


def test_inbox_attempts_end_in_failed(store):
    i = store.add_inbox(b"raw", source="file", kind="mail", content_hash="h1")
    for _ in range(2):
        store.inbox_attempt_failed(i, "boom", max_attempts=3)
    assert store.inbox(i)["status"] == "received"
    store.inbox_attempt_failed(i, "boom", max_attempts=3)
    assert store.inbox(i)["status"] == "failed" and store.inbox(i)["attempts"] == 3


def test_outbox_same_message_id_is_one_mail(store):
    args = dict(kind="report", to_addr="a@x", subject="s", headers={"Subject": "s"}, text="t")
    assert store.add_outbox(message_id="<1@x>", **args)
    assert not store.add_outbox(message_id="<1@x>", **args)
    assert store.add_outbox(message_id="<1@x>", counted=False, **args) is None  # not waited for: dropped all the same
    assert len(store.outbox_rows()) == 1
    row = next(store.outbox_due())
    store.outbox_attempt_failed(row["id"], "down", retry_at=None)
    assert store.outbox_rows("failed") and store.outbox_retry_failed() == 1
    store.outbox_sent(row["id"])
    assert store.outbox_rows()[0]["status"] == "sent"


def test_a_batch_of_marks_is_one_statement_and_marks_only_the_owners_rows(store):
    """outbox_sent_rows (issue 28): a sender's batch marked sent in one statement, each row with
    its own text and HTML (a NUL made storable, as every text); a row whose claim another sender
    took meanwhile is left to that sender, queued, and is not among the ids it returns."""
    args = dict(kind="report", to_addr="a@x", subject="s", headers={"Subject": "s"}, text="t", context="{}")
    for i in range(4):
        store.add_outbox(message_id=f"<{i}@x>", **args)
    ids = [r["id"] for r in store.claim_outbox_rows("me", 60, 4)]
    store.query("UPDATE outbox SET claimed_by = 'other' WHERE id = ?", (ids[1],))
    marks = [(ids[0], "one", "<p>one</p>"), (ids[1], "two", None), (ids[2], "thr\x00ee", None)]
    assert store.outbox_sent_rows(marks, "me") == {ids[0], ids[2]}
    rows = {r["id"]: r for r in store.query("SELECT * FROM outbox")}
    assert [rows[i]["status"] for i in ids] == ["sent", "queued", "sent", "queued"]
    assert (rows[ids[0]]["text"], rows[ids[0]]["html"], rows[ids[0]]["context"]) == ("one", "<p>one</p>", None)
    assert rows[ids[2]]["text"] == "thr\u2400ee" and rows[ids[2]]["html"] is None
    assert rows[ids[0]]["attempts"] == 1 and rows[ids[0]]["claimed_by"] is None and rows[ids[0]]["sent_at"]
    assert (rows[ids[1]]["text"], rows[ids[1]]["claimed_by"], rows[ids[1]]["attempts"]) == ("t", "other", 0)
    assert rows[ids[3]]["claimed_by"] == "me"  # claimed, not in the batch: untouched
    assert store.outbox_sent_rows([], "me") == set()
    assert store.outbox_sent_rows([(ids[0], "again", None)], "me") == set()  # no longer claimed by anyone


def test_mails_queued_unread_in_a_transaction_are_all_queued_once_and_a_savepoint_takes_its_own(store):
    """Rows queued without their count read (add_outbox counted=False) go, on PostgreSQL, as one
    INSERT for those that follow each other (PostgresStore._write_row): every one is stored, a
    Message-ID twice is one mail, a read in between sees those before it, and a savepoint undone
    takes its own rows and only those."""
    args = dict(kind="report", to_addr="a@x", subject="s", headers={"Subject": "s"}, text="t", counted=False)
    ids = lambda: [r["message_id"] for r in store.query("SELECT message_id FROM outbox ORDER BY id")]
    with store.transaction():
        store.add_outbox(message_id="<1@x>", **args)
        store.add_outbox(message_id="<2@x>", **args)
        store.add_outbox(message_id="<1@x>", **args)  # the same mail
        assert ids() == ["<1@x>", "<2@x>"]  # a read sends them first
        store.add_outbox(message_id="<3@x>", **args)
        with pytest.raises(RuntimeError):
            with store.transaction(savepoint=True):
                store.add_outbox(message_id="<4@x>", **args)
                store.add_outbox(message_id="<5@x>", **args)
                raise RuntimeError("undone")
        with store.transaction(savepoint=True):
            store.add_outbox(message_id="<6@x>", **args)
        store.add_outbox(message_id="<7\x00@x>", **args)
        assert store.add_outbox(message_id="<8@x>", **{**args, "counted": True})
    assert ids() == ["<1@x>", "<2@x>", "<3@x>", "<6@x>", "<7\u2400@x>", "<8@x>"]
    with pytest.raises(RuntimeError):
        with store.transaction():
            store.add_outbox(message_id="<9@x>", **args)
            raise RuntimeError("rolled back")
    with store.transaction():
        store.add_outbox(message_id="<10@x>", **args)
    assert ids()[-1] == "<10@x>" and len(ids()) == 7


def test_read_once_reads_the_standing_orders_with_the_address_settings(store):
    """Within read_once the address settings' one read brings the game's standing orders with it
    (a move's reports read both: on PostgreSQL one wait for the two, Store._all_at_once); an order
    filed afterwards within it is read again, as any write drops what was read of its table."""
    add_game(store)
    with store.transaction():
        store.add_player("g", "a", 0, "a@x", "h", "s")
        store.add_player("g", "b", 1, "b@x", "h2", "s")
    store.set_address_settings("a@x", language="de")
    store.file_standing_order("g", "a", "always rest")
    seen: list[str] = []
    real = store._all
    store._all = lambda sql, params=(): seen.append(sql) or real(sql, params)
    with store.transaction(), store.read_once("g", ["a@x", "b@x"]):
        assert store.address_settings("A@x")["language"] == "de" and store.address_settings("b@x") is None
        read = len(seen)
        assert [o["text"] for o in store.standing_orders("g", "a")] == ["always rest"]
        assert store.standing_orders("g", "b") == [] and len(seen) == read  # read with the settings
        store.file_standing_order("g", "b", "never flee")
        assert [o["text"] for o in store.standing_orders("g", "b")] == ["never flee"]
    del store._all


def test_snapshot_before(store):
    add_game(store)
    store.save_snapshot("g", 0, b"s0")
    store.save_snapshot("g", 100, b"s100")
    assert store.snapshot_before("g", 99)["state"] == b"s0"
    assert store.snapshot_before("g", 150)["seq"] == 100


def test_no_migration_statement_is_only_a_comment():
    """A comment after a migration's last ';' is not sent as a statement of its own."""
    for version, *_ in migrations.MIGRATIONS:
        for dialect in migrations.DIALECTS:
            for stmt in migrations.statements(version, dialect):
                assert any(not ln.strip().startswith("--") for ln in stmt.splitlines() if ln.strip()), (version, stmt)


# -- PostgreSQL: what several processes at once must not break -------------------------------

@pytest.fixture
def two_pg(pg_url):
    """Two stores on one PostgreSQL database: two processes."""
    clock = Clock()
    a, b = open_store(pg_url, clock=clock), open_store(pg_url, clock=clock)
    yield a, b
    a.close()
    b.close()


def _in_thread(fn):
    import threading
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("value", fn()))
    t.start()
    return t, out


def test_concurrent_inserts_of_one_message_store_it_once(two_pg):
    import time
    a, b = two_pg
    with a.transaction():
        first = a.add_inbox(b"raw", source="stdin", kind="mail", content_hash="h1", message_id="<a@x>")
        t, out = _in_thread(lambda: b.add_inbox(b"raw", source="stdin", kind="mail", content_hash="h1",
                                                message_id="<a@x>"))
        time.sleep(0.3)
        assert t.is_alive()  # the second insert waits for the first transaction
    t.join(5)
    assert out["value"] == first and len(b.inbox_rows()) == 1


def test_a_game_is_locked_for_the_transaction_that_reads_it(two_pg):
    import time
    a, b = two_pg
    add_game(a)
    add_game(a, "other")
    with a.transaction():
        a.game("g")
        t, out = _in_thread(lambda: _read_in_transaction(b, "g"))
        other, _ = _in_thread(lambda: _read_in_transaction(b, "other"))
        other.join(5)
        assert not other.is_alive()  # another game is not held up
        time.sleep(0.3)
        assert t.is_alive()
        a.append_move("g", kind="move", player="a", actor="a", line="a: 1: left", state_hash="s1")
    t.join(5)
    assert out["value"] == 1  # it read the game as the first transaction left it


def _read_in_transaction(store, game):
    with store.transaction():
        return store.game(game)["moves"]


@pytest.mark.timeout(30)  # a claim that waited for the lock would wait here for ever
def test_a_claimed_mail_is_passed_over_not_waited_for(two_pg):
    a, b = two_pg
    for i in (1, 2):
        a.add_outbox(message_id=f"<{i}@x>", kind="report", to_addr="a@x", subject="s", headers={}, text="t")
    with a.transaction():
        mine = a._all(a.CLAIM_SQL.format(skip="", lock=a.SKIP_LOCKED), ("a", "2099-01-01T00:00:00Z",
                                                                         a.now(), a.now(), 1))[0]
        theirs = b.claim_outbox("b", 60)  # the first row is locked: b takes the next at once
    assert (mine["id"], theirs["id"]) == (1, 2)


def test_work_queued_elsewhere_wakes_a_listening_store(two_pg):
    import threading
    a, b = two_pg
    woke = threading.Event()
    handle = a.watch(woke.set)
    try:
        b.add_outbox(message_id="<n@x>", kind="report", to_addr="a@x", subject="s", headers={}, text="t")
        assert woke.wait(5)
    finally:
        a.stop_watching(handle)


def test_a_stored_message_is_locked_for_the_transaction_that_processes_it(two_pg):
    """Two daemons retrying the messages left `received`: the second waits, then finds it done."""
    import time
    a, b = two_pg
    i = a.add_inbox(b"raw", source="stdin", kind="mail", content_hash="h1")

    def status_seen_by_b():
        with b.transaction():
            return b.inbox(i)["status"]
    with a.transaction():
        assert a.inbox(i)["status"] == "received"
        t, out = _in_thread(status_seen_by_b)
        time.sleep(0.3)
        assert t.is_alive()
        a.finish_inbox(i, "processed", "applied")
    t.join(5)
    assert out["value"] == "processed"


def test_store_copy_names_every_table_of_the_schema(store):
    """`pbem store copy` copies the tables it lists: a table a migration adds and the list
    misses would be left behind in silence (the notices were, issue 26)."""
    from pbem.store.copy import TABLES
    if store.dialect == "sqlite":
        names = {r["name"] for r in store.query("SELECT name FROM sqlite_master WHERE type = 'table'")}
    else:
        names = {r["table_name"] for r in store.query("SELECT table_name FROM information_schema.tables "
                                                      "WHERE table_schema = current_schema()")}
    assert names - {"schema_migrations", "service_meta", "sqlite_sequence"} == {t for t, _ in TABLES}


def test_the_queued_contexts_checked_are_the_newest_few_of_each_kind(store):
    """`pbem templates check` renders the newest `per_kind` queued mails of each kind: read as
    those, not as the whole queue (issue 28)."""
    with store.transaction():
        for i in range(7):
            for kind in ("report", "receipt"):
                store.add_outbox(message_id=f"<{kind}{i}@x>", kind=kind, to_addr="a@x", subject="s", headers={},
                                 text="", context="{}" if i != 6 else None)  # the newest one rendered already
    rows = store.outbox_queued_contexts(3)
    assert [r["message_id"] for r in rows] == [f"<{k}{i}@x>" for i in (5, 4, 3) for k in ("receipt", "report")]
    assert set(rows[0]) == set(store.outbox_mail(rows[0]["id"]))  # the rows as they are, nothing added


def test_a_transaction_notifies_each_kind_of_work_once(two_pg):
    """Three mails queued in one transaction: one pg_notify (PostgreSQL delivers one anyway), not
    three round trips, sent with the commit; a savepoint undone takes its kind of work with it."""
    import threading
    a, b = two_pg
    notified = []
    write = b._write
    b._write = lambda sql, params=(): (notified.append(params) if "pg_notify" in sql else None) or write(sql, params)
    woke = threading.Event()
    handle = a.watch(woke.set)
    try:
        with b.transaction():
            for i in range(3):
                b.add_outbox(message_id=f"<n{i}@x>", kind="report", to_addr="a@x", subject="s", headers={}, text="t")
        assert notified == [("pbem", f"outbox {b.origin}")] and woke.wait(5)
        woke.clear()
        with b.transaction():
            with pytest.raises(RuntimeError), b.transaction(savepoint=True):
                b.add_outbox(message_id="<undone@x>", kind="report", to_addr="a@x", subject="s", headers={}, text="t")
                raise RuntimeError("undone")
            b.add_outbox(message_id="<kept@x>", kind="report", to_addr="a@x", subject="s", headers={}, text="t")
        # one NOTIFY at the commit, for the kept mail: the undone savepoint's was never sent
        assert len(notified) == 2 and woke.wait(5)
    finally:
        a.stop_watching(handle)


def test_postgresql_rows_are_read_without_column_descriptions(two_pg, monkeypatch):
    """A statement's rows by its result's status: `cursor.description` made a Column object for
    each column of each statement (a tenth of the daemon's CPU an answer), and dict_row needs none."""
    import psycopg
    a, _ = two_pg
    monkeypatch.setattr(psycopg.Cursor, "description", property(lambda cur: pytest.fail("description read")))
    assert a.add_outbox(message_id="<d@x>", kind="report", to_addr="a@x", subject="s", headers={}, text="t")
    assert [r["message_id"] for r in a.outbox_rows()] == ["<d@x>"]  # rows, as dicts
    assert a._all("UPDATE outbox SET attempts = 1 WHERE message_id = ?", ("<d@x>",)) == []  # no rows: none
    assert a._all("UPDATE outbox SET attempts = 2 RETURNING attempts") == [{"attempts": 2}]
    assert a._all("SELECT id FROM outbox WHERE id < 0") == []


def test_a_listening_store_is_not_woken_by_its_own_work(two_pg):
    """A daemon's own cycle takes what it queued itself: its own NOTIFY does not wake it for a
    second, empty cycle; another's still does."""
    import threading
    a, b = two_pg
    woke = threading.Event()
    handle = a.watch(woke.set)
    try:
        a.add_outbox(message_id="<own@x>", kind="report", to_addr="a@x", subject="s", headers={}, text="t")
        assert not woke.wait(1.5)
        b.add_outbox(message_id="<theirs@x>", kind="report", to_addr="a@x", subject="s", headers={}, text="t")
        assert woke.wait(5)
    finally:
        a.stop_watching(handle)


def _statements(store) -> list[str]:
    ran: list[str] = []
    one, write = store._one, store._write
    store._one = lambda sql, params=(): ran.append(sql) or one(sql, params)
    store._write = lambda sql, params=(): ran.append(sql) or write(sql, params)
    return ran


def test_a_limit_counts_what_fits_in_one_statement_without_a_delete(store):
    """limits.take (issue 28): the count under the limit and the row it adds are one statement,
    and no DELETE an answer (there was one on SQLite, an INSERT with a SUM then a DELETE; on
    PostgreSQL a WITH that deleted). A partial fit counts what fits; none fitting adds nothing."""
    since = store.now()
    ran = _statements(store)
    with store.transaction():
        assert store.take_uses("m", "g/a", 1, 3, since) == 1
        assert len(ran) == 1 and ran[0].startswith("INSERT INTO uses") and "DELETE" not in ran[0]
        assert store.take_uses("m", "g/a", 5, 3, since) == 2  # two of five fit
        ran.clear()
        assert store.take_uses("m", "g/a", 1, 3, since) == 0 and len(ran) == 1  # none fits: nothing added
        assert store.take_uses("m", "g/b", 2, 3, since) == 2  # another's count is its own
        assert store.take_uses("x", "g/a", 2, 3, since) == 2  # and another limit's
    assert store.uses("m", "g/a", since) == 3 and store._the_one("SELECT COUNT(*) AS n FROM uses")["n"] == 4


def test_a_limit_counts_only_its_window_and_forgets_the_old_now_and_then(store):
    """The window slides: what was counted before `since` no longer counts (the count is the
    latest running total less the one before the window), and those rows go when a key's total
    passes a multiple of FORGET_EVERY, not at every take."""
    store.FORGET_EVERY = 8
    times = []
    with store.transaction():
        for _ in range(6):  # the clock moves a second a reading
            times.append(store.now())
            assert store.take_uses("m", "g/a", 1, 4, "2000-01-01T00:00:00Z") in (0, 1)
    assert store.uses("m", "g/a", "2000-01-01T00:00:00Z") == 4  # four fitted, then none
    with store.transaction():
        assert store.take_uses("m", "g/a", 3, 4, times[2]) == 2  # the first two no longer count
        assert store.uses("m", "g/a", times[2]) == 4
    assert store._the_one("SELECT COUNT(*) AS n FROM uses")["n"] == 5  # nothing forgotten yet
    with store.transaction():
        assert store.take_uses("m", "g/a", 3, 9, times[2]) == 3  # total 6 -> 9: past 8, the old rows go
    assert store._the_one("SELECT COUNT(*) AS n FROM uses WHERE at < ?", (times[2],))["n"] == 0
    with store.transaction():
        assert store.take_uses("m", "g/a", 9, 9, times[2]) == 2  # the window still holds its seven
    with store.transaction():
        store.add_uses("m:over", "g/a", 1, forget_before=times[0])
        store.add_uses("m:over", "g/a", 2, forget_before=times[0])
    assert store.uses("m:over", "g/a", times[0]) == 3
    if store.dialect == "sqlite":  # a backup verifies with it (3.40 misread a column declared after the key)
        assert store._all("PRAGMA integrity_check") == [{"integrity_check": "ok"}]


def test_a_clock_set_back_keeps_counting(store):
    """A use is never recorded before the latest of its key: the totals keep rising in the key's
    order, so the window's count stays the sum of what it holds."""
    store.clock.t = store.clock.t + timedelta(hours=2)
    with store.transaction():
        assert store.take_uses("m", "g/a", 2, 5, "2000-01-01T00:00:00Z") == 2
    store.clock.t = store.clock.t - timedelta(hours=3)
    with store.transaction():
        assert store.take_uses("m", "g/a", 2, 5, "2000-01-01T00:00:00Z") == 2
        assert store.take_uses("m", "g/a", 2, 5, "2000-01-01T00:00:00Z") == 1
    assert store.uses("m", "g/a", "2000-01-01T00:00:00Z") == 5


def test_uses_counted_before_the_running_totals_count_the_same_after(sqlite_store):
    """Migration 22 gives the rows of the old table their running totals: a limit counts what it
    counted before (two uses at one time are one row)."""
    s = sqlite_store
    s.conn.executescript(
        "DROP TABLE uses; CREATE TABLE uses (what TEXT NOT NULL, who TEXT NOT NULL, at TEXT NOT NULL, "
        "n INTEGER NOT NULL); CREATE INDEX uses_by ON uses(what, who, at); CREATE INDEX outbox_to ON "
        "outbox(to_addr, kind, created_at); DROP INDEX outbox_digests; DROP INDEX outbox_strangers; "
        "DROP INDEX outbox_calendars; DELETE FROM schema_migrations WHERE version = 22;")
    for at, n in (("2026-11-30T10:00:00Z", 2), ("2026-11-30T11:00:00Z", 1), ("2026-11-30T11:00:00Z", 1),
                  ("2026-11-30T11:30:00Z", 3)):
        s.conn.execute("INSERT INTO uses VALUES ('m', 'g/a', ?, ?)", (at, n))
    s.conn.execute("INSERT INTO uses VALUES ('m', 'g/b', '2026-11-30T11:00:00Z', 1)")
    assert s.migrate() == [22]
    assert [(r["at"], r["n"], r["total"]) for r in s._all("SELECT * FROM uses WHERE who = 'g/a' ORDER BY at")] == [
        ("2026-11-30T10:00:00Z", 2, 2), ("2026-11-30T11:00:00Z", 2, 4), ("2026-11-30T11:30:00Z", 3, 7)]
    with s.transaction():
        assert s.take_uses("m", "g/a", 9, 7, "2026-11-30T11:00:00Z") == 2  # 5 since 11:00
        assert s.take_uses("m", "g/b", 9, 7, "2026-11-30T11:00:00Z") == 6


def test_the_chain_hash_is_that_of_its_record_written_by_json_dumps():
    """chain_hash writes a record with msgspec (verify hashes every move again: issue 28) and
    must give the hash the json.dumps way gave, for every code point a line or a Message-ID may
    hold, integers of any size, null and booleans; what else a record might hold goes the old way."""
    import hashlib
    import json

    from pbem.store import chain_hash

    def before(prev: str, record: dict, state: str) -> str:
        body = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(f"{prev}\n{body}\n{state}".encode()).hexdigest()
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]  # a lone surrogate is never stored
    records = [{"line": "".join(chars[i:i + 2048]), "seq": i, "prompt": None, "at": "2026-12-04T03:00:00Z",
                "inbox_id": -i, "big": 10**30, "yes": True} for i in range(0, len(chars), 2048)]
    records += [{"seq": 1, "weight": 1e16, "nested": {"b": [1, "é\n"]}}]  # not plain: json.dumps itself
    for record in records:
        assert chain_hash("p" * 64, record, "s" * 64) == before("p" * 64, record, "s" * 64)


def test_a_daemon_wakes_when_an_imap_claim_not_yet_moved_runs_out(store):
    """A daemon that died holding an IMAP message leaves its claim to run out: the others wake
    then (Store.next_wakeup), not at their next look a minute later (daemon.IDLE_MAX). A
    message moved away wakes no one."""
    assert store.next_wakeup() is None
    assert store.claim_imap("box", 1, 7, "a daemon that dies", 30) == 0
    first = store.next_wakeup()
    assert first is not None and first == store._the_one("SELECT claim_until FROM imap_claims")["claim_until"]
    store.imap_moved("box", 1, [7], 30)
    assert store.next_wakeup() is None


def _outbox_row(store, mid, **kw):
    store.add_outbox(message_id=mid, kind="report", to_addr=kw.pop("to_addr", "a@x"), subject="s", headers={},
                     text="t", counted=False, **kw)


def test_sqlite_queues_a_moves_mails_in_one_insert(sqlite_store):
    """The mails an answer queues (3-4, each a write nobody reads) go as one INSERT, at the next
    statement: one statement, not one a mail (issue 28, as PostgreSQL does). What is read after
    sees them; a Message-ID queued twice is one row, as before."""
    s = sqlite_store
    ran: list[str] = []
    s.conn.set_trace_callback(ran.append)
    with s.transaction():
        for mid in ("<1@x>", "<2@x>", "<3@x>", "<2@x>"):
            _outbox_row(s, mid)
        assert not [r for r in ran if r.startswith("INSERT INTO outbox")]  # kept until the next statement
        queued = [r["message_id"] for r in s._all("SELECT message_id FROM outbox ORDER BY id")]
        assert queued == ["<1@x>", "<2@x>", "<3@x>"]
    s.conn.set_trace_callback(None)
    assert len([r for r in ran if r.startswith("INSERT INTO outbox")]) == 1
    _outbox_row(s, "<4@x>")  # outside a transaction: at once
    assert s._the_one("SELECT COUNT(*) AS n FROM outbox")["n"] == 4


def test_sqlite_kept_rows_are_undone_with_their_savepoint_and_fail_their_transaction(sqlite_store):
    """A savepoint undone drops the rows kept within it, not those kept before it; a kept row the
    table refuses fails the statement that sends it, inside the transaction, which writes nothing."""
    s = sqlite_store
    with s.transaction():
        _outbox_row(s, "<before@x>")
        with pytest.raises(RuntimeError):
            with s.transaction(savepoint=True):
                _outbox_row(s, "<within@x>")
                raise RuntimeError("the processing failed")
        _outbox_row(s, "<after@x>")
    assert [r["message_id"] for r in s._all("SELECT message_id FROM outbox ORDER BY id")] == ["<before@x>", "<after@x>"]
    with pytest.raises(sqlite3.IntegrityError):
        with s.transaction():
            _outbox_row(s, "<5@x>")
            _outbox_row(s, "<6@x>", to_addr=None)  # NOT NULL
    assert s._the_one("SELECT COUNT(*) AS n FROM outbox")["n"] == 2
    with pytest.raises(sqlite3.IntegrityError):
        with s.transaction():
            with s.transaction(savepoint=True):
                _outbox_row(s, "<7@x>", to_addr=None)  # refused at the savepoint's end: undone with it
    assert s._the_one("SELECT COUNT(*) AS n FROM outbox")["n"] == 2


def test_a_time_is_written_as_before_and_made_once_a_second():
    """iso (about nine an answer, 2.5 us each) keeps the last second it wrote: the same text as
    the formula it replaced for every zone and microsecond, made once for one second."""
    import random
    from datetime import UTC, datetime, timezone

    from pbem.store.common import iso

    def before(t):
        return t.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")

    rng = random.Random(28)
    zones = [UTC, timezone(timedelta(0)), timezone(timedelta(hours=2)), timezone(-timedelta(hours=5, minutes=30)), None]
    start = datetime(2026, 12, 4, 23, 59, 58, tzinfo=UTC)
    for _ in range(2000):
        t = start + timedelta(microseconds=rng.randrange(5_000_000))
        zone = rng.choice(zones)
        t = t.replace(tzinfo=None) if zone is None else t.astimezone(zone)
        assert iso(t) == before(t), t
    t = datetime(2026, 12, 4, 12, 0, 0, 1, tzinfo=UTC)
    assert iso(t) is iso(t.replace(microsecond=999_999))  # one second, one text


def test_sqlite_a_row_kept_within_a_snapshot_goes_with_it(sqlite_store):
    """A snapshot is rolled back: a mail queued within it (a misuse) never reaches a later
    transaction's commit, as it never did when it was written at once."""
    s = sqlite_store
    with s.snapshot():
        _outbox_row(s, "<in-snapshot@x>")
    with s.transaction():
        _outbox_row(s, "<later@x>")
    assert [r["message_id"] for r in s._all("SELECT message_id FROM outbox")] == ["<later@x>"]

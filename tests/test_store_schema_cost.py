"""What the schema makes every write pay (issue 28): no index that another one already serves,
and on PostgreSQL the large values (rendered mail, states, frames, raw mail) compressed with
lz4 rather than pglz, which cost about a third of the server's CPU an answered mail."""
import psycopg
import pytest

from pbem.store import open_store

LARGE = [("outbox", "text"), ("outbox", "html"), ("outbox", "context"), ("outbox", "headers"),
         ("games", "state"), ("move_events", "events"), ("report_frames", "frame"), ("inbox", "raw")]


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    target = tmp_path / "pbem.db" if request.param == "sqlite" else request.getfixturevalue("pg_url")
    s = open_store(target)
    yield s
    s.close()


def _indexes(store) -> dict[str, str]:
    if store.dialect == "sqlite":
        rows = store._all("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'outbox' "
                          "AND sql IS NOT NULL")
        return {r["name"]: r["sql"] for r in rows}
    rows = store._all("SELECT indexname AS name, indexdef AS sql FROM pg_indexes WHERE tablename = 'outbox'")
    return {r["name"]: r["sql"] for r in rows}


def test_the_outbox_keeps_no_index_another_serves(store):
    names = _indexes(store)
    assert "outbox_queue" in names
    assert "outbox_status" not in names  # (status, next_attempt_at): a prefix of outbox_queue's


def test_postgresql_compresses_large_values_with_lz4(pg_url):
    s = open_store(pg_url)
    try:
        got = {(r["t"], r["c"]): r["m"] for r in s._all(
            "SELECT attrelid::regclass::text AS t, attname AS c, attcompression::text AS m FROM pg_attribute "
            "WHERE attrelid::regclass::text IN ('outbox', 'games', 'move_events', 'report_frames', 'inbox') "
            "AND attnum > 0")}
        assert {col: got[col] for col in LARGE} == {col: "l" for col in LARGE}
        with psycopg.connect(pg_url, autocommit=True) as conn:  # and it is used: a value stored compressed
            big = "a report line, again and again\n" * 400
            conn.execute("INSERT INTO outbox (message_id, kind, to_addr, subject, headers, text, status, created_at, "
                         "next_attempt_at) VALUES ('m1', 'report', 'a@example.org', 's', '{}', %s, 'queued', 't', 't')",
                         (big,))
            method = conn.execute("SELECT pg_column_compression(text) FROM outbox WHERE message_id = 'm1'").fetchone()
            assert method == ("lz4",)
    finally:
        s.close()


def test_a_mail_queued_enters_only_the_indexes_its_hot_reads_need(store):
    """Every outbox row entered outbox_to (to_addr, kind, created_at): a page of it written per
    mail queued, 2.25 of an answer's 22 WAL frames, for reads of digests, strangers' replies and
    calendars only. Those are partial indexes now (migration 22): a report or a receipt enters
    the queue's index and its Message-ID's, no other."""
    whole = {name for name, sql in _indexes(store).items() if " WHERE " not in sql.upper()}
    if store.dialect == "postgresql":
        whole -= {"outbox_pkey", "outbox_message_id_key"}
    assert whole == {"outbox_queue"}
    assert "uses_by" not in {r["name"] for r in store._all(
        "SELECT name FROM sqlite_master WHERE type = 'index'" if store.dialect == "sqlite" else
        "SELECT indexname AS name FROM pg_indexes WHERE tablename = 'uses'")}  # its key is its only b-tree


def test_the_reads_of_mail_by_address_are_served_by_their_indexes(tmp_path):
    """What outbox_to served, each by its partial index; count_mail_to (strangers' replies, a
    lower-cased address) read the whole index before: a scan of all mail ever queued."""
    s = open_store(tmp_path / "pbem.db")
    plans: list[str] = []
    run = s._all
    s._all = lambda sql, params=(): plans.append(" ".join(
        r["detail"] for r in run("EXPLAIN QUERY PLAN " + sql, params))) or run(sql, params)
    try:
        s.count_mail_to("eve@example.net", ("stranger", "unprocessed"), "2026-01-01T00:00:00Z")
        s.last_mail_to("mod@example.org", "digest")
        s.calendars_to("a@example.org", "2026-01-01T00:00:00Z")
        assert ["outbox_strangers" in plans[0], "outbox_digests" in plans[1], "outbox_calendars" in plans[2]] == \
            [True] * 3, plans
        assert not any(p.startswith("SCAN") for p in plans)
        with pytest.raises(ValueError):
            s.count_mail_to("eve@example.net", ("x'); DROP TABLE outbox; --",), "2026-01-01T00:00:00Z")
    finally:
        s._all = run
        s.close()

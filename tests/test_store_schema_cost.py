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

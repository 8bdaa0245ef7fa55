"""The service's storage behind one interface: SQLite (the embedded default, one file in the
home) or PostgreSQL (several daemons on several machines over one database). `open_store(target)`
opens the one `target` names: a file path, or a `postgresql://` URL. Callers see plain dicts
and never write SQL; the schema is pbem/store/migrations.py, in both dialects.
"""
from pbem.store.base import Store
from pbem.store.common import (
    _CHAINED,
    EPOCH,
    Clock,
    StoreUnavailable,
    chain_hash,
    is_url,
    iso,
    storable,
    storable_data,
    utcnow,
)

__all__ = ["_CHAINED", "EPOCH", "Clock", "Store", "StoreUnavailable", "chain_hash", "is_url", "iso", "open_store",
           "schema_of", "storable", "storable_data", "utcnow"]


def open_store(target, **kwargs) -> Store:
    """SQLite for a path, PostgreSQL for a `postgresql://` URL (psycopg is imported only then).
    `kwargs`: the dialect's own (`clock`, `timeout`)."""
    if is_url(target):
        from pbem.store.postgres import PostgresStore
        return PostgresStore(target, **kwargs)
    from pbem.store.sqlite import SqliteStore
    return SqliteStore(target, **kwargs)


def schema_of(target) -> int:
    """The newest migration the store at `target` has, read without migrating it (0: none; a
    missing SQLite file is not made)."""
    query = "SELECT MAX(version) FROM schema_migrations"
    if is_url(target):
        import psycopg
        try:
            with psycopg.connect(target) as pg:
                row = pg.execute(query).fetchone()
        except psycopg.errors.UndefinedTable:
            return 0
        except psycopg.Error as e:
            raise StoreUnavailable(f"PostgreSQL: {e}") from e
        return (row[0] if row else None) or 0
    import sqlite3
    from pathlib import Path
    if not Path(target).exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{target}?mode=ro", uri=True)
        try:
            row = conn.execute(query).fetchone()
        finally:
            conn.close()
    except sqlite3.OperationalError as e:
        if "no such table" in str(e):
            return 0
        raise StoreUnavailable(str(e)) from e
    return (row[0] if row else None) or 0

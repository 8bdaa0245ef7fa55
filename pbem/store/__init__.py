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
           "storable", "storable_data", "utcnow"]


def open_store(target, **kwargs) -> Store:
    """SQLite for a path, PostgreSQL for a `postgresql://` URL (psycopg is imported only then).
    `kwargs`: the dialect's own (`clock`, `timeout`)."""
    if is_url(target):
        from pbem.store.postgres import PostgresStore
        return PostgresStore(target, **kwargs)
    from pbem.store.sqlite import SqliteStore
    return SqliteStore(target, **kwargs)

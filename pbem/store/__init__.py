"""The service's storage behind one interface: SQLite (the embedded default, one file in the
home) or PostgreSQL (several daemons on several machines over one database). `Store(target)`
opens the one `target` names: a file path, or a `postgresql://` URL. Callers see plain dicts
and never write SQL; the schema is pbem/store/migrations.py, in both dialects.
"""
from pbem.store.base import Store
from pbem.store.common import _CHAINED, Clock, StoreUnavailable, chain_hash, is_url, iso, utcnow

__all__ = ["_CHAINED", "Clock", "Store", "StoreUnavailable", "chain_hash", "is_url", "iso", "utcnow"]

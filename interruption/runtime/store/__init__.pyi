# The store package's names, each once (see interruption/__init__.pyi): mypy
# reads their types here, and `__init__.py` hands this list to lazy_loader,
# which imports each store's module when its name is first used.

from ._base import (
    MAX_RECORD_BYTES as MAX_RECORD_BYTES,
    MAX_REJECTED as MAX_REJECTED,
    AuditEvent as AuditEvent,
    AuditKind as AuditKind,
    Listed as Listed,
    Store as Store,
)
from ._memory import MemoryStore as MemoryStore
from ._postgres import PostgresStore as PostgresStore
from ._sqlite import SqliteStore as SqliteStore

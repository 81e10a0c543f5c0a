"""Ledger storage drivers behind :class:`~sksmooth.accounting.BudgetAccountant`:
one protocol, three drivers (memory, SQLite, PostgreSQL), picked by
:func:`open_storage` from the accountant's ``path``/``url``.
"""

from ._memory import MemoryStorage
from ._postgres import PostgresStorage
from ._protocol import (
    Budget,
    CrossProcessLedgerError,
    LedgerIntegrityError,
    LedgerSpent,
    NotPrivateCount,
    LedgerStorage,
    LedgerTotals,
    Spend,
    budget_text,
    releases_text,
    refuse_if_over,
)
from ._sqlite import SQLiteStorage, check_ledger_path

__all__ = [
    "Budget",
    "CrossProcessLedgerError",
    "LedgerIntegrityError",
    "LedgerSpent",
    "NotPrivateCount",
    "LedgerStorage",
    "LedgerTotals",
    "MemoryStorage",
    "PostgresStorage",
    "SQLiteStorage",
    "Spend",
    "budget_text",
    "releases_text",
    "open_storage",
    "refuse_if_over",
]

_POSTGRES_SCHEMES = ("postgresql://", "postgres://")
_SQLITE_SCHEME = "sqlite:///"


def _storage_for_url(url):
    if not isinstance(url, str):
        raise TypeError(
            f"url must be None or a str, got {type(url).__name__}; pass e.g. "
            "url='postgresql://user@host:5432/ledger'."
        )
    if url.startswith(_POSTGRES_SCHEMES):
        return PostgresStorage(url)
    if url.startswith(_SQLITE_SCHEME):
        return SQLiteStorage(check_ledger_path(url[len(_SQLITE_SCHEME):], name="url",
                                              prefix=_SQLITE_SCHEME))
    raise ValueError(
        f"url must start with 'postgresql://' (PostgreSQL server) or 'sqlite:///' "
        f"(SQLite file), got {url.split(':', 1)[0]!r}; for a local file you may "
        "also pass path='ledger.sqlite'."
    )


def open_storage(path=None, url=None):
    """The driver for a ledger given by ``path`` (SQLite file) or ``url``.

    Parameters
    ----------
    path : str or os.PathLike or None
        An SQLite file.
    url : str or None
        ``postgresql://...`` (PostgreSQL server) or ``sqlite:///file``.

    Returns
    -------
    LedgerStorage
        :class:`MemoryStorage` when both are ``None``.
    """
    if path is not None and url is not None:
        raise ValueError(
            "Pass at most one of path= (an SQLite file) and url= (a database "
            "URL), not both."
        )
    if url is not None:
        return _storage_for_url(url)
    if path is not None:
        return SQLiteStorage(check_ledger_path(path))
    return MemoryStorage()

"""SQLite ledger driver: one file shared by the processes of one host.

WAL journal, ``synchronous=FULL``, one ``BEGIN IMMEDIATE`` transaction per
spend; not for network file systems (docs/privacy_ledger.rst).
"""

import os
import sqlite3
import threading
import weakref

from ._protocol import LedgerIntegrityError, refuse_if_over
from ._sql import (
    RECORDS_SQL,
    REQUIRED_COLUMNS,
    LedgerWitness,
    add_missing_columns,
    insert_spend_sql,
    records_from_rows,
    spend_row,
    store_or_read_budget,
    totals_from_row,
    totals_sql,
)

__all__ = ["SQLiteStorage", "check_ledger_path"]

_CREATE_BUDGET = "CREATE TABLE IF NOT EXISTS budget (epsilon REAL, delta REAL)"
_CREATE_SPENDS = (
    "CREATE TABLE IF NOT EXISTS spends (id INTEGER PRIMARY KEY AUTOINCREMENT, "
    "label TEXT, epsilon REAL, delta REAL, time REAL, pid INTEGER, "
    "certified INTEGER NOT NULL DEFAULT 1, private INTEGER NOT NULL DEFAULT 1)"
)
_TOTALS = totals_sql("REAL")
_INSERT = insert_spend_sql("?")
_TIMEOUT_SECONDS = 60.0
_ACCESS_ERRORS = ("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM")

# SQLite forbids using (even closing) a connection inherited through fork():
# in a forked child, every storage's inherited connection is parked here, kept
# open and never touched again, and the child opens its own.
_LIVE_STORAGES = weakref.WeakSet()
_INHERITED_CONNECTIONS = []


def _park_inherited_connections():
    for storage in list(_LIVE_STORAGES):
        if storage._connection is not None:
            _INHERITED_CONNECTIONS.append(storage._connection)
            storage._connection = None
        storage._lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_park_inherited_connections)


def check_ledger_path(path, name="path", prefix=""):
    """Return ``path`` as a ``str`` naming a file that SQLite can create or open.

    ``prefix`` is what the user wrote before ``path`` (``"sqlite:///"`` for a
    ``url``): messages quote and suggest values of that form. Raises ``TypeError`` for a non path-like value and ``ValueError`` for an
    empty path, a directory, or a file in a missing directory.
    """
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            f"{name} must be None or a file path (str or os.PathLike), got "
            f"{type(path).__name__}; pass e.g. {name}='ledger.sqlite'."
        )
    path = os.fspath(path)
    if not isinstance(path, str):
        raise TypeError(f"{name} must be a text path, got {type(path).__name__}.")
    given = prefix + path
    if path == "" or path == ":memory:":
        raise ValueError(
            f"{name}={given!r} is not a file; pass a file name such as "
            f"{name}='{prefix}ledger.sqlite', or {name}=None for an in-memory ledger."
        )
    if os.path.isdir(path):
        raise ValueError(f"{name}={given!r} is a directory; pass a file inside it.")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ValueError(
            f"{name}={given!r}: the directory {directory!r} does not exist; "
            "create it first or choose a path in an existing directory."
        )
    return os.path.abspath(path)  # fixed now: a later chdir must not move the ledger


class SQLiteStorage:
    """A ledger in an SQLite file (see the module docstring for guarantees).

    Parameters
    ----------
    path : str
        The ledger file, already checked by :func:`check_ledger_path`.
    """

    def __init__(self, path, witness=None):
        self.path = path
        self._witness = LedgerWitness() if witness is None else witness
        self._connection = None  # this process's connection, opened on first use
        self._file = None  # (device, inode) of the file that connection opened
        self._lock = threading.Lock()
        _LIVE_STORAGES.add(self)

    def __getstate__(self):
        return {"path": self.path, **self._witness.state()}

    def __setstate__(self, state):
        self.__init__(state["path"], LedgerWitness.from_state(state))

    def _connect(self):
        """A new connection (WAL, ``synchronous=FULL``)."""
        connection = sqlite3.connect(
            self.path, timeout=_TIMEOUT_SECONDS, isolation_level=None,
            check_same_thread=False,
        )
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
        except BaseException:
            connection.close()
            raise
        return connection

    def _cannot_open(self, exc):
        """The error for a failed open: no write access, or a file that is no ledger."""
        name = getattr(exc, "sqlite_errorname", None)  # Python >= 3.11
        denied = (name.startswith(_ACCESS_ERRORS) if name is not None
                  else any(text in str(exc) for text in ("readonly", "unable to open")))
        if denied:
            return PermissionError(
                f"path={self.path!r} cannot be written ({exc}): a ledger, even one only "
                "read, needs write access to its file and its directory (SQLite keeps "
                "-wal and -shm files beside it); fix the permissions or choose another path."
            )
        return self._not_a_ledger(exc)

    def _not_a_ledger(self, reason):
        return ValueError(
            f"path={self.path!r} is not a sksmooth ledger ({reason}); pass the "
            "path of a new file or of an existing BudgetAccountant ledger."
        )

    def init(self, budget, neighbouring="substitution"):
        """Create the tables and store ``budget`` and ``neighbouring`` if new; return the
        stored ones."""
        try:
            connection = self._connect()
        except sqlite3.DatabaseError as exc:
            raise self._cannot_open(exc) from None
        try:
            connection.execute("BEGIN IMMEDIATE")
            try:
                stored = self._create_or_read(connection, budget, neighbouring)
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            raise self._cannot_open(exc) from None
        finally:
            connection.close()
        return stored

    def _create_or_read(self, connection, budget, neighbouring):
        connection.execute(_CREATE_BUDGET)
        connection.execute(_CREATE_SPENDS)
        present = {table: {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
                   for table in REQUIRED_COLUMNS}
        for table, required in REQUIRED_COLUMNS.items():
            if not required <= present[table]:
                raise self._not_a_ledger(
                    f"table {table!r} lacks {sorted(required - present[table])}")
        add_missing_columns(connection.execute, "?", present, "INTEGER NOT NULL DEFAULT 1")
        return store_or_read_budget(connection.execute, "?", budget, neighbouring,
                                    self._witness, self.describe())

    def check_writable(self):
        """Every process on this host reaches the file: nothing to refuse."""

    def _shared_connection(self):
        """This process's connection (call with ``self._lock`` held), to the file now
        at ``path``: a connection keeps reading a file deleted or replaced under it."""
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            raise LedgerIntegrityError(
                f"{self.describe()}: the ledger file was deleted; the spends it held are "
                "no longer counted, so this handle refuses to go on. Restore the file, or "
                "open a new ledger with a new BudgetAccountant.") from None
        if self._connection is not None and self._file != (stat.st_dev, stat.st_ino):
            self._connection.close()
            self._connection = None
        if self._connection is None:
            self._connection = self._connect()
            self._file = (stat.st_dev, stat.st_ino)
        return self._connection

    def append_if_within_budget(self, record, budget):
        """One ``BEGIN IMMEDIATE`` transaction: read totals, check, insert, commit."""
        with self._lock:
            connection = self._shared_connection()
            connection.execute("BEGIN IMMEDIATE")
            try:
                totals = self._witness.before_append(connection.execute, "?", _TOTALS,
                                                     self.describe())
                refuse_if_over(totals, record.epsilon, record.delta, budget)
                spend_id = connection.execute(
                    _INSERT, spend_row(record)).fetchone()[0]
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
            self._witness.appended(totals, spend_id, record)

    def totals(self):
        """Totals read in one statement."""
        with self._lock:
            row = self._shared_connection().execute(_TOTALS).fetchone()
            return self._witness.saw_totals(totals_from_row(row), self.describe())

    def records(self):
        """All records, oldest first."""
        with self._lock:
            rows = self._shared_connection().execute(RECORDS_SQL).fetchall()
        return records_from_rows(rows)

    def describe(self):
        """``path='...'`` for the repr."""
        return f"path={self.path!r}"

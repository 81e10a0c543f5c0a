"""PostgreSQL ledger driver (optional extra ``psycopg`` 3, imported lazily).

The SQLite driver's two tables (:mod:`._sql`); one ``READ COMMITTED``
transaction per spend that locks the budget row (``FOR UPDATE``), then reads
the totals, checks and inserts, so concurrent spends form a serial history.
"""

import os
import random
import re
import threading
import time
from urllib.parse import urlsplit, urlunsplit

from ._protocol import refuse_if_over
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

__all__ = ["PostgresStorage", "redact_url"]

_CREATE_BUDGET = (
    "CREATE TABLE IF NOT EXISTS budget (epsilon DOUBLE PRECISION NOT NULL, "
    "delta DOUBLE PRECISION NOT NULL)"
)
_CREATE_SPENDS = (
    "CREATE TABLE IF NOT EXISTS spends (id BIGSERIAL PRIMARY KEY, label TEXT NOT NULL, "
    "epsilon DOUBLE PRECISION NOT NULL, delta DOUBLE PRECISION NOT NULL, "
    "time DOUBLE PRECISION NOT NULL, pid INTEGER NOT NULL, "
    "certified BOOLEAN NOT NULL DEFAULT TRUE, private BOOLEAN NOT NULL DEFAULT TRUE)"
)
_COLUMNS = ("SELECT table_name, column_name FROM information_schema.columns WHERE "
            "table_schema = current_schema() AND table_name IN ('budget', 'spends')")
_TOTALS = totals_sql("NUMERIC")
_INSERT = insert_spend_sql("%s")
# Serialises concurrent first-time creation of the tables (CREATE TABLE IF
# NOT EXISTS is not safe against itself in PostgreSQL); an arbitrary key.
_INIT_LOCK_KEY = 0x736B736D6F6F7468 & 0x7FFFFFFFFFFFFFFF
_MAX_ATTEMPTS = 20
_READ_COMMITTED = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED"


def redact_url(url):
    """``url`` with any password replaced by ``***`` (for messages and repr)."""
    parts = urlsplit(url)
    if parts.password is not None:
        host = parts.netloc.rsplit("@", 1)[-1]
        url = urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))
    # libpq also takes ?password=... in the query string
    return re.sub(r"(?i)([?&]password=)[^&#]*", r"\1***", url)


def _import_psycopg():
    try:
        import psycopg  # noqa: PLC0415 (optional extra, imported on first use)
    except ImportError as exc:
        raise ImportError(
            "BudgetAccountant(url='postgresql://...') needs psycopg 3: "
            "pip install 'sksmooth[postgres]' (or pip install 'psycopg[binary]')."
        ) from exc
    return psycopg


class PostgresStorage:
    """A ledger in a PostgreSQL database (see the module docstring).

    Parameters
    ----------
    url : str
        A libpq connection URI, ``postgresql://user@host:port/dbname``.

    Notes
    -----
    Each process (and each unpickled copy) opens one connection on first
    use and keeps it; threads of one process share it under a lock.
    """

    def __init__(self, url, witness=None):
        self.url = url
        self._witness = LedgerWitness() if witness is None else witness
        self._psycopg = _import_psycopg()
        self._lock = threading.Lock()
        self._connection = None
        self._connection_pid = None

    def _connect(self):
        if (
            self._connection is None
            or self._connection.closed
            or self._connection_pid != os.getpid()
        ):
            try:
                self._connection = self._psycopg.connect(self.url, autocommit=True)
            except self._psycopg.OperationalError as exc:
                raise ConnectionError(
                    f"url={redact_url(self.url)!r}: cannot connect to the "
                    f"PostgreSQL ledger ({str(exc).strip()}); check host, port, "
                    "database name and credentials."
                ) from None
            self._connection_pid = os.getpid()
        return self._connection

    def _run(self, work, after_commit=None):
        """Run ``work(connection)`` in one transaction, retrying rollbacks; then
        ``after_commit(result)``, still under this handle's lock."""
        errors = self._psycopg.errors
        retryable = (errors.SerializationFailure, errors.DeadlockDetected)
        with self._lock:
            for attempt in range(_MAX_ATTEMPTS):
                connection = self._connect()
                try:
                    with connection.transaction():
                        # Whatever the server's, role's or URL's default: under
                        # REPEATABLE READ the totals' snapshot would predate the
                        # wait for the row lock and miss spends committed meanwhile.
                        connection.execute(_READ_COMMITTED)
                        result = work(connection)
                    if after_commit is not None:
                        after_commit(result)
                    return result
                except retryable:
                    time.sleep(random.uniform(0, 0.002 * 2**min(attempt, 8)))
                except self._psycopg.OperationalError:
                    self._connection = None  # broken session: reconnect next time
                    raise
            raise RuntimeError(
                f"url={redact_url(self.url)!r}: the ledger transaction was "
                f"rolled back by the server {_MAX_ATTEMPTS} times; retry later."
            )

    def init(self, budget, neighbouring="substitution"):
        """Create the tables and store ``budget`` and ``neighbouring`` if new; return the
        stored ones."""
        return self._run(lambda connection: self._create_or_read(connection, budget,
                                                                 neighbouring))

    def _create_or_read(self, connection, budget, neighbouring):
        connection.execute("SELECT pg_advisory_xact_lock(%s)", (_INIT_LOCK_KEY,))
        connection.execute(_CREATE_BUDGET)
        connection.execute(_CREATE_SPENDS)
        present = {}
        for table, column in connection.execute(_COLUMNS).fetchall():
            present.setdefault(table, set()).add(column)
        for table, required in REQUIRED_COLUMNS.items():
            if not required <= present.get(table, set()):
                raise ValueError(
                    f"url={redact_url(self.url)!r} is not a sksmooth ledger (table {table!r} "
                    f"lacks {sorted(required - present.get(table, set()))}); give the "
                    "ledger a database or schema of its own, e.g. "
                    "?options=-csearch_path%3Dsksmooth_ledger.")
        add_missing_columns(connection.execute, "%s", present, "BOOLEAN NOT NULL DEFAULT TRUE")
        return store_or_read_budget(connection.execute, "%s", budget, neighbouring,
                                    self._witness, self.describe())

    def check_writable(self):
        """Every process that can connect reaches the ledger: nothing to refuse."""

    def append_if_within_budget(self, record, budget):
        """Lock the budget row, read totals, check, insert: one transaction."""

        def append(connection):
            totals = self._witness.before_append(connection.execute, "%s", _TOTALS,
                                                 self.describe(), lock=" FOR UPDATE")
            refuse_if_over(totals, record.epsilon, record.delta, budget)
            spend_id = connection.execute(
                _INSERT, spend_row(record)).fetchone()[0]
            return totals, spend_id

        self._run(append, after_commit=lambda result: self._witness.appended(*result, record))

    def totals(self):
        """Totals read in one statement."""
        return self._run(lambda c: self._witness.saw_totals(
            totals_from_row(c.execute(_TOTALS).fetchone()), self.describe()))

    def records(self):
        """All records, oldest first."""
        return self._run(lambda c: records_from_rows(c.execute(RECORDS_SQL).fetchall()))

    def describe(self):
        """``url='...'`` (password redacted) for the repr."""
        return f"url={redact_url(self.url)!r}"

    def close(self):
        """Close this process's connection (reopened on next use)."""
        with self._lock:
            if self._connection is not None and self._connection_pid == os.getpid():
                self._connection.close()
            self._connection = None

    def __getstate__(self):
        return {"url": self.url, **self._witness.state()}

    def __setstate__(self, state):
        self.__init__(state["url"], LedgerWitness.from_state(state))

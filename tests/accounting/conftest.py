"""Ledger backends for the accounting tests: memory, SQLite and a real PostgreSQL.

The PostgreSQL server is started once per session (see ``_postgres_server``);
each test gets a schema of its own through the URL's ``search_path``. If
the server binaries, psycopg or dask are missing, the PostgreSQL variants are
skipped, except when the ``CI`` environment variable is set: then they fail
with the install hint (CI must exercise every backend).
"""

import os
import sqlite3
import uuid
import warnings

import pytest

try:
    import psycopg
except ImportError:  # the postgres extra is optional outside CI
    psycopg = None

from sksmooth.accounting import BudgetAccountant
from sksmooth.exceptions import DefaultsWarning

from _postgres_server import INSTALL_HINT, ThrowawayPostgres, find_postgres_bin

BACKENDS = ["memory", "sqlite", "postgres"]
SHARED_BACKENDS = ["sqlite", "postgres"]


def _unavailable(reason):
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set, so this is an error). {INSTALL_HINT}")
    pytest.skip(f"{reason}. {INSTALL_HINT}")


@pytest.fixture(scope="session")
def postgres_server():
    """Base URL of a throwaway PostgreSQL server for the whole session."""
    if psycopg is None:
        _unavailable("psycopg is not installed")
    bin_dir = find_postgres_bin()
    if bin_dir is None:
        _unavailable("PostgreSQL server binaries not found")
    server = ThrowawayPostgres(bin_dir).start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server):
    """URL of an empty schema of its own on the session's server."""
    schema = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(postgres_server, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    return f"{postgres_server}?options=-csearch_path%3D{schema}"


def ledger_location(kind, request, tmp_path):
    """``{"path": ...}``, ``{"url": ...}`` or ``{}`` for a backend kind."""
    if kind == "memory":
        return {}
    if kind == "sqlite":
        return {"path": str(tmp_path / "ledger.sqlite")}
    return {"url": request.getfixturevalue("postgres_url")}


@pytest.fixture(params=BACKENDS)
def backend(request, tmp_path):
    """``(kind, location_kwargs)`` for each backend."""
    return request.param, ledger_location(request.param, request, tmp_path)


@pytest.fixture(params=SHARED_BACKENDS)
def shared_backend(request, tmp_path):
    """``(kind, location_kwargs)`` for the backends every process reaches."""
    return request.param, ledger_location(request.param, request, tmp_path)


@pytest.fixture
def ledger_sql(shared_backend):
    """``run(*statements)``: SQL on the test's ledger database from outside the
    package (another program, or an older version, writing it)."""
    kind, location = shared_backend

    def run(*statements):
        if kind == "sqlite":
            connection = sqlite3.connect(location["path"], isolation_level=None)
        else:
            connection = psycopg.connect(location["url"], autocommit=True)
        try:
            for statement in statements:
                connection.execute(statement)
        finally:
            connection.close()

    return run


@pytest.fixture
def make_accountant(backend):
    """Factory opening (or reopening) the test's ledger on each backend."""
    _, location = backend

    def make(epsilon=float("inf"), delta=None):
        with warnings.catch_warnings():  # a new file ledger with no budget says so:
            warnings.simplefilter("ignore", DefaultsWarning)  # tested in test_ledger
            return BudgetAccountant(epsilon, delta, **location)

    return make

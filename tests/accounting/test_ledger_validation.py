"""BudgetAccountant parameters: every bad value gets a TypeError/ValueError naming it."""

import re
import sqlite3
import sys

import numpy as np
import pytest

from sksmooth.accounting import BudgetAccountant, charge_not_private

BAD_NUMBERS = [np.nan, "1", [1.0], {}, object(), True, np.array([1.0]), None]


@pytest.mark.parametrize("value", [v for v in BAD_NUMBERS if v is not None])
def test_bad_epsilon_type(value):
    with pytest.raises(TypeError, match="epsilon"):
        BudgetAccountant(epsilon=value)


@pytest.mark.parametrize("value", [v for v in BAD_NUMBERS if v is not None])
def test_bad_delta_type(value):
    with pytest.raises(TypeError, match="delta"):
        BudgetAccountant(delta=value)


@pytest.mark.parametrize(
    "kwargs, match",
    [({"epsilon": 0}, "epsilon"), ({"epsilon": -1}, "epsilon"),
     ({"epsilon": -np.inf}, "epsilon"), ({"delta": 1.5}, "delta"),
     ({"delta": -0.1}, "delta"), ({"delta": np.inf}, "delta"),
     ({"delta": 1e300}, "delta")],
)
def test_bad_budget_value(kwargs, match):
    with pytest.raises(ValueError, match=match):
        BudgetAccountant(**kwargs)


def test_none_epsilon_is_refused_and_none_delta_is_unlimited():
    with pytest.raises(TypeError, match="epsilon"):
        BudgetAccountant(epsilon=None)
    assert BudgetAccountant(delta=None).budget.delta == np.inf


@pytest.mark.parametrize("epsilon", [1e300, 1e-300, np.inf, 10**12])
@pytest.mark.parametrize("delta", [0.0, 1e-300, 1.0, None])
def test_extreme_legal_budgets_work(epsilon, delta, recwarn):
    acc = BudgetAccountant(epsilon, delta)
    acc.check(min(epsilon, 1.0) if np.isfinite(epsilon) else 1.0)
    acc.remaining(3)
    repr(acc)
    # no numpy floating-point warning (RuntimeWarning); other categories, e.g. a
    # ResourceWarning from an object another test left to the garbage collector,
    # can land in recwarn in the full suite and say nothing about this code
    assert not [w for w in recwarn.list if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("path", [123, 1.5, b"ledger.sqlite", ["a"], object(), True])
def test_path_of_wrong_type(path):
    with pytest.raises(TypeError, match="path must be None or a file path"):
        BudgetAccountant(path=path)


@pytest.mark.parametrize("path", ["", ":memory:"])
def test_path_that_is_not_a_file(path):
    with pytest.raises(ValueError, match="path=.*not a file"):
        BudgetAccountant(path=path)


@pytest.mark.parametrize("url", ["sqlite:///", "sqlite:///:memory:"])
def test_sqlite_url_that_is_not_a_file_suggests_a_url_that_works(url, tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="not a file") as error:
        BudgetAccountant(url=url)
    assert f"url={url!r}" in str(error.value)
    suggestion = re.search(r"such as url='([^']+)'", str(error.value)).group(1)
    monkeypatch.chdir(tmp_path)
    assert BudgetAccountant(1.0, url=suggestion).spent == (0.0, 0.0)  # the fix it names works


def test_path_in_missing_directory(tmp_path):
    missing = tmp_path / "no" / "such" / "ledger.sqlite"
    with pytest.raises(ValueError, match="does not exist; create it first"):
        BudgetAccountant(path=missing)
    assert not missing.parent.exists()


def test_path_that_is_a_directory(tmp_path):
    with pytest.raises(ValueError, match="is a directory"):
        BudgetAccountant(path=tmp_path)


def test_path_to_a_file_that_is_not_a_database(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("not an SQLite database, just some text\n" * 100)
    with pytest.raises(ValueError, match="is not a sksmooth ledger"):
        BudgetAccountant(path=path)
    assert path.read_text().startswith("not an SQLite")  # left untouched


def test_a_ledger_sqlite_cannot_write_is_not_called_no_ledger(tmp_path, monkeypatch):
    from sksmooth.accounting._backends._sqlite import SQLiteStorage
    path = tmp_path / "ledger.sqlite"
    BudgetAccountant(epsilon=1.0, path=path).spend(0.5, 0.0)

    def read_only(storage):  # what a read-only file or directory gives (chmod is moot as root)
        return sqlite3.connect(f"file:{storage.path}?mode=ro", uri=True, isolation_level=None)

    monkeypatch.setattr(SQLiteStorage, "_connect", read_only)
    with pytest.raises(PermissionError, match="cannot be written .*needs write access to "
                                              "its file and its directory"):
        BudgetAccountant(epsilon=1.0, path=path)


def test_path_to_another_sqlite_database(tmp_path):
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE spends (amount REAL)")
    with pytest.raises(ValueError, match="is not a sksmooth ledger.*spends"):
        BudgetAccountant(path=path)


def test_old_ledger_without_certified_column_is_upgraded(tmp_path):
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE budget (epsilon REAL, delta REAL)")
        connection.execute(
            "CREATE TABLE spends (id INTEGER PRIMARY KEY AUTOINCREMENT, label TEXT, "
            "epsilon REAL, delta REAL, time REAL, pid INTEGER)"
        )
        connection.execute("INSERT INTO budget VALUES (1.0, 1.0)")
        connection.execute("INSERT INTO spends (label, epsilon, delta, time, pid) "
                           "VALUES ('old', 0.5, 0.0, 0.0, 1)")
    acc = BudgetAccountant(1.0, 1.0, path=path)
    assert [(r.label, r.certified, r.private) for r in acc.ledger] == [("old", True, True)]
    acc.spend(0.25, certified=False)
    assert acc.spent_not_certified.epsilon == 0.25


# column types as each database's first ledgers declared them
_OLD_TYPES = {"sqlite": ("INTEGER PRIMARY KEY AUTOINCREMENT", "REAL", "INTEGER NOT NULL DEFAULT 1"),
              "postgres": ("BIGSERIAL PRIMARY KEY", "DOUBLE PRECISION",
                           "BOOLEAN NOT NULL DEFAULT TRUE")}


def test_old_ledger_without_private_column_is_upgraded(shared_backend, ledger_sql):
    # the tables as written before spends.private (certified present)
    kind, location = shared_backend
    key, real, flag = _OLD_TYPES[kind]
    ledger_sql(f"CREATE TABLE budget (epsilon {real}, delta {real})",
               f"CREATE TABLE spends (id {key}, label TEXT, epsilon {real}, delta {real}, "
               f"time {real}, pid INTEGER, certified {flag})",
               "INSERT INTO budget VALUES (1.0, 1.0)",
               "INSERT INTO spends (label, epsilon, delta, time, pid) "
               "VALUES ('old', 0.5, 0.0, 0.0, 1)")
    acc = BudgetAccountant(1.0, 1.0, **location)
    assert [(r.label, r.private) for r in acc.ledger] == [("old", True)]
    charge_not_private(acc, "Tree", "row values")
    assert acc.spent == (0.5, 0.0) and acc.spent.n_not_private == 1


def test_budget_mismatch_names_path_and_fix(tmp_path):
    path = tmp_path / "ledger.sqlite"
    BudgetAccountant(1.0, path=path)
    with pytest.raises(ValueError, match=r"path=.*same budget.*new ledger") as refused:
        BudgetAccountant(1.0, 1e-5, path=path)
    assert "(epsilon=1.0, delta=unlimited), not (epsilon=1.0, delta=1e-05)" in str(refused.value)


def test_path_and_url_are_exclusive(tmp_path):
    with pytest.raises(ValueError, match="at most one of path= .* and url="):
        BudgetAccountant(path=tmp_path / "a.sqlite", url="sqlite:///b.sqlite")


@pytest.mark.parametrize("url", [123, b"postgresql://x", ["postgresql://"]])
def test_url_of_wrong_type(url):
    with pytest.raises(TypeError, match="url must be None or a str"):
        BudgetAccountant(url=url)


@pytest.mark.parametrize("url", ["", "mysql://host/db", "ledger.sqlite", "sqlite://rel"])
def test_url_with_unsupported_scheme(url):
    with pytest.raises(ValueError, match="url must start with 'postgresql://'"):
        BudgetAccountant(url=url)


def test_sqlite_url_is_a_path(tmp_path):
    file = tmp_path / "ledger.sqlite"
    acc = BudgetAccountant(1.0, url=f"sqlite:///{file}")
    acc.spend(0.5)
    assert acc.path == str(file)
    assert BudgetAccountant(1.0, path=file).spent.epsilon == 0.5


def test_postgres_url_without_psycopg_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg -> ImportError
    with pytest.raises(ImportError, match=r"sksmooth\[postgres\]"):
        BudgetAccountant(url="postgresql://user@localhost/ledger")


@pytest.mark.parametrize("url,shown", [
    ("postgresql://alice:s3cret@127.0.0.1:1/ledger?connect_timeout=2", "alice:***@"),
    # libpq also takes ?password=...; only user:pw@ was hidden (found by a review)
    ("postgresql://alice@127.0.0.1:1/ledger?password=s3cret&connect_timeout=2",
     "password=***"),
])
def test_unreachable_postgres_server_is_a_clear_error_without_password(url, shown):
    pytest.importorskip("psycopg")
    with pytest.raises(ConnectionError, match="cannot connect") as info:
        BudgetAccountant(url=url)
    assert "s3cret" not in str(info.value) and shown in str(info.value)


def test_postgres_repr_hides_the_password(postgres_server):
    url = postgres_server.replace("postgres@", "postgres:hunter2@")
    acc = BudgetAccountant(1.0, url=url)
    assert "hunter2" not in repr(acc) and "url=" in repr(acc)


def test_a_relative_ledger_path_is_fixed_at_construction(tmp_path, monkeypatch):
    # the path was kept relative and reconnected lazily: after a chdir, spends
    # landed in another directory's ledger (found by a review)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path / "a")
    ledger = BudgetAccountant(epsilon=1.0, path="ledger.sqlite")
    monkeypatch.chdir(tmp_path / "b")
    ledger.spend(0.5)
    assert ledger.path == str(tmp_path / "a" / "ledger.sqlite")
    assert not (tmp_path / "b" / "ledger.sqlite").exists()
    assert BudgetAccountant(epsilon=1.0, path=str(tmp_path / "a" / "ledger.sqlite")).spent \
        == (0.5, 0.0)


def test_a_postgres_schema_with_other_budget_and_spends_tables_is_not_taken(postgres_url):
    # the driver inserted a row into another application's 'budget' table, then
    # failed with a raw UndefinedColumn (found by a review); SQLite already refused
    psycopg = pytest.importorskip("psycopg")
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute("CREATE TABLE spends (id SERIAL, amount REAL, note TEXT)")
        connection.execute("CREATE TABLE budget (epsilon REAL, delta REAL, owner TEXT)")
    with pytest.raises(ValueError, match="is not a sksmooth ledger .*'spends' lacks"):
        BudgetAccountant(epsilon=1.0, url=postgres_url)
    with psycopg.connect(postgres_url) as connection:
        assert connection.execute("SELECT count(*) FROM budget").fetchone()[0] == 0


def test_remaining_takes_a_numpy_integer_count():
    # k=np.int64(2) was refused as "not a positive integer" (found by a review)
    assert BudgetAccountant(epsilon=2.0).remaining(k=np.int64(2)).epsilon == 1.0

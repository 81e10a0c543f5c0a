"""The ledger across processes: loky workers, concurrent writers, killed writers."""

import multiprocessing
import os
import signal
import time
import warnings

import joblib
import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV
from sklearn.utils.validation import check_is_fitted

from sksmooth import BudgetError, PrivateProperClassifier
from sksmooth.accounting import BudgetAccountant, CrossProcessLedgerError
from sksmooth.accounting._backends import _postgres, _protocol, _sql, _sqlite
from sksmooth.accounting._backends import MemoryStorage, PostgresStorage, SQLiteStorage
from sksmooth.exceptions import PrivacyLeakWarning, PrivacyWarning

pytestmark = pytest.mark.expensive  # seconds each: after the cheap tests

N_WRITERS, SPENDS_PER_WRITER, BUDGET = 8, 100, 500
# Seconds a driver sleeps between its budget check and its insert in the
# race-window tests: wide enough that, under any machine load, several
# writers are inside the window when the total reaches the budget.
RACE_WINDOW = 0.02

_FORK = multiprocessing.get_context("fork")


def _spend_in_worker(accountant, i):
    accountant.spend(0.01, 0.0, label=f"worker-{i}")
    return os.getpid()


def test_shared_ledger_records_spends_from_loky_workers(shared_backend):
    _, location = shared_backend
    acc = BudgetAccountant(10.0, **location)
    pids = joblib.Parallel(n_jobs=2, backend="loky")(
        joblib.delayed(_spend_in_worker)(acc, i) for i in range(40)
    )
    assert os.getpid() not in pids  # really ran in other processes
    assert sorted(r.label for r in acc.ledger) == sorted(f"worker-{i}" for i in range(40))
    assert acc.spent.epsilon == pytest.approx(0.4)


def test_in_memory_ledger_refuses_spends_in_loky_workers():
    # before the fix the worker's spend was lost with only a UserWarning
    acc = BudgetAccountant(epsilon=10.0)
    with pytest.raises(CrossProcessLedgerError, match=r"path=.*url="):
        joblib.Parallel(n_jobs=2, backend="loky")(
            joblib.delayed(_spend_in_worker)(acc, i) for i in range(4)
        )
    assert len(acc) == 0
    acc.spend(0.5)  # the owner itself is unaffected
    assert len(acc) == 1


def test_in_memory_ledger_refuses_after_fork():
    acc = BudgetAccountant(epsilon=10.0)
    process = _FORK.Process(target=_expect_refusal, args=(acc,))
    process.start()
    process.join(60)
    assert process.exitcode == 0


def test_fork_audit_catches_a_memory_driver_without_the_process_check(monkeypatch):
    monkeypatch.setattr(MemoryStorage, "check_writable", lambda self: None)
    acc = BudgetAccountant(epsilon=10.0)
    process = _FORK.Process(target=_expect_refusal, args=(acc,))
    process.start()
    process.join(60)
    assert process.exitcode == 1  # the child's spend went through, unseen by us
    assert len(acc) == 0


def _expect_refusal(accountant):
    for attempt in (lambda: accountant.spend(0.1), lambda: accountant.check(0.1)):
        try:
            attempt()
        except CrossProcessLedgerError:
            continue
        os._exit(1)
    os._exit(0)


def _private_search(accountant, n_jobs, error_score=np.nan):
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(80, 2))
    y = (X[:, 0] > 0.5).astype(int)
    base = PrivateProperClassifier(bounds=(0.0, 1.0), classes=[0, 1], accountant=accountant)
    search = GridSearchCV(base, {"epsilon": [0.5, 1.0]}, cv=2, n_jobs=n_jobs,
                          error_score=error_score)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (PrivacyWarning, PrivacyLeakWarning))
        return search.fit(X, y)


def test_gridsearch_n_jobs_2_with_in_memory_ledger_fails_clearly():
    acc = BudgetAccountant(epsilon=100.0)
    with pytest.raises(CrossProcessLedgerError, match="path="):
        _private_search(acc, n_jobs=2, error_score="raise")
    # with the default error_score every worker fit fails; sklearn then
    # raises "All the 4 fits failed" quoting our message, before any refit
    with pytest.raises(ValueError, match="CrossProcessLedgerError"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _private_search(acc, n_jobs=2)
    assert len(acc) == 0


def test_gridsearch_n_jobs_2_records_every_fit_in_a_shared_ledger(shared_backend):
    _, location = shared_backend
    acc = BudgetAccountant(100.0, **location)
    search = _private_search(acc, n_jobs=2)
    assert len(acc) == 5  # 2 candidates x 2 folds + refit
    pids = {r.pid for r in acc.ledger}
    assert len(pids - {os.getpid()}) >= 1  # the fold fits ran in workers
    assert acc.spent.epsilon == pytest.approx(3.0 + search.best_params_["epsilon"])


def _writer(location, label_prefix, n_spends):
    acc = BudgetAccountant(float(BUDGET), **location)
    committed = 0
    for i in range(n_spends):
        try:
            acc.spend(1.0, label=f"{label_prefix}-{i}")
            committed += 1
        except BudgetError:
            pass
    return committed


def _run_concurrent_writers(location):
    """8 forked writers x 100 spends of 1.0 against a budget of 500."""
    BudgetAccountant(float(BUDGET), **location)  # create the ledger once
    with _FORK.Pool(N_WRITERS) as pool:
        committed = pool.starmap(
            _writer, [(location, f"w{k}", SPENDS_PER_WRITER) for k in range(N_WRITERS)]
        )
    return committed, [r.label for r in BudgetAccountant(float(BUDGET), **location).ledger]


def _widen_race_window(monkeypatch, seconds=RACE_WINDOW):
    """Sleep inside each driver's transaction between the budget check and the insert."""

    def check_then_sleep(*args, **kwargs):
        _protocol.refuse_if_over(*args, **kwargs)
        time.sleep(seconds)

    monkeypatch.setattr(_sqlite, "refuse_if_over", check_then_sleep)
    monkeypatch.setattr(_postgres, "refuse_if_over", check_then_sleep)


@pytest.mark.parametrize(
    "race_window", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["plain", "widened"]
)
def test_concurrent_writers_commit_exactly_the_budget(shared_backend, monkeypatch, race_window):
    _, location = shared_backend
    if race_window:
        _widen_race_window(monkeypatch)
    committed, labels = _run_concurrent_writers(location)
    assert sum(committed) == BUDGET == len(labels)  # none lost, none over budget
    assert len(set(labels)) == len(labels)  # no double spend
    for k, count in enumerate(committed):  # each writer's successes are all there
        assert sum(label.startswith(f"w{k}-") for label in labels) == count


def _sqlite_check_then_insert_separately(self, record, budget):
    """Broken: check and insert in two transactions."""
    _protocol.refuse_if_over(self.totals(), record.epsilon, record.delta, budget)
    time.sleep(RACE_WINDOW)
    connection = self._connect()
    try:
        connection.execute(_sqlite._INSERT, _sql.spend_row(record))
    finally:
        connection.close()


def _postgres_without_row_lock(self, record, budget):
    """Broken: the PostgreSQL transaction without ``FOR UPDATE`` on the budget row."""

    def append(connection):
        totals = _sql.totals_from_row(connection.execute(_postgres._TOTALS).fetchone())
        _protocol.refuse_if_over(totals, record.epsilon, record.delta, budget)
        time.sleep(RACE_WINDOW)
        connection.execute(_postgres._INSERT, _sql.spend_row(record))

    self._run(append)


def test_concurrency_audit_catches_drivers_without_atomic_check_and_insert(
    shared_backend, monkeypatch
):
    kind, location = shared_backend
    if kind == "sqlite":
        monkeypatch.setattr(SQLiteStorage, "append_if_within_budget",
                            _sqlite_check_then_insert_separately)
    else:
        monkeypatch.setattr(PostgresStorage, "append_if_within_budget",
                            _postgres_without_row_lock)
    committed, labels = _run_concurrent_writers(location)
    assert len(labels) == sum(committed) > BUDGET  # the same check sees the overspend


def _endless_writer(location, log_path):
    acc = BudgetAccountant(1e9, **location)
    with open(log_path, "a", buffering=1) as log:
        for i in range(10**9):
            acc.spend(1e-3, label=f"k-{i}")
            log.write(f"k-{i}\n")  # only after the spend returned (committed)


def _kill_writer_mid_loop(location, log_path):
    """Start an endless writer, SIGKILL it after 30 acknowledged spends."""
    BudgetAccountant(1e9, **location)
    process = _FORK.Process(target=_endless_writer, args=(location, log_path))
    process.start()
    deadline = time.monotonic() + 60
    while not log_path.exists() or len(log_path.read_text().splitlines()) < 30:
        assert time.monotonic() < deadline and process.is_alive()
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGKILL)
    process.join()
    assert process.exitcode == -signal.SIGKILL
    return log_path.read_text().splitlines()


def test_sigkill_mid_loop_loses_nothing_committed(shared_backend, tmp_path):
    _, location = shared_backend
    acknowledged = _kill_writer_mid_loop(location, tmp_path / "committed.log")
    acc = BudgetAccountant(1e9, **location)
    recorded = [r.label for r in acc.ledger]
    assert recorded[: len(acknowledged)] == acknowledged  # nothing committed is lost
    assert len(recorded) - len(acknowledged) <= 1  # at most the one in flight
    acc.spend(1e-3, label="after-kill")  # no lock left behind
    assert acc.ledger[-1].label == "after-kill"


def _sqlite_acknowledge_before_commit(self, record, budget):
    """Broken: returns after the INSERT, commits only every 10**9-th spend.

    (With every 1000th, a fast writer on a loaded machine reached a commit
    before the parent's SIGKILL, and the audit's premise failed.)
    """
    if getattr(self, "_open", None) is None:
        self._open = self._connect()
        self._open.execute("BEGIN IMMEDIATE")
        self._pending = 0
    self._open.execute(_sqlite._INSERT, _sql.spend_row(record))
    self._pending += 1
    if self._pending == 10**9:
        self._open.execute("COMMIT")
        self._open.close()
        self._open = None


def test_kill_audit_catches_a_driver_that_acknowledges_before_commit(tmp_path, monkeypatch):
    monkeypatch.setattr(SQLiteStorage, "append_if_within_budget",
                        _sqlite_acknowledge_before_commit)
    location = {"path": str(tmp_path / "ledger.sqlite")}
    acknowledged = _kill_writer_mid_loop(location, tmp_path / "committed.log")
    recorded = [r.label for r in BudgetAccountant(**location).ledger]
    assert len(acknowledged) >= 30 and recorded == []  # acknowledged spends were lost


def test_plain_gridsearch_when_the_budget_runs_out_matches_the_docs():
    # docs/privacy_ledger.rst: refused fold fits score NaN, the search goes on
    # and refits the best surviving candidate ...
    acc = BudgetAccountant(epsilon=1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # FitFailedWarning, non-finite scores
        search = _private_search(acc, n_jobs=1)
    scores = search.cv_results_["mean_test_score"]
    assert np.isfinite(scores[0]) and np.isnan(scores[1])
    assert search.best_params_ == {"epsilon": 0.5} and hasattr(search, "best_estimator_")
    assert [r.epsilon for r in acc.ledger] == [0.5, 0.5, 0.5]
    # ... and a refit that does not fit raises after every fold fit was charged
    acc = BudgetAccountant(epsilon=3.0)
    search = GridSearchCV(
        PrivateProperClassifier(bounds=(0.0, 1.0), classes=[0, 1], accountant=acc),
        {"epsilon": [0.5, 1.0]}, cv=2,
    )
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(80, 2))
    y = (X[:, 0] > 0.5).astype(int)
    with pytest.raises(BudgetError), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search.fit(X, y)
    assert [r.epsilon for r in acc.ledger] == [0.5, 0.5, 1.0, 1.0]
    with pytest.raises(NotFittedError):  # sklearn sets it before the refused refit
        check_is_fitted(search.best_estimator_)


def _spend_inherited(accountant):
    accountant.spend(0.5, label="child")
    os._exit(0)


def test_ledger_inherited_through_fork_is_shared_and_leaves_the_parent_working(
    shared_backend,
):
    _, location = shared_backend
    acc = BudgetAccountant(10.0, **location)
    acc.spend(0.5, label="parent-before")  # the parent's connection is open
    process = _FORK.Process(target=_spend_inherited, args=(acc,))
    process.start()
    process.join(60)
    assert process.exitcode == 0
    acc.spend(0.5, label="parent-after")  # the child did not break our session
    assert [r.label for r in acc.ledger] == ["parent-before", "child", "parent-after"]


def test_a_parallel_private_search_charges_a_postgres_ledger(postgres_url):
    # PrivateSearchCV refused any ledger but a file for n_jobs != 1 and called a
    # PostgreSQL ledger "in-memory" (found by a review)
    import os

    from sksmooth.datasets import load_breast_cancer_public
    from sksmooth.model_selection import PrivateSearchCV

    X, y, _ = load_breast_cancer_public()
    ledger = BudgetAccountant(10.0, url=postgres_url)
    search = PrivateSearchCV(
        PrivateProperClassifier(bounds=(0, 1), classes=[0, 1]), {"epsilon": [0.5, 1.0]},
        epsilon_selection=0.5, cv=3, n_jobs=2, accountant=ledger).fit(X[:240], y[:240])
    assert ledger.spent.epsilon == pytest.approx(3 * 1.5 + 0.5 + 1.0)
    assert {r.pid for r in ledger.ledger} - {os.getpid()}  # the workers charged it
    assert search.guarantee_.certified


# the URL's options set the session default, as postgresql.conf, ALTER DATABASE/ROLE or
# PGOPTIONS can; libpq takes a space in an option value escaped by a backslash
_REPEATABLE_READ_DEFAULT = "%20-cdefault_transaction_isolation%3Drepeatable%5C%20read"


def test_postgres_ledger_runs_read_committed_whatever_the_session_default(postgres_url):
    # under REPEATABLE READ the totals are read from a snapshot taken before the wait
    # for the budget row's lock, so concurrent spends overran the budget (found by a
    # review: 56 spends of 1 against 50)
    storage = PostgresStorage(postgres_url + _REPEATABLE_READ_DEFAULT)
    assert storage._run(lambda c: c.execute("SHOW default_transaction_isolation")
                        .fetchone()[0]) == "repeatable read"  # the setting took effect
    assert storage._run(lambda c: c.execute("SHOW transaction_isolation")
                        .fetchone()[0]) == "read committed"


# end to end, with the audit below that shows it catches the fault (seconds of racing
# writers): -m slow; the test above fails on the same driver (no SET) in milliseconds
@pytest.mark.slow
def test_postgres_writers_commit_exactly_the_budget_under_a_repeatable_read_default(
        postgres_url, monkeypatch):
    _widen_race_window(monkeypatch)
    location = {"url": postgres_url + _REPEATABLE_READ_DEFAULT}
    committed, labels = _run_concurrent_writers(location)
    assert sum(committed) == BUDGET == len(labels)


@pytest.mark.slow
def test_isolation_audit_catches_a_postgres_driver_keeping_the_session_default(
        postgres_url, monkeypatch):
    monkeypatch.setattr(_postgres, "_READ_COMMITTED", "SELECT 1")  # broken: no SET
    _widen_race_window(monkeypatch)
    location = {"url": postgres_url + _REPEATABLE_READ_DEFAULT}
    committed, labels = _run_concurrent_writers(location)
    assert len(labels) == sum(committed) > BUDGET

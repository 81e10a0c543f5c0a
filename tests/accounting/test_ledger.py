import copy
import os
import pickle
import signal
import subprocess
import sys
import textwrap

import joblib
import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone

from sksmooth import BudgetError
from sksmooth.accounting import BudgetAccountant, charge, check_accountant


class _Holder(BaseEstimator):
    def __init__(self, epsilon=1.0, accountant=None):
        self.epsilon = epsilon
        self.accountant = accountant


def test_spend_and_totals_basic_composition():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    for _ in range(10):
        acc.spend(0.1, 1e-6, label="step")
    assert acc.spent.epsilon == pytest.approx(1.0)
    assert acc.spent.delta == pytest.approx(1e-5)
    assert len(acc) == 10
    assert [r.label for r in acc.ledger] == ["step"] * 10
    assert acc.remaining().epsilon == pytest.approx(0.0)
    with pytest.raises(BudgetError, match="budget"):
        acc.spend(1e-3, 0.0)
    assert len(acc) == 10  # refused spend records nothing


def test_check_refuses_without_recording():
    acc = BudgetAccountant(epsilon=1.0, delta=0.0)
    acc.check(1.0, 0.0)
    with pytest.raises(BudgetError):
        acc.check(1.01, 0.0)
    with pytest.raises(BudgetError):
        acc.check(0.5, 1e-9)  # delta budget 0
    assert len(acc) == 0


def test_remaining_split():
    acc = BudgetAccountant(epsilon=2.0, delta=1e-4)
    acc.spend(1.0, 0.0)
    rem = acc.remaining(k=4)
    assert rem.epsilon == pytest.approx(0.25)
    assert rem.delta == pytest.approx(2.5e-5)
    with pytest.raises(ValueError, match="k must be"):
        acc.remaining(0)


def test_clone_and_deepcopy_keep_the_same_ledger():
    acc = BudgetAccountant()
    est = _Holder(accountant=acc)
    assert clone(est).accountant is acc
    assert copy.deepcopy(est).accountant is acc
    assert copy.copy(acc) is acc
    assert pickle.loads(pickle.dumps(acc)) is acc
    clone(est).accountant.spend(0.5, 0.0, label="via clone")
    assert acc.spent.epsilon == pytest.approx(0.5)


def test_unpickle_in_fresh_process_keeps_records(tmp_path):
    acc = BudgetAccountant(epsilon=5.0)
    acc.spend(0.7, 0.0, label="a")
    blob = tmp_path / "acc.pkl"
    blob.write_bytes(pickle.dumps(acc))
    code = textwrap.dedent(
        f"""
        import pickle
        acc = pickle.loads(open({str(blob)!r}, 'rb').read())
        print(acc.spent.epsilon, len(acc))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert float(out[0]) == pytest.approx(0.7) and out[1] == "1"


def _spend_in_worker(accountant, i):
    accountant.spend(0.01, 0.0, label=f"worker-{i}")
    return os.getpid()


def test_sqlite_ledger_records_spends_from_loky_workers(tmp_path):
    acc = BudgetAccountant(epsilon=10.0, path=tmp_path / "ledger.sqlite")
    pids = joblib.Parallel(n_jobs=2, backend="loky")(
        joblib.delayed(_spend_in_worker)(acc, i) for i in range(40)
    )
    assert os.getpid() not in pids  # really ran in other processes
    assert len(acc) == 40
    assert sorted(r.label for r in acc.ledger) == sorted(f"worker-{i}" for i in range(40))
    assert acc.spent.epsilon == pytest.approx(0.4)


def test_sqlite_budget_is_enforced_across_processes(tmp_path):
    acc = BudgetAccountant(epsilon=0.1, path=tmp_path / "ledger.sqlite")

    def attempt(a):
        try:
            a.spend(0.01, 0.0)
            return True
        except BudgetError:
            return False

    ok = joblib.Parallel(n_jobs=2, backend="loky")(
        joblib.delayed(attempt)(acc) for _ in range(30)
    )
    assert sum(ok) == 10
    assert len(acc) == 10
    assert acc.spent.epsilon <= 0.1 * (1 + 1e-9)


def test_in_memory_ledger_warns_in_worker_process():
    acc = BudgetAccountant()
    with pytest.warns(UserWarning, match="path="):
        # simulate a foreign process
        acc._pid = -1
        acc.spend(0.1)


def test_killed_process_never_loses_a_committed_spend(tmp_path):
    path = tmp_path / "ledger.sqlite"
    BudgetAccountant(epsilon=10.0, path=path)
    code = textwrap.dedent(
        f"""
        import os, signal
        from sksmooth.accounting import BudgetAccountant
        acc = BudgetAccountant(epsilon=10.0, path={str(path)!r})
        acc.spend(0.25, 0.0, label="before-kill")
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.run([sys.executable, "-c", code], env=env)
    assert proc.returncode == -signal.SIGKILL
    reopened = BudgetAccountant(epsilon=10.0, path=path)
    assert [r.label for r in reopened.ledger] == ["before-kill"]
    assert reopened.spent.epsilon == pytest.approx(0.25)


def test_reopening_with_other_budget_is_refused(tmp_path):
    path = tmp_path / "ledger.sqlite"
    BudgetAccountant(epsilon=1.0, path=path)
    with pytest.raises(ValueError, match="same budget"):
        BudgetAccountant(epsilon=2.0, path=path)


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        ({"epsilon": 0}, ValueError, "epsilon"),
        ({"epsilon": -1}, ValueError, "epsilon"),
        ({"epsilon": "1"}, TypeError, "epsilon"),
        ({"delta": 1.5}, ValueError, "delta"),
        ({"delta": -0.1}, ValueError, "delta"),
        ({"epsilon": float("nan")}, TypeError, "epsilon"),
    ],
)
def test_bad_budget(kwargs, err, match):
    with pytest.raises(err, match=match):
        BudgetAccountant(**kwargs)


@pytest.mark.parametrize(
    "eps, delta, err",
    [(0.0, 0.0, ValueError), (-1.0, 0.0, ValueError), (0.1, 1.0, ValueError),
     (np.inf, 0.0, ValueError), (None, 0.0, TypeError)],
)
def test_bad_spend_records_nothing(eps, delta, err):
    acc = BudgetAccountant()
    with pytest.raises(err):
        acc.spend(eps, delta)
    assert len(acc) == 0


def test_charge_and_check_accountant():
    charge(None, 1.0, 0.0, "noop")  # no accountant: nothing happens
    acc = BudgetAccountant(epsilon=1.0)
    charge(acc, 0.3, 0.0, "Est")
    assert acc.ledger[0].label == "Est"
    with pytest.raises(TypeError, match="BudgetAccountant"):
        check_accountant({"epsilon": 1})
    with pytest.raises(BudgetError):
        charge(acc, 0.8, 0.0, "Est")


def test_zero_delta_budget_refuses_any_positive_delta():
    # a pure-DP budget must never accept an approximate-DP release, however small
    acc = BudgetAccountant(epsilon=1.0, delta=0.0)
    with pytest.raises(BudgetError):
        acc.check(0.5, 1e-16)
    with pytest.raises(BudgetError):
        acc.spend(0.5, 1e-16)
    assert len(acc) == 0
    acc.spend(0.5, 0.0)
    assert acc.spent == (0.5, 0.0)


def _spend_in_worker_recording_warnings(accountant):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        accountant.spend(0.01, 0.0, label="worker")
    return os.getpid(), [str(w.message) for w in caught]


def test_in_memory_ledger_warns_in_real_loky_worker():
    # loky pickles the accountant; the copy in the worker must still know it
    # is not the process that owns the ledger (its spends are lost to the parent)
    acc = BudgetAccountant(epsilon=10.0)
    (pid, messages), = joblib.Parallel(n_jobs=2, backend="loky")(
        joblib.delayed(_spend_in_worker_recording_warnings)(acc) for _ in range(1)
    )
    assert pid != os.getpid()
    assert any("path=" in m for m in messages)
    assert len(acc) == 0  # the parent indeed never sees the worker's spend

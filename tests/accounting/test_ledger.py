"""Ledger semantics, run on every storage backend (memory, SQLite, PostgreSQL)."""

import copy
import gc
import os
import pickle
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone

from sksmooth import BudgetError, DefaultsWarning, PrivacySpent
from sksmooth.accounting import (
    BudgetAccountant,
    LedgerStorage,
    LedgerTotals,
    LedgerSpent,
    RemainingBudget,
    charge,
    charge_not_private,
    check_accountant,
)


class _Holder(BaseEstimator):
    def __init__(self, epsilon=1.0, accountant=None):
        self.epsilon = epsilon
        self.accountant = accountant


def test_storage_implements_the_protocol(make_accountant):
    assert isinstance(make_accountant()._storage, LedgerStorage)


def test_spend_and_totals_basic_composition(make_accountant):
    acc = make_accountant(epsilon=1.0, delta=1e-5)
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


def test_budget_error_names_what_is_over_and_what_is_left(make_accountant):
    acc = make_accountant(epsilon=2.5, delta=1e-6)
    acc.spend(1.0, 0.0)
    with pytest.raises(BudgetError, match=r"in delta; left: \(epsilon=1\.5, delta=1e-06\)\. "
                                          r"Lower the estimator's delta "):
        acc.spend(1.0, 1e-5)  # epsilon fits: only delta is over


def test_certified_and_not_certified_are_recorded_and_both_count(make_accountant):
    acc = make_accountant(epsilon=1.0)
    acc.spend(0.25, 0.0, label="exact")
    acc.spend(0.5, 0.0, label="seeded", certified=False)
    charge(acc, 0.125, 0.0, "heuristic", certified=False)
    assert [r.certified for r in acc.ledger] == [True, False, False]
    totals = acc.totals()
    assert isinstance(totals, LedgerTotals)
    assert totals.total == (0.875, 0.0) == acc.spent  # spent counts everything
    assert acc.spent_not_certified == (0.625, 0.0) == totals.not_certified
    assert totals.certified == (0.25, 0.0)
    assert (totals.n_spends, totals.n_not_certified) == (3, 2)
    with pytest.raises(BudgetError):  # not-certified spends use up the budget too
        acc.spend(0.25, 0.0)
    assert "2 not certified" in repr(acc)


def test_certified_must_be_a_bool(make_accountant):
    acc = make_accountant()
    with pytest.raises(TypeError, match="certified"):
        acc.spend(0.1, certified="no")
    acc.spend(0.1, certified=np.bool_(False))
    assert acc.ledger[0].certified is False and len(acc) == 1


def test_check_refuses_without_recording(make_accountant):
    acc = make_accountant(epsilon=1.0, delta=0.0)
    acc.check(1.0, 0.0)
    with pytest.raises(BudgetError):
        acc.check(1.01, 0.0)
    with pytest.raises(BudgetError):
        acc.check(0.5, 1e-9)  # delta budget 0
    assert len(acc) == 0


def test_remaining_split(make_accountant):
    acc = make_accountant(epsilon=2.0, delta=1e-4)
    acc.spend(1.0, 0.0)
    rem = acc.remaining(k=4)
    # a budget left, not an amount spent: its own type, not PrivacySpent
    assert isinstance(rem, RemainingBudget) and not isinstance(rem, PrivacySpent)
    assert "left per release" in str(rem)
    assert rem.epsilon == pytest.approx(0.25)
    assert rem.delta == pytest.approx(2.5e-5)
    with pytest.raises(ValueError, match="k must be"):
        acc.remaining(0)


def test_default_budget_is_unlimited_and_repr_shows_only_what_was_set(make_accountant):
    acc = make_accountant()
    assert acc.delta is None and acc.remaining() == (np.inf, np.inf)
    for _ in range(3):
        acc.spend(1e6, 0.9)  # deltas summing past 1: recorded, never refused
    assert len(acc) == 3
    assert "delta=" not in repr(acc).split(";")[0]


def test_a_non_private_release_is_recorded_apart_and_never_refused(backend):
    kind, location = backend
    acc = BudgetAccountant(1.0, 0.0, **location)
    acc.spend(1.0, 0.0, label="exact")  # the budget is used up
    charge_not_private(acc, "Tree", reason="its thresholds are row values")
    charge_not_private(None, "Tree", reason="no ledger: nothing to record")
    assert len(acc) == 2 and acc.ledger[-1].private is False
    assert acc.ledger[-1].label == "Tree (not private: its thresholds are row values)"
    assert acc.ledger[-1][1:3] == (0.0, 0.0) and acc.ledger[-1].certified is False
    # the headline pair is the private releases' only; the count says what it omits
    epsilon, delta = acc.spent
    assert (epsilon, delta) == (1.0, 0.0) and acc.spent.n_not_private == 1
    assert isinstance(acc.spent, LedgerSpent) and acc.spent == PrivacySpent(1.0, 0.0)
    assert pickle.loads(pickle.dumps(acc.spent)).n_not_private == 1
    assert str(acc.spent) == "(1, 0)-DP, and 1 release with no DP guarantee"
    assert repr(acc.spent) == "LedgerSpent(epsilon=1.0, delta=0.0, n_not_private=1)"
    totals = acc.totals()
    assert (totals.n_spends, totals.n_not_certified, totals.n_not_private) == (2, 1, 1)
    assert totals.not_certified == (0.0, 0.0)
    assert acc.remaining() == (0.0, 0.0) and acc.remaining().n_not_private == 1
    assert str(acc.remaining()).endswith("; 1 release with no DP guarantee recorded")
    assert repr(acc).endswith("spent (1, 0)-DP in 2 releases, 1 not certified, 1 not private)")
    with pytest.raises(BudgetError):  # private releases still meet the budget
        acc.spend(1e-3, 0.0)
    if kind != "memory":  # stored: another handle reads the same counts
        again = BudgetAccountant(1.0, 0.0, **location)
        assert again.spent.n_not_private == 1 and again.ledger[-1].private is False


def test_a_non_private_release_needs_a_reason(make_accountant):
    acc = make_accountant()
    for reason in (None, "", "  ", 3):
        with pytest.raises(ValueError, match="reason must be a non-empty str"):
            charge_not_private(acc, "Tree", reason)
    assert len(acc) == 0


def test_no_summary_prints_inf_for_an_unlimited_budget(make_accountant):
    acc = make_accountant(epsilon=3.0)  # delta unlimited
    assert acc.remaining() == (3.0, np.inf)  # the numbers keep inf
    assert str(acc.remaining()) == "(epsilon 3, delta unlimited) left per release"
    assert str(BudgetAccountant().remaining()) == (
        "(epsilon unlimited, delta unlimited) left per release")
    with pytest.raises(BudgetError) as refused:
        acc.spend(4.0, 0.5)
    assert "inf" not in str(refused.value) and "delta=unlimited" in str(refused.value)
    assert "inf" not in str(acc.spent) + repr(acc).split(";")[1]


def test_repr_of_a_set_delta():
    assert "delta=1e-05" in repr(BudgetAccountant(1.0, 1e-5))
    assert repr(BudgetAccountant()).startswith("BudgetAccountant(epsilon=inf;")


def test_clone_and_deepcopy_keep_the_same_ledger(make_accountant):
    acc = make_accountant()
    est = _Holder(accountant=acc)
    assert clone(est).accountant is acc
    assert copy.deepcopy(est).accountant is acc
    assert copy.copy(acc) is acc
    assert pickle.loads(pickle.dumps(acc)) is acc
    clone(est).accountant.spend(0.5, 0.0, label="via clone")
    assert acc.spent.epsilon == pytest.approx(0.5)


def test_reopening_sees_the_records_and_refuses_another_budget(shared_backend):
    _, location = shared_backend
    BudgetAccountant(1.0, **location).spend(0.5, label="first", certified=False)
    reopened = BudgetAccountant(1.0, **location)
    assert [(r.label, r.certified) for r in reopened.ledger] == [("first", False)]
    with pytest.raises(ValueError, match="same budget"):
        BudgetAccountant(2.0, **location)
    with pytest.raises(ValueError, match="same budget"):
        BudgetAccountant(1.0, 1e-5, **location)


def test_a_ledger_opened_with_no_budget_is_read_and_refuses_to_spend(shared_backend):
    _, location = shared_backend
    BudgetAccountant(3.0, 1e-5, **location).spend(0.5, label="first")
    reader = BudgetAccountant(**location)  # only to read what was spent
    assert (reader.epsilon, reader.delta, reader.spent) == (3.0, 1e-5, (0.5, 0.0))
    assert reader.remaining() == (2.5, 1e-5) and "read only" in repr(reader)
    for handle in (reader, pickle.loads(pickle.dumps(reader))):
        for spend in (lambda: handle.spend(0.1), lambda: handle.check(0.1),
                      lambda: handle.record_not_private("x", "row values"),
                      handle.check_can_record):
            with pytest.raises(BudgetError, match=r"BudgetAccountant\(epsilon=3.0, delta=1e-05, "):
                spend()
    assert len(reader) == 1
    # unpickled once the handle is gone (a worker, a later process): still read only
    blob = pickle.dumps(reader)
    del reader, handle, spend
    gc.collect()
    with pytest.raises(BudgetError, match="only reads it"):
        pickle.loads(blob).spend(0.1)


def test_a_ledger_that_cannot_record_a_refusal_refuses_before_it(tmp_path):
    # a read-only handle raised its BudgetError while recording a row-dependent refusal
    # (PerturbedERMClassifier, classes='data', one label in y): the refusal rode along
    # unrecorded as the error's __context__ (found by review6)
    from sksmooth.accounting._ledger import refusal_recorded

    BudgetAccountant(1.0, path=tmp_path / "l.sqlite")
    reader = BudgetAccountant(path=tmp_path / "l.sqlite")
    with pytest.raises(BudgetError, match="only reads") as refused:
        with refusal_recorded(reader, "x", "the label set was read from the rows"):
            raise ValueError("y holds only the label 1234567")
    assert refused.value.__context__ is None and len(reader) == 0


def test_a_ledger_created_with_no_budget_warns_that_it_is_new_and_unlimited(shared_backend):
    # a mistyped path opened only to read silently created an empty unlimited ledger
    _, location = shared_backend
    with pytest.warns(DefaultsWarning, match="created a new, empty ledger.*never refuses"):
        BudgetAccountant(**location)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert BudgetAccountant(**location).spent == (0.0, 0.0)  # opening it again: silent


def test_a_spend_shows_its_time_in_utc_and_keeps_the_number():
    from sksmooth.accounting import Spend

    record = Spend("x", 1.0, 0.0, 86400.5, 1)
    assert "time=1970-01-02 00:00:00 UTC" in repr(record) and record.time == 86400.5


@pytest.mark.expensive
def test_unpickle_in_fresh_process_reaches_the_ledger(backend, tmp_path):
    kind, location = backend
    acc = BudgetAccountant(5.0, **location)
    acc.spend(0.75, 0.0, label="a")
    blob = tmp_path / "acc.pkl"
    blob.write_bytes(pickle.dumps(acc))
    code = textwrap.dedent(
        f"""
        import pickle
        from sksmooth.accounting import CrossProcessLedgerError
        acc = pickle.loads(open({str(blob)!r}, 'rb').read())
        try:
            acc.spend(0.5, label="b")
            outcome = "recorded"
        except CrossProcessLedgerError:
            outcome = "refused"
        print(acc.spent.epsilon, len(acc), outcome)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        env={"PYTHONPATH": ":".join(sys.path)},
    ).stdout.split()
    if kind == "memory":  # a snapshot: readable, but spending there would be lost
        assert out == ["0.75", "1", "refused"] and len(acc) == 1
    else:
        assert out == ["1.25", "2", "recorded"]
        assert [r.label for r in acc.ledger] == ["a", "b"]


def test_unpickled_memory_ledger_whose_owner_is_gone_refuses_to_spend():
    # a checkpoint of an in-memory ledger, unpickled once the live ledger was gone (in
    # this process, or in a new one with the same pid: PID 1 in a container), became a
    # writable ledger missing every later spend: a third 0.5 was accepted on a budget of
    # 1.0 already spent (found by a review)
    import gc

    from sksmooth.accounting import CrossProcessLedgerError

    acc = BudgetAccountant(1.0)
    acc.spend(0.5, label="first")
    checkpoint = pickle.dumps(acc)
    acc.spend(0.5, label="second")
    del acc
    gc.collect()
    restored = pickle.loads(checkpoint)
    assert restored.spent.epsilon == 0.5  # readable: a snapshot
    for charge_it in (lambda: restored.spend(0.5, label="third"),
                      lambda: restored.check(0.5), restored.check_can_record):
        with pytest.raises(CrossProcessLedgerError, match="snapshot"):
            charge_it()
    assert len(restored) == 1


@pytest.mark.parametrize(
    "eps, delta, err",
    [(0.0, 0.0, ValueError), (-1.0, 0.0, ValueError), (0.1, 1.0, ValueError),
     (np.inf, 0.0, ValueError), (None, 0.0, TypeError), (np.nan, 0.0, TypeError),
     (0.1, np.nan, TypeError), ("0.1", 0.0, TypeError)],
)
def test_bad_spend_records_nothing(make_accountant, eps, delta, err):
    acc = make_accountant()
    with pytest.raises(err):
        acc.spend(eps, delta)
    assert len(acc) == 0


def test_extreme_but_legal_spends(make_accountant):
    acc = make_accountant(epsilon=1e-300, delta=1e-300)
    with pytest.raises(BudgetError):
        acc.spend(1e300, 0.0)
    acc.spend(1e-300, 1e-300)
    with pytest.raises(BudgetError):
        acc.spend(1e-300, 0.0)


def test_totals_that_overflow_stay_usable(make_accountant, recwarn):
    acc = make_accountant()  # unlimited: records without refusing
    acc.spend(1e308)
    acc.spend(1e308)  # the float total overflows
    assert acc.spent.epsilon == np.inf and len(acc) == 2
    assert acc.remaining() == (np.inf, np.inf)
    acc.spend(1.0)
    assert len(acc) == 3 and not recwarn.list


def test_charge_and_check_accountant(make_accountant):
    charge(None, 1.0, 0.0, "noop")  # no accountant: nothing happens
    acc = make_accountant(epsilon=1.0)
    charge(acc, 0.3, 0.0, "Est")
    assert acc.ledger[0].label == "Est" and acc.ledger[0].certified
    with pytest.raises(TypeError, match="BudgetAccountant"):
        check_accountant({"epsilon": 1})
    with pytest.raises(BudgetError):
        charge(acc, 0.8, 0.0, "Est")


def test_zero_delta_budget_refuses_any_positive_delta(make_accountant):
    # a pure-DP budget must never accept an approximate-DP release, however small
    acc = make_accountant(epsilon=1.0, delta=0.0)
    with pytest.raises(BudgetError):
        acc.check(0.5, 1e-16)
    with pytest.raises(BudgetError):
        acc.spend(0.5, 1e-16)
    assert len(acc) == 0
    acc.spend(0.5, 0.0)
    assert acc.spent == (0.5, 0.0)


# what restoring an older copy of the ledger does: the later spends are gone
DELETE_LATER_SPENDS = "DELETE FROM spends WHERE id > (SELECT MIN(id) FROM spends)"


def _replace_ledger(kind, location, ledger_sql, epsilon):
    """Delete the ledger and create a new one at the same place (a re-run script)."""
    if kind == "sqlite":
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(location["path"] + suffix):
                os.remove(location["path"] + suffix)
    else:
        ledger_sql("DROP TABLE spends, budget")
    return BudgetAccountant(epsilon, **location)


def test_a_rolled_back_ledger_is_refused_by_every_handle_that_saw_later_spends(
        shared_backend, ledger_sql):
    # a handle went on charging a ledger restored from an older copy, and reported the
    # older total: 1.75 spent against a budget of 1.0 (found by a review)
    from sksmooth.accounting import LedgerIntegrityError

    _, location = shared_backend
    acc = BudgetAccountant(1.0, **location)
    acc.spend(0.1, label="first")
    worker_copy = pickle.loads(pickle.dumps(acc._storage))  # what a worker receives
    acc.spend(0.85, label="second")
    ledger_sql(DELETE_LATER_SPENDS)
    with pytest.raises(LedgerIntegrityError, match="rolled back"):
        acc.spend(0.8, label="third")
    with pytest.raises(LedgerIntegrityError, match="rolled back"):
        acc.spent
    assert [r.label for r in BudgetAccountant(1.0, **location).ledger] == ["first"]
    # a copy pickled before the second spend saw one spend only: the ledger holds one
    assert worker_copy.totals().n_spends == 1


def test_a_replaced_ledger_is_refused_by_the_handles_of_the_old_one(shared_backend,
                                                                    ledger_sql):
    # a worker's handle on a ledger deleted and created again (budget 1000) charged the
    # new ledger with the old budget; the owner's SQLite connection went on charging
    # the deleted file (found by a review)
    from sksmooth.accounting import LedgerIntegrityError
    from sksmooth.accounting._backends import Spend

    kind, location = shared_backend
    acc = BudgetAccountant(1.0, **location)
    acc.spend(0.9, label="old")
    worker_copy = pickle.loads(pickle.dumps(acc._storage))
    new = _replace_ledger(kind, location, ledger_sql, 1000.0)
    with pytest.raises(LedgerIntegrityError, match="replaced|rolled back"):
        acc.spend(0.05, label="owner")
    with pytest.raises(LedgerIntegrityError, match="replaced|rolled back"):
        worker_copy.append_if_within_budget(Spend("worker", 0.05, 0.0, 0.0, 1), acc.budget)
    new.spend(1.0, label="new")  # the new ledger's own handles work
    assert [r.label for r in new.ledger] == ["new"]


def test_the_integrity_audit_catches_a_driver_that_forgets_what_it_saw(
        shared_backend, ledger_sql, monkeypatch):
    from sksmooth.accounting._backends import _sql

    def forgetful(self, execute, placeholder, totals_query, where, lock=""):
        return _sql.totals_from_row(execute(totals_query).fetchone())

    monkeypatch.setattr(_sql.LedgerWitness, "before_append", forgetful)
    monkeypatch.setattr(_sql.LedgerWitness, "saw_totals", lambda self, totals, where: totals)
    _, location = shared_backend
    acc = BudgetAccountant(1.0, **location)
    acc.spend(0.1, label="first")
    acc.spend(0.85, label="second")
    ledger_sql(DELETE_LATER_SPENDS)
    acc.spend(0.8, label="third")  # the overspend the test above refuses
    assert acc.spent.epsilon == pytest.approx(0.9)  # 1.75 borne by the data


def test_an_add_remove_release_is_charged_as_substitution_by_group_privacy(backend):
    # one ledger added AIM's add/remove epsilon to the substitution epsilons of the
    # other estimators: a total valid under neither relation (found by two reviews)
    import math

    _, location = backend
    acc = BudgetAccountant(10.0, 1e-6, **location)
    acc.spend(1.0, 1e-9, label="AIM", neighbouring="add_remove")
    acc.spend(0.5, 0.0, label="SmoothMWEM", neighbouring="substitution")
    first = acc.ledger[0]
    assert first.epsilon == 2.0 and first.delta == pytest.approx((1 + math.e) * 1e-9)
    assert "add/remove (1, 1e-09)-DP, charged as substitution" in first.label
    assert acc.spent.epsilon == 2.5
    with pytest.raises(BudgetError, match="under addition/removal.*charged as"):
        acc.check(4.0, 0.0, neighbouring="add_remove")  # 8 more would exceed 10
    acc.check(4.0, 0.0)  # the ledger's own relation: 4 fits


def test_an_add_remove_ledger_refuses_substitution_releases_before_any_data(backend):
    from sksmooth import AdaptiveMarginalSynthesizer, PrivateProperClassifier

    _, location = backend
    acc = BudgetAccountant(10.0, 1e-6, neighbouring="add_remove", **location)
    X = np.random.default_rng(0).integers(0, 3, size=(200, 3))
    AdaptiveMarginalSynthesizer(levels=3, epsilon=1.0, accountant=acc).fit(X)
    assert acc.spent.epsilon == 1.0  # AIM's own relation: charged as claimed
    # it publishes n (n_samples_seen_), which addition/removal does not protect: charged
    # under substitution whatever its calibration, so refused here, with the fix that
    # applies (its own neighbouring parameter does not help; a review)
    for neighbouring in ("substitution", "add_remove"):
        with pytest.raises(ValueError, match="n_samples_seen_.*neighbouring='substitution'"):
            PrivateProperClassifier(bounds=(0, 3), classes=[0, 1], neighbouring=neighbouring,
                                    epsilon=1.0, accountant=acc).fit(X, X[:, 0] % 2)
    assert len(acc) == 1 and acc.spent.epsilon == 1.0
    if location:  # a file or server ledger keeps its relation
        with pytest.raises(ValueError, match="neighbouring='add_remove'"):
            BudgetAccountant(10.0, 1e-6, **location)
        assert BudgetAccountant(10.0, 1e-6, neighbouring="add_remove", **location).spent == (
            acc.spent)
    assert pickle.loads(pickle.dumps(acc)).neighbouring == "add_remove"


def test_aim_on_a_default_ledger_is_charged_its_substitution_cost():
    from sksmooth import AdaptiveMarginalSynthesizer

    X = np.random.default_rng(0).integers(0, 3, size=(200, 3))
    acc = BudgetAccountant(2.5)
    synth = AdaptiveMarginalSynthesizer(levels=3, epsilon=1.0, accountant=acc).fit(X)
    assert synth.privacy_spent_.epsilon == 1.0  # its own claim, under add/remove
    assert acc.spent.epsilon == 2.0
    with pytest.raises(BudgetError, match="neighbouring='add_remove'"):
        AdaptiveMarginalSynthesizer(levels=3, epsilon=1.0, accountant=acc).fit(X)
    AdaptiveMarginalSynthesizer(levels=3, epsilon=0.5, neighbouring="substitution",
                                accountant=acc).fit(X)
    assert acc.spent.epsilon == 2.5


def _restore_file(path, backup):
    import shutil

    for suffix in ("-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    shutil.copy(backup, path + ".tmp")
    os.replace(path + ".tmp", path)


def test_a_rollback_refilled_by_other_handles_is_still_refused(tmp_path):
    # the handle compared spend counts only: restored to a copy holding 1 of its 3
    # spends, then refilled by another handle with 2, the ledger counted 1.0 while 1.5
    # was released (found by a review of the witness)
    import shutil
    import sqlite3

    from sksmooth.accounting import LedgerIntegrityError

    path = str(tmp_path / "ledger.sqlite")
    a = BudgetAccountant(epsilon=1.0, path=path)
    a.spend(0.25, label="a1")
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA wal_checkpoint(FULL)")
    shutil.copy(path, path + ".bak")
    a.spend(0.25, label="a2")
    a.spend(0.25, label="a3")
    _restore_file(path, path + ".bak")
    b = BudgetAccountant(epsilon=1.0, path=path)  # the next job
    b.spend(0.25, label="b1")
    b.spend(0.25, label="b2")
    with pytest.raises(LedgerIntegrityError, match="last spend this handle appended"):
        a.spend(0.25, label="a4")


def test_threads_sharing_a_server_handle_see_no_false_rollback(postgres_url, monkeypatch):
    # the server driver counted its own spend after releasing its lock: a thread's spend
    # landing in between made the count overshoot, and a false LedgerIntegrityError
    # followed (found by a review of the witness); a pause after each transaction, outside
    # the lock, makes that interleaving happen every time
    import threading
    import time

    from sksmooth.accounting._backends import PostgresStorage

    run = PostgresStorage._run

    def run_then_pause(self, *args, **kwargs):
        result = run(self, *args, **kwargs)
        time.sleep(0.005)
        return result

    monkeypatch.setattr(PostgresStorage, "_run", run_then_pause)
    acc = BudgetAccountant(1.0, url=postgres_url)
    errors = []

    def spend_many():
        for _ in range(20):
            try:
                acc.spend(0.001, label="t")
            except BudgetError as exc:
                errors.append(exc)
                return

    threads = [threading.Thread(target=spend_many) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(acc) == 80


def test_an_add_remove_release_whose_substitution_delta_reaches_one_is_refused():
    acc = BudgetAccountant()
    with pytest.raises(BudgetError, match=r"no guarantee \(delta >= 1\)"):
        acc.spend(5.0, 0.01, neighbouring="add_remove")  # (1 + e^5) 0.01 = 1.49
    assert len(acc) == 0

"""A refit that fails leaves no usable model and nothing of the previous fit
(sksmooth._atomic.forget_fit; charge first, then publish).

For each estimator: fit once, then refit with (a) a ledger that refuses the
charge (at charge time, as when a concurrent spender wins the race after the
pre-check) or (b) bad input. Afterwards ``predict`` must raise
NotFittedError and the estimator must hold exactly the attributes that the
same failing fit leaves on a fresh clone (nothing stale from the first fit).
"""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from sksmooth import (BudgetAccountant, BudgetError, PerturbedERMClassifier,
                      PrivateProperClassifier, SmoothHedgeClassifier)
from sksmooth.model_selection import PrivateSearchCV
from sksmooth.perturbed import StumpERMClassifier

import sksmooth.accounting._ledger as ledger_module

rng = np.random.default_rng(0)
X = rng.random((60, 2))
y = (X[:, 0] > 0.5).astype(int)


def _proper(accountant=None):
    return PrivateProperClassifier(hypotheses="stumps", bounds=(0, 1), classes=[0, 1],
                                   accountant=accountant)


def _estimators():
    return {
        "PrivateProper": lambda acc: _proper(acc),
        "PerturbedERM": lambda acc: PerturbedERMClassifier(
            StumpERMClassifier(3), epsilon=1.0, bounds=(0, 1), classes=[0, 1],
            accountant=acc),
        "PrivateSearchCV": lambda acc: PrivateSearchCV(
            _proper(), {"epsilon": [0.5, 1.0]}, epsilon_selection=0.5, cv=2, accountant=acc),
        "SmoothHedge": lambda acc: SmoothHedgeClassifier(hypotheses="stumps", bounds=(0, 1)),
    }


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


def _refuse_charges(monkeypatch):
    def refuse(*args, **kwargs):
        raise BudgetError("budget exhausted by a concurrent release")

    for module in _charging_modules():
        monkeypatch.setattr(module, "charge", refuse)


def _charging_modules():
    import sksmooth.model_selection._search as search
    return (search, ledger_module)


def _failing_fit(estimator, failure, monkeypatch):
    if failure == "ledger":
        with monkeypatch.context() as patch:
            _refuse_charges(patch)
            with pytest.raises(BudgetError):
                _quiet(lambda: estimator.fit(X, y))
    else:
        with pytest.raises(ValueError):
            _quiet(lambda: estimator.fit(X, y[:-3]))  # y shorter than X


# SmoothHedgeClassifier releases nothing private: no ledger to refuse.
# PrivateProper failed both before the fix: its fit was one atomic update,
# so a failure restored the previous model (and _classes_inferred, _seeded
# survived forget_fit).
@pytest.mark.parametrize("name, failure", [
    (name, failure) for name in sorted(_estimators()) for failure in ("ledger", "bad_input")
    if (name, failure) != ("SmoothHedge", "ledger")])
def test_a_failed_refit_leaves_no_model_and_nothing_stale(name, failure, monkeypatch):
    make = _estimators()[name]
    estimator = make(BudgetAccountant())
    _quiet(lambda: estimator.fit(X, y))
    estimator.predict(X)
    _failing_fit(estimator, failure, monkeypatch)
    with pytest.raises(NotFittedError):
        estimator.predict(X)
    fresh = clone(estimator)
    _failing_fit(fresh, failure, monkeypatch)
    assert sorted(vars(estimator)) == sorted(vars(fresh))

"""Audit cases of PrivateSearchCV for the ``sksmooth audit`` catalog.

The tight pair: two 0-DP constant candidates on held-out counts (10, 11)
against (11, 10), where permute-and-flip's privacy loss is
``ln(2 e^{eps/2} - 1)`` (0.83 at eps = 1).
"""

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from .._guarantee import Guarantee, PrivacySpent
from ..exceptions import PrivacyLeakWarning
from ..mechanisms._audit_cases import overspending
from ..metrics import AuditCase, audit_epsilon
from ._search import PrivateSearchCV

__all__ = ["ConstantCandidate", "private_search_audit_cases", "selection_audit"]


class ConstantCandidate(ClassifierMixin, BaseEstimator):
    """Predicts ``label`` without reading the data: a 0-DP candidate."""

    def __init__(self, *, label=0, accountant=None):
        self.label = label
        self.accountant = accountant

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        self.privacy_spent_ = PrivacySpent(0.0, 0.0)
        self.guarantee_ = Guarantee("(0, 0)-DP", "reads no data", True)
        return self

    def predict(self, X):
        return np.full(len(X), self.label)


def _labels(n_ones, n=21):
    return np.full((n, 1), 0.5), np.r_[np.ones(n_ones, int), np.zeros(n - n_ones, int)]


def selection_audit(n_trials, random_state, epsilon_selection=1.0, overspend=1.0):
    """Audit the selection of PrivateSearchCV on its tight pair (module docstring);
    ``overspend``: the search selects at that multiple of the epsilon it charges."""

    def search(data, rng):
        with warnings.catch_warnings():
            # each trial seeds the search from the audit's own stream
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            fitted = PrivateSearchCV(
                ConstantCandidate(), {"label": [0, 1]}, epsilon_selection=epsilon_selection,
                cv=3, refit=False, random_state=rng,
            ).fit(*data)
        return fitted.best_index_

    with overspending(overspend):
        return audit_epsilon(search, _labels(11), _labels(10), lambda index: index == 1,
                             n_trials, random_state=random_state)


def private_search_audit_cases():
    """The PrivateSearchCV cases (append to the catalog of ``sksmooth audit``)."""
    return [AuditCase(
        "PrivateSearchCV selection, 2 zero-cost candidates, counts 10/11 vs 11/10 (eps=1)",
        1.0, 0.0, lambda n_trials, random_state: selection_audit(n_trials, random_state),
        3_000, min_fraction=0.6,
        run_overspent=lambda factor, n_trials, random_state: selection_audit(
            n_trials, random_state, overspend=factor),
    )]

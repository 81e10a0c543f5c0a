"""validated_params: the table is checked again only when a parameter changed."""

import numpy as np
import pytest

import sksmooth._constraints as constraints
from sksmooth.online import SmoothHedgeClassifier


def _counting(monkeypatch):
    calls = []
    original = constraints.validate_params

    def counting(estimator, table=None):
        calls.append(type(estimator).__name__)
        return original(estimator, table)

    monkeypatch.setattr(constraints, "validate_params", counting)
    return calls


def test_unchanged_parameters_are_checked_once(monkeypatch):
    calls = _counting(monkeypatch)
    X = np.random.default_rng(0).random((40, 2))
    y = (X[:, 0] > 0.5).astype(int)
    clf = SmoothHedgeClassifier(bounds=[0.0, 1.0])
    for a in range(0, 40, 10):
        clf.partial_fit(X[a:a + 10], y[a:a + 10], classes=[0, 1])
    assert len(calls) == 1


def test_a_changed_parameter_is_checked_again(monkeypatch):
    calls = _counting(monkeypatch)
    X = np.random.default_rng(0).random((30, 2))
    y = (X[:, 0] > 0.5).astype(int)
    bounds = [0.0, 1.0]
    clf = SmoothHedgeClassifier(bounds=bounds).partial_fit(X[:10], y[:10], classes=[0, 1])
    clf.set_params(sigma=-1.0)
    with pytest.raises(ValueError, match="sigma"):
        clf.partial_fit(X[10:20], y[10:20])
    clf.set_params(sigma="auto")
    bounds[1] = float("nan")  # changed in place: same object, new content
    with pytest.raises(ValueError, match="bounds"):
        clf.partial_fit(X[10:20], y[10:20])
    assert len(calls) == 3
    bounds[1] = 1.0
    clf.partial_fit(X[10:20], y[10:20])
    assert clf.n_rounds_ == 20

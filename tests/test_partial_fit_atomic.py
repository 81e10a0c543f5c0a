"""A failed ``partial_fit`` leaves the estimator EXACTLY as it was (CONTRACT).

For every estimator with ``partial_fit`` we deep-snapshot ``__dict__`` (numpy
arrays, random generators, nested dicts, lists and objects included), make a
call that must fail, and compare attribute by attribute, both on the first
call (nothing may be set) and after a successful call (nothing may change);
then check that the estimator carries on exactly like an untouched copy.
"""

import copy
import warnings

import numpy as np
import pytest

from sksmooth.online import SmoothHedgeClassifier
from sksmooth.perturbed import PerturbedERMClassifier, StumpERMClassifier
from sksmooth.proper import PrivateProperClassifier
from sksmooth.release import AdaptiveMarginalSynthesizer, MWEM


def _diff(a, b, path="self", seen=None):
    """Return a list of human-readable differences between ``a`` and ``b``."""
    seen = set() if seen is None else seen
    if type(a) is not type(b):
        return [f"{path}: type {type(a).__name__} -> {type(b).__name__}"]
    if isinstance(a, np.ndarray):
        if a.dtype != b.dtype or a.shape != b.shape:
            return [f"{path}: array {a.dtype}{a.shape} -> {b.dtype}{b.shape}"]
        same = (np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
                if a.dtype.kind != "O" else all(not _diff(x, y) for x, y in zip(a.flat, b.flat)))
        return [] if same else [f"{path}: array contents changed"]
    if isinstance(a, np.random.Generator):
        return _diff(a.bit_generator.state, b.bit_generator.state, f"{path}.state", seen)
    if isinstance(a, dict):
        if list(a) != list(b):
            return [f"{path}: keys {sorted(map(str, a))} -> {sorted(map(str, b))}"]
        out = []
        for k in a:
            out += _diff(a[k], b[k], f"{path}[{k!r}]", seen)
        return out
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return [f"{path}: length {len(a)} -> {len(b)}"]
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += _diff(x, y, f"{path}[{i}]", seen)
        return out
    if isinstance(a, (float, np.floating)):
        return [] if (a == b or (np.isnan(a) and np.isnan(b))) else [f"{path}: {a!r} -> {b!r}"]
    if isinstance(a, (str, bytes, int, bool, type(None), np.generic, type)):
        return [] if a == b else [f"{path}: {a!r} -> {b!r}"]
    if hasattr(a, "__dict__"):
        if id(b) in seen:
            return []
        seen.add(id(b))
        return _diff(vars(a), vars(b), f"{path}.{type(a).__name__}", seen)
    if hasattr(a, "__getstate__"):
        return _diff(a.__getstate__(), b.__getstate__(), path, seen)
    return [] if a == b else [f"{path}: {a!r} -> {b!r}"]


def _data(n=120, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = np.where(X[:, 0] > 0.5, "yes", "no")
    return X, y


ESTIMATORS = {
    "SmoothHedge-stumps": lambda: SmoothHedgeClassifier(
        hypotheses="stumps", bounds=(0.0, 1.0), random_state=0),
    "SmoothHedge-halfspaces": lambda: SmoothHedgeClassifier(
        hypotheses="halfspaces", horizon=300, bounds=(0.0, 1.0), max_experts=512, gamma=0.3,
        random_state=0),
    "PerturbedERM": lambda: PerturbedERMClassifier(
        StumpERMClassifier(n_thresholds=4), bounds=(0.0, 1.0), random_state=0),
    "PerturbedERM-labels": lambda: PerturbedERMClassifier(
        StumpERMClassifier(n_thresholds=4), online_perturbation="labels", bounds=(0.0, 1.0),
        random_state=0),
    "PerturbedERM-Generator": lambda: PerturbedERMClassifier(
        StumpERMClassifier(n_thresholds=4), bounds=(0.0, 1.0),
        random_state=np.random.default_rng(0)),
    "PrivateProper": lambda: PrivateProperClassifier(bounds=(0.0, 1.0), random_state=0),
}


def _nan(X, y):
    X = X.copy()
    X[3, 1] = np.nan
    return X, y


def _inf(X, y):
    X = X.copy()
    X[0, 0] = np.inf
    return X, y


BAD_BATCHES = {
    "wrong n_features": lambda X, y: (X[:, :2], y),
    "NaN in X": _nan,
    "inf in X": _inf,
    "unknown label": lambda X, y: (X, np.where(np.arange(len(y)) == 2, "maybe", y)),
    "three labels": lambda X, y: (X, np.array(["a", "b", "c"] * (len(y) // 3))),
    "continuous y": lambda X, y: (X, np.linspace(0, 1, len(y))),
    "y too short": lambda X, y: (X, y[:-1]),
    "2-D y": lambda X, y: (X, np.column_stack([y, y])),
    "3-D X": lambda X, y: (X[:, :, None], y),
    "string X": lambda X, y: (X.astype(str).astype(object) + "a", y),
    "empty X": lambda X, y: (X[:0], y[:0]),
}


# A private release maps rows by their values instead of refusing them (an
# error would depend on private values: sksmooth._untrusted), so these
# batches are not failures for it; tests/proper checks they are mapped.
MAPPED_BY_PRIVATE = {"NaN in X", "inf in X", "unknown label", "three labels", "continuous y",
                     "string X"}
PRIVATE_RELEASES = {"PrivateProper"}


def _refused(names, bads):
    return [pytest.param(name, bad, id=f"{name}-{bad}") for name in names for bad in bads
            if not (name in PRIVATE_RELEASES and bad in MAPPED_BY_PRIVATE)]


def _silent(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


@pytest.mark.parametrize("name,bad", _refused(ESTIMATORS, BAD_BATCHES))
def test_failed_partial_fit_changes_nothing(name, bad):
    X, y = _data()
    clf = ESTIMATORS[name]()
    # later call: nothing may change
    _silent(clf.partial_fit, X[:60], y[:60], classes=["no", "yes"])
    twin = copy.deepcopy(clf)
    before = copy.deepcopy(vars(clf))
    Xb, yb = BAD_BATCHES[bad](X[60:], y[60:])
    with pytest.raises((ValueError, TypeError)):
        _silent(clf.partial_fit, Xb, yb)
    assert _diff(before, vars(clf)) == []
    # and it carries on exactly like the untouched copy
    _silent(clf.partial_fit, X[60:], y[60:])
    _silent(twin.partial_fit, X[60:], y[60:])
    assert _diff(vars(twin), vars(clf)) == []
    np.testing.assert_array_equal(_silent(clf.predict, X), _silent(twin.predict, X))


@pytest.mark.parametrize(
    "name,bad", _refused(ESTIMATORS, [b for b in BAD_BATCHES if b != "wrong n_features"]))
def test_failed_first_partial_fit_sets_nothing(name, bad):
    X, y = _data()
    clf = ESTIMATORS[name]()
    before = copy.deepcopy(vars(clf))
    Xb, yb = BAD_BATCHES[bad](X, y)
    with pytest.raises((ValueError, TypeError)):
        _silent(clf.partial_fit, Xb, yb, classes=["no", "yes"])
    assert _diff(before, vars(clf)) == []


@pytest.mark.parametrize("name", list(ESTIMATORS), ids=list(ESTIMATORS))
def test_mismatched_classes_changes_nothing(name):
    X, y = _data()
    clf = ESTIMATORS[name]()
    _silent(clf.partial_fit, X[:60], y[:60], classes=["no", "yes"])
    before = copy.deepcopy(vars(clf))
    with pytest.raises(ValueError, match="classes"):
        _silent(clf.partial_fit, X[60:], y[60:], classes=["no", "si"])
    assert _diff(before, vars(clf)) == []


BAD_PARAMS = {
    "SmoothHedge-stumps": {"sigma": -1.0},
    "SmoothHedge-halfspaces": {"learning_rate": 0.0},
    "PerturbedERM": {"noise": -1.0},
    "PerturbedERM-labels": {"online_perturbation": "weights"},
    "PerturbedERM-Generator": {"noise": "big"},
    "PrivateProper": {"epsilon": -1.0},
}


@pytest.mark.parametrize("name", list(ESTIMATORS), ids=list(ESTIMATORS))
def test_bad_parameter_between_calls_changes_nothing(name):
    X, y = _data()
    clf = ESTIMATORS[name]()
    _silent(clf.partial_fit, X[:60], y[:60], classes=["no", "yes"])
    good = clf.get_params()
    before = copy.deepcopy(vars(clf))
    clf.set_params(**BAD_PARAMS[name])
    with pytest.raises((ValueError, TypeError), match=list(BAD_PARAMS[name])[0]):
        _silent(clf.partial_fit, X[60:], y[60:])
    clf.set_params(**{k: good[k] for k in BAD_PARAMS[name]})
    assert _diff(before, vars(clf)) == []


class _FailingOracle(StumpERMClassifier):
    """An exact oracle whose fit fails while the class attribute ``armed`` is set."""

    armed = False

    def _fit_pm1(self, X, y_pm1, weights):
        if _FailingOracle.armed:
            raise ValueError("oracle failure")
        return super()._fit_pm1(X, y_pm1, weights)


@pytest.mark.parametrize("second_batch", [20, 60], ids=["in-place", "regrow"])
@pytest.mark.parametrize("perturbation", ["hallucinated", "labels"])
def test_perturbed_erm_oracle_failure_mid_call_changes_nothing(perturbation, second_batch):
    # the failure happens after validation, inside the leader's refit (the
    # history buffer has room for the batch in the first case, not the second)
    X, y = _data()
    clf = PerturbedERMClassifier(_FailingOracle(n_thresholds=4), noise=1.0,
                                 online_perturbation=perturbation, bounds=(0.0, 1.0),
                                 random_state=0)
    _silent(clf.partial_fit, X[:30], y[:30], classes=["no", "yes"])
    before = copy.deepcopy(vars(clf))
    _FailingOracle.armed = True
    try:
        with pytest.raises(ValueError, match="oracle failure"):
            _silent(clf.partial_fit, X[30:30 + second_batch], y[30:30 + second_batch])
    finally:
        _FailingOracle.armed = False
    assert _diff(before, vars(clf)) == []


def _hypotheses_for_three_features():
    from sksmooth.classes import Stumps

    return Stumps().cover(n_features=3, bounds=(np.zeros(3), np.ones(3)), gamma=0.1,
                          max_size=100, random_state=0)


@pytest.mark.parametrize("make", [
    lambda g: PrivateProperClassifier(hypotheses=_hypotheses_for_three_features(),
                                      bounds=(0, 1), classes=[0, 1], random_state=g),
    lambda g: PerturbedERMClassifier(bounds=(0, 1), classes=[0, 1], random_state=g,
                                     separating_points=np.array([[2.0, 2.0]])),
], ids=["proper-wrong-width-class", "perturbed-points-off-the-box"])
def test_failed_partial_fit_leaves_the_users_generator_as_it_was(make):
    # both drew from the random_state Generator before a check that failed, so a
    # retry drew other numbers than a first call would (found by a review)
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(50, 2))
    y = (X[:, 0] > 0.5).astype(int)
    generator = np.random.default_rng(42)
    before = copy.deepcopy(generator.bit_generator.state)
    with pytest.raises(ValueError):
        _silent(make(generator).partial_fit, X, y)
    assert generator.bit_generator.state == before


@pytest.mark.parametrize("make, X, y", [
    (lambda: PrivateProperClassifier(bounds=(0, 1), classes=[0, 1]),
     np.random.default_rng(0).uniform(0, 1, (60, 2)), np.arange(60) % 2),
    (lambda: MWEM(bounds=(0, 1)),
     np.random.default_rng(0).uniform(0, 1, (60, 2)), None),
    (lambda: AdaptiveMarginalSynthesizer(levels=3),
     np.random.default_rng(0).integers(0, 3, (60, 2)), None),
])
def test_a_bad_parameter_at_fit_leaves_the_previous_fit_as_it_was(make, X, y):
    # the previous fit was forgotten before the parameters were validated, so
    # set_params(epsilon=0).fit(...) left an unfitted estimator (a review)
    import pickle

    est = make()
    est.fit(X) if y is None else est.fit(X, y)
    before = pickle.dumps(est.guarantee_)
    est.set_params(epsilon=0)
    with pytest.raises(ValueError, match="epsilon"):
        est.fit(X) if y is None else est.fit(X, y)
    assert pickle.dumps(est.guarantee_) == before
    if isinstance(est, PrivateProperClassifier):  # what its parameters alone refuse
        for bad in (dict(method="noisy_means", hypotheses="stumps"),
                    dict(hypotheses="prototypes")):
            est.set_params(**{"epsilon": 1.0, "method": "exponential", **bad})
            with pytest.raises(ValueError, match="hypotheses"):
                est.fit(X, y)
            assert pickle.dumps(est.guarantee_) == before


@pytest.mark.parametrize("name", [n for n in ESTIMATORS if n not in PRIVATE_RELEASES])
def test_a_text_column_is_named_with_the_fix_and_changes_nothing(name):
    # was scikit-learn's "could not convert string to float: 'hi'" (newcomer trial)
    import pandas as pd

    X, y = _data()
    frame = pd.DataFrame(X, columns=["a", "b", "city"])
    text = frame.assign(city=np.where(X[:, 2] > 0.5, "hi", "lo"))
    for first in (True, False):
        clf = ESTIMATORS[name]()
        if not first:
            _silent(clf.partial_fit, frame[:60], y[:60], classes=["no", "yes"])
        before = copy.deepcopy(vars(clf))
        with pytest.raises(ValueError, match=r"X column 'city' holds values that are not "
                                             r"numbers .* OneHotEncoder"):
            _silent(clf.partial_fit, text[60:], y[60:], classes=["no", "yes"])
        assert _diff(before, vars(clf)) == []


def test_the_rollback_snapshot_shares_read_only_arrays_and_copies_the_rest():
    # SmoothHedgeClassifier's classes_ and bounds_ were deep-copied on every call
    from sksmooth._atomic import _snapshot

    frozen, writeable = np.arange(3), np.arange(3)
    frozen.flags.writeable = False
    state = {"classes_": frozen, "bounds_": (frozen, writeable), "counts_": writeable}
    copied = _snapshot(state)
    assert copied["classes_"] is frozen and copied["bounds_"][0] is frozen
    assert copied["bounds_"][1] is not writeable and copied["counts_"] is not writeable
    assert copied["bounds_"][1] is copied["counts_"]  # one copy, as the state has one array
    model = SmoothHedgeClassifier(bounds=(0.0, 1.0)).partial_fit([[0.5]], [1], classes=[0, 1])
    with pytest.raises(ValueError):
        model.classes_[0] = 5  # read-only: what the snapshot shares cannot change

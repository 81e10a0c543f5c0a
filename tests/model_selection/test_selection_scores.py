"""PrivateSearchCV's selection scores have sensitivity exactly 1 as computed.

The exact permute-and-flip sampler reads the float scores as exact
rationals, so its pure epsilon-DP guarantee needs the *computed* scores of
neighbouring datasets to differ by at most 1 exactly. Summing arbitrary
float utilities in ``[0, 1]`` rounds: with utilities ``(0, 0.75 * 2^-52)``
the float sum is ``0.75 * 2^-52``, with the first row's utility changed to
1 it rounds up to ``1 + 2^-52``: a change of ``1 + 2^-54 > 1``.
"""

import warnings
from fractions import Fraction

import numpy as np
import pytest

from sklearn.base import BaseEstimator, ClassifierMixin

from sksmooth import _untrusted as untrusted
from sksmooth._guarantee import Guarantee, PrivacySpent
from sksmooth.accounting._ledger import charge
from sksmooth.model_selection import PrivateSearchCV
from sksmooth.model_selection import _search


class ConstantRelease(ClassifierMixin, BaseEstimator):
    """A data-independent (hence private) model that charges its epsilon."""

    def __init__(self, *, epsilon=1.0, accountant=None):
        self.epsilon = epsilon
        self.accountant = accountant

    def fit(self, X, y):
        charge(self.accountant, self.epsilon, 0.0, label="ConstantRelease")
        self.classes_ = np.array([0, 1])
        self.privacy_spent_ = PrivacySpent(self.epsilon, 0.0)
        self.guarantee_ = Guarantee(f"({self.epsilon}, 0)-DP", "no data used", True)
        return self

    def predict(self, X):
        return np.zeros(len(X), dtype=int)

TINY = 0.75 * 2.0 ** -52


def _selection_scores(X, y, monkeypatch, cv=2):
    """The score vector PrivateSearchCV hands to its selection sampler."""
    seen = []

    def record(scores, epsilon, sensitivity, rng):
        seen.append([Fraction(float(s)) for s in scores])
        return 0

    monkeypatch.setattr(_search, "rational_permute_and_flip", record)
    search = PrivateSearchCV(ConstantRelease(), {"epsilon": [1.0, 2.0]},
                             epsilon_selection=1.0, cv=cv, refit=False, random_state=0,
                             scoring=lambda est, X, y: X[:, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search.fit(X, y)
    (scores,) = seen
    return scores


@pytest.mark.parametrize("tiny", [TINY, 0.6 * 2.0 ** -52, 2.0 ** -52 - 2.0 ** -60])
@pytest.mark.parametrize("tiny_row", [1, 2])  # same held-out fold as row 0, or not
def test_neighbouring_scores_differ_by_at_most_one_exactly(monkeypatch, tiny, tiny_row):
    # failed before the utilities were put on a dyadic grid: the float sums
    # of (0, tiny) and (1, tiny) differ by more than 1
    y = np.array([0, 1, 0, 1])
    X = np.zeros((4, 1))
    X[tiny_row, 0] = tiny
    X_neighbour = X.copy()
    X_neighbour[0, 0] = 1.0
    here = _selection_scores(X, y, monkeypatch)
    there = _selection_scores(X_neighbour, y, monkeypatch)
    assert max(abs(a - b) for a, b in zip(here, there)) <= 1


def test_the_grid_changes_a_utility_by_less_than_its_step():
    values = np.array([0.0, TINY, 0.1, 1.0 / 3.0, 1.0 - 2.0 ** -53, 1.0])
    quantised = _search._row_utility(lambda e, X, y: values, None, None, np.zeros(6), 1000)
    assert np.all(np.abs(quantised - values) <= 2.0 ** -(52 - 10) / 2)  # 1000 < 2^10
    assert quantised[0] == 0.0 and quantised[-1] == 1.0 and quantised[2] == pytest.approx(0.1)


class ConstantTrue(ConstantRelease):
    def predict(self, X):
        return np.ones(len(X), dtype=bool)


def _accuracy_utilities(y):
    X = np.zeros((len(y), 1))
    return _search._row_utility("accuracy", ConstantTrue().fit(X, y), X, y, len(y))


def test_accuracy_of_a_label_list_moves_one_row_for_one_stray_label():
    # found by an attack review: the held-out labels went through np.asarray whole, so
    # one text label turned every True into the text "True": every row's accuracy fell
    # from 1 to 0 (the selection's sensitivity 1 broken)
    y = [True] * 10
    neighbour = y[:-1] + ["x"]
    assert (_accuracy_utilities(y) != _accuracy_utilities(neighbour)).sum() == 1


def test_accuracy_of_a_label_list_read_whole_is_caught(monkeypatch):
    monkeypatch.setattr(untrusted, "_as_labels", np.asarray)
    y = [True] * 10
    assert (_accuracy_utilities(y) != _accuracy_utilities(y[:-1] + ["x"])).sum() == 10


@pytest.mark.parametrize("stray", ["pd.NA", "sNaN", "array"])
def test_held_out_accuracy_of_a_label_that_does_not_compare_is_zero_not_an_error(stray):
    # found by an attack review: comparing predictions with pd.NA (one empty cell of a
    # 'boolean' or 'string' y read by read_csv(dtype_backend=...)), a signalling Decimal
    # NaN or an array label raised, after the folds had been charged
    import decimal

    pd = pytest.importorskip("pandas")
    odd = {"pd.NA": pd.NA, "sNaN": decimal.Decimal("sNaN"), "array": np.array([0, 1])}[stray]
    y = [True] * 10
    neighbour = y[:-1] + [odd]
    assert (_accuracy_utilities(y) != _accuracy_utilities(neighbour)).sum() == 1


def test_held_out_accuracy_of_a_column_vector_y_is_one_value_per_row():
    y = np.ones((10, 1), dtype=bool)
    assert _accuracy_utilities(y).shape == (10,)


def test_held_out_accuracy_compared_by_numpy_is_caught(monkeypatch):
    pd = pytest.importorskip("pandas")
    monkeypatch.setattr(_search, "labels_equal", lambda predicted, y: predicted == np.asarray(y))
    with pytest.raises(TypeError):
        _accuracy_utilities([True] * 9 + [pd.NA])

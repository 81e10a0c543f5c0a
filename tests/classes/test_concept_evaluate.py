"""evaluate() of every finite instance vs a naive per-concept loop."""

import numpy as np
import pytest

from sksmooth.classes import BoxConcepts, Boxes, StumpConcepts, Stumps


def _naive(concepts, X):
    return np.stack([_naive_one(concepts, j, X) for j in range(concepts.n_concepts)], 1)


def _naive_one(c, j, X):
    if isinstance(c, StumpConcepts):
        v = X[:, c.feature[j]]
        return v >= c.threshold[j] if c.sign[j] > 0 else v < c.threshold[j]
    if isinstance(c, BoxConcepts):
        return np.array([all(c.lower[j, f] <= x[f] <= c.upper[j, f] for f in range(len(x))) for x in X])
    raise AssertionError(type(c))


def _random_instances():
    rng = np.random.default_rng(3)
    yield Stumps().cover(bounds=(0.0, [1.0, 2.0, 3.0]), gamma=0.1), rng.uniform(-0.2, 3.2, (300, 3))
    yield Boxes().cover(bounds=([0, 0], [1, 1]), max_size=300), rng.uniform(-0.1, 1.1, (200, 2))
    K = 40
    lo = rng.uniform(0, 0.5, (K, 3))
    yield BoxConcepts(lo, lo + rng.uniform(0, 0.7, (K, 3))), rng.uniform(0, 1, (200, 3))
    grid = np.round(rng.uniform(0, 1, (50, 2)), 1)  # ties with thresholds
    yield StumpConcepts(rng.integers(0, 2, 30), np.round(rng.uniform(0, 1, 30), 1),
                        rng.choice([-1, 1], 30), 2), grid


@pytest.mark.parametrize("case", range(4))
def test_evaluate_matches_naive_loop(case):
    concepts, X = list(_random_instances())[case]
    expected = _naive(concepts, X)
    np.testing.assert_array_equal(concepts.evaluate(X), expected)
    np.testing.assert_array_equal(concepts.evaluate(X, chunk_size=7), expected)
    np.testing.assert_array_equal(concepts.evaluate_sign(X), np.where(expected, 1, -1))
    idx = np.array([3, 0, 3, concepts.n_concepts - 1])
    np.testing.assert_array_equal(concepts.subset(idx).evaluate(X), expected[:, idx])
    assert isinstance(concepts.describe(0), str)


def test_evaluate_bad_input():
    c = Stumps().cover(bounds=(0.0, 1.0), gamma=0.1, n_features=2)
    with pytest.raises(ValueError, match="X has 3 features"):
        c.evaluate(np.zeros((4, 3)))
    with pytest.raises(ValueError, match="2-D"):
        c.evaluate(np.zeros(4))
    with pytest.raises(ValueError, match="NaN"):
        c.evaluate(np.array([[0.0, np.nan]]))
    with pytest.raises(TypeError, match="numeric"):
        c.evaluate(np.array([["a", "b"]]))
    with pytest.raises(ValueError, match="chunk_size"):
        c.evaluate(np.zeros((4, 2)), chunk_size=0)
    with pytest.raises(IndexError):
        c.describe(10_000)
    with pytest.raises(IndexError):
        c.subset([10_000])
    with pytest.raises(ValueError, match="same length"):
        StumpConcepts([0, 1], [0.5], [1, 1], 2)
    with pytest.raises(ValueError, match="sign"):
        StumpConcepts([0], [0.5], [0], 2)
    with pytest.raises(ValueError, match="feature"):
        StumpConcepts([2], [0.5], [1], 2)

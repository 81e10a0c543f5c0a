"""Tests of the exact regret metric (sksmooth/metrics/_regret.py)."""

import numpy as np
import pytest

from sksmooth.metrics._regret import best_loss_in_hindsight, regret


def brute_force_best_stump(X, y):
    best = len(y)
    for f in range(X.shape[1]):
        for t in np.concatenate([[-np.inf], np.unique(X[:, f]), [np.inf]]):
            h = np.where(X[:, f] >= t, 1, -1)
            best = min(best, np.sum(h != y), np.sum(-h != y))
    return best


@pytest.mark.parametrize("seed", range(40))
def test_best_stump_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, d = rng.integers(1, 40), rng.integers(1, 4)
    X = rng.integers(0, 6, (n, d)).astype(float)  # many ties
    y = rng.choice([-1, 1], n)
    loss, best = best_loss_in_hindsight(X, y, "stumps")
    assert loss == brute_force_best_stump(X, y)
    h = best["sign"] * np.where(X[:, best["feature"]] >= best["threshold"], 1, -1)
    assert np.sum(h != y) == loss
    if d == 1:
        assert best_loss_in_hindsight(X, y, "thresholds")[0] == loss


def test_regret_counts_learner_mistakes():
    rng = np.random.default_rng(0)
    X = rng.random((500, 1))
    y = np.where(X[:, 0] > 0.3, "b", "a")
    y_pred = y.copy()
    y_pred[:17] = np.where(y_pred[:17] == "a", "b", "a")
    assert regret(y, y_pred, X) == 17
    value, best_loss, best = regret(y, y_pred, X, return_best=True)
    assert best_loss == 0 and 0.29 < best["threshold"] < 0.31
    assert regret(y, None, X, learner_loss=np.full(500, 0.1)) == pytest.approx(50)


def test_regret_against_finite_matrix_and_cover_object():
    rng = np.random.default_rng(1)
    X = rng.random((200, 2))
    y = np.where(X[:, 0] + X[:, 1] > 1, 1, -1)
    H = np.column_stack([np.where(X[:, 0] > 0.5, 1, -1), y, -y])
    assert best_loss_in_hindsight(X, y, H) == (0, {"index": 1})

    class Cover:
        def evaluate(self, Z):
            return np.column_stack([Z[:, 0] > 0.5, Z[:, 0] + Z[:, 1] > 1])

    assert best_loss_in_hindsight(X, y, Cover())[0] == 0
    assert regret(y, -y, X, Cover()) == 200


def test_negative_regret_possible_and_one_label():
    X = np.array([[0.0], [1.0], [2.0]])
    y = np.array([1, -1, 1])
    assert regret(y, y, X) == -1  # a learner outside the class beats every threshold
    assert best_loss_in_hindsight(X, np.array([-1, -1, -1]), "thresholds")[0] == 0


def test_sorting_path_is_fast_enough_for_long_streams():
    rng = np.random.default_rng(2)
    X = rng.random((200_000, 5))
    y = np.where(X[:, 2] > 0.7, 1, -1)
    loss, best = best_loss_in_hindsight(X, y, "stumps")
    assert loss == 0 and best["feature"] == 2


@pytest.mark.parametrize("call, match", [
    (lambda X, y: regret(y, y[:-1], X), "shape"),
    (lambda X, y: regret(np.array([0, 1, 2]), np.array([0, 1, 2]), X), "binary"),
    (lambda X, y: regret(y, y, np.column_stack([X, X])), "stumps"),
    (lambda X, y: regret(y, y, X, "halfspaces"), "finite"),
    (lambda X, y: regret(y, None, X), "learner_loss"),
    (lambda X, y: regret(y, y, np.array([[np.nan], [1.0], [2.0]])), "NaN"),
    (lambda X, y: regret(y, None, X, learner_loss=np.nan), "learner_loss .*NaN"),
    (lambda X, y: regret(y, None, X, learner_loss=[0.5, np.inf, 0.0]), "learner_loss .*NaN"),
    (lambda X, y: regret(y, None, X, learner_loss=[0.5, 0.5]), "learner_loss has 2"),
    (lambda X, y: regret(y, None, X, learner_loss=np.ones((3, 1))), "learner_loss must"),
])
def test_bad_input(call, match):
    X = np.array([[0.0], [1.0], [2.0]])
    y = np.array([1, -1, 1])
    with pytest.raises(ValueError, match=match):
        call(X, y)


def test_learner_loss_must_be_numeric():
    X = np.array([[0.0], [1.0], [2.0]])
    with pytest.raises(TypeError, match="learner_loss"):
        regret(np.array([1, -1, 1]), None, X, learner_loss="a")
    assert regret(np.array([1, -1, 1]), None, X, learner_loss=[0.5, 0.5, 1.0]) == 2.0 - 1


def test_labels_minus_one_and_zero_are_two_classes():
    # {-1, 0} is neither {-1, +1} nor {0, 1}: the larger label is +1, as for
    # any other pair (it used to read both labels as negative: best loss 0)
    X = np.array([[0.1], [0.4], [0.6], [0.9]])
    assert best_loss_in_hindsight(X, np.array([0, -1, 0, -1]))[0] == 1
    assert best_loss_in_hindsight(X, np.array([0, -1, 0, -1]))[0] == \
        best_loss_in_hindsight(X, np.array([1, 0, 1, 0]))[0]
    assert regret(np.array([0, -1, 0, -1]), np.array([0, 0, 0, 0]), X) == 2 - 1
    # one label only keeps the {-1, +1} / {0, 1} meaning
    assert best_loss_in_hindsight(X, np.array([0, 0, 0, 0]))[0] == 0
    assert best_loss_in_hindsight(X, np.array([-1, -1, -1, -1]))[0] == 0

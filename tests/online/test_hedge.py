"""Tests of the Hedge kernel and engines (sksmooth/online/_hedge.py)."""

import numpy as np
import pytest

from sksmooth.online._hedge import (DenseHedge, StumpHedge, hedge_regret_bound,
                                    hedge_rounds, logsumexp)


def naive_hedge(log_prior, positive, y_positive, eta):
    """Textbook Hedge, one round at a time, weights in log space."""
    lw = np.array(log_prior, dtype=float)
    proba, loss = [], []
    for t in range(positive.shape[0]):
        w = np.exp(lw - lw.max())
        w /= w.sum()
        wrong = positive[t] != y_positive[t]
        proba.append(w[positive[t]].sum())
        loss.append(w[wrong].sum())
        lw = lw - eta * wrong
    return np.array(proba), np.array(loss), lw - logsumexp(lw)


@pytest.mark.parametrize("eta", [1e-3, 0.3, 5.0])
def test_hedge_rounds_matches_naive_loop(eta):
    rng = np.random.default_rng(0)
    n_rounds, n_experts = 257, 40
    positive = rng.random((n_rounds, n_experts)) < 0.4
    y = rng.random(n_rounds) < 0.5
    log_prior = rng.normal(size=n_experts)
    p, el, expert_loss = hedge_rounds(log_prior, positive, y, eta, chunk_elements=40 * 17)
    p_ref, el_ref, lw_ref = naive_hedge(log_prior, positive, y, eta)
    np.testing.assert_allclose(p, p_ref, atol=1e-9)
    np.testing.assert_allclose(el, el_ref, atol=1e-9)
    np.testing.assert_array_equal(expert_loss, (positive != y[:, None]).sum(0))
    dense = DenseHedge(n_experts, eta, log_prior=log_prior)
    dense.update(positive, y)
    np.testing.assert_allclose(dense.log_weights, lw_ref, atol=1e-9)


def test_hedge_regret_bound_holds_on_adversarial_losses():
    # the adversary puts loss on the experts Hedge currently likes most
    rng = np.random.default_rng(1)
    n_experts, n_rounds = 64, 2000
    eta = np.sqrt(8 * np.log(n_experts) / n_rounds)
    hedge = DenseHedge(n_experts, eta)
    total = 0.0
    for _ in range(n_rounds):
        w = hedge.weights()
        y = rng.random() < 0.5
        positive = np.zeros((1, n_experts), dtype=bool)
        fav = w > np.median(w) + rng.normal(scale=1e-12, size=n_experts)
        positive[0] = fav != y  # favourite experts are wrong
        _, loss = hedge.update(positive, np.array([y]))
        total += loss[0]
    regret = total - hedge.expert_loss.min()
    assert regret <= hedge_regret_bound(n_experts, n_rounds, eta) + 1e-9
    assert regret > 0.2 * hedge_regret_bound(n_experts, n_rounds, eta)  # the test is tight enough to fail


def make_stumps(n_features, n_grid, rng, drop=0.0):
    thr = np.sort(rng.random(n_grid))
    feature = np.repeat(np.arange(n_features), 2 * n_grid)
    threshold = np.tile(np.concatenate([thr, thr]), n_features)
    sign = np.tile(np.concatenate([np.ones(n_grid), -np.ones(n_grid)]), n_features)
    keep = rng.random(len(feature)) >= drop
    return feature[keep], threshold[keep], sign[keep]


@pytest.mark.parametrize("drop, skip_feature", [(0.0, None), (0.3, None), (0.0, 1)])
def test_stump_engine_equals_dense_engine(drop, skip_feature):
    rng = np.random.default_rng(2)
    d = 3
    feature, threshold, sign = make_stumps(d, 40, rng, drop=drop)
    if skip_feature is not None:  # a feature without any stump
        keep = feature != skip_feature
        feature, threshold, sign = feature[keep], threshold[keep], sign[keep]
    X = rng.random((400, d))
    X[::7, 1] = threshold[5]  # ties with grid values
    y = (X[:, 0] > 0.4) ^ (rng.random(400) < 0.15)

    def positive(Xb):
        return np.where(Xb[:, feature] >= threshold, sign, -sign) > 0

    dense = DenseHedge(len(feature), 0.2)
    stump = StumpHedge(feature, threshold, sign, d, 0.2)
    for a, b in [(0, 1), (1, 50), (50, 51), (51, 400)]:
        p1, l1 = dense.update(positive(X[a:b]), y[a:b])
        p2, l2 = stump.update(X[a:b], y[a:b])
        np.testing.assert_allclose(p1, p2, atol=1e-10)
        np.testing.assert_allclose(l1, l2, atol=1e-10)
    np.testing.assert_allclose(dense.log_weights, stump.log_weights(), atol=1e-9)
    np.testing.assert_array_equal(dense.expert_loss, stump.expert_loss())
    X_new = rng.random((100, d))
    np.testing.assert_allclose(dense.proba_positive(positive(X_new)),
                               stump.proba_positive(X_new), atol=1e-10)
    # the draw follows the weights
    draws = np.bincount([stump.sample_expert(np.random.default_rng(s)) for s in range(3000)],
                        minlength=len(feature))
    w = stump.weights()
    top = np.argmax(w)
    assert abs(draws[top] / 3000 - w[top]) < 4 * np.sqrt(w[top] / 3000) + 1e-3


def test_stump_engine_memory_is_segments_not_grid():
    rng = np.random.default_rng(3)
    n_grid = 10 ** 6
    thr = np.linspace(0, 1, n_grid)
    stump = StumpHedge(np.zeros(2 * n_grid, dtype=int), np.concatenate([thr, thr]),
                       np.concatenate([np.ones(n_grid), -np.ones(n_grid)]), 1, 0.05)
    X = rng.random((500, 1))
    stump.update(X, X[:, 0] > 0.5)
    assert stump.n_segments <= 501
    p = stump.proba_positive(np.array([[0.1], [0.9]]))
    assert p[0] < 0.5 < p[1]

"""FactoredModel against a dense reference; the ReleaseModel protocol."""

import itertools

import numpy as np
import pytest

from sksmooth.release._model import ReleaseModel
from sksmooth.release.graphical import FactoredModel
from sksmooth.release.graphical._model import (
    _linear_calibration,
    calibrate,
    calibrated_probabilities,
)


@pytest.mark.parametrize("seed", range(4))
def test_factored_equals_dense_after_multiplies(seed):
    rng = np.random.default_rng(seed)
    shape = (3, 2, 4, 2, 3)
    model = FactoredModel.uniform(shape)
    log_dense = np.zeros(shape)
    sequence = [(0, 1), (1, 2), (2, 3), (0, 3), (3, 4), (1,), (0, 1), (2, 3, 4), (0, 4)]
    for attrs in sequence:
        values = rng.normal(scale=2.0, size=[shape[a] for a in attrs])
        model = model.multiply(attrs, values)
        log_dense = log_dense + values.reshape([shape[a] if a in attrs else 1 for a in range(5)])
        p = np.exp(log_dense - log_dense.max())
        p /= p.sum()
        np.testing.assert_allclose(model.dense(), p, atol=1e-10, rtol=0)
        for k in (1, 2):
            for m in itertools.combinations(range(5), k):
                other = tuple(a for a in range(5) if a not in m)
                np.testing.assert_allclose(model.marginal(m), p.sum(axis=other), atol=1e-10, rtol=0)


def test_uniform_and_protocol():
    model = FactoredModel.uniform((2, 3, 4))
    assert isinstance(model, ReleaseModel)
    np.testing.assert_allclose(model.marginal((1, 2)), np.full((3, 4), 1 / 12))
    assert model.size == 2 + 3 + 4
    rows = model.sample(10, np.random.default_rng(0))
    assert rows.shape == (10, 3) and rows.dtype.kind == "i"


def test_multiply_is_pure_and_absorbs_subsets():
    model = FactoredModel.uniform((2, 2, 2)).multiply((0, 1), np.zeros((2, 2)))
    tree = model.tree
    again = model.multiply((1,), np.array([0.0, 1.0]))
    assert again.tree is tree  # covered: no re-triangulation
    assert len(again.factors) == 1  # absorbed into the (0, 1) factor
    np.testing.assert_allclose(model.marginal((1,)), [0.5, 0.5])  # original unchanged
    np.testing.assert_allclose(again.marginal((1,)), [1 / (1 + np.e), np.e / (1 + np.e)])


def test_multiply_rejects_wrong_shape():
    with pytest.raises(ValueError, match="log_factor"):
        FactoredModel.uniform((2, 3)).multiply((0, 1), np.zeros((3, 2)))


def test_size_counts_clique_tables():
    model = FactoredModel.uniform((5, 5, 5, 5)).multiply((0, 1), np.zeros((5, 5)))
    model = model.multiply((1, 2), np.zeros((5, 5)))
    assert model.size == 25 + 25 + 5


def test_extreme_factors_stay_finite():
    model = FactoredModel.uniform((3, 3)).multiply((0, 1), np.array(
        [[800.0, -800.0, 0.0], [0.0, 0.0, 0.0], [-800.0, 800.0, 1.0]]))
    m = model.marginal((0,))
    assert np.all(np.isfinite(m)) and abs(m.sum() - 1) < 1e-12
    np.testing.assert_allclose(m, [0.5, 0.0, 0.5], atol=1e-12)


@pytest.mark.parametrize("scale", [2.0, 900.0])
def test_linear_calibration_matches_log_space_or_hands_over(scale):
    # each clique's largest cell is where the other clique is e^-scale lower: at
    # scale 900 the linear pass underflows and must hand over to the log-space one
    low = np.array([[0.0, -scale], [-scale, -scale]])
    model = FactoredModel.uniform((2, 2, 2)).multiply((0, 1), low)
    model = model.multiply((1, 2), low[::-1])
    tree, potentials = model.tree, model.clique_potentials()
    assert (_linear_calibration(tree, potentials) is None) == (scale > 700)
    log_space = [np.exp(b.values) for b in calibrate(tree, potentials)[0]]
    dense = model.dense()
    for clique, got, want in zip(tree.cliques, calibrated_probabilities(tree, potentials),
                                 log_space):
        np.testing.assert_allclose(got, want, atol=1e-12, rtol=0)
        other = tuple(a for a in range(3) if a not in clique)
        np.testing.assert_allclose(got, dense.sum(axis=other), atol=1e-12, rtol=0)


def test_linear_calibration_hands_over_when_a_message_entry_underflows():
    # chain (0,1)-(1,2)-(2,3): the middle clique's row b=0 is e^-800 below its largest
    # cell and underflows to 0, but the root's potential weighs b=0 up by e^500 (the
    # true marginal has b=0 almost surely); the linear pass put the mass on b=1
    model = FactoredModel.uniform((2, 2, 2, 2))
    model = model.multiply((0, 1), np.array([[0.0, -500.0], [-240.0, -700.0]]))
    model = model.multiply((1, 2), np.array([[-800.0, -800.0], [-700.0, 0.0]]))
    model = model.multiply((2, 3), np.array([[-740.0, 0.0], [-540.0, -800.0]]))
    dense = model.dense()
    for clique, got in zip(model.tree.cliques,
                           calibrated_probabilities(model.tree, model.clique_potentials())):
        other = tuple(a for a in range(4) if a not in clique)
        np.testing.assert_allclose(got, dense.sum(axis=other), atol=1e-12, rtol=0)


def test_pairs_no_clique_holds_take_one_product_per_tree_edge(monkeypatch):
    # a chain of 12 attributes: every pair's marginal needs the messages along its
    # path; one elimination per pair took a contraction per pair at least, the
    # batched pairs take one per tree edge (a chain has no sibling branches)
    import sksmooth.release.graphical._model as model_module

    rng = np.random.default_rng(0)
    d = 12
    shape = (3,) * d
    model = FactoredModel.uniform(shape)
    log_dense = np.zeros(shape)
    for a in range(d - 1):
        values = rng.normal(scale=2.0, size=(3, 3))
        model = model.multiply((a, a + 1), values)
        log_dense = log_dense + values.reshape([3 if b in (a, a + 1) else 1 for b in range(d)])
    p = np.exp(log_dense - log_dense.max())
    p /= p.sum()
    calls = []
    product_sum = model_module._product_sum
    monkeypatch.setattr(model_module, "_product_sum",
                        lambda *a: calls.append(1) or product_sum(*a))
    pairs = list(itertools.combinations(range(d), 2))
    for pair, got in zip(pairs, model.marginals(pairs)):
        other = tuple(a for a in range(d) if a not in pair)
        np.testing.assert_allclose(got, p.sum(axis=other), atol=1e-10, rtol=0)
    assert len(model.tree.cliques) == d - 1
    assert len(calls) <= len(model.tree.edges)


@pytest.mark.parametrize("seed", range(3))
def test_marginals_of_a_branching_model_match_the_dense_distribution(seed):
    # cliques with several children (pairs across sibling branches), empty
    # separators (a factor-free attribute), queries of mixed orders in one call
    rng = np.random.default_rng(seed)
    d, shape = 10, (2, 3, 2, 2, 3, 2, 2, 2, 3, 2)
    model = FactoredModel.uniform(shape)
    log_dense = np.zeros(shape)
    parents = [None] + [int(rng.integers(0, a)) for a in range(1, d - 1)]  # a random tree
    extra = [tuple(sorted(rng.choice(d - 1, 3, replace=False))) for _ in range(2)]
    for attrs in [(p, a) for a, p in enumerate(parents) if p is not None] + extra:
        values = rng.normal(scale=1.5, size=[shape[a] for a in attrs])
        model = model.multiply(attrs, values)
        log_dense = log_dense + values.reshape([shape[a] if a in attrs else 1 for a in range(d)])
    p = np.exp(log_dense - log_dense.max())
    p /= p.sum()
    queries = [q for k in (1, 2, 3) for q in itertools.combinations(range(d), k)]
    queries = [tuple(q) for q in rng.permutation(np.array(queries, dtype=object))]
    for attrs, got in zip(queries, model.marginals(queries)):
        other = tuple(a for a in range(d) if a not in attrs)
        np.testing.assert_allclose(got, p.sum(axis=other), atol=1e-10, rtol=0)
        if len(attrs) == 2:
            np.testing.assert_allclose(model.marginal(attrs), got, atol=1e-12, rtol=0)

import itertools

import numpy as np
import pytest

from sksmooth.classes import Conjunctions, MarginalConcepts, Marginals, ParityConcepts, Parities


def _cube(d):
    return np.array(list(itertools.product([0, 1], repeat=d)), dtype=float)


def test_marginals_workload_structure_and_evaluation():
    bounds = (0, [1, 2, 1, 3])  # binary, 3 categories, binary, 4 categories
    W = Marginals(2).cover(bounds=bounds)
    sizes = [2, 3, 2, 4]
    assert len(W.tables) == 6
    assert W.n_concepts == sum(sizes[a] * sizes[b] for a, b in W.tables)
    assert W.gamma == 0.0 and W.gamma_certified
    rng = np.random.default_rng(0)
    X = np.stack([rng.integers(0, s, 200) for s in sizes], 1)
    V = W.evaluate(X, chunk_size=17)
    naive = np.stack([np.all(X[:, W.attributes[j]] == W.values[j], axis=1) for j in range(W.n_concepts)], 1)
    np.testing.assert_array_equal(V, naive)
    # each table's cells partition the domain: exactly one True per point and table
    for t in range(len(W.tables)):
        lo, hi = W.table_offsets[t], W.table_offsets[t + 1]
        assert np.all(W.table[lo:hi] == t)
        assert set(W.attributes[lo:hi].ravel().tolist()) == set(W.tables[t])
        np.testing.assert_array_equal(V[:, lo:hi].sum(axis=1), 1)
    sub = W.subset(np.arange(W.table_offsets[2], W.table_offsets[4]))
    assert sub.tables == W.tables[2:4] and sub.table_offsets.tolist() == [0, 8, 14]  # (0,3): 2*4, (1,2): 3*2


def test_conjunctions_are_marginal_cells_of_width_up_to_k():
    C = Conjunctions(2).cover(bounds=(0, 1), n_features=3)
    assert C.n_concepts == 1 + 3 * 2 + 3 * 4
    assert C.describe(0) == "always True"
    X = _cube(3)
    V = C.evaluate(X)
    np.testing.assert_array_equal(V[:, 0], True)
    assert C.describe(1) == "x[0] == 0"
    np.testing.assert_array_equal(V[:, 1], X[:, 0] == 0)
    # every conjunction of <= 2 literals appears exactly once (as a truth table)
    assert len({bytes(col) for col in np.packbits(V.T, axis=1)}) == C.n_concepts


def test_marginals_max_size_keeps_whole_tables_and_warns():
    with pytest.warns(UserWarning, match="max_size=20.*achieved gamma"):
        W = Marginals(2).cover(bounds=(0, 1), n_features=5, max_size=20, random_state=0)
    assert W.n_concepts <= 20 and W.n_concepts % 4 == 0
    assert W.gamma == pytest.approx(0.5)  # 1/4 (dropped cell) + 1/4 (kept cell)


def test_parities_orthogonal_and_evaluate():
    d = 5
    P = Parities().cover(bounds=(0, 1), n_features=d)
    assert P.n_concepts == 2**d - 1 and P.vc_dim == d and P.rho == pytest.approx(np.sqrt(2))
    X = _cube(d)
    chi = P.evaluate_sign(X).astype(float)  # (2^d, K)
    # naive: (-1)^{sum_{i in S} x_i}
    naive = np.stack([(-1.0) ** X[:, list(P.subset_of(j))].sum(axis=1) for j in range(P.n_concepts)], 1)
    np.testing.assert_array_equal(chi, naive)
    gram = chi.T @ chi / len(X)
    np.testing.assert_allclose(gram, np.eye(P.n_concepts), atol=1e-12)
    dist = np.sqrt(np.mean((chi[:, :, None] - chi[:, None, :]) ** 2, axis=0))
    off = ~np.eye(P.n_concepts, dtype=bool)
    np.testing.assert_allclose(dist[off], P.rho)
    np.testing.assert_array_equal(P.evaluate(X, chunk_size=3), chi > 0)
    assert P.describe(0) == "x[0] is even"
    assert P.masks[P.n_concepts - 1] == 2**d - 1


def test_parities_degree_range_and_cap():
    P = Parities(max_degree=2, min_degree=0).cover(bounds=(0, 1), n_features=4)
    assert P.n_concepts == 1 + 4 + 6 and P.describe(0).startswith("always True")
    with pytest.warns(UserWarning, match="max_size=5"):
        Q = Parities().cover(bounds=(0, 1), n_features=6, max_size=5, random_state=0)
    assert Q.n_concepts == 5 and Q.gamma == 0.5 and Q.gamma_certified
    # 30 binary features: 2^30 characters, too many to sample a subset from; the
    # message named neither a parameter nor a fix (found by a review)
    with pytest.raises(ValueError, match=r"max_degree=\d") as caught:
        Parities().cover(bounds=(0, 1), n_features=30, max_size=1000, random_state=0)
    k = int(caught.value.args[0].split("max_degree=")[1].split(")")[0])
    Parities(max_degree=k).cover(bounds=(0, 1), n_features=30, max_size=1000, random_state=0)


@pytest.mark.parametrize(
    "make, err, match",
    [
        (lambda: Marginals(2).cover(bounds=(0, 1.5), n_features=3), ValueError, "integers"),
        (lambda: Marginals(4).cover(bounds=(0, 1), n_features=3), ValueError, "k=4"),
        (lambda: Marginals(0).cover(bounds=(0, 1), n_features=3), ValueError, "k"),
        (lambda: Marginals(2).cover(bounds=(1, 0), n_features=3), ValueError, "lower > upper"),
        (lambda: Marginals(2).cover(bounds=(0, 1), n_features=3, max_size=2), ValueError, "max_size"),
        (lambda: Parities().cover(bounds=(0, 2), n_features=3), ValueError, r"\(0, 1\)"),
        (lambda: Parities(max_degree=1, min_degree=2).cover(bounds=(0, 1), n_features=3), ValueError, "min_degree"),
        (lambda: ParityConcepts([8], 3), ValueError, "masks"),
        (lambda: ParityConcepts([1], 63), ValueError, "62"),
        (lambda: MarginalConcepts([[0, 5]], [[0, 0]], [0], [(0, 5)], 3), ValueError, "attributes"),
    ],
)
def test_discrete_bad_input(make, err, match):
    with pytest.raises(err, match=match):
        make()


def test_a_parity_reads_a_point_off_the_cube_as_its_nearest_cube_point():
    # a refusal of points off the cube made a private learner's fit depend on one row
    # (found by an attack review); the read is a fixed public map
    P = Parities().cover(bounds=(0, 1), n_features=3)
    np.testing.assert_array_equal(P.evaluate([[0, 2, 1], [0.3, 0.7, -4.0]]),
                                  P.evaluate([[0, 1, 1], [0, 1, 0]]))

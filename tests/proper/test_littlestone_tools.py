"""Littlestone dimension, SOA, irreducibility and ReduceTree (Ghazi, Golowich, Kumar, Manurangsi, STOC 2021, arXiv:2012.03893, §2.4, §4, §5.1)."""

import math

import numpy as np
import pytest

from sksmooth.proper import (
    LittlestoneOracle,
    irreducibility_order,
    is_k_irreducible,
    littlestone_dimension,
    soa,
    theoretical_sample_size,
)
from sksmooth.proper.littlestone._reduce_tree import reduce_tree


def thresholds(N):
    """h_t(x_i) = +1 iff i >= t, t = 0..N (N + 1 hypotheses)."""
    return np.where(np.arange(N)[None, :] >= np.arange(N + 1)[:, None], 1, -1)


def point_functions(N, with_negative=False):
    F = np.where(np.eye(N) > 0, 1, -1)
    if with_negative:
        F = np.vstack([F, -np.ones((1, N), dtype=int)])
    return F


def full_class(k):
    return np.array([[1 if (i >> j) & 1 else -1 for j in range(k)] for i in range(2**k)])


# --- brute force from the definitions (no memo, no pruning, no forced bits) ---
def _restrict(rows, F, x, b):
    return [r for r in rows if F[r, x] == b]


def brute_ldim(F, rows=None):
    """Largest depth of a tree shattered by F (Def. 2.5): tree = root label + two subtrees."""
    rows = list(range(len(F))) if rows is None else rows
    if not rows:
        return -1

    def shatters(rows, depth):
        if depth == 0:
            return len(rows) > 0
        return any(
            shatters(_restrict(rows, F, x, 1), depth - 1)
            and shatters(_restrict(rows, F, x, -1), depth - 1)
            for x in range(F.shape[1])
        )

    depth = 0
    while shatters(rows, depth + 1):
        depth += 1
    return depth


def brute_k_irreducible(F, k):
    """Def. 4.1 verbatim: every depth-k tree has a bit path keeping Ldim(G)."""
    rows = list(range(len(F)))
    level = brute_ldim(F, rows)

    def ok(rows, k):
        if k == 0:
            return brute_ldim(F, rows) == level
        return all(
            any(ok(_restrict(rows, F, x, b), k - 1) for b in (1, -1))
            for x in range(F.shape[1])
        )

    return ok(rows, k)


def brute_soa(F):
    rows = list(range(len(F)))
    return np.array(
        [
            1 if brute_ldim(F, _restrict(rows, F, x, 1)) >= brute_ldim(F, _restrict(rows, F, x, -1)) else -1
            for x in range(F.shape[1])
        ]
    )


@pytest.mark.parametrize("N", [1, 2, 3, 4, 7, 8, 15, 16, 31, 64, 100])
def test_ldim_thresholds_is_floor_log2(N):
    assert littlestone_dimension(thresholds(N)) == int(math.floor(math.log2(N + 1)))


@pytest.mark.parametrize("N", [2, 5, 20])
def test_ldim_point_functions_is_one(N):
    assert littlestone_dimension(point_functions(N)) == 1
    assert littlestone_dimension(point_functions(N, with_negative=True)) == 1


@pytest.mark.parametrize("k", [1, 2, 3, 5, 8])
def test_ldim_full_class_is_k(k):
    assert littlestone_dimension(full_class(k)) == k


def test_ldim_single_hypothesis_and_duplicates():
    assert littlestone_dimension(np.array([[1, -1, 1]])) == 0
    assert littlestone_dimension(np.array([[1, -1, 1], [1, -1, 1]])) == 0


def test_ldim_and_soa_match_brute_force_on_random_classes():
    rng = np.random.default_rng(0)
    for _ in range(40):
        K, N = rng.integers(1, 9), rng.integers(1, 6)
        F = rng.choice([-1, 1], size=(K, N))
        assert littlestone_dimension(F) == brute_ldim(F)
        np.testing.assert_array_equal(soa(F).values, brute_soa(F))


def test_irreducibility_order_matches_definition_on_random_classes():
    rng = np.random.default_rng(1)
    for _ in range(25):
        K, N = rng.integers(2, 8), rng.integers(2, 5)
        F = rng.choice([-1, 1], size=(K, N))
        order = irreducibility_order(F)
        for k in range(0, 4):
            assert (k <= order) == brute_k_irreducible(F, k), (F, k, order)
            assert is_k_irreducible(F, k) == brute_k_irreducible(F, k)


def test_irreducibility_hand_checked_classes():
    # A single hypothesis keeps its dimension along every path.
    assert irreducibility_order(np.array([[1, -1]])) == math.inf
    # The full class on k points: every point halves it -> not even irreducible.
    assert irreducibility_order(full_class(3)) == 0
    # Point functions e_1..e_N: the forced label at x_i is -1 (removes e_i);
    # after N - 2 steps {e_a, e_b} is split by a -> order N - 2.
    for N in (2, 3, 6):
        assert irreducibility_order(point_functions(N)) == N - 2
    # With the all-negative function: N - 1 forced steps.
    assert irreducibility_order(point_functions(5, with_negative=True)) == 4
    # Thresholds on 3 points: the middle point splits 2 | 2 -> order 0.
    assert irreducibility_order(thresholds(3)) == 0
    assert not is_k_irreducible(point_functions(6), 5)
    assert is_k_irreducible(point_functions(6), 4)


def test_reducing_array_is_lemma_4_5():
    oracle = LittlestoneOracle(point_functions(5, with_negative=True))
    level = oracle.ldim()
    points, array = oracle.reducing_array()
    k = len(points)
    assert k == oracle.irreducibility_order() + 1
    assert len(array) == k + 1
    for j in range(1, k + 1):  # Def. 4.3
        for jp in range(1, j):
            assert array[j][jp - 1] == array[j - 1][jp - 1]
        assert array[j][j - 1] == -array[j - 1][j - 1]
    for bits in array:  # eq. (6)
        child = oracle.restrict_many(oracle.full, zip(points[: len(bits)], bits))
        assert 0 <= oracle.ldim(child) < level


def test_soa_hand_values_and_predictor():
    F = point_functions(3)
    pred = soa(F)
    np.testing.assert_array_equal(pred.values, [-1, -1, -1])
    np.testing.assert_array_equal(pred(np.array([0, 2])), [-1, -1])
    # Thresholds on 3 points: SOA is the middle threshold.
    np.testing.assert_array_equal(soa(thresholds(3)).values, [-1, 1, 1])
    with pytest.raises(ValueError, match="indices"):
        pred(np.array([3]))


@pytest.mark.parametrize(
    "bad, err",
    [
        (np.array([1, -1]), ValueError),
        (np.array([[0.5, 1.0]]), ValueError),
        (np.zeros((0, 3)), ValueError),
        (np.array([["a", "b"]]), TypeError),
    ],
)
def test_bad_class_input(bad, err):
    with pytest.raises(err):
        littlestone_dimension(bad)


def test_reduce_tree_realizable_thresholds_contains_target():
    """With enough data the true hypothesis lies in every user's set S_hat (Lemma 5.4)."""
    N = 32
    F = thresholds(N)
    oracle = LittlestoneOracle(F)
    rng = np.random.default_rng(3)
    hits = 0
    for _ in range(10):
        x = rng.integers(0, N, 300)
        cands, _ = reduce_tree(oracle, x, F[11, x], alpha_delta=0.001, k_prime=10**6)
        assert 1 <= len(cands)
        hits += any(np.array_equal(c, F[11]) for c in cands)
        for c in cands:  # every candidate is an SOA of a k'-irreducible class
            assert set(np.unique(c)) <= {-1, 1}
    assert hits == 10


def test_theoretical_sample_size_formula():
    n = theoretical_sample_size(6, 1, 1.0, 1e-6, 0.1, 0.1)
    expected = 6**5 * 1 * math.log(6 / (1e-6 * 0.1 * 0.1)) ** 2 / (1.0 * 0.01)
    assert n == math.ceil(expected)
    assert theoretical_sample_size(6, 1, 1.0, 1e-6, 0.1, 0.1, constant=2.0) >= 2 * n - 1
    with pytest.raises(ValueError, match="alpha"):
        theoretical_sample_size(6, 1, 1.0, 1e-6, 1.5, 0.1)


def test_brute_force_helpers_can_fail():
    """Guard: the brute-force oracles distinguish classes (tests are not vacuous)."""
    assert brute_ldim(full_class(2)) == 2
    assert not brute_k_irreducible(full_class(2), 1)
    assert brute_k_irreducible(np.array([[1, 1]]), 3)


def test_minimax_set_lemma_6_2_game_values():
    from sksmooth.proper.littlestone._polypri import minimax_set

    rng = np.random.default_rng(0)
    # target in the class: the point mass on it has value 0 and H = {target}
    F = thresholds(16)
    H, value, _ = minimax_set(LittlestoneOracle(F), F[5], 200, rng)
    assert value == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_array_equal(H, [5])
    # point functions vs the all-negative target (not in the class): the
    # uniform mixture errs with probability 1/N at every point, which is optimal
    N = 8
    H, value, dist = minimax_set(LittlestoneOracle(point_functions(N)), -np.ones(N), 4000, rng)
    assert value == pytest.approx(1.0 / N, abs=1e-7)
    np.testing.assert_allclose(dist, 1.0 / N, atol=1e-7)
    assert len(H) == N  # 4000 draws from the uniform mixture hit every hypothesis

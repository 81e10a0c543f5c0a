"""Systematic uniforms: one offset per group, every row's uniform exactly U[0, 1).

A variant that hands the points to the rows in index order (no random
assignment) keeps the counts but not each row's law; the same test rejects it.
"""

import numpy as np
import pytest
from scipy.stats import kstest

from sksmooth.release._systematic import check_scheme, row_uniforms, systematic_uniforms

ALPHA = 1e-4


def test_points_are_systematic_within_each_group():
    rng = np.random.default_rng(0)
    groups = rng.integers(0, 7, size=500)
    u = systematic_uniforms(groups, rng)
    assert u.shape == groups.shape and u.min() >= 0.0 and u.max() < 1.0
    for g in np.unique(groups):
        scaled = np.sort(u[groups == g] * np.sum(groups == g))
        offsets = scaled - np.arange(scaled.size)  # (k + u_g) - k
        np.testing.assert_allclose(offsets, offsets[0], atol=1e-9)
        assert 0.0 <= offsets[0] < 1.0


@pytest.mark.parametrize("uniform", [True, False])
def test_every_row_is_uniform(uniform, index_order_uniforms):
    """Row 3 of a group of 5 (and row 0 of one of 2), over independent draws."""
    draw = systematic_uniforms if uniform else index_order_uniforms
    groups = np.array([1, 0, 1, 1, 0, 1, 1])
    rng = np.random.default_rng(1)
    draws = np.array([draw(groups, rng) for _ in range(3000)])
    p_values = [kstest(draws[:, row], "uniform").pvalue for row in (3, 1)]
    assert (min(p_values) > ALPHA) == uniform, p_values


def test_iid_scheme_and_empty_groups():
    rng, again = np.random.default_rng(2), np.random.default_rng(2)
    np.testing.assert_array_equal(row_uniforms(np.zeros(4, int), rng, "iid"), again.random(4))
    assert systematic_uniforms(np.empty(0, int), rng).shape == (0,)


@pytest.mark.parametrize("scheme", ["stratified", None, 1])
def test_unknown_scheme_names_the_parameter_and_the_choices(scheme):
    with pytest.raises(ValueError, match=r"scheme must be 'systematic'.*'iid'"):
        check_scheme(scheme)


def _first_row_law(sample, n_draws=3000):
    """Level counts of row 0 of the output over independent draws of 10 rows."""
    rng = np.random.default_rng(11)
    return np.bincount([sample(rng)[0, 0] for _ in range(n_draws)], minlength=4)


@pytest.mark.parametrize("broken", [False, True])
def test_row_zero_of_the_output_has_the_model_s_law(monkeypatch, broken, index_order_uniforms):
    """The rows come out in random order: row 0 of a dense draw, over many
    draws, follows the model (chi-square); a variant handing the points to
    the rows in index order (rows sorted by value) is caught."""
    from scipy.stats import chisquare

    import sksmooth.release._systematic as systematic
    from sksmooth.release._dense_model import DenseModel

    if broken:
        monkeypatch.setattr(systematic, "systematic_uniforms", index_order_uniforms)
    p = np.array([0.1, 0.2, 0.3, 0.4])
    model = DenseModel.from_probabilities(p, (4,))
    counts = _first_row_law(lambda rng: model.sample(10, rng))
    assert (chisquare(counts, counts.sum() * p).pvalue > ALPHA) != broken, counts


def test_uniforms_stay_below_one_however_they_round():
    class Top:  # the largest offset below 1: (m - 1 + offset) / m rounds to 1.0
        def permutation(self, n):
            return np.arange(n)

        def random(self, size):
            return np.full(size, np.nextafter(1.0, 0.0))

    assert systematic_uniforms(np.zeros(3, dtype=np.int64), Top()).max() < 1.0

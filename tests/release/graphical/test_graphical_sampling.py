"""Sampling matches the model's marginals (chi-square), and a sampler that
ignores the conditioning on separators is caught by the same test. The
systematic scheme keeps every clique's counts, given its separator, within
one of their expectation, and keeps the model's conditional independences
(a variant that assigns the points in row order is caught)."""

import itertools
import sys

import numpy as np
import pytest
from scipy.stats import chi2, chi2_contingency

import sksmooth.release.graphical._sampling as sampling
from sksmooth.release.graphical import FactoredModel
from sksmooth.release.graphical._domain import table_shape
from sksmooth.release.graphical._sampling import conditional_cdf, draw_conditional

N_ROWS = 20_000
ALPHA = 1e-3  # family-wise level, Bonferroni over all tested tables


def coupled_chain(shape, strength, seed=0):
    """A model with strong dependence along 0-1-2-... plus a triangle."""
    rng = np.random.default_rng(seed)
    model = FactoredModel.uniform(shape)
    d = len(shape)
    sets = [(a, a + 1) for a in range(d - 1)] + [(0, 2)]
    for attrs in sets:
        values = rng.normal(scale=strength, size=[shape[a] for a in attrs])
        model = model.multiply(attrs, values)
    return model


def p_values(rows, model, max_order=2):
    out = []
    for k in range(1, max_order + 1):
        for attrs in itertools.combinations(range(len(model.shape)), k):
            expected = model.marginal(attrs).ravel() * len(rows)
            flat = np.ravel_multi_index(tuple(rows[:, list(attrs)].T), table_shape(model.shape, attrs))
            observed = np.bincount(flat, minlength=expected.size)
            keep = expected > 0
            stat = np.sum((observed[keep] - expected[keep]) ** 2 / expected[keep])
            out.append(chi2.sf(stat, keep.sum() - 1))
    return np.array(out)


def broken_sample(model, n, rng):
    """Draws each clique's new attributes from their marginal, ignoring the separator."""
    rows = np.zeros((n, len(model.shape)), dtype=np.int64)
    beliefs = model.beliefs
    for clique, edge in model.tree.parent_order():
        sep = () if edge is None else model.tree.separators[edge]
        new = tuple(a for a in model.tree.cliques[clique] if a not in sep)
        if not new:
            continue
        cdf, _ = conditional_cdf(beliefs[clique].marginalize(new), ())
        flat = draw_conditional(cdf, np.zeros(n, dtype=np.int64), rng.random(n))
        rows[:, new] = np.stack(np.unravel_index(flat, table_shape(model.shape, new)), axis=1)
    return rows


@pytest.mark.parametrize("scheme", ["systematic", "iid"])
def test_samples_match_model_marginals(scheme):
    model = coupled_chain((3, 4, 2, 3, 2), strength=1.5)
    assert len(model.tree.cliques) > 1  # conditioning on separators is exercised
    rows = model.sample(N_ROWS, np.random.default_rng(12345), scheme)
    pv = p_values(rows, model)
    assert pv.min() > ALPHA / len(pv), pv.min()


def test_broken_sampler_is_rejected():
    model = coupled_chain((3, 4, 2, 3, 2), strength=1.5)
    rows = broken_sample(model, N_ROWS, np.random.default_rng(12345))
    pv = p_values(rows, model)
    assert pv.min() < ALPHA / len(pv)
    # its 1-way marginals are right: only the dependence is lost
    assert p_values(rows, model, max_order=1).min() > ALPHA / len(pv)


def _calls(function):
    """Python and C function calls made by ``function()`` (a count, not a clock)."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        count += event in ("call", "c_call")

    sys.setprofile(profile)
    try:
        function()
    finally:
        sys.setprofile(None)
    return count


def test_sampling_is_vectorised():
    """No Python loop over rows: 1000 times the rows, the same calls (a count, so the
    check holds on a busy machine where a time limit would not)."""
    model = coupled_chain((4,) * 20, strength=1.0)
    model.beliefs  # calibration is not part of sampling
    rng = np.random.default_rng(0)
    assert _calls(lambda: model.sample(100, rng)) == _calls(lambda: model.sample(100_000, rng))
    rows = model.sample(100_000, rng)
    assert rows.shape == (100_000, 20)
    assert rows.min() >= 0 and rows.max() <= 3


def test_draw_conditional_respects_rows():
    cdf = np.array([[1.0, 1.0, 1.0], [0.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    sep = np.array([0, 1, 2, 0, 1, 2])
    u = np.array([0.0, 0.3, 0.999, 0.5, 0.0, 0.5])
    np.testing.assert_array_equal(draw_conditional(cdf, sep, u), [0, 2, 1, 0, 2, 1])


@pytest.mark.parametrize("scheme", ["systematic", "iid"])
def test_systematic_counts_are_within_one_of_their_expectation(scheme):
    """Root clique: ``|count - n p| < 1``; every other clique, within each
    configuration ``s`` of its separator (``m_s`` rows): ``|count - m_s p(x | s)| < 1``.
    I.i.d. rows miss that by several counts."""
    model = coupled_chain((3, 4, 2, 3, 2), strength=1.5)
    rows = model.sample(997, np.random.default_rng(3), scheme)
    deviations = []
    tree, shape = model.tree, model.shape
    for clique, edge in tree.parent_order():
        sep = () if edge is None else tree.separators[edge]
        cdf, new = conditional_cdf(model.beliefs[clique], sep)
        conditional = np.diff(cdf, axis=1, prepend=0.0)  # rows: p(new | s)
        sep_index = (np.ravel_multi_index(tuple(rows[:, sep].T), table_shape(shape, sep))
                     if sep else np.zeros(len(rows), dtype=np.int64))
        new_index = np.ravel_multi_index(tuple(rows[:, new].T), table_shape(shape, new))
        counts = np.zeros(conditional.shape)
        np.add.at(counts, (sep_index, new_index), 1)
        expected = counts.sum(axis=1, keepdims=True) * conditional
        deviations.append(np.abs(counts - expected).max())
    assert (max(deviations) < 1.0 + 1e-9) == (scheme == "systematic"), deviations


@pytest.mark.parametrize("broken", [False, True])
def test_systematic_rows_keep_the_conditional_independence(monkeypatch, broken,
                                                          index_order_uniforms):
    """Chain 0 - 1 - 2: the model has ``x0`` independent of ``x2`` given ``x1``;
    a chi-square test of independence within every level of ``x1``."""
    if broken:
        monkeypatch.setattr(sampling, "row_uniforms", index_order_uniforms)
    rng = np.random.default_rng(4)
    model = FactoredModel.uniform((3, 3, 3))
    for attrs in [(0, 1), (1, 2)]:
        model = model.multiply(attrs, rng.normal(scale=1.0, size=(3, 3)))
    rows = model.sample(6000, np.random.default_rng(5))
    p_values = []
    for level in range(3):
        at = rows[:, 1] == level
        table = np.zeros((3, 3))
        np.add.at(table, (rows[at, 0], rows[at, 2]), 1)
        p_values.append(chi2_contingency(table[table.sum(1) > 0][:, table.sum(0) > 0])[1])
    assert (min(p_values) < ALPHA / 3) == broken, p_values


def test_a_separator_configuration_without_mass_draws_from_the_clique_marginal():
    # a row of the clique's belief all -inf (underflow) gave NaN cumulative sums and
    # an out-of-range level: sample() failed on ~1 in 100 small-n releases
    from sksmooth.release.graphical._factor import Factor

    values = np.log(np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8], [1.0, 1.0, 1.0]]))
    values[2] = -np.inf
    cdf, new = conditional_cdf(Factor((0, 1), values), (0,))
    assert new == (1,) and np.all(np.isfinite(cdf)) and np.all(cdf[:, -1] == 1.0)
    marginal = np.array([0.3, 0.4, 1.3]) / 2.0
    np.testing.assert_allclose(cdf[2], np.cumsum(marginal))
    levels = draw_conditional(cdf, np.array([2, 2, 2]), np.array([0.0, 0.3, 0.99]))
    assert list(levels) == [0, 1, 2]

"""Sampling matches the model's marginals (chi-square), and a sampler that
ignores the conditioning on separators is caught by the same test."""

import itertools
import time

import numpy as np
from scipy.stats import chi2

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


def test_samples_match_model_marginals():
    model = coupled_chain((3, 4, 2, 3, 2), strength=1.5)
    assert len(model.tree.cliques) > 1  # conditioning on separators is exercised
    rows = model.sample(N_ROWS, np.random.default_rng(12345))
    pv = p_values(rows, model)
    assert pv.min() > ALPHA / len(pv), pv.min()


def test_broken_sampler_is_rejected():
    model = coupled_chain((3, 4, 2, 3, 2), strength=1.5)
    rows = broken_sample(model, N_ROWS, np.random.default_rng(12345))
    pv = p_values(rows, model)
    assert pv.min() < ALPHA / len(pv)
    # its 1-way marginals are right: only the dependence is lost
    assert p_values(rows, model, max_order=1).min() > ALPHA / len(pv)


def test_sampling_is_vectorised():
    """A Python loop over 200 000 rows x 20 cliques would take tens of CPU
    seconds; CPU time (not wall time) keeps the check meaningful on a busy machine."""
    model = coupled_chain((4,) * 20, strength=1.0)
    model.beliefs  # calibration is not part of sampling
    rng = np.random.default_rng(0)
    start = time.process_time()
    rows = model.sample(200_000, rng)
    assert time.process_time() - start < 5.0
    assert rows.shape == (200_000, 20)
    assert rows.min() >= 0 and rows.max() <= 3


def test_draw_conditional_respects_rows():
    cdf = np.array([[1.0, 1.0, 1.0], [0.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    sep = np.array([0, 1, 2, 0, 1, 2])
    u = np.array([0.0, 0.3, 0.999, 0.5, 0.0, 0.5])
    np.testing.assert_array_equal(draw_conditional(cdf, sep, u), [0, 2, 1, 0, 2, 1])

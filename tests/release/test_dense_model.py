"""The dense release model's array kernels (release/_dense_model.py)."""

import itertools

import numpy as np
import pytest

from sksmooth.release._dense_model import DenseModel, sum_to, times_factor


@pytest.mark.parametrize("shape", [(10, 10, 10, 2), (3, 2, 3, 3, 3), (2,), (5, 1, 3),
                                   (2,) * 9, (300, 2)])
def test_marginals_and_factor_products_match_their_definition(shape):
    # the kernels reorder the sums and spread the factor over the trailing axes: every
    # set of axes must still give einsum's marginal and numpy's broadcast product
    rng = np.random.default_rng(len(shape))
    p = rng.random(shape)
    for width in range(min(len(shape), 3) + 1):
        for axes in itertools.combinations(range(len(shape)), width):
            np.testing.assert_allclose(sum_to(p, axes), np.einsum(p, range(len(shape)), axes))
            factor = rng.random([shape[a] for a in axes])
            broadcast = [shape[a] if a in axes else 1 for a in range(len(shape))]
            np.testing.assert_allclose(times_factor(p, axes, factor),
                                       p * factor.reshape(broadcast))


def test_a_marginal_summed_from_a_wider_one_is_the_grid_marginal():
    p = np.random.default_rng(0).random((4, 3, 2))
    model = DenseModel.from_probabilities(p, p.shape)
    wide = model.marginal((0, 2))  # computed from the grid, then remembered
    np.testing.assert_allclose(model.marginal((2,)), wide.sum(axis=0))
    np.testing.assert_allclose(model.marginal((2,)), (p / p.sum()).sum(axis=(0, 1)))

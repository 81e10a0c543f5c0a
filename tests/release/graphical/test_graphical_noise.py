"""Discrete Gaussian measurement noise of the graphical release.

The sampler's law is tested in tests/mechanisms/test_discrete.py; here: the
measurement is the package's exact mechanism, on integers, of scale sigma.
"""

import numpy as np

from sksmooth.release.graphical._noise import add_discrete_gaussian


def test_noisy_counts_are_integers():
    out = add_discrete_gaussian(np.array([[3, 0], [1, 7]]), 2.0, np.random.default_rng(0))
    assert out.shape == (2, 2) and out.dtype.kind == "i"


def test_noise_has_the_requested_scale():
    counts = np.zeros(200_000, dtype=np.int64)
    noise = add_discrete_gaussian(counts, 3.0, np.random.default_rng(1))
    # Var N_Z(0, 9) < 9 (CKS Cor. 9), and within 1% of it at sigma = 3
    assert 0.97 * 9.0 < noise.var() < 9.0 * 1.005
    assert abs(noise.mean()) < 0.05

"""Discrete Gaussian noise on integer counts (the measurement mechanism).

Adding ``N_Z(0, sigma^2)`` (the discrete Gaussian on the integers) to
integer counts whose L2 sensitivity is ``Delta`` is
``Delta^2 / (2 sigma^2)``-zCDP, exactly as the continuous Gaussian
(Canonne, Kamath & Steinke, "The discrete Gaussian for differential
privacy", NeurIPS 2020, arXiv:2004.00010, Thm. 4), and its output is an
integer, so it leaves no floating-point holes around the true value. The
sampler is the package's exact one (:mod:`sksmooth.mechanisms`).
"""

import numpy as np

from ...mechanisms import discrete_gaussian_mechanism

__all__ = ["add_discrete_gaussian"]


def add_discrete_gaussian(counts, sigma, rng):
    """``counts`` (integers) plus i.i.d. discrete Gaussian noise of scale ``sigma``."""
    counts = np.asarray(counts)
    return np.asarray(discrete_gaussian_mechanism(counts, sigma, rng)).reshape(counts.shape)

"""Discrete Gaussian noise on integer counts (the measurement mechanism).

Adding ``N_Z(0, sigma^2)`` (the discrete Gaussian on the integers) to
integer counts whose L2 sensitivity is ``Delta`` is
``Delta^2 / (2 sigma^2)``-zCDP, exactly as the continuous Gaussian
(Canonne, Kamath & Steinke, "The discrete Gaussian for differential
privacy", NeurIPS 2020, arXiv:2004.00010, Thm. 4), and its output is an
integer, so it leaves no floating-point holes around the true value.

The package's mechanism module is the home of the sampler
(``sksmooth.mechanisms.discrete_gaussian_mechanism``). Until it is there,
this module carries a vectorised fallback: CKS 2020 Algorithm 3 (discrete
Laplace proposals with scale ``t = floor(sigma) + 1``, accepted with
probability ``exp(-(|y| - sigma^2/t)^2 / (2 sigma^2))``). The fallback draws
its geometric variates and acceptance coins in IEEE doubles, so it is exact
up to floating-point rounding of those probabilities, not with the rational
arithmetic of the paper.
"""

import numpy as np

try:  # the package's sampler, once sksmooth.mechanisms ships it
    from ...mechanisms import discrete_gaussian_mechanism as _package_mechanism
except ImportError:  # pragma: no cover - depends on the merge order
    _package_mechanism = None

__all__ = ["discrete_gaussian_noise", "add_discrete_gaussian"]


def discrete_gaussian_noise(sigma, size, rng):
    """``size`` i.i.d. draws of the discrete Gaussian ``N_Z(0, sigma^2)``."""
    sigma = float(sigma)
    size = int(size)
    t = np.floor(sigma) + 1.0
    out = np.empty(size, dtype=np.int64)
    pending = np.arange(size)
    p_geom = -np.expm1(-1.0 / t)  # success probability of Geometric with ratio e^{-1/t}
    while pending.size:
        m = pending.size
        y = rng.geometric(p_geom, size=m) - rng.geometric(p_geom, size=m)  # discrete Laplace(t)
        accept = rng.random(m) < np.exp(-((np.abs(y) - sigma**2 / t) ** 2) / (2.0 * sigma**2))
        out[pending[accept]] = y[accept]
        pending = pending[~accept]
    return out


def add_discrete_gaussian(counts, sigma, rng):
    """``counts`` (integers) plus i.i.d. discrete Gaussian noise of scale ``sigma``."""
    counts = np.asarray(counts)
    if _package_mechanism is not None:
        return np.asarray(_package_mechanism(counts, sigma, rng)).reshape(counts.shape)
    noise = discrete_gaussian_noise(sigma, counts.size, rng).reshape(counts.shape)
    return counts.astype(np.int64) + noise

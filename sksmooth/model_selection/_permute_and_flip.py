"""Exact permute-and-flip selection (integer arithmetic, no floating-point noise).

Permute-and-flip (McKenna and Sheldon, NeurIPS 2020, Algorithm 1) visits
the candidates in a uniformly random order and accepts candidate ``r`` with
probability ``exp(epsilon (q_r - q*) / (2 Delta))``, where ``q*`` is the
largest score. Its output is ``epsilon``-DP when every score has
sensitivity ``Delta`` (Theorem 1 there), and it is never worse in expected
score than the exponential mechanism.

Every score here is a float, i.e. an exact rational number; the acceptance
coin ``Bernoulli(exp(-gamma))`` with rational ``gamma >= 0`` is sampled
exactly with the algorithm of Canonne, Kamath and Steinke (NeurIPS 2020,
Algorithm 1), which needs only fair integer draws. The released index is
therefore distributed exactly as the mechanism prescribes (given uniform
random integers from the generator): there is no floating-point gap of the
kind Mironov (CCS 2012) exploits.
"""

from fractions import Fraction

import numpy as np

__all__ = ["permute_and_flip"]

# numpy's bounded integer sampler is exact (rejection sampling) below this.
_NUMPY_INT_LIMIT = 2**62


def _uniform_below(bound, rng):
    """Exactly uniform integer in ``[0, bound)`` for a Python int ``bound >= 1``."""
    if bound <= _NUMPY_INT_LIMIT:
        return int(rng.integers(0, bound))
    n_bits = bound.bit_length()
    n_bytes = (n_bits + 7) // 8
    while True:  # rejection sampling on n_bits fair bits; accepts w.p. > 1/2
        value = int.from_bytes(rng.bytes(n_bytes), "little") >> (8 * n_bytes - n_bits)
        if value < bound:
            return value


def _bernoulli(p, rng):
    """Exact ``Bernoulli(p)`` for a ``Fraction`` ``p`` in ``[0, 1]``."""
    return _uniform_below(p.denominator, rng) < p.numerator


def _bernoulli_exp_unit(gamma, rng):
    """Exact ``Bernoulli(exp(-gamma))`` for ``gamma`` in ``[0, 1]``.

    Canonne, Kamath, Steinke (2020), Algorithm 1: draw ``A_k ~ Bernoulli(gamma/k)``
    for ``k = 1, 2, ...`` until the first ``A_k = 0``; the result is 1 iff
    that ``k`` is odd, which happens with probability ``exp(-gamma)``.
    """
    k = 1
    while _bernoulli(gamma / k, rng):
        k += 1
    return k % 2 == 1


def bernoulli_exp_neg(gamma, rng):
    """Exact ``Bernoulli(exp(-gamma))`` for a rational ``gamma >= 0``.

    ``exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma)))``:
    one ``exp(-1)`` coin per unit, stopping at the first failure, so the
    expected number of coins is below ``1 / (1 - exp(-1)) + 1``.
    """
    gamma = Fraction(gamma)
    if gamma < 0:
        raise ValueError(f"gamma must be >= 0, got {gamma}.")
    one = Fraction(1)
    while gamma > 1:
        if not _bernoulli_exp_unit(one, rng):
            return False
        gamma -= 1
    return _bernoulli_exp_unit(gamma, rng)


def permute_and_flip(scores, epsilon, sensitivity, rng):
    """Index chosen by exact permute-and-flip; ``epsilon``-DP.

    Parameters
    ----------
    scores : array-like of shape (n_candidates,)
        Finite scores; each changes by at most ``sensitivity`` between
        neighbouring datasets.
    epsilon : float
        Privacy parameter of this one selection.
    sensitivity : float
        ``Delta`` above.
    rng : numpy.random.Generator
        The privacy-noise stream (fresh OS entropy for a certified release).

    Returns
    -------
    int

    References
    ----------
    .. [1] R. McKenna and D. Sheldon, "Permute-and-Flip: A new mechanism for
       differentially private selection", NeurIPS 2020, arXiv:2010.12603,
       Algorithm 1 and Theorem 1.
    .. [2] C. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
       Differential Privacy", NeurIPS 2020, arXiv:2004.00010, Algorithm 1.
    """
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 1 or scores.size == 0 or not np.all(np.isfinite(scores)):
        raise ValueError("scores must be a non-empty 1-d array of finite numbers.")
    exact = [Fraction(float(s)) for s in scores]
    best = max(exact)
    rate = Fraction(float(epsilon)) / (2 * Fraction(float(sensitivity)))
    for index in rng.permutation(scores.size):
        if bernoulli_exp_neg(rate * (best - exact[index]), rng):
            return int(index)
    raise AssertionError("unreachable: a best-scoring candidate is always accepted")

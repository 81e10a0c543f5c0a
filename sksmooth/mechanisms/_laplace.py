"""Laplace mechanism."""


from .._validation import check_epsilon
from ._common import (add_noise, check_noise_scale, check_rng, check_sensitivity, check_size,
                      check_value)

__all__ = ["laplace_mechanism"]


def laplace_mechanism(value, epsilon, sensitivity, rng, size=None):
    """Add Laplace noise of scale ``sensitivity / epsilon`` to ``value``.

    ``epsilon``-DP when ``sensitivity`` bounds the L1 norm of the change of
    ``value`` (the whole array) between neighbouring datasets
    (Dwork & Roth 2014, Thm 3.6). It is ``epsilon^2/2``-zCDP.

    Parameters
    ----------
    value : float or array-like
        The exact (private) statistic.
    epsilon : float
        Privacy parameter, > 0.
    sensitivity : float
        L1 sensitivity of ``value``, > 0.
    rng : numpy.random.Generator
        Source of randomness.
    size : int, optional
        Number of independent noisy copies (prepended axis). Each copy is
        one ``epsilon``-DP release; all ``size`` copies together cost
        ``size * epsilon`` (composition). Meant for audits.

    Returns
    -------
    noisy : float or ndarray
        Same shape as ``value`` (a float for scalar input), or
        ``(size, *value.shape)`` when ``size`` is given.

    Notes
    -----
    Floating-point caveat: the noise is numpy's floating-point Laplace,
    which is vulnerable to Mironov's (2012) attack on the released bits; for
    integer statistics (counts) use :func:`discrete_laplace_mechanism`,
    which is exact (see :mod:`sksmooth.mechanisms`).

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.mechanisms import laplace_mechanism
    >>> noisy = laplace_mechanism(10.0, epsilon=1.0, sensitivity=1.0,
    ...                           rng=np.random.default_rng(0))
    >>> isinstance(noisy, float)
    True
    """
    arr, is_scalar = check_value(value)
    epsilon = check_epsilon(epsilon)
    sensitivity = check_sensitivity(sensitivity)
    rng = check_rng(rng)
    size = check_size(size)
    scale = check_noise_scale(sensitivity / epsilon, "sensitivity / epsilon")
    return add_noise(arr, is_scalar, size, lambda n: rng.laplace(scale=scale, size=n))

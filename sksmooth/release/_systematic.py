"""Systematic sampling within groups: low-variance uniforms for inverse-CDF draws.

Drawing ``m`` rows i.i.d. from a table ``p`` leaves every cell's count with
variance ``m p (1 - p)``: on tables of a few thousand records this sampling
error is a visible part of the emitted rows' error, on top of the model's.
Systematic sampling (Madow & Madow 1944; the "systematic resampling" of
particle filters, Kitagawa 1996, Carpenter, Clifford & Fearnhead 1999) draws
one ``u ~ U[0, 1)`` per group and uses the points ``(k + u) / m``,
``k = 0 .. m - 1``: each cell's count is then ``floor(m p)`` or
``ceil(m p)``. The points are handed to the group's rows in a uniformly
random order, so each row's point is uniform on ``[0, 1)`` and each row
still has exactly the model's (conditional) distribution. What changes is
the joint law: the rows of a group are exchangeable, not independent.

``row_uniforms`` (systematic or i.i.d.) is used wherever the release models draw rows by
inverse CDF (the dense grid, the junction tree's cliques given their
separators, MST's merged levels); ``scheme='iid'`` keeps independent rows.

References
----------
Madow & Madow, "On the theory of systematic sampling, I", Annals of
Mathematical Statistics 15(1), 1944 (docs/references.rst, [MM44]).
Kitagawa, "Monte Carlo filter and smoother for non-Gaussian nonlinear state
space models", JCGS 5(1), 1996. Carpenter, Clifford & Fearnhead, "Improved
particle filter for nonlinear problems", IEE Proc. Radar, Sonar and
Navigation 146(1), 1999.
"""

import numpy as np

__all__ = ["SCHEMES", "check_scheme", "row_uniforms", "systematic_uniforms"]

SCHEMES = ("systematic", "iid")


def systematic_uniforms(groups, rng):
    """One uniform per row: the systematic points of its group, in random order.

    Parameters
    ----------
    groups : ndarray of int, shape (n,)
        Rows with equal values form a group (e.g. the separator's
        configuration of every row).
    rng : numpy.random.Generator
        The sampling stream.

    Returns
    -------
    u : ndarray of float, shape (n,)
        In ``[0, 1)``; within a group of ``m`` rows, ``(k + u_g) / m`` for
        ``k = 0 .. m - 1`` in a uniformly random assignment to its rows.
    """
    groups = np.asarray(groups)
    n = groups.size
    if n == 0:
        return np.empty(0)
    perm = rng.permutation(n)
    keys = groups[perm]
    if keys.min() >= 0 and keys.max() < 2**16:  # numpy's radix sort for 16-bit keys
        keys = keys.astype(np.uint16)
    order = perm[np.argsort(keys, kind="stable")]  # by group, random within
    del perm, keys
    sorted_groups = groups[order]
    starts = np.flatnonzero(np.r_[True, sorted_groups[1:] != sorted_groups[:-1]])
    del sorted_groups
    sizes = np.diff(np.r_[starts, n])
    group = np.repeat(np.arange(starts.size), sizes)
    u = np.arange(n, dtype=float)
    u -= starts[group]  # the rank within the group
    u += rng.random(starts.size)[group]
    u /= sizes[group]
    del group
    np.minimum(u, np.nextafter(1.0, 0.0), out=u)  # (m - 1 + u_g) / m can round to 1
    out = np.empty(n)
    out[order] = u
    return out


def check_scheme(scheme):
    """``scheme`` if it is one of :data:`SCHEMES`, else a ``ValueError`` naming the fix."""
    if not isinstance(scheme, str) or scheme not in SCHEMES:
        raise ValueError("scheme must be 'systematic' (the default: each row drawn from the "
                         "model, the counts within one of their expectation) or 'iid' "
                         f"(independent rows); got {scheme!r}.")
    return scheme


def row_uniforms(groups, rng, scheme="systematic"):
    """Uniforms for the inverse-CDF draw of every row, by ``scheme`` (:data:`SCHEMES`)."""
    if check_scheme(scheme) == "systematic":
        return systematic_uniforms(groups, rng)
    return rng.random(np.asarray(groups).size)

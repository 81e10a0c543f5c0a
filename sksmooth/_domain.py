"""Public domains: equally spaced points of the bounds box, and rows of ``X``
as indices into a finite domain (shared by the finite-domain learners)."""

import numpy as np

__all__ = ["box_coordinates", "box_distance", "box_position", "domain_row_indices",
           "grid_threshold"]


def grid_threshold(lower, upper, index, n_cells):
    """``lower + index (upper - lower) / n_cells``: point ``index`` of the grid of
    ``n_cells`` equal cells on the public interval ``[lower, upper]``.

    Computed on halves, so it never overflows for finite bounds (the direct
    formula gives ``inf`` when ``upper - lower`` exceeds the float range,
    e.g. bounds ``(-1e308, 1e308)``); equal to the direct formula up to
    rounding, and exactly ``lower`` / ``upper`` at ``index`` 0 / ``n_cells``.
    Clipped to ``[lower, upper]``: halving a subnormal bound loses its last
    bit, which could put a point outside the box. Broadcasts over arrays of
    bounds and indices.
    """
    point = np.asarray(index * ((upper / 2 - lower / 2) / n_cells))  # then in place
    point = np.multiply(np.add(point, lower / 2, out=point), 2.0, out=point)
    point = np.minimum(np.maximum(point, lower, out=point), upper, out=point)
    np.copyto(point, upper, where=np.asarray(index >= n_cells))  # in place: no copies
    np.copyto(point, lower, where=np.asarray(index <= 0))
    return point


def box_distance(x, point, lower, upper):
    """``|x - point| / (upper - lower)``: a distance in units of the public box
    width (a degenerate width counts as 1). Computed directly (exact to
    rounding, also for subnormal widths) and, where the direct differences
    overflow, on halves, so it is finite for every finite input."""
    with np.errstate(over="ignore", invalid="ignore"):
        width = upper - lower
        gap = np.abs(x - point)
        direct = gap / np.where(width > 0, width, 1.0)
    half_width = upper / 2 - lower / 2
    halves = np.abs(x / 2 - point / 2) / np.where(half_width > 0, half_width, 0.5)
    return np.where(np.isfinite(width) & np.isfinite(gap), direct, halves)


def box_coordinates(X, lower, upper):
    """``(x - lower) / (upper - lower)``, not clipped; a degenerate feature's width counts as 1.

    Computed on halves, so that no step overflows for any finite bounds
    (``upper - lower`` may exceed the largest float, and an overflow would
    turn the row into NaN, and a warning, only for some values); equal to the
    direct formula for normal floats (halving is exact). Differences of two
    rows' coordinates are their gaps in units of the box width.
    """
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    half_width = upper / 2 - lower / 2
    return (np.asarray(X, dtype=float) / 2 - lower / 2) / np.where(half_width > 0, half_width,
                                                                     0.5)


def box_position(X, lower, upper):
    """:func:`box_coordinates` clipped to ``[0, 1]``; 0 on a degenerate feature."""
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    degenerate = ~(upper / 2 - lower / 2 > 0)
    return np.clip(np.where(degenerate, 0.0, box_coordinates(X, lower, upper)), 0.0, 1.0)


def domain_row_indices(domain, X):
    """Index of each row of ``X`` among the rows of ``domain`` (-1 if absent).

    Rows are compared by value (``-0.0`` equals ``0.0``), vectorised with one
    ``np.unique`` over the stacked rows. Where ``domain`` repeats a point, the
    first occurrence is returned.

    Parameters
    ----------
    domain : ndarray of shape (n_domain, n_features), float
    X : ndarray of shape (n_samples, n_features), float

    Returns
    -------
    ndarray of int64, shape (n_samples,)
    """
    domain = np.asarray(domain, dtype=np.float64)
    X = np.asarray(X, dtype=np.float64)
    both = np.vstack([domain, X])
    both = np.where(both == 0.0, 0.0, both)  # -0.0 and 0.0 are the same point
    _, first, inverse = np.unique(both, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    owner = np.where(first < len(domain), first, -1)
    return owner[inverse[len(domain):]].astype(np.int64)

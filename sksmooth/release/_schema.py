"""The release estimators' one reading of ``bounds``.

``bounds`` is a pair ``(lower, upper)`` (numbers, or one per column) or a
dict ``{column name or index: (lower, upper)}``; every release estimator
resolves it here to one public range, or none, per column. A column with
public levels needs no range (its codes are its domain).
"""

import numpy as np

from .._validation import BOUNDS_HINT, check_bounds, check_bounds_pair
from ._columns import column_positions, parameter_key

__all__ = ["BOUNDS_FORMS", "DEFAULT_N_BINS", "check_bounds_parameter", "bounds_by_column",
           "level_box"]

DEFAULT_N_BINS = 10  # bins per continuous column: AdaptiveMarginalSynthesizer's default
BOUNDS_FORMS = "None, a pair (lower, upper) or a dict {column: (lower, upper)}"


def check_bounds_parameter(value, name="bounds"):
    """The parameter's form, before any data is seen (returns ``value``)."""
    if not isinstance(value, dict):
        return check_bounds_pair(value, name)
    for key, pair in value.items():
        ok = isinstance(pair, (tuple, list, np.ndarray)) and np.ndim(pair) == 1 and len(pair) == 2
        if ok:
            try:
                check_bounds_pair(pair, name)
                lo, hi = (float(v) for v in pair)
            except (TypeError, ValueError):
                ok = False
        if not ok or not lo < hi:
            raise ValueError(f"{name}[{key!r}] must be a pair (lower, upper) of finite numbers "
                             f"with lower < upper. {BOUNDS_HINT}")
    return value


def bounds_by_column(bounds, n_features, names, name="bounds"):
    """``(lower, upper)`` floats or ``None`` for each of ``n_features`` columns
    (``names``: a DataFrame's column labels, ``None`` for an array)."""
    if bounds is None:
        return [None] * n_features
    if isinstance(bounds, dict):
        given = column_positions(bounds, n_features, names, name)
        return [tuple(float(v) for v in given[j]) if j in given else None
                for j in range(n_features)]
    lower, upper = check_bounds(bounds, n_features, name=name)
    return list(zip(lower.tolist(), upper.tolist()))


def level_box(bounds, levels, names):
    """``(lower, upper)`` arrays of a grid: a column's range from ``bounds`` or, for a
    column with public ``levels``, ``[0, L - 1]``; a column with neither is refused."""
    ranges = bounds_by_column(bounds, len(levels), names)
    lower, upper = np.zeros(len(levels)), np.zeros(len(levels))
    for j, (pair, lv) in enumerate(zip(ranges, levels)):
        if lv is not None:
            lower[j], upper[j] = 0.0, float(len(lv) - 1)
        elif pair is None:
            column = parameter_key(j, names)
            raise ValueError(f"bounds gives no range for column {column!r}: add "
                             f"bounds={{{column!r}: (lower, upper)}}, or declare it "
                             "categorical with public levels.")
        else:
            lower[j], upper[j] = pair
    return lower, upper

"""The finite product domain of a factored release model.

Attributes are the integers ``0 .. d-1``; attribute ``a`` has ``shape[a]``
levels coded ``0 .. shape[a]-1``. An attribute set is always a sorted tuple,
so the axes of every table follow the attribute order and tables over
nested sets broadcast against each other by inserting length-1 axes.
"""

import math

__all__ = ["as_attrs", "table_shape", "table_size"]


def as_attrs(attrs):
    """``attrs`` as a sorted tuple of distinct ints."""
    out = tuple(sorted({int(a) for a in attrs}))
    if len(out) != len(tuple(attrs)):
        raise ValueError(f"attrs must be distinct attribute indices, got {tuple(attrs)!r}.")
    return out


def table_shape(shape, attrs):
    """Shape of the table over ``attrs``."""
    return tuple(int(shape[a]) for a in attrs)


def table_size(shape, attrs):
    """Number of cells of the table over ``attrs``."""
    return math.prod(table_shape(shape, attrs))

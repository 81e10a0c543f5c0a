"""Counting a dask collection partition by partition (optional extra ``dask``).

The release estimators accept a ``dask.dataframe.DataFrame`` (or a dask
array) in ``fit``/``partial_fit``: every partition is mapped and counted
where it lives (one task per partition returns a vector of integer
counts), the vectors are added in a tree (``split_every`` at a time), and
only the total comes back. The table is never loaded whole. Dask is
imported only when such a collection is given; the scheduler is whatever is
active (a ``dask.distributed`` client, the threaded or the synchronous
scheduler).
"""

import functools
import os

import numpy as np

__all__ = ["is_dask_collection", "count_dask_partitions", "refuse_unknown_categories"]

_SPLIT_EVERY = 8


def is_dask_collection(value):
    """True for a dask collection (checked without importing dask)."""
    return value is not None and type(value).__module__.split(".")[0] in ("dask", "dask_expr")


def refuse_unknown_categories(collection, name, declared=()):
    """Refuse a categorical column whose categories dask does not know.

    Unknown categories (e.g. after ``astype('category')``) would be taken
    from the rows that are read to check the structure: private values
    published as public levels. Known categories are part of the dtype,
    i.e. declared by the user (public). ``declared``: the labels of the
    DataFrame's columns whose levels the estimator declares, or, for ``y``
    (a Series or a one-column DataFrame), ``True`` when its labels are
    declared or fixed; their categories are never consulted, so they may be
    unknown.
    """
    from dask.dataframe.utils import has_known_categories

    dtypes = getattr(collection, "dtypes", None)
    if hasattr(dtypes, "items"):  # a DataFrame: one dtype per column (a one-column y)
        skip = (lambda c: declared) if isinstance(declared, bool) else (  # noqa: E731
            lambda c: c in declared)
        columns = [c for c, t in dtypes.items() if str(t) == "category" and not skip(c)]
        unknown = [c for c in columns if not has_known_categories(collection[c])]
    elif str(getattr(collection, "dtype", "")) == "category" and declared is not True:
        unknown = [] if has_known_categories(collection) else [name]
    else:
        unknown = []
    if unknown and name == "y":
        raise ValueError(
            "the dask collection y is Categorical with unknown categories, which would be "
            "read from the private rows; declare the label set with classes=[...] (or "
            "known categories with .cat.set_categories([...])).")
    if unknown:
        raise ValueError(
            f"categorical columns {unknown[:5]} of the dask collection {name} have unknown "
            "categories, which would be read from the private rows; declare their levels "
            "with the estimator's levels/categories parameter (or known categories with "
            ".cat.set_categories([...])).")


def _partitions(collection):
    """One delayed object per row block of a dask DataFrame/Series/Array."""
    if hasattr(collection, "divisions"):  # DataFrame / Series (a dask Array has chunks)
        return list(collection.to_delayed())
    if getattr(collection, "ndim", 1) == 2:
        collection = collection.rechunk({1: -1})  # whole rows in every block
    return list(np.ravel(collection.to_delayed()))


def _sum_states(*states):
    return np.sum(np.stack(states), axis=0)


def _sum_series(*parts):
    """Sum of the one-element Series of count vectors (see _CountAsSeries)."""
    import pandas as pd

    return pd.Series([_sum_states(*[p.iloc[0] for p in parts])], dtype=object)


class _CountAsSeries:
    """``count_partition`` as a ``map_partitions`` function (picklable).

    Returns the partition's count vector inside a one-element Series, so that
    dask fuses the counting into the task that makes the partition: the
    partition is counted where it is created and never kept.
    """

    def __init__(self, count_partition):
        self.count_partition = count_partition

    def __call__(self, part, y=None):
        import pandas as pd

        return pd.Series([_counted(self.count_partition, part, y)], dtype=object)


class _CountingError(Exception):
    """An error of sksmooth's own counting code in a partition: its message is the
    one the same rows would give in memory (free of values by design), so it is
    re-raised as it is, unlike an error of dask reading the partition."""

    def __init__(self, error):
        super().__init__(error)
        self.error = error


def _counted(count_partition, *parts):
    try:
        return count_partition(*parts)
    except Exception as exc:  # noqa: BLE001 - re-raised as it is (compute_privately)
        raise _CountingError(exc) from None


_HIDDEN = ("the detail is not shown: it may name a file, quote a value read from the "
           "data or give a partition's row count")


def _without_detail(error):
    """A failure of the machinery (out of memory, a timeout, a file or connection),
    of the same type (and errno) without its text: the message may come from a row
    (a file opened per patient) or give a row count (numpy's MemoryError quotes the
    array's shape); the type and errno say what failed."""
    errno = getattr(error, "errno", None)
    reason, args = type(error).__name__, ()
    if isinstance(errno, int) and 0 <= errno < 2**31:  # os.strerror takes a C int
        try:
            reason, args = os.strerror(errno), (errno,)
        except (ValueError, OverflowError):
            pass
    try:
        return type(error)(*args, f"{reason} ({_HIDDEN})")
    except Exception:  # noqa: BLE001 - a subclass with another signature
        base = OSError if isinstance(error, OSError) else MemoryError
        return base(*args, f"{type(error).__name__}: {reason} ({_HIDDEN})")


def count_dask_partitions(X, y, count_partition):
    """Sum of ``count_partition(X_part, y_part)`` over the partitions.

    Parameters
    ----------
    X : dask DataFrame or dask Array (2-D)
    y : dask Series, dask Array (1-D) or None
        Must be partitioned like ``X`` (same number of partitions, aligned).
    count_partition : callable (X_part, y_part) -> int64 ndarray
        Picklable; returns the same-length count vector for every partition.

    Returns
    -------
    state : int64 ndarray
    """
    import dask  # optional extra: only reached with a dask collection

    if hasattr(X, "map_partitions"):  # dask DataFrame: counting fused with each partition
        import pandas as pd  # dask.dataframe requires pandas

        args = () if y is None else (y,)
        counted = X.map_partitions(_CountAsSeries(count_partition), *args,
                                   meta=pd.Series(dtype=object))
        tasks = list(counted.to_delayed())
        while len(tasks) > 1:
            tasks = [dask.delayed(_sum_series, pure=True)(*tasks[i:i + _SPLIT_EVERY])
                     for i in range(0, len(tasks), _SPLIT_EVERY)]
        (state,) = compute_privately(tasks[0])
        return np.asarray(state.iloc[0] if hasattr(state, "iloc") else state, dtype=np.int64)
    x_parts = _partitions(X)
    # one graph node for the counter (not pickled and hashed once per partition)
    count_partition = dask.delayed(functools.partial(_counted, count_partition), pure=True,
                                   traverse=False)
    if y is None:
        tasks = [count_partition(part) for part in x_parts]
    else:
        y_parts = _partitions(y)
        if len(y_parts) != len(x_parts):
            raise ValueError(f"y has {len(y_parts)} partitions but X has {len(x_parts)}; "
                             "partition them alike (e.g. take both from one dask DataFrame).")
        tasks = [count_partition(part, yp) for part, yp in zip(x_parts, y_parts)]
    while len(tasks) > 1:
        tasks = [dask.delayed(_sum_states, pure=True)(*tasks[i:i + _SPLIT_EVERY])
                 for i in range(0, len(tasks), _SPLIT_EVERY)]
    (state,) = compute_privately(tasks[0])
    return np.asarray(state, dtype=np.int64)


def compute_privately(*collections):
    """``dask.compute``, whose failure says nothing of the rows: reading a partition
    can fail on one row's value (``dd.read_csv`` types each block by its own values,
    then refuses a block where one row holds a text), and dask's message quotes it."""
    import dask

    try:
        return dask.compute(*collections)
    except Exception as exc:  # noqa: BLE001 - replaced below, outside this block
        if type(exc).__name__ in ("CancelledError", "KilledWorker", "CommClosedError"):
            raise  # the scheduler's, not a value's
        error = _shown(exc)
    # raised here, not in the except block: the original is not kept as its context
    raise error


def _shown(exc):
    """What the user sees of a failed computation (``compute_privately``)."""
    if isinstance(exc, _CountingError):  # sksmooth's own message: as in memory
        exc = exc.error
        if not isinstance(exc, (MemoryError, OSError)):  # raised by the counting itself
            exc.__cause__ = exc.__context__ = None
            exc.__suppress_context__ = True
            vars(exc).pop("__notes__", None)
            return exc.with_traceback(None)
    if isinstance(exc, (MemoryError, OSError)):  # TimeoutError, ConnectionError, ...: the
        return _without_detail(exc)  # type is kept, the text is not
    return ValueError(
        f"computing the dask collection failed ({type(exc).__name__}); the detail is "
        "not shown: it may quote a private value. A CSV read with dd.read_csv is typed "
        "block by block from its own values, so one row's text makes a numeric block "
        "fail: read it with dd.read_csv(..., dtype=object) (or dtype=str), whose "
        "values are then mapped row by row as in memory.")

"""The public schema of a release's table, built by one function for every release estimator.

:meth:`TableSchema.from_input` reads the input's *structure* (column labels, the
one public dtype, a ``Categorical``: :func:`~._columns.public_dtype`; an
ndarray's width) and the public parameters ``levels``, ``bounds`` and ``n_bins``,
never the rows' values, into a :class:`~._columns.TableCodec`. The codec's rules
(bad values, output dtypes) are in :mod:`sksmooth.release._columns`.
"""

import math
import numbers
from dataclasses import dataclass

import numpy as np

from .._constraints import READ_FROM_DATA, Check, Integer, NoneValue
from .._untrusted import read_table
from .._validation import (bounds_by_column, check_bounds, check_public_classes,
                           column_positions, no_range_error, reads_data)
from ._columns import (
    BinnedColumn,
    LevelColumn,
    NumberColumn,
    TableCodec,
    frame_columns,
    is_dataframe,
    is_numeric_dtype,
    key_collision_hint,
    levels_change,
    parameter_key,
    public_dtype,
    structure_change,
    undeclared_levels_error,
)

__all__ = ["TableSchema", "CLASSES", "DEFAULT_N_BINS", "LEVELS", "check_levels",
           "declared_level_columns", "is_dataframe"]

DEFAULT_N_BINS = 10  # bins per continuous column: AdaptiveMarginalSynthesizer's default
LEVELS_FORMS = ("int (the integers between the bounds), a sequence (one entry per column) "
                "or a dict {column: levels}")


# ------------------------------------------------------------ parameters
def check_levels(value, name="levels"):
    """The form of ``levels`` before data is seen: ``int`` (the type), a sequence of
    entries (one per column) or ``{column: entry}``; an entry is ``None``, an int
    ``L`` in ``[1, 10**6]`` (codes ``0 .. L-1``), ``int`` (the integers between the
    column's bounds) or a list of distinct levels (an int for every column, or
    ``None``: the ``Integer`` and ``NoneValue`` constraints of :data:`LEVELS`)."""
    if value is int:
        return value
    if not isinstance(value, (dict, list, tuple, np.ndarray)):
        raise TypeError(f"{name} must be {LEVELS_FORMS}, got {type(value).__name__}.")
    for entry in (value.values() if isinstance(value, dict) else value):
        if not (entry is None or entry is int or isinstance(
                entry, (list, tuple, range, np.ndarray, set, frozenset))
                or (isinstance(entry, numbers.Integral) and not isinstance(entry, bool)
                    and 1 <= entry <= 10**6)):
            raise TypeError(f"{name} entries must be None, an int in [1, 10**6], int (the "
                            f"integers between the column's bounds) or a list of levels; "
                            f"got {entry!r}.")
    return value


LEVELS = (NoneValue(), Integer(1, high=10**6, cap_reason="levels per column"),
          Check(check_levels, LEVELS_FORMS))


def _check_classes(value, name="classes"):
    check_public_classes(value, name, at_least=1, any_type=True)
    return value  # sorted when resolved (resolve_labels)


# ``classes`` of every release estimator: the levels of y, one more column
CLASSES = (NoneValue(), READ_FROM_DATA, Check(_check_classes, "a 1-D list of labels"))


def declared_level_columns(X, levels):
    """Labels of the DataFrame ``X``'s columns whose levels ``levels`` declares."""
    columns = list(getattr(X, "columns", []))
    if not columns or levels is None:
        return set()
    if not isinstance(levels, (dict, list, tuple, np.ndarray)):
        return set(columns)
    if isinstance(levels, dict):
        return {columns[j] for j in column_positions(levels, len(columns), columns, "levels")}
    return {c for c, declared in zip(columns, levels) if declared is not None}


# ------------------------------------------------------------------ schema
@dataclass
class TableSchema:
    """The codec of a table's columns (:class:`~._columns.TableCodec`) and which are
    categorical (public levels, or the integers between public bounds)."""

    codec: TableCodec
    categorical: np.ndarray  # bool mask

    @property
    def n_features(self):
        return len(self.codec.columns)

    @property
    def columns(self):
        """DataFrame column names, or None for an ndarray."""
        return self.codec.names if self.codec.frame else None

    @property
    def levels(self):
        """Per column: the ndarray of public levels, or None."""
        return [c.levels if isinstance(c, LevelColumn) else None for c in self.codec.columns]

    @classmethod
    def from_input(cls, X, levels, bounds=None, n_bins=None):
        """The schema of ``X`` (read for its structure only) under the public parameters.

        ``n_bins=None`` (the grid family): a column without levels stays numbers, for
        the universe to discretise on its bounds. An int (AdaptiveMarginalSynthesizer):
        it is cut into ``n_bins`` bins of its ``bounds`` here, and a column with
        neither levels nor bounds is refused.
        """
        X = read_table(X)
        shape = getattr(X, "shape", None)
        if shape is None or len(shape) != 2:  # lists, 1-D or 3-D input: validation says so
            return cls(TableCodec([], [], False), np.zeros(0, dtype=bool))
        if is_dataframe(X):
            names = frame_columns(X)
            return cls.build(names, [public_dtype(t) for t in X.dtypes], True, levels,
                             bounds, n_bins)
        return cls.build([f"x{j}" for j in range(shape[1])], [None] * shape[1], False,
                         levels, bounds, n_bins)

    @classmethod
    def build(cls, names, dtypes, frame, levels, bounds=None, n_bins=None):
        """:meth:`from_input` on a table's ``names``, ``dtypes`` and kind (the column
        strategies keep only the public part of a dtype: :func:`~._columns.public_dtype`)."""
        n_features, columns = len(names), (names if frame else None)
        if isinstance(levels, dict):
            given = column_positions(levels, n_features, columns, "levels")
            declared = [given.get(j) for j in range(n_features)]
        elif isinstance(levels, (list, tuple, np.ndarray)):
            declared = list(levels)
            if len(declared) != n_features:
                raise ValueError(f"levels has {len(declared)} entries for {n_features} "
                                 "columns.")
        else:
            declared = [levels] * n_features
        ranges = (bounds_by_column(bounds, n_features, columns)
                  if n_bins is not None or isinstance(bounds, dict) else [None] * n_features)
        strategies = [_strategy(j, declared[j], dtypes[j], ranges[j], columns, n_bins,
                                isinstance(bounds, dict)) for j in range(n_features)]
        categorical = np.array([isinstance(c, LevelColumn) or getattr(c, "integer", False)
                                for c in strategies], dtype=bool)
        return cls(TableCodec(names, strategies, frame), categorical)

    # --------------------------------------------------------- encoding
    def encode(self, X):
        """Numeric matrix: level codes for columns with levels, numbers otherwise.

        A DataFrame and an array alike go through the codec: a non-number
        becomes NaN (then mapped into the box like any missing value); refusing a
        non-numeric array would tell that some row held text. Input of an unusual
        structure (1-D, 3-D, ragged, another width) is returned as given, for
        validation to report.
        """
        X = read_table(X)
        if self.n_features == 0 or len(getattr(X, "shape", ())) != 2 \
                or X.shape[1] != self.n_features:  # validation names the mismatch
            return X
        return np.column_stack(self.codec.encode(TableCodec.split(X)[0])).astype(float)

    @property
    def all_levelled(self):
        """Whether every column is level-coded (its bounds then come from its levels)."""
        return self.n_features > 0 and all(lv is not None for lv in self.levels)

    def box(self, bounds, values=None):
        """The grid's ``(lower, upper)``: ``[0, L - 1]`` for a column with levels, else its
        range in ``bounds`` (a pair, ``{column: pair}``, or ``'data'``: read from
        ``values``); a column with neither is refused."""
        d = self.n_features
        if isinstance(bounds, dict):
            ranges = bounds_by_column(bounds, d, self.columns)
            for j, (pair, lv) in enumerate(zip(ranges, self.levels)):
                if pair is None and lv is None:
                    column = parameter_key(j, self.columns)
                    raise no_range_error(column, alternative=", or declare its public levels")
            lower, upper = (np.array([p[i] if p else 0.0 for p in ranges]) for i in (0, 1))
        elif reads_data(bounds) and self.all_levelled:  # box edges are level counts
            lower, upper = np.zeros(d), np.zeros(d)
        else:
            lower, upper = (np.array(v, dtype=float) for v in check_bounds(bounds, d, X=values))
        for j, lv in enumerate(self.levels):
            if lv is not None:
                lower[j], upper[j] = 0.0, float(len(lv) - 1)
        return lower, upper

    def decode(self, X_num):
        """Synthetic rows in the input's format (names, public dtypes, levels)."""
        return self.codec.decode(np.asarray(X_num, dtype=float))

    def feature_names(self, input_features=None):
        return self.codec.feature_names(input_features)

    def change_to(self, other):
        """What differs in a later chunk's schema (public structure; dtypes compared by
        family: :func:`~._columns.structure_family`), for a message; ``None``: it maps
        its rows like this one."""
        return (structure_change(self.codec.structure(), other.codec.structure())
                or levels_change(self.codec.names, self.levels, other.levels)
                or (None if np.array_equal(self.categorical, other.categorical)
                    else "its categorical features differ"))


# ----------------------------------------------------------------- helpers
def _strategy(j, declared, dtype, pair, columns, n_bins, ranged_by_name):
    """Column ``j``'s codec strategy from its ``levels`` entry, public dtype and range."""
    name, hint = parameter_key(j, columns), key_collision_hint(j, columns)
    if declared is int:  # the integers between the column's public bounds
        if n_bins is None:  # the universe makes them its levels
            return NumberColumn(dtype, integer=True)
        if pair is None:
            raise ValueError(f"levels gives column {name!r} the integers between its bounds, "
                             f"but bounds gives it no range: add bounds={{{name!r}: (lower, "
                             "upper)}.")
        declared = list(range(math.ceil(pair[0]), math.floor(pair[1]) + 1))
        if not declared:
            raise ValueError(f"bounds {pair} of column {name!r} hold no integer.")
        return LevelColumn.public(declared, dtype, name, "levels")
    column = LevelColumn.public(declared, dtype, name, "levels")
    if column is not None:
        if pair is not None and ranged_by_name:
            raise ValueError(f"column {name!r} has both levels and bounds: declare it "
                             "either categorical (levels) or continuous (bounds).")
        return column
    if n_bins is None:
        if not _reads_as_numbers(dtype):
            raise ValueError(f"column {name!r} is not numeric: declare its public levels "
                             f"(levels={{{name!r}: [...]}}){hint}.")
        return NumberColumn(dtype)
    if pair is None:
        raise undeclared_levels_error(name, "levels", alternative=(
            f", or declare a continuous column's public range with bounds="
            f"{{{name!r}: (lower, upper)}}{hint}"))
    if not pair[0] < pair[1]:
        raise ValueError(f"bounds gives column {name!r} the empty range {pair}; its lower "
                         "bound must be below its upper bound.")
    return BinnedColumn(*pair, n_bins, dtype)


def _reads_as_numbers(dtype):
    """Whether a column of public ``dtype`` without levels is read as numbers: ``None``
    (a dtype that follows the values; a non-number is then mapped like a missing
    value, never refused) yes. Numeric and ``object`` dtypes read as numbers too,
    for a codec that trusted input dtypes (the attack tests' broken variants)."""
    return dtype is None or is_numeric_dtype(dtype) or str(dtype) == "object"

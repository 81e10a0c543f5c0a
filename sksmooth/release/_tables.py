"""Tables in, tables out: the public schema of the release estimators' input.

A :class:`TableSchema` is fitted from the input's *structure* (column names
and the public dtypes of a pandas DataFrame, or the width of an ndarray) and
from public parameters only — never from the values of the private rows. A
dtype numpy or pandas picks from the values (int64/float64/object, numpy
bool, ``str``, datetime, and the nullable and Arrow dtypes of
``convert_dtypes()`` or ``read_csv(dtype_backend=...)``: one row can change
it) is not structure
(:func:`~sksmooth.release._columns.public_dtype`): such a column is numbers
unless declared categorical.

- which columns are categorical: ``categorical_features`` as names,
  indices, a boolean mask, or ``'from_dtype'`` (the columns with a pandas
  ``Categorical`` dtype, the only public dtype, and those with declared
  ``categories``);
- the levels of a categorical column are public: declared in
  ``categories={column: [levels]}``, or the categories of a pandas
  ``Categorical`` dtype; a categorical column without declared levels has the integer
  levels between its public bounds. A text in a column without declared
  levels is mapped like a missing value, never refused (a refusal would
  tell that some row held text); reading levels from the data would
  release which values occur.

Internally every column is a number, by the shared column codec of
:mod:`sksmooth.release._columns` (the same rules as
``AdaptiveMarginalSynthesizer``): a categorical column with levels is coded
``0 .. L-1`` (a value outside the levels, including a missing one, becomes
code 0 — the package's data-independent rule for bad rows, see
:mod:`sksmooth._untrusted`); any other column is passed through as
numbers for the universe. :meth:`TableSchema.decode` maps synthetic rows
back: a DataFrame with the original column names when a DataFrame came in
(an ndarray of the columns' common public dtype otherwise), with dtypes
fixed by public inputs only (:func:`~sksmooth.release._columns.public_output_dtype`):
a numpy numeric column comes out float64 (continuous) or its levels' dtype
(int64 for integer levels), since its input dtype can follow the private
values (a missing value makes int64 float64; ``convert_dtypes()`` picks
``Int64`` or ``Float64`` by them); a ``Categorical`` is kept. pandas is
imported lazily, only when a DataFrame is given.
"""

import numbers
from dataclasses import dataclass

import numpy as np

from .._untrusted import read_table
from ._columns import (
    LevelColumn,
    NumberColumn,
    TableCodec,
    column_index,
    column_positions,
    dtype_categories,
    frame_columns,
    is_dataframe,
    is_numeric_dtype,
    key_collision_hint,
    levels_change,
    parameter_key,
    public_dtype,
    same_levels,
    structure_change,
    undeclared_levels_error,
)

__all__ = ["TableSchema", "is_dataframe", "check_categorical_features", "check_categories"]


def check_categorical_features(value, name="categorical_features"):
    """Structural check of the parameter (before data is seen)."""
    if value is None or (isinstance(value, str) and value == "from_dtype"):
        return value
    if isinstance(value, (str, bytes, dict, set)) or np.ndim(value) != 1:
        raise TypeError(
            f"{name} must be None, 'from_dtype', a boolean mask, integer indices or "
            f"column names (a 1-D list), got {type(value).__name__}."
        )
    items = list(value)
    kinds = {("bool" if isinstance(v, (bool, np.bool_)) else
              "int" if isinstance(v, numbers.Integral) else
              "str" if isinstance(v, str) else "other") for v in items}
    if len(kinds) > 1 or "other" in kinds:
        raise TypeError(
            f"{name} must hold only booleans (a mask), only integer indices or only "
            "column names."
        )
    return value


def check_categories(value, name="categories"):
    """``None`` or a dict ``{column name or index: list of distinct levels}``."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise TypeError(f"{name} must be None or a dict {{column: [levels]}}, got "
                        f"{type(value).__name__}.")
    for key, levels in value.items():
        if isinstance(levels, (str, bytes, dict, set)) or np.ndim(levels) != 1 or len(levels) == 0:
            raise ValueError(f"{name}[{key!r}] must be a non-empty 1-D list of levels.")
        if len(set(_hashable(v) for v in levels)) != len(levels):
            raise ValueError(f"{name}[{key!r}] contains duplicate levels.")
    return value


def _hashable(v):
    return v.item() if isinstance(v, np.generic) else v


@dataclass
class TableSchema:
    """Public description of the input columns (see module docstring).

    A :class:`~sksmooth.release._columns.TableCodec` (one strategy per
    column: :class:`LevelColumn` for a column with public levels,
    :class:`NumberColumn` otherwise) and the categorical mask.
    """

    codec: TableCodec
    categorical: np.ndarray  # bool mask

    @property
    def n_features(self):
        return len(self.codec.columns)

    @property
    def is_frame(self):
        return self.codec.frame

    @property
    def columns(self):
        """DataFrame column names, or None for an ndarray."""
        return self.codec.names if self.is_frame else None

    @property
    def dtypes(self):
        """DataFrame dtypes, or None for an ndarray."""
        return self.codec.dtypes if self.is_frame else None

    @property
    def levels(self):
        """Per column: the ndarray of public levels, or None."""
        return [c.levels if isinstance(c, LevelColumn) else None for c in self.codec.columns]

    @property
    def has_levels(self):
        return np.array([lv is not None for lv in self.levels], dtype=bool)

    # ---------------------------------------------------------- fitting
    @classmethod
    def from_input(cls, X, categorical_features, categories):
        """Schema from the input's structure and the public parameters."""
        X = read_table(X)
        frame = is_dataframe(X)
        shape = getattr(X, "shape", None)
        if shape is None or len(shape) != 2:  # lists, 1-D or 3-D input: validation says so
            return cls(TableCodec([], [], False), np.zeros(0, dtype=bool))
        n_features = shape[1]
        columns = frame_columns(X) if frame else None
        dtypes = [public_dtype(t) for t in X.dtypes] if frame else [None] * n_features
        declared = column_positions(categories or {}, n_features, columns, "categories")
        mask = _categorical_mask(categorical_features, n_features, columns,
                                 dtypes if frame else None, declared)
        strategies = [_column_strategy(j, mask[j], declared.get(j), columns, dtypes[j])
                      for j in range(n_features)]
        names = columns if frame else [f"x{j}" for j in range(n_features)]
        return cls(TableCodec(names, strategies, frame), mask)

    # --------------------------------------------------------- encoding
    def encode(self, X):
        """Numeric matrix: level codes for columns with levels, numbers otherwise.

        A DataFrame and an array alike go through the codec: a non-number
        becomes NaN (then mapped into the box like any missing value). An
        array's dtype follows its values (one text makes a float array
        object), so refusing a non-numeric array would tell that some row
        held text. Input of an unusual structure (1-D, 3-D, ragged, another
        width) is returned as given, for validation to report.
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

    def public_bounds(self, lower, upper):
        """Bounds with the level-coded columns set to ``[0, L-1]``."""
        lower, upper = np.array(lower, dtype=float), np.array(upper, dtype=float)
        for j, lv in enumerate(self.levels):
            if lv is not None:
                lower[j], upper[j] = 0.0, float(len(lv) - 1)
        return lower, upper

    def decode(self, X_num):
        """Synthetic rows in the input's format (names, public dtypes, levels)."""
        return self.codec.decode(np.asarray(X_num, dtype=float))

    def feature_names(self, input_features=None):
        return self.codec.feature_names(input_features)

    def same_structure(self, other):
        """Whether a later chunk's schema maps its rows like this one.

        Dtypes are compared by :func:`~sksmooth.release._columns.structure_family`:
        a dtype that follows the values (int64 vs float64 because of one
        missing value) must not make a chunk's fate depend on its values.
        """
        return (self.codec.structure() == other.codec.structure()
                and np.array_equal(self.categorical, other.categorical)
                and all(same_levels(a, b) for a, b in zip(self.levels, other.levels)))

    def change_to(self, other):
        """What differs in a later chunk's schema (public structure), for a message."""
        return (structure_change(self.codec.structure(), other.codec.structure())
                or levels_change(self.codec.names, self.levels, other.levels)
                or "its categorical features differ")


# ----------------------------------------------------------------- helpers
def _categorical_mask(spec, n_features, columns, dtypes, declared):
    """The categorical columns; ``dtypes`` are public (:func:`public_dtype`)."""
    mask = np.zeros(n_features, dtype=bool)
    if spec is None:
        if dtypes is not None:  # levels known from the dtype are categorical anyway
            mask[:] = [dtype_categories(t) is not None for t in dtypes]
        return mask
    if isinstance(spec, str):  # 'from_dtype'
        if dtypes is None:
            raise ValueError("categorical_features='from_dtype' needs a pandas DataFrame; "
                             "pass indices or a boolean mask for an ndarray.")
        # a dtype that follows the values (None here) is numbers unless declared
        mask[:] = [not is_numeric_dtype(t) or j in declared for j, t in enumerate(dtypes)]
        return mask
    items = list(spec)
    if items and isinstance(items[0], (bool, np.bool_)):
        if len(items) != n_features:
            raise ValueError(f"categorical_features as a boolean mask must have length "
                             f"n_features={n_features}, got {len(items)}.")
        return np.asarray(items, dtype=bool)
    for item in items:
        mask[column_index(item, n_features, columns, "categorical_features")] = True
    return mask


def _column_strategy(j, is_categorical, declared, columns, dtype):
    """The column's codec strategy: levels (declared, dtype categories, bool) or numbers."""
    name = parameter_key(j, columns)
    if declared is not None and not is_categorical:
        raise ValueError(f"categories gives levels for column {name!r}, which is not in "
                         "categorical_features; add it there.")
    if not is_categorical:
        if not _reads_as_numbers(dtype):
            raise ValueError(
                f"column {name!r} is not numeric: declare it categorical "
                f"(categorical_features) with public levels (categories="
                f"{{{name!r}: [...]}} or a pandas Categorical dtype)"
                f"{key_collision_hint(j, columns)}.")
        return NumberColumn(dtype)
    column = LevelColumn.public(declared, dtype, name, "categories")
    if column is not None:
        return column
    if _reads_as_numbers(dtype):
        return NumberColumn(dtype, integer=True)  # integer levels between the public bounds
    raise undeclared_levels_error(name, "categories", key_collision_hint(j, columns))


def _reads_as_numbers(dtype):
    """Whether a column of public ``dtype`` is read as numbers: ``None`` (a dtype
    that follows the values, :func:`~sksmooth.release._columns.public_dtype`; a
    non-number is then mapped like a missing value, never refused) yes, a
    Categorical no (it needs levels). Numeric and ``object`` dtypes read as
    numbers too, for a codec that trusted input dtypes (the attack tests'
    broken variants: pandas stores a numeric column with one text as object)."""
    return dtype is None or is_numeric_dtype(dtype) or str(dtype) == "object"

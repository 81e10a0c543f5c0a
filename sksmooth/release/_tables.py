"""Tables in, tables out: the public schema of the release estimators' input.

A :class:`TableSchema` is fitted from the input's *structure* (column names
and dtypes of a pandas DataFrame, or the width of an ndarray) and from
public parameters only — never from the values of the private rows:

- which columns are categorical: ``categorical_features`` as names,
  indices, a boolean mask, or ``'from_dtype'`` (pandas ``Categorical``,
  boolean and string/object columns);
- the levels of a categorical column are public: declared in
  ``categories={column: [levels]}``, or the categories of a pandas
  ``Categorical`` dtype, or ``[False, True]`` for a boolean column; a
  numeric categorical column without declared levels has the integer levels
  between its public bounds. A string column without declared levels is an
  error that names the fix: reading the levels from the data would release
  which values occur.

Internally every column is a number: a categorical column with levels is
coded ``0 .. L-1`` (a value outside the levels, including a missing one,
becomes code 0 — the package's data-independent rule for bad rows, see
:mod:`sksmooth._private_data`). :meth:`TableSchema.decode` maps synthetic
rows back: a DataFrame with the original column names when a DataFrame
came in (an ndarray otherwise), with dtypes fixed by public inputs only: a
numpy numeric column comes out float64 (continuous) or int64 (integer
levels), since its input dtype can follow the private values (a missing
value makes int64 float64); ``Categorical``, boolean and pandas extension
dtypes are kept. pandas is imported lazily, only
when a DataFrame is given.
"""

import numbers
from dataclasses import dataclass

import numpy as np

__all__ = ["TableSchema", "is_dataframe", "check_categorical_features", "check_categories"]


def is_dataframe(X):
    """True for a pandas DataFrame (without importing pandas)."""
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc")


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
    """Public description of the input columns (see module docstring)."""

    n_features: int
    categorical: np.ndarray  # bool mask
    levels: list  # per column: ndarray of public levels, or None
    columns: list = None  # DataFrame column names, or None for an ndarray
    dtypes: list = None  # DataFrame dtypes, or None

    @property
    def is_frame(self):
        return self.columns is not None

    @property
    def has_levels(self):
        return np.array([lv is not None for lv in self.levels], dtype=bool)

    # ---------------------------------------------------------- fitting
    @classmethod
    def from_input(cls, X, categorical_features, categories):
        """Schema from the input's structure and the public parameters."""
        frame = is_dataframe(X)
        shape = getattr(X, "shape", None)
        if shape is None or len(shape) != 2:  # lists, 1-D or 3-D input: validation says so
            return cls(0, np.zeros(0, dtype=bool), [])
        n_features = shape[1]
        columns = [c for c in X.columns] if frame else None
        dtypes = list(X.dtypes) if frame else None
        mask = _categorical_mask(categorical_features, n_features, columns, dtypes)
        declared = _declared_levels(categories, n_features, columns)
        levels = []
        for j in range(n_features):
            levels.append(_column_levels(j, mask[j], declared.get(j), columns, dtypes))
        if frame:
            for j in range(n_features):
                if not mask[j] and not _is_numeric(dtypes[j]):
                    raise ValueError(
                        f"column {columns[j]!r} is not numeric: declare it categorical "
                        f"(categorical_features) with public levels (categories="
                        f"{{{columns[j]!r}: [...]}} or a pandas Categorical dtype)."
                    )
        return cls(n_features, mask, levels, columns, dtypes)

    # --------------------------------------------------------- encoding
    def encode(self, X):
        """Numeric matrix: level codes for columns with levels, numbers otherwise.

        Columns without levels are returned as given (floats or objects) for
        :func:`~sksmooth._private_data.validate_private_data` to convert.
        """
        if not self.is_frame and not np.any(self.has_levels):
            return X  # numbers only: validate_private_data converts (or refuses) it
        columns = []
        for j in range(self.n_features):
            series = X.iloc[:, j] if self.is_frame else None
            col = series.to_numpy() if self.is_frame else np.asarray(X)[:, j]
            if self.levels[j] is not None:
                columns.append(_codes(col, self.levels[j], series))
            else:
                columns.append(col)
        try:
            return np.column_stack([np.asarray(c, dtype=float) for c in columns])
        except (TypeError, ValueError):  # validate_private_data refuses it without values
            out = np.empty((X.shape[0], self.n_features), dtype=object)
            for j, c in enumerate(columns):
                out[:, j] = c
            return out

    def public_bounds(self, lower, upper):
        """Bounds with the level-coded columns set to ``[0, L-1]``."""
        lower, upper = np.array(lower, dtype=float), np.array(upper, dtype=float)
        for j, lv in enumerate(self.levels):
            if lv is not None:
                lower[j], upper[j] = 0.0, float(len(lv) - 1)
        return lower, upper

    def decode(self, X_num):
        """Synthetic rows in the input's format (names, dtypes, levels)."""
        X_num = np.asarray(X_num, dtype=float)
        cols = []
        for j in range(self.n_features):
            v = X_num[:, j]
            if self.levels[j] is not None:
                v = np.asarray(self.levels[j], dtype=object if not self.is_frame else None)[
                    np.rint(v).astype(np.int64)]
            cols.append(v)
        if not self.is_frame:
            if np.any(self.has_levels) and any(
                    not np.issubdtype(np.asarray(c).dtype, np.number) for c in cols):
                return np.stack([np.asarray(c, dtype=object) for c in cols], axis=1)
            return np.stack([np.asarray(c, dtype=float) for c in cols], axis=1)
        import pandas as pd  # optional dependency: only reached with DataFrame input

        data = {}
        for j, (name, dtype) in enumerate(zip(self.columns, self.dtypes)):
            data[name] = _as_dtype(pd, cols[j], dtype, self.levels[j], self.categorical[j])
        return pd.DataFrame(data, columns=self.columns)

    def feature_names(self):
        if self.is_frame:
            return np.asarray([str(c) for c in self.columns], dtype=object)
        return np.asarray([f"x{j}" for j in range(self.n_features)], dtype=object)


# ----------------------------------------------------------------- helpers
def _is_numeric(dtype):
    try:
        return np.issubdtype(np.dtype(dtype), np.number) and not np.issubdtype(
            np.dtype(dtype), np.bool_)
    except TypeError:  # pandas extension dtypes (Categorical, string, nullable ints)
        kind = getattr(dtype, "kind", "O")
        return kind in "iuf"


def _is_bool(dtype):
    return getattr(dtype, "kind", None) == "b" or str(dtype) == "boolean"


def _pandas_categories(dtype):
    cats = getattr(dtype, "categories", None)
    return None if cats is None else np.asarray(cats)


def _categorical_mask(spec, n_features, columns, dtypes):
    mask = np.zeros(n_features, dtype=bool)
    if spec is None:
        if dtypes is not None:  # levels known from the dtype are categorical anyway
            mask[:] = [_pandas_categories(t) is not None or _is_bool(t) for t in dtypes]
        return mask
    if isinstance(spec, str):  # 'from_dtype'
        if dtypes is None:
            raise ValueError("categorical_features='from_dtype' needs a pandas DataFrame; "
                             "pass indices or a boolean mask for an ndarray.")
        mask[:] = [not _is_numeric(t) for t in dtypes]
        return mask
    items = list(spec)
    if items and isinstance(items[0], (bool, np.bool_)):
        if len(items) != n_features:
            raise ValueError(f"categorical_features as a boolean mask must have length "
                             f"n_features={n_features}, got {len(items)}.")
        return np.asarray(items, dtype=bool)
    for item in items:
        mask[_column_index(item, n_features, columns, "categorical_features")] = True
    return mask


def _column_index(key, n_features, columns, name):
    if isinstance(key, (bool, np.bool_)):
        raise TypeError(f"{name}: column keys must be names or integer indices.")
    if isinstance(key, numbers.Integral):
        if not -n_features <= key < n_features:
            raise ValueError(f"{name}: index {key} is out of range for {n_features} columns.")
        return int(key) % n_features
    if columns is None:
        raise ValueError(f"{name}: column name {key!r} given but X has no column names "
                         "(an ndarray); use integer indices.")
    if key not in columns:
        raise ValueError(f"{name}: X has no column {key!r}.")
    return columns.index(key)


def _declared_levels(categories, n_features, columns):
    out = {}
    for key, levels in (categories or {}).items():
        out[_column_index(key, n_features, columns, "categories")] = np.asarray(list(levels))
    return out


def _column_levels(j, is_categorical, declared, columns, dtypes):
    if declared is not None:
        if not is_categorical:
            raise ValueError(
                f"categories gives levels for column {_name(j, columns)!r}, which is not in "
                "categorical_features; add it there.")
        return declared
    if not is_categorical:
        return None
    dtype = None if dtypes is None else dtypes[j]
    cats = None if dtype is None else _pandas_categories(dtype)
    if cats is not None:
        return cats
    if dtype is not None and _is_bool(dtype):
        return np.array([False, True])
    if dtype is None or _is_numeric(dtype):
        return None  # integer levels between the public bounds
    raise ValueError(
        f"categorical column {_name(j, columns)!r} has no public levels: declare them with "
        f"categories={{{_name(j, columns)!r}: [...]}} or give the column a pandas Categorical "
        "dtype. Levels are never read from the private data (that would release which "
        "values occur)."
    )


def _name(j, columns):
    return j if columns is None else columns[j]


def _codes(values, levels, series=None):
    """Position of each value in ``levels``; anything else (incl. missing) -> 0.

    A pandas Categorical column whose categories are exactly ``levels`` is
    read from its integer codes (vectorised); otherwise value by value.
    """
    categories = None if series is None else _pandas_categories(series.dtype)
    if categories is not None and len(categories) == len(levels) and all(
            _hashable(a) == _hashable(b) and type(_hashable(a)) is type(_hashable(b))
            for a, b in zip(categories, levels)):
        codes = np.asarray(series.cat.codes, dtype=np.int64)
        return np.where(codes < 0, 0, codes)
    index = {_hashable(v): i for i, v in enumerate(levels)}
    return np.fromiter((index.get(_hashable(v), 0) for v in values), dtype=np.int64,
                       count=len(values))


def dtype_follows_values(dtype):
    """Whether pandas/numpy may pick this dtype from the values: numpy dtypes and
    pandas' string dtypes (pandas >= 3 stores a text column as ``str``, and as
    float64 when every value is missing). A synthetic column must not echo it."""
    return isinstance(dtype, np.dtype) or str(dtype) in ("str", "string")


def _as_dtype(pd, values, dtype, levels, categorical):
    """A synthetic column whose dtype depends on public inputs only.

    A numpy numeric dtype follows the values (one missing value turns an
    int64 column into float64), so echoing it would tell whether some private
    row had a missing value. Such a column comes out as int64 when it is
    categorical with integer levels and as float64 when continuous. pandas
    extension dtypes (``Categorical``, ``Int64``, ``Float64``, ``boolean``,
    ``string``) hold missing values without changing type and are kept.
    """
    if _pandas_categories(dtype) is not None:
        return pd.Categorical(values, dtype=dtype)
    if _is_bool(dtype):
        return pd.array(np.asarray(values, dtype=bool), dtype=dtype)
    if _is_numeric(dtype) and levels is None:
        values = np.asarray(values, dtype=float)
        if dtype_follows_values(dtype):
            return np.rint(values).astype(np.int64) if categorical else values
        if getattr(dtype, "kind", "f") in "iu":
            values = np.rint(values)
        return pd.array(values, dtype=dtype)
    return pd.array(np.asarray(values, dtype=object), dtype=dtype)

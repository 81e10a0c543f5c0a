"""Column codecs: one public rule for turning a private table into numbers and back.

:class:`TableCodec` holds one strategy per column (:class:`LevelColumn`,
:class:`NumberColumn`, :class:`BinnedColumn`), fixed from the input's structure
and public parameters only, never from the private values. The rules (which
dtypes count, where levels come from, bad values, output dtypes):
``docs/derivations.rst``, section "Column codecs".
"""

import numbers
import warnings

import numpy as np

from .._domain import box_position, grid_threshold
from .._untrusted import distinct_labels
from .._validation import check_positive_int, check_public_classes, reads_data, refuse_unset
from ..exceptions import PrivacyWarning, user_stacklevel
from .._untrusted import as_floats, check_no_numeric_twins, level_codes, same_value

__all__ = [
    "BinnedColumn",
    "LevelColumn",
    "NumberColumn",
    "TableCodec",
    "check_n_samples",
    "declared_dtype",
    "dtype_categories",
    "warn_levels_from_dtype",
    "frame_columns",
    "dtype_follows_values",
    "format_labels",
    "label_dtype",
    "label_name",
    "label_output_dtype",
    "levels_change",
    "parameter_key",
    "is_dataframe",
    "is_numeric_dtype",
    "key_collision_hint",
    "public_dtype",
    "public_levels",
    "reads_labels_from_rows",
    "resolve_labels",
    "schema_change_error",
    "structure_change",
    "public_output_dtype",
    "undeclared_levels_error",
]


# ------------------------------------------------------------------ dtypes
def is_dataframe(X):
    """True for a pandas DataFrame (without importing pandas)."""
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc")


def dtype_follows_values(dtype):
    """Whether pandas/numpy may pick this dtype from the values, so that one
    private row can change it: every dtype but a ``Categorical``. numpy picks
    from the values (a missing value makes int64 float64 and bool object, a
    stray text makes any column object), and so does pandas: ``str``,
    datetimes, and its nullable and Arrow dtypes, which ``convert_dtypes()``
    and ``read_csv(dtype_backend=...)`` choose by the values (a column of whole
    numbers is ``Int64``, with one 41.5 ``Float64``; of booleans ``boolean``,
    with one text ``string``). A ``Categorical`` is asked for by name
    (``astype('category')``, ``read_csv(dtype='category')``) whatever the
    values, so it is structure (its categories are not:
    :func:`warn_levels_from_dtype`). ``None`` (an ndarray) follows too.
    """
    return getattr(dtype, "categories", None) is None


def public_dtype(dtype):
    """The part of a column's dtype that is public structure: the dtype itself
    when no value can change it, else ``None`` (nothing). Every decision of
    the codec — levels, which columns are categorical, output dtypes, what a
    pickled estimator stores — is taken from it, never from the input dtype."""
    return None if dtype_follows_values(dtype) else dtype


def is_numeric_dtype(dtype):
    """Numbers (not booleans), numpy or pandas extension (``Int64``, ``Float64``)."""
    try:
        return np.issubdtype(np.dtype(dtype), np.number) and not np.issubdtype(
            np.dtype(dtype), np.bool_)
    except TypeError:  # pandas extension dtypes (Categorical, string, nullable ints)
        return getattr(dtype, "kind", "O") in "iuf"


def dtype_categories(dtype):
    """The categories of a pandas ``Categorical`` dtype, else ``None``."""
    cats = getattr(dtype, "categories", None)
    return None if cats is None else np.asarray(cats)


def parameter_key(j, columns):
    """The key naming column ``j`` in a per-column parameter (and in messages that
    suggest one): its label, or its position when it has no labels (an ndarray)
    or an integer label (an integer key is a position: :func:`column_index`). When
    that position is another column's label, no key names it until the columns get
    string labels (:func:`key_collision_hint`): its label as a string."""
    if columns is None:
        return j
    if isinstance(columns[j], numbers.Integral):
        return str(columns[j]) if key_collision_hint(j, columns) else j
    return columns[j]


def key_collision_hint(j, columns):
    """The fix to append when column ``j``'s position is another column's integer
    label (no dict key can then name it: :func:`column_index`), else ``""``."""
    labels = [] if columns is None else list(columns)
    if j in labels and labels.index(j) != j:
        return (" (first give the columns string labels, e.g. X.columns = "
                "X.columns.astype(str): X's integer labels collide with positions, and an "
                "integer key is a position)")
    return ""


# ------------------------------------------------------------------ levels
def public_levels(declared, dtype, name, parameter):
    """The public levels of one column, or ``None`` when it has none.

    ``declared``: an int ``L`` (codes ``0 .. L-1``) or a list of distinct
    levels, given by the user; otherwise the categories of a ``Categorical``
    dtype. Never the data, nor a dtype that follows it (a numpy bool column
    with one missing value is an object column; ``convert_dtypes()`` makes
    one of booleans ``boolean``, with one text ``string``: :func:`public_dtype`).
    """
    dtype = public_dtype(dtype)
    if declared is not None:
        if isinstance(declared, (int, np.integer)) and not isinstance(declared, bool):
            if declared < 1:
                raise ValueError(f"{parameter} for column {name!r} must be an int >= 1 or a "
                                 "non-empty list of distinct levels.")
            return np.arange(int(declared))
        if isinstance(declared, (set, frozenset)):
            raise TypeError(f"{parameter} for column {name!r} is a set, whose order is not "
                            "fixed (the codes and seeded releases would change between runs); "
                            "pass a list.")
        items = list(declared)
        levels = np.asarray(items)
        if levels.dtype.kind in "US" and not all(isinstance(v, str) for v in items):
            levels = np.empty(len(items), dtype=object)  # mixed types keep their own
            levels[:] = items
        texts = {str(v) for v in levels.tolist()}  # values are matched by value or text
        if levels.ndim != 1 or levels.size == 0 or len(texts) != levels.size:
            raise ValueError(f"{parameter} for column {name!r} must be a non-empty list of "
                             "distinct levels" + (" or an int >= 1." if parameter == "levels"
                                                  else "."))
        check_no_numeric_twins(levels, f"{parameter} for column {name!r}")
        return levels
    categories = dtype_categories(dtype)
    if categories is not None and len(categories) == 0:  # as a declared [] is refused
        declare = ("classes=[...]" if parameter == "classes"  # the label set is a list
                   else f"{parameter}={{{name!r}: [...]}}")
        raise ValueError(f"column {name!r} is a Categorical with no categories; declare its "
                         f"levels ({declare}) or set its dtype's categories "
                         "(pd.CategoricalDtype([...])).")
    return categories


def label_dtype(y):
    """The dtype of a label vector (a Series', a one-column DataFrame's, an array's)."""
    if hasattr(y, "columns") and len(y.columns) == 1:
        return y.dtypes.iloc[0]
    return getattr(y, "dtype", None)


def reads_labels_from_rows(y, declared):
    """Whether a release's label set would be read from ``y``'s rows: a ``y`` given,
    no classes ``declared``, and no public dtype giving them (:func:`resolve_labels`)."""
    return y is not None and not declared and LevelColumn.public(
        None, label_dtype(y), "y", "classes") is None


def resolve_labels(y, classes, dtype):
    """``(labels, inferred, from_dtype)``: the label set of a release's ``y``.

    Declared ``classes``; else a ``Categorical`` ``dtype``'s categories
    (``from_dtype``: not certified, :func:`warn_levels_from_dtype`); else, with
    ``classes='data'``, read from ``y`` (``inferred``, with a
    ``PrivacyLeakWarning``; ``None`` is refused). A
    ``Categorical`` never refuses declared ``classes`` (:func:`declared_dtype`).
    """
    from_dtype = False
    if classes is None:  # a Categorical y's labels are not read from it
        column = LevelColumn.public(None, dtype, "y", "classes")
        if column is not None:
            classes, from_dtype = column.levels, column.from_dtype
    inferred = refuse_unset(classes, "classes")
    labels = distinct_labels(y) if inferred else check_public_classes(
        classes, at_least=1, any_type=True)
    if len(labels) == 0:
        raise ValueError("classes must list at least one label.")
    LevelColumn.public(labels, dtype, "y", "classes")  # distinct levels, no numeric twins
    return labels, inferred, from_dtype


def declared_dtype(dtype, levels):
    """The public dtype of a column (or ``y``) whose ``levels`` the user declared.

    A ``Categorical`` dtype's categories may have been read from the private
    rows (``astype('category')``), so once levels are declared they are
    never consulted: the column gets a ``Categorical`` of the declared levels
    in the declared order (the dtype's ``ordered`` flag kept, so for an ordered
    column the declared order is the order), whatever the input's categories. A
    value outside the declared levels takes the fixed code (never refused).
    Any other dtype is :func:`public_dtype`'s.
    """
    dtype = public_dtype(dtype)
    if dtype_categories(dtype) is None:
        return dtype
    import pandas as pd  # a Categorical came in, so pandas is installed

    categories = pd.Index(np.asarray(levels))
    if categories.hasnans:  # a missing value as a level: no Categorical holds it
        return None  # the levels' own dtype (public_output_dtype)
    return pd.CategoricalDtype(categories, ordered=dtype.ordered)


def frame_columns(X):
    """A DataFrame's column labels; duplicates are refused (one output column
    per name: a synthetic frame would otherwise merge them). Labels are public."""
    repeated = list(dict.fromkeys(X.columns[X.columns.duplicated()]))
    if repeated:
        raise ValueError(f"X has duplicate column names {repeated}: give every column its "
                         "own name (e.g. X.columns = [...]) before fitting.")
    return list(X.columns)


def warn_levels_from_dtype(names, parameter, labels_from_dtype=False):
    """One :class:`~sksmooth.PrivacyWarning` when levels came from dtypes (SPEC's "never
    overclaim": the release is not certified), and the guarantee's notes it returns: the
    feature columns ``names`` (declared with ``parameter``) and the labels."""
    groups = [(names, parameter)] if names else []
    if labels_from_dtype:
        groups.append((["y"], "classes"))
    notes = [f"levels of columns {group} are their pandas Categorical dtype's categories: "
             "public only if the dtype was declared from public knowledge (astype('category') "
             "or read_csv(dtype='category') reads them from the data); declare them with "
             f"{declared_by}= to certify" for group, declared_by in groups]
    if notes:
        warnings.warn(f"the release is not certified: {'; '.join(notes)}.", PrivacyWarning,
                      stacklevel=user_stacklevel())
    return notes


def undeclared_levels_error(name, parameter, alternative=""):
    """The refusal of a column without public levels (names the fix)."""
    return ValueError(
        f"column {name!r} has no public levels: declare them with {parameter}="
        f"{{{name!r}: [...]}} or give the column a pandas Categorical dtype{alternative}. "
        "Levels are never read from the private data (that would release which values "
        "occur, and the largest value would set the model's size); a pyarrow dictionary "
        "or polars categorical column is read by its values, as its dictionary may be "
        "computed from the rows, so its levels must be declared.")


# ------------------------------------------------------------------ values
def _rint_codes(numbers, n_codes):
    """Nearest code in ``0 .. n_codes-1`` (NaN -> 0)."""
    v = np.nan_to_num(np.rint(np.asarray(numbers, dtype=float)), nan=0.0)
    return np.clip(v, 0, n_codes - 1).astype(np.int64)


# ---------------------------------------------------------------- columns
class LevelColumn:
    """A categorical column: public levels coded ``0 .. L-1``.

    A value takes the code of the level it equals — numbers compare as
    numbers when the levels are numbers (``1``, ``1.0``, ``True`` and the
    text ``"1"`` are level ``1``), anything else by its text. A value outside
    the levels, a missing value or a non-number gets code 0: never refused,
    never counted (the count would depend on the data).
    """

    def __init__(self, levels, dtype=None, from_dtype=False):
        self.levels = np.asarray(levels)
        self.dtype = public_dtype(dtype)  # the input's dtype if it is structure, else None
        self.from_dtype = from_dtype  # levels are the Categorical dtype's categories

    @classmethod
    def public(cls, declared, dtype, name, parameter):
        """The column of :func:`public_levels`, or ``None`` when it has none."""
        levels = public_levels(declared, dtype, name, parameter)
        if levels is None:
            return None
        from_dtype = declared is None and dtype_categories(public_dtype(dtype)) is not None
        dtype = public_dtype(dtype) if declared is None else declared_dtype(dtype, levels)
        return cls(levels, dtype, from_dtype=from_dtype)

    def chunk_dtype(self, dtype):
        """The public dtype of a later chunk's column of input ``dtype``, built as
        this column's was (:meth:`TableCodec.structure` compares them)."""
        return public_dtype(dtype) if self.from_dtype else declared_dtype(dtype, self.levels)

    @property
    def n_codes(self):
        return len(self.levels)

    def encode(self, values):
        levels = self.levels
        categories = dtype_categories(getattr(values, "dtype", None))
        if categories is not None and categories.dtype == levels.dtype and np.array_equal(
                categories, levels):  # a Categorical with exactly these levels: its codes
            codes = np.asarray(values.cat.codes, dtype=np.int64)
            return np.where(codes < 0, 0, codes)
        return level_codes(values, levels)

    def decode(self, numbers, rng=None):
        return self.levels[_rint_codes(numbers, self.n_codes)]

    def output_dtype(self):
        return self.levels.dtype


class NumberColumn:
    """A numeric column passed through as numbers (the MWEM family's universe).

    The universe discretises it on its public bounds, and
    :func:`~sksmooth._untrusted.sanitize_rows` maps a missing or
    out-of-bounds value into them. ``integer=True``: a categorical column
    whose levels are the integers between its public bounds (synthetic
    values are rounded to them).
    """

    def __init__(self, dtype=None, integer=False):
        self.dtype = public_dtype(dtype)
        self.integer = bool(integer)

    def encode(self, values):
        return as_floats(values)  # a non-number -> NaN, mapped into the box later

    def decode(self, numbers, rng=None):
        values = np.asarray(numbers, dtype=float)
        return np.rint(values) if self.output_dtype().kind in "iu" else values

    def output_dtype(self):
        """int64 for integer levels, else float64 (a column's int or float dtype follows
        its values: :func:`dtype_follows_values`)."""
        return np.dtype(np.int64 if self.integer else float)


class BinnedColumn:
    """A continuous column cut into ``n_bins`` equal-width bins of its public bounds.

    The discretisation is data independent (bounds and bin count are public
    parameters), so it costs no privacy budget; a private quantile split
    would. A value below/above the bounds goes to the first/last bin, a
    missing, NaN or non-number value to the middle bin (never refused or
    counted). Synthetic values are floats drawn uniformly inside their bin
    from the sampling stream (post-processing); whether the input held
    integers is not public (:func:`dtype_follows_values`), so round them if
    whole numbers are wanted.
    """

    def __init__(self, lower, upper, n_bins, dtype=None):
        self.lower, self.upper, self.n_bins = float(lower), float(upper), int(n_bins)
        self.dtype = public_dtype(dtype)

    @staticmethod
    def chunk_dtype(dtype):
        return public_dtype(dtype)

    @property
    def n_codes(self):
        return self.n_bins

    def encode(self, values):
        v = as_floats(values)
        rel = box_position(v, self.lower, self.upper) * self.n_bins  # NaN stays NaN
        rel = np.where(np.isnan(rel), self.n_bins / 2.0, rel)
        codes = np.floor(np.clip(rel, -1.0, self.n_bins))  # clip first: no int overflow
        return np.clip(codes, 0, self.n_bins - 1).astype(np.int64)

    def decode(self, codes, rng):
        codes = np.asarray(codes)
        u = rng.random(len(codes))
        return np.clip(grid_threshold(self.lower, self.upper, codes + u, self.n_bins),
                       self.lower, self.upper)

    def output_dtype(self):
        return np.dtype(float)


def public_output_dtype(column):
    """The dtype a synthetic column gets: public inputs only, never the values.

    A numpy dtype is read from the values (pandas stores an int column with
    one missing value as float64, a bool column as object), so echoing it
    would tell whether some real row had a missing value; so would pandas'
    nullable dtypes, which ``convert_dtypes()`` picks by the values. Such a
    column gets its strategy's public dtype (levels' dtype or float64). A
    ``Categorical``, asked for by name whatever the values, is kept.
    """
    if dtype_follows_values(column.dtype):
        return column.output_dtype()
    return column.dtype


def structure_family(dtype):
    """What a chunk's column type must keep across the chunks of one release.

    Any dtype that follows the values is one family (int vs float because of
    a NaN, bool vs object, str vs float64 for an all-missing chunk, Int64 vs
    Float64), since a finer check would refuse a chunk because of its values;
    a Categorical (the one public dtype) must stay the same.
    """
    return "inferred" if dtype_follows_values(dtype) else str(dtype)


def levels_change(names, before, after):
    """The first column whose levels differ between the first chunk (``before``) and
    a later one (``after``), for a message (levels are public structure)."""
    show = lambda lv: "none (numbers)" if lv is None else list(lv)[:8]  # noqa: E731
    for name, first, later in zip(names, before, after):
        if not same_value(first, later):
            return f"column {name!r} has levels {show(later)}, the first chunk's {show(first)}"
    return None


def schema_change_error(change):
    """The refusal of a later chunk whose schema differs from the first chunk's."""
    return ValueError(
        f"this chunk's schema differs from the first chunk's: {change}. Every chunk of one "
        "release must have the same column names, dtypes and levels (e.g. the same pandas "
        "Categorical dtypes); call fit, or release() and start a new accumulation, to "
        "change it.")


def structure_change(before, after):
    """The first difference between two chunks' :meth:`TableCodec.structure` (names
    and dtype families are public structure, so a message may show them)."""
    (frame0, names0, types0), (frame1, names1, types1) = before, after
    if frame0 != frame1:
        return ("an array came after a DataFrame" if frame0 else
                "a DataFrame came after an array")
    if names0 != names1:
        return f"its columns are {list(names1)[:8]}, the first chunk's {list(names0)[:8]}"
    show = {"inferred": "a dtype numpy or pandas picks from the values"}
    for name, a, b in zip(names0, types0, types1):
        if a != b:
            return f"column {name!r} has {show.get(b, b)}, the first chunk's {show.get(a, a)}"
    return None


# ------------------------------------------------------------------ table
class TableCodec:
    """Public column structure of a table: one strategy per column.

    ``encode`` maps the columns to numbers (codes or raw numbers, per
    strategy), ``decode`` maps numbers back to synthetic values in the
    input's names and public dtypes: a DataFrame when a DataFrame came in,
    an ndarray otherwise (of the columns' common public dtype; object when
    some levels are not numbers).
    """

    def __init__(self, names, columns, frame):
        self.names = list(names)
        self.columns = list(columns)
        self.frame = bool(frame)

    @staticmethod
    def split(X):
        """``(columns, names, dtypes, frame)`` of a DataFrame or a 2-D array."""
        if is_dataframe(X):
            return ([X.iloc[:, j] for j in range(X.shape[1])], frame_columns(X),
                    list(X.dtypes), True)
        arr = np.asarray(X)
        return ([arr[:, j] for j in range(arr.shape[1])], [f"x{j}" for j in range(arr.shape[1])],
                [arr.dtype] * arr.shape[1], False)

    @property
    def shape(self):
        return tuple(c.n_codes for c in self.columns)

    @property
    def dtypes(self):
        return [c.dtype for c in self.columns]

    def levels_from_dtype(self):
        """Names of the columns whose levels are their ``Categorical`` dtype's categories."""
        return [name for name, column in zip(self.names, self.columns)
                if getattr(column, "from_dtype", False)]

    def structure(self):
        """What every chunk of one release must share (names, dtype families)."""
        return self.structure_of(self.frame, self.names, self.dtypes)

    @staticmethod
    def structure_of(frame, names, dtypes):
        """:meth:`structure` of a chunk's ``names`` and ``dtypes``."""
        return (frame, tuple(str(n) for n in names), tuple(structure_family(t) for t in dtypes))

    def encode(self, columns):
        """One numeric column per strategy (codes, or numbers as given)."""
        return [c.encode(v) for c, v in zip(self.columns, columns)]

    def subset(self, stop):
        return TableCodec(self.names[:stop], self.columns[:stop], self.frame)

    def decode(self, numbers, rng=None):
        numbers = np.asarray(numbers)
        values = [c.decode(numbers[:, j], rng) for j, c in enumerate(self.columns)]
        if not self.frame:
            return _stack(values, [public_output_dtype(c) for c in self.columns], len(numbers))
        import pandas as pd  # a DataFrame came in, so pandas is installed

        data = {name: _pandas_column(pd, v, public_output_dtype(c))
                for name, v, c in zip(self.names, values, self.columns)}
        return pd.DataFrame(data, columns=self.names)

    def feature_names(self, input_features=None, n_features=None):
        """Names of the first ``n_features`` columns (all by default), as strings.

        ``input_features`` (scikit-learn's ``get_feature_names_out``
        argument): when the fitted DataFrame's names are all strings (its
        ``feature_names_in_``) it must list them; otherwise any names, as
        many as columns, returned as given (scikit-learn's rule).
        """
        n_features = len(self.names) if n_features is None else n_features
        if self.frame:
            names = np.asarray([str(c) for c in self.names[:n_features]], dtype=object)
        else:
            names = np.asarray([f"x{j}" for j in range(n_features)], dtype=object)
        if input_features is None:
            return names
        named = self.frame and all(isinstance(c, str) for c in self.names[:n_features])
        given = np.asarray(input_features, dtype=object).ravel()
        if len(given) != n_features or (named and not np.array_equal(given, names)):
            raise ValueError(
                f"input_features must be None or the {n_features} fitted column names "
                f"{list(names) if named else '(any names)'}, got {list(given)}.")
        return names if named else given


def _stack(values, dtypes, n_rows):
    if not values:
        return np.empty((n_rows, 0))
    if all(np.dtype(t).kind in "iufb" for t in dtypes):
        common = np.result_type(*dtypes)
        return np.stack([np.asarray(v).astype(common) for v in values], axis=1)
    return np.stack([np.asarray(v, dtype=object) for v in values], axis=1)


def _pandas_column(pd, values, dtype):
    if dtype_categories(dtype) is not None:
        return pd.Categorical(values, dtype=dtype)
    return np.asarray(values).astype(dtype)  # public dtypes are numpy's or a Categorical


# ------------------------------------------------------- synthetic output
MAX_SAMPLES = 10**8  # synthetic rows per sample() call (memory)


def check_n_samples(n_samples):
    """``sample``'s row count: an int in ``[0, MAX_SAMPLES]``, else an error naming it."""
    n_samples = check_positive_int(n_samples, "n_samples", minimum=0)
    if n_samples > MAX_SAMPLES:
        raise ValueError(f"n_samples must be <= {MAX_SAMPLES} per call (memory); draw "
                         "in several calls.")
    return n_samples


def label_name(y):
    """The name of a pandas Series ``y`` (its synthetic labels come back under it,
    a column name being public structure); ``False`` for any other ``y``."""
    return getattr(y, "name", None) if y is not None and hasattr(y, "to_numpy") \
        and not hasattr(y, "columns") else False


def label_output_dtype(y, declared):
    """The public dtype a pandas Series ``y``'s synthetic labels come back with
    (a Categorical: :func:`public_dtype`; with ``declared``
    classes, a Categorical of them in the order given: :func:`declared_dtype`),
    else ``None``."""
    if label_name(y) is False:
        return None
    if reads_data(declared):
        return public_dtype(label_dtype(y))
    return declared_dtype(label_dtype(y), public_levels(declared, None, "y", "classes"))


def format_labels(y_syn, name, dtype=None):
    """Synthetic labels as fitted: a Series named ``name`` (of the public ``dtype``
    when there is one), or the array (``name`` is ``False``)."""
    if name is False:
        return y_syn
    import pandas as pd  # a Series was fitted, so pandas is installed

    if dtype is not None:
        return pd.Series(_pandas_column(pd, y_syn, dtype), name=name)
    return pd.Series(y_syn, name=name)

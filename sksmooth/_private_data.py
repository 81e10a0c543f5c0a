"""Data-independent handling of private rows (SPEC §1.1, §3.1).

After the public-parameter checks, nothing a user sees — exception, message,
warning or fitted attribute — may depend on the values of private rows: an
error raised only when some row is NaN or carries an unknown label is itself
a release (with infinite privacy loss). So the private estimators never
refuse a row for its *values*; they map it, row by row, with a fixed public
rule. A fixed row-wise map sends neighbouring datasets to neighbouring
datasets (substitution and add/remove alike), so it costs no privacy, and
how many rows it touched is never reported.

The rule, the same in every private estimator:

- an entry that is no real number (a text, a dict, a complex number with an
  imaginary part) reads as ``NaN``, a number beyond the float range as
  ``+-inf``, a complex one with imaginary part 0 as its real part: an object
  or complex dtype follows the values (one such entry in a list or a
  DataFrame column), so it is not structure;
- a non-finite or out-of-box coordinate is replaced: ``+inf`` by the upper
  bound, ``-inf`` by the lower bound, ``NaN`` by the centre of the box, then
  every coordinate is clipped to the public box;
- a label outside the public label set ``classes_`` becomes ``classes_[0]``.

What stays an error is the *structure* of the input, which is public: its
shape, its number of columns, a sparse container. Those messages name the
problem and the fix, never a value (scikit-learn's own messages print the
offending value or the whole array; they are replaced here).
"""

import itertools
import warnings

import numpy as np
from scipy import sparse
from sklearn.utils.validation import validate_data

from ._values import as_floats, level_codes
from .exceptions import DataConversionWarning

__all__ = ["validate_private_data", "as_labels", "as_table", "as_real_numbers", "finite_rows",
           "sanitize_rows", "encode_private_labels"]


_HIDDEN_VALUE_MESSAGE = (
    "{what} must hold numbers only; at least one entry could not be converted to float "
    "(argument must be a string or a real number; the value is not shown: it may be "
    "private). Encode non-numeric columns first, e.g. with OrdinalEncoder.")


def _structural_message(exc, what):
    text = str(exc)
    if "could not convert" in text or "invalid literal" in text:  # quotes the entry: never
        return _HIDDEN_VALUE_MESSAGE.format(what=what)  # passed, whatever the entry says
    if text.startswith("Found array with dim"):  # the number of dimensions: structure
        return text.splitlines()[0] + f" Pass {what} as a 2-D array (n_samples, n_features)."
    if "Expected 2D array" in text or "Expected a 2-dimensional" in text:
        return (f"{what} must be 2-D (n_samples, n_features). Reshape your data either "
                "using X.reshape(-1, 1) for a single feature or X.reshape(1, -1) for a "
                "single sample.")
    if "Complex data not supported" in text:
        return f"Complex data not supported: {what} must hold real numbers."
    if "requires y to be passed" in text:
        return text.splitlines()[0]  # names the estimator only
    if "argument must be a string or a" in text:
        return f"{what}: " + text.splitlines()[0]  # names a type, never a value
    if "sparse" in text.lower():
        return text.splitlines()[0]  # about the container type, not values
    if "n_features" in text or "features, but" in text:
        return text  # counts of columns only: public structure, no values
    if text.startswith(("The feature names should match", "Feature names")):
        return text  # column names: public structure (the table's schema), no values
    if "0 sample" in text or "minimum of" in text:
        return text  # counts only
    if "dtype" in text or "convert" in text:
        return _HIDDEN_VALUE_MESSAGE.format(what=what)
    return (f"{what} was refused by input validation ({type(exc).__name__}); the "
            "detail is not shown because it may contain private values.")


def validate_private_data(estimator, X, y="no_validation", *, reset=True, **kwargs):
    """scikit-learn's ``validate_data`` without value-bearing messages.

    Non-finite entries pass through (``ensure_all_finite=False``) for
    :func:`sanitize_rows` to map; structural errors are re-raised with a
    message free of data values.
    """
    kwargs.setdefault("ensure_all_finite", False)
    if kwargs.get("dtype", "numeric") is not None:
        # a value that is no real number (a text in an object column, 10**400, a complex
        # entry, a date) is mapped, never refused: the refusal would be a release. Read
        # first, not after numpy's own conversion fails: numpy reads a date among
        # numbers as its count of units, and one text elsewhere would change that
        X = as_real_numbers(X)
    try:
        X = validate_data(estimator, X, reset=reset, **kwargs)
    except (OverflowError, TypeError, ValueError) as exc:
        raise type(exc)(_structural_message(exc, "X")) from None
    if isinstance(y, str) and y == "no_validation":
        return X
    return X, _check_private_y(y, X.shape[0])


def as_real_numbers(X):
    """``X`` with object, text, complex and time entries read by
    :func:`~sksmooth._values.as_floats` (a non-number or a date is NaN, a number
    beyond the float range +-inf, a complex one its real part or NaN); mapped into
    the box afterwards by :func:`sanitize_rows`.
    Input of another structure is returned as given, for validation to report."""
    if sparse.issparse(X):  # refused as such by validation
        return X
    if hasattr(X, "columns"):  # a table: keep its column names
        if not hasattr(X, "iloc"):  # polars, pyarrow: scikit-learn converts them, unless
            X = _pandas_if_read_entry_by_entry(X)  # a column holds texts (one row's text
            if not hasattr(X, "iloc"):  # makes pyarrow's read_csv type it 'string')
                return X
        # pandas: object, text ('str', 'string', Arrow strings), Categorical and time
        # columns are picked by the values (pandas 3 reads a numeric column with one text
        # as 'str'; a date column with one text is object)
        if not any(dtype.kind in _READ_ENTRY_BY_ENTRY for dtype in X.dtypes):
            return X
        return X.apply(lambda column: type(column)(as_floats(column), index=column.index,
                                                   name=column.name)
                       if column.dtype.kind in _READ_ENTRY_BY_ENTRY else column)
    X = as_table(X)  # a list entry by entry: numpy would make every entry a text for one
    try:
        array = np.asarray(X)
    except (TypeError, ValueError):  # ragged: a structural error
        return X
    if array.dtype.kind in _READ_ENTRY_BY_ENTRY:
        return as_floats(array.ravel()).reshape(array.shape)
    return X


# object (texts, Categoricals), Arrow strings ('U'), complex, dates, durations
_READ_ENTRY_BY_ENTRY = "OUScMm"


# pyarrow's (int64, uint8, double, float, halffloat, bool) and polars' (Int64, UInt8,
# Float32, Boolean) names of number types, lower-cased
_NUMERIC_TYPE_NAMES = ("int", "uint", "float", "double", "halffloat", "bool")


def _pandas_if_read_entry_by_entry(table):
    """A polars or pyarrow table as a pandas one (same column names) when one of its
    columns is to be read entry by entry; else the table as given."""
    schema = getattr(table, "schema", None)  # pyarrow: schema.types; polars: dtypes
    types = getattr(schema, "types", None) or getattr(table, "dtypes", None) or ()
    if types and all(str(t).lower().startswith(_NUMERIC_TYPE_NAMES) for t in types):
        return table  # numbers only: no copy
    try:
        frame = table.to_pandas()
    except Exception:  # noqa: BLE001 - no pandas conversion: scikit-learn's own reading
        return table
    if any(dtype.kind in _READ_ENTRY_BY_ENTRY for dtype in frame.dtypes):
        return frame
    return table


def finite_rows(X):
    """The rows of ``X`` without NaN or inf (one zero row if none): what a box read
    from the data (``bounds=None``, warned) is taken from."""
    finite = X[np.all(np.isfinite(X), axis=1)]
    return finite if len(finite) else np.zeros((1, X.shape[1]))


def as_table(X):
    """A nested list as an object array: its entries keep their own values (numpy
    would otherwise pick one dtype for all of them, turning ``True`` into the
    text ``"True"`` when another row holds a text). A complex array follows its
    values (one complex entry makes it complex): read by
    :func:`~sksmooth._values.as_floats`."""
    if isinstance(X, np.ndarray) and X.dtype.kind == "c":
        return as_floats(X)
    if hasattr(X, "shape") or not isinstance(X, (list, tuple)):
        return X
    try:
        return np.asarray(X, dtype=object)
    except ValueError:  # ragged: validation reports it
        return X


def as_labels(y):
    """``y`` as an array: a list or tuple entry by entry, as :func:`as_table` reads
    ``X`` (numpy would pick one dtype for all labels, turning ``True`` into the
    text ``"True"`` when another label is a text, or fail on a label that is a
    sequence and print the row count). A one-entry sequence stands for its
    entry (a column vector given as a list); any other label is kept as it is,
    so a label outside the classes moves its own row only. Where numpy keeps
    every label's value its array is used (the same codes, and the labels' own
    dtype): integers and booleans; numbers with floats among them, unless an
    int beyond 2^53 would be rounded; texts only."""
    if not isinstance(y, (list, tuple)):
        return np.asarray(y)
    whole = _flat_array(y)  # the common case, without a pass in Python over the labels
    if whole is not None and _keeps_values(whole, y):
        return whole
    if whole is None and all(isinstance(v, (list, tuple, np.ndarray)) for v in y):
        whole = _flat_array(y, column=True)  # a column vector: numpy reads it (n, 1)
        if whole is not None and _keeps_values(whole, [v[0] for v in y]):
            return whole
    labels = [v[0] if _is_one_entry(v) else v for v in y]
    whole = _flat_array(labels)
    if whole is not None and _keeps_values(whole, labels):
        return whole
    return np.fromiter(labels, dtype=object, count=len(labels))


def _flat_array(labels, *, column=False):
    """numpy's array of ``labels``, or None where numpy refuses them or makes no
    1-D array of them (a label that is a sequence); with ``column``, numpy's
    ``(n, 1)`` array of one-entry sequences, raveled."""
    # numpy reads np.ma.masked with a warning, which one row would raise (and
    # catch_warnings, not thread-safe, must not silence it): such labels are read
    # entry by entry. The entries' types are collected in C
    try:
        entries = list(itertools.chain.from_iterable(labels)) if column else labels
    except TypeError:  # a 0-d array among the sequences: numpy makes no (n, 1) column
        return None
    types = set(map(type, entries))
    if any(issubclass(t, np.ma.MaskedArray) for t in types):  # np.ma.masked too
        return None
    if any(issubclass(t, (list, tuple)) or _is_other_sequence(t) for t in types):
        return None  # numpy would make no 1-D array (no (n, 1) column) of them
    if any(issubclass(t, np.ndarray) for t in types) and any(
            isinstance(v, np.ndarray) and v.dtype == object
            and np.ma.core.MaskedConstant in set(map(type, v.ravel().tolist()))
            for v in entries):
        return None
    try:
        whole = np.asarray(labels)
    except (TypeError, ValueError, OverflowError):
        return None
    if column:
        return whole.ravel() if whole.ndim == 2 and whole.shape[1] == 1 else None
    return whole if whole.ndim == 1 else None


def _keeps_values(whole, labels):
    """Whether numpy's array ``whole`` of ``labels`` holds every label's own value."""
    kind = whole.dtype.kind
    if kind == "f":  # numbers only (not a 0-d array, np.bool_, Decimal: :func:`_exact_float`)
        types = set(map(type, labels))
        if not all(issubclass(t, (float, np.floating, int, np.integer)) for t in types):
            return False
        if not any(issubclass(t, (int, np.integer)) for t in types):
            return True
        # an int beyond 2^53 is rounded, to a float of magnitude >= 2^53
        return (not np.any(np.abs(whole.astype(np.float64)) >= 2.0**53)
                or all(map(_exact_float, labels)))
    return kind in ("b", "i", "u") or (kind == "U" and all(isinstance(v, str) for v in labels))


def _exact_float(value):
    """Whether numpy's float of a label is the label's own value."""
    if isinstance(value, (int, np.integer)):  # bool too
        return abs(int(value)) <= 2**53
    return isinstance(value, (float, np.floating))


def _is_one_entry(value):
    return isinstance(value, (list, tuple, np.ndarray)) and _holds_one(value) and (
        not isinstance(value, np.ndarray) or value.ndim == 1)


def _is_other_sequence(kind):
    """A container type numpy would descend into or read as an object (a deque, a
    range, a set), other than list, tuple, text and arrays."""
    return (hasattr(kind, "__len__") and not issubclass(kind, (str, bytes, np.ndarray))
            and not issubclass(kind, (list, tuple, dict)))


def _holds_one(value):
    """``np.size(value) == 1`` without numpy's array of it (which warns on
    ``np.ma.masked``); nested one-entry containers are followed in a loop."""
    while True:
        if isinstance(value, np.ndarray):
            return value.size == 1
        if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__"):
            return True  # a scalar (numpy reads a dict as one object)
        if len(value) != 1:
            return False
        value = next(iter(value))


def _check_private_y(y, n_samples):
    """Check only the structure of ``y`` (public); its values, NaN included, are
    left to :func:`encode_private_labels` (scikit-learn's own check refuses a
    non-finite label: an error that depends on one private value)."""
    if y is None:
        raise ValueError("This estimator requires y to be passed, but the target y is None.")
    y = as_labels(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected; it is "
                      "raveled. Pass y as a 1-d array, e.g. y.ravel().",
                      DataConversionWarning, stacklevel=3)
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {y.shape} instead.")
    if len(y) != n_samples:
        raise ValueError("Found input variables with inconsistent numbers of samples: "
                         f"[{n_samples}, {len(y)}]")
    return y


def sanitize_rows(X, lower, upper):
    """Map every coordinate into the public box ``[lower, upper]`` (module rule)."""
    X = np.array(X, dtype=float, copy=True)
    lower = np.broadcast_to(np.asarray(lower, dtype=float), X.shape[1:])
    upper = np.broadcast_to(np.asarray(upper, dtype=float), X.shape[1:])
    nan = np.isnan(X)
    if nan.any():  # lower / 2 + upper / 2: no overflow for any finite bounds
        X[nan] = np.broadcast_to(lower / 2 + upper / 2, X.shape)[nan]
    # np.maximum/np.minimum in place: np.clip with per-column bounds is ~4x slower
    np.maximum(X, lower, out=X)
    return np.minimum(X, upper, out=X)


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


def encode_private_labels(y, classes_):
    """Index of each label in ``classes_``; labels outside it map to 0 (module rule).

    Each label's code depends on that label only (:func:`~sksmooth._values.level_codes`):
    one label of a type not comparable with ``classes_`` must not move the
    others (sorting would raise, and mapping every label to 0 would make one
    row change all of them).
    """
    return level_codes(y, classes_).astype(np.intp)

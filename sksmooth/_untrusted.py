"""Reading untrusted values: numbers (``X``), labels (``y``) and tables, by one public rule.

A row's number, text or code depends on that row's value only, never on what
other rows hold; a non-number or missing value is mapped, never refused, and
no message or warning quotes a value. Only the input's structure (shape,
width, a sparse container) is refused, by the package's own checks (SPEC §1.1,
§3.1). Loops run over distinct values, not rows.
"""

import datetime
import itertools
import sys
import warnings

import joblib
import numpy as np
from scipy import sparse
from sklearn.utils.validation import check_array, validate_data

from .exceptions import DataConversionWarning, user_stacklevel

__all__ = ["read_numbers", "input_columns", "read_shown_numbers", "read_labels", "read_table",
           "as_floats", "level_codes", "is_missing", "same_value", "value_fingerprint",
           "labels_equal", "distinct_labels", "check_no_numeric_twins", "encode_private_labels",
           "sanitize_rows", "finite_rows", "read_sample_weight"]


# ------------------------------------------------------------------ values
def is_missing(value):
    """Whether ``value`` is a missing value: ``None``, a NaN of any float type, a
    ``NaT``, or pandas' ``NA`` (whose comparisons are missing too)."""
    if value is None:
        return True
    try:
        unequal = value != value
    except ArithmeticError:  # Decimal('sNaN') refuses to compare
        return True
    except (TypeError, ValueError):  # an object that does not compare is a value
        return False
    if np.ndim(unequal):  # an array-valued level: a value, compared element-wise elsewhere
        return False
    try:
        return bool(unequal)
    except (TypeError, ValueError):  # pd.NA: its comparisons are NA too
        return True


def same_value(a, b):
    """Whether ``a`` and ``b`` are the same value by :func:`value_fingerprint`."""
    return value_fingerprint(a) == value_fingerprint(b)


def value_fingerprint(value):
    """A content hash deciding "the same value?" (a parameter since the first
    ``partial_fit`` call, a column's public levels between chunks). It never raises.

    Numbers by value (``1``, ``1.0``, ``True``, ``np.float64(1)``; ``-0.0`` is
    ``0``); every missing value (``None``, any NaN, ``NaT``, ``pd.NA``) is one; a
    list, tuple or array that numpy reads as numbers is one float array (shape
    kept, whatever its memory layout), another element by element; a dict by its
    items in any order; a random generator by its kind and seed (its state
    advances with the stream); any other object by its pickled content, else (a
    lambda, a structure too deep) by identity.
    """
    try:
        return joblib.hash(_canonical(value))
    except Exception:  # noqa: BLE001 - pickling errors of any type, deep recursion
        return ("object", id(value))


def _canonical(value):
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, (np.random.Generator, np.random.RandomState)):
        seed = getattr(getattr(value, "bit_generator", None), "seed_seq", None)
        return ("generator", type(value).__name__, repr(seed))
    if isinstance(value, dict):
        return ("dict", sorted(((_canonical(k), _canonical(v)) for k, v in value.items()),
                               key=repr))
    if isinstance(value, (list, tuple, np.ndarray)):
        try:
            array = np.asarray(value)
        except ValueError:  # ragged
            array = np.empty(0, dtype=object)
        if array.dtype.kind in "biuf":
            if array.dtype.kind in "iu" and array.size and np.abs(array).max() > 2 ** 53:
                return ("integers", np.ascontiguousarray(array))  # floats would round them
            floats = np.ascontiguousarray(array, dtype=float) + 0.0  # + 0.0: -0.0 is 0
            return ("numbers", np.where(np.isnan(floats), np.nan, floats))
        return ("sequence", [_canonical(v) for v in (
            value.tolist() if isinstance(value, np.ndarray) else value)])
    if is_missing(value):
        return ("missing",)
    if isinstance(value, (int, np.integer)):  # exactly: numpy's int == float rounds the int
        return ("number", float(value) + 0.0 if float(value) == int(value) else int(value))
    if isinstance(value, (float, np.floating, np.bool_)):
        return ("number", float(value) + 0.0)
    return ("object", value)


def labels_equal(predicted, y):
    """Row-wise ``predicted == y`` for private labels ``y`` (read by :func:`read_labels`,
    an ``(n, 1)`` column as one column); a label that does not compare (``pd.NA``, a
    signalling ``Decimal`` NaN, an array) is unequal instead of an error one row decides."""
    y = read_labels(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    predicted = np.asarray(predicted)
    if y.dtype != object and predicted.dtype != object:
        equal = predicted == y
        if isinstance(equal, np.ndarray) and equal.shape == y.shape:
            return equal
    return np.fromiter((_equal(a, b) for a, b in zip(predicted.tolist(), y.tolist())),
                       dtype=bool, count=len(y))


def _equal(a, b):
    try:
        return bool(a == b)
    except (TypeError, ValueError, ArithmeticError):
        return False


def level_codes(values, levels):
    """Index of each value in ``levels``; a value outside them (or missing) gets 0.

    Numbers compare as numbers when the levels are numbers (``1``, ``1.0``,
    ``True`` and the text ``"1"`` are level ``1``), anything else by its text;
    among text levels, one whose text is a number (``"1"``, ``"2.5"``) also
    takes the values equal to that number, so ``1`` in an int column and
    ``1.0`` in a float column read alike (one missing value turns a pandas
    int column into a float one: its other rows must keep their codes).
    """
    levels = np.asarray(levels)
    if levels.dtype.kind in "iufb":
        return _numeric_codes(as_floats(values), levels.astype(float),
                              np.arange(len(levels)))
    texts = [str(value) for value in levels.tolist()]
    lookup = {text: code for code, text in enumerate(texts)}
    distinct, inverse = _distinct_text(values)
    codes = np.array([lookup.get(v, 0) for v in distinct], dtype=np.int64)[inverse]
    numeric = [(number, code) for code, number in enumerate(map(_float_or_nan, texts))
               if np.isfinite(number)]
    if numeric:
        numbers, numeric_codes = np.array(numeric).T
        matched = _numeric_codes(as_floats(values), numbers, numeric_codes.astype(np.int64),
                                 missing=-1)
        codes = np.where(matched >= 0, matched, codes)
    return codes


def encode_private_labels(y, classes_):
    """Index of each label in ``classes_``; a label outside it maps to 0, alone
    (:func:`level_codes`: one label of a type not comparable with ``classes_``
    must not move the others, as sorting would)."""
    return level_codes(y, classes_).astype(np.intp)


def check_no_numeric_twins(levels, name):
    """Refuse text levels that are the same number (``'7'`` and ``'007'``, ``'1'`` and
    ``'1.0'``): :func:`level_codes` matches a number by value, so only the first of
    them could ever be taken."""
    levels = np.asarray(levels)
    if levels.dtype.kind in "iu":  # ints beyond 2^53 may be one float: the same code
        as_float = levels.astype(float)
        order = np.argsort(as_float, kind="stable")
        twins = np.flatnonzero(as_float[order][1:] == as_float[order][:-1])
        if twins.size:
            first, second = levels[order[twins[0]]].item(), levels[order[twins[0] + 1]].item()
            raise ValueError(f"{name} lists {first!r} and {second!r}, the same number as a "
                             "float: values are matched as floats, so only one of them could "
                             "ever be taken. Recode them, e.g. as 0, 1, ...")
        return
    if levels.dtype.kind in "fb":
        return
    seen = {}
    for text in map(str, levels.tolist()):
        number = _float_or_nan(text)
        if np.isfinite(number):
            if number in seen:
                raise ValueError(f"{name} lists {seen[number]!r} and {text!r}, the same "
                                 "number: values are matched by number, so keep one of them.")
            seen[number] = text


def _numeric_codes(v, numbers, codes, missing=0):
    """``codes[k]`` for the first ``k`` with ``numbers[k] == v``, else ``missing``."""
    order = np.argsort(numbers, kind="stable")
    sorted_numbers = numbers[order]
    pos = np.clip(np.searchsorted(sorted_numbers, v), 0, len(numbers) - 1)
    return np.where(sorted_numbers[pos] == v, codes[order[pos]], missing).astype(np.int64)


def distinct_labels(y):
    """``np.unique(y)``; labels that do not compare (``1`` and ``"x"``, ``pd.NA``) are
    ordered by type name, then text, instead of failing on one row's label."""
    try:
        return np.unique(y)
    except TypeError:
        keyed = {(type(v).__name__, str(v)): v for v in np.asarray(y, dtype=object).ravel()}
        labels = np.empty(len(keyed), dtype=object)
        labels[:] = [keyed[k] for k in sorted(keyed)]
        return labels


def as_floats(values):
    """Values as floats, a non-number (e.g. a stray string) as NaN: never refused,
    and no error message or warning telling a private value.

    Each row's float is ``float(value)`` — numpy's own conversion — or NaN,
    whatever the other rows hold: a stray text elsewhere in the column must
    not change how ``True`` or ``np.float32(0.1)`` reads (a row's mapping
    depending on another row would break the counts' sensitivity). No
    conversion here emits a warning (one row's value would raise it, e.g.
    numpy's "converting a masked element to nan" for ``np.ma.masked``), and
    none is silenced with ``warnings.catch_warnings``, which changes the
    process's filters and is not thread-safe (dask runs this in threads).
    """
    if not hasattr(values, "dtype"):  # a list: its entries as they are (numpy would
        values = np.asarray(values, dtype=object)  # convert them, with warnings)
    if np.iscomplexobj(values):  # a complex dtype follows its values: real ones read as such
        values = np.asarray(values)
        return np.where(values.imag == 0, values.real, np.nan)
    kind = getattr(getattr(values, "dtype", None), "kind", None)
    if kind in ("M", "m"):  # dates and durations are not numbers: missing (see below)
        return np.full(np.shape(values), np.nan)
    if kind == "O" and _holds_time_values(values):
        # numpy reads a time value among numbers as its count of units, but a time value
        # among texts is no number: read row by row, a time value is missing either way
        return np.frompyfunc(_float_or_nan, 1, 1)(np.asarray(values, dtype=object)).astype(float)
    # numpy's conversion, unless an object among the values makes it warn (a complex
    # number: ComplexWarning; a masked value: "converting a masked element to nan"):
    # those are read value by value below
    if kind != "O" or not _warns_in_numpy(values):
        try:
            with np.errstate(invalid="ignore", over="ignore"):
                return np.asarray(values, dtype=float)
        except (TypeError, ValueError, OverflowError):  # a text, a pandas NA: below
            pass
    factorize = getattr(values, "factorize", None)
    if factorize is not None:  # a Series: one conversion per distinct value, by hashing
        try:
            codes, uniques = factorize()
        except TypeError:  # an unhashable entry (a list in a cell): row by row below
            pass
        else:  # values equal in Python (True, 1, 1.0) share a unique and a float
            floats = [_float_or_nan(v) for v in np.asarray(uniques, dtype=object).tolist()]
            return np.array(floats + [np.nan], dtype=float)[np.asarray(codes)]
    with np.errstate(invalid="ignore", over="ignore"):
        return np.frompyfunc(_float_or_nan, 1, 1)(np.asarray(values, dtype=object)).astype(float)


def _distinct_text(values):
    """``(texts, inverse)``: the distinct values as text and each row's index in
    them, so that a per-value rule loops over the distinct values, not the rows.

    A pandas Series is factorised by hashing (a missing value is ``"nan"``);
    an array through numpy's sort of its values' text. Hashing puts values
    that are equal in Python but of different text (``True``, ``1``, ``1.0``;
    ``0.0``, ``-0.0``) in one unique, whose text would then depend on which
    row came first: unless every unique is a string, each row's own text is
    factorised instead.
    """
    if isinstance(values, np.ndarray) and values.dtype.kind == "U":  # text already
        distinct, inverse = np.unique(values, return_inverse=True)
        return distinct.tolist(), inverse.ravel()
    factorize = getattr(values, "factorize", None)
    if factorize is not None:
        try:
            codes, uniques = factorize()
        except TypeError:  # an unhashable entry: the array path
            codes, uniques = None, None
        if uniques is not None:
            uniques = np.asarray(uniques, dtype=object).tolist()
            if not all(isinstance(u, str) for u in uniques):
                texts = _texts(values)
                texts[np.asarray(codes) < 0] = "nan"
                codes, uniques = type(values)(texts, dtype=object).factorize()
                uniques = np.asarray(uniques, dtype=object).tolist()
            return uniques + ["nan"], np.asarray(codes)  # a missing value's code -1: "nan"
    distinct, inverse = np.unique(_texts(values), return_inverse=True)
    return distinct.tolist(), inverse.ravel()


def _texts(values):
    """Each row's text (an object array of strings), by :func:`_text`."""
    with np.errstate(invalid="ignore"):
        return np.frompyfunc(_text, 1, 1)(np.asarray(values, dtype=object))


def _text(value):
    """``str(value)``; ``"nan"`` for a missing value (None, NaN, ``pd.NA``, NaT),
    as pandas' hashing codes them, whichever path a column takes."""
    if is_missing(value):
        return "nan"
    try:
        return str(value)
    except ValueError:  # an int past Python's int-to-text limit (4300 digits by default)
        return f"<int of {value.bit_length()} bits>"


_TIME_TYPES = (np.datetime64, np.timedelta64, datetime.date, datetime.time, datetime.timedelta)


# pandas' infer_dtype of an object array (C speed) when pandas is loaded: kinds with no
# time value, else a scan in Python
_NO_TIME_VALUES = frozenset({"floating", "integer", "mixed-integer-float", "boolean", "string",
                             "bytes", "decimal", "complex", "empty"})


def _holds_time_values(values):
    values = np.asarray(values, dtype=object).ravel()
    pandas = sys.modules.get("pandas")
    if pandas is not None and pandas.api.types.infer_dtype(values, skipna=True) in \
            _NO_TIME_VALUES:
        return False
    return any(isinstance(v, _TIME_TYPES) for v in values)


def _warns_in_numpy(values):
    """Whether numpy's float conversion of these objects would warn, or read one by
    more than its own value: a complex number, or an array (a masked one, a 0-d
    complex or time value); by their types."""
    types = set(map(type, np.asarray(values, dtype=object).ravel().tolist()))
    return any(issubclass(t, (complex, np.complexfloating, np.ndarray)) for t in types)


def _float_or_nan(value):
    """``float(value)`` (of the value, not of its text), NaN when it has none; a
    number beyond the float range (``10**400``) is +-inf; a complex number is its
    real part when its imaginary part is 0, else NaN; a date, time or duration
    (numpy's or Python's, pandas' Timestamp and NaT) NaN."""
    if isinstance(value, np.ndarray):  # as numpy 2's float(): a 0-d array is its value, any
        # other none; a masked one none (float() would warn, or read the hidden value)
        masked = isinstance(value, np.ma.MaskedArray) and np.ma.is_masked(value)
        return _float_or_nan(value.item()) if value.ndim == 0 and not masked else np.nan
    if isinstance(value, (complex, np.complexfloating)):
        return float(value.real) if value.imag == 0 else np.nan
    if isinstance(value, _TIME_TYPES):
        return np.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return np.nan
    except OverflowError:
        return np.inf if value > 0 else -np.inf


# ------------------------------------------------------------------ labels
def read_labels(y, n_rows=None):
    """``y`` as an array, each label read as it is.

    A list or tuple is read entry by entry (numpy would pick one dtype for all
    labels, turning ``True`` into the text ``"True"`` when another label is a
    text, or fail on a label that is a sequence and print the row count). A
    one-entry sequence stands for its entry (a column vector given as a list);
    any other label is kept as it is, so a label outside the classes moves its
    own row only. Where numpy keeps every label's value its array is used (the
    same codes, and the labels' own dtype): integers and booleans; numbers with
    floats among them, unless an int beyond 2^53 would be rounded; texts only.

    With ``n_rows``: one column of that many labels (an ``(n, 1)`` column
    flattened), else an error that gives no length (the record count is
    private under add/remove).
    """
    y = _as_labels(y)
    if n_rows is None:
        return y
    y = _column_vector_raveled(y)
    if y.ndim != 1 or len(y) != n_rows:
        raise ValueError("y must be 1-D with one entry per row of X (labels are one more "
                         "attribute).")
    return y


def _as_labels(y):
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


# ------------------------------------------------------------------ tables
def read_table(X):
    """``X`` as a table whose entries keep their own values.

    - a pyarrow or polars table: the pandas table it converts to (its column
      names kept); a dictionary or categorical column as an object column, read
      by its values (its dictionary is computed from the rows, not declared);
    - a list, tuple or other sequence of rows: an object array (numpy would pick
      one dtype for every entry, turning ``True`` into the text ``"True"`` beside
      a text);
    - a complex array: :func:`as_floats` (its dtype follows one complex entry);
    - anything else with a shape (pandas, sparse, other arrays) and ragged rows
      as given.
    """
    if isinstance(X, np.ndarray):
        return as_floats(X) if X.dtype.kind == "c" else X
    if hasattr(X, "columns"):
        if hasattr(X, "iloc") or not hasattr(X, "to_pandas"):
            return X
        try:
            frame = X.to_pandas()
        except Exception:  # noqa: BLE001 - no pandas installed: read as the table it is
            return X
        return frame.astype({name: object for name, dtype in frame.dtypes.items()
                             if getattr(dtype, "categories", None) is not None})
    if hasattr(X, "shape") or sparse.issparse(X):
        return X
    try:
        return np.asarray(X, dtype=object)
    except (TypeError, ValueError):  # ragged: its structure is refused by read_numbers
        return X


# object (texts, Categoricals), Arrow strings ('U'), complex, dates, durations
_READ_ENTRY_BY_ENTRY = "OUScMm"


def _real_numbers(X):
    """``X`` (read by :func:`read_table`) with object, text, complex and time entries
    read by :func:`as_floats`."""
    if hasattr(X, "iloc"):  # pandas: columns picked by their kind (pandas 3 reads a
        # numeric column with one text as 'str'; a date column with one text is object)
        if not any(dtype.kind in _READ_ENTRY_BY_ENTRY for dtype in X.dtypes):
            return X
        return X.apply(lambda column: type(column)(as_floats(column), index=column.index,
                                                   name=column.name)
                       if column.dtype.kind in _READ_ENTRY_BY_ENTRY else column)
    array = np.asarray(X)  # read_table's array, or another array-like
    if array.dtype.kind in _READ_ENTRY_BY_ENTRY:
        return as_floats(array.ravel()).reshape(array.shape)
    return X


def _check_structure(X, ensure_min_samples):
    """Refuse what is wrong with ``X``'s structure (public), in the package's words."""
    if sparse.issparse(X):
        raise TypeError("Sparse data was passed for X, but dense data is required: sparse "
                        "input is not supported; use X.toarray().")
    try:  # read_table made an array of any sequence whose rows numpy could stack
        shape = X.shape if hasattr(X, "shape") else np.shape(X)
    except (TypeError, ValueError):
        shape = None
    if shape is None or (isinstance(X, np.ndarray) and X.ndim == 1 and X.dtype == object and any(
            isinstance(row, (list, tuple)) or np.ndim(row) for row in X.tolist())):
        # rows of different lengths (numpy makes a 1-D array of them)
        raise ValueError("X must be a 2-D array (n_samples, n_features) whose rows all "
                         "have the same length (X is ragged).")
    if len(shape) > 2:
        raise ValueError(f"Found array with dim {len(shape)}: pass X as a 2-D array "
                         "(n_samples, n_features).")
    if len(shape) < 2:
        raise ValueError("X must be 2-D (n_samples, n_features). Reshape your data either "
                         "using X.reshape(-1, 1) for a single feature or X.reshape(1, -1) "
                         "for a single sample.")
    if shape[0] < ensure_min_samples:
        raise ValueError(_too_few_rows(shape, ensure_min_samples))
    if shape[1] < 1:
        raise ValueError(f"Found array with 0 feature(s) (shape={tuple(shape)}) while a "
                         "minimum of 1 is required.")


def _too_few_rows(shape, minimum):
    return (f"Found array with {shape[0]} sample(s) (shape={tuple(shape)}) while a minimum of "
            f"{minimum} is required: pass X with rows (in a stream, skip an empty batch: "
            "if len(X): est.partial_fit(X, y)).")


def read_numbers(estimator, X, y="no_validation", *, reset=True, dtype="numeric",
                 ensure_min_samples=1, **kwargs):
    """``X`` as scikit-learn's ``validate_data`` returns it, its values read by the rule.

    The structure is checked first, by :func:`_check_structure`; then every
    entry that is no real number (a text, a dict, a date, a complex number with
    an imaginary part) reads as ``NaN``, a number beyond the float range as
    ``+-inf``, a complex one with imaginary part 0 as its real part
    (:func:`as_floats`; ``dtype=None`` keeps the values as read by
    :func:`read_table`). Non-finite entries pass for :func:`sanitize_rows` to
    map. The width and column names are checked against a fit by
    ``validate_data`` (``estimator=None``: not checked); its messages hold
    counts and names only. With ``y``: ``(X, y)``, ``y``'s structure checked
    and its values left to :func:`encode_private_labels`.
    """
    X = read_table(X)
    _check_structure(X, ensure_min_samples)
    if dtype is not None:
        X = _real_numbers(X)
    try:  # values are read: what could fail here is no value's doing, and not shown
        array = check_array(X, dtype=dtype, ensure_all_finite=False, input_name="X",
                            ensure_min_samples=ensure_min_samples, **kwargs)
    except (OverflowError, TypeError, ValueError) as exc:
        raise type(exc)("X was refused by input validation; the detail is not shown because "
                        "it may contain private values.") from None
    if estimator is not None:
        validate_data(estimator, X, reset=reset, skip_check_array=True)
        _record_labels(estimator, X, reset)
    if isinstance(y, str) and y == "no_validation":
        return array
    return array, _check_private_y(y, array.shape[0])


def _record_labels(estimator, X, reset):
    """Keep the column labels scikit-learn does not record (not all strings) for
    :func:`input_columns`, at a fit (``reset``)."""
    if reset:
        labels = getattr(X, "columns", None)
        estimator._input_labels_ = (None if labels is None or hasattr(
            estimator, "feature_names_in_") else list(labels))


def input_columns(estimator):
    """The column labels of the table :func:`read_numbers` last fitted: its
    ``feature_names_in_``, or the labels scikit-learn does not record (integers),
    so that a ``{column: ...}`` key can be told from a position; ``None`` for an
    array."""
    names = getattr(estimator, "feature_names_in_", None)
    return names if names is not None else getattr(estimator, "_input_labels_", None)


def read_shown_numbers(estimator, X, y="no_validation", **kwargs):
    """scikit-learn's ``validate_data`` for a path that makes no privacy claim (online
    learning, whose errors may depend on the rows): a column that holds no numbers
    (a text, a category) or no rows is refused naming the fix; a column ``y`` is raveled
    with the package's warning."""
    if getattr(y, "ndim", None) == 2:  # an array or table (np.ndim would convert any y)
        y = _column_vector_raveled(np.asarray(y))
    try:
        out = validate_data(estimator, X, y, **kwargs)
        _record_labels(estimator, X, kwargs.get("reset", True))
        return out
    except ValueError:  # numpy's "could not convert string to float" (a dict: TypeError)
        table = read_table(X)
        column = _column_of_non_numbers(table)
        shape = getattr(table, "shape", (None,))
        if column is None and shape[0] == 0:
            raise ValueError(_too_few_rows(shape, 1)) from None
        if column is None:
            raise
    owner = type(estimator).__name__
    raise ValueError(
        f"X column {column!r} holds values that are not numbers (text or categories), and "
        f"{owner} reads numbers only. Encode the column first, e.g. with OneHotEncoder in a "
        f"Pipeline: make_pipeline(make_column_transformer((OneHotEncoder(), [{column!r}]), "
        f"remainder='passthrough'), {owner}(...)).")


def _column_of_non_numbers(X):
    """The label (DataFrame) or position of the first column of ``X`` (read by
    :func:`read_table`) that numpy does not read as floats, or ``None`` (a loop over
    columns, on the error path only)."""
    values = None if sparse.issparse(X) else np.asarray(X, dtype=object)
    if values is None or values.ndim != 2:
        return None
    for label, column in zip(getattr(X, "columns", range(values.shape[1])), values.T):
        try:
            column.astype(float)
        except ValueError:
            return label
        except TypeError:  # not a text: scikit-learn's own error stands
            continue
    return None


def read_sample_weight(sample_weight, n_samples, owner):
    """``sample_weight`` of an ERM oracle as ``n_samples`` finite floats >= 0, not
    all zero (``None``: ones; a number: that weight for every row)."""
    if sample_weight is None:
        return np.ones(n_samples)
    weights = np.asarray(sample_weight, dtype=float)
    if weights.ndim == 0:
        weights = np.full(n_samples, float(weights))
    if weights.shape != (n_samples,):
        raise ValueError(f"{owner}: sample_weight must be a number or have one entry per row "
                         f"(shape ({n_samples},)), got shape {weights.shape}.")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError(f"{owner}: sample_weight must be >= 0 and finite; a negative weight "
                         "does not define a 0-1 ERM problem (flip the label and use the "
                         "absolute weight).")
    if not weights.any():
        raise ValueError(f"{owner}: sample_weight is zero for every row; give at least one "
                         "row a positive weight.")
    return weights


def _column_vector_raveled(y):
    """An ``(n, 1)`` label array flattened, with scikit-learn's warning."""
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected; it is "
                      "raveled. Pass y as a 1-d array, e.g. y.ravel().",
                      DataConversionWarning, stacklevel=user_stacklevel())
        y = y.ravel()
    return y


def _check_private_y(y, n_samples):
    """Check only the structure of ``y`` (public); its values, NaN included, are
    left to :func:`encode_private_labels` (scikit-learn's own check refuses a
    non-finite label: an error that depends on one private value)."""
    if y is None:
        raise ValueError("This estimator requires y to be passed, but the target y is None.")
    y = _column_vector_raveled(read_labels(y))
    if y.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {y.shape} instead.")
    if len(y) != n_samples:
        raise ValueError("Found input variables with inconsistent numbers of samples: "
                         f"[{n_samples}, {len(y)}]")
    return y


def sanitize_rows(X, lower, upper):
    """Every coordinate mapped into the public box ``[lower, upper]``: ``+-inf`` to
    the bound on its side, ``NaN`` to the box's centre, the rest clipped."""
    X = np.array(X, dtype=float, copy=True)
    lower = np.broadcast_to(np.asarray(lower, dtype=float), X.shape[1:])
    upper = np.broadcast_to(np.asarray(upper, dtype=float), X.shape[1:])
    nan = np.isnan(X)
    if nan.any():  # lower / 2 + upper / 2: no overflow for any finite bounds
        X[nan] = np.broadcast_to(lower / 2 + upper / 2, X.shape)[nan]
    # np.maximum/np.minimum in place: np.clip with per-column bounds is ~4x slower
    np.maximum(X, lower, out=X)
    return np.minimum(X, upper, out=X)


def finite_rows(X):
    """The rows of ``X`` without NaN or inf (one zero row if none): what a box read
    from the data (``bounds='data'``, warned) is taken from."""
    finite = X[np.all(np.isfinite(X), axis=1)]
    return finite if len(finite) else np.zeros((1, X.shape[1]))

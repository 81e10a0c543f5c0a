"""Reading private values one row at a time.

The rule every encoder of private rows follows: a row's number, text or code
depends on that row's value only, never on what other rows hold (a stray
text elsewhere in a column must not change how ``True`` or ``0.1`` reads;
otherwise one changed row moves the codes of many and a count's sensitivity
is unbounded). Non-numbers and missing values are mapped, never refused, and
no message quotes a value. Loops run over distinct values, not rows.
"""

import datetime
import sys

import numpy as np

__all__ = ["as_floats", "check_no_numeric_twins", "distinct_text", "is_missing", "level_codes",
           "same_values"]


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


def same_values(a, b):
    """Element-wise equality of two sequences in which missing values equal each other
    (``np.array_equal`` holds NaN unequal to itself)."""
    a, b = list(a), list(b)
    return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))


def _same_value(x, y):
    x_missing, y_missing = is_missing(x), is_missing(y)
    if x_missing or y_missing:
        return x_missing and y_missing
    return bool(np.array_equal(x, y))


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
    distinct, inverse = distinct_text(values)
    codes = np.array([lookup.get(v, 0) for v in distinct], dtype=np.int64)[inverse]
    numeric = [(number, code) for code, number in enumerate(map(_float_or_nan, texts))
               if np.isfinite(number)]
    if numeric:
        numbers, numeric_codes = np.array(numeric).T
        matched = _numeric_codes(as_floats(values), numbers, numeric_codes.astype(np.int64),
                                 missing=-1)
        codes = np.where(matched >= 0, matched, codes)
    return codes


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


def distinct_text(values):
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
    number beyond the float range (``10**400``) is +-inf, as in
    :func:`~sksmooth._private_data.validate_private_data`; a complex number is its
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

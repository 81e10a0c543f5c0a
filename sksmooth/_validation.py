"""Shared validation rules (SPEC §1.6, §3.1).

One rule, one place: every estimator, mechanism and concept class validates
privacy parameters, bounds, labels and random states through these helpers,
so that the error messages are uniform and name the parameter and the fix.
"""

import numbers
import warnings

import numpy as np
from sklearn.utils.multiclass import check_classification_targets, type_of_target

from ._untrusted import check_no_numeric_twins, distinct_labels, finite_rows, is_missing
from .exceptions import DefaultsWarning, PrivacyLeakWarning, PrivacyWarning, user_stacklevel

__all__ = [
    "check_no_missing_label",
    "check_epsilon",
    "check_delta",
    "check_delta_for_n",
    "check_nonnegative",
    "check_sigma",
    "check_positive_int",
    "check_flag",
    "check_probability",
    "check_bounds",
    "check_bounds_form",
    "bounds_by_column",
    "column_index",
    "column_positions",
    "clip_to_bounds",
    "check_generator",
    "check_random_state",
    "BinaryLabels",
    "check_binary_target",
    "check_same_classes",
    "labels_of_y",
    "declared_classes",
    "check_public_classes",
    "public_box",
    "FROM_DATA",
    "reads_data",
    "refuse_unset",
]


# The epsilon a single release may ask for: outside this range the noise
# scales (sensitivity / epsilon, exp(epsilon * score)) leave floating point.
EPSILON_RANGE = (1e-9, 1e6)


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _float_or_inf(value):
    """``float(value)``; an int beyond the float range (``10**400``) is +-inf."""
    try:
        return float(value)
    except OverflowError:
        return np.inf if value > 0 else -np.inf


def as_real(value, name, accepts, example=None):
    """``value`` as a float (an int beyond the float range is +-inf); a value that is
    not a real number, or NaN, is a ``TypeError`` saying what ``name`` ``accepts``."""
    if not _is_real(value) or np.isnan(_float_or_inf(value)):
        fix = "" if example is None else f"; pass e.g. {name}={example}"
        raise TypeError(f"{name} must be a real number {accepts}, got {value!r} "
                        f"({type(value).__name__}){fix}.")
    return _float_or_inf(value)


def check_epsilon(epsilon, name="epsilon", allow_inf=False, bounded=False):
    """Return ``epsilon`` as a float, checking ``0 < epsilon`` (finite unless allowed).

    ``bounded=True`` (the estimators' parameter tables) also requires
    ``epsilon`` in :data:`EPSILON_RANGE`.
    """
    epsilon = as_real(epsilon, name, "> 0", "1.0")
    if epsilon <= 0:
        raise ValueError(
            f"{name} must be > 0 (smaller is more private), got {epsilon!r}; "
            f"pass e.g. {name}=1.0."
        )
    if np.isinf(epsilon) and not allow_inf:
        raise ValueError(
            f"{name} must be finite, got {epsilon!r}; a non-private run is "
            "obtained with the non-private estimator, not with epsilon=inf."
        )
    if bounded and not EPSILON_RANGE[0] <= epsilon <= EPSILON_RANGE[1]:
        raise ValueError(
            f"{name} must lie in [{EPSILON_RANGE[0]:g}, {EPSILON_RANGE[1]:g}], got "
            f"{epsilon!r}: below, the noise overflows floating point; above, there is "
            "no noise left to speak of (use the non-private estimator)."
        )
    return epsilon


def check_delta(delta, name="delta", allow_zero=True):
    """Return ``delta`` as a float in ``[0, 1)`` (``(0, 1)`` if not ``allow_zero``)."""
    interval = "[0, 1)" if allow_zero else "(0, 1)"
    delta = as_real(delta, name, f"in {interval}", "1e-5")
    if not (delta >= 0 if allow_zero else delta > 0) or delta >= 1:
        raise ValueError(
            f"{name} must lie in {interval}, got {delta!r}; a common choice is "
            f"{name}=1e-5 (well below 1/n)."
        )
    return delta


def check_delta_for_n(delta, n, *, name="delta", used=True):
    """The one delta rule of the estimators (issue 36.7): return the delta spent.

    ``delta`` is checked as by :func:`check_delta`. A method that cannot use a
    ``delta > 0`` (``used=False``, a pure-DP method) spends ``delta = 0``: it
    says so with a :class:`DefaultsWarning` and returns ``0.0``, which its
    ledger and ``guarantee_`` record. A used ``delta >= 1/n`` warns with a
    :class:`PrivacyWarning`: an ``(epsilon, delta)``-DP release may then
    publish a row outright (release each row with probability ``delta``).
    ``n`` is the number of rows when it is public (substitution neighbours);
    ``None`` when the neighbouring relation protects it (addition/removal):
    then a used ``delta >= 0.1`` warns, which is ``>= 1/n`` for every table
    of 10 rows or more. The warnings name the user's line.
    """
    delta = check_delta(delta, name=name)
    if not used:
        if delta > 0:
            warnings.warn(
                f"{name}={delta:g} is not used: this method is pure differential privacy "
                f"and spends {name}=0 (its guarantee and the ledger say so). Leave "
                f"{name}=0, or choose a method that uses it.",
                DefaultsWarning, stacklevel=user_stacklevel())
        return 0.0
    if n is not None and n > 0 and delta * n >= 1:
        warnings.warn(
            f"{name}={delta:g} is at or above 1/n = {1 / n:.3g} for n = {n} rows: an "
            f"(epsilon, {name})-DP release may publish a row outright with probability "
            f"{name}. Pass {name} well below 1/n, e.g. {name}={_below_one_over(n):.0e}.",
            PrivacyWarning, stacklevel=user_stacklevel())
    elif delta >= _ABSURD_DELTA:
        warnings.warn(
            f"{name}={delta:g} is {_ABSURD_DELTA:g} or more: an (epsilon, {name})-DP release "
            f"may publish a row outright with probability {name}, whatever the number of "
            f"rows n. Pass {name} well below 1/n, e.g. {name}=1e-6 for a million rows.",
            PrivacyWarning, stacklevel=user_stacklevel())
    return delta


# a delta at or above 1/n for every table of at least 10 rows (n need not be public)
_ABSURD_DELTA = 0.1


def _below_one_over(n):
    """A power of ten at most ``1 / n**2``, capped at 1e-5 (a common choice)."""
    return min(1e-5, 10.0 ** np.floor(-2 * np.log10(n)))


def check_nonnegative(value, name):
    """Return ``value`` as a finite float ``>= 0``."""
    value = as_real(value, name, ">= 0")
    if not 0 <= value < np.inf:
        raise ValueError(f"{name} must be finite and >= 0, got {value!r}.")
    return value


def check_sigma(sigma, name="sigma"):
    """Return the smoothness parameter as a float in ``(0, 1]``."""
    sigma = as_real(sigma, name, "in (0, 1]", "0.1")
    if not 0 < sigma <= 1:
        raise ValueError(
            f"{name} must lie in (0, 1] (sigma=1 is i.i.d. uniform data, "
            f"smaller sigma is a stronger adversary), got {sigma!r}."
        )
    return sigma


def check_probability(value, name, closed=False):
    """Return ``value`` as a float in ``(0, 1)`` (``[0, 1]`` if ``closed``)."""
    interval = "[0, 1]" if closed else "(0, 1)"
    value = as_real(value, name, f"in {interval}")
    if not (0 <= value <= 1 if closed else 0 < value < 1):
        raise ValueError(f"{name} must lie in {interval}, got {value!r}.")
    return value


def check_positive_int(value, name, minimum=1):
    """Return ``value`` as an int ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{name} must be an integer >= {minimum}, got {value!r} "
            f"({type(value).__name__})."
        )
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}.")
    return value


def check_flag(value, name):
    """Return ``value`` (``True`` or ``False``, numpy's too) as a bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}.")
    return bool(value)


# The one opt-in to read a release's public inputs (bounds, classes, levels) from the
# private rows. Such a release has no differential-privacy guarantee: it is recorded as
# not private and its guarantee_ says so. ``None`` (unset) is refused, naming the private
# alternatives and this opt-in.
FROM_DATA = "data"

_ALTERNATIVES = {
    "bounds": ("pass {name}=(lower, upper) from a source independent of the rows (units, a "
               "data dictionary, sksmooth.datasets.published_bounds) or a private estimate "
               "from sksmooth.preprocessing.PrivateBounds (charged to the ledger)"),
    "classes": "pass the public labels, e.g. {name}=[0, 1]",
    "levels": "pass the public levels of every categorical column",
}


def reads_data(value):
    """Whether a public-input parameter (bounds, classes, levels) is not given: unset
    (``None``, which a private release refuses) or the opt-in :data:`FROM_DATA`."""
    return value is None or (isinstance(value, str) and value == FROM_DATA)


def refuse_unset(value, name, kind=None, stacklevel=None):
    """The rule for a private release's public input ``name`` that is not given.

    ``None`` is refused with a ``ValueError`` naming the private alternative and
    the opt-in. The opt-in :data:`FROM_DATA` warns with a
    :class:`PrivacyLeakWarning` (the release will have no differential-privacy
    guarantee) and returns True; a public value returns False.
    ``kind`` (``"bounds"``, ``"classes"`` or ``"levels"``) picks the alternative named;
    it defaults to ``name``. The warning names the user's line
    (:func:`user_stacklevel`) unless ``stacklevel`` is given.
    """
    if not reads_data(value):
        return False
    kind = name if kind is None else kind
    alternative = _ALTERNATIVES[kind].format(name=name)
    if value is None:
        raise ValueError(
            f"{name}=None: a private release needs its {kind} as a public input; "
            f"{alternative}. Or pass {name}={FROM_DATA!r} to read them from the rows "
            "knowingly (the release then has no differential-privacy guarantee).")
    warnings.warn(
        f"{name}={FROM_DATA!r}: the {kind} are read from the rows, so the release has "
        f"no differential-privacy guarantee (it is recorded as not private); "
        f"{alternative}.",
        PrivacyLeakWarning,
        stacklevel=user_stacklevel() if stacklevel is None else stacklevel)
    return True


BOUNDS_FORMS = "a pair (lower, upper) or a dict {column: (lower, upper)}"
BOUNDS_HINT = ("Pass e.g. bounds=(0.0, 1.0), bounds=(lower_array, upper_array) or "
               "bounds={column: (lower, upper)}.")


def _texts_or_booleans(given, values):
    """Whether bounds hold a text, a boolean or a time (numpy reads them as numbers,
    a boolean among ints silently); other number types (Fraction, Decimal, an
    object array) are fine. ``given`` is the bound as passed, ``values`` numpy's."""
    if values.dtype.kind not in "iufO":
        return True
    entries = given if isinstance(given, (list, tuple)) else values.ravel().tolist()
    return any(isinstance(v, (str, bytes, bool, np.bool_))
               or (isinstance(v, np.ndarray) and v.dtype.kind not in "iufO") for v in entries)


def check_bounds_pair(value, name="bounds"):
    """The ``bounds`` parameter's shape, checked before any data is seen.

    A pair ``(lower, upper)`` — a tuple, a list, or an array of shape
    ``(2,)`` or ``(2, n_features)`` — of finite numbers, each a scalar or a
    1-D array (its length is checked against the data at fit). Returns
    ``value`` unchanged. The parameter tables add :data:`BOUNDS_HINT` to
    every message.
    """
    pair = isinstance(value, (tuple, list)) or (
        isinstance(value, np.ndarray) and value.ndim in (1, 2))
    if not pair or len(value) != 2:
        raise TypeError(f"{name} must be a pair (lower, upper).")
    try:
        given = [np.asarray(v) for v in value]
        lower, upper = (np.asarray(v, dtype=float) for v in value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must hold numbers.") from None
    except OverflowError:  # an int beyond the float range (10**400)
        raise ValueError(f"{name} must be finite (no NaN or inf).") from None
    if any(_texts_or_booleans(v, g) for v, g in zip(value, given)):  # numpy reads '0', True
        raise TypeError(f"{name} must hold numbers (not texts, booleans or times).")
    if lower.ndim > 1 or upper.ndim > 1 or 0 in (lower.size, upper.size):
        raise ValueError(f"{name}: lower and upper must each be a number or a non-empty "
                         "1-D array.")
    if lower.ndim == upper.ndim == 1 and lower.size != upper.size:
        raise ValueError(f"{name}: lower has {lower.size} entries and upper {upper.size}; "
                         "give one per feature on both sides (or a number).")
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        raise ValueError(f"{name} must be finite (no NaN or inf).")
    if np.any(lower > upper):
        bad = np.flatnonzero(lower > upper).tolist()[:10]
        raise ValueError(f"{name}: lower must be <= upper on every feature; features {bad} "
                         "have lower > upper. Swap them.")
    return value


def check_bounds_form(value, name="bounds"):
    """The ``bounds`` parameter's form, before any data is seen (returns ``value``):
    :func:`check_bounds_pair`, or ``{column: (lower, upper)}`` whose every entry is a
    pair of finite numbers with ``lower < upper`` (its keys are read at fit by
    :func:`column_positions`)."""
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


def column_index(key, n_features, columns, name):
    """The position of the column named by ``key`` in parameter ``name``.

    scikit-learn's rule: an integer is a position, any other key a column
    name of the DataFrame (``columns``; ``None`` for an ndarray). Refused,
    naming the parameter: an unknown key and an integer that is also the
    label of *another* column (with labels
    ``[1, 0]``, is ``0`` the first column or the second?).
    """
    if isinstance(key, (bool, np.bool_)):
        raise TypeError(f"{name}: column keys must be names or integer indices.")
    if isinstance(key, numbers.Integral):
        if not -n_features <= key < n_features:
            raise ValueError(f"{name}: index {key} is out of range for {n_features} columns "
                             "(an integer key is a position, as in scikit-learn).")
        position = int(key) % n_features
        if columns is not None and key in columns and list(columns).index(key) != position:
            raise ValueError(f"{name}: key {key!r} is a position and also the label of "
                             "another column of X; give the columns string labels, or "
                             "declare every column in order with a list.")
        return position
    if columns is None:
        raise ValueError(f"{name}: column name {key!r} given but X has no column names "
                         "(an ndarray); use integer indices.")
    columns = list(columns)
    if key not in columns:
        raise ValueError(f"{name}: X has no column {key!r}; name one of its columns "
                         f"{columns[:8]}{' ...' if len(columns) > 8 else ''} or give "
                         "an integer index.")
    return columns.index(key)  # labels are distinct (frame_columns)


def column_positions(mapping, n_features, columns, name):
    """``{position: value}`` of a ``{column key: value}`` parameter (keys by
    :func:`column_index`); two keys naming one column are refused."""
    out, keys = {}, {}
    for key, value in mapping.items():
        j = column_index(key, n_features, columns, name)
        if j in out:
            raise ValueError(f"{name}: keys {keys[j]!r} and {key!r} name the same column; "
                             "keep one.")
        out[j], keys[j] = value, key
    return out


def bounds_by_column(bounds, n_features, columns=None, name="bounds"):
    """``(lower, upper)`` floats, or ``None`` where not given, for each of ``n_features``
    columns (``columns``: a DataFrame's column labels, ``None`` for an array): the one
    reader of every form of a ``bounds`` parameter."""
    if bounds is None:
        return [None] * n_features
    if isinstance(check_bounds_form(bounds, name), dict):
        given = column_positions(bounds, n_features, columns, name)
        return [tuple(float(v) for v in given[j]) if j in given else None
                for j in range(n_features)]
    lower, upper = check_bounds(bounds, n_features, name=name)
    return list(zip(lower.tolist(), upper.tolist()))


def check_bounds(bounds, n_features, X=None, name="bounds", private=True, columns=None):
    """Validate the public domain box and return ``(lower, upper)`` arrays.

    Parameters
    ----------
    bounds : tuple (lower, upper), dict, 'data' or None
        Scalars or arrays of length ``n_features``, or ``{column: (lower,
        upper)}`` naming every column (:func:`column_index`). ``'data'`` takes the box
        from ``X`` (the opt-in of :func:`refuse_unset`: a
        :class:`PrivacyLeakWarning`, the release is not private); ``None`` is
        refused, unless ``private=False``.
    n_features : int
        Number of features the bounds must cover.
    X : ndarray of shape (n_samples, n_features), optional
        Needed only when the box is read from the data (from its finite rows).
    private : bool, default=True
        False for a caller that makes no privacy claim (a standalone oracle,
        an online learner): ``None`` then reads the box from ``X`` silently.
    columns : array-like of str, optional
        Column labels of the DataFrame fitted (``feature_names_in_``), naming
        a dict's keys.

    Returns
    -------
    lower, upper : ndarray of shape (n_features,)
        Float arrays with ``lower <= upper`` elementwise. Where a feature is
        degenerate (``lower == upper``) the box has zero width on it.
    """
    if reads_data(bounds):
        if private:
            refuse_unset(bounds, name, "bounds")
        if X is None:
            raise ValueError(
                f"{name}={bounds!r} needs data to read the box; pass public bounds "
                f"as {name}=(lower, upper).")
        X = finite_rows(np.asarray(X, dtype=float))
        return X.min(axis=0), X.max(axis=0)
    if isinstance(bounds, dict):
        ranges = bounds_by_column(bounds, n_features, columns, name)
        missing = [j for j, pair in enumerate(ranges) if pair is None]
        if missing:
            column = missing[0] if columns is None else columns[missing[0]]
            raise no_range_error(column, name, (
                f", or encode it first if it holds texts or categories (numbers only are "
                f"read), by its public levels: make_column_transformer((OneHotEncoder("
                f"categories=[levels], sparse_output=False), [{column!r}]), "
                f"remainder='passthrough'), each encoded column in (0, 1)"))
        return tuple(np.array(side, dtype=float) for side in zip(*ranges))
    lower, upper = check_bounds_pair(bounds, name)
    try:
        lower = np.broadcast_to(np.asarray(lower, dtype=float), (n_features,)).copy()
        upper = np.broadcast_to(np.asarray(upper, dtype=float), (n_features,)).copy()
    except ValueError:
        raise ValueError(
            f"{name} must be scalars or arrays of length n_features="
            f"{n_features}; got lower of shape {np.shape(bounds[0])} and upper "
            f"of shape {np.shape(bounds[1])}."
        ) from None
    return lower, upper


def no_range_error(column, name="bounds", alternative=""):
    """The error for a column that a dict ``bounds`` gives no range (``alternative``:
    another fix, e.g. declaring its levels)."""
    return ValueError(f"{name} gives no range for column {column!r}: add "
                      f"{name}={{{column!r}: (lower, upper)}}{alternative}.")


def public_box(bounds, n_features, X=None, *, columns=None, private=True, name="bounds"):
    """The box of a fit, :func:`check_bounds`, refused when it has zero width on
    every feature (read from the rows: one sample, or constant columns)."""
    lower, upper = check_bounds(bounds, n_features, X, name, private, columns)
    if reads_data(bounds) and np.size(lower) and np.all(lower == upper):
        raise ValueError(
            f"the box read from the data ({name}=None or 'data') has zero width on every "
            "feature (one sample, or constant columns): every row would be mapped to one "
            f"point. Pass {name}=(lower, upper), the public range of the features.")
    return check_box_has_width(lower, upper, name)


def check_box_has_width(lower, upper, name="bounds"):
    """Refuse a public box of zero width on every feature (``lower == upper``).

    Every row would be mapped to the same point, so an estimator could learn
    or release nothing but label frequencies: almost surely a mistaken
    ``bounds``, never a useful setting.
    """
    if np.size(lower) and np.all(np.asarray(lower) == np.asarray(upper)):
        raise ValueError(
            f"{name} has zero width on every feature (lower == upper): every row "
            "would be mapped to the same point, so nothing but the label "
            "frequencies could be learned or released. Pass the public range of "
            f"the features, e.g. {name}=(0.0, 1.0)."
        )
    return lower, upper


def clip_to_bounds(X, lower, upper):
    """Clip ``X`` to the box; return ``(X_clipped, n_clipped_rows)``.

    Clipping is a fixed, data-independent map, so it costs no privacy.
    ``n_clipped_rows`` counts rows with at least one clipped coordinate.
    """
    outside = (X < lower) | (X > upper)
    n_clipped = int(np.count_nonzero(outside.any(axis=1))) if X.ndim == 2 else int(
        np.count_nonzero(outside)
    )
    if n_clipped:
        X = np.clip(X, lower, upper)
    return X, n_clipped


def check_random_state(random_state, name="random_state"):
    """``random_state`` as given, refused unless ``None``, an int ``>= 0``, a
    ``numpy.random.Generator`` or a ``numpy.random.RandomState`` (an int as ``int``)."""
    if random_state is None or isinstance(random_state, (np.random.Generator,
                                                         np.random.RandomState)):
        return random_state
    if not isinstance(random_state, numbers.Integral) or isinstance(random_state, bool):
        raise TypeError(
            f"{name} must be None, an int >= 0, a numpy.random.Generator or a "
            f"numpy.random.RandomState, got {type(random_state).__name__}.")
    if random_state < 0:
        raise ValueError(f"{name} must be an int >= 0, got {random_state}.")
    return int(random_state)


def check_generator(random_state):
    """Turn ``random_state`` (:func:`check_random_state`) into a
    :class:`numpy.random.Generator`: a Generator is used as is, a legacy
    ``RandomState`` seeds a new one."""
    random_state = check_random_state(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**32 - 1, dtype=np.uint64))
    return np.random.default_rng(random_state)


def check_binary_target(y):
    """Reject regression and multiclass targets, scikit-learn style.

    The messages follow scikit-learn's ("Unknown label type", "Only binary
    classification is supported") so that its estimator checks recognise them.
    """
    y_type = type_of_target(y, input_name="y", raise_unknown=True)
    if y_type not in ("binary", "multiclass"):
        raise ValueError(
            f"Unknown label type: {y_type}. Maybe you are trying to fit a "
            "classifier, which expects discrete classes on a regression target."
        )
    if y_type != "binary":
        raise ValueError(
            "Only binary classification is supported. The type of the target "
            f"is {y_type}. Use sklearn.multiclass.OneVsRestClassifier."
        )


def labels_of_y(y):
    """The sorted labels of a classifier's ``y`` (its label set read from the rows:
    ``classes='data'``); a ``y`` of one label is refused."""
    check_classification_targets(y)
    labels = np.unique(y)
    if len(labels) < 2:
        raise ValueError("y contains only one class; this classifier needs two or more. Pass "
                         "the public label set with classes=[...] (on the first partial_fit "
                         "call, or as the classes parameter).")
    return labels


def check_same_classes(classes, classes_, *, any_type=False):
    """Error unless a later ``partial_fit`` call's ``classes`` (if given) is a label set
    (:func:`check_public_classes`; ``any_type``: a release's) equal to ``classes_``, the
    first call's (in any order; ``None``: it fixed none)."""
    if classes is None or classes_ is None:
        return
    try:  # the usual call passes classes_ itself each time: nothing new to check
        if np.array_equal(np.asarray(classes), classes_):
            return
    except (TypeError, ValueError):  # a ragged list: refused below
        pass
    given = check_public_classes(classes, any_type=any_type)
    if not same_label_set(given, classes_):
        raise ValueError(
            f"classes={given.tolist()} differs from classes_={np.asarray(classes_).tolist()} "
            "set by the first partial_fit call; pass the same labels, or call fit "
            "to start over."
        )


def check_public_classes(value, name="classes", *, at_least=2, any_type=False):
    """The public label set: a 1-D list of at least ``at_least`` distinct labels, no
    missing value, returned sorted. Finite numbers or strings, unless ``any_type``
    (a release's labels are one more categorical column: any values that sort)."""
    try:  # a ragged list ([0, [1]]): numpy's message names no parameter
        ndim = np.ndim(value)
        labels = np.asarray(value)
    except ValueError:
        ndim = None
    if isinstance(value, (str, bytes, dict, set)) or ndim != 1:
        raise TypeError(f"{name} must be a 1-D list of labels, e.g. {name}=[0, 1].")
    check_no_missing_label(value, name)  # before numpy turns ['a', nan] into ['a', 'nan']
    if not any_type and (labels.dtype == object or labels.dtype.kind not in "biufUS"):
        raise TypeError(f"{name} must hold numbers or strings, e.g. {name}=[0, 1].")
    if not any_type and labels.dtype.kind == "f" and not np.all(np.isfinite(labels)):
        raise ValueError(f"{name} must not contain inf.")
    try:
        unique = np.unique(labels)
    except TypeError:  # labels that do not compare
        raise ValueError(f"{name} must be a 1-D list of distinct labels (numbers or "
                         f"strings), e.g. {name}=[0, 1].") from None
    if len(unique) != len(labels):
        raise ValueError(f"{name} contains duplicate labels; list each public label once.")
    check_no_numeric_twins(unique, name)
    if len(unique) < at_least:
        raise ValueError(f"{name} must list at least {('one label', 'two labels')[at_least - 1]}"
                         f", e.g. {name}=[0, 1].")
    return unique


def same_label_set(a, b):
    """Whether two label lists hold the same labels (any order); labels of types that
    do not sort together count as different."""
    try:
        return bool(np.array_equal(np.unique(np.asarray(a)), np.unique(np.asarray(b))))
    except TypeError:
        return False


def declared_classes(classes, parameter):
    """The public label set of a first ``partial_fit`` call: its ``classes``, else the
    ``classes`` parameter (``None`` or ``'data'`` when neither declares them);
    refused when both are given and list different labels
    (two public declarations that disagree are a mistake, not a choice)."""
    if classes is None or reads_data(parameter):  # a public declaration beats 'data'
        return parameter if classes is None else classes
    check_no_missing_label(classes)
    if not same_label_set(classes, parameter):
        raise ValueError(f"classes passed to partial_fit ({list(classes)}) differ from the "
                         f"classes parameter ({list(parameter)}); pass the same labels, or "
                         "none to partial_fit.")
    return classes


class BinaryLabels:
    """Map any two labels to ``{-1, +1}`` (SPEC §3.1).

    ``classes_[0]`` maps to -1 and ``classes_[1]`` to +1, as in
    scikit-learn's binary classifiers (``classes_`` is sorted).
    """

    @staticmethod
    def fit_classes(y):
        """Return the sorted labels of ``y`` as ``classes_``; error if more than two."""
        labels = distinct_labels(y)
        if len(labels) > 2:
            raise ValueError(
                "This estimator is binary; got "
                f"{len(labels)} classes {labels.tolist()[:10]}. Use a "
                "one-vs-rest wrapper (sklearn.multiclass.OneVsRestClassifier)."
            )
        return labels

    @staticmethod
    def encode(y, classes_):
        """Return ``y`` as a float array in ``{-1, +1}``; error on unknown labels."""
        y = np.asarray(y)
        known = np.isin(y, classes_)
        if not np.all(known):
            # the offending values are not echoed: y may be private data
            raise ValueError(
                f"y contains labels outside classes_={classes_.tolist()}; pass all "
                "labels through `classes=` (in the first partial_fit, or the "
                "estimator's public `classes` parameter)."
            )
        if len(classes_) == 1:
            return np.ones(len(y))
        return np.where(y == classes_[1], 1.0, -1.0)

    @staticmethod
    def decode(y_pm1, classes_):
        """Map ``{-1, +1}`` predictions back to the original labels."""
        if len(classes_) == 1:
            return np.full(len(y_pm1), classes_[0])
        return classes_[(np.asarray(y_pm1) > 0).astype(int)]


def check_no_missing_label(classes, name="classes"):
    """Refuse a missing value (None, NaN, NaT, NA) among declared ``classes``."""
    if any(is_missing(v) for v in np.asarray(classes, dtype=object).ravel()):
        raise ValueError(f"{name} must not contain a missing value (None or NaN): a label "
                         f"is a value y takes; a missing label is mapped like any value "
                         f"outside {name}.")


def call_user_function(function, name, *args, private=False):
    """``function(*args)`` for the callable a user passed as parameter ``name``.

    Whatever it raises (but ``MemoryError``) becomes a ``ValueError`` naming
    ``name``. With ``private=True`` (it was called on private rows) its text
    is dropped, as it may quote them; otherwise it is kept as the cause.
    """
    try:
        return function(*args)
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - the user's code may raise anything
        if private:
            raise ValueError(
                f"{name} raised {type(exc).__name__} when called on the data (its message "
                "is not shown: it may quote private rows); fix the callable.") from None
        raise ValueError(f"{name} raised {type(exc).__name__}: {exc}; fix the callable.") from exc

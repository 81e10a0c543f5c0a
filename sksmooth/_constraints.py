"""Declarative parameter constraints (SPEC §1.6; docs/architecture.rst).

Each public estimator declares ``_parameter_constraints`` and calls
:func:`validate_params` before touching data; every message names the
parameter, what it accepts and the fix. Resource caps are table entries.
"""

import functools
import numbers
import reprlib
import inspect
import weakref
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ._validation import (BOUNDS_FORMS, EPSILON_RANGE, FROM_DATA, _is_real, check_bounds_form,
                          check_epsilon)

__all__ = [
    "BOUNDS",
    "EPSILON",
    "RANDOM_STATE",
    "Constraint",
    "Real",
    "Integer",
    "Options",
    "Boolean",
    "NoneValue",
    "InstanceOf",
    "CallableValue",
    "ArrayLike",
    "Check",
    "Param",
    "READ_FROM_DATA",
    "validate_params",
    "validated_params",
    "parameter_names",
    "short_repr",
]

_REPR = reprlib.Repr()
_REPR.maxstring = 40
_REPR.maxother = 40
_REPR.maxlist = _REPR.maxtuple = 6


def short_repr(value):
    """A repr that never prints a large array or string in full."""
    if isinstance(value, np.ndarray):
        return f"ndarray of shape {value.shape}"
    return _REPR.repr(value)


class _Rejected(Exception):
    """A constraint refused a value; ``kind`` is TypeError or ValueError."""

    def __init__(self, kind, reason=""):
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


class Constraint:
    """One kind of accepted value. ``check`` returns the normalised value."""

    def check(self, value):  # pragma: no cover - interface
        raise NotImplementedError

    def describe(self):  # pragma: no cover - interface
        raise NotImplementedError


@dataclass(frozen=True)
class Real(Constraint):
    """A real number in an interval (``closed`` in 'both', 'left', 'right', 'neither')."""

    low: float = -np.inf
    high: float = np.inf
    closed: str = "both"
    allow_inf: bool = False

    def describe(self):
        left = "[" if self.closed in ("both", "left") else "("
        right = "]" if self.closed in ("both", "right") else ")"
        return f"a real number in {left}{self.low:g}, {self.high:g}{right}"

    def check(self, value):
        if not _is_real(value):
            raise _Rejected(TypeError)
        try:
            value = float(value)
        except OverflowError:  # an int beyond the float range (10**400)
            raise _Rejected(ValueError, "it is beyond the float range") from None
        if np.isnan(value):
            raise _Rejected(ValueError, "NaN is not a number")
        if np.isinf(value) and not self.allow_inf and value not in (self.low, self.high):
            raise _Rejected(ValueError, "it must be finite")
        lo_ok = value >= self.low if self.closed in ("both", "left") else value > self.low
        hi_ok = value <= self.high if self.closed in ("both", "right") else value < self.high
        if not (lo_ok and hi_ok):
            raise _Rejected(ValueError)
        return value


@dataclass(frozen=True)
class Integer(Constraint):
    """An int ``>= low``; ``high`` is a resource cap and ``cap_reason`` says why."""

    low: int = 1
    high: int = None
    cap_reason: str = ""

    def describe(self):
        if self.high is None:
            return f"an int >= {self.low}"
        return f"an int in [{self.low}, {self.high}]"

    def check(self, value):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            raise _Rejected(TypeError)
        value = int(value)
        if value < self.low:
            raise _Rejected(ValueError)
        if self.high is not None and value > self.high:
            reason = f"the cap is {self.high}"
            if self.cap_reason:
                reason += f" ({self.cap_reason})"
            raise _Rejected(ValueError, reason)
        return value


class Options(Constraint):
    """One of a fixed set of strings (or other hashable scalars)."""

    def __init__(self, *options):
        self.options = tuple(options)

    def describe(self):
        return "one of " + ", ".join(repr(o) for o in self.options)

    def check(self, value):
        if not isinstance(value, (str, numbers.Number)) or isinstance(value, (bool, np.bool_)):
            raise _Rejected(TypeError)
        if isinstance(value, str) != isinstance(self.options[0], str):
            raise _Rejected(TypeError)
        if value not in self.options:
            raise _Rejected(ValueError)
        return value


class Boolean(Constraint):
    def describe(self):
        return "True or False"

    def check(self, value):
        if not isinstance(value, (bool, np.bool_)):
            raise _Rejected(TypeError)
        return bool(value)


class NoneValue(Constraint):
    def describe(self):
        return "None"

    def check(self, value):
        if value is not None:
            raise _Rejected(TypeError)
        return None


class InstanceOf(Constraint):
    """An instance of ``types``, described in words by ``description``."""

    def __init__(self, types, description):
        self.types = types
        self.description = description

    def describe(self):
        return self.description

    def check(self, value):
        if not isinstance(value, self.types):
            raise _Rejected(TypeError)
        return value


class CallableValue(Constraint):
    def describe(self):
        return "a callable"

    def check(self, value):
        if not callable(value) or isinstance(value, type):
            raise _Rejected(TypeError)
        return value


class ArrayLike(Constraint):
    """An array-like of finite reals with the given ``ndim`` (None: any)."""

    def __init__(self, ndim=None, description=None):
        self.ndim = ndim
        self.description = description

    def describe(self):
        if self.description:
            return self.description
        return "an array of finite real numbers" + (
            f" with {self.ndim} dimension(s)" if self.ndim is not None else ""
        )

    def check(self, value):
        try:  # np.ndim of a ragged list raises numpy's own ValueError
            if isinstance(value, (str, bytes, dict, set)) or np.ndim(value) == 0:
                raise _Rejected(TypeError)
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise _Rejected(TypeError) from None
        except OverflowError:  # an int beyond the float range (10**400)
            raise _Rejected(ValueError, "it must be non-empty and finite") from None
        if self.ndim is not None and arr.ndim != self.ndim:
            raise _Rejected(ValueError, f"it has {arr.ndim} dimension(s)")
        if arr.size == 0 or not np.all(np.isfinite(arr)):
            raise _Rejected(ValueError, "it must be non-empty and finite")
        return value


class Check(Constraint):
    """Adapter for an existing ``check_*(value, name)`` helper of the package.

    The helper raises ``TypeError``/``ValueError`` with its own message (which
    already names the parameter); that message is kept as is. An error that
    does not name it (numpy's, from inside the helper) becomes the table's
    message: what the parameter must be, and the value given.
    """

    def __init__(self, function, description, **kwargs):
        self.function = function
        self.description = description
        self.kwargs = kwargs

    def describe(self):
        return self.description

    def check(self, value, name=None):
        try:
            return self.function(value, name, **self.kwargs)
        except (TypeError, ValueError) as exc:
            if name is not None and name not in str(exc):
                raise _Rejected(type(exc), f"{name} must be {self.description}, got "
                                           f"{short_repr(value)}.") from None
            raise _Rejected(type(exc), str(exc)) from None


@dataclass(frozen=True)
class Param:
    """A table entry with a condition and/or a fix hint.

    Parameters
    ----------
    accepts : Constraint or tuple of Constraint
    only_when : tuple (other_name, allowed_values), optional
        The parameter applies only when ``other_name`` is one of
        ``allowed_values``; otherwise a non-default value is refused.
    hint : str
        Appended to every rejection message, e.g. "pass e.g. n_iter=10."
    """

    accepts: object
    only_when: tuple = None
    hint: str = ""


def _as_param(entry):
    return entry if isinstance(entry, Param) else Param(entry)


def _constraints(param):
    return param.accepts if isinstance(param.accepts, tuple) else (param.accepts,)


def _is_default(value, default):
    if value is default:
        return True
    try:
        return bool(isinstance(value, (str, numbers.Number)) and value == default)
    except (TypeError, ValueError):
        return False


def _check_one(name, value, param):
    rejections = []
    for constraint in _constraints(param):
        try:
            if isinstance(constraint, Check):
                return constraint.check(value, name)
            return constraint.check(value)
        except _Rejected as rejected:
            # without its traceback: a kept traceback would make a reference cycle
            # through this frame and its callers' (holding e.g. a partial_fit chunk)
            rejections.append((constraint, rejected.with_traceback(None)))
    # A helper's own message is kept when it is the only constraint that
    # accepted the value's type; otherwise one message lists every option.
    value_errors = [(c, r) for c, r in rejections if r.kind is ValueError]
    kind = ValueError if value_errors else TypeError
    if len(value_errors) == 1 and isinstance(value_errors[0][0], Check):
        message = value_errors[0][1].reason
    elif len(rejections) == 1 and isinstance(rejections[0][0], Check):
        message = rejections[0][1].reason
    else:
        accepted = " or ".join(c.describe() for c in _constraints(param))
        reasons = "; ".join(r.reason for _, r in value_errors if r.reason)
        message = f"{name} must be {accepted}, got {short_repr(value)}"
        message += f" ({reasons})." if reasons else "."
    if param.hint and not message.endswith(param.hint):
        message = f"{message} {param.hint}"
    raise kind(message)


@functools.lru_cache(maxsize=None)
def parameter_names(cls):
    """The constructor parameters of ``cls`` (scikit-learn's list, cached)."""
    return tuple(cls._get_param_names())


@functools.lru_cache(maxsize=None)
def _defaults(cls):
    """``{parameter: default}`` of ``cls``'s constructor (cached)."""
    return {name: p.default for name, p in inspect.signature(cls.__init__).parameters.items()}


def validate_params(estimator, table=None):
    """Check every constructor parameter of ``estimator`` against its table.

    Returns a read-only mapping ``name -> normalised value`` (for example
    ``epsilon`` as a float). Parameters missing from the table are returned
    unchecked; a table entry for a non-parameter is a programming error.
    """
    cls = type(estimator)
    table = cls._parameter_constraints if table is None else table
    params = {name: getattr(estimator, name) for name in parameter_names(cls)}  # get_params
    checked = dict(params)
    entries = [(name, _as_param(entry)) for name, entry in table.items()]
    # unconditional entries first, so that a condition reads a checked value
    for name, param in sorted(entries, key=lambda item: item[1].only_when is not None):
        value = params[name]
        if param.only_when is not None:
            other, allowed = param.only_when
            if not any(_is_default(checked[other], a) for a in allowed):
                default = _defaults(cls).get(name)
                if not _is_default(value, default):
                    choices = " or ".join(repr(a) for a in allowed)
                    raise ValueError(
                        f"{name} applies only when {other}={choices}, but "
                        f"{other}={short_repr(checked[other])}; leave {name} at its "
                        f"default {default!r} or set {other}={choices}."
                    )
                continue
        checked[name] = _check_one(name, value, param)
    return MappingProxyType(checked)


def check_parameter_object(value, name):
    """Check a parameter object's own parameters (``queries=Workload(...)``) by its
    table; an error names both (``queries=Workload(...): marginal_width must be ...``)."""
    try:
        return validate_params(value)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name}={type(value).__name__}(...): {exc}") from None


# estimator -> (cheap key of its parameters, their checked values); see validated_params
_VALIDATED = weakref.WeakKeyDictionary()
_KEY_DEPTH = 3


def _cheap_key(value, depth=0):
    """A key that changes when a parameter value may have changed: scalars and
    small containers or arrays by content, a parameter object (an estimator) by
    identity and its parameters (``set_params(a__b=...)`` changes it in place),
    other objects (generators, concept classes: checked by type) by identity."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return (type(value), value)
    if isinstance(value, np.ndarray) and value.size <= 4096:
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (tuple, list)) and len(value) <= 4096 and depth < _KEY_DEPTH:
        return (type(value), tuple(_cheap_key(v, depth + 1) for v in value))
    if isinstance(value, dict) and len(value) <= 4096 and depth < _KEY_DEPTH:
        return (dict, tuple((_cheap_key(k, depth + 1), _cheap_key(v, depth + 1))
                            for k, v in value.items()))
    if hasattr(value, "get_params") and not isinstance(value, type) and depth < _KEY_DEPTH:
        return ("object", id(value), _cheap_key(value.get_params(deep=False), depth + 1))
    return ("object", id(value))


def validated_params(estimator):
    """:func:`validate_params`, re-run only when a parameter changed since the
    estimator's previous call (``set_params`` or an attribute set by hand):
    per-call work of a ``partial_fit`` / ``predict`` stream is one key of the
    parameter values, not the whole table."""
    values = vars(estimator)
    key = tuple(_cheap_key(values.get(name)) for name in parameter_names(type(estimator)))
    cached = _VALIDATED.get(estimator)
    if cached is not None and cached[0] == key:
        return cached[1]
    checked = validate_params(estimator)
    _VALIDATED[estimator] = (key, checked)
    return checked


#: The one constraint for a release's ``epsilon`` (every private estimator).
EPSILON = Check(
    check_epsilon,
    f"a real number in [{EPSILON_RANGE[0]:g}, {EPSILON_RANGE[1]:g}]",
    bounded=True,
)

#: The form of every estimator's ``bounds`` (its table adds None / 'data' and BOUNDS_HINT).
BOUNDS = Check(check_bounds_form, BOUNDS_FORMS)

#: The one constraint for ``random_state`` (see :mod:`sksmooth._randomness`:
#: anything but ``None`` makes a private release seeded, i.e. not certified).
RANDOM_STATE = (
    NoneValue(),
    Integer(0, high=2**63 - 1),
    InstanceOf((np.random.Generator, np.random.RandomState), "a numpy Generator or RandomState"),
)

class _ReadFromData(Options):
    """The opt-in ``'data'``; any other value is of another type (a misspelt string
    is refused as the parameter's other forms refuse it)."""

    def check(self, value):
        if isinstance(value, str) and value == FROM_DATA:
            return value
        raise _Rejected(TypeError)


#: The opt-in that reads ``bounds``, ``classes`` or ``levels`` from the rows (the
#: release then has no differential-privacy guarantee; see ``_validation.refuse_unset``).
READ_FROM_DATA = _ReadFromData(FROM_DATA)

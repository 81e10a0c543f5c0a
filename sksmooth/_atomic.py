"""Atomic ``partial_fit`` (SPEC §1.6): a failed call leaves the estimator as it was.

:func:`atomic_update` snapshots non-parameter state and restores it on error
(ledger charges are never rolled back); :func:`forget_fit` starts a fit from
the parameters; :func:`refuse_changed_parameters` refuses ``set_params`` mid-stream.
"""

import copy
import functools

import numpy as np

from ._constraints import parameter_names
from ._untrusted import value_fingerprint
from .accounting._ledger import BudgetAccountant

__all__ = ["atomic_update", "forget_fit", "parameter_fingerprints", "refuse_changed_parameters",
           "share_in_copies"]


def _state(estimator):
    params = parameter_names(type(estimator))
    return {k: v for k, v in vars(estimator).items() if k not in params}


def _snapshot(state):
    """A deep copy of ``state``, except the objects a value declares shared
    (``snapshot_shared()``: fixed for its lifetime) and everything they hold,
    and the read-only arrays of its values (alone or in a tuple: no call writes
    them in place): every reference to them, wherever it sits in the state,
    keeps pointing at the original, so the restored state has the same
    structure (and pickle) as before."""
    memo = {}
    for value in state.values():
        share_in_copies(getattr(value, "snapshot_shared", tuple)(), memo)
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, np.ndarray) and not item.flags.writeable:
                memo[id(item)] = item
    return copy.deepcopy(state, memo)


def share_in_copies(objects, memo):
    """Make ``copy.deepcopy(..., memo)`` keep ``objects`` and all they hold (through
    attributes, slots, dicts, lists, tuples) as they are: a fixed part of a state
    that other, changing parts may refer to (a fitted model holding a prepared
    array's bounds)."""
    todo = list(objects)
    while todo:
        obj = todo.pop()
        if id(obj) in memo or isinstance(obj, (type, int, float, str, bytes, bool)) \
                or obj is None:
            continue
        memo[id(obj)] = obj
        if isinstance(obj, dict):
            todo.extend(obj.keys())
            todo.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            todo.extend(obj)
        else:
            todo.extend(getattr(obj, "__dict__", {}).values())
            for cls in type(obj).__mro__:
                for name in getattr(cls, "__slots__", ()):
                    if hasattr(obj, name):
                        todo.append(getattr(obj, name))


def forget_fit(estimator, private=()):
    """Delete what a previous fit left: every fitted attribute (trailing
    underscore) and the named ``private`` state, so that a new ``fit`` starts
    from the constructor parameters only (a failed fit then leaves nothing
    half-old, half-new)."""
    for name in [k for k in vars(estimator) if k.endswith("_") and not k.startswith("__")]:
        delattr(estimator, name)
    for name in private:
        vars(estimator).pop(name, None)


def atomic_update(method):
    """Decorator: restore the estimator's fitted state if ``method`` raises."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        saved = _snapshot(_state(self))
        stream = _user_stream(self)
        stream_state = None if stream is None else _stream_state(stream)
        try:
            return method(self, *args, **kwargs)
        except BaseException:
            for key in list(_state(self)):
                if key not in saved:
                    delattr(self, key)
            vars(self).update(saved)
            if stream is not None:  # a retry draws what the failed call would have
                _restore_stream(stream, stream_state)
            raise

    return wrapper


def _user_stream(estimator):
    """The user's generator passed as ``random_state`` (changed in place by draws)."""
    stream = vars(estimator).get("random_state")
    return stream if isinstance(stream, (np.random.Generator, np.random.RandomState)) else None


def _stream_state(stream):
    return stream.get_state() if hasattr(stream, "get_state") else stream.bit_generator.state


def _restore_stream(stream, state):
    if hasattr(stream, "set_state"):
        stream.set_state(state)
    else:
        stream.bit_generator.state = state


def parameter_fingerprints(values):
    """``{name: fingerprint}`` of parameter ``values``, taken at the first
    ``partial_fit`` call for :func:`refuse_changed_parameters`: a value by its
    content (:func:`~sksmooth._untrusted.value_fingerprint`: a value changed in
    place is changed), a ledger by its identity (its records change with every
    charge; a copy or an unpickled handle is the same ledger). Never raises."""
    return {name: ("ledger", value._id) if isinstance(value, BudgetAccountant)
            else value_fingerprint(value) for name, value in values.items()}


def refuse_changed_parameters(fingerprints, values, made_with, fix):
    """Refuse a parameter whose value in ``values`` no longer has its ``fingerprints``
    (:func:`parameter_fingerprints` taken at the first ``partial_fit`` call)."""
    now = parameter_fingerprints({name: values[name] for name in fingerprints
                                  if name in values})
    for name, fingerprint in fingerprints.items():
        if name not in now or now[name] != fingerprint:
            raise ValueError(f"{name} was changed since the first partial_fit call; "
                             f"{made_with} the old value. Set it back, or {fix}.")

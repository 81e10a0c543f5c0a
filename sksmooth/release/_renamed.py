"""The release estimators' parameters renamed before 1.0, accepted for one release."""

import warnings

from sklearn.base import clone

from .._constraints import Refused
from ..exceptions import RemovalWarning, user_stacklevel
from ._queries import Workload
from ._rounds import _ROUNDS, _Rounds, as_rounds
from ._schema import RemovedLevels

__all__ = ["WORKLOAD_NAMES", "ROUNDS_NAMES", "UNIVERSE_NAMES", "LEVELS_NAMES", "fold_renamed"]

WORKLOAD_NAMES = ("marginal_width", "n_queries")
UNIVERSE_NAMES = ("n_universe",)
LEVELS_NAMES = ("categorical_features", "categories")
ROUNDS_NAMES = ("n_iter", "measurement", "exclude_measured", "selection_fraction", "update",
                "learning_rate", "n_passes", "output")


def fold_renamed(owner, params, old, names):
    """``params`` (``queries``, ``levels`` and, for MWEM, ``rounds``) with the old
    keyword parameters ``old`` folded into their objects; warns with the new spelling."""
    params = dict(params)
    unknown = sorted(set(old) - set(names))
    if unknown:
        params["queries"] = Refused(TypeError(
            f"{owner} got an unexpected keyword argument {unknown[0]!r} (held in queries "
            "until fit: scikit-learn asks __init__ not to raise); remove it."))
        return params
    workload = {name: old[name] for name in WORKLOAD_NAMES if name in old}
    if workload:
        queries = params["queries"]
        params["queries"] = (clone(queries).set_params(**workload) if isinstance(
            queries, Workload) else Workload(kind=queries, **workload))
    rounds = {name: old[name] for name in ROUNDS_NAMES if name in old}
    rounds_given = bool(rounds)
    if rounds_given:
        measurement = rounds.pop("measurement", None)
        chosen = (as_rounds(params["rounds"]) if measurement is None
                  else _ROUNDS[measurement]() if measurement in _ROUNDS else measurement)
        values = {k: v for k, v in rounds.items() if not (isinstance(v, str) and v == "auto")}
        if values and isinstance(chosen, _Rounds):
            chosen = clone(chosen).set_params(**values)
        params["rounds"] = chosen
    size = old.get("n_universe", "auto")
    sampled = params.get("universe") == "sample" and not (isinstance(size, str) and size == "auto")
    if sampled:
        params["universe"] = size  # a sampled universe of that many points
    levels = {name: old[name] for name in LEVELS_NAMES if name in old}
    if levels:
        current = params.get("levels")
        if isinstance(current, RemovedLevels) and current.levels is None:
            # set_params(categories=...) after set_params(categorical_features=...)
            levels = {**vars(current), **levels}
        else:
            levels["levels"] = current
        params["levels"] = RemovedLevels(**levels)
    changed = {"queries": bool(workload), "rounds": rounds_given, "universe": sampled}
    new = [f"{name}={params[name]!r}" for name in ("queries", "rounds", "universe")
           if changed[name] and name in params]
    if levels:
        new.append("levels={column: [levels]}, levels={column: L} (codes 0 .. L-1) or "
                   "levels={column: int} (the integers between its bounds)")
    if "n_universe" in old and not sampled:
        new.append("no n_universe (a grid universe never used it; universe=m samples m points)")
    names = sorted(old)
    names = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
    verb = "is" if len(old) == 1 else "are"
    warnings.warn(f"{names} of {owner} {verb} deprecated and will be removed in "
                  f"the next release: pass {' and '.join(new)}.", RemovalWarning,
                  stacklevel=user_stacklevel())
    return params

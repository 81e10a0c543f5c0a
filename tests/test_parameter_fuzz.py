"""Every parameter and every input gets a clear answer (SPEC §1.6).

Generated from each public estimator's signature and its declarative
``_parameter_constraints`` table (``sksmooth._constraints``):

- every constructor parameter has a table entry;
- every parameter fed each bad value below either raises a ``TypeError`` /
  ``ValueError`` whose message names the parameter, or is accepted by the
  table — and then ``fit`` finishes without an internal error — within a
  time limit (no hang, no OverflowError, no numpy warning);
- resource exhaustion: every accepted extreme value of every parameter (one
  at a time from the defaults, and in pairs with -m slow) finishes or is
  refused within ``RESOURCE_LIMIT`` seconds on 30 rows, each fit watched
  from outside its process (a signal cannot stop a loop inside numpy);
- bad data inputs give a clear error, a private value planted in ``X`` or
  ``y`` never appears in a message or warning, and a rejected
  ``partial_fit`` leaves the estimator exactly as it was.
"""

import inspect
import itertools
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone

import sksmooth
from sksmooth.release import QueryRounds, TableRounds, Workload
from sksmooth._constraints import (
    Boolean,
    Integer,
    Options,
    Real,
    _as_param,
    _check_one,
    _constraints,
)

BAD_VALUES = {
    "nan": float("nan"),
    "inf": float("inf"),
    "-inf": float("-inf"),
    "zero": 0,
    "negative": -1,
    "huge_float": 1e300,
    "tiny_float": 1e-300,
    "huge_int": 10**12,
    "beyond_float_int": 10**400,  # float() overflows (found by a review)
    "ragged": [0, [1]],  # numpy's inhomogeneous-shape error (found by a review)
    "str": "not-a-valid-value",
    "list": [1, 2],
    "dict": {},
    "object": object(),
    "bool": True,
    "none": None,
    "ndarray": np.array([1.0]),
}
TIME_LIMIT = 10  # seconds per case


def _data(n=40, d=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(n, d))
    X[X.sum(axis=1) < 0.3] = 0.0  # a few exact values: categorical data too
    y = (X[:, 0] > 0.5).astype(int)
    return X, y


# One small valid configuration per public estimator (public inputs only).
CONFIGS = {
    "SmoothHedgeClassifier": dict(hypotheses="stumps", bounds=(0, 1)),
    "PerturbedERMClassifier": dict(bounds=(0, 1), classes=[0, 1]),
    "PrivateProperClassifier": dict(bounds=(0, 1), classes=[0, 1]),
    # the parameter objects' own parameters are fuzzed too (queries__n_queries, ...)
    "MWEM": dict(bounds=(0, 1), classes=[0, 1], n_bins=4, queries=Workload(),
                 rounds=TableRounds()),
    "SmoothMWEM": dict(bounds=(0, 1), classes=[0, 1], n_bins=4, sigma=0.5),
    "ProjectedSmoothMWEM": dict(bounds=(0, 1), classes=[0, 1], n_bins=4, sigma=0.5,
                                rounds=QueryRounds()),
    "SubsampledNetMechanism": dict(bounds=(0, 1), classes=[0, 1], n_candidates=50,
                                   n_universe=30, queries=Workload(n_queries=10),
                                   synthetic_size=10),
    "LaplacePerQuery": dict(bounds=(0, 1), classes=[0, 1], n_bins=4),
    "GaussianPerQuery": dict(bounds=(0, 1), classes=[0, 1], n_bins=4),
    "SyntheticSampler": dict(estimator=sksmooth.MWEM(bounds=(0, 1), classes=[0, 1], n_bins=4)),
    "AdaptiveMarginalSynthesizer": dict(levels=[[0.0, 1.0], [0.0, 1.0]], classes=[0, 1]),
    "PrivateSearchCV": dict(
        estimator=sksmooth.PrivateProperClassifier(bounds=(0, 1), classes=[0, 1]),
        param_grid={"epsilon": [0.5, 1.0]}, epsilon_selection=1.0, cv=2),
}
# Parameters that are not scalars a user types (objects, handles).
NOT_FUZZED = {"accountant", "estimator"}


def _public_estimators():
    found = []
    for name in sksmooth.__all__:
        obj = getattr(sksmooth, name)
        if isinstance(obj, type) and issubclass(obj, BaseEstimator):
            found.append(obj)
    return found


ESTIMATORS = _public_estimators()


class _Timeout(Exception):
    pass


@contextmanager
def _time_limit(seconds):
    def handler(signum, frame):
        raise _Timeout(f"did not finish within {seconds} s")

    old = signal.signal(signal.SIGALRM, handler)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _make(cls, **overrides):
    """The configuration with ``overrides``; ``rounds__n_iter=...`` sets a parameter
    object's parameter (on a copy: the configuration's objects are shared)."""
    params = dict(CONFIGS.get(cls.__name__, {}))
    params.update({k: v for k, v in overrides.items() if "__" not in k})
    estimator = clone(cls(**params), safe=False)
    return estimator.set_params(**{k: v for k, v in overrides.items() if "__" in k})


def _nested_names(cls):
    """``object__name`` for every parameter of a parameter object in the configuration."""
    return [f"{name}__{sub}" for name, value in _make(cls).get_params(deep=False).items()
            if hasattr(type(value), "_parameter_constraints") and name not in NOT_FUZZED
            for sub in value.get_params(deep=False)]


def _table_entry(cls, name):
    if "__" in name:
        owner, name = name.split("__")
        return _as_param(type(getattr(_make(cls), owner))._parameter_constraints[name])
    return _as_param(cls._parameter_constraints[name])


def _fit(estimator):
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # privacy / certification warnings are expected
        warnings.simplefilter("error", RuntimeWarning)  # numpy overflow etc. must not escape
        return estimator.fit(X, y)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_parameter_has_a_constraint(cls):
    assert cls.__name__ in CONFIGS, f"add a small valid configuration for {cls.__name__}"
    table = getattr(cls, "_parameter_constraints", None)
    assert table is not None, f"{cls.__name__} has no _parameter_constraints table"
    params = set(_make(cls).get_params(deep=False))
    assert set(table) == params, (
        f"{cls.__name__}: parameters without a constraint: {sorted(params - set(table))}; "
        f"entries for non-parameters: {sorted(set(table) - params)}"
    )


def _cases():
    for cls in ESTIMATORS:
        for name in sorted(_make(cls).get_params(deep=False)) + _nested_names(cls):
            if name in NOT_FUZZED:
                continue
            for label in BAD_VALUES:
                yield pytest.param(cls, name, label, id=f"{cls.__name__}-{name}-{label}")


@pytest.mark.parametrize("cls,name,label", list(_cases()))
def test_bad_parameter_value_gets_a_clear_answer(cls, name, label):
    value = BAD_VALUES[label]
    estimator = _make(cls, **{name: value})
    param = _table_entry(cls, name)
    name = name.split("__")[-1]  # a parameter object's errors name its own parameter
    try:
        _check_one(name, value, param)
        accepted_by_table = True
    except (TypeError, ValueError):
        accepted_by_table = False
    try:
        # an accepted n_jobs < 0 starts a process pool: its start-up, not a hang,
        # is what the clock would measure on a loaded machine
        limit = 3 * TIME_LIMIT if name == "n_jobs" else TIME_LIMIT
        with _time_limit(limit):
            _fit(estimator)
    except (TypeError, ValueError) as exc:
        assert name in str(exc), (
            f"{cls.__name__}({name}={value!r}) raised {type(exc).__name__} without "
            f"naming {name!r}: {exc}"
        )
        return
    except _Timeout:
        pytest.fail(f"{cls.__name__}({name}={value!r}): fit hangs")
    assert accepted_by_table, (
        f"{cls.__name__}({name}={value!r}) was silently accepted although the "
        "constraints table refuses it"
    )


# ------------------------------------------------------------ resource exhaustion
RESOURCE_LIMIT = 20  # seconds per fit on 30 rows, watched from another process
# The parameters a configuration needs to describe public inputs (bounds,
# levels, ...); the others start at their defaults, where 'auto' sizes live.
REQUIRED = {"bounds", "classes", "levels", "estimator", "param_grid", "epsilon_selection",
            "hypotheses", "sigma"}
# numbers a Check constraint (epsilon, sigma, ...) may accept at its ends
_PROBES = (1e-300, 1e-12, 1e12, 1e300, 10**12, 0, 1)


def _ends(constraint):
    if isinstance(constraint, Real):
        low = constraint.low if np.isfinite(constraint.low) else -1e300
        high = constraint.high if np.isfinite(constraint.high) else 1e300
        if constraint.closed not in ("both", "left"):
            low = 1e-300 if low == 0 else np.nextafter(low, np.inf)
        if constraint.closed not in ("both", "right"):
            high = np.nextafter(high, -np.inf)
        return [float(low), float(high)]
    if isinstance(constraint, Integer):
        return [constraint.low, constraint.high if constraint.high is not None else 10**12]
    if isinstance(constraint, Options):
        return list(constraint.options)
    if isinstance(constraint, Boolean):
        return [True, False]
    return list(_PROBES)


def _extreme_values(cls, name):
    """Every end of the parameter's accepted range (and each option) the table accepts."""
    param = _table_entry(cls, name)
    accepted = []
    for constraint in _constraints(param):
        for value in _ends(constraint):
            try:
                _check_one(name, value, param)
            except (TypeError, ValueError):
                continue
            if not any(type(value) is type(v) and value == v for v in accepted):
                accepted.append(value)
    return accepted


def _resource_base(cls):
    return {k: v for k, v in CONFIGS.get(cls.__name__, {}).items() if k in REQUIRED}


def _fuzzed_names(cls):
    return sorted(n for n in _make(cls).get_params(deep=False)
                  if n not in NOT_FUZZED and n != "random_state") + _nested_names(cls)


def _with(cls, base, **values):
    """``base`` with ``values``; ``rounds__n_iter=v`` becomes ``rounds=<its object with
    n_iter=v>`` (the worker builds estimators from plain keyword parameters)."""
    params, copied = dict(base), set()
    for name, value in values.items():
        if "__" in name:
            owner, sub = name.split("__")
            if owner not in copied:
                params[owner] = clone(getattr(_make(cls), owner))
                copied.add(owner)
            params[owner].set_params(**{sub: value})
        else:
            params[name] = value
    return params


_WORKER = """
import pickle, sys, warnings
import numpy as np
import sksmooth
cases = pickle.load(sys.stdin.buffer)
rng = np.random.default_rng(0)
X = rng.uniform(0, 1, size=(30, 2)); y = (X[:, 0] > 0.5).astype(int)
for i, (name, params) in enumerate(cases):
    print("start", i, flush=True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            getattr(sksmooth, name)(**params).fit(X, y)
        status = "ok"
    except (TypeError, ValueError, MemoryError):
        status = "refused"
    except Exception as exc:  # reported by the parent: an internal error
        status = "error " + type(exc).__name__
    print("done", i, status, flush=True)
"""


def _cpu_seconds(pid):
    """CPU seconds (user + system) process ``pid`` has used (0 where /proc is missing:
    only the wall-clock bound of 5 x limit then decides)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _run_watched(cases, limit=RESOURCE_LIMIT, worker_code=_WORKER):
    """Fit each ``(estimator name, params)`` in a worker process; a fit that uses
    more than ``limit`` CPU seconds (or sits for 5 x limit wall seconds) is killed
    and reported, the rest go on in a new one.
    Returns ``{index: status}`` with status 'ok', 'refused', 'error <type>', 'hang'."""
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root)] + sys.path))
    results, start = {}, 0
    while start < len(cases):
        worker = subprocess.Popen([sys.executable, "-c", worker_code], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                                  cwd=root, text=True)
        lines = queue.Queue()

        def read(stream=worker.stdout, lines=lines):  # bound now: the loop rebinds both
            for line in stream:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=read, daemon=True).start()
        worker.stdin.buffer.write(pickle.dumps(cases[start:]))
        worker.stdin.close()
        current, timeout = None, 120  # the first line waits for the imports
        case_cpu = case_wall = 0.0
        while True:
            try:
                line = lines.get(timeout=timeout)
            except queue.Empty:
                # a hang is a fit that used `limit` CPU seconds (a loaded machine only
                # slows the wall clock), or one that sat for 5 x limit wall seconds
                used = _cpu_seconds(worker.pid) - case_cpu
                if current is not None and used < limit \
                        and time.monotonic() - case_wall < 5 * limit:
                    timeout = max(limit - used, 1.0)
                    continue
                worker.kill()
                worker.wait()
                results[start + (current or 0)] = "hang"
                start += (current or 0) + 1
                break
            if line is None:  # the worker ended: all done, or it crashed
                worker.wait()
                if current is not None and start + current not in results:
                    results[start + current] = f"crash {worker.returncode}"
                start = len(cases) if current is None else start + current + 1
                break
            word, index, *status = line.split()
            current, timeout = int(index), limit
            case_cpu, case_wall = _cpu_seconds(worker.pid), time.monotonic()
            if word == "done":
                results[start + current] = " ".join(status)
    return results


def _check_watched(cases, n_workers=2):
    """Watch ``cases`` in ``n_workers`` worker processes at once (pytest only waits:
    on two cores this halves the wall time), each fit still under its own limit."""
    shares = [range(k, len(cases), n_workers) for k in range(n_workers)]
    with ThreadPoolExecutor(n_workers) as pool:
        parts = pool.map(lambda share: _run_watched([cases[i] for i in share]), shares)
        results = {share[j]: status for share, part in zip(shares, parts)
                   for j, status in part.items()}
    bad = [f"{name}({', '.join(f'{k}={v!r}' for k, v in params.items())}): {results.get(i)}"
           for i, (name, params) in enumerate(cases)
           if results.get(i) not in ("ok", "refused")]
    assert not bad, (f"{len(bad)} fits on 30 rows did not finish or refuse within "
                     f"{RESOURCE_LIMIT} s, or failed inside:\n" + "\n".join(bad))


RESOURCE_ESTIMATORS = [c for c in ESTIMATORS if c.__name__ != "SyntheticSampler"]
# Found by the test below (issue 39), each owned by its estimator's module and
# being fixed: checked with -m slow (strict: a fixed one must leave this list).
KNOWN_HANGS = {}


def _is_base(cls, name, value):
    if "__" in name:  # a parameter object's parameter, from the configuration's object
        owner, sub = name.split("__")
        base = getattr(_make(cls), owner).get_params()[sub]
    else:
        base = _resource_base(cls).get(name, inspect.signature(cls).parameters[name].default)
    return type(value) is type(base) and value == base


def _single_extremes():
    """Each estimator at its base configuration once, then every extreme value that
    is not already the base's (that fit would be the first one again)."""
    for cls in RESOURCE_ESTIMATORS:
        yield cls, None, None
        for name in _fuzzed_names(cls):
            for value in _extreme_values(cls, name):
                if not _is_base(cls, name, value):
                    yield cls, name, value


def _known(cls, name, value):
    return any(cls.__name__ == k[0] and name == k[1] and type(value) is type(k[2])
               and value == k[2] for k in KNOWN_HANGS)


# CI's slow stage: ~240 fits, 26 s (SubsampledNetMechanism's default fit ~0.9 s each)
@pytest.mark.slow
def test_every_extreme_parameter_value_finishes_or_is_refused_in_bounded_time():
    _check_watched([(cls.__name__, _with(cls, _resource_base(cls),
                                         **({} if name is None else {name: value})))
                    for cls, name, value in _single_extremes()
                    if not _known(cls, name, value)])


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(KNOWN_HANGS, key=repr), ids=repr)
def test_known_hangs(key):
    name, parameter, value = key
    cls = getattr(sksmooth, name)
    results = _run_watched([(name, _with(cls, _resource_base(cls), **{parameter: value}))])
    if results[0] not in ("ok", "refused"):
        pytest.xfail(f"{KNOWN_HANGS[key]}: {results[0]}")
    pytest.fail(f"{key} now finishes ({results[0]}): remove it from KNOWN_HANGS")


# ~3,800 fits of up to 20 CPU seconds each: longer than CI's slow stage
@pytest.mark.manual
@pytest.mark.parametrize("cls", RESOURCE_ESTIMATORS, ids=lambda c: c.__name__)
def test_every_pair_of_extreme_values_finishes_or_is_refused_in_bounded_time(cls):
    base = _resource_base(cls)
    names = _fuzzed_names(cls)
    cases = [(cls.__name__, _with(cls, base, **{a: va, b: vb}))
             for a, b in itertools.combinations(names, 2)
             for va in _extreme_values(cls, a) for vb in _extreme_values(cls, b)
             if not (_known(cls, a, va) or _known(cls, b, vb))]
    _check_watched(cases)


@pytest.mark.slow  # with the watched fuzz it tests (its 5 x limit wall-clock bound: ~11 s)
def test_the_watch_stops_a_fit_a_signal_cannot_and_goes_on():
    # SmoothMWEM(sigma=1e-300, n_bins='auto') ran for over 180 s on 30 rows
    # (issue 39); whatever it does now, a busy loop (CPU) and a sleep inside C code
    # (no CPU: stopped by the 5 x limit wall-clock bound) stand for it
    fit = dict(bounds=(0, 1), classes=[0, 1], n_bins=4)
    cases = [("MWEM", fit), ("MWEM", dict(fit, epsilon=-1)), ("MWEM", fit)]
    hang = _WORKER.replace('getattr(sksmooth, name)(**params).fit(X, y)',
                           'getattr(sksmooth, name)(**params).fit(X, y)\n'
                           '            if i == 0:\n'
                           '                while True: pass\n'
                           '            if i == 1: import time; time.sleep(300)')
    started = time.monotonic()
    assert _run_watched(cases, limit=1, worker_code=hang) == {0: "hang", 1: "refused",
                                                              2: "hang"}
    # the sleep was stopped (at 5 x limit), not waited out; loose enough for a loaded machine
    assert time.monotonic() - started < 300


# ------------------------------------------------------------ user callables
def _raises(*args):
    return 1 / 0


def _user_callable_cases():
    return {
        "separating_points": sksmooth.PerturbedERMClassifier(
            bounds=(0, 1), classes=[0, 1], separating_points=_raises),
        "scoring": sksmooth.PrivateSearchCV(
            sksmooth.PrivateProperClassifier(bounds=(0, 1), classes=[0, 1]),
            {"epsilon": [0.5, 1.0]}, epsilon_selection=1.0, cv=2, scoring=_raises),
        "functions[0]": sksmooth.SmoothHedgeClassifier(
            hypotheses=sksmooth.FiniteClass(functions=[_raises], n_features=2), bounds=(0, 1)),
    }


@pytest.mark.parametrize("name", sorted(_user_callable_cases()))
def test_a_user_callable_that_raises_is_named_in_the_error(name):
    estimator = _user_callable_cases()[name]
    X, y = _data()
    with warnings.catch_warnings(), pytest.raises(ValueError) as info:
        warnings.simplefilter("ignore")
        estimator.fit(X, y)
    assert f"{name} raised ZeroDivisionError" in str(info.value)


def test_answering_user_queries_that_raise_names_queries():
    X, _ = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = sksmooth.MWEM(bounds=(0, 1), n_bins=4).fit(X)
    with pytest.raises(ValueError, match="queries raised ZeroDivisionError"):
        release.answer(_raises)


# ------------------------------------------------------------------ data inputs
def _private(cls):
    return "epsilon" in _make(cls).get_params(deep=False)


# private estimators read a text in an array as a missing value (mapped, never
# refused: an array's dtype follows its values, tests/release/test_codec_attacks.py,
# tests/test_untrusted.py)
TAKES_STRING_COLUMNS = {"AdaptiveMarginalSynthesizer", "MWEM", "SmoothMWEM", "ProjectedSmoothMWEM",
                        "SubsampledNetMechanism",
                        "LaplacePerQuery", "GaussianPerQuery", "SyntheticSampler",
                        "PerturbedERMClassifier", "PrivateProperClassifier", "PrivateSearchCV"}
# add/remove by default: the record count is private, so a table without rows is
# released like any other (tests/release/test_streaming.py), not refused
ROW_COUNT_PRIVATE = {"AdaptiveMarginalSynthesizer"}
STRUCTURAL_X = {
    "empty": np.empty((0, 2)),
    "one_feature_1d": np.linspace(0, 1, 40),
    "three_d": np.zeros((40, 2, 2)),
    "strings": np.array([["a", "b"]] * 40, dtype=object),
}


# string columns are categorical data for some estimators (mapped to their levels)
@pytest.mark.parametrize("cls,kind", [
    pytest.param(cls, kind, id=f"{kind}-{cls.__name__}") for cls in ESTIMATORS
    for kind in sorted(STRUCTURAL_X)
    if not (kind == "strings" and cls.__name__ in TAKES_STRING_COLUMNS)
    and not (kind == "empty" and cls.__name__ in ROW_COUNT_PRIVATE)])
def test_structurally_bad_X_gets_a_clear_error(cls, kind):
    X = STRUCTURAL_X[kind]
    y = np.zeros(len(X), dtype=int)
    y[::2] = 1
    with pytest.raises((TypeError, ValueError)), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _make(cls).fit(X, y)


@pytest.mark.parametrize("cls", [c for c in ESTIMATORS if _private(c)], ids=lambda c: c.__name__)
@pytest.mark.parametrize("kind", ["nan", "inf", "outside_bounds", "nan_label", "inf_label"])
def test_private_estimators_map_bad_rows_instead_of_refusing_them(cls, kind):
    # refusing a row for its values would release that the row exists
    X, y = _data()
    if kind.endswith("_label"):
        y = y.astype(float)
        y[3] = {"nan_label": np.nan, "inf_label": np.inf}[kind]
    else:
        X[3, 0] = {"nan": np.nan, "inf": np.inf, "outside_bounds": 7.0}[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _make(cls).fit(X, y)


@pytest.mark.parametrize("cls", [c for c in ESTIMATORS if _private(c)], ids=lambda c: c.__name__)
def test_float32_and_sparse_inputs(cls):
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _make(cls).fit(X.astype(np.float32), y)
        try:
            _make(cls).fit(sp.csr_matrix(X), y)
        except (TypeError, ValueError) as exc:
            assert "sparse" in str(exc).lower()


SECRET = "secret1234567"


@pytest.mark.parametrize("cls", [c for c in ESTIMATORS if _private(c)], ids=lambda c: c.__name__)
def test_planted_private_values_never_appear_in_messages(cls):
    X, y = _data()
    X_secret = X.astype(object)
    X_secret[5, 1] = SECRET
    y_secret = y.astype(object)
    y_secret[7] = SECRET + "label"
    seen = []
    for X_in, y_in in ((X_secret, y), (X, y_secret), (X.ravel()[: len(y)], y)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                _make(cls).fit(X_in, y_in)
            except Exception as exc:  # noqa: BLE001 - every channel is inspected
                seen.append(str(exc))
        seen.extend(str(w.message) for w in caught)
    leaked = [m for m in seen if "secret" in m or "0.63696" in m]
    assert not leaked, f"{cls.__name__} put private values in a message: {leaked[:2]}"


def _state_bytes(estimator):
    # attribute by attribute: values must be identical (aliasing between
    # attributes may differ after a rollback without changing any value)
    params = estimator.get_params(deep=False)
    return {k: pickle.dumps(v) for k, v in vars(estimator).items() if k not in params}


# a chunk of strings is mapped to the levels where string columns are data
# (refusing it would tell that some row of the chunk holds text)
@pytest.mark.parametrize("cls,kind", [
    pytest.param(cls, kind, id=f"{kind}-{cls.__name__}")
    for cls in ESTIMATORS if hasattr(cls, "partial_fit")
    for kind in ["wrong_n_features", "strings", "three_d", "bad_classes"]
    if not (kind == "strings" and cls.__name__ in TAKES_STRING_COLUMNS)])
def test_rejected_partial_fit_leaves_the_estimator_as_it_was(cls, kind):
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimator = clone(_make(cls)).partial_fit(X, y, classes=[0, 1])
        before = _state_bytes(estimator)
        bad = {
            "wrong_n_features": (np.zeros((5, 3)), y[:5], None),
            "strings": (np.array([["a", "b"]] * 5, dtype=object), y[:5], None),
            "three_d": (np.zeros((5, 2, 2)), y[:5], None),
            "bad_classes": (X[:5], y[:5], [0, 1, 2]),
        }[kind]
        with pytest.raises((TypeError, ValueError)):
            estimator.partial_fit(bad[0], bad[1], classes=bad[2])
    assert _state_bytes(estimator) == before

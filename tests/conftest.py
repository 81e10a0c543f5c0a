"""Suite-wide test configuration.

* Three tiers. The default suite (``-m "not slow"``, the README's command)
  gives feedback in minutes. Tests marked ``slow`` are statistical checks
  that need many trials (the end-to-end audits of the catalog with their
  broken variants, exact-law frequency tests, regret simulations, the fuzz
  over each extreme parameter value): CI runs
  them as its second stage (``python -m pytest -q -m slow tests``, bounded
  to about 30 minutes on 2 cores), each next to a cheap default test of the
  same fault. Tests marked ``manual`` take longer than that stage allows
  (the fuzz over every pair of extreme parameter values): they are
  deselected unless ``-m`` names them (``python -m pytest -m manual
  tests``), and CI does not run them. Wall-clock targets are no tests: they
  live in ``benchmarks/``.
* ``SCIPY_ARRAY_API=1`` is set here, before any test module imports scipy,
  so scikit-learn's array-API estimator checks run with the plain README
  command (``python -m pytest -q -m "not slow" tests``) instead of skipping.
* In CI (``CI`` set to true), a test skipped because an optional dependency
  is missing *fails* instead: CI installs the ``test`` extra, so such a skip
  means the extra is broken, and it must not pass silently. Only skips whose
  reason says a dependency is missing are turned into failures.
* Cheap checks first: the units the estimators stand on (validation,
  untrusted input, accounting, mechanisms, ...) run before the estimators,
  and the estimators before the sweeps over the whole package (fuzz,
  integration, CLI, README); tests marked ``expensive`` (seconds each:
  subprocesses, documentation builds, audits) run after all the others. A
  broken cheap check is reported first.
"""

import os
import re
import warnings
from pathlib import Path

os.environ.setdefault("SCIPY_ARRAY_API", "1")

import pytest  # noqa: E402

_MISSING_DEPENDENCY = re.compile(
    r"not installed|could not import|no module named|SCIPY_ARRAY_API", re.IGNORECASE
)


def _in_ci():
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def _skip_reason(report):
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        return str(report.longrepr[2])
    return str(report.longrepr)


def _fail_missing_dependency(report):
    if not (_in_ci() and report.skipped and not hasattr(report, "wasxfail")):
        return
    reason = _skip_reason(report)
    if _MISSING_DEPENDENCY.search(reason):
        report.outcome = "failed"
        report.longrepr = (
            f"{reason}\nIn CI an optional dependency may not be missing: the test "
            "extra (pip install -e '.[test]') must install it."
        )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_missing_dependency(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_missing_dependency(outcome.get_result())


_TESTS = Path(__file__).resolve().parent
_ESTIMATOR_DIRS = {"model_selection", "online", "perturbed", "proper", "release"}
_UNIT_FILES = {"test_constraints.py", "test_domain.py", "test_exceptions.py",
               "test_guarantee.py", "test_progress.py", "test_untrusted.py",
               "test_validation.py"}


def _stage(item):
    """0: units, 1: estimators, 2: whole-package sweeps, 3: expensive."""
    if item.get_closest_marker("expensive") is not None:
        return 3
    try:
        parts = item.path.relative_to(_TESTS).parts
    except ValueError:  # a test outside this folder
        return 2
    if len(parts) > 1:
        return 1 if parts[0] in _ESTIMATOR_DIRS else 0
    return 0 if parts[0] in _UNIT_FILES else 2


def pytest_collection_modifyitems(config, items):
    if "manual" not in (config.getoption("markexpr") or ""):
        manual = [item for item in items if item.get_closest_marker("manual") is not None]
        if manual:
            config.hook.pytest_deselected(items=manual)
            items[:] = [item for item in items if item.get_closest_marker("manual") is None]
    items.sort(key=_stage)  # stable: pytest's order within a stage


@pytest.fixture(scope="session")
def dask_client(tmp_path_factory):
    """A client of a 2-process Dask ``LocalCluster``, started once for every test
    that needs one (its start-up and the workers' imports take seconds)."""
    dask = pytest.importorskip("dask", reason="dask[distributed] is not installed")
    distributed = pytest.importorskip("dask.distributed",
                                      reason="dask[distributed] is not installed")
    scratch = tmp_path_factory.mktemp("dask-scratch")
    with dask.config.set({"temporary-directory": str(scratch)}), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cluster start-up chatter (ports, memory)
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True,
            dashboard_address="127.0.0.1:0", scheduler_port=0,
        )
        client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()

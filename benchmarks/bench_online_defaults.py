"""Online learners at their defaults on public streams (issues 36.1, 36.2, 36.11, 37.1).

Run (river must be importable; its four streams ship with river, no download)::

    nice -n 10 python benchmarks/bench_online_defaults.py [--quick] [--only SECTION]
        [--datasets NAME ...] [--batches 1 10 1000]

Sections, all written to benchmarks/results/online_defaults.json:

* ``streams``: progressive validation (each batch is predicted before its
  labels are seen) in batches of 1, 10 and 1000 on river's Phishing,
  Bananas, ImageSegments, Shuttle (their own order) and scikit-learn's
  breast cancer, digits and wine (one fixed public permutation each, from
  seed 0 whichever tables are run: the tables are sorted by class). Longer
  streams are cut to their first 2000 rows at batch 1 and 10^4 rows at
  batch 10 (``STREAM_BATCHES``; ``rows`` and ``cut_to_first_rows`` in the
  JSON).
  Learners at their defaults given only public ``bounds`` and ``classes``:
  ``SmoothHedgeClassifier`` (also with ``horizon=T``, the cost of leaving
  the horizon out), ``PerturbedERMClassifier.partial_fit``; beside them
  scikit-learn's ``SGDClassifier``, ``Perceptron``,
  ``PassiveAggressiveClassifier`` (``partial_fit``) and river's
  ``LogisticRegression`` (binary) and ``HoeffdingTreeClassifier`` behind
  river's ``StandardScaler``, row by row within each batch (rows given as
  river's dicts, built before the clock starts). Per learner: mistakes,
  seconds and rows/s, and as ratios to ``SGDClassifier`` in the same
  process (``mistakes_vs_sgd``; ``speed_vs_sgd`` = rows/s over SGD's, above
  1 is faster). Each (stream, batch) row records the last commit that
  changed the package it ran on (``code``; ``+modified``: the package
  differed from it) and when; runs
  of some streams or batch sizes are merged into the results already there.
  Every learner sees the features mapped onto [0, 1] by the public box
  (``PublicBoundsScaler``'s map): the data dictionaries of breast cancer and
  wine (``published_bounds``), digits' documented 0..16 pixels, Phishing's
  [0, 1]; Bananas, ImageSegments and Shuttle have no published ranges, and
  their box is the stream's range rounded outward (a documented choice
  made after looking at the data, not a blind one).
* ``drift``: wine and iris in their own order (sorted by label), batches of
  10: how the defaults follow a shifting label mix.
* ``sigma``: mistakes on the adaptive sigma-smooth threshold adversary
  (``sksmooth.streams``, T = 2000, batches of 10, 5 seeds) of
  ``sigma='auto'`` and of the learner told the true sigma.
* ``per_call``: seconds (wall and CPU, min of 3) per ``predict`` +
  ``partial_fit`` call of ``SmoothHedgeClassifier`` (stumps, 10 features) and
  ``SGDClassifier`` at batch 1, 10 and 1000, in the same process, as ratios.
* ``fit``: ``SmoothHedgeClassifier(hypotheses='stumps').fit`` against
  ``SGDClassifier().fit`` on the same 10^5 and 10^6 rows (10 features), as ratios;
  ``fresh_process``: the first fit of each of 10 fresh processes (5 at 10^6 rows).
"""

import argparse
import json
import os
import subprocess
import sys
import time
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from sklearn.datasets import load_breast_cancer, load_digits, load_wine  # noqa: E402
from sklearn.linear_model import (PassiveAggressiveClassifier, Perceptron,  # noqa: E402
                                  SGDClassifier)

from sksmooth.datasets import published_bounds  # noqa: E402
from sksmooth.online import SmoothHedgeClassifier  # noqa: E402
from sksmooth.perturbed import PerturbedERMClassifier  # noqa: E402
from sksmooth.streams import SmoothedThresholdAdversary  # noqa: E402

RESULTS = os.path.join(os.path.dirname(__file__), "results", "online_defaults.json")
BATCH = 10
LINEAR = ("SGDClassifier", "Perceptron", "PassiveAggressiveClassifier")
OURS = ("SmoothHedgeClassifier", "PerturbedERMClassifier")


def _outward(lower, upper):
    """The range rounded outward to 2 significant digits of its width."""
    step = 10.0 ** np.floor(np.log10(np.maximum(upper - lower, 1e-12)) - 1)
    return np.floor(lower / step) * step, np.ceil(upper / step) * step


STREAMS = ("Phishing", "Bananas", "ImageSegments", "Shuttle", "breast_cancer", "digits", "wine")


def load_streams(quick, only=STREAMS):
    from river import datasets

    streams = {}
    for name in [n for n in STREAMS[:4] if n in only]:
        data = getattr(datasets, name)()
        rows = list(data)
        X = np.array([list(x.values()) for x, _ in rows], dtype=float)
        y = np.array([str(label) for _, label in rows])
        box = (np.zeros(X.shape[1]), np.ones(X.shape[1])) if name == "Phishing" \
            else _outward(X.min(axis=0), X.max(axis=0))
        streams[name] = (X, y, box, "published" if name == "Phishing" else "stream range")
    rng = np.random.default_rng(0)
    for name, loader in (("breast_cancer", load_breast_cancer), ("digits", load_digits),
                         ("wine", load_wine)):
        bunch = loader()
        order = rng.permutation(len(bunch.target))  # drawn for every table: same order
        if name not in only:                        # whichever tables are run
            continue
        X, y = bunch.data[order].astype(float), bunch.target[order].astype(str)
        if name == "digits":
            box, source = (np.zeros(64), np.full(64, 16.0)), "documented 0..16"
        else:
            lower, upper = published_bounds(bunch.DESCR)  # in the DESCR's column order
            box = (np.asarray(lower, dtype=float), np.asarray(upper, dtype=float))
            source = "published_bounds(DESCR)"
        streams[name] = (X, y, box, source)
    if quick:
        streams = {k: (X[:600], y[:600], box, s) for k, (X, y, box, s) in streams.items()}
    return streams


def scaled(X, box):
    lower, upper = box
    width = np.where(upper > lower, upper - lower, 1.0)
    return np.clip((X - lower) / width, 0.0, 1.0)


def progressive_sklearn(make, X, y, classes, batch):
    """Mistakes of predict-then-partial_fit in batches (first batch: classes[0])."""
    model, mistakes, fitted = make(), 0, False
    start = time.perf_counter()
    for a in range(0, len(y), batch):
        xb, yb = X[a:a + batch], y[a:a + batch]
        pred = model.predict(xb) if fitted else np.full(len(yb), classes[0])
        mistakes += int(np.count_nonzero(pred != yb))
        model.partial_fit(xb, yb, classes=classes)
        fitted = True
    return mistakes, time.perf_counter() - start


def progressive_river(make, X, y, classes, batch):
    """Row by row within each batch; binary labels as booleans (river's linear
    models read the target as a bool)."""
    if len(classes) == 2:
        y = y == classes[1]
        classes = [False, True]
    model, mistakes = make(), 0
    names = [f"x{j}" for j in range(X.shape[1])]
    rows = [dict(zip(names, row)) for row in X.tolist()]
    start = time.perf_counter()
    for a in range(0, len(y), batch):
        rows_of_batch = range(a, min(a + batch, len(y)))
        for i in rows_of_batch:
            pred = model.predict_one(rows[i])
            mistakes += int((classes[0] if pred is None else pred) != y[i])
        for i in rows_of_batch:
            model.learn_one(rows[i], y[i])
    return mistakes, time.perf_counter() - start


# rows per batch size: a call per row (or per 10 rows) on 2 shared cores is slow,
# so longer streams are cut to their first rows there (``cut_to_first_rows``)
STREAM_BATCHES = {1: 2_000, 10: 10_000, 1000: None}


def _learners(y, classes, binary):
    from river import linear_model, preprocessing, tree

    sklearn_api = {
        "SmoothHedgeClassifier": lambda: SmoothHedgeClassifier(bounds=(0.0, 1.0)),
        "SmoothHedgeClassifier(horizon=T)": lambda: SmoothHedgeClassifier(
            bounds=(0.0, 1.0), horizon=len(y)),
        "PerturbedERMClassifier": lambda: PerturbedERMClassifier(
            bounds=(0.0, 1.0), classes=classes),
        "SGDClassifier": lambda: SGDClassifier(random_state=0),
        "Perceptron": lambda: Perceptron(random_state=0),
        "PassiveAggressiveClassifier": lambda: PassiveAggressiveClassifier(random_state=0),
    }
    river = {"river HoeffdingTreeClassifier": lambda: preprocessing.StandardScaler()
             | tree.HoeffdingTreeClassifier()}
    if binary:
        river["river LogisticRegression"] = lambda: preprocessing.StandardScaler() \
            | linear_model.LogisticRegression()
    return sklearn_api, river


def _stream_at_batch(X, y, classes, batch):
    binary = len(classes) == 2
    row = {"rows": len(y)}
    sklearn_api, river = _learners(y, classes, binary)
    for learner, make in sklearn_api.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                row[learner] = progressive_sklearn(make, X, y, classes, batch)
            except Exception as error:  # noqa: BLE001 - recorded, not hidden
                row[learner] = {"error": f"{type(error).__name__}: {error}"[:300]}
    for learner, make in river.items():
        row[learner] = progressive_river(make, X, y, classes, batch)
    sgd_mistakes, sgd_seconds = row["SGDClassifier"]
    for learner, result in row.items():
        if isinstance(result, tuple):
            mistakes, seconds = result
            row[learner] = {"mistakes": mistakes, "seconds": round(seconds, 3),
                            "rows_per_s": round(len(y) / seconds, 1),
                            "mistakes_vs_sgd": round(mistakes / max(sgd_mistakes, 1), 3),
                            "speed_vs_sgd": round(sgd_seconds / seconds, 3)}
    best_linear = min(row[k]["mistakes"] for k in LINEAR)
    ours = {k: row[k]["mistakes"] for k in OURS if "mistakes" in row[k]}
    best_ours = min(ours, key=ours.get) if ours else None
    row["best_linear_mistakes"] = best_linear
    row["better_default"] = best_ours
    row["ratio_to_best_linear"] = None if best_ours is None else \
        round(ours[best_ours] / max(best_linear, 1), 3)
    row["target"] = 1.2 if binary else 1.5
    hedge, hedge_t = row["SmoothHedgeClassifier"], row["SmoothHedgeClassifier(horizon=T)"]
    if "mistakes" in hedge and "mistakes" in hedge_t:
        row["horizon_cost"] = round(hedge["mistakes"] / max(hedge_t["mistakes"], 1), 3)
    return row


def _code_version():
    """The last commit that changed the package, whose code the run measures
    (``+modified`` if the work tree's package differs from it)."""
    root = os.path.join(os.path.dirname(__file__), "..")
    try:
        commit = subprocess.run(["git", "-C", root, "log", "-1", "--format=%h", "--",
                                 "sksmooth"],
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--", "sksmooth"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+modified" if dirty else "")


def run_streams(quick, only=STREAMS, batches=tuple(STREAM_BATCHES)):
    out = {}
    for name, (X, y, box, source) in load_streams(quick, only).items():
        Xs = scaled(X, box)
        classes = np.unique(y)
        counts = np.unique(y, return_counts=True)[1]
        stream = {"n": len(y), "n_features": X.shape[1], "n_classes": len(classes),
                  "bounds_source": source, "majority_mistakes": int(len(y) - counts.max()),
                  "by_batch": {}}
        for batch in batches:
            cap = STREAM_BATCHES[batch]
            rows = len(y) if cap is None else min(len(y), cap)
            row = _stream_at_batch(Xs[:rows], y[:rows], classes, batch)
            if rows < len(y):
                row["cut_to_first_rows"] = rows
            row["code"] = _code_version()
            row["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
            stream["by_batch"][str(batch)] = row
            print(name, "batch", batch, {k: (v["mistakes"], v["rows_per_s"])
                                         if isinstance(v, dict) and "mistakes" in v else v
                                         for k, v in row.items()}, flush=True)
        out[name] = stream
        _write({"streams": {name: stream}, "streams_quick": quick})  # the run is long
    return out


def run_drift(quick, only=None):
    """Wine and iris streamed in their own order (sorted by label: each label first
    appears after all rows of the previous one), batches of 10, published bounds:
    how fast the defaults adapt when the label mix shifts (PerturbedERMClassifier
    draws fresh noise: 3 runs)."""
    from sklearn.datasets import load_iris

    out = {}
    for name, loader in (("wine", load_wine), ("iris", load_iris)):
        bunch = loader()
        lower, upper = published_bounds(bunch.DESCR)
        X = scaled(bunch.data.astype(float), (np.asarray(lower, float), np.asarray(upper, float)))
        y = bunch.target.astype(str)
        classes = np.unique(y)
        row = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for learner, make in _learners(y, classes, binary=False)[0].items():
                runs = 3 if learner == "PerturbedERMClassifier" and not quick else 1
                row[learner] = [progressive_sklearn(make, X, y, classes, BATCH)[0]
                                for _ in range(runs)]
        best_linear = min(min(row[k]) for k in LINEAR)
        out[name] = {"rows": len(y), "mistakes": row, "best_linear_mistakes": best_linear,
                     "ratio_to_best_linear": {k: round(float(np.mean(v)) / best_linear, 3)
                                              for k, v in row.items()},
                     "code": _code_version()}
        print("drift", name, out[name], flush=True)
    return out


def run_sigma(quick, only=None):
    T, seeds = (600, 2) if quick else (2000, 5)
    out = {}
    for sigma in (0.5, 0.1, 0.01):
        row = {}
        for label, value in (("told", sigma), ("auto", "auto"), ("0.1 (old default)", 0.1)):
            mistakes = []
            for seed in range(seeds):
                clf = SmoothHedgeClassifier(sigma=value, horizon=T, bounds=(0.0, 1.0))
                record = SmoothedThresholdAdversary(sigma=sigma, random_state=seed).play(
                    clf, n_rounds=T, batch_size=BATCH)
                mistakes.append(int(record.mistakes))
            row[label] = {"mean": float(np.mean(mistakes)), "runs": mistakes}
        row["auto_over_told"] = round(row["auto"]["mean"] / row["told"]["mean"], 3)
        out[str(sigma)] = row
        print("sigma", sigma, row, flush=True)
    return {"T": T, "batch": BATCH, "seeds": seeds, "by_sigma": out}


def _per_call(model, X, y, batch, n_calls, classes):
    """``(wall, cpu)`` seconds per ``predict`` + ``partial_fit`` call."""
    model.partial_fit(X[:batch], y[:batch], classes=classes)  # first call: set-up
    wall, cpu = time.perf_counter(), time.process_time()
    for c in range(1, n_calls + 1):
        xb, yb = X[c * batch:(c + 1) * batch], y[c * batch:(c + 1) * batch]
        model.predict(xb)
        model.partial_fit(xb, yb)
    return (time.perf_counter() - wall) / n_calls, (time.process_time() - cpu) / n_calls


def _ratios(row, reference="SGDClassifier"):
    for key in ("seconds", "cpu_seconds", "first_seconds", "first_cpu_seconds"):
        if key not in row[reference]:
            continue
        base = row[reference][key]
        for label in row:
            if isinstance(row[label], dict) and key in row[label]:
                row[label][key.replace("seconds", "ratio_to_sgd")] = round(
                    row[label][key] / base, 3)


def run_per_call(quick, only=None):
    """Wall and CPU seconds per call, each the minimum of 3 runs alternated between the
    learners (the machine is shared: the CPU time of this process is the steadier of the
    two)."""
    rng = np.random.default_rng(0)
    d, out = 10, {}
    for batch, n_calls in ((1, 2000), (10, 1000), (1000, 20)):
        if quick:
            n_calls = max(n_calls // 10, 5)
        X = rng.random(((n_calls + 1) * batch, d))
        y = (X[:, 0] + 0.3 * X[:, 1] > 0.6).astype(int)
        learners = {
            "SmoothHedgeClassifier(stumps, sigma='auto', horizon=10^4)":
                lambda: SmoothHedgeClassifier(hypotheses="stumps", bounds=(0.0, 1.0),
                                              horizon=10 ** 4),
            "SmoothHedgeClassifier(stumps, sigma=0.1, horizon=10^4)":
                lambda: SmoothHedgeClassifier(hypotheses="stumps", sigma=0.1,
                                              bounds=(0.0, 1.0), horizon=10 ** 4),
            "SGDClassifier": lambda: SGDClassifier(random_state=0)}
        runs = {label: [] for label in learners}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(3):  # alternated: every learner in the same process state
                for label, make in learners.items():
                    runs[label].append(_per_call(make(), X, y, batch, n_calls, [0, 1]))
        row = {label: {"seconds": min(w for w, _ in r), "cpu_seconds": min(c for _, c in r)}
               for label, r in runs.items()}
        for label, make in learners.items():
            if label.startswith("SmoothHedge"):
                fitted = make().partial_fit(X[:batch], y[:batch], classes=[0, 1])
                row[label]["n_experts"] = fitted.n_experts_
        _ratios(row)
        out[str(batch)] = row
        print("per_call batch", batch, row, flush=True)
    return out


_FRESH_FIT = """
import json, sys, time, warnings
import numpy as np
from sklearn.linear_model import SGDClassifier
from sksmooth.online import SmoothHedgeClassifier
n = int(sys.argv[1])
rng = np.random.default_rng(0)
X = rng.random((n, 10))
y = (X[:, 0] + 0.3 * X[:, 1] > 0.6).astype(int)
warnings.simplefilter("ignore")
out = {}
for label, model in (("SmoothHedgeClassifier(stumps)",
                      SmoothHedgeClassifier(hypotheses="stumps", bounds=(0.0, 1.0))),
                     ("SGDClassifier", SGDClassifier(random_state=0))):
    wall, cpu = time.perf_counter(), time.process_time()
    model.fit(X, y)
    out[label] = (time.perf_counter() - wall, time.process_time() - cpu)
print(json.dumps(out))
"""


def _fresh_fits(n, runs=3):
    """The first ``fit`` of a fresh process (imports done, nothing built before), then
    SGDClassifier's in the same process: ``runs`` processes, the minimum of each."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               PYTHONPATH=os.path.join(os.path.dirname(__file__), ".."))
    results = [json.loads(subprocess.run([sys.executable, "-c", _FRESH_FIT, str(n)], env=env,
                                         capture_output=True, text=True, check=True).stdout)
               for _ in range(runs)]
    row = {label: {"seconds": min(r[label][0] for r in results),
                   "cpu_seconds": min(r[label][1] for r in results), "processes": runs}
           for label in results[0]}
    row["per_process_cpu_ratio"] = ratios = [round(r["SmoothHedgeClassifier(stumps)"][1]
                                                   / r["SGDClassifier"][1], 3) for r in results]
    row["cpu_ratio_median"], row["cpu_ratio_max"] = float(np.median(ratios)), max(ratios)
    return row


def run_fit(quick, only=None):
    """``fit`` of SmoothHedgeClassifier (stumps, 10 features, public bounds) against
    SGDClassifier().fit on the same rows: wall and CPU seconds, the minimum of 3 runs in
    this process and the first run's (``first_*``), and (``fresh_process``) the first
    fit of each of 10 fresh processes (5 at 10^6 rows), SGD's in the same process.
    ``fit`` adds up each hypothesis's mistakes (no progressive statistics; see its
    docstring)."""
    rng = np.random.default_rng(0)
    out = {}
    for n in ((10 ** 4, 10 ** 5) if quick else (10 ** 5, 10 ** 6)):
        X = rng.random((n, 10))
        y = (X[:, 0] + 0.3 * X[:, 1] > 0.6).astype(int)
        row = {}
        for label, make, repeats in (
                ("SmoothHedgeClassifier(stumps)",
                 lambda: SmoothHedgeClassifier(hypotheses="stumps", bounds=(0.0, 1.0)), 3),
                ("SGDClassifier", lambda: SGDClassifier(random_state=0), 3)):
            runs = []
            for _ in range(repeats):
                model = make()
                wall, cpu = time.perf_counter(), time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model.fit(X, y)
                runs.append((time.perf_counter() - wall, time.process_time() - cpu))
            row[label] = {"seconds": min(w for w, _ in runs),
                          "cpu_seconds": min(c for _, c in runs), "runs": repeats,
                          "first_seconds": runs[0][0], "first_cpu_seconds": runs[0][1]}
            if hasattr(model, "n_experts_"):
                row[label].update(n_experts=model.n_experts_)
        _ratios(row)
        row["fresh_process"] = fresh = _fresh_fits(n, runs=10 if n <= 10 ** 5 else 5)
        _ratios(fresh)
        out[str(n)] = row
        print("fit n", n, row, flush=True)
    return out


def _write(new):
    """Merge the ``new`` sections into the results file (other sections kept; streams
    merged by name and batch size)."""
    results = {}
    if os.path.exists(RESULTS):  # read at the write: runs may overlap
        with open(RESULTS) as f:
            results = json.load(f)
    # the multiclass default is one-vs-rest inside SmoothHedgeClassifier (streams)
    results.pop("ovr", None), results.pop("ovr_quick", None)
    for name, value in new.items():
        if name == "streams" and isinstance(results.get(name), dict):
            value = {**results[name], **{
                stream: {**row, "by_batch": {**results[name].get(stream, {}).get("by_batch", {}),
                                             **row["by_batch"]}}
                for stream, row in value.items()}}
        results[name] = value
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    with open(RESULTS, "w") as f:
        json.dump(results, f, indent=1, default=str)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", choices=("streams", "drift", "sigma", "per_call", "fit"))
    parser.add_argument("--datasets", nargs="+", choices=STREAMS, default=STREAMS,
                        help="streams for the streams section (merged into the results "
                             "already there)")
    parser.add_argument("--batches", nargs="+", type=int, choices=tuple(STREAM_BATCHES),
                        default=tuple(STREAM_BATCHES),
                        help="batch sizes for the streams section (merged likewise)")
    args = parser.parse_args()
    sections = {"streams": run_streams, "drift": run_drift, "sigma": run_sigma,
                "per_call": run_per_call, "fit": run_fit}
    new = {}
    for name, run in sections.items():
        if args.only in (None, name):
            new[name] = run(args.quick, tuple(args.datasets), tuple(args.batches)) \
                if name == "streams" else run(args.quick, tuple(args.datasets))
            new[name + "_quick"] = args.quick
    _write(new)


if __name__ == "__main__":
    main()

"""Benchmark: PerturbedERMClassifier.fit on multiclass targets (issue 36 item 1).

Test accuracy over 20 random 75/25 splits of wine, iris, digits (10 labels)
and breast cancer (binary, unchanged) at epsilon in {0.5, 1, 2}, fresh OS
noise (``random_state=None``), public bounds and classes only
(``bounds=(0, 1)`` after scaling by the *published* bounds; splits and
scaling of ``_diffprivlib_proper_peer.py``):

* ``PerturbedERMClassifier`` at its defaults, measured by this run on the
  tree it imports. Run once with ``PYTHONPATH`` on the tree before the
  one-vs-rest change (one-hot calibration, not certified) and
  ``--label before`` (writes ``results/perturbed_erm_multiclass_before.json``),
  then on this tree (one-vs-rest of certified binary fits), which loads the
  before numbers and writes ``results/perturbed_erm_multiclass.json``;
* the one-vs-rest stumps without noise (``noise=1e-6``, not private): the
  accuracy the reduction could reach with no privacy at all;
* ``PrivateProperClassifier()`` at its defaults, same splits, same run;
* diffprivlib's best model at each epsilon (stored
  ``results/diffprivlib_proper.json``; the peer runs in its own venv).

Part N (rows needed): the training split of wine and iris up-sampled by
bootstrap to n in {1000, 10000, 100000} rows (5 splits, epsilon = 1, tested
on the held-out rows): where each calibration starts to learn.

Usage::

    PYTHONPATH=/path/to/old/tree python benchmarks/bench_perturbed_erm_multiclass.py --label before
    python benchmarks/bench_perturbed_erm_multiclass.py [--quick]
"""

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _diffprivlib_proper_peer import load, split  # noqa: E402

import sksmooth  # noqa: E402
from sksmooth import PrivateProperClassifier  # noqa: E402
from sksmooth.perturbed import PerturbedERMClassifier, StumpERMClassifier  # noqa: E402

RESULTS = Path(__file__).parent / "results"
DATASETS = ("breast_cancer", "wine", "iris", "digits")
EPSILONS = (0.5, 1.0, 2.0)


def _accuracies(make, name, epsilon, n_splits, n_rows=None):
    X, y = load(name)
    classes = np.unique(y)  # public: the label set of each dataset's documentation
    scores, seconds = [], 0.0
    for seed in range(n_splits):
        train, test = split(len(X), seed)
        if n_rows is not None:  # Part N: bootstrap up-sampling of the training split
            train = np.random.RandomState(seed).choice(train, size=n_rows)
        clf = make(epsilon, classes)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf.fit(X[train], y[train])
        seconds += time.perf_counter() - start
        scores.append(float(np.mean(clf.predict(X[test]) == y[test])))
    certified = getattr(getattr(clf, "guarantee_", None), "certified", None)
    return {"accuracy_mean": float(np.mean(scores)),
            "accuracy_sem": float(np.std(scores, ddof=1) / np.sqrt(len(scores))),
            "accuracies": scores, "fit_seconds": seconds / n_splits,
            "certified": certified}


METHODS = {
    "PerturbedERMClassifier()": lambda eps, classes: PerturbedERMClassifier(
        epsilon=eps, bounds=(0, 1), classes=classes),
    "one-vs-rest stumps, no noise (not private)": lambda eps, classes: PerturbedERMClassifier(
        StumpERMClassifier(n_thresholds=8), noise=1e-6, bounds=(0, 1), classes=classes),
    "PrivateProperClassifier()": lambda eps, classes: PrivateProperClassifier(
        epsilon=eps, bounds=(0, 1), classes=classes),
}


def _diffprivlib_best():
    path = RESULTS / "diffprivlib_proper.json"
    if not path.exists():
        return {}
    best = {}
    for row in json.loads(path.read_text())["results"]:
        key = (row["dataset"], row["epsilon"])
        if key not in best or row["accuracy_mean"] > best[key]["accuracy_mean"]:
            best[key] = {"method": row["method"], "accuracy_mean": row["accuracy_mean"]}
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--label", default="after", choices=("before", "after"))
    parser.add_argument("--quick", action="store_true", help="3 splits")
    args = parser.parse_args()
    n_splits = 3 if args.quick else 20
    methods = (["PerturbedERMClassifier()"] if args.label == "before" else list(METHODS))
    rows = []
    for name in DATASETS:
        for eps in EPSILONS:
            for method in methods:
                if method.startswith("one-vs-rest") and name == "breast_cancer":
                    continue
                if method.startswith("one-vs-rest") and eps != EPSILONS[0]:
                    continue  # no noise: epsilon plays no part
                row = {"dataset": name, "epsilon": eps, "method": method,
                       **_accuracies(METHODS[method], name, eps, n_splits)}
                rows.append(row)
                print(f"{name:14s} eps={eps:<4g} {method:45s} "
                      f"{row['accuracy_mean']:.3f} +- {row['accuracy_sem']:.3f} "
                      f"({row['fit_seconds']:.2f} s/fit)", flush=True)
    rows_needed = []
    for name in ("wine", "iris"):
        for n_rows in (1000, 10_000, 100_000):
            row = {"dataset": name, "epsilon": 1.0, "n_rows": n_rows,
                   "method": "PerturbedERMClassifier()",
                   **_accuracies(METHODS["PerturbedERMClassifier()"], name, 1.0,
                                 2 if args.quick else 5, n_rows)}
            rows_needed.append(row)
            print(f"{name:14s} eps=1    n={n_rows:<7d} PerturbedERMClassifier() "
                  f"{row['accuracy_mean']:.3f} +- {row['accuracy_sem']:.3f}", flush=True)
    suffix = "_quick" if args.quick else ""
    if args.label == "before":
        out = RESULTS / f"perturbed_erm_multiclass_before{suffix}.json"
        out.write_text(json.dumps({"sksmooth": sksmooth.__file__, "n_splits": n_splits,
                                   "results": rows, "rows_needed": rows_needed}, indent=1))
        print("wrote", out)
        return
    before_path = RESULTS / f"perturbed_erm_multiclass_before{suffix}.json"
    before_json = json.loads(before_path.read_text()) if before_path.exists() else {}
    before = before_json.get("results", [])
    peer = _diffprivlib_best()
    print("\nPerturbedERMClassifier() before -> after, PrivateProperClassifier(), "
          "diffprivlib's best (stored)")
    summary = []
    for name in DATASETS:
        for eps in EPSILONS:
            get = {r["method"]: r["accuracy_mean"] for r in rows
                   if r["dataset"] == name and r["epsilon"] == eps}
            old = next((r["accuracy_mean"] for r in before
                        if r["dataset"] == name and r["epsilon"] == eps), None)
            best = peer.get((name, eps), {})
            line = {"dataset": name, "epsilon": eps, "before": old,
                    "after": get["PerturbedERMClassifier()"],
                    "private_proper": get["PrivateProperClassifier()"],
                    "diffprivlib_best": best.get("accuracy_mean"),
                    "diffprivlib_best_method": best.get("method")}
            summary.append(line)
            print(f"{name:14s} eps={eps:<4g} before {old if old is None else round(old, 3)}"
                  f"  after {line['after']:.3f}  proper {line['private_proper']:.3f}  "
                  f"diffprivlib {line['diffprivlib_best']}")
    out = RESULTS / f"perturbed_erm_multiclass{suffix}.json"
    print("\nrows needed (epsilon = 1): before -> after")
    for row in rows_needed:
        old = next((r["accuracy_mean"] for r in before_json.get("rows_needed", [])
                    if r["dataset"] == row["dataset"] and r["n_rows"] == row["n_rows"]), None)
        row["before"] = old
        print(f"{row['dataset']:6s} n={row['n_rows']:<7d} before "
              f"{old if old is None else round(old, 3)}  after {row['accuracy_mean']:.3f}")
    out.write_text(json.dumps({"n_splits": n_splits, "summary": summary, "results": rows,
                               "rows_needed": rows_needed, "before": before}, indent=1))
    print("wrote", out)


if __name__ == "__main__":
    main()

"""diffprivlib peers for bench_private_proper.py, run in their own environment.

diffprivlib needs scikit-learn < 1.6, so this script runs in a separate venv
(e.g. ``/work/dplvenv``: ``pip install diffprivlib "scikit-learn<1.6"``)::

    /work/dplvenv/bin/python benchmarks/_diffprivlib_proper_peer.py [--quick]

It writes ``benchmarks/results/diffprivlib_proper.json`` (``_quick.json``
with ``--quick``), loaded by
``bench_private_proper.py``. Splits, preprocessing and public bounds are
identical to the main benchmark (legacy ``RandomState(seed).permutation``,
stable across numpy versions; features scaled to [0, 1] with the *published*
bounds of ``sksmooth.datasets``, never the rows' own range).
"""

import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

DATASETS = ("breast_cancer", "digits_ge5")
MULTICLASS_DATASETS = ("wine", "iris", "digits")
EPSILONS = (0.5, 1.0, 2.0, 5.0)


def _bundled():
    """sksmooth.datasets._bundled, loaded by path (this venv lacks sksmooth's deps)."""
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "sksmooth" / "datasets" / "_bundled.py"
    spec = importlib.util.spec_from_file_location("_sksmooth_bundled", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _summary_bounds(descr):
    """Per-feature (min, max): the first two numbers of each 'Summary Statistics' row."""
    import re

    table = descr.split("Summary Statistics")[1].split(":Missing")[0]
    rows = re.findall(r"^[A-Za-z][^:\n]*:\s+(-?[\d.]+)\s+(-?[\d.]+)", table, flags=re.M)
    bounds = np.array(rows, dtype=float)
    return bounds[:, 0], bounds[:, 1]


def load(name):
    """Data scaled to [0, 1]^d with *published* bounds (DESCR tables, pixel range)."""
    if name in ("wine", "iris"):
        from sklearn.datasets import load_iris, load_wine

        data = (load_wine if name == "wine" else load_iris)()
        lower, upper = _summary_bounds(data.DESCR)
        assert len(lower) == data.data.shape[1]
        return np.clip((data.data - lower) / (upper - lower), 0.0, 1.0), data.target
    if name == "digits":
        from sklearn.datasets import load_digits

        data = load_digits()
        return data.data / 16.0, data.target
    bundled = _bundled()
    if name == "breast_cancer":
        X, y, _ = bundled.load_breast_cancer_public()
    else:
        X, y, _ = bundled.load_digits_binary_public()
    return X, y


def split(n, seed, test_fraction=0.25):
    perm = np.random.RandomState(seed).permutation(n)
    n_test = int(round(test_fraction * n))
    return perm[n_test:], perm[:n_test]


def _diffprivlib_model(model, eps, d, classes, seed):
    from diffprivlib.models import GaussianNB, LogisticRegression, RandomForestClassifier

    bounds = (np.zeros(d), np.ones(d))
    if model == "LogisticRegression":
        return LogisticRegression(epsilon=eps, data_norm=float(np.sqrt(d)), random_state=seed)
    if model == "GaussianNB":
        return GaussianNB(epsilon=eps, bounds=bounds, random_state=seed)
    return RandomForestClassifier(epsilon=eps, bounds=bounds, classes=classes,
                                  random_state=seed)


def main(quick=False):
    import diffprivlib

    seeds = range(5 if quick else 20)
    out = {"diffprivlib_version": diffprivlib.__version__, "results": []}
    for name in DATASETS + MULTICLASS_DATASETS:
        X, y = load(name)
        d = X.shape[1]
        classes = sorted(set(y.tolist()))
        models = ("LogisticRegression", "GaussianNB") + (
            ("RandomForestClassifier",) if name in MULTICLASS_DATASETS else ())
        for eps in EPSILONS:
            for model in models:
                accs, t0 = [], time.perf_counter()
                for seed in seeds:
                    tr, te = split(len(X), seed)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        clf = _diffprivlib_model(model, eps, d, classes, seed)
                        clf.fit(X[tr], y[tr])
                    accs.append(float(clf.score(X[te], y[te])))
                out["results"].append({
                    "dataset": name, "method": f"diffprivlib.{model}", "epsilon": eps,
                    "accuracy_mean": float(np.mean(accs)), "accuracy_std": float(np.std(accs)),
                    "accuracies": accs, "seconds": time.perf_counter() - t0,
                })
                print(f"{name:14s} {model:24s} eps={eps:<4} acc={np.mean(accs):.3f}")
    suffix = "_quick" if quick else ""
    path = Path(__file__).resolve().parent / "results" / f"diffprivlib_proper{suffix}.json"
    path.write_text(json.dumps(out, indent=1))
    print("wrote", path)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)

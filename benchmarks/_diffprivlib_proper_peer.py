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
MULTICLASS_DATASETS = ("wine", "iris", "digits", "synthetic")
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


def synthetic_table(n=20000, n_features=20, n_informative=8, n_classes=5, seed=12345):
    """The larger table: 5 labels, 2 Gaussian clusters per label, in [0, 1]^20.

    Like ``make_classification`` (clusters on the vertices of a hypercube in
    ``n_informative`` dimensions, the other features uniform noise, 5% of
    labels flipped) but drawn with the legacy ``RandomState`` so that both
    venvs (different numpy/scikit-learn versions) get identical rows. The box
    ``[0, 1]^20`` is public by construction (rows are clipped to it).
    """
    rng = np.random.RandomState(seed)
    n_clusters = 2 * n_classes
    vertices = rng.randint(0, 2, size=(n_clusters, n_informative)) * 0.4 + 0.3
    cluster = rng.randint(0, n_clusters, size=n)
    X = rng.uniform(0.0, 1.0, size=(n, n_features))
    mixing = np.eye(n_informative) + 0.3 * rng.normal(size=(n_informative, n_informative))
    X[:, :n_informative] = vertices[cluster] + 0.12 * rng.normal(
        size=(n, n_informative)) @ mixing
    y = cluster % n_classes
    flip = rng.uniform(size=n) < 0.05
    y[flip] = rng.randint(0, n_classes, size=int(flip.sum()))
    return np.clip(X, 0.0, 1.0), y


def load(name):
    """Data scaled to [0, 1]^d with *published* bounds (DESCR tables, pixel range)."""
    if name == "synthetic":
        return synthetic_table()
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
    suffix = "_quick" if quick else ""
    path = Path(__file__).resolve().parent / "results" / f"diffprivlib_proper{suffix}.json"
    out = {"diffprivlib_version": diffprivlib.__version__, "results": []}
    # cache: rows of the same version, keyed by (dataset, model, epsilon), are reused
    cached = json.loads(path.read_text()) if path.exists() else {}
    done = {(r["dataset"], r["method"], r["epsilon"]): r for r in cached.get("results", [])
            if cached.get("diffprivlib_version") == diffprivlib.__version__
            and len(r.get("accuracies") or []) == len(seeds)}
    for name in DATASETS + MULTICLASS_DATASETS:
        X, y = load(name)
        d = X.shape[1]
        classes = sorted(set(y.tolist()))
        models = ("LogisticRegression", "GaussianNB") + (
            ("RandomForestClassifier",) if name in MULTICLASS_DATASETS else ())
        for eps in EPSILONS:
            for model in models:
                key = (name, f"diffprivlib.{model}", eps)
                if key in done:
                    out["results"].append(done[key])
                    continue
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
    path.write_text(json.dumps(out, indent=1))
    print("wrote", path)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)

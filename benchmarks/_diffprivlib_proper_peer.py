"""diffprivlib peers for bench_private_proper.py, run in their own environment.

diffprivlib needs scikit-learn < 1.6, so this script runs in a separate venv
(e.g. ``/work/venv-dpl6``: ``pip install diffprivlib "scikit-learn<1.6"``)::

    /work/venv-dpl6/bin/python benchmarks/_diffprivlib_proper_peer.py [--quick]

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
EPSILONS = (0.5, 1.0, 2.0, 5.0)


def _bundled():
    """sksmooth.datasets._bundled, loaded by path (this venv lacks sksmooth's deps)."""
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "sksmooth" / "datasets" / "_bundled.py"
    spec = importlib.util.spec_from_file_location("_sksmooth_bundled", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load(name):
    """Data scaled to [0, 1]^d with *published* bounds (sksmooth.datasets)."""
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


def main(quick=False):
    import diffprivlib
    from diffprivlib.models import GaussianNB, LogisticRegression

    seeds = range(5 if quick else 20)
    out = {"diffprivlib_version": diffprivlib.__version__, "results": []}
    for name in DATASETS:
        X, y = load(name)
        d = X.shape[1]
        for eps in EPSILONS:
            for model in ("LogisticRegression", "GaussianNB"):
                accs, t0 = [], time.perf_counter()
                for seed in seeds:
                    tr, te = split(len(X), seed)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        if model == "LogisticRegression":
                            clf = LogisticRegression(
                                epsilon=eps, data_norm=float(np.sqrt(d)), random_state=seed
                            )
                        else:
                            clf = GaussianNB(
                                epsilon=eps, bounds=(np.zeros(d), np.ones(d)), random_state=seed
                            )
                        clf.fit(X[tr], y[tr])
                    accs.append(float(clf.score(X[te], y[te])))
                out["results"].append({
                    "dataset": name, "method": f"diffprivlib.{model}", "epsilon": eps,
                    "accuracy_mean": float(np.mean(accs)), "accuracy_std": float(np.std(accs)),
                    "accuracies": accs, "seconds": time.perf_counter() - t0,
                })
                print(f"{name:14s} {model:20s} eps={eps:<4} acc={np.mean(accs):.3f}")
    suffix = "_quick" if quick else ""
    path = Path(__file__).resolve().parent / "results" / f"diffprivlib_proper{suffix}.json"
    path.write_text(json.dumps(out, indent=1))
    print("wrote", path)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)

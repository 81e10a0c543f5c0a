"""PerturbedERMClassifier.partial_fit with a LogisticRegression oracle on
multiclass streams, next to SGDClassifier, Perceptron and
PassiveAggressiveClassifier in the same process.

Progressive validation in batches of 10 (predict the batch, then
partial_fit it) on scikit-learn's digits and wine and river's ImageSegments,
each in one fixed shuffled order, features scaled to [0, 1] by a box (the
published one for wine, 0..16 for digits; the stream's own range for
ImageSegments, for every learner alike: no learner here is private).
Reports mistakes, oracle fits, rows fitted and seconds, for the refit
schedules ``refit_every='auto'`` (geometric: refit once the rows grew by
1/8) and ``refit_every=1``.

Run: ``python benchmarks/bench_ftpl_multiclass_streams.py`` (a few minutes);
results in ``benchmarks/results/ftpl_multiclass_streams.json``.
"""

import json
import os
import time
import warnings
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # lbfgs under a loaded machine

import numpy as np  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.linear_model import (  # noqa: E402
    LogisticRegression,
    PassiveAggressiveClassifier,
    Perceptron,
    SGDClassifier,
)

from sksmooth.datasets import load_wine_public  # noqa: E402
from sksmooth.perturbed import PerturbedERMClassifier  # noqa: E402

RESULTS = Path(__file__).parent / "results"
BATCH = 10


def _streams():
    X, y = load_digits(return_X_y=True)
    yield "digits", X, y, (np.zeros(64), np.full(64, 16.0))
    X, y, box = load_wine_public()
    yield "wine", X, y, box
    try:
        import river.datasets  # noqa: PLC0415
    except ImportError:
        return
    rows = list(river.datasets.ImageSegments())
    keys = list(rows[0][0])
    X = np.array([[x[k] for k in keys] for x, _ in rows], dtype=float)
    labels = sorted({label for _, label in rows})
    y = np.array([labels.index(label) for _, label in rows])
    yield "ImageSegments", X, y, (X.min(axis=0), X.max(axis=0))


class _CountingLR(LogisticRegression):
    """LogisticRegression that counts its fits and the rows it was fitted on."""

    fits = []

    def fit(self, X, y, sample_weight=None):
        _CountingLR.fits.append(len(y))
        return super().fit(X, y, sample_weight=sample_weight)


def _prequential(clf, X, y, classes):
    mistakes, start = 0, time.perf_counter()
    for s in range(0, len(y), BATCH):
        if s:
            mistakes += int(np.sum(clf.predict(X[s:s + BATCH]) != y[s:s + BATCH]))
        clf.partial_fit(X[s:s + BATCH], y[s:s + BATCH], classes=classes)
    return mistakes, time.perf_counter() - start


def main():
    warnings.simplefilter("ignore")
    out = {}
    for name, X, y, (lower, upper) in _streams():
        order = np.random.default_rng(0).permutation(len(y))
        X = (np.clip(X[order], lower, upper) - lower) / np.where(upper > lower,
                                                                 upper - lower, 1.0)
        y, classes, d = y[order], np.unique(y), X.shape[1]
        box = (np.zeros(d), np.ones(d))
        learners = {
            "SGDClassifier": lambda: SGDClassifier(random_state=0),
            "Perceptron": lambda: Perceptron(random_state=0),
            "PassiveAggressiveClassifier": lambda: PassiveAggressiveClassifier(random_state=0),
            "FTPL LogisticRegression refit_every='auto'": lambda: PerturbedERMClassifier(
                _CountingLR(max_iter=200), bounds=box, classes=classes),
            "FTPL LogisticRegression refit_every=1": lambda: PerturbedERMClassifier(
                _CountingLR(max_iter=200), bounds=box, classes=classes, refit_every=1),
            "FTPL default (exact multiclass oracle)": lambda: PerturbedERMClassifier(
                bounds=box, classes=classes),
        }
        out[name] = {"n": len(y), "classes": len(classes)}
        for learner, make in learners.items():
            _CountingLR.fits = []
            mistakes, seconds = _prequential(make(), X, y, classes)
            out[name][learner] = {"mistakes": mistakes, "seconds": round(seconds, 2),
                                  "oracle_fits": len(_CountingLR.fits),
                                  "rows_fitted": int(sum(_CountingLR.fits))}
            print(f"{name:14s} {learner:44s} mistakes {mistakes:5d} {seconds:7.1f}s "
                  f"fits {len(_CountingLR.fits):4d}", flush=True)
        best = min(out[name][k]["mistakes"] for k in
                   ("SGDClassifier", "Perceptron", "PassiveAggressiveClassifier"))
        for learner in learners:
            out[name][learner]["mistakes_over_best_linear"] = round(
                out[name][learner]["mistakes"] / best, 3)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ftpl_multiclass_streams.json").write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

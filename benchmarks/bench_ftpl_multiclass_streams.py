"""The online learners at their defaults on multiclass streams
(``PerturbedERMClassifier().partial_fit``: logistic regression on the public
box; ``SmoothHedgeClassifier()``: one-vs-rest Hedge over stumps), next to
SGDClassifier, Perceptron and PassiveAggressiveClassifier in the same
process; ``--binary``: the multiclass default's oracle on binary streams
beside the binary default (depth-2 grid trees), to check where the rule
"logistic regression for more than two labels" should stop.

Progressive validation in batches of 10 (predict the batch, then
partial_fit it) on scikit-learn's digits and wine and river's ImageSegments,
each in one fixed shuffled order, features scaled to [0, 1] by a box (the
published one for wine, 0..16 for digits; the stream's own range for
ImageSegments, for every learner alike: no learner here is private).
Reports mistakes, oracle fits, rows fitted and seconds. ``--variants`` adds
the slow ones: ``refit_every=1`` and the exact multiclass grid trees. Each
run merges its learners into the results already there (each entry carries
the date it was measured).

Run: ``python benchmarks/bench_ftpl_multiclass_streams.py [--variants]
[--binary]`` (a few minutes); results in
``benchmarks/results/ftpl_multiclass_streams.json``.
"""

import argparse
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

from sksmooth.datasets import load_breast_cancer_public, load_wine_public  # noqa: E402
from sksmooth.online import SmoothHedgeClassifier  # noqa: E402
from sksmooth.perturbed import (BoxScaledClassifier,  # noqa: E402
                                MulticlassDepthTwoTreeERMClassifier, PerturbedERMClassifier)

RESULTS = Path(__file__).parent / "results"
BATCH = 10


def _binary_streams():
    X, y, box = load_breast_cancer_public(scale=False)
    yield "breast_cancer", X, y, box
    import river.datasets  # noqa: PLC0415
    for name in ("Phishing", "Bananas"):
        rows = list(getattr(river.datasets, name)())
        X = np.array([list(x.values()) for x, _ in rows], dtype=float)
        y = np.array([int(label) for _, label in rows])
        yield name, X, y, (X.min(axis=0), X.max(axis=0))


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


def _default_oracle_counted():
    """The multiclass default's oracle (BoxScaledClassifier(LogisticRegression(
    max_iter=200))), counting its fits."""
    return BoxScaledClassifier(_CountingLR(max_iter=200))


def _prequential(clf, X, y, classes):
    mistakes, start = 0, time.perf_counter()
    for s in range(0, len(y), BATCH):
        if s:
            mistakes += int(np.sum(clf.predict(X[s:s + BATCH]) != y[s:s + BATCH]))
        clf.partial_fit(X[s:s + BATCH], y[s:s + BATCH], classes=classes)
    return mistakes, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--variants", action="store_true")
    parser.add_argument("--binary", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    path = RESULTS / "ftpl_multiclass_streams.json"
    out = json.loads(path.read_text()) if path.exists() else {}
    today = time.strftime("%Y-%m-%d")
    for name, X, y, (lower, upper) in (_binary_streams() if args.binary else _streams()):
        order = np.random.default_rng(0).permutation(len(y))
        X = (np.clip(X[order], lower, upper) - lower) / np.where(upper > lower,
                                                                 upper - lower, 1.0)
        y, classes, d = y[order], np.unique(y), X.shape[1]
        box = (np.zeros(d), np.ones(d))
        learners = {
            "SGDClassifier": lambda: SGDClassifier(random_state=0),
            "Perceptron": lambda: Perceptron(random_state=0),
            "PassiveAggressiveClassifier": lambda: PassiveAggressiveClassifier(random_state=0),
        }
        if args.binary:
            learners.update({
                "PerturbedERMClassifier() (binary default: depth-2 grid trees)":
                    lambda: PerturbedERMClassifier(bounds=box, classes=classes),
                "PerturbedERMClassifier(multiclass default oracle)":
                    lambda: PerturbedERMClassifier(_default_oracle_counted(), bounds=box,
                                                   classes=classes)})
        else:
            learners.update({
                "PerturbedERMClassifier() (default: LogisticRegression on the box, "
                "refit_every='auto')": lambda: PerturbedERMClassifier(
                    _default_oracle_counted(), bounds=box, classes=classes),
                "SmoothHedgeClassifier() (default: one-vs-rest stumps)":
                    lambda: SmoothHedgeClassifier(bounds=box)})
        if args.variants:
            learners.update({
                "FTPL LogisticRegression refit_every=1": lambda: PerturbedERMClassifier(
                    _CountingLR(max_iter=200), bounds=box, classes=classes, refit_every=1),
                "FTPL exact multiclass grid trees": lambda: PerturbedERMClassifier(
                    MulticlassDepthTwoTreeERMClassifier(), bounds=box, classes=classes),
                "SmoothHedgeClassifier(hypotheses='stumps') (native multiclass cover)":
                    lambda: SmoothHedgeClassifier(hypotheses="stumps", bounds=box)})
        out.setdefault(name, {}).update({"n": len(y), "classes": len(classes)})
        for learner, make in learners.items():
            _CountingLR.fits = []
            mistakes, seconds = _prequential(make(), X, y, classes)
            out[name][learner] = {"mistakes": mistakes, "seconds": round(seconds, 2),
                                  "oracle_fits": len(_CountingLR.fits),
                                  "rows_fitted": int(sum(_CountingLR.fits)),
                                  "measured": today}
            print(f"{name:14s} {learner:44s} mistakes {mistakes:5d} {seconds:7.1f}s "
                  f"fits {len(_CountingLR.fits):4d}", flush=True)
        best = min(out[name][k]["mistakes"] for k in
                   ("SGDClassifier", "Perceptron", "PassiveAggressiveClassifier"))
        for learner, entry in out[name].items():
            if isinstance(entry, dict):
                entry["mistakes_over_best_linear"] = round(entry["mistakes"] / best, 3)
        RESULTS.mkdir(exist_ok=True)
        path.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

"""Benchmark SmoothHedgeClassifier: scaling and prequential accuracy vs peers.

Run::

    python benchmarks/bench_smooth_hedge.py [--quick] [--before before.json]

1. Scaling (issue 12 item 3): wall time and operation count of
   ``hypotheses='halfspaces'`` on 2-D data, T = 10^4 rounds (doubling trick
   and known horizon; target <= 30 s); ``hypotheses='stumps'`` ``fit`` on
   10^6 rows x 10 features (target <= 60 s); and the n-scaling of stumps
   ``fit`` (25k / 50k / 100k rows x 10 features). ``--before`` merges the
   numbers measured with the previous code (same script part, run against
   that checkout) into the table.
   The load average at each measurement is recorded (``load_1min``): the
   machine is shared, and wall time exceeds CPU time by about the load.
2. Prequential accuracy (every row predicted before its label is seen) of
   SmoothHedge against scikit-learn's ``SGDClassifier`` and ``Perceptron``
   (``partial_fit``) and, when installed, river's ``Perceptron``,
   ``LogisticRegression`` and ``HoeffdingTreeClassifier``, on a
   ``make_classification`` stream (features min-max scaled with the
   *generator's* public range, clipped) and on the package's sigma-smooth
   streams (adaptive threshold adversary, non-adaptive 2-D halfspace stream).

Machine note: 2 cores shared with other jobs; wall times are upper bounds,
the operation counts (``n_operations_``) are machine independent.

Writes benchmarks/results/smooth_hedge.json (``--only`` merges into it).
River's real streams (Phishing, Bananas): ``bench_river_streams.py``.
"""

import argparse
import json
import os
import platform
import sys
import time
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import sklearn  # noqa: E402
from sklearn.datasets import make_classification  # noqa: E402
from sklearn.linear_model import Perceptron, SGDClassifier  # noqa: E402

from sksmooth.online import SmoothHedgeClassifier  # noqa: E402
from sksmooth.streams import SmoothedHalfspaceAdversary, SmoothedThresholdAdversary  # noqa: E402

RESULTS = os.path.join(os.path.dirname(__file__), "results", "smooth_hedge.json")


def timed_fit(clf, X, y):
    """Wall time and CPU time of this process (the machine is shared: CPU time
    is the better measure of the code; wall time is an upper bound)."""
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        clf.fit(X, y)
    return time.perf_counter() - t0, time.process_time() - c0, os.getloadavg()[0]


def stump_data(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 10))
    y = (X[:, 3] >= 0.4).astype(int)
    flip = rng.random(n) < 0.1
    y[flip] = 1 - y[flip]
    return X, y


def scaling(quick):
    rows = []
    rng = np.random.default_rng(0)
    X = rng.random((10 ** 4, 2))
    y = (X @ [1.0, -0.7] + 0.1 >= 0).astype(int)
    for horizon in (None, 10 ** 4):
        clf = SmoothHedgeClassifier(hypotheses="halfspaces", sigma=0.1, horizon=horizon,
                                    bounds=(0.0, 1.0), random_state=0)
        wall, cpu, load = timed_fit(clf, X, y)
        rows.append({"case": f"halfspaces 2-D T=1e4 horizon={horizon}", "wall_s": wall,
                     "load_1min": load,
                     "cpu_s": cpu,
                     "n_operations": clf.n_operations_, "n_experts": clf.n_experts_,
                     "gamma": clf.gamma_, "gamma_target": clf.gamma_target_,
                     "training_errors": int((clf.predict(X) != y).sum()), "target_s": 30})
        print(rows[-1], flush=True)
    sizes = (25_000, 50_000, 100_000)
    for n in sizes:
        X, y = stump_data(n)
        clf = SmoothHedgeClassifier(hypotheses="stumps", bounds=(0.0, 1.0))
        wall, cpu, load = timed_fit(clf, X, y)
        rows.append({"case": f"stumps fit n={n}", "n": n, "wall_s": wall, "load_1min": load,
                     "cpu_s": cpu,
                     "n_operations": clf.n_operations_,
                     "training_errors": int((clf.predict(X) != y).sum())})
        print(rows[-1], flush=True)
    if not quick:
        X, y = stump_data(10 ** 6)
        clf = SmoothHedgeClassifier(hypotheses="stumps", bounds=(0.0, 1.0))
        wall, cpu, load = timed_fit(clf, X, y)
        rows.append({"case": "stumps fit n=1000000", "n": 10 ** 6, "wall_s": wall,
                     "load_1min": load, "cpu_s": cpu,
                     "n_operations": clf.n_operations_, "n_experts": clf.n_experts_,
                     "training_errors": int((clf.predict(X) != y).sum()), "target_s": 60})
        print(rows[-1], flush=True)
    return rows


# ----------------------------------------------------------- prequential
class RiverAdapter:
    """river model behind partial_fit / predict."""

    def __init__(self, model):
        self.model = model

    binary_only = False  # river's linear models take bool labels (binary only)

    def partial_fit(self, X, y, classes=None):
        self.classes = np.asarray(classes)
        for x, label in zip(X, y):
            target = bool(label == self.classes[-1]) if self.binary_only else label
            self.model.learn_one(dict(enumerate(x)), target)
        return self

    def predict(self, X):
        out = [self.model.predict_one(dict(enumerate(x))) for x in X]
        if self.binary_only:
            return np.where(np.array(out, dtype=bool), self.classes[-1], self.classes[0])
        return np.array([o if o is not None else self.classes[0] for o in out])


def _binary(adapter):
    adapter.binary_only = True
    return adapter


def peers(n_classes=2):
    out = {"sklearn Perceptron": lambda: Perceptron(random_state=0),
           "sklearn SGD(hinge)": lambda: SGDClassifier(loss="hinge", random_state=0),
           "sklearn SGD(log_loss)": lambda: SGDClassifier(loss="log_loss", random_state=0)}
    try:
        from river import linear_model, tree
    except ImportError:
        return out
    out["river Perceptron"] = lambda: _binary(RiverAdapter(linear_model.Perceptron()))
    out["river LogisticRegression"] = lambda: _binary(
        RiverAdapter(linear_model.LogisticRegression()))
    out["river HoeffdingTree"] = lambda: RiverAdapter(tree.HoeffdingTreeClassifier())
    if n_classes > 2:  # river's linear models are binary
        out = {k: v for k, v in out.items() if "HoeffdingTree" in k or k.startswith("sklearn")}
    return out


def prequential(learner, X, y, classes, batch):
    """Accuracy of predictions made before each batch's labels are seen."""
    correct, fitted = 0, False
    for a in range(0, len(X), batch):
        Xb, yb = X[a:a + batch], y[a:a + batch]
        if fitted:
            correct += int(np.sum(learner.predict(Xb) == yb))
        learner.partial_fit(Xb, yb, classes=classes)
        fitted = True
    return correct / (len(X) - batch)


def classification_stream(n, n_classes, seed=0):
    X, y = make_classification(n_samples=n, n_features=10, n_informative=5,
                               n_classes=n_classes, n_clusters_per_class=1, random_state=seed)
    lo, hi = -6.0, 6.0  # public range of the generator's features (clip outside)
    return np.clip((X - lo) / (hi - lo), 0, 1), y


def accuracy_table(quick):
    n = 5000 if quick else 20000
    streams = {}
    for k in (2, 3):
        X, y = classification_stream(n, k)
        streams[f"make_classification k={k}"] = (X, y, "stumps", 20)
    rec = SmoothedHalfspaceAdversary(sigma=0.05, n_features=2, adaptive=False,
                                     label_noise=0.05, random_state=0)
    X, y = rec.sample(n)
    streams["smooth halfspace 2-D, sigma=0.05, 5% noise"] = (X, y, "halfspaces", 20)
    rows = []
    for name, (X, y, hyp, batch) in streams.items():
        classes = np.unique(y)
        learners = {"SmoothHedge(" + hyp + ")": lambda hyp=hyp: SmoothHedgeClassifier(
            hypotheses=hyp, sigma=0.05, bounds=(0.0, 1.0), random_state=0)}
        learners.update(peers(len(classes)))
        for lname, make in learners.items():
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                acc = prequential(make(), X, y, classes, batch)
            rows.append({"stream": name, "learner": lname, "prequential_accuracy": acc,
                         "rounds": len(X), "wall_s": time.perf_counter() - t0})
            print(rows[-1], flush=True)
    # the adaptive threshold adversary: mistakes of the deterministic vote
    n_adv = 5000 if quick else 20000
    learners = {"SmoothHedge(thresholds)": lambda: SmoothHedgeClassifier(
        sigma=0.01, horizon=n_adv, bounds=(0.0, 1.0))}
    learners.update({k: v for k, v in peers().items() if k.startswith("sklearn")})
    for lname, make in learners.items():
        stream = SmoothedThresholdAdversary(sigma=0.01, random_state=0)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            record = stream.play(make(), n_adv, batch_size=25)
        rows.append({"stream": "adaptive threshold adversary sigma=0.01", "learner": lname,
                     "prequential_accuracy": 1 - record.mistakes / n_adv, "rounds": n_adv,
                     "wall_s": time.perf_counter() - t0})
        print(rows[-1], flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--before", help="json of the previous code's stumps n-scaling")
    parser.add_argument("--only", choices=["scaling", "accuracy"])
    args = parser.parse_args()
    # a quick run never overwrites the results the docs cite
    results_path = RESULTS.replace(".json", "_quick.json") if args.quick else RESULTS
    out = {}
    if args.only and os.path.exists(results_path):  # keep the other part's numbers
        out = json.load(open(results_path))
    out.update({"machine": platform.platform(), "python": sys.version.split()[0],
                "sklearn": sklearn.__version__, "quick": args.quick})
    if args.before:
        out["before"] = json.load(open(args.before))
    if args.only in (None, "scaling"):
        if "scaling" in out:  # the numbers of the code before this run, for comparison
            out["scaling_previous_run"] = out["scaling"]
        out["scaling"] = scaling(args.quick)
    if args.only in (None, "accuracy"):
        out["accuracy"] = accuracy_table(args.quick)
    os.makedirs(os.path.dirname(results_path), exist_ok=True)
    with open(results_path, "w") as f:
        json.dump(out, f, indent=1)
    print("wrote", results_path)


if __name__ == "__main__":
    main()

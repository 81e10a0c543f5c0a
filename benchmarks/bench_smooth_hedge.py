"""Benchmark SmoothHedgeClassifier: Hedge throughput and online mistakes vs peers.

Run::

    python benchmarks/bench_smooth_hedge.py [--quick]

Part 1 (throughput): expert-round updates per second of the dense Hedge
kernel (one log-weight per expert; the path every finite cover uses) for
K in {1e3, 1e4, 1e5}, kernel only (prediction matrix given) and end to end
(cover evaluation + update). The segment engine used for thresholds/stumps
does not touch every expert each round; its "effective" rate (K x rounds /
time) is reported separately and is not comparable.

Part 2 (online mistakes, side by side in one process, each learner facing
its own copy of the same seeded stream; every round is predict-then-update,
one ``partial_fit`` call per round):

(a) adaptive sigma-smooth threshold adversary (000 App. B style), sigma=0.01;
(b) adaptive sigma-smooth 2-D halfspace adversary, sigma=0.01;
(c) breast cancer (569 rows, 30 features), shuffled (5 seeds), stumps.
    Public bounds: the per-feature [min, max] of the dataset's published
    summary table (``sksmooth.datasets.load_breast_cancer_public``); every
    learner sees the features scaled to [0, 1] with these bounds.

Peers: sklearn Perceptron and SGDClassifier (hinge, log-loss) ``partial_fit``;
river's Perceptron / LogisticRegression when river is importable.

Writes benchmarks/results/smooth_hedge.json.
"""

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # 2-core shared machine: no BLAS thread stalls
import json
import platform
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import sklearn  # noqa: E402
from sklearn.linear_model import Perceptron, SGDClassifier  # noqa: E402

from sksmooth.classes import Thresholds  # noqa: E402
from sksmooth.datasets import load_breast_cancer_public  # noqa: E402
from sksmooth.metrics._regret import regret  # noqa: E402
from sksmooth.online import SmoothHedgeClassifier  # noqa: E402
from sksmooth.online._hedge import DenseHedge, StumpHedge  # noqa: E402
from sksmooth.streams import SmoothedHalfspaceAdversary, SmoothedThresholdAdversary  # noqa: E402

try:  # optional peer
    import river  # noqa: F401
    from river import linear_model as river_linear
    HAVE_RIVER = True
except ImportError:  # pragma: no cover
    HAVE_RIVER = False

RESULTS = os.path.join(os.path.dirname(__file__), "results", "smooth_hedge.json")


# ------------------------------------------------------------- throughput
def throughput(quick):
    rows = []
    rng = np.random.default_rng(0)
    budget = 2e7 if quick else 2e8  # expert-rounds per measurement
    for K in (10 ** 3, 10 ** 4, 10 ** 5):
        n_rounds = int(budget // K)
        cover = Thresholds().cover(bounds=(0.0, 1.0), max_size=K)
        K_real = cover.n_concepts
        X = rng.random((n_rounds, 1))
        y = X[:, 0] > 0.37
        eta = float(np.sqrt(8 * np.log(K_real) / n_rounds))
        # kernel only: prediction matrices computed beforehand (chunked)
        chunk = max(1, (1 << 22) // K_real)
        mats = [cover.evaluate(X[a:a + chunk]) for a in range(0, n_rounds, chunk)]
        hedge = DenseHedge(K_real, eta)
        t0 = time.perf_counter()
        for i, a in enumerate(range(0, n_rounds, chunk)):
            hedge.update(mats[i], y[a:a + chunk])
        kernel = time.perf_counter() - t0
        del mats
        # end to end: evaluate the cover + update
        hedge = DenseHedge(K_real, eta)
        t0 = time.perf_counter()
        for a in range(0, n_rounds, chunk):
            hedge.update(cover.evaluate(X[a:a + chunk]), y[a:a + chunk])
        e2e = time.perf_counter() - t0
        # segment engine (thresholds): effective rate
        seg = StumpHedge(cover.feature, cover.threshold, cover.sign, 1, eta)
        t0 = time.perf_counter()
        for a in range(0, n_rounds, 512):
            seg.update(X[a:a + 512], y[a:a + 512])
        segment = time.perf_counter() - t0
        rows.append({
            "K": K_real, "rounds": n_rounds,
            "dense_kernel_updates_per_s": K_real * n_rounds / kernel,
            "dense_end_to_end_updates_per_s": K_real * n_rounds / e2e,
            "segment_engine_effective_updates_per_s": K_real * n_rounds / segment,
            "segment_engine_segments": seg.n_segments,
        })
        print(f"K={K_real:>7d} rounds={n_rounds:>7d}  dense kernel {rows[-1]['dense_kernel_updates_per_s']:.3g}/s"
              f"  end-to-end {rows[-1]['dense_end_to_end_updates_per_s']:.3g}/s"
              f"  segment (effective) {rows[-1]['segment_engine_effective_updates_per_s']:.3g}/s")
    return rows


# ---------------------------------------------------------------- learners
class RiverAdapter:
    """river model behind partial_fit/predict (labels -1/+1)."""

    def __init__(self, model):
        self.model = model

    def partial_fit(self, X, y, classes=None):
        for x, label in zip(X, y):
            self.model.learn_one(dict(enumerate(x)), bool(label > 0))
        return self

    def predict(self, X):
        return np.array([1 if self.model.predict_one(dict(enumerate(x))) else -1 for x in X])


def peers():
    out = {
        "Perceptron": lambda: Perceptron(random_state=0),
        "SGD(hinge)": lambda: SGDClassifier(loss="hinge", random_state=0),
        "SGD(log_loss)": lambda: SGDClassifier(loss="log_loss", random_state=0),
    }
    if HAVE_RIVER:
        out["river.Perceptron"] = lambda: RiverAdapter(river_linear.Perceptron())
        out["river.LogisticRegression"] = lambda: RiverAdapter(river_linear.LogisticRegression())
    return out


def run_stream(make_stream, learners, n_rounds, comparator):
    rows = []
    for name, make in learners.items():
        learner = make()
        stream = make_stream()
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            record = stream.play(learner, n_rounds, batch_size=1)
        wall = time.perf_counter() - t0
        row = {"learner": name, "rounds": n_rounds, "mistakes": record.mistakes,
               "wall_s": wall}
        if isinstance(learner, SmoothHedgeClassifier):
            row["expected_loss"] = learner.cumulative_loss_
            row["regret_bound"] = learner.regret_bound_
            row["regret_bound_is_class"] = learner.regret_bound_is_class_
            row["n_experts"] = learner.n_experts_
        if comparator is not None:
            best = regret(record.y, record.y_pred, record.X, comparator, return_best=True)[1]
            row["best_in_class_loss"] = best
            row["regret_of_mistakes"] = record.mistakes - best
            if "expected_loss" in row:
                row["regret_expected"] = row["expected_loss"] - best
        rows.append(row)
        print(f"  {name:<26s} mistakes {record.mistakes:>6d}  wall {wall:7.2f}s"
              + (f"  E[loss] {row['expected_loss']:.1f}  bound {row['regret_bound']:.1f}"
                 if "expected_loss" in row else ""))
    return rows


def breast_cancer(n_seeds):
    X01, target, bounds = load_breast_cancer_public(scale=True)  # published bounds
    y = np.where(target == 1, 1, -1)
    learners = {"SmoothHedge(stumps)": lambda: SmoothHedgeClassifier(
        hypotheses="stumps", sigma=0.1, horizon=len(y), bounds=bounds)}
    learners.update(peers())
    rows = []
    for name, make in learners.items():
        mistakes, walls = [], []
        for seed in range(n_seeds):
            order = np.random.default_rng(seed).permutation(len(y))
            Xs, ys = X01[order], y[order]
            learner = make()
            t0 = time.perf_counter()
            n_wrong = 0
            for t in range(len(ys)):
                if t > 0:
                    n_wrong += int(learner.predict(Xs[t:t + 1])[0] != ys[t])
                else:
                    n_wrong += int(ys[0] != -1)
                learner.partial_fit(Xs[t:t + 1], ys[t:t + 1], classes=np.array([-1, 1]))
            walls.append(time.perf_counter() - t0)
            mistakes.append(n_wrong)
        rows.append({"learner": name, "rounds": len(y), "seeds": n_seeds,
                     "mistakes_mean": float(np.mean(mistakes)),
                     "mistakes_std": float(np.std(mistakes)), "wall_s_mean": float(np.mean(walls))})
        print(f"  {name:<26s} mistakes {np.mean(mistakes):7.1f} ± {np.std(mistakes):5.1f}"
              f"  wall {np.mean(walls):6.2f}s")
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    quick = args.quick
    results = {"machine": {"python": platform.python_version(), "numpy": np.__version__,
                           "sklearn": sklearn.__version__, "cpus": os.cpu_count(),
                           "river": HAVE_RIVER},
               "quick": quick}
    print("== Hedge throughput (expert-round updates per second)")
    results["throughput"] = throughput(quick)

    sigma = 0.01
    T = 2000 if quick else 20000
    print(f"== (a) adaptive smoothed thresholds, sigma={sigma}, T={T}")
    learners = {"SmoothHedge(thresholds)": lambda: SmoothHedgeClassifier(
        sigma=sigma, horizon=T, bounds=(0.0, 1.0))}
    learners.update(peers())
    results["thresholds"] = run_stream(
        lambda: SmoothedThresholdAdversary(sigma=sigma, random_state=0), learners, T,
        "thresholds")

    T2 = 1000 if quick else 5000
    print(f"== (b) adaptive smoothed 2-D halfspaces, sigma={sigma}, T={T2}")
    learners = {"SmoothHedge(halfspaces)": lambda: SmoothHedgeClassifier(
        hypotheses="halfspaces", sigma=sigma, horizon=T2, bounds=(0.0, 1.0),
        max_experts=20000, random_state=0)}
    learners.update(peers())
    results["halfspaces"] = run_stream(
        lambda: SmoothedHalfspaceAdversary(sigma=sigma, n_features=2, random_state=0),
        learners, T2, None)

    print("== (c) breast cancer, shuffled, one pass (stumps; published bounds)")
    results["breast_cancer"] = breast_cancer(2 if quick else 5)

    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    if not quick:
        with open(RESULTS, "w") as fh:
            json.dump(results, fh, indent=2)
        print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()

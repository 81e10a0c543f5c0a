"""Benchmark: Gaussian FTPL (PerturbedERMClassifier.partial_fit) against online baselines.

Block, Shetty, *Small loss bounds for online learning separated function
classes: a Gaussian process perspective*, arXiv:2502.10292 (2025), Alg. 1 and
Thm 1.

Prequential protocol: each batch of rows is predicted by the learner's
current model, then given to ``partial_fit`` (one FTPL round per batch).
Reported per stream and learner, over >= 5 seeds: mistakes (mean +- sd) and
regret against the best decision stump in hindsight (exact ERM over a
256-threshold grid on the whole stream; one reference class for every
learner, so a learner of another class can have negative regret).

Streams: the package's sigma-smooth threshold adversaries
(:class:`sksmooth.streams.SmoothedThresholdAdversary`, non-adaptive and
adaptive, sigma in {0.1, 0.5}, 5 % label noise), a ``make_classification``
stream (10 features) and, when ``river`` is installed, its bundled Phishing
and Bananas data sets (no download). Learners: FTPL with the practical
default noise / the theory noise / label perturbation, with the default
exact depth-2 grid-tree oracle (DepthTwoTreeERMClassifier), 128-grid stumps
(the previous default), greedy CART (DecisionTreeClassifier(max_depth=2))
and logistic-regression oracles; SmoothHedgeClassifier (stumps);
SGDClassifier; Perceptron; river's LogisticRegression. ``targets`` checks
the issue's targets for both exact candidate default classes.

Also: wall time of the default FTPL on T = 10^4 rows, the realizable
regret-vs-T figure next to Thm 1's bound where it is non-vacuous, and
(``--multiclass``) multiclass FTPL over 3 public classes on two 3-class
streams against the best multiclass stump in hindsight, SGD and Perceptron.

Run: ``python benchmarks/bench_ftpl.py [--quick] [--multiclass]`` (results
in ``benchmarks/results/ftpl.json``, per-seed runs cached in
``benchmarks/results/ftpl_runs.json``; figure in ``benchmarks/figures/``).
"""

import argparse
import importlib.util
import json
import os
import sys
import time
import warnings
from pathlib import Path

# one BLAS thread: on shared cores a threaded lbfgs (LogisticRegression) ran 30x slower
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this tree's sksmooth

import numpy as np  # noqa: E402
from sklearn.datasets import make_classification  # noqa: E402
from sklearn.linear_model import LogisticRegression, Perceptron, SGDClassifier  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

from sksmooth.online import SmoothHedgeClassifier  # noqa: E402
from sksmooth.perturbed import (  # noqa: E402
    MulticlassStumpERMClassifier,
    ParityERMClassifier,
    PerturbedERMClassifier,
    StumpERMClassifier,
)
from sksmooth.perturbed._ftpl import _theory_bound  # noqa: E402
from sksmooth.streams import SmoothedThresholdAdversary  # noqa: E402

RESULTS = Path(__file__).parent / "results"
FIGURES = Path(__file__).parent / "figures"
BATCH = 10


# ---------------------------------------------------------------- learners
def ftpl(oracle=None, **kw):
    return lambda box, T: PerturbedERMClassifier(oracle, bounds=box, classes=[0, 1], **kw)


def stumps128():
    return StumpERMClassifier(n_thresholds=128)


LEARNERS = {
    "FTPL default (grid trees d=2)": ftpl(),
    "FTPL stumps (128 grid)": ftpl(stumps128()),
    "FTPL CART depth 2": ftpl(DecisionTreeClassifier(max_depth=2)),
    "FTPL default (logistic)": ftpl(LogisticRegression()),
    "FTPL theory (grid trees d=2)": lambda box, T: PerturbedERMClassifier(
        bounds=box, classes=[0, 1], noise="theory", horizon=-(-T // BATCH)),
    "FTPL theory (stumps)": lambda box, T: PerturbedERMClassifier(
        stumps128(), bounds=box, classes=[0, 1], noise="theory", horizon=-(-T // BATCH)),
    "FTPL labels (stumps)": ftpl(stumps128(), online_perturbation="labels"),
    "SmoothHedge (stumps)": lambda box, T: SmoothHedgeClassifier(
        hypotheses="stumps", horizon=T, bounds=box),
    "SGDClassifier": lambda box, T: SGDClassifier(random_state=0),
    "Perceptron": lambda box, T: Perceptron(random_state=0),
    "river LogisticRegression": "river",
}


class RiverLogistic:
    """river's LogisticRegression behind partial_fit / predict (row by row)."""

    def __init__(self):
        from river import linear_model

        self.model = linear_model.LogisticRegression()

    def predict(self, X):
        return np.array([int(self.model.predict_one(dict(enumerate(x))) or 0) for x in X])

    def partial_fit(self, X, y, classes=None):
        for x, label in zip(X, y):
            self.model.learn_one(dict(enumerate(x)), bool(label))
        return self


def make_learner(name, box, T):
    if LEARNERS[name] == "river":
        return RiverLogistic()
    return LEARNERS[name](box, T)


# ----------------------------------------------------------------- streams
def best_stump_loss(X, y, box):
    erm = StumpERMClassifier(n_thresholds=256, bounds=box).fit(X, y)
    return int(np.sum(erm.predict(X) != y))


def prequential(learner, X, y, classes=(0, 1), batch=BATCH):
    mistakes, fitted = 0, False
    for start in range(0, len(X), batch):
        Xb, yb = X[start:start + batch], y[start:start + batch]
        pred = learner.predict(Xb) if fitted else np.zeros(len(Xb), dtype=int)
        mistakes += int(np.sum(np.asarray(pred) != yb))
        learner.partial_fit(Xb, yb, classes=np.array(classes))
        fitted = True
    return mistakes


def adversary_stream(sigma, adaptive):
    def run(learner, seed, T):
        adv = SmoothedThresholdAdversary(sigma=sigma, adaptive=adaptive, label_noise=0.05,
                                         random_state=seed)
        record = adv.play(learner, T, batch_size=BATCH, classes=(0, 1))
        y01 = (record.y > 0).astype(int)
        return record.mistakes, best_stump_loss(record.X, y01, (0.0, 1.0))
    return run, (0.0, 1.0)


def data_stream(loader):
    def run(learner, seed, T):
        X, y, box = loader(seed)
        X, y = X[:T], y[:T]
        return prequential(learner, X, y), best_stump_loss(X, y, box)
    return run


def classification(seed):
    X, y = make_classification(n_samples=3000, n_features=10, n_informative=4,
                               random_state=seed)
    lower, upper = np.full(10, -6.0), np.full(10, 6.0)  # public box of the generator
    return np.clip(X, lower, upper), y, (lower, upper)


def river_stream(name):
    def load(seed):
        from river import datasets

        rows = list(getattr(datasets, name)())
        X = np.array([[float(v) for v in x.values()] for x, _ in rows])
        y = np.array([int(bool(label)) for _, label in rows])
        order = np.random.default_rng(seed).permutation(len(X))  # a shuffled stream
        lower, upper = X.min(axis=0), X.max(axis=0)  # public: the data set's documented range
        return X[order], y[order], (lower, upper)
    return load


def streams(include_river):
    out = {}
    for sigma in (0.1, 0.5):
        for adaptive in (False, True):
            run, _ = adversary_stream(sigma, adaptive)
            out[f"smooth thresholds sigma={sigma} {'adaptive' if adaptive else 'non-adaptive'}"] = (
                run, (0.0, 1.0))
    out["make_classification d=10"] = (data_stream(classification), None)
    if include_river:
        out["river Phishing"] = (data_stream(river_stream("Phishing")), None)
        out["river Bananas"] = (data_stream(river_stream("Bananas")), None)
    return out


def box_of(name, seed):
    if name.startswith("smooth"):
        return (0.0, 1.0)
    if name.startswith("make_classification"):
        return classification(seed)[2]
    return river_stream(name.split()[1])(seed)[2]


# ----------------------------------------------------------- experiments
# Learners of other packages: their results do not depend on this package's
# code, so they are cached per (stream, learner, seed, T) and reused.
PEERS = {"SmoothHedge (stumps)", "SGDClassifier", "Perceptron", "river LogisticRegression"}
CACHE = RESULTS / "ftpl_runs.json"


def _load_cache():
    return json.loads(CACHE.read_text()) if CACHE.exists() else {}


def _save_cache(cache):
    RESULTS.mkdir(exist_ok=True)
    tmp = CACHE.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(cache, indent=0, sort_keys=True))
    tmp.replace(CACHE)


def _one_run(stream_name, run, name, seed, T):
    box = box_of(stream_name, seed)
    learner = make_learner(name, box, T)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m, best = run(learner, seed, T)
    return {"mistakes": int(m), "best": int(best), "seconds": time.perf_counter() - t0}


def bench_streams(n_seeds, T, learners, include_river, reuse=(), compute=True):
    """One row per (stream, learner): runs are cached per seed; a cached run is
    reused for a peer learner or a learner named in ``reuse``, else recomputed
    (``compute=False``: rows without all seeds cached are left out)."""
    cache, table = _load_cache(), {}
    for stream_name, (run, _) in streams(include_river).items():
        table[stream_name] = {}
        for name in learners:
            if name == "river LogisticRegression" and not include_river:
                continue
            keys = [f"{stream_name}|{name}|{seed}|{T}" for seed in range(n_seeds)]
            if not compute and not all(key in cache for key in keys):
                continue
            runs = []
            for key, seed in zip(keys, range(n_seeds)):
                if key not in cache or not (name in PEERS or name in reuse):
                    cache[key] = _one_run(stream_name, run, name, seed, T)
                    _save_cache(cache)
                runs.append(cache[key])
            mistakes = [r["mistakes"] for r in runs]
            regrets = [r["mistakes"] - r["best"] for r in runs]
            table[stream_name][name] = {
                "mistakes_mean": float(np.mean(mistakes)), "mistakes_sd": float(np.std(mistakes)),
                "regret_mean": float(np.mean(regrets)),
                "seconds_mean": float(np.mean([r["seconds"] for r in runs])),
                "mistakes": mistakes, "best_stump": [r["best"] for r in runs],
            }
            print(f"{stream_name:45s} {name:28s} mistakes {np.mean(mistakes):7.1f} "
                  f"+- {np.std(mistakes):5.1f}  regret {np.mean(regrets):7.1f}  "
                  f"{table[stream_name][name]['seconds_mean']:5.2f}s", flush=True)
    return table


# ------------------------------------------------------------ multiclass
MULTICLASS_LEARNERS = {
    "FTPL default (multiclass grid trees d=2)": lambda box: PerturbedERMClassifier(
        bounds=box, classes=[0, 1, 2]),
    "FTPL multiclass stumps (128 grid)": lambda box: PerturbedERMClassifier(
        MulticlassStumpERMClassifier(n_thresholds=128), bounds=box, classes=[0, 1, 2]),
    "FTPL CART depth 2": lambda box: PerturbedERMClassifier(
        DecisionTreeClassifier(max_depth=2), bounds=box, classes=[0, 1, 2]),
    "FTPL labels (multiclass stumps)": lambda box: PerturbedERMClassifier(
        MulticlassStumpERMClassifier(n_thresholds=128), bounds=box, classes=[0, 1, 2],
        online_perturbation="labels"),
    "SGDClassifier": lambda box: SGDClassifier(random_state=0),
    "Perceptron": lambda box: Perceptron(random_state=0),
}


def multiclass_streams():
    def intervals(seed, T):
        """3 features in [0, 1], label = interval of x1 (cuts 0.3, 0.7), 5 % noise."""
        rng = np.random.default_rng(seed)
        X = rng.uniform(size=(T, 3))
        y = np.digitize(X[:, 1], [0.3, 0.7])
        flip = rng.random(T) < 0.05
        y[flip] = rng.integers(0, 3, size=flip.sum())
        return X, y, (0.0, 1.0)

    def classification3(seed, T):
        X, y = make_classification(n_samples=T, n_features=10, n_informative=4,
                                   n_classes=3, random_state=seed)
        lower, upper = np.full(10, -6.0), np.full(10, 6.0)
        return np.clip(X, lower, upper), y, (lower, upper)

    return {"3 intervals of x1 (5% noise)": intervals,
            "make_classification d=10, 3 classes": classification3}


def bench_multiclass(n_seeds, T):
    """Prequential mistakes of multiclass FTPL (partial_fit over 3 public
    classes) against the best multiclass stump in hindsight and baselines."""
    table = {}
    for stream_name, load in multiclass_streams().items():
        table[stream_name] = {}
        for name, make in MULTICLASS_LEARNERS.items():
            mistakes, best, seconds = [], [], []
            for seed in range(n_seeds):
                X, y, box = load(seed, T)
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    mistakes.append(prequential(make(box), X, y, classes=(0, 1, 2)))
                seconds.append(time.perf_counter() - t0)
                erm = MulticlassStumpERMClassifier(n_thresholds=256, bounds=box).fit(X, y)
                best.append(int(np.sum(erm.predict(X) != y)))
            table[stream_name][name] = {
                "mistakes_mean": float(np.mean(mistakes)), "mistakes_sd": float(np.std(mistakes)),
                "regret_mean": float(np.mean(mistakes) - np.mean(best)),
                "seconds_mean": float(np.mean(seconds)), "mistakes": mistakes,
                "best_stump": best}
            print(f"{stream_name:40s} {name:34s} mistakes {np.mean(mistakes):7.1f} "
                  f"+- {np.std(mistakes):5.1f}  best stump {np.mean(best):6.1f}  "
                  f"{np.mean(seconds):5.2f}s", flush=True)
    return table


def bench_time(T=10_000, batch_sizes=(10, 1)):
    """Wall time of T rows, 3 features: the default (grid trees, 32 thresholds)
    and the 128-grid stumps (the previous default), side by side."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(T, 3))
    y = (X[:, 0] > 0.37).astype(int) ^ (rng.random(T) < 0.05)
    out = {}
    for oracle_name, oracle in (("default", None), ("stumps128", stumps128())):
        for batch in batch_sizes:
            for refit_every in ((1,) if batch > 1 else (1, 10)):
                clf = PerturbedERMClassifier(oracle, bounds=(0, 1), classes=[0, 1],
                                             refit_every=refit_every)
                t0 = time.perf_counter()
                for start in range(0, T, batch):
                    clf.partial_fit(X[start:start + batch], y[start:start + batch])
                key = f"{oracle_name} T={T} batch={batch} refit_every={refit_every}"
                out[key] = {"seconds": time.perf_counter() - t0,
                            "mistakes": clf.cumulative_loss_}
                print(key, out[key], flush=True)
    return out


def bench_logistic_vs_sgd(T=10_000, batch_sizes=(10, 1), repeats=2):
    """Issue 37's target: ``partial_fit`` with a ``LogisticRegression`` oracle at
    most 3x ``SGDClassifier``'s time over T rows (predict then partial_fit, the
    stream of ``bench_time``), prequential accuracy within 1 point of SGD's.
    Both in this process, best of ``repeats`` runs."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(T, 3))
    y = (X[:, 0] > 0.37).astype(int) ^ (rng.random(T) < 0.05)
    learners = {"PerturbedERMClassifier(LogisticRegression())": lambda: PerturbedERMClassifier(
        LogisticRegression(), bounds=(0, 1), classes=[0, 1]),
        "SGDClassifier": lambda: SGDClassifier(random_state=0)}
    out = {}
    for batch in batch_sizes:
        row = {}
        for name, make in learners.items():
            runs = []
            for _ in range(repeats):
                learner, t0 = make(), time.perf_counter()
                mistakes = prequential(learner, X, y, batch=batch)
                runs.append((time.perf_counter() - t0, mistakes))
            row[name] = {"seconds": min(s for s, _ in runs),
                         "accuracy": [1 - m / T for _, m in runs]}
        ours, sgd = row["PerturbedERMClassifier(LogisticRegression())"], row["SGDClassifier"]
        row["time_ratio"] = round(ours["seconds"] / sgd["seconds"], 2)
        row["accuracy_points_over_sgd"] = round(
            100 * (np.mean(ours["accuracy"]) - np.mean(sgd["accuracy"])), 2)
        out[f"T={T} batch={batch}"] = row
        print(f"T={T} batch={batch}", row, flush=True)
    return out


def bench_realizable(horizons, n_seeds):
    """Realizable sigma = 1/2 parity stream (k = 4, |F| = 16, rho = sqrt 2):
    mistakes of FTPL default and theory (horizon = T) vs Thm 1's bound."""
    k, target = 4, 0b0110
    rows = []
    cal = None
    for T in horizons:
        res = {"default": [], "theory": []}
        for seed in range(n_seeds):
            rng = np.random.default_rng(seed)
            X = rng.integers(0, 2, size=(T, k))
            X[:, 0] = (np.arange(T) // 50) % 2  # uniform on a half-cube: sigma = 1/2
            y = np.bitwise_count(X @ (1 << np.arange(k)) & target) % 2
            for variant, kw in (("default", {}), ("theory", {"noise": "theory", "horizon": T})):
                clf = PerturbedERMClassifier(ParityERMClassifier(), classes=[0, 1], **kw)
                for t in range(T):
                    clf.partial_fit(X[t:t + 1], y[t:t + 1])
                res[variant].append(clf.cumulative_loss_)
                if variant == "theory":
                    cal = clf._run.calibration
        bound = _theory_bound(cal, T, 1, 0.0)
        rows.append({"T": T, "default": float(np.mean(res["default"])),
                     "theory": float(np.mean(res["theory"])), "thm1_bound": bound,
                     "vacuous": bool(bound > T)})
        print(rows[-1], flush=True)
    return rows


def figure(rows):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no figure")
        return None
    FIGURES.mkdir(exist_ok=True)
    T = [r["T"] for r in rows]
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot(T, [r["default"] for r in rows], "o-", label="FTPL default (regret = mistakes)")
    ax.plot(T, [r["theory"] for r in rows], "s-", label="FTPL theory eta")
    ok = [r for r in rows if not r["vacuous"]]
    ax.plot([r["T"] for r in ok], [r["thm1_bound"] for r in ok], "k--",
            label="Thm 1 bound (L* = 0), where < T")
    ax.plot(T, T, ":", color="grey", label="trivial bound T")
    ax.set_xscale("log"), ax.set_yscale("log")
    ax.set_xticks(T, [str(t) for t in T], minor=False)
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("T (rounds)"), ax.set_ylabel("regret")
    ax.set_title("Realizable sigma=1/2 parity stream, |F| = 16")
    ax.legend(fontsize=7)
    path = FIGURES / "ftpl_regret_vs_T.png"
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return str(path.relative_to(Path(__file__).parent.parent))


TARGET_CANDIDATES = ("FTPL default (grid trees d=2)", "FTPL stumps (128 grid)")


def targets(table):
    """The issue's targets per stream, for each candidate default class: within
    1.5x SmoothHedge on the smooth streams, and below SGD and Perceptron."""
    out = {}
    for candidate in TARGET_CANDIDATES:
        out[candidate] = {}
        for stream, rows in table.items():
            if not {candidate, "SGDClassifier", "Perceptron"} <= set(rows):
                continue
            ftpl_m = rows[candidate]["mistakes_mean"]
            row = {"mistakes": ftpl_m,
                   "below SGD": ftpl_m < rows["SGDClassifier"]["mistakes_mean"],
                   "below Perceptron": ftpl_m < rows["Perceptron"]["mistakes_mean"]}
            if stream.startswith("smooth"):
                row["within 1.5x SmoothHedge"] = (
                    ftpl_m <= 1.5 * rows["SmoothHedge (stumps)"]["mistakes_mean"])
            row["best stump in hindsight (mean)"] = float(np.mean(rows[candidate]["best_stump"]))
            out[candidate][stream] = row
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--learners", action="append", default=None,
                        help="run only these learners (default: all); the table is "
                             "assembled from the cache for the others")
    parser.add_argument("--reuse", action="append", default=[],
                        help="reuse cached runs of these (package) learners too")
    parser.add_argument("--no-time", action="store_true", help="skip the timing runs")
    parser.add_argument("--logistic-timing", action="store_true",
                        help="only the logistic-oracle vs SGDClassifier timing (issue 37)")
    parser.add_argument("--no-realizable", action="store_true")
    parser.add_argument("--no-streams", action="store_true",
                        help="skip the binary streams (keep the stored table)")
    parser.add_argument("--multiclass", action="store_true",
                        help="also run the multiclass streams")
    args = parser.parse_args()
    include_river = importlib.util.find_spec("river") is not None
    n_seeds, T = (2, 600) if args.quick else (5, 1500)
    name = "ftpl_quick.json" if args.quick else "ftpl.json"
    path = RESULTS / name
    out = json.loads(path.read_text()) if path.exists() else {}
    out.update({"protocol": __doc__.split("\n\n")[1], "n_seeds": n_seeds, "T": T,
                "batch": BATCH})
    if args.logistic_timing:
        out["logistic_vs_sgd"] = bench_logistic_vs_sgd(2000 if args.quick else 10_000)
        path.write_text(json.dumps(out, indent=1))
        return
    if not args.no_time:
        out["timing"] = bench_time() if not args.quick else bench_time(2000)
        out["logistic_vs_sgd"] = bench_logistic_vs_sgd(2000 if args.quick else 10_000)
    if not args.no_streams:
        chosen = args.learners or list(LEARNERS)
        bench_streams(n_seeds, T, chosen, include_river, reuse=args.reuse)
        out["streams"] = bench_streams(n_seeds, T, list(LEARNERS), include_river,
                                       reuse=list(LEARNERS), compute=False)  # from the cache
        out["targets"] = targets(out["streams"])
    if args.multiclass:
        out["multiclass"] = bench_multiclass(n_seeds, T)
    if not args.no_realizable:
        horizons = [250, 500, 1000, 2000, 4000, 8000] if not args.quick else [250, 500]
        out["realizable"] = bench_realizable(horizons, 5 if not args.quick else 1)
        out["figure"] = figure(out["realizable"])
    RESULTS.mkdir(exist_ok=True)
    for stale in ("timing_before_128_grid", "rerun_note"):
        out.pop(stale, None)
    path.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

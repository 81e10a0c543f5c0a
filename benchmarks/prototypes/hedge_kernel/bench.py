"""Per-call CPU time of predict + partial_fit (the per_call section of
benchmarks/bench_online_defaults.py), alternated in one process: SGDClassifier, the
package, the C kernel behind a bare wrapper, and the package with its AxisHedge
engine's update / predict_proba_from replaced by the C kernel (all of the
estimator's validation and bookkeeping kept)."""
import json
import os
import sys
import time
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[3]))  # the repo
from sklearn.linear_model import SGDClassifier  # noqa: E402

from sksmooth.online import SmoothHedgeClassifier  # noqa: E402
from sksmooth.online._hedge import AxisHedge  # noqa: E402

from hedgec import CHedge  # noqa: E402

warnings.simplefilter("ignore")
REPEATS = int(os.environ.get("REPEATS", 5))


class CAxis(AxisHedge):
    """The package's engine with update / predict_proba_from done by the C kernel."""

    @classmethod
    def wrap(cls, engine):
        obj = object.__new__(cls)
        obj.__dict__.update(engine.__dict__)
        obj.c = CHedge(engine)
        return obj

    def snapshot(self):  # NOT atomic: shares the C state (prototype)
        return self

    def update(self, X, y):
        self.c.partial_fit(X, y)
        p1 = self.c.last_p1
        proba = np.column_stack([1.0 - p1, p1])
        return proba, 1.0 - proba[np.arange(len(y)), y]

    def predict_proba_from(self, X):
        p1 = self.c.predict_p1(X)[0]
        return np.column_stack([1.0 - p1, p1])


def make_pkg(sigma):
    return SmoothHedgeClassifier(hypotheses="stumps", sigma=sigma, bounds=(0.0, 1.0),
                                 horizon=10 ** 4)


class Bare:
    """C kernel, bare wrapper (np.ascontiguousarray + ctypes), cover from the package."""

    def __init__(self, sigma):
        self.sigma = sigma

    def partial_fit(self, X, y, classes=None):
        if classes is not None:
            pkg = make_pkg(self.sigma).partial_fit(X, y, classes=classes)
            self.c = CHedge(pkg._stream.current.play.engine)
        self.c.partial_fit(X, y)
        return self

    def predict(self, X):
        return self.c.predict(X)

    @property
    def mistakes_(self):
        return self.c.mistakes_


class Hybrid:
    def __init__(self, sigma):
        self.sigma = sigma

    def partial_fit(self, X, y, classes=None):
        if classes is not None:
            self.m = make_pkg(self.sigma)
            # a first call on the set-up batch, then the engine swapped and the batch
            # replayed on a fresh C state: same state as the package after its first call
            self.m.partial_fit(X, y, classes=classes)
            play = self.m._stream.current.play
            fresh = make_pkg(self.sigma).partial_fit(X[:1], y[:1], classes=classes)
            play.engine = CAxis.wrap(fresh._stream.current.play.engine)
            play.engine.c.partial_fit(X, y)
            return self
        self.m.partial_fit(X, y)
        return self

    def predict(self, X):
        return self.m.predict(X)

    @property
    def mistakes_(self):
        return self.m.mistakes_


def per_call(model, X, y, batch, n_calls):
    model.partial_fit(X[:batch], y[:batch], classes=[0, 1])  # set-up
    cpu = time.process_time()
    for c in range(1, n_calls + 1):
        xb, yb = X[c * batch:(c + 1) * batch], y[c * batch:(c + 1) * batch]
        model.predict(xb)
        model.partial_fit(xb, yb)
    return (time.process_time() - cpu) / n_calls, getattr(model, "mistakes_", None)


def main():
    rng = np.random.default_rng(0)
    out = {}
    plan = ((1, 2000), (10, 1000), (1000, 20))
    only = os.environ.get("BATCHES")
    for batch, n_calls in plan:
        X = rng.random(((n_calls + 1) * batch, 10))
        y = (X[:, 0] + 0.3 * X[:, 1] > 0.6).astype(int)
        if only and str(batch) not in only.split(","):
            continue
        learners = {"SGD": lambda: SGDClassifier(random_state=0)}
        for s in (0.1, "auto"):
            learners[f"pkg sigma={s}"] = lambda s=s: make_pkg(s)
            learners[f"C bare sigma={s}"] = lambda s=s: Bare(s)
            learners[f"pkg+C engine sigma={s}"] = lambda s=s: Hybrid(s)
        runs = {k: [] for k in learners}
        mistakes = {}
        for _ in range(REPEATS):
            for k, make in learners.items():
                t, mk = per_call(make(), X, y, batch, n_calls)
                runs[k].append(t)
                mistakes[k] = mk
        sgd = min(runs["SGD"])
        row = {k: {"cpu_ms_min": 1e3 * min(v), "cpu_ms_median": 1e3 * float(np.median(v)),
                   "ratio_to_sgd_min": min(v) / sgd, "mistakes": mistakes[k]}
               for k, v in runs.items()}
        out[batch] = row
        print(f"batch {batch} ({n_calls} calls, {REPEATS} alternated runs, CPU ms per call):")
        for k, v in row.items():
            print(f"  {k:28s} min {v['cpu_ms_min']:8.4f}  median {v['cpu_ms_median']:8.4f}  "
                  f"x SGD {v['ratio_to_sgd_min']:6.2f}  mistakes {v['mistakes']}")
        sys.stdout.flush()
    with open(os.path.join(os.path.dirname(__file__), "bench_result.json"), "w") as fh:
        json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()

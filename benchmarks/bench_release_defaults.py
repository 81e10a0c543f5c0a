"""MWEM at its defaults against AdaptiveMarginalSynthesizer on mixed tables.

Two 7-column tables, each with six continuous columns and one binary
categorical column:

``diabetes``  scikit-learn's bundled diabetes data (raw units, n = 442): age,
              sex (categorical), bmi, bp, s1, s5 and the target, with bounds
              from the variables' clinical ranges (not read from the rows).
``shuttle``   river's bundled Statlog Shuttle data (n = 49 097): sensors f1, f3,
              f5, f7, f8, f9 (heavy-tailed: most rows in a small part of the
              range) and ``anomaly`` (categorical); bounds are the sensors'
              ranges rounded outward to tens, taken as public for the benchmark.

Both estimators get the same public schema (``bounds`` per column, the
categorical column with its two levels) and only their other defaults.
``MWEM-2way`` is MWEM with the previous default workload, the 2-way marginals
only (``queries='marginals'``); the default ``queries='auto'`` adds the 1-way
tables, so that a round can measure one directly.

Error: real and synthetic rows are cut on one public grid (10 equal-width
bins on each bound, the levels for the categorical); for every 1-way and 2-way
table, the largest absolute cell error of the normalised counts and the
total variation distance; reported as the max / mean over tables, median
over seeds. Run: ``python benchmarks/bench_release_defaults.py [N_SEEDS] [TABLES]``;
results in ``benchmarks/results/release_defaults.json``.
"""

import itertools
import json
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from sksmooth.release import MWEM, AdaptiveMarginalSynthesizer  # noqa: E402

OUT = os.path.join(HERE, "results", "release_defaults.json")
EPSILONS = (1.0, 10.0)
DELTA = 1e-9
N_GRID = 10
TABLES = {
    "diabetes": {"bounds": {"age": (18, 80), "bmi": (15, 45), "bp": (60, 135),
                            "s1": (95, 305), "s5": (3.0, 6.5), "target": (25, 350)},
                 "categorical": "sex", "levels": [1.0, 2.0]},
    "shuttle": {"bounds": {"f1": (20, 130), "f3": (20, 150), "f5": (-190, 440),
                           "f7": (-50, 110), "f8": (-360, 270), "f9": (-360, 270)},
                "categorical": "anomaly", "levels": [0, 1]},
}


def load(table):
    if table == "diabetes":
        from sklearn.datasets import load_diabetes

        frame = load_diabetes(scaled=False, as_frame=True).frame
        return frame[["age", "sex", "bmi", "bp", "s1", "s5", "target"]].copy()
    import glob

    import pandas as pd
    import river

    path = glob.glob(os.path.join(os.path.dirname(river.__file__), "datasets", "shuttle.csv*"))
    frame = pd.read_csv(path[0])
    return frame[["f1", "f3", "f5", "f7", "f8", "f9", "anomaly"]].copy()


def codes(frame, table):
    """Cells of the public evaluation grid (10 bins per bound, levels for the categorical)."""
    spec = TABLES[table]
    out = np.empty(frame.shape, dtype=np.int64)
    shape = []
    for j, name in enumerate(frame.columns):
        v = np.asarray(frame[name], dtype=float)
        if name == spec["categorical"]:
            out[:, j] = (v == spec["levels"][1]).astype(np.int64)
            shape.append(2)
        else:
            lo, hi = spec["bounds"][name]
            out[:, j] = np.clip(np.floor((v - lo) / (hi - lo) * N_GRID), 0, N_GRID - 1)
            shape.append(N_GRID)
    return out, shape


def errors(real, synthetic, order, table):
    (a, shape), (b, _) = codes(real, table), codes(synthetic, table)
    cell, tvd = [], []
    for attrs in itertools.combinations(range(real.shape[1]), order):
        dims = [shape[i] for i in attrs]
        p = np.bincount(np.ravel_multi_index(a[:, attrs].T, dims), minlength=np.prod(dims))
        q = np.bincount(np.ravel_multi_index(b[:, attrs].T, dims), minlength=np.prod(dims))
        diff = p / p.sum() - q / max(q.sum(), 1)
        cell.append(np.abs(diff).max())
        tvd.append(0.5 * np.abs(diff).sum())
    return {"max_cell": float(max(cell)), "mean_tvd": float(np.mean(tvd))}


ESTIMATORS = ("MWEM", "MWEM-2way", "AdaptiveMarginalSynthesizer")


def models(epsilon, table):
    spec = TABLES[table]
    cat = spec["categorical"]

    def mwem(**kw):
        return MWEM(epsilon=epsilon, delta=DELTA, bounds=spec["bounds"],
                    levels={cat: spec["levels"]}, **kw)

    return {
        "MWEM": mwem,
        "MWEM-2way": lambda: mwem(queries="marginals"),
        "AdaptiveMarginalSynthesizer": lambda: AdaptiveMarginalSynthesizer(
            epsilon=epsilon, delta=DELTA, bounds=spec["bounds"], levels={cat: spec["levels"]}),
    }


def run(n_seeds, table):
    real = load(table)
    rows = []
    for epsilon in EPSILONS:
        for name, make in models(epsilon, table).items():
            for seed in range(n_seeds):
                est = make()
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est.fit(real)
                    synthetic = est.sample(len(real), random_state=seed)
                seconds = time.perf_counter() - start
                dtypes = {c: str(t) for c, t in synthetic.dtypes.items()}
                rows.append({"table": table, "estimator": name, "epsilon": epsilon,
                             "seed": seed, "seconds": seconds,
                             "one_way": errors(real, synthetic, 1, table),
                             "two_way": errors(real, synthetic, 2, table), "dtypes": dtypes,
                             "rounds": getattr(est, "n_iter_", None),
                             "fit_passes": getattr(est, "n_fit_passes_", None),
                             "grid": [int(v) for v in getattr(getattr(est, "_universe", None), "shape", ())]})
                print(table, name, epsilon, seed, rows[-1]["one_way"], rows[-1]["two_way"],
                      f"{seconds:.1f}s", flush=True)
    return rows


def summary(rows, table):
    out = {}
    for epsilon in EPSILONS:
        cell = {}
        for name in ESTIMATORS:
            mine = [r for r in rows if r["estimator"] == name and r["epsilon"] == epsilon
                    and r["table"] == table]
            cell[name] = {f"{k}_{m}": float(np.median([r[k][m] for r in mine]))
                          for k in ("one_way", "two_way") for m in ("max_cell", "mean_tvd")}
            cell[name]["seconds"] = float(np.median([r["seconds"] for r in mine]))
        for name in ESTIMATORS[:2]:
            cell[f"ratio_{name}_over_aim"] = {
                k: cell[name][k] / cell["AdaptiveMarginalSynthesizer"][k]
                for k in cell[name] if k != "seconds"}
        out[f"epsilon={epsilon:g}"] = cell
    return out


if __name__ == "__main__":
    n_seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    tables = sys.argv[2].split(",") if len(sys.argv) > 2 else list(TABLES)
    rows = [r for table in tables for r in run(n_seeds, table)]
    result = {"delta": DELTA, "tables": TABLES, "evaluation_grid": f"{N_GRID} bins per bound",
              "summary": {t: summary(rows, t) for t in tables}, "runs": rows}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result["summary"], indent=1))

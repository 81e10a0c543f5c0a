"""AdaptiveMarginalSynthesizer at its defaults on a wide survey-like table (issue 37).

A public, generated stand-in for a 40-column survey table of 10 levels per
column: a rank-4 Gaussian latent factor model plus independent noise in 40
dimensions, each column cut at its own (skewed, column-dependent) quantiles
into 10 levels, n = 10^5 rows. All 2-way marginals, epsilon 1, delta 1e-9,
``method='auto'`` (AIM on this table). One fit per run (it is long): CPU and
wall seconds of ``fit``, tables measured, the model's floats, and the max /
mean absolute error of all 2-way marginals of ``n`` emitted rows.

Run from the repository root::

    PYTHONPATH=$PWD python benchmarks/bench_aim_wide_table.py [--rows 100000] [--label after]

Writes ``benchmarks/results/aim_wide_table.json`` (one entry per ``--label``,
earlier entries of other labels kept, so a before/after pair sits side by side).
"""

import argparse
import itertools
import json
import platform
import time
import warnings
from pathlib import Path

import numpy as np

from sksmooth.release import AdaptiveMarginalSynthesizer

RESULTS = Path(__file__).resolve().parent / "results" / "aim_wide_table.json"


def wide_table(n, d=40, n_levels=10, rank=4, seed=0):
    """Correlated categorical table: latent factors + noise, column-specific cut points."""
    rng = np.random.default_rng(seed)
    loadings = rng.normal(size=(rank, d)) * rng.uniform(0.3, 1.5, size=d)
    Z = rng.normal(size=(n, rank)) @ loadings + rng.normal(size=(n, d))
    X = np.empty((n, d), dtype=np.int64)
    for j in range(d):
        # skewed level frequencies, as survey answers have
        p = rng.dirichlet(np.full(n_levels, 1.5))
        cuts = np.quantile(Z[:, j], np.cumsum(p)[:-1])
        X[:, j] = np.digitize(Z[:, j], cuts)
    return X


def two_way_errors(X, rows, n_levels):
    errors = []
    for i, j in itertools.combinations(range(X.shape[1]), 2):
        real = np.bincount(X[:, i] * n_levels + X[:, j], minlength=n_levels**2) / len(X)
        synthetic = np.bincount(rows[:, i] * n_levels + rows[:, j],
                                minlength=n_levels**2) / len(rows)
        errors.append(np.abs(real - synthetic))
    errors = np.concatenate(errors)
    return float(errors.max()), float(errors.mean())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--label", default="current")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    n_levels = 10
    X = wide_table(args.rows, n_levels=n_levels)
    start, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded: a benchmark
        synth = AdaptiveMarginalSynthesizer(levels=n_levels, epsilon=1.0, delta=1e-9,
                                            random_state=args.seed).fit(X)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    rows = np.asarray(synth.sample(len(X), random_state=args.seed), dtype=np.int64)
    max_error, mean_error = two_way_errors(X, rows, n_levels)
    entry = {"label": args.label, "rows": args.rows, "seed": args.seed,
             "method_": synth.method_, "fit_cpu_s": round(cpu, 1), "fit_wall_s": round(wall, 1),
             "measured_tables": len(synth.measured_tables_),
             "model_floats": int(synth.model_.size),
             "max_2way": round(max_error, 4), "mean_2way": round(mean_error, 5)}
    print(json.dumps(entry), flush=True)
    old = json.loads(RESULTS.read_text())["runs"] if RESULTS.exists() else []
    runs = [r for r in old if (r["label"], r["rows"], r["seed"])
            != (args.label, args.rows, args.seed)] + [entry]
    RESULTS.write_text(json.dumps({
        "description": __doc__.split("\n\n")[0] + " " + __doc__.split("\n\n")[1],
        "table": {"columns": 40, "levels": n_levels, "epsilon": 1.0, "delta": 1e-9,
                  "workload": "all 2-way"},
        "python": platform.python_version(), "machine": platform.machine(),
        "runs": runs}, indent=1) + "\n")


if __name__ == "__main__":
    main()

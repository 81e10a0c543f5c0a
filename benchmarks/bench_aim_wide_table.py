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
import json
import platform
from pathlib import Path

import numpy as np
from bench_aim_dependent_table import run  # the same fit, timing and 2-way errors

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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--label", default="current")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    n_levels = 10
    X = wide_table(args.rows, n_levels=n_levels)
    entry = {"label": args.label, "rows": args.rows, "seed": args.seed,
             **run(X, n_levels, 1.0, args.seed, delta=1e-9)}
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

"""AdaptiveMarginalSynthesizer on a strongly dependent 40-column table: time vs model-size cap.

The table a new user tried (issue 11's review): a rank-5 Gaussian in 40
dimensions, each column cut at its quintiles (5 levels; ``--levels``),
n = 10 000, epsilon 1, delta 1e-9, all 2-way marginals. ``method='auto'``
runs AIM there, and every AIM round scores every candidate table on the
junction tree, so the fit's time grows with ``max_model_size``. Rows: the
default cap (1e6 floats), AIM's paper's 80 MB (1e7; several minutes, left
out with ``--quick``) and ``method='mst'``. Each row: wall and CPU seconds
of ``fit``, the measured tables, the model's floats, and the max / mean
absolute error of all 2-way marginals of ``n`` emitted rows. One seed per
row (a timing benchmark, not an error comparison).

Run from the repository root::

    PYTHONPATH=$PWD python benchmarks/bench_aim_dependent_table.py [--quick] [--levels 5]
        [--epsilon 1] [--seed 0]

Writes ``benchmarks/results/aim_dependent_table.json``; a setting other than
the default is named in the file (``aim_dependent_table_levels10_eps5_quick.json``,
``..._seed1.json``: ``--seed`` seeds the releases and their rows, the
table stays the same).
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

RESULTS = Path(__file__).resolve().parent / "results" / "aim_dependent_table.json"


def dependent_table(n_levels, n=10_000, d=40, rank=5, seed=0):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, rank)) @ rng.normal(size=(rank, d))
    cuts = np.quantile(Z, np.linspace(0, 1, n_levels + 1)[1:-1])
    return np.digitize(Z, cuts)


def two_way_errors(X, rows, n_levels):
    errors = []
    for i, j in itertools.combinations(range(X.shape[1]), 2):
        real = np.bincount(X[:, i] * n_levels + X[:, j], minlength=n_levels**2) / len(X)
        synthetic = np.bincount(rows[:, i] * n_levels + rows[:, j],
                                minlength=n_levels**2) / len(rows)
        errors.append(np.abs(real - synthetic))
    errors = np.concatenate(errors)
    return float(errors.max()), float(errors.mean())


def run(X, n_levels, epsilon, seed, **params):
    start, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded: a benchmark
        synth = AdaptiveMarginalSynthesizer(levels=n_levels, epsilon=epsilon, random_state=seed,
                                            **params).fit(X)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    rows = np.asarray(synth.sample(len(X), random_state=seed), dtype=np.int64)
    max_error, mean_error = two_way_errors(X, rows, n_levels)
    return {**{k: str(v) for k, v in params.items()}, "method_": synth.method_,
            "fit_wall_s": round(wall, 1), "fit_cpu_s": round(cpu, 1),
            "measured_tables": len(synth.measured_tables_), "model_floats": int(synth.model_.size),
            "max_2way": round(max_error, 4), "mean_2way": round(mean_error, 5)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="leave out the 1e7 cap")
    parser.add_argument("--levels", type=int, default=5)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    X = dependent_table(args.levels)
    configurations = [{}, {"method": "mst"}]
    if not args.quick:
        configurations.insert(1, {"max_model_size": 10_000_000})
    rows = []
    for params in configurations:
        rows.append(run(X, args.levels, args.epsilon, args.seed, **params))
        print(json.dumps(rows[-1]), flush=True)
    name = (RESULTS.stem + (f"_levels{args.levels}" if args.levels != 5 else "")
            + (f"_eps{args.epsilon:g}" if args.epsilon != 1.0 else "")
            + (f"_seed{args.seed}" if args.seed != 0 else "") + ("_quick" if args.quick else ""))
    out = RESULTS.with_name(name + ".json")
    out.write_text(json.dumps({
        "description": __doc__.split("\n\n")[0] + " " + __doc__.split("\n\n")[1],
        "table": {"n": len(X), "columns": X.shape[1], "levels": args.levels,
                  "epsilon": args.epsilon, "delta": 1e-9, "seed": args.seed},
        "python": platform.python_version(), "machine": platform.machine(),
        "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()

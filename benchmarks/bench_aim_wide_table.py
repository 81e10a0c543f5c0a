"""AdaptiveMarginalSynthesizer at its defaults on a wide survey-like table (issue 37).

A public, generated stand-in for a 40-column survey table of 10 levels per
column: a rank-4 Gaussian latent factor model plus independent noise in 40
dimensions, each column cut at its own (skewed, column-dependent) quantiles
into 10 levels, n = 10^5 rows. All 2-way marginals, epsilon 1, delta 1e-9,
``method='auto'`` (AIM on this table). One fit per run (it is long): CPU and
wall seconds of ``fit``, tables measured, the model's floats, and the max /
mean absolute error of all 2-way marginals of ``n`` emitted rows.

Each run also records ``phases_cpu_s``: the CPU seconds of the fit's
phases (estimation, candidate scores, size-cap checks, exact sampler),
timed by wrapping the functions that run them, and the CPU seconds and
iterations of the final estimation (the last refit).

``--peer`` runs the reference MST beside it on the same rows: smartnoise-synth's
MST with the reference's record-count estimation (``_snsynth_peer.py``, in
the separate venv ``/work/peervenv``), epsilon 1, delta 1e-9, its fit wall
seconds and its CPU seconds (fit and sample: the peer reports them together),
the same 2-way errors of ``n`` emitted rows (label ``reference-mst``).

Run from the repository root::

    PYTHONPATH=$PWD python benchmarks/bench_aim_wide_table.py [--rows 100000] [--label after]
        [--peer]

Writes ``benchmarks/results/aim_wide_table.json`` after each run (one entry per
``--label``, earlier entries of other labels kept, so a before/after pair sits side
by side), with the machine's 1-minute load average when the run ended.
"""

import argparse
import contextlib
import json
import os
import platform
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_aim_dependent_table import run, two_way_errors  # the same fit, timing, errors

from sksmooth.release.graphical import _aim, _budget, _model

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "aim_wide_table.json"
PEER_PY = Path("/work/peervenv/bin/python")


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


@contextlib.contextmanager
def phase_timer():
    """CPU seconds spent in each phase of AIM's rounds (a dict filled on exit)."""
    phases = {"estimation": 0.0, "candidate_scores": 0.0, "size_checks": 0.0, "sampler": 0.0}
    targets = [(_budget._Fitter, "refit", "estimation"), (_aim, "_errors", "candidate_scores"),
               (_model.FactoredModel, "fitting", "size_checks"), (_aim, "select_exact", "sampler")]
    originals = [getattr(owner, name) for owner, name, _ in targets]

    def timed(function, phase):
        def wrapper(*args, **kwargs):
            start = time.process_time()
            try:
                out = function(*args, **kwargs)
            finally:
                phases[phase] += time.process_time() - start
            if phase == "estimation":  # the last refit is the final estimation
                phases["final_estimation"] = time.process_time() - start
                phases["final_estimation_iterations"] = out.n_iter
            return out
        return wrapper

    for (owner, name, phase), function in zip(targets, originals):
        setattr(owner, name, timed(function, phase))
    try:
        yield phases
    finally:
        for (owner, name, _), function in zip(targets, originals):
            setattr(owner, name, function)
        for phase in phases:
            phases[phase] = round(phases[phase], 1)


def reference_mst(X, n_levels, seed):
    """Fit wall / CPU seconds and 2-way errors of the reference MST (module docstring)."""
    if not PEER_PY.exists():
        raise SystemExit(f"--peer needs smartnoise-synth in {PEER_PY.parent.parent} "
                         "(pip install smartnoise-synth).")
    with tempfile.TemporaryDirectory() as tmp:
        data, out = Path(tmp) / "data.npy", Path(tmp) / "rows.npy"
        np.save(data, X)
        done = subprocess.run([str(PEER_PY), str(HERE / "_snsynth_peer.py"), "mst", str(data),
                               str(out), "1.0", "1e-9", "2", str(seed)],
                              capture_output=True, text=True, check=True, cwd=HERE)
        timing = json.loads(done.stdout.strip().splitlines()[-1])
        max_error, mean_error = two_way_errors(X, np.load(out), n_levels)
    return {"method_": "mst (smartnoise-synth, reference record count)",
            "fit_wall_s": round(timing["fit_s"], 1),
            "fit_and_sample_cpu_s": round(timing["cpu_s"], 1),
            "peak_mb": round(timing["peak_mb"]),
            "max_2way": round(max_error, 4), "mean_2way": round(mean_error, 5)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--label", default="current")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--peer", action="store_true", help="run the reference MST too")
    args = parser.parse_args()
    n_levels = 10
    X = wide_table(args.rows, n_levels=n_levels)
    with phase_timer() as phases:
        entry = run(X, n_levels, 1.0, args.seed, delta=1e-9)
    save({"label": args.label, "rows": args.rows, "seed": args.seed, **entry,
          "phases_cpu_s": phases, "load_1min": load()})
    if args.peer:  # saved after ours: a long peer run does not hold our numbers back
        save({"label": "reference-mst", "rows": args.rows, "seed": args.seed,
              **reference_mst(X, n_levels, args.seed), "load_1min": load()})


def load():
    """The machine's 1-minute load average when a run ends (wall seconds depend on it)."""
    return round(os.getloadavg()[0], 1)


def save(entry):
    """Print ``entry`` and write it to the results, replacing a run of the same label."""
    print(json.dumps(entry), flush=True)
    old = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    key = (entry["label"], entry["rows"], entry["seed"])
    runs = [r for r in old.get("runs", []) if (r["label"], r["rows"], r["seed"]) != key]
    RESULTS.write_text(json.dumps({
        "description": __doc__.split("\n\n")[0] + " " + __doc__.split("\n\n")[1],
        "table": {"columns": 40, "levels": 10, "epsilon": 1.0, "delta": 1e-9,
                  "workload": "all 2-way"},
        "python": platform.python_version(), "machine": platform.machine(),
        "runs": runs + [entry],
        **{k: v for k, v in old.items() if k == "load_note"}}, indent=1) + "\n")


if __name__ == "__main__":
    main()

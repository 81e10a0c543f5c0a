"""Benchmark: factored AIM-style synthetic tables vs smartnoise-synth AIM and MST.

Run::

    python benchmarks/bench_synthetic_tables.py prepare
    python benchmarks/bench_synthetic_tables.py peers  [--budget-s 4800]
    python benchmarks/bench_synthetic_tables.py ours   [--seeds 5]
    python benchmarks/bench_synthetic_tables.py report

Workloads (all columns categorical, levels fixed from public information):

``digits8``   8 pixels of sklearn's digits, 4 levels on the public range [0, 16],
              n = 1797, all 2-way marginals.
``digits15``  15 pixels, same discretisation (universe 4^15 = 1.07e9), 2- and 3-way.
``breast30``  the 30 features of sklearn's breast-cancer data, 4 equal-width bins
              on the min/max published in the dataset's own description
              (``DESCR``, public), n = 569, 2- and 3-way.
``mixed40``   40 generated categorical columns (2-10 levels) from a random
              Bayesian network drawn with a fixed public seed, n = 10 000, 2-way.

Peers (smartnoise-synth, in the separate venv ``/work/peervenv``, see
``_snsynth_peer.py``): ``Synthesizer.create("aim"|"mst", epsilon, delta)``
with mbi's sampler replaced by an i.i.d. junction-tree sampler. AIM gets
``degree`` = the workload's largest order (its own workload: all tables of
that order, downward closure weighted by overlap), MST its defaults.

Privacy matching: same (epsilon, delta = 1e-9); both sides convert to zCDP
(smartnoise's ``cdp_rho``, sksmooth's ``zcdp_from_dp_budget``, the same
Canonne-Kamath-Steinke conversion) and use the **add/remove** neighbouring
relation (a table's count vector has L1 = L2 sensitivity 1; the record count
is private and estimated from the noisy tables).

Metrics: max and mean absolute error over all cells of all 2-way (and 3-way)
marginal tables of n emitted rows, as fractions; wall time of fit+sample; CPU
time; peak RSS of the process (each run in a fresh subprocess).
Results: ``benchmarks/results/synthetic_tables.json``.
"""

import argparse
import itertools
import json
import os
import re
import resource
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = "/tmp/synthetic_tables_bench"
OUT = os.path.join(HERE, "results", "synthetic_tables.json")
PEER_PY = "/work/peervenv/bin/python"
DELTA = 1e-9
EPSILONS = (0.5, 1.0, 2.0)
DIGIT_PIXELS = [20, 28, 36, 42, 44, 52, 53, 26, 19, 27, 35, 43, 29, 37, 45]
WORKLOADS = {"digits8": (2,), "digits15": (2, 3), "breast30": (2, 3), "mixed40": (2,)}


# ---------------------------------------------------------------- data
def _digits(n_cols):
    from sklearn.datasets import load_digits

    X = load_digits().data[:, DIGIT_PIXELS[:n_cols]]
    return np.minimum((X / 16.0 * 4).astype(np.int64), 3), [4] * n_cols


def _breast():
    from sklearn.datasets import load_breast_cancer

    bunch = load_breast_cancer()
    rows = re.findall(r"^[a-z ]+\([a-z ]+\):\s+([0-9.]+)\s+([0-9.]+)\s*$", bunch.DESCR, re.M)
    bounds = np.array(rows[:30], dtype=float)  # published min / max, feature order
    lo, hi = bounds[:, 0], bounds[:, 1]
    codes = np.floor((bunch.data - lo) / (hi - lo) * 4).astype(np.int64)
    return np.clip(codes, 0, 3), [4] * 30


def _mixed(n_cols=40, n_rows=10_000, seed=2026):
    """Random Bayesian network: each column depends on up to 2 earlier ones."""
    rng = np.random.default_rng(seed)
    levels = [int(rng.choice([2, 3, 4, 5, 6, 8, 10])) for _ in range(n_cols)]
    X = np.zeros((n_rows, n_cols), dtype=np.int64)
    for j in range(n_cols):
        parents = sorted(rng.choice(j, size=min(j, 2), replace=False).tolist()) if j else []
        n_cfg = int(np.prod([levels[p] for p in parents])) if parents else 1
        cpt = rng.dirichlet(np.full(levels[j], 0.4), size=n_cfg)
        cfg = np.ravel_multi_index(tuple(X[:, parents].T), [levels[p] for p in parents]) if parents else np.zeros(n_rows, int)
        u = rng.random(n_rows)[:, None]
        X[:, j] = np.minimum((u >= np.cumsum(cpt[cfg], axis=1)).sum(axis=1), levels[j] - 1)
    return X, levels


def load(name):
    return {"digits8": lambda: _digits(8), "digits15": lambda: _digits(15),
            "breast30": _breast, "mixed40": _mixed}[name]()


def prepare():
    os.makedirs(WORK, exist_ok=True)
    for name in WORKLOADS:
        X, levels = load(name)
        np.save(os.path.join(WORK, f"{name}.npy"), X)
        print(name, X.shape, "levels", levels[:8], "...")


# ---------------------------------------------------------------- metrics
def marginal_errors(X, rows, levels, order):
    """Max and mean abs error over all cells of all ``order``-way tables."""
    errs = []
    for attrs in itertools.combinations(range(X.shape[1]), order):
        shape = [levels[a] for a in attrs]
        size = int(np.prod(shape))
        t = np.bincount(np.ravel_multi_index(tuple(X[:, attrs].T), shape), minlength=size) / len(X)
        s = np.bincount(np.ravel_multi_index(tuple(rows[:, attrs].T), shape), minlength=size) / len(rows)
        errs.append(np.abs(t - s))
    e = np.concatenate(errs)
    return float(e.max()), float(e.mean())


def _record(name, method, eps, seed, rows, timing):
    X, levels = load(name)
    rows = np.clip(np.asarray(rows, dtype=np.int64), 0, np.array(levels) - 1)
    rec = {"workload": name, "method": method, "epsilon": eps, "seed": seed, **timing}
    for order in WORKLOADS[name]:
        mx, mean = marginal_errors(X, rows, levels, order)
        rec[f"max_{order}way"], rec[f"mean_{order}way"] = mx, mean
    return rec


def _append(path, rec):
    with open(path, "a") as fh:
        fh.write(json.dumps(rec) + "\n")
    print(json.dumps(rec), flush=True)


# ---------------------------------------------------------------- peers
def _peer_schedule():
    """Seed 0 everywhere first (MST, then AIM on the smaller tables), then more seeds."""
    plan = []
    for name in WORKLOADS:
        for eps in EPSILONS:
            plan.append((name, "mst", eps, 0))
    for name in ("digits8", "digits15"):
        for eps in EPSILONS:
            plan.append((name, "aim", eps, 0))
    for name in ("breast30", "mixed40"):
        plan.append((name, "aim", 1.0, 0))
    for seed in range(1, 5):
        for method in ("mst", "aim"):
            for eps in EPSILONS:
                plan.append(("digits8", method, eps, seed))
    for seed in range(1, 3):
        for name in ("digits15", "breast30", "mixed40"):
            for eps in EPSILONS:
                plan.append((name, "mst", eps, seed))
    return plan


def peers(budget_s, timeout_s):
    os.makedirs(WORK, exist_ok=True)
    log = os.path.join(WORK, "peers.jsonl")
    done = set()
    if os.path.exists(log):
        for line in open(log):
            r = json.loads(line)
            done.add((r["workload"], r["method"], r["epsilon"], r["seed"]))
    start = time.time()
    for name, method, eps, seed in _peer_schedule():
        if (name, method, eps, seed) in done:
            continue
        if time.time() - start > budget_s:
            print("peer budget exhausted", flush=True)
            break
        out = os.path.join(WORK, f"{name}_{method}_{eps}_{seed}.npy")
        degree = max(WORKLOADS[name])
        cmd = [PEER_PY, os.path.join(HERE, "_snsynth_peer.py"), method,
               os.path.join(WORK, f"{name}.npy"), out, str(eps), str(DELTA), str(degree), str(seed)]
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _append(log, {"workload": name, "method": method, "epsilon": eps, "seed": seed,
                          "status": f"timeout > {timeout_s} s"})
            continue
        if res.returncode != 0:
            _append(log, {"workload": name, "method": method, "epsilon": eps, "seed": seed,
                          "status": "error: " + res.stderr.strip().splitlines()[-1][:300]})
            continue
        timing = json.loads(res.stdout.strip().splitlines()[-1])
        _append(log, {**_record(name, method, eps, seed, np.load(out), timing), "status": "ok"})


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["prepare", "peers", "ours", "one", "report"])
    parser.add_argument("--budget-s", type=float, default=4800.0)
    parser.add_argument("--timeout-s", type=float, default=900.0)
    parser.add_argument("--seeds", type=int, default=5)
    args, rest = parser.parse_known_args()
    if args.command == "prepare":
        prepare()
    elif args.command == "peers":
        peers(args.budget_s, args.timeout_s)

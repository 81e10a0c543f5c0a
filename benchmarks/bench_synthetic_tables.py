"""Benchmark: AdaptiveMarginalSynthesizer vs smartnoise-synth AIM and MST.

Run (each step resumes where it stopped; peer runs are cached)::

    python benchmarks/bench_synthetic_tables.py prepare
    python benchmarks/bench_synthetic_tables.py peers  [--budget-s 4800] [--seeds 5]
                     [--methods mst,...] [--names breast30y,...] [--epsilons 2.0,...]
    python benchmarks/bench_synthetic_tables.py ours   [--seeds 5] [--label ours|ours-aim|ours-mst]
    python benchmarks/bench_synthetic_tables.py pure    [--seeds 5]
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
``digits15y``, ``breast30y``  the 15/30-column tables plus the label column,
              restricted to a fixed 70% training split (public seed); the other
              30% are the real held-out rows of the **downstream check**: a
              logistic regression (one-hot codes) trained on synthetic rows vs
              trained on the real training rows, accuracy on the held-out rows.

Ours: ``AdaptiveMarginalSynthesizer(method='auto')`` (label ``ours``: AIM or MST
chosen by the signal-to-noise rule of the estimator's docstring), and optionally
the two strategies forced (``ours-aim``, ``ours-mst``). ``ours`` draws its
rows as ``sample`` does by default (systematic sampling within each
separator configuration); ``ours-iid`` is the same release with
``sample(scheme='iid')``. On the labelled
workloads the label column is passed as ``y`` (``fit(X, y)`` with public
``classes``, the supervised use; MST then never merges label levels) and the
synthetic ``(X, y)`` are stacked back into one table; the peers get the label
as one more column (they have no supervised mode).

Peers (smartnoise-synth, in the separate venv ``/work/peervenv``, see
``_snsynth_peer.py``): ``Synthesizer.create("aim"|"mst", epsilon, delta)``
with mbi's sampler replaced by an i.i.d. junction-tree sampler. AIM gets
``degree`` = the workload's largest order (its own workload: all tables of
that order, downward closure weighted by overlap), MST its defaults.
Peer results are cached in the results JSON keyed by (workload, method,
epsilon, seed) and never recomputed; AIM runs past the time limit are
recorded as timeouts.

Privacy matching: same (epsilon, delta = 1e-9); both sides convert to zCDP
(smartnoise's ``cdp_rho``, sksmooth's ``zcdp_from_dp_budget``, the same
Canonne-Kamath-Steinke conversion) and use the **add/remove** neighbouring
relation (a table's count vector has L1 = L2 sensitivity 1; the record count
is private: the peers estimate it from the noisy tables, ours also pays 1% of
rho for a noisy count behind ``method='auto'``). smartnoise's preprocessor
gets ``preprocessor_eps=0`` (the columns are already categorical codes).
smartnoise's MST as shipped fits its model with ``known_total=len(data)``,
the exact record count, private under add/remove (the reference private-pgm
MST estimates it from the noisy tables): the harness restores the
reference's estimation (``_snsynth_peer.py``). The shipped variant's
earlier numbers are kept as method ``mst_known_total`` (not a target).
Both sides emit ``len(data)`` rows (the benchmark's request; errors are
fractions of the emitted rows).

The cost of ``delta = 0`` (``pure``): ``AdaptiveMarginalSynthesizer`` is
accounted in zCDP and needs ``delta > 0``; ``SmoothMWEM`` runs either way
(Laplace noise and basic composition at ``delta = 0``, Gaussian noise in zCDP
otherwise), so it is run on digits8 and digits15 at ``delta = 0`` and
``delta = 1e-9``, same epsilon, same neighbours (substitution), same seeds;
the ratio of the errors is the price of pure DP there.

Sampling: the issue's peers draw i.i.d. rows, so three comparisons are
reported: ``targets`` (ours as shipped vs reference AIM / MST, the issue's
targets), ``targets_both_iid`` (``ours-iid`` vs the same peers: the
mechanisms alone) and ``targets_both_systematic`` (ours vs the reference MST
with its rows drawn by the same systematic sampler, method
``mst_systematic``, on the tables where it ran).

Metrics: max and mean absolute error over all cells of all 2-way (and 3-way)
marginal tables of n emitted rows, as fractions; wall time of fit+sample; CPU
time; peak RSS of the process (each run in a fresh subprocess).
Results: ``benchmarks/results/synthetic_tables.json``.
"""

import argparse
import itertools
import json
import math
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
WORKLOADS = {"digits8": (2,), "digits15": (2, 3), "breast30": (2, 3), "mixed40": (2,),
             # downstream check: the same tables plus the label column, training part only
             "digits15y": (2, 3), "breast30y": (2, 3)}
DOWNSTREAM = {"digits15y": "digits15", "breast30y": "breast30"}
TEST_FRACTION = 0.3
SPLIT_SEED = 7  # public, fixed: which rows are held out for the downstream test
MIN_PEER_SEEDS = 5  # a peer cell with fewer successful seeds is not used as a target
# AdaptiveMarginalSynthesizer auto/aim/mst, auto with i.i.d. rows; SmoothMWEM
OURS = ("ours", "ours-aim", "ours-mst", "ours-iid", "mwem")


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


def _labels(name):
    from sklearn.datasets import load_breast_cancer, load_digits

    return (load_digits() if name.startswith("digits") else load_breast_cancer()).target


def _split(n):
    """Public train / held-out split of the rows (fixed seed)."""
    perm = np.random.default_rng(SPLIT_SEED).permutation(n)
    n_test = int(round(TEST_FRACTION * n))
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])


def load_labelled(name):
    """``(train, test, levels)``: the base table plus its label as the last column."""
    base = DOWNSTREAM[name]
    X, levels = load(base)
    y = _labels(base)
    full = np.column_stack([X, y])
    train, test = _split(len(full))
    return full[train], full[test], levels + [int(y.max()) + 1]


def load(name):
    if name in DOWNSTREAM:
        train, _, levels = load_labelled(name)
        return train, levels
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
    if name in DOWNSTREAM:  # kept with the run: the rows' files do not outlive the machine
        _, test, _ = load_labelled(name)
        rec["accuracy"] = _classifier_accuracy(rows, test, levels)
    return rec


def _append(path, rec):
    with open(path, "a") as fh:
        fh.write(json.dumps(rec) + "\n")
    print(json.dumps(rec), flush=True)


# ---------------------------------------------------------------- peers
def _peer_schedule(n_seeds=5):
    """Priority order for a limited time budget, seeds ``0 .. n_seeds - 1``.

    MST (the reference's record-count estimation, ``_snsynth_peer.py``)
    first on the tables where ours missed it, then the cells where ours was
    above it within noise, then the rest (40 columns last: minutes and
    ~3 GB each); reference AIM on digits8, then beyond it (it may not
    finish in the limit).
    """
    missed = [("breast30y", eps) for eps in EPSILONS] + [("digits15y", 0.5)]
    within = [("breast30", 1.0), ("breast30", 2.0)] + [("digits8", eps) for eps in EPSILONS] + [
        ("digits15", 0.5), ("digits15y", 2.0), ("mixed40", 0.5)]
    rest = [("digits15", 1.0), ("digits15", 2.0), ("digits15y", 1.0), ("breast30", 0.5),
            ("mixed40", 1.0), ("mixed40", 2.0)]
    plan = [(name, "mst", eps, seed) for group in (missed, within, rest)
            for name, eps in group for seed in range(n_seeds)]
    plan += [("digits8", "aim", eps, seed) for seed in range(n_seeds) for eps in EPSILONS]
    plan += [("digits15", "aim", 1.0, seed) for seed in range(5)]
    plan += [("breast30", "aim", 1.0, 0), ("mixed40", "aim", 1.0, 0)]
    # the sampler-matched MST: the reference's model, rows drawn systematically
    plan += [(name, "mst_systematic", eps, seed) for seed in range(n_seeds) for name in
             ("digits8", "digits15", "digits15y", "breast30", "breast30y", "mixed40")
             for eps in EPSILONS]
    return plan


def _key(r):
    return (r["workload"], r["method"], float(r["epsilon"]), int(r["seed"]))


def cached_runs(peers_only=False):
    """Every recorded run, keyed by (workload, method, epsilon, seed).

    The tracked results JSON is the cache of the peers' runs (expensive: AIM
    takes minutes per release); the session logs in ``WORK`` add newer runs.
    A successful run replaces a failed one with the same key, a later failure
    an earlier one. Our own runs
    come from this session's log only (they measure the current code).
    """
    runs = {}
    sources = []
    if os.path.exists(OUT):
        sources.append([r for r in json.load(open(OUT)).get("runs", [])
                        if r["method"] not in OURS])
    for fname in ("peers.jsonl",) if peers_only else ("peers.jsonl", "ours.jsonl"):
        path = os.path.join(WORK, fname)
        if os.path.exists(path):
            sources.append([json.loads(line) for line in open(path)])
    for records in sources:
        for r in records:
            if r.get("status") == "ok" or runs.get(_key(r), {}).get("status") != "ok":
                runs[_key(r)] = r
    return runs


def peers(budget_s, timeout_s, names=None, methods=None, n_seeds=5, epsilons=None):
    """Run the scheduled peer releases not yet cached (optionally only some
    workloads / methods / epsilons); a failed run is retried, a timeout only
    at a longer limit."""
    os.makedirs(WORK, exist_ok=True)
    log = os.path.join(WORK, "peers.jsonl")
    def settled(r):  # a success, or a timeout at a limit at least this run's
        limit = re.match(r"timeout > ([0-9.]+) s", r.get("status", ""))
        return r.get("status") == "ok" or (limit is not None and float(limit[1]) >= timeout_s)

    done = {k for k, r in cached_runs(peers_only=True).items() if settled(r)}
    start = time.time()
    for name, method, eps, seed in _peer_schedule(n_seeds):
        if (name, method, eps, seed) in done or (names and name not in names) \
                or (methods and method not in methods) or (epsilons and eps not in epsilons):
            continue
        if time.time() - start > budget_s:
            print("peer budget exhausted", flush=True)
            break
        if not os.path.exists(os.path.join(WORK, f"{name}.npy")):
            prepare()
        out = os.path.join(WORK, f"{name}_{method}_{eps}_{seed}.npy")
        degree = max(WORKLOADS[name])
        cmd = ["nice", "-n", "15", PEER_PY, os.path.join(HERE, "_snsynth_peer.py"), method,
               os.path.join(WORK, f"{name}.npy"), out, str(eps), str(DELTA), str(degree), str(seed)]
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:  # the killed child is reaped: its CPU time counts
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
            _append(log, {"workload": name, "method": method, "epsilon": eps, "seed": seed,
                          "status": f"timeout > {timeout_s} s", "cpu_s_at_timeout": cpu})
            continue
        if res.returncode != 0:
            _append(log, {"workload": name, "method": method, "epsilon": eps, "seed": seed,
                          "status": "error: " + res.stderr.strip().splitlines()[-1][:300]})
            continue
        timing = json.loads(res.stdout.strip().splitlines()[-1])
        _append(log, {**_record(name, method, eps, seed, np.load(out), timing), "status": "ok"})


# ---------------------------------------------------------------- ours
def one(name, eps, seed, label):
    """One release by AdaptiveMarginalSynthesizer in this process; prints a JSON line."""
    import warnings

    from sksmooth.release import MWEM, Workload
    from sksmooth.release._aim import AdaptiveMarginalSynthesizer

    X = np.load(os.path.join(WORK, f"{name}.npy"))
    _, levels = load(name)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu_start = usage.ru_utime + usage.ru_stime
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded runs warn: expected in a benchmark
        if label == "mwem":  # substitution neighbours (SmoothMWEM's relation), n public
            synth = MWEM(epsilon=eps, delta=DELTA, levels=int,
                         bounds=(np.zeros(X.shape[1]), np.array(levels) - 1.0),
                         random_state=seed, queries=Workload(marginal_width=min(WORKLOADS[name])))
        else:
            method = {"ours": "auto", "ours-aim": "aim", "ours-mst": "mst",
                      "ours-iid": "auto"}[label]
            supervised = name in DOWNSTREAM  # the label column is passed as y
            synth = AdaptiveMarginalSynthesizer(
                epsilon=eps, delta=DELTA, levels=list(levels[:-1] if supervised else levels),
                classes=list(range(levels[-1])) if supervised else None,
                workload=WORKLOADS[name], method=method, random_state=seed)
        if label == "mwem":
            synth.fit(X.astype(float))
        elif name in DOWNSTREAM:
            synth.fit(X[:, :-1], X[:, -1])
        else:
            synth.fit(X)
    fit_time = time.perf_counter() - start
    rows = synth.sample(len(X), random_state=seed,
                        scheme="iid" if label == "ours-iid" else "systematic")
    rows = np.rint(np.column_stack(rows) if isinstance(rows, tuple) else rows).astype(np.int64)
    total = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    np.save(os.path.join(WORK, f"{name}_{label}_{eps}_{seed}.npy"), rows)
    print(json.dumps({"fit_s": fit_time, "total_s": total,
                      "cpu_s": usage.ru_utime + usage.ru_stime - cpu_start,
                      "peak_mb": usage.ru_maxrss / 1024.0, "model_size": synth.model_.size,
                      "n_measured": len(getattr(synth, "measured_tables_", None)
                                        or synth.selected_),
                      "chosen": getattr(synth, "method_", type(synth.model_).__name__)}))


def ours(n_seeds, timeout_s, names, label, epsilons=EPSILONS):
    log = os.path.join(WORK, "ours.jsonl")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(HERE))
    done = set()
    if os.path.exists(log):
        done = {_key(r) for r in map(json.loads, open(log))}
    for seed in range(n_seeds):
        for name in names:
            for eps in epsilons:
                if (name, label, eps, seed) in done:
                    continue
                cmd = ["nice", "-n", "10", sys.executable, os.path.abspath(__file__), "one",
                       "--name", name, "--epsilon", str(eps), "--seed", str(seed),
                       "--label", label]
                fail = {"workload": name, "method": label, "epsilon": eps, "seed": seed}
                try:
                    res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s,
                                         env=env)
                except subprocess.TimeoutExpired:
                    _append(log, {**fail, "status": f"timeout > {timeout_s} s"})
                    continue
                if res.returncode != 0:
                    _append(log, {**fail, "status": "error: "
                                  + res.stderr.strip().splitlines()[-1][:300]})
                    continue
                timing = json.loads(res.stdout.strip().splitlines()[-1])
                rows = np.load(os.path.join(WORK, f"{name}_{label}_{eps}_{seed}.npy"))
                _append(log, {**_record(name, label, eps, seed, rows, timing), "status": "ok"})


# ---------------------------------------------------------------- downstream
def _classifier_accuracy(train, test, levels):
    """Logistic regression on one-hot codes: train rows -> accuracy on test rows."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    X_tr, y_tr = train[:, :-1], train[:, -1]
    X_te, y_te = test[:, :-1], test[:, -1]
    if len(np.unique(y_tr)) < 2:  # a synthetic table with one label: constant prediction
        return float(np.mean(y_te == y_tr[0]))
    cats = [np.arange(k) for k in levels[:-1]]
    clf = make_pipeline(OneHotEncoder(categories=cats, handle_unknown="ignore"),
                        LogisticRegression(max_iter=2000))
    return float(clf.fit(X_tr, y_tr).score(X_te, y_te))


def downstream(records):
    """Train on synthetic rows, test on the real held-out rows (vs training on real rows).

    A run's accuracy is the one recorded with it, else computed from its rows'
    file in ``WORK`` (then saved into the run's record). Runs with neither
    (recorded before accuracies were, on another machine) are covered by the
    previous report's entry for their cell when it covers exactly their seeds
    (an entry without a seed list: as many seeds): the cell then pools that
    entry's mean and sd with the other runs and keeps it under
    ``"previous"`` (with its seeds), so a later report pools it again."""
    previous = {}
    if os.path.exists(OUT):
        previous = {(r["workload"], r["method"], r.get("epsilon")): r
                    for r in json.load(open(OUT)).get("downstream", {}).get("results", [])}
    by_cell = {}
    for r in records:
        if r["workload"] in DOWNSTREAM and r.get("status") == "ok":
            by_cell.setdefault((r["workload"], r["method"], float(r["epsilon"])), []).append(r)
    out = []
    for name in DOWNSTREAM:
        train, test, levels = load_labelled(name)
        out.append({"workload": name, "method": "real", "accuracy": _classifier_accuracy(
            train, test, levels), "majority": float(np.mean(test[:, -1] == np.bincount(
                train[:, -1]).argmax()))})
        for method in ("mst", "mst_known_total", "mst_systematic", "aim") + OURS:
            for eps in EPSILONS:
                known, unknown = {}, []
                for r in by_cell.get((name, method, eps), []):
                    path = os.path.join(WORK, f"{name}_{method}_{eps}_{r['seed']}.npy")
                    if "accuracy" not in r and os.path.exists(path):  # saved with the run
                        rows = np.clip(np.load(path).astype(np.int64), 0, np.array(levels) - 1)
                        r["accuracy"] = _classifier_accuracy(rows, test, levels)
                    if "accuracy" in r:
                        known[int(r["seed"])] = r["accuracy"]
                    else:
                        unknown.append(int(r["seed"]))
                entry = {"workload": name, "method": method, "epsilon": eps}
                base = previous.get((name, method, eps))
                base = base.get("previous", base) if base is not None else None
                covers = base is not None and unknown and (
                    base.get("seeds") == sorted(unknown) if "seeds" in base
                    else base["n_seeds"] == len(unknown))
                if covers:
                    base = {k: base[k] for k in ("n_seeds", "accuracy", "accuracy_sd")}
                    out.append({**entry, **_pooled(base, list(known.values())),
                                "seeds": sorted(unknown + list(known)),
                                "previous": {**base, "seeds": sorted(unknown)}})
                elif known:
                    out.append({**entry, "n_seeds": len(known),
                                "accuracy": float(np.mean(list(known.values()))),
                                "accuracy_sd": float(np.std(list(known.values()))),
                                "seeds": sorted(known)})
    return out


def _pooled(prev, accs):
    """``accs`` pooled with a previous entry's mean and population sd (exact)."""
    n1, n2 = prev["n_seeds"], len(accs)
    m1 = prev["accuracy"]
    second = n1 * (prev["accuracy_sd"] ** 2 + m1 ** 2) + float(np.sum(np.square(accs)))
    mean = (n1 * m1 + float(np.sum(accs))) / (n1 + n2)
    return {"n_seeds": n1 + n2, "accuracy": mean,
            "accuracy_sd": float(np.sqrt(max(second / (n1 + n2) - mean**2, 0.0)))}


# ---------------------------------------------------------------- delta = 0
PURE_OUT = os.path.join(HERE, "results", "synthetic_tables_pure_dp.json")


def pure(n_seeds):
    """SmoothMWEM at delta = 0 vs delta = 1e-9 (module docstring); in-process."""
    import warnings

    from sksmooth.release import MWEM, Workload

    runs = []
    for name in ("digits8", "digits15"):
        X, levels = load(name)
        for eps in EPSILONS:
            for delta in (0.0, DELTA):
                for seed in range(n_seeds):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # seeded runs warn
                        synth = MWEM(
                            epsilon=eps, delta=delta, levels=int,
                            bounds=(np.zeros(X.shape[1]), np.array(levels) - 1.0),
                            random_state=seed, queries=Workload(marginal_width=2)).fit(X.astype(float))
                        rows = np.rint(synth.sample(len(X), random_state=seed)).astype(np.int64)
                    mx, mean = marginal_errors(X, rows, levels, 2)
                    runs.append({"workload": name, "epsilon": eps, "delta": delta, "seed": seed,
                                 "max_2way": mx, "mean_2way": mean})
    summary = []
    for name in ("digits8", "digits15"):
        for eps in EPSILONS:
            cell = {"workload": name, "epsilon": eps}
            for delta in (0.0, DELTA):
                rs = [r for r in runs if (r["workload"], r["epsilon"], r["delta"]) == (name, eps, delta)]
                for k in ("max_2way", "mean_2way"):
                    cell[f"{k}_delta_{delta:g}"] = float(np.mean([r[k] for r in rs]))
            for k in ("max_2way", "mean_2way"):
                cell[f"{k}_ratio"] = cell[f"{k}_delta_0"] / cell[f"{k}_delta_{DELTA:g}"]
            summary.append(cell)
            print(f"| {name} | {eps:g} | {cell['max_2way_delta_0']:.3f} / {cell['mean_2way_delta_0']:.4f} "
                  f"| {cell[f'max_2way_delta_{DELTA:g}']:.3f} / {cell[f'mean_2way_delta_{DELTA:g}']:.4f} "
                  f"| {cell['max_2way_ratio']:.2f} / {cell['mean_2way_ratio']:.2f} |")
    with open(PURE_OUT, "w") as fh:
        json.dump({"description": "SmoothMWEM (substitution neighbours, n public), 2-way "
                   "marginals of n emitted rows, delta = 0 vs 1e-9 at the same epsilon; "
                   f"{n_seeds} seeds", "summary": summary, "runs": runs}, fh, indent=1)


# ---------------------------------------------------------------- report
def _summary(records):
    groups = {}
    for r in records:
        groups.setdefault((r["workload"], r["method"], r["epsilon"]), []).append(r)
    keys = ["max_2way", "mean_2way", "max_3way", "mean_3way", "total_s", "cpu_s", "peak_mb"]
    summary = []
    for (name, method, eps), rs in sorted(groups.items()):
        ok = [r for r in rs if r.get("status") == "ok"]
        row = {"workload": name, "method": method, "epsilon": eps, "n_seeds": len(ok),
               "failures": sorted({r["status"] for r in rs if r.get("status") != "ok"})}
        if any("chosen" in r for r in ok):
            row["chosen"] = sorted({r.get("chosen") for r in ok})
        for k in keys:
            vals = [r[k] for r in ok if k in r]
            if vals:
                row[k] = float(np.mean(vals))
                row[k + "_sd"] = float(np.std(vals))
                # standard error of the mean over seeds (sample std / sqrt(n))
                row[k + "_se"] = float(np.std(vals, ddof=1) / np.sqrt(len(vals))) \
                    if len(vals) > 1 else float("nan")
        summary.append(row)
    return summary


def verdict(ours, ours_se, best, best_se):
    """``met`` (ours <= best peer), ``within noise`` (ours above it by less than
    twice the standard error of the difference of the two seed means) or
    ``missed``. One seed on a side leaves its SE unknown: judged ``met`` or
    ``missed`` only."""
    if ours <= best:
        return "met"
    se = math.sqrt(ours_se**2 + best_se**2)
    return "within noise" if math.isfinite(se) and ours - best < 2.0 * se else "missed"


def _targets(summary, label="ours", peer_methods=("aim", "mst")):
    """``label`` vs the better of the peers' mean and max errors, per workload and epsilon.

    Default: ours as shipped vs the issue's peers (reference AIM and MST,
    i.i.d. rows). ``label='ours-iid'``: both sides draw i.i.d. rows (the
    mechanisms compared); ``peer_methods=('mst_systematic',)``: both sides
    draw rows systematically."""
    by = {(r["workload"], r["method"], r["epsilon"]): r for r in summary}
    out = []
    for (name, method, eps), r in sorted(by.items()):
        if method != label or "max_2way" not in r:
            continue
        methods = list(peer_methods)
        if "mst" in methods:
            # MST with the reference's estimated record count; where it has fewer
            # than MIN_PEER_SEEDS runs, smartnoise's shipped MST (exact count)
            if by.get((name, "mst", eps), {}).get("n_seeds", 0) < MIN_PEER_SEEDS:
                methods[methods.index("mst")] = "mst_known_total"
        peers = [by[(name, m, eps)] for m in methods if (name, m, eps) in by
                 and "max_2way" in by[(name, m, eps)]
                 and by[(name, m, eps)]["n_seeds"] >= MIN_PEER_SEEDS]
        if not peers:
            continue
        row = {"workload": name, "epsilon": eps, "peers": [p["method"] for p in peers],
               "chosen": r.get("chosen")}
        for k in ("max_2way", "mean_2way", "max_3way", "mean_3way"):
            if k in r and peers and all(k in p for p in peers):
                best = min(peers, key=lambda p: p[k])
                row[k] = {"ours": r[k], "ours_se": r[k + "_se"], "best_peer": best[k],
                          "best_peer_se": best[k + "_se"], "best_peer_method": best["method"],
                          "best_peer_seeds": best["n_seeds"],
                          "verdict": verdict(r[k], r[k + "_se"], best[k], best[k + "_se"])}
        aim = by.get((name, "aim", eps))
        if aim and "cpu_s" in aim and "cpu_s" in r:
            row["cpu_speedup_vs_aim"] = aim["cpu_s"] / r["cpu_s"]
        out.append(row)
    return out


def rst_targets(targets):
    """The targets as an reStructuredText table (docs/guide/query_release.rst)."""
    short = {"met": "met", "within noise": "within", "missed": "MISSED"}
    label = {"aim": "AIM", "mst": "MST", "mst_known_total": "MST*", "mst_systematic": "MST-sys"}
    lines = []
    for t in targets:
        cells = []
        for k in ("max_2way", "mean_2way", "max_3way", "mean_3way"):
            c = t.get(k)
            cells.append("" if c is None else
                         f"{c['ours']:.3f} / {c['best_peer']:.3f} {label[c['best_peer_method']]} "
                         f"{short[c['verdict']]}")
        lines.append([t["workload"], f"{t['epsilon']:g}"] + cells)
    head = ["workload", "eps", "max 2-way", "mean 2-way", "max 3-way", "mean 3-way"]
    widths = [max(len(r[i]) for r in lines + [head]) for i in range(len(head))]
    rule = "  ".join("=" * w for w in widths)
    fmt = lambda row: "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip()  # noqa: E731
    return "\n".join([rule, fmt(head), rule] + [fmt(r) for r in lines] + [rule])


def report():
    records = list(cached_runs().values())
    summary = _summary(records)
    out = {
        "description": __doc__,
        "delta": DELTA,
        "neighbouring": "add/remove on both sides (table count vectors: L1 = L2 sensitivity 1)",
        "timing_note": "wall times were measured on a shared 2-core machine running other "
                       "sessions' jobs; cpu_s (process CPU time) is the comparable number",
        "python": sys.version.split()[0],
        "summary": summary,
        "targets": _targets(summary),
        "targets_both_iid": _targets(summary, "ours-iid"),
        "targets_both_systematic": _targets(summary, "ours", ("mst_systematic",)),
        "downstream": {"classifier": "LogisticRegression on one-hot codes, trained on n "
                                     "synthetic rows of the training part, accuracy on the "
                                     f"real held-out {TEST_FRACTION:.0%} (split seed "
                                     f"{SPLIT_SEED})", "results": downstream(records)},
        "runs": records,
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as fh:
        json.dump(out, fh, indent=1)
    print("| workload | eps | method | seeds | max/mean 2-way | max/mean 3-way | wall s | cpu s | peak MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in summary:
        three = (f"{r['max_3way']:.3f}/{r['mean_3way']:.4f}" if "max_3way" in r else "")
        two = f"{r['max_2way']:.3f}/{r['mean_2way']:.4f}" if "max_2way" in r else ", ".join(r["failures"])
        print(f"| {r['workload']} | {r['epsilon']:g} | {r['method']} | {r['n_seeds']} | {two} | {three} | "
              f"{r.get('total_s', float('nan')):.1f} | {r.get('cpu_s', float('nan')):.1f} | "
              f"{r.get('peak_mb', float('nan')):.0f} |")
    print("\n| workload | eps | chosen | metric | ours ± se | best peer ± se (seeds) | verdict |")
    print("|---|---|---|---|---|---|---|")
    for t in out["targets"]:
        for k in ("max_2way", "mean_2way", "max_3way", "mean_3way"):
            if k in t:
                c = t[k]
                print(f"| {t['workload']} | {t['epsilon']:g} | {','.join(t['chosen'] or [])} | {k} | "
                      f"{c['ours']:.4f} ± {c['ours_se']:.4f} | {c['best_peer_method']} "
                      f"{c['best_peer']:.4f} ± {c['best_peer_se']:.4f} ({c['best_peer_seeds']}) | "
                      f"{c['verdict']} |")
    for key in ("targets", "targets_both_iid", "targets_both_systematic"):
        print(f"\n{key}\n\n" + rst_targets(out[key]) + "\n")
    print("\n| workload | method | eps | seeds | accuracy |\n|---|---|---|---|---|")
    for r in out["downstream"]["results"]:
        sd = f" ± {r['accuracy_sd']:.3f} (sd)" if "accuracy_sd" in r else ""
        print(f"| {r['workload']} | {r['method']} | {r.get('epsilon', '')} | "
              f"{r.get('n_seeds', '')} | {r['accuracy']:.3f}{sd} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["prepare", "peers", "ours", "one", "pure", "report"])
    parser.add_argument("--budget-s", type=float, default=4800.0)
    parser.add_argument("--timeout-s", type=float, default=900.0)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--name", default="digits8")
    parser.add_argument("--names", default=",".join(WORKLOADS))
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--label", default="ours", choices=OURS)
    parser.add_argument("--methods", default="", help="peers: only these methods (aim,mst)")
    parser.add_argument("--epsilons", default=",".join(map(str, EPSILONS)))
    args, rest = parser.parse_known_args()
    if args.command == "prepare":
        prepare()
    elif args.command == "peers":
        peers(args.budget_s, args.timeout_s, args.names.split(","),
              args.methods.split(",") if args.methods else None, args.seeds,
              tuple(float(e) for e in args.epsilons.split(",")))
    elif args.command == "one":
        one(args.name, args.epsilon, args.seed, args.label)
    elif args.command == "ours":
        ours(args.seeds, args.timeout_s, args.names.split(","), args.label,
             tuple(float(e) for e in args.epsilons.split(",")))
    elif args.command == "pure":
        pure(args.seeds)
    elif args.command == "report":
        report()

"""Benchmark: PrivateProperClassifier (SPEC §6; seeds/001 Lemma 6.3, Alg. 3).

Part A ('exponential'): accuracy over >= 20 random 75/25 splits at
epsilon in {0.5, 1, 2, 5} on breast cancer and on digits (label: digit >= 5),
stumps (and halfspaces when ``sksmooth.classes.Halfspaces`` exists), next to
a non-private decision stump and diffprivlib's LogisticRegression and
GaussianNB. Features are scaled to [0, 1] with the published bounds of
``sksmooth.datasets`` (breast cancer: DESCR summary table; digits: pixel
range), so ``bounds=(0, 1)`` is public for every method. diffprivlib needs scikit-learn < 1.6, so its numbers come from
``_diffprivlib_proper_peer.py`` run in its own venv (``--peer-python``,
default ``/work/venv-dpl6/bin/python``; the stored JSON is loaded when the
venv is missing). Splits, min-max scaling and bounds are identical.

Part B ('littlestone'): PolyPriPropLearn on thresholds over N in {16, 32, 64}
domain points as n grows: error of the released hypothesis (uniform
distribution on the domain, random target), error of PolyPriLearn's SOA
output, fallback rate, runtime; then the largest threshold domain handled in
<= 60 s at fixed n.

Usage::

    python benchmarks/bench_private_proper.py [--quick] [--peer-python PATH]

Writes ``benchmarks/results/private_proper.json`` (``private_proper_quick.json``
with ``--quick``, so a quick run never overwrites the committed real run) and
prints tables.
"""

import argparse
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))

from sklearn.tree import DecisionTreeClassifier  # noqa: E402

from _diffprivlib_proper_peer import DATASETS, EPSILONS, load, split  # noqa: E402
from sksmooth.exceptions import PrivacyWarning  # noqa: E402
from sksmooth.proper import PrivateProperClassifier  # noqa: E402


def part_a(seeds, peer):
    import sksmooth.classes as concept_classes

    classes = ["stumps"] + (["halfspaces"] if hasattr(concept_classes, "Halfspaces") else [])
    rows = []
    for name in DATASETS:
        X, y = load(name)
        d = X.shape[1]
        bounds = (np.zeros(d), np.ones(d))
        accs = []
        for seed in seeds:
            tr, te = split(len(X), seed)
            stump = DecisionTreeClassifier(max_depth=1, random_state=seed).fit(X[tr], y[tr])
            accs.append(stump.score(X[te], y[te]))
        rows.append({"dataset": name, "method": "non-private stump", "epsilon": None,
                     "accuracy_mean": float(np.mean(accs)), "accuracy_std": float(np.std(accs))})
        for hyp in classes:
            # the cover is data independent (public bounds + seed): build it once
            cls = {"stumps": concept_classes.Stumps, "halfspaces": getattr(concept_classes, "Halfspaces", None)}[hyp]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                t_cover = time.perf_counter()
                cover = cls().cover(bounds=bounds, gamma=1.0 / 128, max_size=20000, random_state=0)
                t_cover = time.perf_counter() - t_cover
            for eps in EPSILONS:
                accs, t0 = [], time.perf_counter()
                for seed in seeds:
                    tr, te = split(len(X), seed)
                    clf = PrivateProperClassifier(
                        cover, epsilon=eps, bounds=bounds, classes=[0, 1], random_state=seed
                    ).fit(X[tr], y[tr])
                    accs.append(clf.score(X[te], y[te]))
                rows.append({
                    "dataset": name, "method": f"sksmooth exponential {hyp}", "epsilon": eps,
                    "accuracy_mean": float(np.mean(accs)), "accuracy_std": float(np.std(accs)),
                    "cover_size": int(clf.cover_size_),
                    "cover_gamma": cover.gamma, "cover_gamma_certified": bool(cover.gamma_certified),
                    "cover_seconds": t_cover,
                    "seconds_per_fit": (time.perf_counter() - t0) / len(seeds),
                })
    rows += [dict(r, accuracies=None) for r in peer.get("results", [])]
    return rows


def run_peer(peer_python, quick):
    path = ROOT / "results" / f"diffprivlib_proper{'_quick' if quick else ''}.json"
    if peer_python and Path(peer_python).exists():
        cmd = [peer_python, str(ROOT / "_diffprivlib_proper_peer.py")] + (["--quick"] if quick else [])
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    if path.exists():
        return json.loads(path.read_text())
    print("diffprivlib peer results not available: skipped")
    return {}


def _threshold_task(N, n, seed):
    domain = np.arange(N) / N
    rng = np.random.default_rng(seed)
    target = int(rng.integers(0, N + 1))
    cut = domain[target] if target < N else np.inf
    x = rng.choice(domain, n)
    return domain, x[:, None], (x >= cut).astype(int), (domain >= cut).astype(int)


def _fit_littlestone(domain, X, y, seed, epsilon=1.0, delta=1e-6):
    clf = PrivateProperClassifier(
        "thresholds", method="littlestone", domain=domain, epsilon=epsilon, delta=delta,
        classes=[0, 1], random_state=seed,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        t0 = time.perf_counter()
        clf.fit(X, y)
        _ = clf.hypothesis_
        return clf, time.perf_counter() - t0


def part_b(quick):
    Ns = (16, 32, 64)
    ns = (250, 1000, 4000) if quick else (250, 1000, 4000, 16000, 64000)
    seeds = range(3 if quick else 10)
    rows = []
    for N in Ns:
        for n in ns:
            errs, soa_errs, fallbacks, secs = [], [], [], []
            for seed in seeds:
                domain, X, y, truth = _threshold_task(N, n, seed)
                clf, sec = _fit_littlestone(domain, X, y, seed)
                errs.append(float(np.mean(clf.predict(domain[:, None]) != truth)))
                soa_errs.append(float(np.mean((clf.soa_values_ > 0).astype(int) != truth)))
                fallbacks.append(bool(clf.soa_from_fallback_))
                secs.append(sec)
            rows.append({
                "N": N, "n": n, "ldim": int(clf.littlestone_dimension_),
                "error_mean": float(np.mean(errs)), "error_max": float(np.max(errs)),
                "soa_error_mean": float(np.mean(soa_errs)),
                "soa_fallback_rate": float(np.mean(fallbacks)),
                "seconds_mean": float(np.mean(secs)),
                "theoretical_sample_size": int(clf.theoretical_sample_size_),
                "parameters": clf.parameters_,
            })
    return rows


def largest_domain(quick, budget=60.0):
    n = 4000 if quick else 20000
    N, rows = 64, []
    while True:
        domain, X, y, truth = _threshold_task(N, n, 0)
        clf, sec = _fit_littlestone(domain, X, y, 0)
        err = float(np.mean(clf.predict(domain[:, None]) != truth))
        rows.append({"N": N, "n_hypotheses": N + 1, "n": n, "seconds": sec, "error": err,
                     "ldim": int(clf.littlestone_dimension_)})
        print(f"  N={N:6d} |F|={N + 1:6d} Ldim={clf.littlestone_dimension_:2d} "
              f"n={n} {sec:7.2f}s error={err:.3f}")
        if sec > budget or (quick and N >= 512):
            break
        if sec * 4.5 > budget:  # the next doubling would certainly exceed the budget
            break
        N *= 2
    ok = [r for r in rows if r["seconds"] <= budget]
    return {"n": n, "budget_seconds": budget, "runs": rows,
            "largest_N_within_budget": ok[-1]["N"] if ok else None}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--peer-python", default="/work/venv-dpl6/bin/python")
    args = parser.parse_args()
    seeds = range(5 if args.quick else 20)

    peer = run_peer(args.peer_python, args.quick)
    a = part_a(seeds, peer)
    print(f"\nPart A: accuracy over {len(seeds)} splits (test 25%)")
    print(f"{'dataset':14s} {'method':38s} {'eps':>5s} {'mean':>6s} {'std':>6s}")
    for r in a:
        eps = "-" if r["epsilon"] is None else f"{r['epsilon']:g}"
        print(f"{r['dataset']:14s} {r['method']:38s} {eps:>5s} "
              f"{r['accuracy_mean']:6.3f} {r['accuracy_std']:6.3f}")

    print("\nPart B: littlestone on thresholds (epsilon=1, delta=1e-6)")
    b = part_b(args.quick)
    print(f"{'N':>4s} {'Ldim':>4s} {'n':>6s} {'err':>6s} {'errmax':>6s} {'soa_err':>7s} "
          f"{'fallbk':>6s} {'sec':>6s} {'n_thm6.4':>10s}")
    for r in b:
        print(f"{r['N']:4d} {r['ldim']:4d} {r['n']:6d} {r['error_mean']:6.3f} {r['error_max']:6.3f} "
              f"{r['soa_error_mean']:7.3f} {r['soa_fallback_rate']:6.2f} "
              f"{r['seconds_mean']:6.2f} {r['theoretical_sample_size']:10.3g}")
    print("\nLargest threshold domain within 60 s:")
    big = largest_domain(args.quick)
    print(f"  -> N = {big['largest_N_within_budget']} at n = {big['n']}")

    out = {"quick": args.quick, "n_seeds": len(seeds),
           "diffprivlib_version": peer.get("diffprivlib_version"),
           "part_a": a, "part_b": b, "largest_domain": big}
    path = ROOT / "results" / f"private_proper{'_quick' if args.quick else ''}.json"
    path.write_text(json.dumps(out, indent=1))
    print("wrote", path)


if __name__ == "__main__":
    main()

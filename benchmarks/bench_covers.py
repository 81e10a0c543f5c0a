"""Cover construction time / size and evaluate() throughput (issue 2, item 7).

    python benchmarks/bench_covers.py [--quick]
    python benchmarks/bench_covers.py --halfspace-constructions

Writes benchmarks/results/covers.json. ``--halfspace-constructions`` (issue
12) compares, in d = 3, 4, 5 and at equal size K, the paper's cover from the
labellings of m uniform points (:class:`sksmooth.online.HalfspaceLabellings`,
d-tuple enumeration) with the default random-halfspace cover of
:class:`sksmooth.classes.Halfspaces`: the radius each reports (its own Monte
Carlo estimate) and an independent audit (300 fresh random target
halfspaces; each target's cover element chosen on 2000 fresh selection
points; disagreement measured on 4000 fresh uniform points: mean, 95 %
quantile, max), and build time. It is merged into covers.json under
``halfspace_constructions``.
"""

import argparse
import json
import os
import platform
import time
import warnings

import numpy as np

from sksmooth.classes import Boxes, HalfspaceConcepts, Halfspaces, Parities, Stumps, estimate_cover_radius
from sksmooth.classes._halfspaces import _HalfspaceSampler, _pair_lines
from sksmooth.online import HalfspaceLabellings
from sksmooth.online._halfspace_labellings import labelling_count


def _best_of(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _throughput(cover, X, repeat):
    t, V = _best_of(lambda: cover.evaluate(X), repeat)
    return {"n_points": len(X), "seconds": t,
            "points_per_s": len(X) / t, "cells_per_s": V.size / t}


def main(quick=False):
    rng = np.random.default_rng(0)
    repeat = 1 if quick else 3
    rows = []

    d = 30
    X30 = rng.uniform(size=(2000 if not quick else 500, d))
    for gamma in ([0.05, 0.01] if quick else [0.05, 0.01, 0.002, 0.0005]):
        t, cover = _best_of(lambda: Stumps().cover(bounds=(0.0, 1.0), gamma=gamma, n_features=d), repeat)
        rows.append({"cover": "stumps", "n_features": d, "gamma_requested": gamma,
                     "size": cover.n_concepts, "gamma": cover.gamma,
                     "gamma_certified": cover.gamma_certified, "vc_dim": cover.vc_dim,
                     "build_seconds": t, "evaluate": _throughput(cover, X30, repeat)})

    m = 100 if quick else 500
    X2 = rng.uniform(size=(1000, 2))
    t_enum, _ = _best_of(lambda: _pair_lines(rng.uniform(size=(m, 2))), repeat)
    t, cover = _best_of(lambda: Halfspaces().cover(bounds=(0.0, 1.0), n_features=2, n_points=m,
                                                   random_state=0), repeat)
    w = rng.normal(size=(200, 2))  # 200 random targets, as cover()'s default n_mc_targets
    targets = HalfspaceConcepts(w, -np.einsum("kd,kd->k", w, rng.uniform(size=(200, 2))))
    rows.append({"cover": "halfspaces-2d-pairs", "n_features": 2, "n_points": m,
                 "size": cover.n_concepts, "gamma": cover.gamma,
                 "gamma_certified": cover.gamma_certified, "vc_dim": cover.vc_dim,
                 "build_seconds": t, "enumeration_seconds": t_enum,
                 "mc_estimate_seconds": _best_of(lambda: estimate_cover_radius(
                     cover, targets, n_points=2000, random_state=0,
                     selection_points=cover.points_, exact_lookup=True), repeat)[0],
                 "evaluate": _throughput(cover, X2, repeat)})

    X5 = rng.uniform(size=(1000, 5))
    for k in ([1000] if quick else [1000, 10000]):
        t, cover = _best_of(lambda: Halfspaces().cover(bounds=(0.0, 1.0), n_features=5, max_size=k,
                                                       random_state=0, n_mc_targets=100,
                                                       n_mc_points=1000), repeat)
        rows.append({"cover": "halfspaces-5d-sample", "n_features": 5, "size": cover.n_concepts,
                     "gamma": cover.gamma, "gamma_certified": cover.gamma_certified,
                     "vc_dim": cover.vc_dim, "build_seconds": t,
                     "evaluate": _throughput(cover, X5, repeat)})

    t, cover = _best_of(lambda: Boxes().cover(bounds=(0.0, 1.0), n_features=2, gamma=0.05), repeat)
    rows.append({"cover": "boxes-2d", "n_features": 2, "gamma_requested": 0.05,
                 "size": cover.n_concepts, "gamma": cover.gamma, "gamma_certified": True,
                 "vc_dim": cover.vc_dim, "build_seconds": t,
                 "evaluate": _throughput(cover, X2, repeat)})

    t, cover = _best_of(lambda: Parities(max_degree=3).cover(bounds=(0, 1), n_features=20), repeat)
    Xb = rng.integers(0, 2, size=(2000, 20))
    rows.append({"cover": "parities-20d-deg<=3", "n_features": 20, "size": cover.n_concepts,
                 "gamma": cover.gamma, "gamma_certified": True, "vc_dim": cover.vc_dim,
                 "build_seconds": t, "evaluate": _throughput(cover, Xb, repeat)})

    print(f"{'cover':24s} {'size':>9s} {'gamma':>9s} {'cert':>5s} {'vc':>3s} {'build s':>9s} {'eval Mcells/s':>14s}")
    for r in rows:
        print(f"{r['cover']:24s} {r['size']:9d} {r['gamma']:9.4g} {str(r['gamma_certified'])[0]:>5s} "
              f"{r['vc_dim']:3d} {r['build_seconds']:9.4f} {r['evaluate']['cells_per_s'] / 1e6:14.1f}")
    result = {"benchmark": "covers", "quick": quick, "python": platform.python_version(),
              "numpy": np.__version__, "cpu_count": os.cpu_count(),
              "note": "machine shared by ~6 agents; times are best of repeats", "rows": rows}
    out = os.path.join(os.path.dirname(__file__), "results", "covers.json")
    if not quick:
        with open(out, "w") as fh:
            json.dump(result, fh, indent=2)
        print(f"wrote {out}")
    return result


def _audit(cover, d, seed=11, n_targets=300):
    """Measured uniform disagreement of fresh targets with their chosen cover element."""
    rng = np.random.default_rng(seed)
    lower, upper = cover.bounds
    targets = _HalfspaceSampler(lower, upper, True).sample(n_targets, rng)
    select, fresh = rng.random((2000, d)), rng.random((4000, d))
    T, C = targets.evaluate(select).astype(np.float32), cover.evaluate(select).astype(np.float32)
    nearest = np.argmin(T.T @ (1 - C) + (1 - T).T @ C, axis=1)
    measured = np.mean(targets.evaluate(fresh) != cover.subset(nearest).evaluate(fresh), axis=0)
    return {"mean": float(measured.mean()), "q95": float(np.quantile(measured, 0.95)),
            "max": float(measured.max())}


def halfspace_constructions():
    rows = []
    for d, points in ((3, (20, 30, 45)), (4, (14, 20, 26)), (5, (12, 16, 20))):
        for m in points:
            size = labelling_count(m, d + 1)
            for name, make in (("tuples", lambda: HalfspaceLabellings().cover(
                    bounds=(0.0, 1.0), n_features=d, n_points=m, random_state=0)),
                    ("sample", lambda: Halfspaces().cover(
                        bounds=(0.0, 1.0), n_features=d, max_size=size, random_state=0,
                        method="sample"))):
                t0 = time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    cover = make()
                rows.append({"construction": name, "n_features": d, "n_points": m,
                             "size": cover.n_concepts, "gamma_reported": cover.gamma,
                             "audit": _audit(cover, d),
                             "build_cpu_seconds": time.process_time() - t0})
                print(rows[-1], flush=True)
    out = os.path.join(os.path.dirname(__file__), "results", "covers.json")
    result = json.load(open(out)) if os.path.exists(out) else {"benchmark": "covers"}
    result["halfspace_constructions"] = rows
    with open(out, "w") as fh:
        json.dump(result, fh, indent=2)
    print(f"wrote {out}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, no JSON written")
    parser.add_argument("--halfspace-constructions", action="store_true",
                        help="only the d >= 3 halfspace cover comparison (merged into the JSON)")
    args = parser.parse_args()
    if args.halfspace_constructions:
        halfspace_constructions()
    else:
        main(quick=args.quick)

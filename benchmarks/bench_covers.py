"""Cover construction time / size and evaluate() throughput (issue 2, item 7).

    python benchmarks/bench_covers.py [--quick]

Writes benchmarks/results/covers.json.
"""

import argparse
import json
import os
import platform
import time

import numpy as np

from sksmooth.classes import Boxes, HalfspaceConcepts, Halfspaces, Parities, Stumps, estimate_cover_radius
from sksmooth.classes._halfspaces import _pair_lines


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


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, no JSON written")
    main(**vars(parser.parse_args()))

"""Benchmark: mechanism sampling speed and privacy-audit throughput.

Run ``python benchmarks/bench_mechanisms.py [--quick]``; prints a table and
writes ``benchmarks/results/mechanisms.json``, with the exact samplers'
CPU time as ratios to numpy's float Gumbel-max at 10^4-10^6 candidates
(``--exact-only --label before`` runs only those, for a before/after pair). Peers (diffprivlib) are timed
side by side when installed and skipped cleanly otherwise.
"""

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np
from scipy.special import softmax

from sksmooth.mechanisms import (
    exponential_mechanism,
    exponential_mechanism_log_probabilities,
    gaussian_noise_std,
    laplace_mechanism,
    sparse_selection,
)
from sksmooth.metrics._audit import audit_epsilon

RESULTS = Path(__file__).resolve().parent / "results" / "mechanisms.json"


def median_time(func, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def cpu_median(func, repeats):
    times = []
    for _ in range(repeats):
        start = time.process_time()
        func()
        times.append(time.process_time() - start)
    return float(np.median(times))


def exact_sampler_ratios(repeats, sizes=(10**4, 10**5, 10**6)):
    """CPU seconds of one draw of the exact samplers and of numpy's float Gumbel-max.

    Integer scores, epsilon 1, sensitivity 1; "wide": uniform on [0, 10^6)
    (nearly every coin is far from the best), "narrow": uniform on [0, 20)
    (every coin near). The floor is ``argmax(eps s / 2 + rng.gumbel(size=n))``.
    """
    from sksmooth.mechanisms import exact_exponential_mechanism, permute_and_flip

    rng = np.random.default_rng(0)
    rows = []
    for n in sizes:
        for name, high in (("wide", 10**6), ("narrow", 20)):
            scores = rng.integers(0, high, size=n)
            reps = repeats if n < 10**6 else max(5, repeats // 2)
            floor = cpu_median(lambda: np.argmax(scores * 0.5 + rng.gumbel(size=n)), reps)
            em = cpu_median(lambda: exact_exponential_mechanism(scores, 1.0, 1.0, rng), reps)
            pf = cpu_median(lambda: permute_and_flip(scores, 1.0, 1.0, rng), reps)
            rows.append({"n_candidates": n, "scores": name, "gumbel_max_s": floor,
                         "exact_exponential_s": em, "permute_and_flip_s": pf,
                         "exact_exponential_ratio": em / floor,
                         "permute_and_flip_ratio": pf / floor})
            print(f"exact samplers n={n:>8} {name:<6} gumbel {floor * 1e3:8.2f} ms  "
                  f"exponential x{em / floor:5.2f}  permute-and-flip x{pf / floor:5.2f}", flush=True)
    return rows


def main(quick=False, exact_only=False, label=None):
    if exact_only:
        rows = exact_sampler_ratios(5 if quick else 21)
        path = RESULTS.with_name(f"mechanisms_exact_{label or 'current'}.json")
        path.write_text(json.dumps({"label": label, "machine": platform.platform(),
                                    "numpy": np.__version__, "exact_samplers": rows},
                                   indent=2) + "\n")
        print(f"wrote {path}")
        return
    repeats = 5 if quick else 21
    rng = np.random.default_rng(0)
    n = 10**6
    scores = rng.uniform(0, 1e6, size=n)
    rows = []

    def add(name, seconds, note=""):
        rows.append({"benchmark": name, "seconds": seconds, "note": note})

    add("exponential_mechanism, 1 draw, 1e6 candidates, scores<=1e6",
        median_time(lambda: exponential_mechanism(scores, 1.0, 1.0, rng), repeats),
        "Gumbel-max, median of repeats")
    add("exponential_mechanism_log_probabilities, 1e6 candidates",
        median_time(lambda: exponential_mechanism_log_probabilities(scores, 1.0, 1.0), repeats))
    small = rng.uniform(0, 1, size=n)  # naive softmax only works without huge scores

    def naive():
        p = softmax(small / 2.0)
        return rng.choice(n, p=p)

    add("baseline: softmax + rng.choice, 1e6 candidates", median_time(naive, repeats),
        "inverse-CDF reference (overflows for large scores without the max shift)")
    add("gaussian_noise_std analytic (bisection)",
        median_time(lambda: gaussian_noise_std(1.0, 1e-6, 1.0), repeats))
    users = [set(rng.integers(0, 10**5, size=10).tolist()) for _ in range(10**4)]
    add("sparse_selection, 1e4 users x 10 candidates",
        median_time(lambda: sparse_selection(users, 10, 1.0, 1e-6, rng), max(3, repeats // 4)))

    try:
        from diffprivlib.mechanisms import Exponential

        n_peer = 10**4  # pure-Python peer: 1e6 candidates would take minutes
        utility = scores[:n_peer].tolist()
        ours = median_time(lambda: exponential_mechanism(scores[:n_peer], 1.0, 1.0, rng), repeats)
        add("sksmooth exponential_mechanism, 1 draw, 1e4 candidates", ours)
        # diffprivlib computes its probabilities in __init__: time construction + draw.
        add("diffprivlib Exponential (init + randomise), 1e4 candidates",
            median_time(lambda: Exponential(epsilon=1.0, sensitivity=1.0,
                                            utility=utility).randomise(), repeats))
    except Exception as exc:  # not installed, or incompatible with this scikit-learn
        add(f"diffprivlib: skipped ({type(exc).__name__})", float("nan"))

    # Audit throughput (trials per second per dataset pair).
    n_audit = 10**5 if quick else 10**6
    k = 10
    s0, s1 = np.r_[1.0, np.zeros(k)], np.r_[0.0, np.ones(k)]
    start = time.perf_counter()
    res_em = audit_epsilon(lambda s, r, m: exponential_mechanism(s, 1.0, 1.0, r, size=m),
                           s0, s1, lambda o: o == 0, n_audit, random_state=0, batch=True)
    t_em = time.perf_counter() - start
    start = time.perf_counter()
    res_lap = audit_epsilon(lambda x, r, m: laplace_mechanism(x, 1.0, 1.0, r, size=m),
                            1.0, 0.0, lambda o: o > 1.0, n_audit, random_state=0, batch=True)
    t_lap = time.perf_counter() - start
    n_loop = 10**4
    start = time.perf_counter()
    audit_epsilon(lambda x, r: laplace_mechanism(x, 1.0, 1.0, r), 1.0, 0.0,
                  lambda o: o > 1.0, n_loop, random_state=0)
    t_loop = time.perf_counter() - start

    audits = [
        {"audit": "exponential mechanism (11 candidates), batch", "n_trials": n_audit,
         "seconds": t_em, "trials_per_second": 2 * n_audit / t_em,
         "epsilon_claimed": 1.0, "epsilon_lower": res_em.epsilon_lower},
        {"audit": "Laplace, batch", "n_trials": n_audit, "seconds": t_lap,
         "trials_per_second": 2 * n_audit / t_lap,
         "epsilon_claimed": 1.0, "epsilon_lower": res_lap.epsilon_lower},
        {"audit": "Laplace, one call per trial", "n_trials": n_loop, "seconds": t_loop,
         "trials_per_second": 2 * n_loop / t_loop},
    ]

    print(f"{'benchmark':<66} {'seconds':>10}  note")
    for r in rows:
        print(f"{r['benchmark']:<66} {r['seconds']:>10.4g}  {r['note']}")
    print()
    print(f"{'audit':<48} {'n_trials':>9} {'seconds':>8} {'trials/s':>10} {'eps_lower':>9}")
    for a in audits:
        print(f"{a['audit']:<48} {a['n_trials']:>9} {a['seconds']:>8.3f} "
              f"{a['trials_per_second']:>10.3g} {a.get('epsilon_lower', float('nan')):>9.4f}")

    exact = exact_sampler_ratios(repeats)
    out = {"quick": quick, "repeats": repeats, "machine": platform.platform(),
           "numpy": np.__version__, "timings": rows, "audits": audits,
           "exact_samplers": exact}
    # a quick run never overwrites the committed result of a full run
    path = RESULTS.with_name(RESULTS.stem + "_quick.json") if quick else RESULTS
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"\nwrote {path}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats and trials")
    parser.add_argument("--exact-only", action="store_true",
                        help="only the exact samplers against Gumbel-max (CPU seconds), written "
                             "to mechanisms_exact_<label>.json")
    parser.add_argument("--label", default=None, help="name of an --exact-only run")
    args = parser.parse_args()
    main(args.quick, args.exact_only, args.label)

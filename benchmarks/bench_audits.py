"""The audit table of issue 17: every catalogued audit, correct and broken.

For each case of :func:`sksmooth.audits.audit_cases`: the 95% lower bound on
epsilon for the correct release and for its deliberately broken variant (2x
epsilon / half the noise / short padding), at the same trial count, and the
wall time. Writes ``benchmarks/results/audits.json``.

    PYTHONPATH=. python benchmarks/bench_audits.py [--seed 1234]
"""

import argparse
import json
import time
from pathlib import Path

from sksmooth.audits import audit_cases

RESULTS = Path(__file__).parent / "results" / "audits.json"


def _timed(run, n_trials, seed):
    start = time.perf_counter()
    result = run(n_trials, seed)
    return float(result.epsilon_lower), time.perf_counter() - start


def main(seed):
    rows, total = [], time.perf_counter()
    for case in audit_cases():
        lower, seconds = _timed(case.run, case.n_trials, seed)
        row = {"case": case.name, "epsilon": case.epsilon, "delta": case.delta,
               "trials": case.n_trials, "min_fraction": case.min_fraction,
               "correct_lower": round(lower, 4), "correct_seconds": round(seconds, 1)}
        if case.run_broken is not None:
            broken, seconds = _timed(case.run_broken, case.n_trials, seed)
            row.update(broken=case.broken, broken_lower=round(broken, 4),
                       broken_caught=broken > case.epsilon, broken_seconds=round(seconds, 1))
        rows.append(row)
        print(f"{case.name[:70]:<70} claim {case.epsilon:g}: {row['correct_lower']:.3f}"
              f" / broken {row.get('broken_lower', float('nan')):.3f}", flush=True)
    RESULTS.write_text(json.dumps({"seed": seed, "total_seconds": round(
        time.perf_counter() - total, 1), "cases": rows}, indent=1) + "\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1234)
    main(parser.parse_args().seed)

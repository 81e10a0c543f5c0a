"""The audit table of issues 17 and 39: every catalogued audit, correct and broken.

For each case of :func:`sksmooth.audits.audit_cases`: the 95% lower bound on
epsilon for the correct release and for its deliberately broken variant (2x
overspend inside the release / half the noise / short padding), at the same
trial count, and the wall time. For a case that can overspend by any factor
(``run_overspent``): the smallest factor 2, 4, 8, ... its audit catches at
its trial count (``detectable_factor``; the catalog quotes it, and
``sksmooth audit`` prints "no power at N trials" when it is above 2).
Writes ``benchmarks/results/audits.json``; with ``--only``, runs the cases
whose name contains one of the TEXTs and replaces (or adds) only their rows
there, so a new case is measured without re-running the catalog (~55 min).

    PYTHONPATH=. python benchmarks/bench_audits.py [--seed 1234] [--only TEXT ...]
"""

import argparse
import json
import time
from pathlib import Path

from sksmooth.audits import audit_cases

RESULTS = Path(__file__).parent / "results" / "audits.json"
MAX_FACTOR = 256


def _timed(run, *args):
    start = time.perf_counter()
    result = run(*args)
    return float(result.epsilon_lower), time.perf_counter() - start


def _detectable_factor(case, broken_lower, seed):
    """The smallest power-of-2 overspend caught at the case's trials (None past MAX_FACTOR)."""
    factor, lower = 2.0, broken_lower
    tried = {2.0: round(lower, 4)}
    while lower <= case.epsilon:
        factor *= 2
        if factor > MAX_FACTOR:
            return None, tried
        lower, _ = _timed(case.run_overspent, factor, case.n_trials, seed)
        tried[factor] = round(lower, 4)
    return factor, tried


def main(seed, only):
    previous = json.loads(RESULTS.read_text()) if only else None
    if previous is not None and previous["seed"] != seed:
        raise SystemExit(f"{RESULTS} was measured at seed {previous['seed']}: rerun the "
                         f"whole catalog at seed {seed}, or --only at seed {previous['seed']}.")
    rows, total = [], time.perf_counter()
    for case in audit_cases():
        if only and not any(text in case.name for text in only):
            continue
        lower, seconds = _timed(case.run, case.n_trials, seed)
        row = {"case": case.name, "epsilon": case.epsilon, "delta": case.delta,
               "trials": case.n_trials, "min_fraction": case.min_fraction,
               "correct_lower": round(lower, 4), "correct_seconds": round(seconds, 1)}
        if case.run_broken is not None:
            broken, seconds = _timed(case.run_broken, case.n_trials, seed)
            row.update(broken=case.broken, broken_lower=round(broken, 4),
                       broken_caught=broken > case.epsilon, broken_seconds=round(seconds, 1))
            if case.run_overspent is not None:
                factor, tried = _detectable_factor(case, broken, seed)
                row.update(detectable_factor=factor, lower_by_factor=tried,
                           catalog_detectable_factor=case.detectable_factor)
        rows.append(row)
        print(f"{case.name[:70]:<70} claim {case.epsilon:g}: {row['correct_lower']:.3f}"
              f" / broken {row.get('broken_lower', float('nan')):.3f}"
              f" / detectable {row.get('detectable_factor', '-')}", flush=True)
    report = {"seed": seed, "total_seconds": round(time.perf_counter() - total, 1),
              "cases": rows}
    if previous is not None:
        report = _merged(previous, rows)
    RESULTS.write_text(json.dumps(report, indent=1) + "\n")


def _merged(report, rows):
    """The full table with ``rows`` in place of the rows of the same cases, in catalog order."""
    by_name = {row["case"]: row for row in report["cases"]}
    by_name.update({row["case"]: row for row in rows})
    order = [case.name for case in audit_cases()]
    report["cases"] = sorted(by_name.values(), key=lambda row: (
        order.index(row["case"]) if row["case"] in order else len(order)))
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--only", nargs="+", default=[], metavar="TEXT",
                        help="run only the cases whose name has one of the TEXTs and "
                             "update their rows")
    args = parser.parse_args()
    main(args.seed, args.only)

"""Benchmark: CPU cost of the exact rational permute-and-flip on extreme inputs.

The wall-clock targets once asserted by tests/mechanisms (they failed under
load): 20 draws on each extreme input within 5 s, one draw over 10^4
candidates within 10 s. CPU seconds (``time.process_time``), minimum of the
repeats. Writes ``benchmarks/results/rational_permute_and_flip.json``.

    PYTHONPATH=. python benchmarks/bench_rational_permute_and_flip.py [--quick]
"""

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

from sksmooth.mechanisms._exact_selection import rational_permute_and_flip

RESULTS = Path(__file__).resolve().parent / "results" / "rational_permute_and_flip.json"
# the tests' extreme inputs, read from them so the two lists cannot drift
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "mechanisms"))
from test_rational_permute_and_flip import EXTREME_INPUTS  # noqa: E402


def _cpu(function, repeats):
    times = []
    for _ in range(repeats):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return min(times)


def main(quick=False):
    repeats = 1 if quick else 3
    rng = np.random.default_rng(0)
    rows = []
    for scores, epsilon, sensitivity in EXTREME_INPUTS:
        seconds = _cpu(lambda: [rational_permute_and_flip(scores, epsilon, sensitivity, rng)
                                for _ in range(20)], repeats)
        rows.append({"case": f"20 draws, scores={scores}, eps={epsilon:g}, "
                             f"sensitivity={sensitivity:g}",
                     "cpu_seconds": seconds, "target_seconds": 5.0})
    scores = np.random.default_rng(1).random(10_000) * 1000
    for epsilon in (1e-12, 1.0, 1e6):
        seconds = _cpu(lambda: rational_permute_and_flip(scores, epsilon, 1.0, rng), repeats)
        rows.append({"case": f"1 draw, 10^4 candidates, eps={epsilon:g}",
                     "cpu_seconds": seconds, "target_seconds": 10.0})
    for row in rows:
        row["within_target"] = row["cpu_seconds"] <= row["target_seconds"]
        print(f"{row['cpu_seconds']:8.3f} s  (target {row['target_seconds']:g} s)  "
              f"{row['case']}", flush=True)
    if not quick:  # a quick run never overwrites the result of a full run
        RESULTS.write_text(json.dumps({"machine": platform.platform(), "repeats": repeats,
                                       "rows": rows}, indent=1) + "\n")
        print(f"wrote {RESULTS}")
    return 0 if all(row["within_target"] for row in rows) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one repeat, no file written")
    raise SystemExit(main(**vars(parser.parse_args())))

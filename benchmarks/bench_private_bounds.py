"""PrivateBounds against smartnoise-synth's bound inference, side by side.

Issue 36 item 9: smartnoise's ``preprocessor_eps`` inferred an age column up to
61.6 for data in 17.5-42. smartnoise-synth infers a continuous column's range
with ``approx_bounds`` (``snsynth/transform/mechanism.py``, after Desfontaines'
thesis, "Usability" chapter): a Laplace histogram over power-of-two bins
(``+-2^k``, 32 a side), the outermost bins whose noisy count passes a threshold
set by a failure probability, and their outer edges as the range. Its
transformers spend the column's share of ``preprocessor_eps`` on it.
smartnoise-synth is not installed here (it pulls a deep-learning stack), so
``smartnoise_approx_bounds`` below re-implements that rule from its
description; the outputs are bin edges, so they are exact for the rule.

Both estimators are epsilon-DP under substitution, PrivateBounds' relation
(``n`` public): epsilon / d per column of a d-column table, which
PrivateBounds splits over its two ends. The histogram's Laplace noise of scale
``1 / epsilon`` is epsilon-DP under addition/removal but ``2 epsilon`` under
substitution (a changed row moves two bins), so the rule runs at
``epsilon / (2 d)`` per column (runs before this note gave it ``epsilon / d``). Reported per setting, over ``TRIALS`` runs:
median and 90th percentile of the estimated ends, the share of rows outside
the box (clipped by the estimator that uses it) and the box width over the
data's range (1 = the exact range, which no private method can publish).
A table PrivateBounds refuses at epsilon 1 is also run at the epsilon its
refusal names; ``published_bounds`` holds the same measures for the box of
the table's DESCR (a data dictionary: no budget), where it has one.

Run: ``python benchmarks/bench_private_bounds.py`` (about a minute); writes
``benchmarks/results/private_bounds.json``.
"""

import json
import re
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris, load_wine

from sksmooth.datasets import published_bounds
from sksmooth.preprocessing import PrivateBounds

TRIALS = 50
RESULTS = Path(__file__).parent / "results" / "private_bounds.json"


def smartnoise_approx_bounds(values, epsilon, rng):
    """smartnoise-synth's approx_bounds rule (re-implemented; see module docstring)."""
    sides = 2.0 ** np.arange(32)
    edges = np.concatenate([-sides[::-1], [0.0], sides])
    inside = values[(values >= edges[0]) & (values < edges[-1])]
    counts = np.histogram(inside, bins=edges)[0]
    noisy = counts + rng.laplace(0.0, 1.0 / epsilon, size=len(counts))
    n_bins = len(counts)
    failure = 1e-8
    while failure <= 1.0 / (2 * n_bins):
        threshold = -np.log(2 - 2 * (1 - failure) ** (1 / (n_bins - 1))) / epsilon
        passed = np.flatnonzero(noisy > threshold)
        if passed.size:
            return edges[passed.min()], edges[passed.max() + 1]
        failure *= 10
    return np.nan, np.nan


def private_bounds(X, epsilon):
    """The box and the DefaultsWarning's message, if any (decided from public n, d, epsilon)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        box = PrivateBounds(epsilon=epsilon).fit(X)
    return box.bounds_, next((str(w.message) for w in caught), None)


def summarise(X, lowers, uppers):
    lowers, uppers = np.asarray(lowers), np.asarray(uppers)  # (trials, d)
    span = X.max(axis=0) - X.min(axis=0)
    failed = ~(np.isfinite(lowers) & np.isfinite(uppers))
    lo, hi = np.where(failed, -np.inf, lowers), np.where(failed, np.inf, uppers)
    outside = np.mean([np.mean((X < lo[t]) | (X > hi[t])) for t in range(len(lo))])
    width = np.where(failed, np.nan, (uppers - lowers) / np.where(span > 0, span, 1.0))
    return {
        "lower_median": np.nanmedian(lowers, axis=0).round(4).tolist(),
        "upper_median": np.nanmedian(uppers, axis=0).round(4).tolist(),
        "upper_p90": np.nanpercentile(uppers, 90, axis=0).round(4).tolist(),
        "share_of_cells_outside_the_box": round(float(outside), 4),
        "width_over_range_median": round(float(np.nanmedian(width)), 3),
        "width_over_range_p90": round(float(np.nanpercentile(width, 90)), 3),
        "failed_runs": int(failed.any(axis=1).sum()),
    }


def compare(X, epsilon, rng):
    d = X.shape[1]
    theirs = [list(zip(*(smartnoise_approx_bounds(X[:, j], epsilon / (2 * d), rng)
                         for j in range(d)))) for _ in range(TRIALS)]
    try:
        ours = [private_bounds(X, epsilon) for _ in range(TRIALS)]
    except ValueError as refusal:  # too little budget per end, decided from n, d, epsilon
        ours = {"refused": str(refusal)}
    if not isinstance(ours, dict):
        ours = {**summarise(X, [o[0][0] for o in ours], [o[0][1] for o in ours]),
                "warning": ours[0][1]}
    return {
        "PrivateBounds": ours,
        "smartnoise_approx_bounds": summarise(X, [t[0] for t in theirs],
                                              [t[1] for t in theirs]),
    }


def main():
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    out = {"trials": TRIALS, "age_column_17.5_to_42": [], "sklearn_tables": []}
    for n in (500, 2000, 10000):
        ages = rng.uniform(17.5, 42.0, size=(n, 1))
        for epsilon in (0.1, 0.5, 1.0):
            row = {"n": n, "epsilon": epsilon, **compare(ages, epsilon, rng)}
            out["age_column_17.5_to_42"].append(row)
            print(f"ages n={n} eps={epsilon}: PrivateBounds upper median "
                  f"{row['PrivateBounds'].get('upper_median', ['refused'])[0]}, smartnoise "
                  f"{row['smartnoise_approx_bounds']['upper_median'][0]}")
    tables = {"breast_cancer": load_breast_cancer, "wine": load_wine, "iris": load_iris,
              "diabetes": lambda: load_diabetes(scaled=False)}
    out["published_bounds"] = {}
    for name, load in tables.items():
        data = load()
        X = data.data
        if "Summary Statistics" in data.DESCR:  # the practitioner's box: a data dictionary
            lower, upper = published_bounds(data.DESCR)
            out["published_bounds"][name] = {
                k: v for k, v in summarise(X, [lower], [upper]).items() if "_p90" not in k
                and k not in ("lower_median", "upper_median")}
        epsilons = [1.0, 10.0, 20.0]
        for epsilon in epsilons:
            row = {"table": name, "n": X.shape[0], "d": X.shape[1], "epsilon": epsilon,
                   **compare(X, epsilon, rng)}
            named = re.search(r"epsilon >= ([0-9.]+)", row["PrivateBounds"].get("refused", ""))
            if named:  # also at the epsilon the refusal names
                epsilons.insert(epsilons.index(epsilon) + 1, float(named.group(1)))
            for method in ("PrivateBounds", "smartnoise_approx_bounds"):
                for key in ("lower_median", "upper_median", "upper_p90"):
                    row[method].pop(key, None)  # per-feature lists: the summary is enough
            out["sklearn_tables"].append(row)
            print(f"{name} eps={epsilon}: outside "
                  f"{row['PrivateBounds'].get('share_of_cells_outside_the_box', 'refused')}"
                  f" vs {row['smartnoise_approx_bounds']['share_of_cells_outside_the_box']}, "
                  f"width {row['PrivateBounds'].get('width_over_range_median', 'refused')} vs "
                  f"{row['smartnoise_approx_bounds']['width_over_range_median']}")
    out["seconds"] = round(time.perf_counter() - start, 1)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=1))
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()

"""diffprivlib baselines for bench_perturbed_erm.py (run in its own environment).

diffprivlib needs scikit-learn < 1.6, so it cannot share a process with
sksmooth. Run with e.g. ``/work/venv-dpl/bin/python
benchmarks/_diffprivlib_perturbed_erm.py [--quick]``; it writes
``benchmarks/results/diffprivlib_perturbed_erm.json``, which the main
benchmark loads. Same datasets, public bounds, splits (seeds) and epsilons as
the main benchmark (the data loading below mirrors ``load_dataset`` there).
"""

import argparse
import json
import re
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.model_selection import train_test_split


def published_bounds(descr):
    rows = re.findall(r"^[a-z][^:\n]*:\s+(-?[\d.]+)\s+(-?[\d.]+)\s*$", descr, flags=re.M)
    bounds = np.array(rows, dtype=float)
    return bounds[:, 0], bounds[:, 1]


def load_dataset(name):
    if name == "breast_cancer":
        data = load_breast_cancer()
        lower, upper = published_bounds(data.DESCR)
        X, y = data.data, data.target
    else:
        data = load_digits()
        lower, upper = np.zeros(64), np.full(64, 16.0)
        X, y = data.data, (data.target >= 5).astype(int)
    return np.clip((X - lower) / (upper - lower), 0, 1), y


def main():
    import diffprivlib
    from diffprivlib.models import GaussianNB, LogisticRegression

    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n_seeds = 5 if args.quick else 20
    epsilons = [0.5, 1.0] if args.quick else [0.5, 1.0, 2.0, 5.0]
    datasets = ["breast_cancer"] if args.quick else ["breast_cancer", "digits"]
    results = {}
    for ds in datasets:
        X, y = load_dataset(ds)
        d = X.shape[1]
        res = {"LogisticRegression": {}, "GaussianNB": {}}
        for eps in epsilons:
            acc = {"LogisticRegression": [], "GaussianNB": []}
            for s in range(n_seeds):
                X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=s,
                                                          stratify=y)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    lr = LogisticRegression(epsilon=eps, data_norm=float(np.sqrt(d)),
                                            random_state=s).fit(X_tr, y_tr)
                    nb = GaussianNB(epsilon=eps, bounds=(np.zeros(d), np.ones(d)),
                                    random_state=s).fit(X_tr, y_tr)
                acc["LogisticRegression"].append(lr.score(X_te, y_te))
                acc["GaussianNB"].append(nb.score(X_te, y_te))
            for name, values in acc.items():
                res[name][str(eps)] = [float(np.mean(values)), float(np.std(values))]
                print(f"{ds} {name} eps={eps}: {np.mean(values):.3f}")
        results[ds] = res
    out = Path(__file__).parent / "results" / "diffprivlib_perturbed_erm.json"
    out.parent.mkdir(exist_ok=True)
    import sklearn

    out.write_text(json.dumps({
        "diffprivlib_version": diffprivlib.__version__,
        "sklearn_version": sklearn.__version__,
        "n_seeds": n_seeds,
        "notes": "LogisticRegression(data_norm=sqrt(d)) and GaussianNB(bounds=[0,1]^d, "
                 "classes=[0,1]) on features scaled with public bounds; test split 30%.",
        "results": results,
    }, indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

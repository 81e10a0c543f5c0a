"""Accuracy vs epsilon of PerturbedERMClassifier on breast cancer.

Gaussian-perturbed ERM (Block and Shetty, arXiv:2502.10292, Alg. 2) with three
oracles: the exact stump oracle (privacy certified) and two heuristic
oracles (LogisticRegression, a depth-3 decision tree: calibrated as if the
class were all labelings of the separating points; no differential-privacy
guarantee, fitted with allow_non_private=True), next to
the same oracles trained without privacy.

Features are scaled to [0, 1] with *public* bounds: the min/max table
published in the dataset's documentation (``load_breast_cancer().DESCR``),
not computed by this script from the private rows.

Run: ``python examples/plot_perturbed_erm_accuracy.py [output.png]``
"""

import sys
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

from sksmooth.datasets import load_breast_cancer_public  # noqa: E402
from sksmooth.exceptions import PrivacyWarning  # noqa: E402
from sksmooth.perturbed import PerturbedERMClassifier, StumpERMClassifier  # noqa: E402


def main(out=None):
    X, y, _ = load_breast_cancer_public()  # scaled to [0, 1] by the published box
    epsilons = [0.1, 0.25, 0.5, 1.0, 2.0]
    seeds = range(10)
    oracles = {
        "exact stumps (certified)": StumpERMClassifier(n_thresholds=8),
        "LogisticRegression (not private)": LogisticRegression(max_iter=1000),
        "decision tree, depth 3 (not private)": DecisionTreeClassifier(max_depth=3),
    }
    results = {name: np.zeros((len(seeds), len(epsilons))) for name in oracles}
    baselines = {name: [] for name in oracles}
    majorities = []
    for s in seeds:
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=s,
                                                  stratify=y)
        majorities.append(max(np.mean(y_te), 1 - np.mean(y_te)))
        for name, oracle in oracles.items():
            fitted = oracle.fit(X_tr, y_tr)
            baselines[name].append(fitted.score(X_te, y_te))
            for j, eps in enumerate(epsilons):
                sp = "oracle" if isinstance(oracle, StumpERMClassifier) else "uniform"
                clf = PerturbedERMClassifier(oracle, epsilon=eps, bounds=(0, 1), classes=[0, 1],
                                             separating_points=sp,  # fresh noise
                                             allow_non_private=sp == "uniform")
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", PrivacyWarning)
                    warnings.simplefilter("ignore", UserWarning)
                    clf.fit(X_tr, y_tr)
                results[name][s, j] = clf.score(X_te, y_te)

    fig, ax = plt.subplots(figsize=(10, 4.5))
    colors = ["C0", "C1", "C2"]
    for color, name in zip(colors, oracles):
        mean, std = results[name].mean(0), results[name].std(0)
        ax.errorbar(epsilons, mean, yerr=std, marker="o", color=color, capsize=3,
                    label=f"private: {name}")
        ax.axhline(np.mean(baselines[name]), color=color, ls="--", lw=1,
                   label=f"non-private {name.split(' (')[0]}")
    majority = np.mean(majorities)
    ax.axhline(majority, color="gray", ls=":", label="majority class")
    ax.axvline(1.0, color="k", lw=0.5)
    ax.text(1.05, 0.7, "Lemma 2 certifies eps <= 1;\nlarger eps uses eps=1 noise",
            fontsize=7)
    ax.set_xscale("log")
    ax.set_xlabel("epsilon (delta = 1e-5)")
    ax.set_ylabel("test accuracy (10 splits)")
    ax.set_ylim(0.35, 1.0)
    ax.set_title("PerturbedERMClassifier on breast cancer (n_train = 398)")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    out = Path(out) if out else Path(__file__).parent / "_output" / "perturbed_erm_accuracy.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    print(f"saved {out}")
    for name in oracles:
        row = " ".join(f"{v:.3f}" for v in results[name].mean(0))
        print(f"{name:40s} eps={epsilons}: {row} | non-private {np.mean(baselines[name]):.3f}"
              f" | majority class {majority:.3f}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)

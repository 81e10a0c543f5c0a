"""Private proper learning on breast cancer: accuracy vs epsilon.

``PrivateProperClassifier(method='exponential')`` releases one decision stump
of a data-independent grid cover (Ghazi, Golowich, Kumar, Manurangsi, STOC 2021, Lemma 6.3), chosen by the
exponential mechanism with score -(#errors). We compare it with the best
non-private stump and ``PerturbedERMClassifier`` (Block and Shetty, arXiv:2502.10292) wrapping the
exact stump ERM oracle, when available. Features are scaled with the
*published* bounds of the dataset (``sksmooth.datasets``), so the box is public.

Usage::

    python examples/plot_private_proper_accuracy.py [output.png]
"""

import sys
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

from sksmooth.classes import Stumps  # noqa: E402
from sksmooth.datasets import load_breast_cancer_public  # noqa: E402
from sksmooth.proper import PrivateProperClassifier  # noqa: E402

EPSILONS = [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]
N_SEEDS = 20


def main(out):
    X, y, _ = load_breast_cancer_public()  # scaled to [0, 1]^30 by published bounds
    bounds = (np.zeros(X.shape[1]), np.ones(X.shape[1]))
    cover = Stumps().cover(bounds=bounds, gamma=1 / 128)  # data independent: build once
    splits = [np.random.RandomState(s).permutation(len(X)) for s in range(N_SEEDS)]
    n_test = len(X) // 4

    def run(make):
        acc = []
        for seed, perm in enumerate(splits):
            te, tr = perm[:n_test], perm[n_test:]
            acc.append(make(seed).fit(X[tr], y[tr]).score(X[te], y[te]))
        return np.mean(acc), np.std(acc)

    curves = {"PrivateProperClassifier (stumps, exponential)": [
        run(lambda s, e=eps: PrivateProperClassifier(
            hypotheses=cover, epsilon=e, bounds=bounds, classes=[0, 1]))  # fresh noise
        for eps in EPSILONS
    ]}
    try:
        from sksmooth.perturbed import PerturbedERMClassifier, StumpERMClassifier
    except ImportError:
        PerturbedERMClassifier = None
        print("PerturbedERMClassifier not available: skipped")
    if PerturbedERMClassifier is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            curves["PerturbedERMClassifier (exact stump oracle, delta=1e-5)"] = [
                run(lambda s, e=eps: PerturbedERMClassifier(
                    StumpERMClassifier(n_thresholds=8), epsilon=e, delta=1e-5,
                    bounds=bounds, classes=[0, 1], separating_points="oracle"))
                for eps in EPSILONS
            ]
    stump = run(lambda s: DecisionTreeClassifier(max_depth=1, random_state=s))

    fig, ax = plt.subplots(figsize=(6, 4))
    for label, values in curves.items():
        mean, std = np.array(values).T
        ax.errorbar(EPSILONS, mean, yerr=std, marker="o", capsize=3, label=label)
        print(label, " ".join(f"eps={e:g}:{m:.3f}" for e, m in zip(EPSILONS, mean)))
    ax.axhline(stump[0], color="k", ls="--", label=f"non-private stump ({stump[0]:.3f})")
    majority = np.mean([max(np.mean(y[p[:n_test]]), 1 - np.mean(y[p[:n_test]])) for p in splits])
    ax.axhline(majority, color="gray", ls=":", label=f"majority class ({majority:.3f})")
    print(f"majority class {majority:.3f}, non-private stump {stump[0]:.3f}")
    ax.set_xscale("log")
    ax.set_xlabel("epsilon (per release)")
    ax.set_ylabel(f"test accuracy (mean ± sd, {N_SEEDS} splits)")
    ax.set_title("Breast cancer: private proper learning with decision stumps")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    print("saved", out)


if __name__ == "__main__":
    default = Path(__file__).resolve().parent / "_output" / "private_proper_accuracy.png"
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else default)

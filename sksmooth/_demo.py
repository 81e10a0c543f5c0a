"""Sections of ``sksmooth demo``: one function per estimator.

Each section is a generator ``section(out_dir, fast, progress)`` yielding the
report lines; figures are written to ``out_dir`` when matplotlib is
installed. Data are bundled (scikit-learn) or generated; nothing is
downloaded.
"""

import warnings

import numpy as np
from sklearn.model_selection import train_test_split

from .accounting import BudgetAccountant
from .datasets import load_breast_cancer_public
from .exceptions import PrivacyWarning
from .metrics._audit_suite import audit_cases


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def _save(fig, out_dir, name):
    path = out_dir / name
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return f"figure: {path}"


def _mechanisms(out_dir, fast, progress):
    acc = BudgetAccountant(epsilon=10.0)
    from .mechanisms import laplace_mechanism

    rng = np.random.default_rng(0)
    true = 42.0
    noisy = laplace_mechanism(true, 1.0, 1.0, rng)
    acc.spend(1.0, 0.0, label="laplace count")
    yield f"Laplace count: true {true:.0f}, released {noisy:.2f} (eps=1)"
    case = audit_cases()[0]
    result = case.run(case.n_trials // (20 if fast else 1), 0)
    yield (
        f"audit of the Laplace mechanism: eps lower bound {result.epsilon_lower:.3f} "
        f"<= claimed {case.epsilon}"
    )
    yield f"ledger: {acc}"


def _perturbed_erm(out_dir, fast, progress):
    from sklearn.linear_model import LogisticRegression

    from .perturbed import PerturbedERMClassifier, StumpERMClassifier

    X, y, bounds = load_breast_cancer_public()
    acc = BudgetAccountant()
    seeds = range(3 if fast else 10)
    oracles = {
        "exact stumps": (StumpERMClassifier(n_thresholds=8), "oracle"),
        "LogisticRegression": (LogisticRegression(max_iter=1000), "uniform"),
    }
    rows = {}
    for name, (oracle, points) in oracles.items():
        progress(f"PerturbedERMClassifier with {name}")
        private, plain, certified = [], [], None
        for seed in seeds:
            X_tr, X_te, y_tr, y_te = train_test_split(
                X, y, test_size=0.3, random_state=seed, stratify=y
            )
            clf = PerturbedERMClassifier(
                oracle, epsilon=1.0, delta=1e-5, bounds=bounds, classes=[0, 1],
                separating_points=points, accountant=acc, random_state=seed,
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PrivacyWarning)
                clf.fit(X_tr, y_tr)
            private.append(clf.score(X_te, y_te))
            plain.append(oracle.fit(X_tr, y_tr).score(X_te, y_te))
            certified = clf.guarantee_.certified
        rows[name] = (np.mean(private), np.mean(plain))
        yield (
            f"breast cancer, {name:<18} eps=1: accuracy {np.mean(private):.3f} "
            f"(non-private {np.mean(plain):.3f}); privacy "
            f"{'CERTIFIED' if certified else 'NOT certified (heuristic oracle)'}"
        )
    yield f"ledger: {len(acc)} fits, total spent {acc.spent}"
    plt = _pyplot()
    if plt is not None:
        fig, ax = plt.subplots(figsize=(6, 3))
        names = list(rows)
        ax.bar(np.arange(len(names)) - 0.2, [rows[n][0] for n in names], 0.4, label="private, eps=1")
        ax.bar(np.arange(len(names)) + 0.2, [rows[n][1] for n in names], 0.4, label="non-private")
        ax.set_xticks(np.arange(len(names)), names)
        ax.set_ylabel("test accuracy")
        ax.set_ylim(0.4, 1.0)
        ax.set_title("PerturbedERMClassifier, breast cancer")
        ax.legend()
        yield _save(fig, out_dir, "perturbed_erm.png")


SECTIONS = [
    ("privacy primitives", _mechanisms),
    ("PerturbedERMClassifier (seed 004, Alg. 2)", _perturbed_erm),
]

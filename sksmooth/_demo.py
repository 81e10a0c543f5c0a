"""Sections of ``sksmooth demo``: one function per estimator.

Each section is a generator ``section(out_dir, fast, progress)`` yielding the
report lines; figures are written to ``out_dir`` when matplotlib is
installed (otherwise each section says its figure was skipped). Data are
bundled (scikit-learn) or generated; nothing is downloaded.

Private fits are never seeded here: their noise comes from fresh OS entropy,
so their guarantees are certified and the numbers vary a little from run to
run. Only public choices (train/test splits, generated streams) are seeded.
Every accuracy is printed next to the majority-class rate of the same test
split, so a private model that learned nothing is visible at a glance.
"""

import warnings

import numpy as np
from sklearn.datasets import load_digits, make_moons
from sklearn.linear_model import LogisticRegression, Perceptron
from sklearn.model_selection import train_test_split

from .accounting import BudgetAccountant
from .audits import audit_cases
from .datasets import load_breast_cancer_public
from .exceptions import PrivacyWarning
from .mechanisms import laplace_mechanism
from .metrics import regret
from .model_selection import PrivateSearchCV
from .online import SmoothHedgeClassifier
from .perturbed import PerturbedERMClassifier, StumpERMClassifier
from .proper import PrivateProperClassifier, littlestone_dimension
from .release import MWEM, LaplacePerQuery, ProjectedSmoothMWEM, TableRounds
from .streams import SmoothedThresholdAdversary


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


FIGURE_SKIPPED = "figure skipped: matplotlib is not installed (pip install 'sksmooth[plot]')"


def _majority_rate(y_test):
    """Accuracy of always predicting the most frequent test label."""
    return float(np.max(np.bincount(np.asarray(y_test, dtype=int))) / len(y_test))


def _figure(out_dir, name, draw, **layout):
    """``draw(axes)`` on ``plt.subplots(**layout)``, saved as ``name``; or a line
    saying the figure was skipped."""
    plt = _pyplot()
    if plt is None:
        return FIGURE_SKIPPED
    fig, axes = plt.subplots(**layout)
    draw(axes)
    path = out_dir / name
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return f"figure: {path}"


def _mechanisms(out_dir, fast, progress):
    acc = BudgetAccountant(epsilon=10.0)

    rng = np.random.default_rng()  # fresh noise: this is a release
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
    X, y, bounds = load_breast_cancer_public()
    acc = BudgetAccountant()
    seeds = range(3 if fast else 10)
    oracles = {  # LogisticRegression: no DP guarantee, fitted only with the opt-in
        "exact stumps": (StumpERMClassifier(n_thresholds=8), "oracle"),
        "LogisticRegression": (LogisticRegression(max_iter=1000), "uniform"),
    }
    rows = {}
    for name, (oracle, points) in oracles.items():
        progress(f"PerturbedERMClassifier with {name}")
        private, plain, majority, certified, notes = [], [], [], None, {}
        for seed in seeds:
            X_tr, X_te, y_tr, y_te = train_test_split(
                X, y, test_size=0.3, random_state=seed, stratify=y
            )
            clf = PerturbedERMClassifier(
                oracle, epsilon=1.0, delta=1e-5, bounds=bounds, classes=[0, 1],
                separating_points=points, accountant=acc,
                allow_non_private=not isinstance(oracle, StumpERMClassifier),
            )
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                warnings.simplefilter("ignore", PrivacyWarning)
                clf.fit(X_tr, y_tr)
            notes.update(dict.fromkeys(str(w.message) for w in caught))  # once, in order
            private.append(clf.score(X_te, y_te))
            plain.append(oracle.fit(X_tr, y_tr).score(X_te, y_te))
            majority.append(_majority_rate(y_te))
            certified = clf.guarantee_.certified
        rows[name] = (np.mean(private), np.mean(plain))
        yield (
            f"breast cancer, {name:<18} eps=1: accuracy {np.mean(private):.3f} "
            f"(non-private {np.mean(plain):.3f}, majority class {np.mean(majority):.3f}); privacy "
            f"{'CERTIFIED' if certified else 'NONE (heuristic oracle, allow_non_private=True)'}"
        )
        for note in notes:  # the same warning from every split, shown once
            yield f"  warning: {note}"
    yield f"ledger: {len(acc)} fits, total spent {acc.spent}"

    def draw(ax):
        names = list(rows)
        ax.bar(np.arange(len(names)) - 0.2, [rows[n][0] for n in names], 0.4, label="private, eps=1")
        ax.bar(np.arange(len(names)) + 0.2, [rows[n][1] for n in names], 0.4, label="non-private")
        ax.set_xticks(np.arange(len(names)), names)
        ax.set_ylabel("test accuracy")
        ax.set_ylim(0.4, 1.0)
        ax.set_title("PerturbedERMClassifier, breast cancer")
        ax.legend()
    yield _figure(out_dir, "perturbed_erm.png", draw, figsize=(6, 3))


def _smooth_hedge(out_dir, fast, progress):
    sigma, n_rounds = 0.01, (2000 if fast else 10000)
    results = {}
    for name, make in [
        ("SmoothHedgeClassifier", lambda: SmoothHedgeClassifier(
            sigma=sigma, horizon=n_rounds, bounds=(0.0, 1.0))),
        ("Perceptron", lambda: Perceptron(random_state=0)),
    ]:
        progress(f"{name} against the adaptive sigma={sigma} threshold adversary, T={n_rounds}")
        learner = make()
        stream = SmoothedThresholdAdversary(sigma=sigma, random_state=0)
        record = stream.play(learner, n_rounds, batch_size=10)
        mistakes = int(np.sum(record.y_pred != record.y))
        if name == "SmoothHedgeClassifier":
            value = regret(record.y, None, record.X, "thresholds",
                           learner_loss=learner.cumulative_loss_)
            bound = learner.regret_bound_
        else:
            value = regret(record.y, record.y_pred, record.X, "thresholds")
            bound = None
        results[name] = (record, mistakes, value)
        line = f"{name:<22} vote mistakes {mistakes:>6d}  regret {value:8.1f}"
        if bound is not None:
            line += (f" (of the randomized learner; Thm 3.3 bound {bound:.1f}, "
                     "valid if the data are sigma-smooth)")
        yield line

    def draw(ax):
        for name, (record, _, _) in results.items():
            ax.plot(np.cumsum(record.y_pred != record.y), label=name)
        ax.set_xlabel("round")
        ax.set_ylabel("cumulative mistakes")
        ax.set_title(f"adaptive sigma={sigma}-smooth threshold adversary")
        ax.legend()
    yield _figure(out_dir, "smooth_hedge.png", draw, figsize=(6, 3))


def _private_proper(out_dir, fast, progress):
    X, y, bounds = load_breast_cancer_public()
    acc = BudgetAccountant()
    epsilons = [0.25, 1.0] if fast else [0.1, 0.25, 0.5, 1.0, 2.0]
    seeds = range(3 if fast else 10)
    means = []
    plain = []
    majority = []
    for eps in epsilons:
        progress(f"PrivateProperClassifier(stumps, 'exponential'), eps={eps}")
        scores = []
        for seed in seeds:
            X_tr, X_te, y_tr, y_te = train_test_split(
                X, y, test_size=0.3, random_state=seed, stratify=y
            )
            clf = PrivateProperClassifier(
                hypotheses="stumps", epsilon=eps, bounds=bounds, classes=[0, 1],
                accountant=acc,
            ).fit(X_tr, y_tr)
            scores.append(clf.score(X_te, y_te))
            if eps == epsilons[0]:
                majority.append(_majority_rate(y_te))
                plain.append(StumpERMClassifier(n_thresholds=128).fit(X_tr, y_tr).score(X_te, y_te))
        means.append(np.mean(scores))
        yield (f"breast cancer, stumps, eps={eps:<5}: accuracy {np.mean(scores):.3f} "
               f"(non-private best stump {np.mean(plain):.3f}, majority class "
               f"{np.mean(majority):.3f})")
    yield f"released hypothesis (last fit): {clf.hypothesis_.description}"
    yield f"guarantee: {clf.guarantee_.claim} [{'CERTIFIED' if clf.guarantee_.certified else 'NOT certified'}]"
    yield f"ledger: {len(acc)} fits, total spent {acc.spent}"
    progress("PrivateSearchCV over epsilon in {0.5, 1.0}, 3 folds")
    search_ledger = BudgetAccountant()
    search = PrivateSearchCV(
        PrivateProperClassifier(hypotheses="stumps", bounds=bounds, classes=[0, 1]),
        {"epsilon": [0.5, 1.0]}, epsilon_selection=0.5, cv=3, accountant=search_ledger,
    ).fit(X_tr, y_tr)
    yield (f"PrivateSearchCV: selected {search.best_params_}, test accuracy "
           f"{search.score(X_te, y_te):.3f}; whole search {search.privacy_spent_} "
           f"(no held-out score released)")
    thresholds = np.where(np.arange(17)[:, None] <= np.arange(16)[None, :], 1, -1)
    yield (f"Littlestone dimension of thresholds on 16 points: "
           f"{littlestone_dimension(thresholds)} (= floor(log2(17)))")

    def draw(ax):
        ax.plot(epsilons, means, "o-", label="PrivateProperClassifier (stumps)")
        ax.axhline(np.mean(plain), ls="--", color="gray", label="non-private best stump")
        ax.set_xscale("log")
        ax.set_xlabel("epsilon")
        ax.set_ylabel("test accuracy")
        ax.set_title("private proper learning, breast cancer")
        ax.legend()
    yield _figure(out_dir, "private_proper.png", draw, figsize=(6, 3))


def _query_release(out_dir, fast, progress):
    # 8 pixels of digits, 4 public levels each on [0, 16]: all 2-way marginals
    pixels = [20, 28, 36, 42, 44, 52, 53, 26]
    X = np.minimum((load_digits().data[:, pixels] / 16.0 * 4).astype(int), 3).astype(float)
    common = dict(levels=int, bounds=(0, 3))
    acc = BudgetAccountant()
    seeds = range(2 if fast else 5)
    errors = {}
    # exact answers of the (data-independent, deterministic) workload, for
    # reporting the error only: the workload and universe of any release
    reference = MWEM(epsilon=1.0, rounds=TableRounds(n_iter=1), **common).fit(X)
    exact = reference.workload_.answers_data(reference._universe.encode(X))
    for name, make in [
        ("MWEM (whole tables)", lambda s: MWEM(
            epsilon=1.0, accountant=acc, **common)),
        ("Laplace per query", lambda s: LaplacePerQuery(
            epsilon=1.0, accountant=acc, **common)),
    ]:
        progress(f"{name}, eps=1, all 2-way marginals of 8 digit pixels")
        values = []
        for seed in seeds:
            est = make(seed).fit(X)
            values.append(np.max(np.abs(est.answer() - exact)))
        errors[name] = np.mean(values)
        yield f"{name:<27} max workload error {errors[name]:.4f} ({est.privacy_spent_})"
    yield f"ledger: {len(acc)} releases, total spent {acc.spent}"
    progress("synthetic make_moons sample (Projected Smooth MWEM, sigma=0.2)")
    Xm, ym = make_moons(n_samples=2000 if fast else 5000, noise=0.1, random_state=0)
    release = ProjectedSmoothMWEM(epsilon=1.0, sigma=0.2, n_bins=16, jitter=True,
                                  bounds=([-1.5, -1.0], [2.5, 1.5]), classes=[0, 1])
    with warnings.catch_warnings():
        # the accuracy guarantee assumes sigma-smooth data: reported below
        warnings.simplefilter("ignore", PrivacyWarning)
        Xs, ys = release.fit_resample(Xm, ym)
    yield (f"Projected Smooth MWEM on make_moons: {len(Xs)} synthetic rows, "
           f"{release.privacy_spent_}, max cell mass x N = "
           f"{release.distribution_.max() * release.distribution_.size:.2f} (<= 1/sigma = 5)")
    status = "CERTIFIED" if release.guarantee_.certified else "NOT certified"
    yield f"guarantee: {release.guarantee_.claim} [{status}]"
    yield from (f"  {note}" for note in release.guarantee_.notes if note.startswith("accuracy"))

    def draw(axes):
        axes[0].scatter(Xm[:, 0], Xm[:, 1], c=ym, s=3, cmap="coolwarm")
        axes[0].set_title("real")
        axes[1].scatter(Xs[:, 0], Xs[:, 1], c=ys, s=3, cmap="coolwarm")
        axes[1].set_title("synthetic, eps=1, sigma=0.2")
    yield _figure(out_dir, "query_release.png", draw, nrows=1, ncols=2, figsize=(8, 3.2),
                  sharex=True, sharey=True)


SECTIONS = [
    ("privacy primitives", _mechanisms),
    ("SmoothHedgeClassifier (Haghtalab, Roughgarden, Shetty, NeurIPS 2020: "
     "App. C.1 Alg. 1, Thm 3.3)", _smooth_hedge),
    ("PerturbedERMClassifier (Block, Shetty, arXiv:2502.10292: Alg. 2)", _perturbed_erm),
    ("PrivateProperClassifier and PrivateSearchCV (Ghazi, Golowich, Kumar, Manurangsi, "
     "STOC 2021: Lemma 6.3; McKenna, Sheldon, NeurIPS 2020)", _private_proper),
    ("SmoothMWEM query release (Hardt, Ligett, McSherry, NeurIPS 2012; Haghtalab, "
     "Roughgarden, Shetty, NeurIPS 2020: App. E-F)", _query_release),
]

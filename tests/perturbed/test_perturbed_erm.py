"""PerturbedERMClassifier: calibration, certification, privacy audit, online regret."""

import copy
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression, Perceptron
from sklearn.tree import DecisionTreeClassifier

from sksmooth.accounting import BudgetAccountant
from sksmooth.exceptions import BudgetError, PrivacyLeakWarning, PrivacyWarning
from sksmooth.metrics import audit_epsilon
from sksmooth.preprocessing import PublicBoundsScaler
from sksmooth.perturbed._setup import hallucinate
from sksmooth.perturbed import (
    BoxScaledClassifier,
    FiniteClassERMClassifier,
    ParityERMClassifier,
    PerturbedERMClassifier,
    StumpERMClassifier,
    ThresholdERMClassifier,
    finite_class_gaussian_complexity,
    ftpl_noise,
    ftpl_regret_bound,
    lemma1_min_noise,
    perturbation_epsilon,
    perturbation_noise,
)



def audit(mechanism, d0, d1, event, n_trials, seed, delta=1e-5):
    result = audit_epsilon(mechanism, d0, d1, event, n_trials, random_state=seed, delta=delta)
    return result.epsilon_lower


# ---------------------------------------------------------------- helpers
class SpyClassifier(ClassifierMixin, BaseEstimator):
    """Records what the oracle receives; delegates to a decision stump."""

    calls = []

    def fit(self, X, y, sample_weight=None):
        SpyClassifier.calls.append((np.array(X), np.array(y), np.array(sample_weight)))
        self._tree = DecisionTreeClassifier(max_depth=1).fit(X, y, sample_weight=sample_weight)
        self.classes_ = self._tree.classes_
        return self

    def predict(self, X):
        return self._tree.predict(X)


class NoWeightClassifier(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


def two_concept_setup():
    """Domain {0, 1}; f1 = (+1, +1), f2 = (+1, -1): rho = sqrt(2) on the domain."""
    M = np.array([[1, 1], [1, -1]])
    return FiniteClassERMClassifier(M)


def quiet_fit(clf, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        warnings.simplefilter("ignore", PrivacyWarning)
        return clf.fit(X, y)


# ----------------------------------------------------------- calibration
@pytest.mark.parametrize("eta", [0.5, 37.0, 1e4])
@pytest.mark.parametrize("rho", [0.1, 1.0, np.sqrt(2)])
def test_noise_epsilon_round_trip(eta, rho):
    G = finite_class_gaussian_complexity(1000)
    eps = perturbation_epsilon(eta, rho, 1e-6, G)
    assert np.isclose(perturbation_noise(eps, rho, 1e-6, G), eta)
    # the formula itself (Lemma 2, with Lemma 1 run at delta / 2)
    assert np.isclose(eps, 32 / (eta * rho**2) * (G + np.sqrt(2 * np.log(2e6))))
    # condition (6) of Lemma 1 is exactly epsilon <= 1
    assert np.isclose(perturbation_epsilon(lemma1_min_noise(rho, 1e-6, G), rho, 1e-6, G), 1.0)


def test_fit_spends_requested_epsilon_and_round_trips():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(300, 5))
    y = X[:, 1]
    acc = BudgetAccountant(epsilon=10, delta=1e-3)
    clf = quiet_fit(PerturbedERMClassifier(ParityERMClassifier(), epsilon=0.7, delta=1e-6,
                                           separating_points="oracle", classes=[0, 1],
                                           accountant=acc), X, y)
    assert clf.guarantee_.certified
    assert np.isclose(clf.privacy_spent_.epsilon, 0.7)
    assert np.isclose(clf.rho_, np.sqrt(2))
    assert np.isclose(clf.gaussian_complexity_, np.sqrt(2 * np.log(32)))
    eta = perturbation_noise(0.7, np.sqrt(2), 1e-6, clf.gaussian_complexity_)
    assert np.isclose(clf.noise_, eta)
    assert np.isclose(acc.spent.epsilon, 0.7) and np.isclose(acc.spent.delta, 1e-6)
    # user noise: implied epsilon reported and charged
    clf2 = quiet_fit(PerturbedERMClassifier(ParityERMClassifier(), noise=2 * eta, delta=1e-6,
                                            separating_points="oracle", classes=[0, 1],
                                            accountant=acc), X, y)
    assert np.isclose(clf2.privacy_spent_.epsilon, 0.35)
    assert np.isclose(acc.spent.epsilon, 1.05)


def test_epsilon_above_one_is_capped_by_lemma1_and_warns():
    X = np.array([[0], [1], [1]])
    clf = PerturbedERMClassifier(two_concept_setup(), epsilon=5.0, classes=[0, 1],
                                 separating_points="oracle")
    with pytest.warns(PrivacyWarning, match="epsilon=5 > 1"):
        clf.fit(X, [1, 1, 0])
    assert np.isclose(clf.privacy_spent_.epsilon, 1.0)
    assert clf.guarantee_.certified
    assert any("epsilon = 1" in note for note in clf.guarantee_.notes)


def test_under_noise_user_value_not_certified():
    X = np.array([[0], [1], [1]])
    clf = PerturbedERMClassifier(two_concept_setup(), noise=0.01, classes=[0, 1],
                                 separating_points="oracle", random_state=0)
    with pytest.warns(PrivacyWarning, match="condition \\(6\\)"):
        clf.fit(X, [1, 1, 0])
    assert not clf.guarantee_.certified
    assert clf.privacy_spent_.epsilon > 1


# ---------------------------------------------------------- certification
def test_heuristic_oracle_is_refused_unless_allowed_and_then_not_private():
    # LogisticRegression's coef_ lies in the span of the rows: a row is detected
    # with certainty, yet the fit was charged (1, 1e-5) (issue 39)
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(100, 3))
    y = (X[:, 0] > 0.5).astype(int)
    acc = BudgetAccountant(epsilon=2.0, delta=1e-4)
    clf = PerturbedERMClassifier(LogisticRegression(), bounds=(0, 1), classes=[0, 1],
                                 accountant=acc)
    with pytest.raises(ValueError, match=r"LogisticRegression is not an exact 0-1 ERM.*"
                       r"PrivateProperClassifier.*allow_non_private=True"):
        clf.fit(X, y)
    assert not hasattr(clf, "estimator_")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the opt-in is explicit: no warning
        clf.set_params(allow_non_private=True).fit(X, y)
    assert not clf.guarantee_.certified
    assert clf.guarantee_.claim.startswith("no differential-privacy guarantee: "
                                           "LogisticRegression is not an exact")
    assert clf.privacy_spent_.epsilon == np.inf
    assert tuple(acc.spent)[:2] == (0.0, 0.0)  # nothing counted as private
    assert acc.spent.n_not_private == 1
    m = clf.n_hallucinated_
    assert np.isclose(clf.rho_, 2 / np.sqrt(m))
    assert np.isclose(clf.gaussian_complexity_, np.sqrt(2 * m / np.pi))


def test_exact_stump_oracle_is_certified_with_public_bounds():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(200, 2))
    y = (X[:, 0] > 0.5).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)  # no privacy warning at all
        warnings.simplefilter("error", PrivacyLeakWarning)
        clf = PerturbedERMClassifier(StumpERMClassifier(n_thresholds=4), bounds=(0, 1),
                                     classes=[0, 1], separating_points="oracle").fit(X, y)
    assert clf.guarantee_.certified
    assert np.isclose(clf.rho_, 2 / np.sqrt(5))  # Latin design on the grid
    # the clone got the wrapper's public bounds (not the data's box)
    assert np.allclose(clf.estimator_.bounds_[0], 0.0) and np.allclose(clf.estimator_.bounds_[1], 1.0)


def test_data_dependent_choices_warn_and_uncertify():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(50, 2))
    y = (X[:, 0] > 0.5).astype(int)
    with pytest.warns(PrivacyLeakWarning) as record:
        quiet = PerturbedERMClassifier(StumpERMClassifier(n_thresholds=3), bounds="data",
                                       classes="data", random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyWarning)
            quiet.fit(X, y)
    messages = " ".join(str(r.message) for r in record)
    assert "bounds='data'" in messages and "classes='data'" in messages
    problems = " ".join(quiet.guarantee_.assumptions_not_certified)
    assert not quiet.guarantee_.certified
    assert "bounds='data'" in problems and "classes='data'" in problems
    assert quiet.guarantee_.claim.startswith("no differential-privacy guarantee")
    for unset in (dict(bounds=None, classes=[0, 1]), dict(bounds=(0, 1), classes=None)):
        unfitted = PerturbedERMClassifier(StumpERMClassifier(n_thresholds=3), **unset,
                                          random_state=0)
        with pytest.raises(ValueError, match="=None: .*='data'"):
            unfitted.fit(X, y)
        assert not hasattr(unfitted, "guarantee_")


def test_the_exact_threshold_over_the_line_is_refused_by_the_private_fit():
    # its threshold_ is halfway between two private values, published with the
    # separating points: 2 * threshold_ - z gave a private row bit for bit in 13 of 20
    # fits, charged as (1, 1e-5)-DP and flagged only "not certified" (found by a review)
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(40, 1))
    y = (X[:, 0] > 0.5).astype(int)
    ledger = BudgetAccountant()
    clf = PerturbedERMClassifier(ThresholdERMClassifier(), bounds=(0, 1), classes=[0, 1],
                                 accountant=ledger)
    with pytest.raises(ValueError, match=r"n_thresholds=None.*private value.*n_thresholds=16"):
        clf.fit(X, y)
    assert len(ledger) == 0 and not hasattr(clf, "estimator_")
    online = PerturbedERMClassifier(ThresholdERMClassifier(), bounds=(0, 1), classes=[0, 1])
    online.partial_fit(X, y)  # not private: the exact threshold is allowed
    assert online.predict(X).shape == y.shape
    grid = PerturbedERMClassifier(ThresholdERMClassifier(n_thresholds=16), bounds=(0, 1),
                                  classes=[0, 1], accountant=ledger).fit(X, y)
    assert grid.guarantee_.certified and len(ledger) == 1


@pytest.mark.parametrize("oracle", [NoWeightClassifier(), BoxScaledClassifier(NoWeightClassifier())])
def test_estimator_without_sample_weight_is_named(oracle):
    with pytest.raises(TypeError, match="NoWeightClassifier does not accept sample_weight"):
        PerturbedERMClassifier(oracle, bounds=(0, 1), classes=[0, 1]).partial_fit(
            [[0.1], [0.9]], [0, 1])


def test_user_estimator_is_cloned_not_mutated():
    oracle = StumpERMClassifier(n_thresholds=3)
    clf = PerturbedERMClassifier(oracle, bounds=(0, 1), classes=[0, 1], random_state=0)
    clf.fit([[0.1], [0.9]] * 5, [0, 1] * 5)
    assert oracle.bounds is None and not hasattr(oracle, "classes_")
    assert clf.estimator_ is not oracle


def test_budget_error_before_fitting():
    acc = BudgetAccountant(epsilon=0.5, delta=1e-3)
    clf = PerturbedERMClassifier(StumpERMClassifier(3), epsilon=1.0, bounds=(0, 1),
                                 classes=[0, 1], accountant=acc)
    with pytest.raises(BudgetError):
        quiet_fit(clf, [[0.1], [0.9]], [0, 1])
    assert not hasattr(clf, "estimator_")
    assert acc.spent.epsilon == 0
    # refused from its parameters, before the data are read (a 3-D X raised first)
    with pytest.raises(BudgetError):
        quiet_fit(clf, np.zeros((2, 1, 1)), [0, 1])


def test_fit_refused_by_the_ledger_after_a_successful_fit_leaves_no_model(monkeypatch):
    """Charge, then publish: the refused fit must not leave a usable model
    (before the fix the model was stored before the charge, and a refit that
    got BudgetError still answered predict)."""
    import sksmooth.accounting._ledger as ledger
    from sklearn.exceptions import NotFittedError

    X, y = [[0.1], [0.9]] * 5, [0, 1] * 5
    acc = BudgetAccountant(epsilon=1.5, delta=1e-3)
    clf = PerturbedERMClassifier(StumpERMClassifier(3), epsilon=1.0, bounds=(0, 1),
                                 classes=[0, 1], accountant=acc)
    quiet_fit(clf, X, y)
    assert acc.spent.epsilon == 1.0
    # a ledger that refuses only at charge time (e.g. a concurrent spender won
    # the race after the pre-check): the charge is what gates publication
    def refuse(*args, **kwargs):
        raise BudgetError("budget exhausted by a concurrent release")

    monkeypatch.setattr(ledger, "charge", refuse)
    with pytest.raises(BudgetError):
        quiet_fit(clf, X, y)
    for name in ("estimator_", "classes_", "privacy_spent_", "guarantee_", "noise_"):
        assert not hasattr(clf, name)
    with pytest.raises(NotFittedError):
        clf.predict(X)


@pytest.mark.parametrize("case", ["heuristic", "bounds_none", "classes_none", "seeded",
                                  "certified"])
def test_uncertified_fits_are_charged_as_not_certified(monkeypatch, case):
    import sksmooth.accounting._ledger as ledger

    charges = []
    monkeypatch.setattr(ledger, "charge", lambda acc, eps, delta, label, certified=True,
                        neighbouring=None: charges.append(certified))
    monkeypatch.setattr(ledger, "charge_not_private", lambda acc, label, reason:
                        charges.append("not private"))
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(60, 2))
    y = (X[:, 0] > 0.5).astype(int)
    kw = dict(estimator=StumpERMClassifier(3), bounds=(0, 1), classes=[0, 1])
    kw.update({"heuristic": dict(estimator=DecisionTreeClassifier(max_depth=1),
                                 allow_non_private=True),
               "bounds_none": dict(bounds="data"), "classes_none": dict(classes="data"),
               "seeded": dict(random_state=0), "certified": {}}[case])
    clf = quiet_fit(PerturbedERMClassifier(**kw), X, y)
    not_private = case in ("heuristic", "bounds_none", "classes_none")
    assert charges == ["not private" if not_private else case == "certified"]
    assert clf.guarantee_.certified == (case == "certified")
    if case == "seeded":
        assert any("seeded noise" in p for p in clf.guarantee_.assumptions_not_certified)


# ------------------------------------------------------ the perturbation
def test_negative_weights_never_reach_the_oracle():
    SpyClassifier.calls.clear()
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(40, 2))
    y = (X[:, 1] > 0.3).astype(int)
    clf = PerturbedERMClassifier(SpyClassifier(), n_hallucinated=50, bounds=(0, 1),
                                 classes=[0, 1], random_state=3, allow_non_private=True)
    quiet_fit(clf, X, y)
    Z_fit = clf.separating_points_
    for _ in range(3):
        clf.partial_fit(X[:10], y[:10])
    assert len(SpyClassifier.calls) == 5  # fit + first leader + 3 rounds
    for Xs, ys, ws in SpyClassifier.calls:
        assert np.all(ws >= 0) and np.all(np.isfinite(ws))
        assert set(np.unique(ys)) <= {-1, 1}
    Xs, ys, ws = SpyClassifier.calls[0]
    assert len(ws) == 40 + 50 and np.all(ws[:40] == 1)
    assert np.allclose(Xs[40:], Z_fit)
    # hallucination-free variant: labels sign(y - G), weights |y - G| >= 0
    SpyClassifier.calls.clear()
    online = PerturbedERMClassifier(SpyClassifier(), online_perturbation="labels",
                                    bounds=(0, 1), classes=[0, 1], random_state=0)
    for start in range(0, 40, 10):
        online.partial_fit(X[start:start + 10], y[start:start + 10])
    assert [len(ws) for _, _, ws in SpyClassifier.calls] == [10, 20, 30, 40]
    for Xs, ys, ws in SpyClassifier.calls:
        assert np.all(ws >= 0) and set(np.unique(ys)) <= {-1, 1}
    # with some label noise, some labels get flipped (the perturbation is real)
    assert np.any(SpyClassifier.calls[-1][1] != np.where(y == 1, 1, -1))


def test_hallucinated_examples_realise_the_gaussian_perturbation():
    """Weighted hallucinated 0-1 loss = eta * w(f) + constant, for every f."""
    rng_values = np.random.default_rng(5)
    m, K, eta = 12, 30, 7.3
    F_on_Z = rng_values.choice([-1, 1], size=(m, K))
    labels, weights = hallucinate(np.zeros((m, 1)), eta, np.random.default_rng(11))
    xi = np.random.default_rng(11).standard_normal(m)
    halluc_loss = (weights[:, None] * (F_on_Z != labels[:, None])).sum(axis=0)
    w_f = xi @ F_on_Z / np.sqrt(m)
    diff = halluc_loss - eta * w_f
    assert np.all(weights >= 0)
    assert np.allclose(diff, diff[0])


def test_rho_hand_checked_two_concepts():
    clf = PerturbedERMClassifier(two_concept_setup(), classes=[0, 1],
                                 separating_points="oracle")
    quiet_fit(clf, np.array([[0], [1]]), [1, 0])
    assert np.isclose(clf.rho_, np.sqrt(2))  # differ on 1 of 2 points: sqrt(4/2)
    clf.set_params(separating_points=np.array([[0.0], [0.0], [0.0], [1.0]]))
    quiet_fit(clf, np.array([[0], [1]]), [1, 0])
    assert np.isclose(clf.rho_, 1.0)  # differ on 1 of 4 points: sqrt(4/4)
    clf.set_params(separating_points=np.array([[0.0], [0.0]]))
    # the oracle is already exact: the fix is separation, not "use an exact oracle"
    with pytest.raises(ValueError, match=r"not separated by the separating points \(rho = 0;"
                                         r"(?s:.*)Use an oracle whose class the separating"):
        clf.fit(np.array([[0], [1]]), [1, 0])


# ---------------------------------------------------------- privacy audit
def _audit_datasets():
    # f1 = (+1,+1), f2 = (+1,-1) on {0, 1}; errors differ only on point 1.
    # D0: point 1 labelled +1 twice, -1 once -> f1 wins by 1.
    # D1: one row relabelled -> f2 wins by 1 (neighbours under replacement).
    X = np.array([[0], [1], [1], [1]])
    return (X, np.array([1, 1, 1, 0])), (X, np.array([1, 1, 0, 0]))


def _mechanism(noise):
    def run(dataset, rng):
        X, y = dataset
        clf = PerturbedERMClassifier(two_concept_setup(), noise=noise, classes=[0, 1],
                                     separating_points="oracle", random_state=rng)
        return quiet_fit(clf, X, y).estimator_.concept_
    return run


# The two audits below (-m slow) can only catch a gross under-noise: Lemma 1's
# calibration is loose by a factor of 8 and more on every small pair. A calibration
# fault is caught by default in tests/perturbed/test_perturbed_erm_release.py: the
# arithmetic exactly (a 2x error in any constant) and the realised noise scale (half
# the noise caught); the same catalog case runs in `sksmooth audit --fast` (test_cli).
@pytest.mark.slow
def test_privacy_audit_calibrated_fit():
    d0, d1 = _audit_datasets()
    clf = quiet_fit(PerturbedERMClassifier(two_concept_setup(), epsilon=1.0, classes=[0, 1],
                                           separating_points="oracle"), *d0)
    assert clf.guarantee_.certified
    eps_lower = audit(_mechanism(clf.noise_), d0, d1, lambda c: c == 0, 1000, seed=0)
    assert eps_lower <= clf.privacy_spent_.epsilon


@pytest.mark.slow
def test_privacy_audit_catches_under_noised_variant():
    # a calibration bug dividing eta by 1000 while still claiming epsilon = 1
    d0, d1 = _audit_datasets()
    eta = perturbation_noise(1.0, np.sqrt(2), 1e-5, finite_class_gaussian_complexity(2))
    eps_lower = audit(_mechanism(eta / 1000), d0, d1, lambda c: c == 0, 1000, seed=0)
    assert eps_lower > 1.0


# ---------------------------------------------------------------- online
def _smoothed_parity_stream(k, T, target, rng):
    """A sigma-smooth realizable parity stream, sigma = 1/2: in blocks of 50
    rounds x is uniform on the half-cube {x_0 = b} (b alternating), whose
    density is exactly 2 = 1/sigma times the uniform density on {0,1}^k."""
    X = rng.integers(0, 2, size=(T, k))
    X[:, 0] = (np.arange(T) // 50) % 2
    y = np.bitwise_count(X @ (1 << np.arange(k)) & target) % 2
    return X, y


def _paper_thm1_bound(rho, n_functions, T, B, best_loss):
    """Thm 1 recomputed here from Block and Shetty's formulas, not through the
    library: eta from condition (13) (the theorem's eta for L* = 0), and the
    bound as Thm 1 displays it, 16 sqrt(B log(2T|F|) L*)/rho + 64 B
    log(2T|F|)/rho^2, or the proof's (App. C) 2 eta G + B + x (L* + 2 eta G)
    if smaller, G = sqrt(2 ln |F|), the stability factor x the larger of
    (14)'s 64 B/(eta rho^2) sqrt(log(2T|F|)) and Lemma 1's (tau = B, delta =
    1/(2 T |F|)) 32 B/(eta rho^2) (G + sqrt(2 log(2T|F|)))."""
    G = np.sqrt(2 * np.log(n_functions))
    log_2tf = np.log(2 * T * n_functions)
    eta = 64 * B / rho**2 * (G + np.sqrt(log_2tf))
    x = max(64 * B / (eta * rho**2) * np.sqrt(log_2tf),
            32 * B / (eta * rho**2) * (G + np.sqrt(2 * log_2tf)))
    proof = 2 * eta * G + B + x * (best_loss + 2 * eta * G)
    displayed = 16 * np.sqrt(B * log_2tf * best_loss) / rho + 64 * B * log_2tf / rho**2
    return eta, min(displayed, proof)


def test_ftpl_regret_bound_quotes_thm1_as_displayed():
    # parities on 8 bits (|F| = 256, rho = sqrt(2)), B = 1, L* = 0: Thm 1 displays
    # 64 log(2 T |F|) / rho^2 = 376.3 at T = 250; the proof's terms at the same
    # eta gave 2313 (reported before)
    rho, G, log_size = np.sqrt(2), finite_class_gaussian_complexity(256), np.log(256)
    eta = ftpl_noise(rho, G, log_size, 250)
    assert np.isclose(ftpl_regret_bound(eta, rho, G, log_size, 250),
                      32 * np.log(2 * 250 * 256), rtol=1e-12)
    # at any other eta, the proof's form: 2313 just above the theorem's eta
    assert np.isclose(ftpl_regret_bound(eta * (1 + 1e-6), rho, G, log_size, 250), 2313, rtol=1e-3)
    # non-vacuous (below T B) from a horizon of a few hundred
    assert ftpl_regret_bound(ftpl_noise(rho, G, log_size, 1000), rho, G, log_size, 1000) < 1000


def test_ftpl_theory_noise_and_bound_equal_thm1_on_a_smooth_stream():
    """noise='theory' plays Thm 1's eta and reports Thm 1's bound, recomputed
    here from the paper's formula; the measured regret stays under it. A 2x
    error in any constant (64, 32, the 2 eta G terms) breaks the rtol=1e-9
    equalities."""
    k, T = 4, 2000
    rng = np.random.default_rng(0)
    X, y = _smoothed_parity_stream(k, T, target=0b0110, rng=rng)
    clf = PerturbedERMClassifier(ParityERMClassifier(), noise="theory", classes=[0, 1],
                                 horizon=T)
    for t in range(T):
        clf.partial_fit(X[t:t + 1], y[t:t + 1])
    eta, bound = _paper_thm1_bound(np.sqrt(2), 2**k, T, B=1, best_loss=0.0)
    assert np.isclose(clf.rho_, np.sqrt(2))  # parities on the whole cube
    assert np.isclose(clf.noise_, eta, rtol=1e-9)
    assert np.isclose(clf.regret_bound_, bound, rtol=1e-9)
    assert clf.guarantee_.certified and not clf.regret_report_.vacuous
    assert bound < T  # non-vacuous at this horizon, so the check below has teeth
    # L* = 0: regret = the learner's mistakes. Thm 1 bounds their *expectation*:
    # over 10 runs 318 +- 17 against the bound 354, so one run exceeded it in ~2%
    # of runs; one run is held to 1.2x the bound (6 sd above the mean; chance ~1000)
    assert clf.cumulative_loss_ <= 1.2 * bound


def test_regret_bound_is_finite_and_says_when_it_stops_being_vacuous():
    rng = np.random.default_rng(1)
    X, y = _smoothed_parity_stream(4, 40, target=0b0110, rng=rng)
    clf = PerturbedERMClassifier(ParityERMClassifier(), noise="theory", classes=[0, 1],
                                 horizon=40)
    for t in range(40):
        clf.partial_fit(X[t:t + 1], y[t:t + 1])
    report = clf.regret_report_
    assert np.isfinite(clf.regret_bound_) and report.vacuous  # > T B = 40
    T0 = report.non_vacuous_from
    assert _paper_thm1_bound(np.sqrt(2), 16, T0, 1, 0.0)[1] <= T0
    assert _paper_thm1_bound(np.sqrt(2), 16, T0 - 1, 1, 0.0)[1] > T0 - 1
    assert not clf.guarantee_.certified and "non-vacuous from" in str(report)


def test_default_ftpl_learns_a_realizable_smooth_stream():
    """Default FTPL on the realizable sigma = 1/2 parity stream makes at most
    the mistakes of Hedge's realizable bound with learning rate 1,
    ln|F| / (1 - 1/e) ~ 4.4, times 3 (FTPL's adaptive rate starts near 1/
    sqrt(ln|F|) and slows down); a learner at chance makes ~T/2 = 500."""
    k, T = 4, 1000
    mistakes = []
    for seed in range(3):
        X, y = _smoothed_parity_stream(k, T, 0b0110, np.random.default_rng(seed))
        clf = PerturbedERMClassifier(ParityERMClassifier(), classes=[0, 1])
        for t in range(T):
            clf.partial_fit(X[t:t + 1], y[t:t + 1])
        mistakes.append(clf.cumulative_loss_)
    hedge = np.log(2**k) / (1 - np.exp(-1))
    assert np.mean(mistakes) <= 3 * hedge
    assert np.isnan(clf.regret_bound_) and "fixed eta" in clf.regret_report_.reason


def test_default_ftpl_learns_the_noisy_threshold_stream_of_issue_16():
    """The issue's stream: y = [x0 > 0.37] with 5% label noise, batches of
    10. Before: 1452 / 3000 mistakes (random). The label-noise floor is
    ~150; SmoothHedge made 166; the target is within 1.5x of it."""
    rng = np.random.default_rng(0)
    T = 3000
    X = rng.uniform(size=(T, 3))
    y = (X[:, 0] > 0.37).astype(int) ^ (rng.random(T) < 0.05)
    clf = PerturbedERMClassifier(bounds=(0, 1), classes=[0, 1])
    for start in range(0, T, 10):
        clf.partial_fit(X[start:start + 10], y[start:start + 10])
    assert clf.cumulative_loss_ <= 1.5 * 166


def test_hallucination_free_variant_learns():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(600, 2))
    y = (X[:, 0] > 0.4).astype(int)
    clf = PerturbedERMClassifier(StumpERMClassifier(n_thresholds=9), bounds=(0, 1),
                                 online_perturbation="labels", classes=[0, 1], random_state=0)
    for start in range(0, 600, 20):
        clf.partial_fit(X[start:start + 20], y[start:start + 20])
    assert clf.n_rounds_ == 30
    assert clf.cumulative_loss_ < 0.15 * 600
    assert clf.score(X, y) > 0.95
    assert np.isnan(clf.regret_bound()) and "no regret theorem" in clf.regret_report_.reason


def test_partial_fit_refuses_an_accountant_and_warns_on_epsilon():
    X, y = np.array([[0.1], [0.9]]), np.array([0, 1])
    with pytest.raises(ValueError, match="not differentially private"):
        PerturbedERMClassifier(bounds=(0, 1), accountant=BudgetAccountant()).partial_fit(
            X, y, classes=[0, 1])
    with pytest.warns(PrivacyLeakWarning, match="not differentially private"):
        PerturbedERMClassifier(bounds=(0, 1), epsilon=0.5).partial_fit(X, y, classes=[0, 1])


def test_failed_partial_fit_leaves_state_unchanged():
    import pickle

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(30, 2))
    y = (X[:, 0] > 0.5).astype(int)
    clf = PerturbedERMClassifier(StumpERMClassifier(4), bounds=(0, 1), random_state=0)
    clf.partial_fit(X[:10], y[:10], classes=[0, 1])
    before = pickle.dumps(clf)
    pred = clf.predict(X)
    bad_inputs = [
        (X[:5, :1], y[:5]),                       # wrong n_features
        (X[:5], np.array([0, 1, 2, 0, 1])),       # unknown label
        (np.r_[X[:4], [[np.nan, 0.1]]], y[:5]),   # NaN
    ]
    for Xb, yb in bad_inputs:
        with pytest.raises(ValueError):
            clf.partial_fit(Xb, yb)
        assert pickle.dumps(clf) == before
        assert np.array_equal(clf.predict(X), pred)
    with pytest.raises(ValueError, match="differs from classes_"):
        clf.partial_fit(X[:5], y[:5], classes=[0, 2])
    clf.partial_fit(X[10:], y[10:])
    assert clf.n_rounds_ == 2


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(epsilon=0), "epsilon"),
        (dict(epsilon=-1.0), "epsilon"),
        (dict(delta=0.0), "delta"),
        (dict(delta=1.5), "delta"),
        (dict(noise="big"), "noise"),
        (dict(noise=-2.0), "noise"),
        (dict(n_hallucinated=0), "n_hallucinated"),
        (dict(separating_points="grid"), "separating_points"),
        (dict(separating_points=np.zeros((3, 5))), "separating_points"),
        (dict(bounds=(1, 0)), "bounds"),
        (dict(estimator=Perceptron(), separating_points="oracle"), "exact oracle"),
    ],
)
def test_bad_parameters(params, match):
    clf = PerturbedERMClassifier(**{"classes": [0, 1], "bounds": (0, 1), **params})
    with pytest.raises((ValueError, TypeError), match=match):
        quiet_fit(clf, np.array([[0.1, 0.2], [0.8, 0.9]]), [0, 1])


def test_reproducible_with_random_state():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(80, 3))
    y = (X[:, 2] > 0.5).astype(int)
    make = lambda: PerturbedERMClassifier(StumpERMClassifier(5), bounds=(0, 1), classes=[0, 1],
                                          random_state=42)
    a, b = make().fit(X, y), make().fit(X, y)
    assert np.array_equal(a.predict(X), b.predict(X))
    assert np.array_equal(a.separating_points_, b.separating_points_)


def test_pickle_round_trip_keeps_predictions_and_partial_fit():
    import pickle

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(60, 2))
    y = (X[:, 0] > 0.5).astype(int)
    clf = PerturbedERMClassifier(StumpERMClassifier(4), bounds=(0, 1), classes=[0, 1],
                                 random_state=0)
    clf.partial_fit(X[:30], y[:30])
    copy = pickle.loads(pickle.dumps(clf))
    assert np.array_equal(copy.predict(X), clf.predict(X))
    clf.partial_fit(X[30:], y[30:])
    copy.partial_fit(X[30:], y[30:])
    assert np.array_equal(copy.predict(X), clf.predict(X))
    assert copy.cumulative_loss_ == clf.cumulative_loss_


def test_grid_search_records_every_fit_in_the_shared_ledger():
    from sklearn.model_selection import GridSearchCV

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(90, 2))
    y = (X[:, 0] > 0.5).astype(int)
    acc = BudgetAccountant()
    search = GridSearchCV(
        PerturbedERMClassifier(StumpERMClassifier(4), bounds=(0, 1), classes=[0, 1],
                               accountant=acc, random_state=0),
        {"epsilon": [0.5, 1.0]}, cv=3,
    ).fit(X, y)
    # 2 x 3 CV fits + 1 refit, each charged what it spent
    assert len(acc.ledger) == 7
    assert np.isclose(acc.spent.epsilon, 3 * 0.5 + 3 * 1.0 + search.best_params_["epsilon"])


def test_online_bound_not_claimed_when_the_noise_changes_across_rounds():
    # Thm 1 is for one fixed eta: anytime 'auto' noise (eta grows with t) and
    # growing batches (eta grows with B) must not report its bound as certified
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(200, 1))
    y = (X[:, 0] > 0.5).astype(int)
    kw = dict(estimator=StumpERMClassifier(4), bounds=(0, 1), classes=[0, 1], random_state=0)
    anytime = PerturbedERMClassifier(noise="theory", **kw)
    for start in range(0, 100, 10):
        anytime.partial_fit(X[start:start + 10], y[start:start + 10])
    assert not anytime.guarantee_.certified
    assert np.isnan(anytime.regret_bound_) and np.isnan(anytime.regret_bound())
    growing = PerturbedERMClassifier(noise="theory", horizon=50, **kw)
    growing.partial_fit(X[:1], y[:1])
    growing.partial_fit(X[1:20], y[1:20])
    assert not growing.guarantee_.certified and np.isnan(growing.regret_bound_)
    # fixed horizon and batch size: one eta, the bound is reported
    fixed = PerturbedERMClassifier(noise="theory", horizon=10, **kw)
    for start in range(0, 100, 10):
        fixed.partial_fit(X[start:start + 10], y[start:start + 10])
    assert fixed.regret_report_.applies and np.isfinite(fixed.regret_bound_)
    assert fixed.guarantee_.certified == (not fixed.regret_report_.vacuous)
    # rounds beyond the horizon: (13) is checked at the real number of rounds
    fixed.partial_fit(X[100:110], y[100:110])
    assert fixed.n_rounds_ == 11
    np.testing.assert_equal(fixed.regret_bound(), fixed.regret_bound(n_rounds=11))


def test_failed_first_partial_fit_leaves_a_generator_random_state_unchanged():
    generator = np.random.default_rng(3)
    state = copy.deepcopy(generator.bit_generator.state)
    X = np.random.default_rng(0).uniform(size=(10, 2))
    y = np.array([0, 1] * 5)
    clf = PerturbedERMClassifier(StumpERMClassifier(4), bounds=(0, 1), classes=[0, 1],
                                 random_state=generator)
    with pytest.raises(ValueError, match="outside classes_"):
        clf.partial_fit(X, np.where(y == 1, 7, 0))  # labels checked after Z is drawn
    assert generator.bit_generator.state == state
    assert not hasattr(clf, "n_features_in_")
    clf.partial_fit(X, y)  # and the same draws as a fresh run
    ref = PerturbedERMClassifier(StumpERMClassifier(4), bounds=(0, 1), classes=[0, 1],
                                 random_state=np.random.default_rng(3)).partial_fit(X, y)
    np.testing.assert_array_equal(clf.separating_points_, ref.separating_points_)


@pytest.mark.parametrize("n_functions, horizon", [(16, 2000), (2**20, 1), (2**20, 10**4)])
def test_ftpl_regret_bound_covers_lemma1_stability_factor(n_functions, horizon):
    # Thm 1's proof bounds each round's stability by Lemma 1 with tau = B and
    # delta = 1/(2 T |F|) (its additive delta is doubled, so the additive terms
    # sum to B): x = 32 B/(eta rho^2) (G + sqrt(2 log(2 T |F|))). The reported
    # bound must be at least what that factor gives.

    rho, B, best_loss = 1.0, 3.0, 5.0
    G = finite_class_gaussian_complexity(n_functions)
    log_size = np.log(n_functions)
    # above the theorem's eta the proof's form is what is reported
    eta = 1.5 * ftpl_noise(rho, G, log_size, horizon, loss_bound=B)
    x = 32 * B / (eta * rho**2) * (G + np.sqrt(2 * np.log(2 * horizon * n_functions)))
    assert eta >= 32 * B / rho**2 * (G + np.sqrt(2 * np.log(2 * horizon * n_functions)))
    lemma1_bound = 2 * eta * G + B + x * (best_loss + 2 * eta * G)
    bound = ftpl_regret_bound(eta, rho, G, log_size, horizon, best_loss, loss_bound=B)
    assert bound >= lemma1_bound * (1 - 1e-12)


def test_lemma1_additive_delta_slack_is_paid():
    # Lemma 4 (App. B) rearranges (9) with (1 - x)^-1 <= 1 + 2x (x <= 1/2): the
    # additive delta is doubled. So the release must be Lemma 2's formula at
    # delta / 2, i.e. noise of the paper's formula with 1/delta -> 2/delta.
    rho, delta = np.sqrt(2), 1e-6
    G = finite_class_gaussian_complexity(32)
    paper_at_half_delta = 32 / rho**2 * (G + np.sqrt(2 * np.log(1 / (delta / 2))))
    assert np.isclose(lemma1_min_noise(rho, delta, G), paper_at_half_delta)
    assert np.isclose(perturbation_noise(0.5, rho, delta, G), paper_at_half_delta / 0.5)


def test_predict_proba_availability_does_not_change_at_fit():
    # with an oracle without predict_proba (LinearSVC) the method was reported
    # available before fit and not after: VotingClassifier(voting='soft') failed
    # (found by a new-user review)
    from sklearn.svm import LinearSVC

    unfitted = PerturbedERMClassifier(LinearSVC(), bounds=(0, 1), classes=[0, 1])
    assert not hasattr(unfitted, "predict_proba")
    assert hasattr(PerturbedERMClassifier(bounds=(0, 1), classes=[0, 1]), "decision_function")


@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_one_label_without_public_classes_is_refused_like_the_other_classifiers(method):
    # classes=None and one label gave classes_=[1] with two predict_proba columns and
    # decision_function -1 where predict said 1; online, the next batch's other
    # label was then refused (found by a new-user review)
    X = np.random.default_rng(0).uniform(size=(50, 2))
    with warnings.catch_warnings(), pytest.raises(ValueError, match="only one class"):
        warnings.simplefilter("ignore")
        getattr(PerturbedERMClassifier(bounds=(0, 1), classes="data"), method)(
            X, np.ones(50, int))


def test_predict_maps_query_rows_into_the_box_as_fit_does():
    # fit mapped NaN / inf / text into the public box, predict refused them (a
    # cross-validation score on private held-out rows then failed exactly when one
    # of them held NaN; found by a new-user review). PrivateProper maps both.
    X = np.random.default_rng(0).uniform(size=(80, 2))
    y = (X[:, 0] > 0.5).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = PerturbedERMClassifier(bounds=(0, 1), classes=[0, 1]).fit(X, y)
    query = X[:4].astype(object)
    query[0, 0], query[1, 1], query[2, 0] = np.nan, np.inf, "n/a"
    mapped = np.array([[0.5, X[0, 1]], [X[1, 0], 1.0], [0.5, X[2, 1]], X[3]])
    np.testing.assert_array_equal(clf.predict(query), clf.predict(mapped))
    np.testing.assert_array_equal(clf.decision_function(query), clf.decision_function(mapped))


def test_an_oracle_storing_row_values_is_called_not_private():
    # a tree's thresholds are midpoints of two rows' values and estimator_ is published:
    # 2 * threshold - z gave a private row in 10 of 20 fits, flagged only "not
    # certified" (found by a review)
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(60, 1))
    y = (X[:, 0] > 0.5).astype(int)
    tree = PerturbedERMClassifier(DecisionTreeClassifier(max_depth=2), bounds=(0, 1),
                                  classes=[0, 1])
    with pytest.raises(ValueError, match="estimator_ would publish split thresholds halfway"):
        tree.fit(X, y)
    tree.set_params(allow_non_private=True).fit(X, y)
    assert "estimator_ would publish split thresholds" in tree.guarantee_.claim
    assert any("NOT PRIVATE" in a for a in tree.guarantee_.assumptions_not_certified)
    linear = PerturbedERMClassifier(LogisticRegression(), bounds=(0, 1), classes=[0, 1],
                                    allow_non_private=True).fit(X, y)
    assert linear.guarantee_.claim.startswith("no differential-privacy guarantee")
    assert not any("NOT PRIVATE" in a for a in linear.guarantee_.assumptions_not_certified)


def test_a_box_read_from_rows_with_missing_values_is_the_one_rule_of_every_estimator():
    # _untrusted.finite_rows: rows with a NaN or inf are left out (as PublicBoundsScaler and
    # PrivateProperClassifier read it); no warning filter is touched (thread-safe)
    X = np.array([[0.2, 0.1], [0.4, 0.9], [0.8, np.nan], [0.5, np.inf], [0.3, 0.5]])
    y = np.array([0, 1, 1, 0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        erm = PerturbedERMClassifier(StumpERMClassifier(n_thresholds=3), bounds="data",
                                     classes=[0, 1]).fit(X, y)
        scaler = PublicBoundsScaler(bounds="data").fit(X)
    np.testing.assert_array_equal(erm.bounds_, scaler.bounds_)
    np.testing.assert_array_equal(erm.bounds_, ([0.2, 0.1], [0.4, 0.9]))


def test_a_refusal_after_reading_the_label_set_from_y_is_recorded_not_private():
    # classes='data' and one label in y: the refusal tells that y has one label
    X = np.random.default_rng(0).uniform(size=(30, 2))
    accountant = BudgetAccountant()
    clf = PerturbedERMClassifier(bounds=(0, 1), classes="data", accountant=accountant)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with pytest.raises(ValueError, match="only one class"):
            clf.fit(X, np.full(30, 7))
    assert accountant.spent.n_not_private == 1 and accountant.spent.epsilon == 0


class _FailsOnOneRow(LogisticRegression):
    def fit(self, X, y, sample_weight=None):
        if np.any(X == 0.987654):
            raise RuntimeError("a row is 0.987654")
        return super().fit(X, y, sample_weight=sample_weight)


def test_a_non_private_oracles_error_is_recorded_not_private():
    # allow_non_private=True: success is recorded not private, so must be an error
    # of the oracle that one row's value decides (and its message may show)
    X = np.random.default_rng(0).uniform(0, 0.9, size=(30, 2))
    X[0, 0] = 0.987654
    accountant = BudgetAccountant()
    clf = PerturbedERMClassifier(_FailsOnOneRow(), bounds=(0, 1), classes=[0, 1],
                                 allow_non_private=True, accountant=accountant)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(RuntimeError, match="0.987654"):
            clf.fit(X, np.arange(30) % 2)
    assert accountant.spent.n_not_private == 1 and accountant.spent.epsilon == 0


def test_more_labels_than_the_multiclass_cap_are_refused_in_fit_and_partial_fit():
    X, y = [[0.1], [0.9]], [0, 1]
    many = list(range(1001))
    with pytest.raises(ValueError, match="classes lists 1001 labels; the cap is 1000"):
        PerturbedERMClassifier(bounds=(0, 1), classes=many).fit(X, y)
    with pytest.raises(ValueError, match="classes lists 1001 labels; the cap is 1000"):
        PerturbedERMClassifier(bounds=(0, 1)).partial_fit(X, y, classes=many)

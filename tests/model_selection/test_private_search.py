"""PrivateSearchCV: the ledger formula, privacy audits (with the plain
GridSearchCV attack it replaces), the exact selection sampler, and
scikit-learn conventions."""

import functools
import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import make_pipeline

from sksmooth import (
    BudgetAccountant,
    BudgetError,
    MWEM,
    PrivacyLeakWarning,
    PrivateProperClassifier,
)
from sksmooth._guarantee import Guarantee, PrivacySpent
from sksmooth.accounting._ledger import charge
from sksmooth.datasets import load_breast_cancer_public
from sksmooth.metrics import audit_epsilon
from sksmooth.model_selection import PrivateSearchCV
from sksmooth.model_selection import _search
from sksmooth.model_selection._audit_cases import private_search_audit_cases, selection_audit
from sksmooth.mechanisms import _exact_selection
from sksmooth.mechanisms._exact_selection import rational_permute_and_flip as permute_and_flip
from sksmooth.preprocessing import PublicBoundsScaler


# ----------------------------------------------------------- toy private models
class RandomizedMajority(ClassifierMixin, BaseEstimator):
    """Predicts a constant: the majority label through randomized response.

    Randomized response on the majority bit (sensitivity: one substituted
    row flips it at most once) is ``epsilon``-DP.
    """

    def __init__(self, *, epsilon=1.0, accountant=None, random_state=None):
        self.epsilon = epsilon
        self.accountant = accountant
        self.random_state = random_state

    def fit(self, X, y):
        rng = np.random.default_rng(self.random_state)
        majority = int(np.mean(y) > 0.5)
        keep = rng.random() < np.exp(self.epsilon) / (1 + np.exp(self.epsilon))
        charge(self.accountant, self.epsilon, 0.0, label="RandomizedMajority")
        self.label_ = majority if keep else 1 - majority
        self.classes_ = np.array([0, 1])
        self.privacy_spent_ = PrivacySpent(self.epsilon, 0.0)
        self.guarantee_ = Guarantee(f"({self.epsilon}, 0)-DP", "randomized response", True)
        return self

    def predict(self, X):
        return np.full(len(X), self.label_)


@pytest.fixture(scope="module")
def cancer():
    X, y, _ = load_breast_cancer_public()
    idx = np.random.default_rng(0).permutation(len(y))[:240]
    return X[idx], y[idx]


def _proper(**params):
    return PrivateProperClassifier(hypotheses="stumps", bounds=(0, 1), classes=[0, 1], **params)


# ------------------------------------------------- candidates with no guarantee
def test_a_candidate_opted_out_of_privacy_is_refused_before_any_fit(cancer):
    from sklearn.linear_model import LogisticRegression
    from sksmooth import PerturbedERMClassifier
    X, y = cancer
    ledger = BudgetAccountant(epsilon=10.0)
    erm = PerturbedERMClassifier(LogisticRegression(), bounds=(0, 1), classes=[0, 1],
                                 allow_non_private=True)
    search = PrivateSearchCV(erm, {"epsilon": [0.5, 1.0]}, epsilon_selection=0.5, cv=2,
                             accountant=ledger)
    with pytest.raises(ValueError, match="no differential-privacy guarantee"):
        search.fit(X, y)
    assert len(ledger) == 0 and not hasattr(search, "best_index_")


def test_a_fit_reporting_no_guarantee_is_not_accounted_as_private():
    fitted = RandomizedMajority(epsilon=1.0)
    fitted.privacy_spent_ = PrivacySpent(float("inf"), 1.0)
    with pytest.raises(ValueError, match="no differential-privacy guarantee"):
        _search._release_report(fitted)


# --------------------------------------------------------- the ledger formula
@pytest.mark.parametrize("refit", [True, False])
def test_ledger_total_is_the_documented_formula(cancer, refit):
    X, y = cancer
    ledger = BudgetAccountant()
    grid = {"epsilon": [0.25, 0.5, 2.0]}
    search = PrivateSearchCV(_proper(), grid, epsilon_selection=0.3, cv=4,
                             refit=refit, accountant=ledger).fit(X, y)
    # K * sum_c eps_c + eps_sel + refit * max_c eps_c, whatever is selected
    expected = 4 * sum(grid["epsilon"]) + 0.3 + (2.0 if refit else 0.0)
    assert ledger.spent.epsilon == pytest.approx(expected)
    assert search.privacy_spent_.epsilon == pytest.approx(expected)
    fold_fits = [r for r in ledger.ledger if r.label == "PrivateProperClassifier"][:12]
    # each fold fit is charged its own candidate's epsilon, candidate by candidate
    assert [r.epsilon for r in fold_fits] == [e for e in grid["epsilon"] for _ in range(4)]
    labels = [r.label for r in ledger.ledger]
    assert labels.count("PrivateSearchCV selection") == 1
    chosen = search.best_params_["epsilon"]
    if refit:
        assert ledger.ledger[-1].epsilon == chosen  # the refit itself
        padding = [r.epsilon for r in ledger.ledger if r.label == "PrivateSearchCV refit padding"]
        assert padding == ([] if chosen == 2.0 else [pytest.approx(2.0 - chosen)])
    np.testing.assert_allclose(search.cv_results_["epsilon_spent"],
                               [4 * e for e in grid["epsilon"]])


def test_no_exact_score_is_published(cancer):
    X, y = cancer
    search = PrivateSearchCV(_proper(), {"epsilon": [0.5, 1.0]}, epsilon_selection=0.5).fit(X, y)
    assert not hasattr(search, "best_score_")
    assert not any("score" in key for key in search.cv_results_)
    assert search.guarantee_.certified


def test_a_search_the_budget_cannot_pay_is_refused_before_any_fit(cancer):
    X, y = cancer
    # every candidate's charge is known from its parameters: 3 x (0.5 + 1.0) + 0.5 +
    # 1.0 = 6; with 4 left, the search spent 3.5 and then failed (found by a review)
    ledger = BudgetAccountant(epsilon=4.0)
    search = PrivateSearchCV(_proper(), {"epsilon": [0.5, 1.0]}, epsilon_selection=0.5, cv=3,
                             accountant=ledger)
    with pytest.raises(BudgetError, match=r"whole search would charge \(6, 0\).*nothing was"):
        search.fit(X, y)
    assert len(ledger) == 0 and not hasattr(search, "best_index_")
    search.set_params(refit=False)
    with pytest.raises(BudgetError, match=r"\(5, 0\)"):  # no refit to pay
        search.fit(X, y)
    ledger = BudgetAccountant(epsilon=6.0)
    assert search.set_params(refit=True, accountant=ledger).fit(X, y).privacy_spent_ == (6, 0)
    assert ledger.spent.epsilon == pytest.approx(6.0)  # the plan is exactly what is charged


def test_a_scoring_with_the_wrong_signature_is_refused_before_any_fit(cancer):
    # it failed at the first held-out score, after a fit was charged (found by a review)
    X, y = cancer
    ledger = BudgetAccountant()
    search = PrivateSearchCV(_proper(), {"epsilon": [1.0]}, epsilon_selection=1, cv=2,
                             scoring=lambda est, X: np.ones(len(X)), accountant=ledger)
    with pytest.raises(TypeError, match=r"scoring\(estimator, X, y\)"):
        search.fit(X, y)
    assert len(ledger) == 0
    search.set_params(scoring=lambda est, X, y, *rest: est.predict(X) == y)
    assert search.fit(X, y).best_index_ == 0

    def base(est, X):  # a decorated scorer is called as its wrapper is (a review)
        return np.ones(len(X))

    @functools.wraps(base)
    def wrapped(est, X, y):
        return base(est, X)

    search.set_params(scoring=wrapped, accountant=BudgetAccountant())
    assert search.fit(X, y).best_index_ == 0


@pytest.mark.parametrize("params, planned", [
    ({"epsilon": 0.5, "delta": 1e-6}, (0.5, 1e-6)),
    ({"epsilon": 3.0, "delta": 1e-6}, (1.0, 1e-6)),  # Lemma 2 certifies epsilon <= 1: 1 is charged
    ({"epsilon": 0.5, "delta": 1e-6, "noise": 50.0}, None),  # Lemma 2's value for the data
])
def test_perturbed_erm_plans_its_charge_from_public_parameters(cancer, params, planned):
    from sksmooth.perturbed import PerturbedERMClassifier, StumpERMClassifier
    X, y = cancer
    model = PerturbedERMClassifier(StumpERMClassifier(n_thresholds=4), bounds=(0, 1),
                                   classes=[0, 1], separating_points="oracle", **params)
    plan = _search._check_candidates([model])
    if planned is None:
        assert plan is None
        return
    np.testing.assert_allclose(plan, [planned])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert model.fit(X, y).privacy_spent_ == pytest.approx(planned)


def test_budget_error_publishes_no_selection(cancer):
    X, y = cancer
    # a charge the search cannot know in advance (no _planned_spend): room for the
    # 6 fold fits (3.0) but not for the selection
    ledger = BudgetAccountant(epsilon=3.2)
    search = PrivateSearchCV(RandomizedMajority(), {"epsilon": [0.5]}, epsilon_selection=0.5,
                             cv=6, accountant=ledger)
    with pytest.raises(BudgetError):
        search.fit(X, y)
    assert not hasattr(search, "best_index_") and not hasattr(search, "best_params_")
    assert ledger.spent.epsilon == pytest.approx(3.0)


def test_refused_refit_publishes_nothing(cancer):
    X, y = cancer
    # a previous successful search on another ledger is forgotten, not kept half-updated
    earlier = PrivateSearchCV(RandomizedMajority(), {"epsilon": [0.5]}, epsilon_selection=0.5,
                              cv=3)
    earlier.fit(X, y)
    # room for the 3 fold fits and the selection (2.0), not for the refit: the
    # selection is refused too (it was charged and lost before; found by a review)
    ledger = BudgetAccountant(epsilon=2.2)
    search = earlier.set_params(accountant=ledger)
    with pytest.raises(BudgetError, match="neither was run"):
        search.fit(X, y)
    assert not any(hasattr(search, a) for a in
                   ("best_index_", "best_params_", "best_estimator_", "cv_results_"))
    assert ledger.spent.epsilon == pytest.approx(1.5)


def test_a_candidate_the_search_cannot_account_is_refused_before_any_fit(cancer):
    # found by a review: add/remove candidates were summed as if substitution-DP
    # (claim (6, 0), true cost 11.5), and an accountant in the grid sent the fits
    # to another ledger
    X, y = cancer
    ledger, other = BudgetAccountant(epsilon=10.0), BudgetAccountant()
    with pytest.raises(ValueError, match="neighbouring='substitution'"):
        PrivateSearchCV(_proper(neighbouring="add_remove"), {"epsilon": [0.5, 1.0]},
                        epsilon_selection=0.5, cv=3, accountant=ledger).fit(X, y)
    with pytest.raises(ValueError, match="sets 'accountant'"):
        PrivateSearchCV(_proper(), {"epsilon": [0.5], "accountant": [other]},
                        epsilon_selection=0.5, cv=3, accountant=ledger).fit(X, y)
    with pytest.raises(ValueError, match="epsilon"):
        PrivateSearchCV(_proper(), {"epsilon": [0.5, -1.0]}, epsilon_selection=0.5, cv=3,
                        accountant=ledger).fit(X, y)
    assert ledger.spent.epsilon == 0 and other.spent.epsilon == 0


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_verbose_reports_the_number_of_fits(cancer, tmp_path, capsys, n_jobs):
    X, y = cancer
    ledger = BudgetAccountant(100.0, path=tmp_path / "ledger.sqlite")
    search = PrivateSearchCV(_proper(), {"epsilon": [0.5, 1.0]}, epsilon_selection=0.5,
                             cv=3, n_jobs=n_jobs, accountant=ledger, verbose=1)
    search.fit(X, y)
    err = capsys.readouterr().err
    assert "[PrivateSearchCV] 2 candidates x 3 folds = 6 private fits" in err
    assert "6/6" in err


def test_parallel_search_charges_a_file_ledger(cancer, tmp_path):
    X, y = cancer
    ledger = BudgetAccountant(100.0, path=tmp_path / "ledger.sqlite")
    pipe = make_pipeline(PublicBoundsScaler(bounds=(0, 1)), _proper())
    search = PrivateSearchCV(pipe, {"privateproperclassifier__epsilon": [0.5, 1.0]},
                             epsilon_selection=0.5, cv=3, n_jobs=2, accountant=ledger)
    search.fit(X, y)
    assert len(ledger) == 2 * 3 + 1 + 1 + (search.best_params_[
        "privateproperclassifier__epsilon"] == 0.5)
    assert ledger.spent.epsilon == pytest.approx(3 * 1.5 + 0.5 + 1.0)
    assert {r.pid for r in ledger.ledger} - {__import__("os").getpid()}  # workers charged
    assert search.guarantee_.certified


def test_in_memory_ledger_with_workers_is_refused_before_any_fit(cancer):
    X, y = cancer
    ledger = BudgetAccountant()
    search = PrivateSearchCV(_proper(), {"epsilon": [0.5]}, epsilon_selection=0.5,
                             n_jobs=2, accountant=ledger)
    with pytest.raises(ValueError, match="path="):
        search.fit(X, y)
    assert len(ledger) == 0


def test_non_public_preprocessing_is_not_certified(cancer):
    from sklearn.preprocessing import StandardScaler

    X, y = cancer
    pipe = make_pipeline(StandardScaler(), _proper())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = PrivateSearchCV(pipe, {"privateproperclassifier__epsilon": [1.0]},
                                 epsilon_selection=0.5).fit(X, y)
    assert not search.guarantee_.certified
    assert any("PublicBoundsScaler" in a for a in search.guarantee_.assumptions_not_certified)


def test_a_scaler_reading_its_bounds_from_the_data_is_not_public(cancer):
    # PublicBoundsScaler(bounds='data') takes the data's min / max, published in
    # best_estimator_; the search counted it as a public step (found by an audit)
    X, y = cancer
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = PrivateSearchCV(make_pipeline(PublicBoundsScaler(bounds="data"), _proper()),
                                 {"privateproperclassifier__epsilon": [1.0]},
                                 epsilon_selection=0.5).fit(X, y)
    assert not search.guarantee_.certified
    assert any("PublicBoundsScaler" in a for a in search.guarantee_.assumptions_not_certified)


def test_seeded_search_warns_and_is_not_certified(cancer):
    X, y = cancer
    with pytest.warns(PrivacyLeakWarning):
        search = PrivateSearchCV(_proper(), {"epsilon": [0.5, 1.0]}, epsilon_selection=0.5,
                                 random_state=0).fit(X, y)
    assert not search.guarantee_.certified
    assert any("seeded" in a for a in search.guarantee_.assumptions_not_certified)


# ------------------------------------------------------------- the attacks
def _labels_dataset(n_ones, n=21):
    """Constant features, ``n_ones`` labels 1: every constant model is exact to count."""
    return np.full((n, 1), 0.5), np.r_[np.ones(n_ones, int), np.zeros(n - n_ones, int)]


@pytest.mark.expensive
def test_plain_grid_search_best_score_leaks():
    # Neighbours: all labels 0 vs one label 1. Each fit is 0.05-DP, so the
    # 3 fits of the search are charged 0.15; but best_score_ is an exact
    # held-out accuracy, always in {0, 1/2, 1} on D0 and never on D1.
    charged = 3 * 0.05
    d0, d1 = _labels_dataset(0, n=10), _labels_dataset(1, n=10)

    def grid_search(data, rng):
        X, y = data
        est = RandomizedMajority(epsilon=0.05, random_state=rng.integers(2**32))
        search = GridSearchCV(est, {"epsilon": [0.05]}, cv=KFold(2)).fit(X, y)
        return search.best_score_

    result = audit_epsilon(grid_search, d0, d1, lambda s: s in (0.0, 0.5, 1.0),
                           n_trials=150, random_state=1)
    assert result.epsilon_lower > 10 * charged


def _selection_audit(n_trials, epsilon_selection):
    # tight pair, zero-cost candidates: the search costs exactly epsilon_selection
    return selection_audit(n_trials, random_state=2, epsilon_selection=epsilon_selection)


def _noise_free(scores, epsilon, sensitivity, rng):
    return int(np.argmax(scores))


def _half_noise(scores, epsilon, sensitivity, rng):
    return permute_and_flip(scores, epsilon, sensitivity / 2, rng)


def test_the_selection_draws_at_epsilon_selection_on_the_counts(monkeypatch):
    # the cheap check of the audits (below, and the catalog's case in CI's slow
    # stage): the search selects with the exact sampler, at epsilon_selection,
    # sensitivity 1, on the counts of correct predictions (10 vs 11 of 21)
    calls = []

    def spy(scores, epsilon, sensitivity, rng):
        calls.append((list(scores), epsilon, sensitivity))
        return permute_and_flip(scores, epsilon, sensitivity, rng)

    monkeypatch.setattr(_search, "rational_permute_and_flip", spy)
    _selection_audit(1, epsilon_selection=0.7)
    assert calls == [([10, 11], 0.7, 1.0), ([11, 10], 0.7, 1.0)]


@pytest.mark.slow
@pytest.mark.expensive
def test_private_search_selection_passes_the_audit_and_noise_free_is_caught(monkeypatch):
    n_trials = 600
    correct = _selection_audit(n_trials, epsilon_selection=1.0)
    # tight pair: the true epsilon of this event is ln(2 e^{1/2} - 1) = 0.83
    assert 0.4 < correct.epsilon_lower <= 1.0
    monkeypatch.setattr(_search, "rational_permute_and_flip", _noise_free)
    assert _selection_audit(n_trials, epsilon_selection=1.0).epsilon_lower > 3.0


def test_audit_catalog_case_is_the_tested_pair():
    (case,) = private_search_audit_cases()
    assert case.epsilon == 1.0 and case.delta == 0.0 and case.min_fraction > 0


@pytest.mark.parametrize("sampler, caught", [
    (permute_and_flip, False), (_half_noise, True), (_noise_free, True)])
@pytest.mark.expensive
def test_selection_sampler_audit_at_twice_epsilon_is_caught(sampler, caught):
    # scores (#zeros, #ones) = (10, 11) vs (11, 10): the tight pair of the sampler
    def mechanism(scores, rng):
        return sampler(scores, 1.0, 1.0, rng)

    result = audit_epsilon(mechanism, [10.0, 11.0], [11.0, 10.0], lambda i: i == 1,
                           n_trials=6000, random_state=5)
    if caught:
        assert result.epsilon_lower > 1.0
    else:
        assert 0.65 < result.epsilon_lower <= 1.0


# ------------------------------------------------------- the exact sampler
# integer gaps: the law is checked in tests/mechanisms/test_exact_selection.py (-m slow here)
@pytest.mark.parametrize("scores", [[3.0, 5.0], [0.1, 0.35], [7.25, 7.25 + 2.0 ** -40]])
def test_permute_and_flip_flips_the_exact_rational_coins_of_fractional_scores(scores,
                                                                             monkeypatch):
    # the coins' exactness is checked in tests/mechanisms; here, that each coin is
    # exp(-eps (s* - s_r) / (2 Delta)) with the scores read as exact rationals
    seen = []
    table = _exact_selection.ExpMinusTable

    class Spy(table):
        @classmethod
        def from_rationals(cls, numerators, denominator):
            seen.append([Fraction(int(a), int(denominator)) for a in numerators])
            return table.from_rationals(numerators, denominator)

    monkeypatch.setattr(_exact_selection, "ExpMinusTable", Spy)
    permute_and_flip(scores, 2.0, 1.0, np.random.default_rng(3))
    best = max(Fraction(v) for v in scores)
    assert seen == [[Fraction(2) / 2 * (best - Fraction(v)) for v in scores]]


# the frequencies of the real draws (the coins' rationals are checked above)
@pytest.mark.parametrize("scores", [[3.0, 5.0], [0.1, 0.35], [7.25, 7.25 + 2.0 ** -40]])
@pytest.mark.slow
def test_permute_and_flip_on_fractional_scores_matches_its_closed_form(scores):
    # two candidates, gap d: P(worse) = e^{-eps d / 2} / 2, for non-integer scores too
    rng = np.random.default_rng(3)
    picks = np.array([permute_and_flip(scores, 2.0, 1.0, rng) for _ in range(20_000)])
    p = 0.5 * np.exp(-float(Fraction(scores[1]) - Fraction(scores[0])))
    assert abs((picks == 0).mean() - p) < 5 * np.sqrt(p * (1 - p) / picks.size)


# --------------------------------------------------- scikit-learn conventions
def test_clone_get_params_and_delegation(cancer):
    X, y = cancer
    search = PrivateSearchCV(_proper(), {"epsilon": [0.5, 1.0]}, epsilon_selection=0.5, cv=3)
    params = search.get_params()
    assert params["epsilon_selection"] == 0.5 and params["estimator__epsilon"] == 1.0
    twin = clone(search)
    assert twin.get_params()["param_grid"] == {"epsilon": [0.5, 1.0]}
    search.fit(X, y)
    assert not hasattr(twin, "best_index_")
    np.testing.assert_array_equal(search.predict(X), search.best_estimator_.predict(X))
    assert search.score(X, y) == search.best_estimator_.score(X, y)
    np.testing.assert_array_equal(search.classes_, [0, 1])
    assert search.n_features_in_ == X.shape[1]
    assert search.best_params_ == search.cv_results_["params"][search.best_index_]
    assert search.best_estimator_.get_params()["epsilon"] == search.best_params_["epsilon"]


def test_feature_names_are_delegated_as_grid_search_does(cancer):
    # GridSearchCV exposes feature_names_in_ for a DataFrame; PrivateSearchCV did not
    pd = pytest.importorskip("pandas")
    X, y = cancer
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    search = PrivateSearchCV(_proper(), {"epsilon": [1.0]}, epsilon_selection=0.5).fit(frame, y)
    assert list(search.feature_names_in_) == list(frame.columns)
    plain = PrivateSearchCV(_proper(), {"epsilon": [1.0]}, epsilon_selection=0.5).fit(X, y)
    assert not hasattr(plain, "feature_names_in_")


def test_refit_false_has_no_best_estimator(cancer):
    X, y = cancer
    search = PrivateSearchCV(_proper(), {"epsilon": [0.5, 1.0]}, epsilon_selection=0.5,
                             refit=False).fit(X, y)
    assert not hasattr(search, "best_estimator_")
    with pytest.raises(AttributeError, match="refit=True"):
        search.predict(X)


@pytest.mark.parametrize("name, value, error", [
    ("epsilon_selection", 0.0, ValueError),
    ("epsilon_selection", "1", TypeError),
    ("cv", 1, ValueError),
    ("cv", 10**6, ValueError),
    ("scoring", "roc_auc", ValueError),
    ("refit", "yes", TypeError),
    ("n_jobs", 0, ValueError),
    ("accountant", object(), TypeError),
    ("param_grid", {"epsilon": 1.0}, TypeError),
    ("param_grid", {"epsilon": []}, ValueError),
    ("estimator", object(), TypeError),
])
def test_bad_parameters_are_refused_before_any_fit(cancer, name, value, error):
    X, y = cancer
    ledger = BudgetAccountant()
    search = PrivateSearchCV(_proper(accountant=ledger), {"epsilon": [0.5]},
                             epsilon_selection=0.5).set_params(**{name: value})
    with pytest.raises(error, match=name):
        search.fit(X, y)
    assert len(ledger) == 0


def test_non_private_estimator_is_refused(cancer):
    from sklearn.linear_model import LogisticRegression

    X, y = cancer
    with pytest.raises(TypeError, match="private"):
        PrivateSearchCV(LogisticRegression(), {"C": [1.0]}, epsilon_selection=1.0).fit(X, y)


def test_callable_scoring_is_clipped_to_sensitivity_one(cancer):
    X, y = cancer
    ledger = BudgetAccountant()
    # a utility far outside [0, 1] is clipped, so the selection stays epsilon-DP
    search = PrivateSearchCV(_proper(), {"epsilon": [1.0]}, epsilon_selection=0.5,
                             scoring=lambda est, X, y: 100.0 * (est.predict(X) == y),
                             accountant=ledger).fit(X, y)
    assert search.best_index_ == 0
    assert _search._row_utility(lambda e, X, y: np.array([-3.0, 0.5, 7.0, np.nan]),
                                None, None, np.zeros(4), 4).tolist() == [0.0, 0.5, 1.0, 0.0]


def test_a_candidate_the_data_rules_out_is_refused_before_any_charge(cancer):
    # thresholds need one feature: the search charged candidate 0's three folds,
    # then raised on candidate 1 (noticed in an earlier session)
    X, y = cancer
    ledger = BudgetAccountant(epsilon=50.0)
    with pytest.raises(ValueError, match="hypotheses='thresholds' needs one feature"):
        PrivateSearchCV(_proper(), {"hypotheses": ["stumps", "thresholds"]},
                        epsilon_selection=0.5, accountant=ledger).fit(X, y)
    assert len(ledger) == 0
    PrivateSearchCV(_proper(), {"hypotheses": ["stumps", "boxes"]}, epsilon_selection=0.5,
                    accountant=ledger).fit(X[:, :3], y)
    assert len(ledger) == 2 * 3 + 1 + 1  # folds, selection, refit: the rehearsals charge nothing


def test_a_grid_of_estimator_objects_is_charged_to_the_search_and_left_unchanged(cancer):
    # the grid's own objects were fitted with their own accountant=None (1 charge
    # in all: the selection), and the rehearsal left its ledger set on them (review)
    X, y = cancer
    ledger = BudgetAccountant()
    grid = {"privateproperclassifier": [_proper(epsilon=1.0), _proper(epsilon=2.0)]}
    pipe = make_pipeline(PublicBoundsScaler(bounds=(0, 1)), _proper())
    search = PrivateSearchCV(pipe, grid, epsilon_selection=0.5, accountant=ledger).fit(X, y)
    assert ledger.spent.epsilon == pytest.approx(3 * 3.0 + 0.5 + 2.0)
    assert search.guarantee_.certified
    assert all(e.accountant is None and not hasattr(e, "hypothesis_")
               for e in grid["privateproperclassifier"])
    with pytest.raises(TypeError, match="private sksmooth estimator.*got LogisticRegression"):
        from sklearn.linear_model import LogisticRegression
        PrivateSearchCV(pipe, {"privateproperclassifier": [LogisticRegression()]},
                        epsilon_selection=0.5, accountant=ledger).fit(X, y)


def test_a_nested_search_with_workers_and_a_file_ledger_runs(cancer, tmp_path):
    # the rehearsal's in-memory ledger made the inner search refuse its n_jobs=2
    X, y = cancer
    ledger = BudgetAccountant(100.0, path=tmp_path / "ledger.sqlite")
    inner = PrivateSearchCV(_proper(), {"epsilon": [0.5, 1.0]}, epsilon_selection=0.5,
                            n_jobs=2)
    PrivateSearchCV(inner, {"epsilon_selection": [0.5, 1.0]}, epsilon_selection=0.5,
                    accountant=ledger, cv=2).fit(X, y)
    assert len(ledger) > 0


def test_a_callable_scoring_is_not_certified(cancer):
    # each row's utility in [0, 1] has sensitivity 1 only if it depends on that row
    # alone: a fold-level metric spread over the rows moves ~n/3 utilities when one
    # row changes, yet the search certified "each score has sensitivity 1" (review)
    X, y = cancer
    ledger = BudgetAccountant()
    gate = lambda est, Xf, yf: np.full(len(yf), float(np.mean(est.predict(Xf) == yf) > 0.9))
    search = PrivateSearchCV(_proper(), {"epsilon": [0.5, 1.0]}, epsilon_selection=0.5,
                             scoring=gate, accountant=ledger).fit(X, y)
    assert not search.guarantee_.certified
    assert not any("sensitivity 1" in a for a in search.guarantee_.assumptions_certified)
    assert any("scoring" in a for a in search.guarantee_.assumptions_not_certified)
    selection = [r for r in ledger.ledger if "selection" in r.label]
    assert selection and not selection[0].certified
    accuracy = PrivateSearchCV(_proper(), {"epsilon": [0.5, 1.0]}, epsilon_selection=0.5).fit(X, y)
    assert accuracy.guarantee_.certified
    assert any("sensitivity 1" in a for a in accuracy.guarantee_.assumptions_certified)


def test_setups_the_search_cannot_account_are_refused_before_any_charge(cancer):
    # a wrapper of a private estimator (its fits report no privacy_spent_) and a
    # scikit-learn scorer (one number per fold) were refused only after fold fits
    # had been charged (found by a new-user review)
    from sklearn.metrics import accuracy_score, get_scorer, make_scorer
    from sklearn.multiclass import OneVsRestClassifier

    X, y = cancer
    ledger = BudgetAccountant(epsilon=10.0)
    with pytest.raises(TypeError, match="OneVsRestClassifier.*accountant"):
        PrivateSearchCV(OneVsRestClassifier(_proper()), {"estimator__epsilon": [0.5, 1.0]},
                        epsilon_selection=0.5, accountant=ledger).fit(X, y)
    with pytest.raises(TypeError, match="one value per held-out row"):
        PrivateSearchCV(_proper(), {"epsilon": [0.5, 1.0]}, epsilon_selection=0.5,
                        scoring=get_scorer("accuracy"), accountant=ledger).fit(X, y)
    with pytest.raises(TypeError, match="one value per held-out row"):
        PrivateSearchCV(_proper(), {"epsilon": [0.5, 1.0]}, epsilon_selection=0.5,
                        scoring=make_scorer(accuracy_score), accountant=ledger).fit(X, y)
    assert len(ledger) == 0


def _search_over_a_release():
    from sksmooth import MWEM

    return PrivateSearchCV(MWEM(bounds=(0, 1)), {"epsilon": [1.0]}, epsilon_selection=0.5,
                           scoring=lambda est, X, y: np.ones(len(X)))


def test_a_private_step_before_the_last_is_refused_before_any_charge():
    # a nested search as a pipeline's first step: the outer search charged its fits
    # (27 in all) but claimed (4.5, 0)-DP, the last step's only (found by a review)
    from sklearn.pipeline import Pipeline

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(120, 2))
    y = (X[:, 0] > 0.5).astype(int)
    ledger = BudgetAccountant()
    pipe = Pipeline([("syn", _search_over_a_release()),
                     ("clf", PrivateProperClassifier(bounds=(0, 1), classes=[0, 1]))])
    with pytest.raises(TypeError, match="private step before its last one.*'syn'"):
        PrivateSearchCV(pipe, {"clf__epsilon": [0.5, 1.0]}, epsilon_selection=0.5, cv=2,
                        accountant=ledger).fit(X, y)
    assert len(ledger) == 0


def test_a_search_over_a_release_refuses_a_supervised_pipeline():
    # Pipeline([search over SmoothMWEM, LogisticRegression]).fit(X, y) trained the
    # classifier on synthetic rows paired with the real y, which a bare SmoothMWEM
    # step refuses (found by a review)
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(120, 2))
    y = (X[:, 0] > 0.5).astype(int)
    ledger = BudgetAccountant()
    search = _search_over_a_release().set_params(accountant=ledger)
    with pytest.raises(ValueError, match="REAL y"):
        Pipeline([("syn", search), ("lr", LogisticRegression())]).fit(X, y)
    assert len(ledger) == 0  # refused before the search fitted
    with pytest.raises(ValueError, match="needs y"):  # was a TypeError from len(None)
        _search_over_a_release().fit_transform(X)


def test_docstring_examples_run():
    import doctest

    from sksmooth.mechanisms import _exact_selection

    results = [doctest.testmod(module) for module in (_search, _exact_selection)]
    assert all(r.failed == 0 for r in results) and results[0].attempted > 0


def test_a_misspelt_parameter_in_the_grid_is_refused_by_name_before_any_fit(cancer):
    X, y = cancer
    ledger = BudgetAccountant()
    model = make_pipeline(PublicBoundsScaler(bounds=(0, 1)), _proper())
    search = PrivateSearchCV(model, {"privateproperclassifier__epsilonn": [0.5, 1.0]},
                             epsilon_selection=0.5, cv=3, accountant=ledger)
    with pytest.raises(ValueError, match="Invalid parameter 'epsilonn'"):
        search.fit(X, y)
    assert len(ledger) == 0

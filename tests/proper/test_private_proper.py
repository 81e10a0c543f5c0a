"""PrivateProperClassifier (SPEC §6; seeds/001 Lemma 6.3, Alg. 3)."""

import copy
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.utils.estimator_checks import parametrize_with_checks

from sksmooth.accounting import BudgetAccountant
from sksmooth.exceptions import BudgetError, PrivacyLeakWarning, PrivacyWarning
from sksmooth.metrics import audit_epsilon
from sksmooth.proper import PrivateProperClassifier
from sksmooth.proper._audit_cases import private_proper_audit_cases
from sksmooth.proper._private_proper import _error_counts

EXPECTED_FAILED = {}  # every check passes (random_state fixes the private draw)


def _expected_failed(estimator):
    return EXPECTED_FAILED


@parametrize_with_checks(
    [PrivateProperClassifier(random_state=0)],
    expected_failed_checks=_expected_failed,
)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        check(estimator)


def _threshold_data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3))
    y = (X[:, 1] >= 0.6).astype(int)
    return X, y


def _fitted(**kw):
    X, y = _threshold_data()
    params = dict(bounds=(0.0, 1.0), classes=[0, 1], random_state=0)
    params.update(kw)
    return PrivateProperClassifier(**params).fit(X, y), X, y


def test_properness_output_is_a_cover_stump():
    clf, X, y = _fitted(epsilon=5.0)
    hyp = clf.hypothesis_
    cover = clf._state["cover"]
    assert 0 <= hyp.index < cover.n_concepts
    # predictions coincide with the cover element, on data and on fresh points
    Z = np.random.default_rng(1).uniform(-0.5, 1.5, size=(500, 3))
    expected = np.where(cover.evaluate(Z)[:, hyp.index], 1, 0)
    np.testing.assert_array_equal(clf.predict(Z), expected)
    assert "x[" in hyp.description and "->" in hyp.description
    assert clf.score(X, y) > 0.9  # epsilon=5, n=200: the right stump


def test_stump_fast_path_matches_generic_evaluation():
    X, y = _threshold_data(300, seed=2)
    clf, _, _ = _fitted()
    cover = clf._state["cover"]
    y_pm1 = np.where(y > 0, 1.0, -1.0)
    fast = _error_counts(cover, X, y_pm1)
    brute = (np.where(cover.evaluate(X), 1.0, -1.0) != y_pm1[:, None]).sum(axis=0)
    np.testing.assert_array_equal(fast, brute)


def test_partial_fit_chunks_equal_fit_same_seed():
    X, y = _threshold_data(301, seed=4)
    full = PrivateProperClassifier(bounds=(0.0, 1.0), classes=[0, 1], random_state=7).fit(X, y)
    part = PrivateProperClassifier(bounds=(0.0, 1.0), classes=[0, 1], random_state=7)
    for chunk in np.array_split(np.arange(len(X)), 5):
        part.partial_fit(X[chunk], y[chunk])
    np.testing.assert_array_equal(part._state["errors"], full._state["errors"])
    assert part.hypothesis_.index == full.hypothesis_.index
    np.testing.assert_array_equal(part.predict(X), full.predict(X))


def test_releases_are_lazy_charged_and_composed():
    X, y = _threshold_data(200)
    acc = BudgetAccountant(epsilon=2.5)
    clf = PrivateProperClassifier(
        epsilon=1.0, bounds=(0.0, 1.0), classes=[0, 1], accountant=acc, random_state=0
    )
    clf.partial_fit(X[:100], y[:100])
    assert len(acc.ledger) == 0 and clf.n_releases_ == 0
    clf.predict(X[:5])
    clf.predict(X[:5])  # no new data: no new release
    assert clf.n_releases_ == 1 and len(acc.ledger) == 1
    clf.partial_fit(X[100:], y[100:])
    _ = clf.hypothesis_
    assert clf.n_releases_ == 2
    assert clf.privacy_spent_.epsilon == pytest.approx(2.0)
    assert "2 release(s)" in " ".join(clf.guarantee_.notes)
    clf.partial_fit(X[:10], y[:10])
    with pytest.raises(BudgetError):
        clf.predict(X[:5])  # third release would exceed 2.5
    assert clf.n_releases_ == 2 and len(acc.ledger) == 2


def test_fit_refused_before_touching_data_when_over_budget():
    X, y = _threshold_data(50)
    acc = BudgetAccountant(epsilon=0.5)
    clf = PrivateProperClassifier(epsilon=1.0, bounds=(0.0, 1.0), classes=[0, 1], accountant=acc)
    with pytest.raises(BudgetError):
        clf.fit(X, y)
    assert not hasattr(clf, "n_samples_seen_")


def test_guarantee_and_leak_warnings():
    X, y = _threshold_data(100)
    with pytest.warns(PrivacyLeakWarning):
        clf = PrivateProperClassifier(random_state=0).fit(X, y)
    assert not clf.guarantee_.certified
    assert any("bounds" in a for a in clf.guarantee_.assumptions_not_certified)
    assert any("label set" in a for a in clf.guarantee_.assumptions_not_certified)
    clf, _, _ = _fitted()
    assert clf.guarantee_.certified
    assert "Lemma 6.3" in clf.guarantee_.source
    assert clf.privacy_spent_ == (1.0, 0.0)


def test_failed_partial_fit_leaves_state_unchanged():
    X, y = _threshold_data(100)
    clf = PrivateProperClassifier(bounds=(0.0, 1.0), classes=[0, 1], random_state=0)
    clf.partial_fit(X, y)
    before = copy.deepcopy(clf.__dict__)
    for bad_X, bad_y in [
        (X[:5, :2], y[:5]),  # wrong n_features
        (np.full((3, 3), np.nan), y[:3]),  # NaN
        (X[:5], np.array([0, 1, 2, 0, 1])),  # unknown label
        (X[:0], y[:0]),  # empty
    ]:
        with pytest.raises(ValueError):
            clf.partial_fit(bad_X, bad_y)
        after = clf.__dict__
        assert set(after) == set(before)
        np.testing.assert_array_equal(after["_state"]["errors"], before["_state"]["errors"])
        assert after["n_samples_seen_"] == before["n_samples_seen_"]
        assert after["n_clipped_"] == before["n_clipped_"]


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(epsilon=0.0), "epsilon"),
        (dict(epsilon=-1.0), "epsilon"),
        (dict(method="svm"), "method"),
        (dict(alpha=1.5), "alpha"),
        (dict(neighbouring="swap"), "neighbouring"),
        (dict(hypotheses="trees"), "hypotheses"),
        (dict(bounds=(1.0, 0.0)), "bounds"),
        (dict(cover_size=1), "cover_size"),
        (dict(method="littlestone", domain=np.arange(3.0), delta=0.0), "delta"),
        (dict(method="littlestone", delta=1e-6), "domain"),
        (dict(hypotheses="thresholds"), "thresholds"),
    ],
)
def test_bad_parameters(params, match):
    X, y = _threshold_data(30)
    base = dict(bounds=(0.0, 1.0), classes=[0, 1])
    base.update(params)
    with pytest.raises((ValueError, TypeError), match=match):
        PrivateProperClassifier(**base).fit(X, y)


@pytest.mark.filterwarnings("ignore::sksmooth.exceptions.PrivacyLeakWarning")
def test_single_class_and_multiclass_errors():
    X, y = _threshold_data(30)
    with pytest.raises(ValueError, match="class"):
        PrivateProperClassifier(bounds=(0.0, 1.0)).fit(X, np.zeros(30, dtype=int))
    with pytest.raises(ValueError, match="binary"):
        PrivateProperClassifier(bounds=(0.0, 1.0)).fit(X, np.arange(30) % 3)


def test_clone_pickle_keep_predictions_and_ledger():
    clf, X, y = _fitted(accountant=BudgetAccountant())
    twin = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(twin.predict(X), clf.predict(X))
    cl = clone(clf)
    assert cl.accountant is clf.accountant
    twin.partial_fit(X[:10], y[:10])
    assert twin.n_samples_seen_ == clf.n_samples_seen_ + 10


def test_breast_cancer_accuracy_epsilon_one():
    """Sanity: the practical workhorse reaches >= 0.85 at epsilon=1 (benchmark has 20+ seeds)."""
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    accs = []
    for seed in range(5):
        perm = rng.permutation(len(X))
        tr, te = perm[:400], perm[400:]
        clf = PrivateProperClassifier(
            epsilon=1.0, bounds=(X.min(0), X.max(0)), classes=[0, 1], random_state=seed
        ).fit(X[tr], y[tr])
        accs.append(clf.score(X[te], y[te]))
    assert np.mean(accs) >= 0.85


def test_excess_error_bound_holds_with_probability_one_minus_beta():
    """Exponential-mechanism utility (Lemma 6.3's engine): P[excess > bound] <= beta."""
    X, y = load_breast_cancer(return_X_y=True)
    bounds = (X.min(0), X.max(0))
    from sksmooth.classes import Stumps

    cover = Stumps().cover(bounds=bounds, gamma=1 / 32)
    violations, n_runs = 0, 200
    for seed in range(n_runs):
        clf = PrivateProperClassifier(
            cover, epsilon=0.05, beta=0.1, bounds=bounds, classes=[0, 1], random_state=seed
        ).fit(X, y)
        errors = clf._state["errors"]
        excess = (errors[clf.hypothesis_.index] - errors.min()) / len(X)
        violations += excess > clf.excess_error_bound_
    assert clf.excess_error_bound_ < 1.0  # the bound is not vacuous here
    # binomial(200, 0.1): mean 20, sd ~4.2
    assert violations <= 20 + 3 * 4.3


# ------------------------------------------------------------------ audits
# A finite class on one domain point: h_0 = +1, five copies of -1 (K = 6).
# Substitution flips which side makes one error fewer; with one "+" hypothesis
# against five "-" ones the normaliser barely moves, so the true privacy loss
# of the event {predict +1} is ln((5 + e^{-1/2}) / (e^{-1/2} (1 + 5 e^{-1/2})))
# ~ 0.83 at epsilon = 1 (close to the worst case epsilon).
AUDIT_CLASS = np.array([[1]] + [[-1]] * 5)


def _audit_data():
    X = np.zeros((21, 1))
    y0 = np.array([1] * 11 + [0] * 10)  # "+" makes one error fewer
    y1 = y0.copy()
    y1[0] = 0  # substitution neighbour: now "-" makes one error fewer
    return (X, y0), (X, y1)


def _exp_mechanism(neighbouring):
    from sksmooth.classes import FiniteClass

    concepts = FiniteClass(matrix=AUDIT_CLASS, domain=[[0.0]])

    def mechanism(data, rng):
        X, y = data
        clf = PrivateProperClassifier(
            concepts, epsilon=1.0, bounds=(0.0, 1.0), classes=[0, 1],
            neighbouring=neighbouring, random_state=int(rng.integers(2**31)),
        ).fit(X, y)
        return clf.predict(X[:1])[0]

    return mechanism


@pytest.mark.parametrize("case", private_proper_audit_cases(), ids=lambda c: c.name)
def test_audit_cases_within_claim(case):
    """The cases of the `sksmooth audit` suite (both methods): valid and informative."""
    res = case.run(case.n_trials, 0)
    assert res.epsilon_lower <= case.epsilon
    assert res.epsilon_lower >= case.min_fraction * case.epsilon


def test_audit_detects_add_remove_calibration_under_substitution():
    """'add_remove' is documented as 2 eps under substitution: the audit sees > eps."""
    d0, d1 = _audit_data()
    res = audit_epsilon(_exp_mechanism("add_remove"), d0, d1, lambda out: out == 1,
                        n_trials=3000, random_state=0)
    assert res.epsilon_lower > 1.0


def test_audit_exponential_add_remove_neighbours_within_claim():
    (X, y0), _ = _audit_data()
    d1 = (X[1:], y0[1:])  # remove one positive example: a tie
    res = audit_epsilon(_exp_mechanism("add_remove"), (X, y0), d1, lambda out: out == 1,
                        n_trials=3000, random_state=1)
    assert res.epsilon_lower <= 1.0


# ------------------------------------------------------------- littlestone
def _littlestone_data(N=16, n=400, target=5, seed=0):
    domain = np.arange(N) / N
    rng = np.random.default_rng(seed)
    x = rng.choice(domain, n)
    y = (x >= domain[target]).astype(int)
    return domain, x[:, None], y


def _littlestone(**kw):
    domain = kw.pop("domain")
    params = dict(hypotheses="thresholds", method="littlestone", domain=domain,
                  epsilon=1.0, delta=1e-6, classes=[0, 1], random_state=0)
    params.update(kw)
    return PrivateProperClassifier(**params)


def test_littlestone_proper_accurate_and_reported():
    domain, X, y = _littlestone_data()
    with pytest.warns(PrivacyWarning, match="Thm 6.4"):
        clf = _littlestone(domain=domain).fit(X, y)
    assert clf.littlestone_dimension_ == 4  # floor(log2(17))
    assert clf.cover_size_ == 17
    hyp = clf.hypothesis_
    D = domain[:, None]
    # proper: predictions are exactly a row of the threshold class
    matrix = domain[None, :] >= np.append(np.sort(domain), np.inf)[:, None]
    np.testing.assert_array_equal(clf.predict(D), matrix[hyp.index].astype(int))
    assert hyp.index in clf.candidate_indices_
    assert clf.score(D, (domain >= domain[5]).astype(int)) >= 0.9
    assert clf.privacy_spent_ == (1.0, 1e-6)
    assert clf.theoretical_sample_size_ > len(X)
    assert "Alg. 3" in clf.guarantee_.source and clf.guarantee_.certified
    assert set(clf.parameters_) >= {"n_chunks", "n_generic", "k_prime", "alpha_delta"}


def test_littlestone_matrix_class_and_partial_fit_equals_fit():
    domain, X, y = _littlestone_data(N=8, n=300, target=3, seed=1)
    F = np.where(domain[None, :] >= np.append(domain, np.inf)[:, None], 1, -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        full = _littlestone(domain=domain, hypotheses=F, random_state=3).fit(X, y)
        part = _littlestone(domain=domain, hypotheses=F, random_state=3)
        for chunk in np.array_split(np.arange(len(X)), 3):
            part.partial_fit(X[chunk], y[chunk])
        assert part.hypothesis_.index == full.hypothesis_.index
    np.testing.assert_array_equal(part.soa_values_, full.soa_values_)


def test_littlestone_rejects_points_outside_domain_and_keeps_state():
    domain, X, y = _littlestone_data(N=8, n=100)
    clf = _littlestone(domain=domain)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        clf.partial_fit(X, y)
    before = clf._state["x_idx"].copy()
    with pytest.raises(ValueError, match="not points of domain"):
        clf.partial_fit(np.array([[0.3333]]), [1])
    np.testing.assert_array_equal(clf._state["x_idx"], before)
    with pytest.raises(ValueError, match="columns"):
        _littlestone(domain=domain, hypotheses=np.ones((3, 5))).fit(X, y)
    with pytest.raises(ValueError, match="neighbouring"):
        _littlestone(domain=domain, neighbouring="add_remove").fit(X, y)


def test_gridsearch_records_every_release_on_the_shared_ledger():
    from sklearn.model_selection import GridSearchCV

    X, y = _threshold_data(120)
    acc = BudgetAccountant()
    base = PrivateProperClassifier(bounds=(0.0, 1.0), classes=[0, 1], accountant=acc,
                                   random_state=0)
    search = GridSearchCV(base, {"epsilon": [0.5, 1.0]}, cv=2).fit(X, y)
    # 2 candidates x 2 folds + 1 refit; scoring predicts without new data: no release
    assert len(acc.ledger) == 5
    assert acc.spent.epsilon == pytest.approx(2 * 0.5 + 2 * 1.0 + search.best_params_["epsilon"])


@pytest.mark.parametrize("n", [1, 2, 5])
def test_littlestone_runs_for_every_n(n):
    """Privacy holds for every n: tiny samples still give a proper, charged release."""
    domain = np.arange(8.0)
    x = domain[:n, None]
    clf = _littlestone(domain=domain)
    with pytest.warns(PrivacyWarning):
        clf.fit(x, (x[:, 0] >= 3).astype(int))
    assert 0 <= clf.hypothesis_.index < 9
    assert clf.privacy_spent_ == (1.0, 1e-6)


def test_littlestone_accepts_a_finite_class_instance():
    from sksmooth.classes import FiniteClass

    domain, X, y = _littlestone_data(N=8, n=400, target=3, seed=2)
    matrix = np.where(domain[None, :] >= np.append(domain, np.inf)[:, None], 1, -1)
    concepts = FiniteClass(matrix=matrix, domain=domain[:, None])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        clf = _littlestone(domain=domain, hypotheses=concepts).fit(X, y)
    assert clf.littlestone_dimension_ == 3
    np.testing.assert_array_equal(
        clf.predict(domain[:, None]), (matrix[clf.hypothesis_.index] > 0).astype(int)
    )


def test_claim_covers_releases_made_under_an_earlier_neighbouring_relation():
    # a release calibrated for 'add_remove' is 2 eps under substitution; a later
    # set_params(neighbouring='substitute') must not turn the composed claim
    # into "eps-DP under substitution" for all releases
    X, y = _threshold_data(200)
    clf = PrivateProperClassifier(
        bounds=(0.0, 1.0), classes=[0, 1], neighbouring="add_remove", random_state=0
    ).fit(X[:100], y[:100])
    clf.set_params(neighbouring="substitute")
    clf.partial_fit(X[100:], y[100:])
    _ = clf.hypothesis_
    assert clf.n_releases_ == 2 and clf.privacy_spent_.epsilon == pytest.approx(2.0)
    claim = clf.guarantee_.claim
    assert "under substitution or addition/removal" not in claim
    assert "3-differential privacy under substitution" in claim
    # all releases under 'substitute': the claim covers both relations
    clf.fit(X, y)
    assert "under substitution or addition/removal" in clf.guarantee_.claim


def test_failed_first_partial_fit_leaves_estimator_and_generator_unchanged():
    X, y = _threshold_data(50)
    clf = PrivateProperClassifier(bounds=(0.0, 1.0), classes=[0, 1], random_state=0)
    before = dict(clf.__dict__)
    with pytest.raises(ValueError, match="outside classes_"):
        clf.partial_fit(X, np.where(y == 1, 5, 0))  # validated after validate_data
    assert clf.__dict__ == before  # no n_features_in_ left behind
    generator = np.random.default_rng(1)
    state = copy.deepcopy(generator.bit_generator.state)
    clf = PrivateProperClassifier(
        hypotheses="thresholds", bounds=(0.0, 1.0), classes=[0, 1], random_state=generator
    )
    with pytest.raises(ValueError, match="one feature"):
        clf.partial_fit(np.hstack([X, X]), y)  # fails after the seed is drawn
    assert generator.bit_generator.state == state
    assert not hasattr(clf, "n_features_in_")


def test_domain_error_does_not_echo_private_rows():
    domain, X, y = _littlestone_data(N=8, n=100)
    X_bad = np.vstack([X[:5], [[0.123456]]])
    with pytest.raises(ValueError, match="not points of domain") as info:
        _littlestone(domain=domain).fit(X_bad, np.r_[y[:5], 1])
    message = str(info.value)
    assert "0.123456" not in message and "row 5" not in message and "1 row" not in message


def test_release_noise_never_reuses_the_cover_stream(monkeypatch):
    # the cover is public; each release's Gumbel noise must come from a stream
    # independent of it (release k uses [seed, k]; the cover used [seed, 1])
    import sksmooth.mechanisms as mechanisms
    from sksmooth.classes import Halfspaces

    seen = {"cover": [], "release": []}
    real_cover, real_em = Halfspaces.cover, mechanisms.exponential_mechanism

    def cover(self, *args, random_state=None, **kwargs):
        seen["cover"].append(copy.deepcopy(random_state.bit_generator.state))
        return real_cover(self, *args, random_state=random_state, **kwargs)

    def em(scores, epsilon, sensitivity, rng, **kwargs):
        seen["release"].append(copy.deepcopy(rng.bit_generator.state))
        return real_em(scores, epsilon, sensitivity, rng, **kwargs)

    monkeypatch.setattr(Halfspaces, "cover", cover)
    monkeypatch.setattr(mechanisms, "exponential_mechanism", em)
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(60, 2))
    y = (X[:, 0] > X[:, 1]).astype(int)
    clf = PrivateProperClassifier(hypotheses="halfspaces", bounds=(0.0, 1.0), classes=[0, 1],
                                  cover_size=50, random_state=0).fit(X[:30], y[:30])
    for start in (30, 40, 50):
        clf.partial_fit(X[start:start + 10], y[start:start + 10])
        _ = clf.hypothesis_
    assert len(seen["cover"]) == 1 and len(seen["release"]) == 4
    assert all(state != seen["cover"][0] for state in seen["release"])

"""PrivateProperClassifier: the estimator's public surface (SPEC §6).

Ghazi, Golowich, Kumar, Manurangsi, STOC 2021, arXiv:2012.03893 (Lemma 6.3,
Alg. 3); Kasiviswanathan et al., FOCS 2008.
"""

import copy
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.model_selection import cross_val_score
from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from sksmooth.accounting import BudgetAccountant
from sksmooth.classes import FiniteClass, HalfspaceConcepts, Halfspaces, StumpConcepts, Stumps
from sksmooth.exceptions import BudgetError, PrivacyLeakWarning, PrivacyWarning
from sksmooth.proper import (Exponential, Littlestone, NoisyMeans, PrivateProperClassifier,
                             ProperRelease)
from sksmooth.proper import _exponential
from sksmooth.proper._exponential import (ExponentialStrategy, _reference_inside,
                                          hypothesis_errors, label_counts, label_pairs)

EXPECTED_FAILED = {
    "check_estimators_nan_inf": (
        "private estimators map NaN/inf rows into the public box instead of refusing "
        "them: an error that depends on private values would itself be a release"
    ),
    "check_dtype_object": (
        "a non-number in an object column (the check's dict entry) is a private value: "
        "read as missing and mapped into the box, never refused (the refusal would be "
        "a release)"
    ),
}


def _expected_failed(estimator):
    return EXPECTED_FAILED


# sklearn's checks pass data of their own (standardised, or a few units wide) and
# label sets of their own (strings, 2 or 3 classes): a public box covers the first,
# the labels are read with the opt-in classes='data' (not private; the public path
# is tested below)
_CHECKED = dict(bounds=(-10.0, 10.0), classes="data", random_state=0)


@parametrize_with_checks(
    [PrivateProperClassifier(**_CHECKED),
     PrivateProperClassifier(hypotheses="halfspaces", method=Exponential(cover_size=200),
                             **_CHECKED),
     PrivateProperClassifier(hypotheses="intervals", **_CHECKED),
     PrivateProperClassifier(hypotheses="prototypes", method="noisy_means", delta=1e-5,
                             **_CHECKED)],
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


def _public(**kw):
    params = dict(bounds=(0.0, 1.0), classes=[0, 1])
    params.update(kw)
    return PrivateProperClassifier(**params)


def _brute_errors(concepts, pairs, X, y_codes):
    """Errors of every two-label hypothesis by direct evaluation (no counts)."""
    inside = concepts.evaluate(X)  # (n, K)
    a, b = pairs[:, 0], pairs[:, 1]
    pred = np.where(inside[:, :, None], a[None, None, :], b[None, None, :])  # (n, K, P)
    return (pred != y_codes[:, None, None]).sum(axis=0).ravel()


# ---------------------------------------------------------------- properness
def test_binary_output_is_a_cover_stump_and_accurate():
    X, y = _threshold_data()
    clf = _public(epsilon=5.0).fit(X, y)
    hyp = clf.hypothesis_
    cover = Stumps().cover(bounds=clf.bounds_, gamma=1 / 128, max_size=20000)
    assert clf.cover_size_ == cover.n_concepts
    Z = np.random.default_rng(1).uniform(0, 1, size=(500, 3))
    np.testing.assert_array_equal(clf.predict(Z), np.where(cover.evaluate(Z)[:, hyp.index], 1, 0))
    assert clf.score(X, y) > 0.9


@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_label_counts_match_direct_evaluation(n_classes):
    rng = np.random.default_rng(n_classes)
    X = rng.uniform(size=(257, 3))
    y = rng.integers(0, n_classes, 257)
    stumps = Stumps().cover(bounds=(0.0, 1.0), gamma=1 / 16, n_features=3)
    boxes = FiniteClass(matrix=np.where(rng.random((7, 257)) < 0.5, 1, -1), domain=X)
    pairs = label_pairs(n_classes)
    for concepts in (stumps, boxes):
        fast = hypothesis_errors(label_counts(concepts, X, y, n_classes), pairs)
        np.testing.assert_array_equal(fast, _brute_errors(concepts, pairs, X, y))


def _halfspaces_with_boundary_rows(rng, n_features=4, max_size=300):
    """A random cover plus hard concepts (constants, the zero concept, scales beyond
    the float32 filter, a plane with rows on it) and rows on or within 1e-7 of the
    planes: the rows the float32 filter must hand to the reference."""
    cover = Halfspaces().cover(bounds=(0.0, 1.0), n_features=n_features, max_size=max_size,
                               random_state=rng)
    hard = np.zeros((7, n_features))
    hard[2, :2], hard[3, 0], hard[4, 0], hard[5, 0] = (1.0, -1.0), 1e-30, 1e30, 0.5
    hard[6, :2] = (-1.0, 1.0)  # the complement of hard[2]: rows on the plane are in both
    coef = np.vstack([cover.coef, hard])
    intercept = np.concatenate([cover.intercept, [0.0, -1.0, 0.0, -1e-31, -5e29, -0.25, -0.0]])
    X = rng.uniform(size=(600, n_features))
    X[:100, 1] = X[:100, 0]  # on x0 - x1 = 0
    X[100:150, 0] = 0.5  # on 0.5 x0 - 0.25 = 0
    j = rng.integers(2, len(cover.coef), size=200)  # within 1e-7 of a plane (not a constant)
    w, b = cover.coef[j], cover.intercept[j]
    X[150:350] -= ((np.sum(X[150:350] * w, axis=1) + b)
                   / np.sum(w * w, axis=1) + rng.normal(0, 1e-7, 200))[:, None] * w
    return HalfspaceConcepts(coef, intercept), np.clip(X, 0.0, 1.0)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_halfspace_counts_are_sums_of_each_rows_own_values(n_classes):
    """A row adds 0 or 1 to each count, its own value (float64, summed in feature
    order), wherever it sits: one row changes each count by at most 1 (sensitivity 1
    of the exponential mechanism's scores)."""
    rng = np.random.default_rng(n_classes)
    concepts, X = _halfspaces_with_boundary_rows(rng)
    assert np.count_nonzero(concepts.complements() >= 0) > 290  # counted in pairs
    y = rng.integers(0, n_classes, len(X))
    own = _reference_inside(X[:, None, :], concepts.coef[None], concepts.intercept[None])
    expected = np.stack([own[y == label].sum(axis=0) for label in range(n_classes)], axis=1)
    counts = label_counts(concepts, X, y, n_classes)
    np.testing.assert_array_equal(counts.inside, expected)
    order = rng.permutation(len(X))  # every row at another position
    np.testing.assert_array_equal(label_counts(concepts, X[order], y[order], n_classes).inside,
                                  expected)
    for row in (0, 120, 200, 599):  # remove one row: its own values, nothing else
        rest = np.delete(np.arange(len(X)), row)
        change = counts.inside - label_counts(concepts, X[rest], y[rest], n_classes).inside
        np.testing.assert_array_equal(change[:, y[row]], own[row].astype(int))
        assert np.abs(change).max() <= 1 and not np.delete(change, y[row], axis=1).any()


@pytest.mark.parametrize("threads", [1, 2])
def test_halfspace_counts_are_exact_across_row_blocks(threads, monkeypatch):
    """Rows on and within 1e-7 of the planes in several 64-row runs of each label (a
    last run of one row, on a plane; a label of exactly two 256-row blocks; a label
    with no rows) and two 512-concept blocks, on one or two threads: the runs' float32
    counts, their recounts and the reference give the reference's counts exactly."""
    monkeypatch.setattr(_exponential, "_blas_threads", lambda: threads)
    rng = np.random.default_rng(7)
    concepts, X = _halfspaces_with_boundary_rows(rng, max_size=1200)
    X = np.vstack([X, X[rng.permutation(len(X))[:168]], X[:1]])  # 769 rows: 257 + 512
    y = np.append(rng.permutation(np.repeat([0, 2], [256, 512])), 0)  # last: on x0 = x1
    own = _reference_inside(X[:, None, :], concepts.coef[None], concepts.intercept[None])
    expected = np.stack([own[y == label].sum(axis=0) for label in range(3)], axis=1)
    np.testing.assert_array_equal(label_counts(concepts, X, y, 3).inside, expected)


def test_halfspace_counts_stay_exact_when_the_two_float32_products_differ(monkeypatch):
    """The bound allows the blocks' product and the recount's to differ by up to E (any
    order, FMA or not); here they give the same bits, so the recount's corrections are
    checked with the blocks' product moved by up to E / 2 (found by review6: deleting
    the corrections passed the suite)."""
    rng, d = np.random.default_rng(3), 4
    margin = (2 * d + 8) * 2.0**-24  # E of the code, for products scaled into [-1, 1]
    concepts = Halfspaces().cover(bounds=(0.0, 1.0), n_features=d, max_size=300,
                                  random_state=rng)
    X = rng.uniform(size=(900, d))
    planes = np.flatnonzero(np.any(concepts.coef != 0, axis=1))
    j = rng.choice(planes, size=600)  # rows within 3E of a plane
    w, b = concepts.coef[j], concepts.intercept[j]
    scale = np.abs(w).sum(axis=1) + np.abs(b)  # ~ the code's scale (reach ~ 1)
    shift = (np.sum(X[:600] * w, axis=1) + b - rng.uniform(-3, 3, 600) * margin * scale)
    X[:600] -= (shift / np.sum(w * w, axis=1))[:, None] * w
    y = rng.integers(0, 2, len(X))
    noise = np.random.default_rng(0)

    class MovedProducts:  # numpy, with matmul off by up to E / 2 (within the bound)
        def __getattr__(self, name):
            return getattr(np, name)

        @staticmethod
        def matmul(a, b, out):
            np.matmul(a, b, out=out)
            out += (noise.uniform(-0.5, 0.5, out.shape) * margin).astype(np.float32)
            return out

    monkeypatch.setattr(_exponential, "np", MovedProducts())
    monkeypatch.setattr(_exponential, "_blas_threads", lambda: 1)
    own = _reference_inside(X[:, None, :], concepts.coef[None], concepts.intercept[None])
    expected = np.stack([own[y == label].sum(axis=0) for label in range(2)], axis=1)
    np.testing.assert_array_equal(label_counts(concepts, X, y, 2).inside, expected)


def test_halfspace_counts_warn_the_same_for_rows_beyond_the_float32_range():
    """Rows beyond float32's range or whose products overflow float64 (inside public
    bounds of 1e300) are counted by the float64 reference alone, with no 'overflow'
    RuntimeWarning: it would show the analyst, uncharged, a private value's size."""
    concepts = HalfspaceConcepts(np.array([[1.0, -1.0], [0.5, 2.0], [1e10, -1.0]]),
                                 np.array([0.0, -1.0, 0.0]))
    X = np.array([[1e39, 0.0], [0.3, 0.2], [-2.0, 5.0], [1e300, -1e300]])
    y = np.array([0, 1, 1, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        counts = label_counts(concepts, X, y, 2)
    own = _reference_inside(X[:, None, :], concepts.coef[None], concepts.intercept[None])
    np.testing.assert_array_equal(counts.inside, np.stack([own[y == 0].sum(0),
                                                           own[y == 1].sum(0)], axis=1))


def test_halfspace_counts_build_no_rows_by_concepts_matrix(monkeypatch):
    """Counting 4000 rows against 4000 halfspaces allocates far less than one
    (rows x concepts) bool matrix (16 MB); the evaluation did (float64: 128 MB). One
    thread (each thread holds its own block buffers, ~1 MB)."""
    import tracemalloc

    monkeypatch.setattr(_exponential, "_blas_threads", lambda: 1)
    rng = np.random.default_rng(0)
    concepts = Halfspaces().cover(bounds=(0.0, 1.0), n_features=5, max_size=4000,
                                  random_state=rng)
    X, y = rng.uniform(size=(4000, 5)), rng.integers(0, 2, 4000)
    tracemalloc.start()
    try:
        label_counts(concepts, X, y, 2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4_000_000


def test_a_fit_estimates_the_halfspace_covers_radius_when_guarantee_is_read(monkeypatch):
    """The sampled cover's Monte Carlo radius (200 targets) is only reported: a fit
    learns from one target that it is above gamma (no early stop) and guarantee_
    estimates it when read; a pickle or a copy holds the same value."""
    from sksmooth.classes import _halfspaces

    scanned, estimate = [], _halfspaces._RadiusEstimator.estimate

    def counted(self, *args, **kwargs):
        value = estimate(self, *args, **kwargs)
        scanned.append(len(value[1]))  # targets measured
        return value

    monkeypatch.setattr(_halfspaces._RadiusEstimator, "estimate", counted)
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(300, 6))
    y = (X[:, 0] > X[:, 1]).astype(int)
    clf = PrivateProperClassifier(hypotheses="halfspaces", bounds=(0, 1), classes=[0, 1],
                                  method=Exponential(cover_size=500))
    with pytest.warns(UserWarning, match="cover is capped"):
        clf.fit(X, y)
    assert scanned and max(scanned) == 1
    pickled = pickle.loads(pickle.dumps(clf))  # the radius estimated for the pickle
    assert max(scanned) == 200
    note = clf.guarantee_.notes[0]
    gamma = float(note.split("cover radius gamma=")[1].split()[0])
    assert 0 < gamma < 1 and pickled.guarantee_ == clf.guarantee_ == copy.deepcopy(
        clf).guarantee_


def test_a_user_cover_whose_radius_is_read_between_calls_is_the_same_parameter():
    """A sampled cover passed as hypotheses: reading its radius (guarantee_) between
    partial_fit calls leaves its fingerprint as it was (no 'changed' refusal)."""
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(200, 4))
    y = (X[:, 0] > 0.5).astype(int)
    cover = Halfspaces().cover(bounds=(0.0, 1.0), n_features=4, max_size=300, random_state=0)
    clf = PrivateProperClassifier(hypotheses=cover, bounds=(0, 1), classes=[0, 1])
    clf.partial_fit(X, y)
    assert "gamma=" in clf.guarantee_.notes[0]
    clf.partial_fit(X, y)
    assert clf.n_samples_seen_ == 400


def test_halfspace_counts_memory_is_bounded_when_rows_sit_on_every_boundary():
    """Rows at a point every concept passes through (NaN rows mapped to the centre of a
    symmetric box, homogeneous halfspaces) are all decided by the reference: memory
    stays bounded by the blocks (it held all 4e6 such pairs at once: ~290 MB)."""
    import tracemalloc

    rng = np.random.default_rng(0)
    concepts = HalfspaceConcepts(rng.normal(size=(1000, 2)), np.zeros(1000))
    X, y = np.zeros((4000, 2)), rng.integers(0, 2, 4000)
    tracemalloc.start()
    try:
        counts = label_counts(concepts, X, y, 2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(counts.inside, np.tile(np.bincount(y), (1000, 1)))
    assert peak < 40_000_000


def test_multiclass_wine_releases_a_multiclass_stump():
    X, y = load_wine(return_X_y=True)
    bounds = (X.min(0), X.max(0))
    clf = PrivateProperClassifier(hypotheses="stumps", epsilon=5.0, bounds=bounds,
                                  classes=[0, 1, 2])
    with pytest.warns(UserWarning, match="names at most 2 of the 3 labels of classes"):
        clf.fit(X, y)
    hyp = clf.hypothesis_
    # the class: one-orientation stumps x ordered label pairs (a != b)
    stumps = Stumps().cover(bounds=bounds, gamma=1 / 128, max_size=20000)
    stumps = stumps.subset(np.flatnonzero(stumps.sign > 0))
    assert clf.cover_size_ == stumps.n_concepts * 6
    concept, pair = divmod(hyp.index, 6)
    a, b = label_pairs(3)[pair]
    expected = np.where(stumps.evaluate(X)[:, concept], a, b)
    np.testing.assert_array_equal(clf.predict(X), expected)
    assert hyp.description.endswith(f"-> {a} (else {b})")
    assert clf.score(X, y) > 0.55  # one stump names two of three cultivars
    assert clf.decision_function(X).shape == (len(X), 3)
    np.testing.assert_array_equal(clf.classes_[clf.predict_proba(X).argmax(1)], clf.predict(X))


@pytest.mark.parametrize("method, hypotheses", [("exponential", "stumps"),
                                                ("exponential", "intervals"),
                                                ("noisy_means", "prototypes")])
def test_verbose_prints_public_stages_only(capsys, method, hypotheses):
    X, y = load_wine(return_X_y=True)
    acc = BudgetAccountant(epsilon=1.5)
    clf = PrivateProperClassifier(method=method, hypotheses=hypotheses, epsilon=1.0,
                                  bounds=(X.min(0), X.max(0)), classes=[0, 1, 2],
                                  accountant=acc, verbose=1).fit(X, y)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith(f"[PrivateProperClassifier] method={method!r}: a public class of ")
    assert lines[1] == "[PrivateProperClassifier] charged (1, 0); hypothesis released"
    assert clf.cover_size_ < 10**9 or "~10^" in lines[0]
    with pytest.raises(BudgetError):
        clone(clf).fit(X, y)
    assert capsys.readouterr().err == ""  # refused before anything is printed


def test_one_vs_rest_and_one_vs_one_wrappers_fit_predict_and_roc_auc():
    X, y = load_wine(return_X_y=True)
    X = (X - X.min(0)) / (X.max(0) - X.min(0))
    base = _public(epsilon=2.0)
    for wrapper in (OneVsRestClassifier(base), OneVsOneClassifier(base)):
        with warnings.catch_warnings():
            warnings.simplefilter("error", PrivacyLeakWarning)  # classes given per binary task
            wrapper.fit(X, y)
        assert wrapper.predict(X).shape == (len(X),)
    binary = y == 0
    scores = cross_val_score(_public(epsilon=2.0), X, binary, cv=3, scoring="roc_auc")
    assert np.all(np.isfinite(scores)) and scores.mean() > 0.7


def test_multiclass_halfspaces_are_proper_two_label_halfspaces():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(300, 2))
    y = np.where(X[:, 0] + X[:, 1] > 1.0, 2, 0)
    # seeded: the random cover and the noise are fresh OS entropy otherwise, and
    # an unseeded run once scored 0.847 (a flaky threshold, not a failure of the class)
    with pytest.warns(PrivacyLeakWarning):
        clf = PrivateProperClassifier(hypotheses="halfspaces", epsilon=5.0, bounds=(0.0, 1.0),
                                      classes=[0, 1, 2], method=Exponential(cover_size=500),
                                      random_state=0).fit(X, y)
    assert clf.score(X, y) > 0.85
    margins = clf.decision_function(X)
    assert margins.shape == (300, 3)
    assert "x[0]" in clf.hypothesis_.description


def test_binary_accuracy_without_poor_score_tag():
    """What check_classifiers_train asks of a non-poor binary classifier (> 0.83)."""
    from sklearn.datasets import make_blobs

    X, y = make_blobs(n_samples=300, centers=2, random_state=0, cluster_std=0.5)
    clf = PrivateProperClassifier(bounds=(X.min(0), X.max(0)), classes=[0, 1]).fit(X, y)
    assert clf.score(X, y) > 0.83


# ---------------------------------------------------------------- scores
def test_scores_come_from_the_release_only():
    X, y = _threshold_data(200)
    clf = _public(epsilon=5.0).fit(X, y)
    Z = np.random.default_rng(3).uniform(size=(50, 3))
    before = (clf.decision_function(Z), clf.predict_proba(Z), clf.predict(Z))
    X[:] = 1.0 - X  # change every training row after the release
    y[:] = 1 - y
    after = (clf.decision_function(Z), clf.predict_proba(Z), clf.predict(Z))
    for b, a in zip(before, after):
        np.testing.assert_array_equal(a, b)
    release = pickle.loads(pickle.dumps(clf.to_release()))
    np.testing.assert_array_equal(release.decision_function(Z), before[0])
    np.testing.assert_array_equal(release.predict(Z), before[2])
    # the stump margin: distance of the feature to the threshold, box units
    assert np.all((clf.decision_function(Z) > 0) == (clf.predict(Z) == 1))


def test_feature_names_in_description():
    pd = pytest.importorskip("pandas")
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    bounds = (X.min().to_numpy(), X.max().to_numpy())
    clf = PrivateProperClassifier(epsilon=5.0, bounds=bounds, classes=[0, 1]).fit(X, y)
    assert isinstance(X, pd.DataFrame)
    assert any(name in clf.hypothesis_.description for name in X.columns)
    assert "x[" not in clf.hypothesis_.description


# ---------------------------------------------------------------- releases
def test_each_partial_fit_is_one_charged_release_and_predict_is_free():
    X, y = _threshold_data(200)
    acc = BudgetAccountant(epsilon=2.5)
    clf = _public(epsilon=1.0, accountant=acc)
    clf.partial_fit(X[:100], y[:100])
    assert clf.n_releases_ == 1 and len(acc.ledger) == 1
    first = clf.hypothesis_
    for _ in range(5):
        clf.predict(X[:5])
        clf.predict_proba(X[:5])
    assert len(acc.ledger) == 1 and clf.hypothesis_ is first
    clf.partial_fit(X[100:], y[100:])
    assert clf.n_releases_ == 2 and clf.privacy_spent_.epsilon == pytest.approx(2.0)
    assert "2 release(s)" in " ".join(clf.guarantee_.notes)
    second = clf.hypothesis_
    with pytest.raises(BudgetError):
        clf.partial_fit(X[:10], y[:10])  # third release would exceed 2.5
    # refused: nothing changed, and the last release is still served for free
    assert clf.n_releases_ == 2 and len(acc.ledger) == 2 and clf.n_samples_seen_ == 200
    assert clf.hypothesis_.description == second.description
    assert clf.hypothesis_.index == second.index
    clf.predict(X)


def test_fit_refused_by_the_ledger_leaves_no_model():
    X, y = _threshold_data(50)
    acc = BudgetAccountant(epsilon=0.5)
    clf = _public(epsilon=1.0, accountant=acc)
    with pytest.raises(BudgetError):
        clf.fit(X, y)
    assert not hasattr(clf, "hypothesis_") and not hasattr(clf, "n_features_in_")


def test_partial_fit_chunks_release_from_the_same_statistics_as_fit():
    X, y = _threshold_data(301, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        full = _public(random_state=7).fit(X, y)
        part = _public(random_state=7)
        for chunk in np.array_split(np.arange(len(X)), 5):
            part.partial_fit(X[chunk], y[chunk])
    # same statistics, same seed of the last release: same selection
    assert part.hypothesis_.index == full.hypothesis_.index
    assert part.n_releases_ == 5 and part.privacy_spent_.epsilon == pytest.approx(5.0)


def test_seeded_classes_none_and_bounds_none_are_not_certified(monkeypatch):
    import sksmooth.accounting._ledger as module

    charged = []
    real_charge = module.charge

    def spy(accountant, epsilon, delta, label, certified=True, **kwargs):
        charged.append(certified)
        return real_charge(accountant, epsilon, delta, label, certified=certified, **kwargs)

    monkeypatch.setattr(module, "charge", spy)
    X, y = _threshold_data(100)
    acc = BudgetAccountant()
    with pytest.warns(PrivacyLeakWarning):
        clf = _public(random_state=0, accountant=acc).fit(X, y)
    assert not clf.guarantee_.certified
    assert any("seeded noise" in a for a in clf.guarantee_.assumptions_not_certified)
    assert charged[-1] is False  # the ledger records it as not certified
    n_charged = len(charged)
    with pytest.warns(PrivacyLeakWarning):
        clf = PrivateProperClassifier(bounds="data", classes="data", accountant=acc).fit(X, y)
    text = " ".join(clf.guarantee_.assumptions_not_certified)
    assert "bounds" in text and "label set" in text and not clf.guarantee_.certified
    assert clf.guarantee_.claim.startswith("no differential-privacy guarantee: the box "
                                           "(bounds) and the label set")
    # recorded as not private: no charge counted in the headline total
    assert len(charged) == n_charged and acc.spent.n_not_private == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        clf = _public(accountant=acc).fit(X, y)
    assert clf.guarantee_.certified and charged[-1] is True
    assert "Lemma 6.3" in clf.guarantee_.source and "seeds/" not in clf.guarantee_.source
    assert clf.privacy_spent_ == (1.0, 0.0)


def test_fresh_noise_differs_between_clones():
    X, y = _threshold_data(200)
    X[:, :] = 0.5  # every stump ties: the selection is pure noise
    clf = _public()
    picks = {clone(clf).fit(X, y).hypothesis_.index for _ in range(10)}
    assert len(picks) > 1


def test_pickled_estimator_holds_released_values_only():
    """Neighbouring datasets with the same release pickle to the same bytes."""
    X, y0 = _threshold_data(200)
    y1 = y0.copy()
    y1[0] = 1 - y1[0]
    dumps = []
    for y in (y0, y1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            clf = _public(epsilon=50.0, random_state=3).fit(X, y)
        dumps.append((pickle.dumps(clf), pickle.dumps(clf.to_release())))
    assert dumps[0][1] == dumps[1][1]
    assert dumps[0][0] == dumps[1][0]
    twin = pickle.loads(dumps[0][0])
    np.testing.assert_array_equal(twin.predict(X), clf.predict(X))
    with pytest.raises(ValueError, match="call fit"):
        twin.partial_fit(X, y0)
    copy.deepcopy(clf).partial_fit(X[:5], y0[:5])  # an in-process copy may continue
    clf.partial_fit(X[:5], y0[:5])  # and pickling did not strip the live estimator
    assert isinstance(clf.to_release(), ProperRelease)


def test_bad_rows_are_mapped_never_refused_and_never_counted():
    X, y = _threshold_data(100)
    clf = _public(epsilon=1.0)
    clf.partial_fit(X, y)
    X_bad = X[:6].copy()
    X_bad[0, 0], X_bad[1, 1], X_bad[2, 2] = np.nan, np.inf, -123456.789
    y_bad = np.array([0, 1, 7, 0, 1, 987654])  # labels outside classes
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf.partial_fit(X_bad, y_bad)
    assert not caught
    assert clf.n_samples_seen_ == 106 and not hasattr(clf, "n_clipped_")
    assert np.isin(clf.predict(X_bad), [0, 1]).all()


def test_failed_partial_fit_leaves_state_unchanged():
    X, y = _threshold_data(100)
    clf = _public()
    clf.partial_fit(X, y)
    before = pickle.dumps(clf)
    for bad_X, bad_y in [(X[:5, :2], y[:5]), (X[:0], y[:0]), (np.ones((3, 3, 1)), y[:3])]:
        with pytest.raises(ValueError):
            clf.partial_fit(bad_X, bad_y)
        assert pickle.dumps(clf) == before


# ------------------------------------------------------------ parameters
@pytest.mark.parametrize(
    "params, match",
    [
        (dict(epsilon=0.0), "epsilon"),
        (dict(epsilon=np.array([1.0])), "epsilon"),
        (dict(method="svm"), "method"),
        (dict(method=Littlestone(alpha=1.5)), "alpha"),
        (dict(delta=1.0), "delta"),
        (dict(delta=-0.1), "delta"),
        (dict(neighbouring="swap"), "neighbouring"),
        (dict(hypotheses="trees"), "hypotheses"),
        (dict(bounds=(1.0, 0.0)), "bounds"),
        (dict(classes="ab"), "classes"),
        (dict(classes=5), "classes"),
        (dict(classes=[1, 1]), "classes"),
        (dict(method=Exponential(cover_size=1)), "cover_size"),
        (dict(method=Exponential(cover_size=10**12)), "cover_size"),
        (dict(method=Littlestone(domain=np.arange(3.0)), delta=0.0), "delta"),
        (dict(method="littlestone", delta=1e-6), "domain"),
        (dict(method=Littlestone(domain=np.arange(3.0), h_size=10**12), delta=1e-6), "h_size"),
        (dict(method=Littlestone(domain=np.arange(3.0), n_chunks=10**12), delta=1e-6),
         "n_chunks"),
        (dict(hypotheses="thresholds"), "thresholds"),
        (dict(random_state="x"), "random_state"),
        (dict(accountant=object()), "accountant"),
    ],
)
def test_bad_parameters(params, match):
    X, y = _threshold_data(30)
    clf = _public(**params)
    if params.get("method") == "littlestone" or isinstance(params.get("method"), Littlestone):
        clf.set_params(bounds=None)  # 'bounds' applies to 'exponential' only
    with pytest.raises((ValueError, TypeError), match=match):
        clf.fit(X, y)


def test_bounds_with_littlestone_is_refused():
    X = np.arange(3.0)[:, None]
    with pytest.raises(ValueError, match="bounds applies only when method='auto', "):
        PrivateProperClassifier(method=Littlestone(domain=np.arange(3.0)), delta=1e-6,
                                bounds=(0.0, 2.0), classes=[0, 1]).fit(X, [0, 1, 1])


def test_exponential_spends_no_delta_and_says_so():
    X, y = _threshold_data(50)
    acc = BudgetAccountant()
    clf = _public(delta=0.5, accountant=acc).fit(X, y)
    assert clf.privacy_spent_ == (1.0, 0.0) and acc.spent.delta == 0.0
    assert any("spends delta = 0" in n for n in clf.guarantee_.notes)


def test_multiclass_littlestone_error_recommends_what_works():
    X = np.repeat(np.arange(3.0), 10)[:, None]
    y = np.repeat([0, 1, 2], 10)
    params = dict(hypotheses="thresholds", method=Littlestone(domain=np.arange(3.0)),
                  delta=1e-6, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="method='exponential'"):
        PrivateProperClassifier(**params).fit(X, y)
    del params["method"], params["delta"]
    params["hypotheses"] = "stumps"
    PrivateProperClassifier(bounds=(0.0, 2.0), **params).fit(X, y).predict(X)


@pytest.mark.parametrize("epsilon, alpha", [(1e6, 0.1), (1e-9, 0.1), (1.0, 1e-300)])
def test_littlestone_extreme_legal_values_work_without_fp_warnings(epsilon, alpha):
    domain = np.arange(8.0)
    X = np.repeat(domain, 5)[:, None]
    y = (X[:, 0] >= 3).astype(int)
    clf = PrivateProperClassifier(hypotheses="thresholds",
                                  method=Littlestone(domain=domain, alpha=alpha),
                                  epsilon=epsilon, delta=1e-6, classes=[0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", PrivacyWarning)
        clf.fit(X, y)
    assert 0 <= clf.hypothesis_.index <= 8


@pytest.mark.parametrize("epsilon", [1e300, 1e-300])
def test_epsilon_outside_the_release_range_gets_a_clear_error(epsilon):
    X, y = _threshold_data(50)
    with pytest.raises(ValueError, match=r"epsilon must lie in \[1e-09, 1e\+06\]"):
        _public(epsilon=epsilon).fit(X, y)


@pytest.mark.parametrize("epsilon", [1e6, 1e-9])
def test_exponential_extreme_epsilon_works(epsilon):
    X, y = _threshold_data(50)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        clf = _public(epsilon=epsilon).fit(X, y)
    assert 0.0 <= clf.excess_error_bound_ <= 1.0


def test_gridsearch_records_every_release_on_the_shared_ledger():
    from sklearn.model_selection import GridSearchCV

    X, y = _threshold_data(120)
    acc = BudgetAccountant()
    search = GridSearchCV(_public(accountant=acc), {"epsilon": [0.5, 1.0]}, cv=2).fit(X, y)
    assert len(acc.ledger) == 5  # 2 candidates x 2 folds + refit; scoring is free
    fold_eps = sorted(r.epsilon for r in acc.ledger[:4])
    assert fold_eps == [0.5, 0.5, 1.0, 1.0]
    assert acc.ledger[4].epsilon == search.best_params_["epsilon"]


def test_claim_covers_releases_made_under_an_earlier_neighbouring_relation():
    X, y = _threshold_data(200)
    clf = _public(neighbouring="add_remove").fit(X[:100], y[:100])
    clf.set_params(neighbouring="substitution")
    clf.partial_fit(X[100:], y[100:])
    assert clf.n_releases_ == 2 and clf.privacy_spent_.epsilon == pytest.approx(2.0)
    assert "3-differential privacy under substitution" in clf.guarantee_.claim
    assert not clf.guarantee_.certified  # n is published: add/remove is not protected
    clf.fit(X, y)
    assert "under substitution of one example (n public)" in clf.guarantee_.claim


# ------------------------------------------------------------- accuracy
def test_breast_cancer_accuracy_epsilon_one():
    """Sanity at the documented operating point (benchmark: 20 splits)."""
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    accs = []
    for _ in range(5):
        perm = rng.permutation(len(X))
        tr, te = perm[:400], perm[400:]
        clf = PrivateProperClassifier(epsilon=1.0, bounds=(X.min(0), X.max(0)),
                                      classes=[0, 1]).fit(X[tr], y[tr])
        accs.append(clf.score(X[te], y[te]))
    assert np.mean(accs) >= 0.85


def test_intervals_on_the_widest_bounds_cut_at_finite_points():
    # the interval grid's cuts overflowed to inf for bounds this wide
    X = np.linspace(-1e307, 1e307, 60)[:, None]
    y = (X[:, 0] > 0).astype(int)
    clf = PrivateProperClassifier(hypotheses="intervals", bounds=(-1e308, 1e308),
                                  classes=[0, 1], epsilon=20.0).fit(X, y)
    assert "inf" not in clf.hypothesis_.description
    assert np.all(np.isfinite(clf.decision_function(X)))
    assert clf.score(X, y) >= 0.9


@pytest.mark.parametrize("kw", [dict(hypotheses="halfspaces"),
                                dict(method=NoisyMeans(projection=None),
                                     hypotheses="prototypes")])
def test_the_published_release_predicts_like_the_estimator(kw):
    # ProperRelease neither mapped query rows into the bounds nor checked their
    # columns: 31% of out-of-box rows and 83% of a reordered frame were predicted
    # differently, and a NaN raised (found by a new-user review)
    pytest.importorskip("pandas")
    X, y = load_iris(return_X_y=True, as_frame=True)
    bounds = (X.min().to_numpy(), X.max().to_numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = PrivateProperClassifier(bounds=bounds, classes=[0, 1, 2], epsilon=5, **kw).fit(X, y)
    release = pickle.loads(pickle.dumps(clf.to_release()))
    query = X.to_numpy().copy()
    query[::3, 3] = 100.0
    query[1, 2] = np.nan
    for method in ("predict", "decision_function", "predict_proba"):
        np.testing.assert_array_equal(getattr(release, method)(query),
                                      getattr(clf, method)(query))
    np.testing.assert_array_equal(release.predict(X), clf.predict(X))
    with pytest.raises(ValueError, match="feature names should match"):
        release.predict(X[X.columns[::-1]])
    with pytest.raises(ValueError, match="4 features"):
        release.predict(query[:, :3])


def test_a_structural_parameter_changed_mid_stream_is_refused():
    # set_params(hypotheses='halfspaces') between partial_fit calls was ignored: the
    # stream kept releasing stumps (found by a new-user review); a release's own
    # budget may still change
    X, y = _threshold_data(200)
    clf = PrivateProperClassifier(bounds=(0, 1), classes=[0, 1]).partial_fit(X[:100], y[:100])
    clf.set_params(epsilon=2.0).partial_fit(X[100:150], y[100:150])
    for change in (dict(hypotheses="halfspaces"), dict(bounds=(0, 2)), dict(classes=[0, 1, 2]),
                   dict(method="noisy_means"), dict(method=NoisyMeans(projection=1))):
        before = clf.set_params(epsilon=1.0).get_params()
        with pytest.raises(ValueError, match="was changed since the first partial_fit"):
            clf.set_params(**change).partial_fit(X[150:], y[150:])
        clf.set_params(**{k: before[k] for k in change})
    assert clf.partial_fit(X[150:], y[150:]).n_releases_ == 3


def test_a_later_call_s_classes_must_be_the_first_call_s_label_set():
    X, y = _threshold_data(200)
    clf = PrivateProperClassifier(bounds=(0, 1), classes=[0, 1]).partial_fit(X[:100], y[:100])
    clf.partial_fit(X[100:150], y[100:150], classes=[1, 0])  # any order
    with pytest.raises(ValueError, match=r"classes=\[0, 2\] differs from classes_=\[0, 1\]"):
        clf.partial_fit(X[150:], y[150:], classes=[0, 2])
    with pytest.raises(ValueError, match="duplicate"):
        clf.partial_fit(X[150:], y[150:], classes=[0, 1, 1])
    assert clf.n_releases_ == 2


def test_a_capped_cover_warns_with_the_estimators_parameters():
    # boxes on 30 features: a cover of 2 hypotheses, radius 1, majority-rate accuracy,
    # no warning and a CERTIFIED guarantee (found by a new-user review); the cover
    # depends on public inputs only, so warning costs nothing
    X, y = load_breast_cancer(return_X_y=True)
    bounds = (X.min(axis=0), X.max(axis=0))
    with pytest.warns(UserWarning, match="cover is capped at cover_size=20000"):
        PrivateProperClassifier(hypotheses="boxes", bounds=bounds, classes=[0, 1]).fit(X, y)
    # the message names this estimator's parameters, not the cover builder's
    # (max_size, n_points: found by a new-user review)
    X3 = (X[:, :3] - bounds[0][:3]) / (bounds[1][:3] - bounds[0][:3])
    with pytest.warns(UserWarning, match=r"Exponential\(cover_size=\.\.\.\)") as record:
        PrivateProperClassifier(hypotheses="halfspaces", bounds=(0, 1), classes=[0, 1],
                                method=Exponential(cover_size=500)).fit(X3, y)
    assert not any("max_size" in str(w.message) or "n_points" in str(w.message)
                   for w in record)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        PrivateProperClassifier(bounds=bounds, classes=[0, 1]).fit(X, y)  # stumps: not capped


@pytest.mark.parametrize("params", [
    dict(hypotheses="stumps", delta=1e-6, bounds=(0, 1)),  # exponential: no delta spent
    dict(hypotheses="prototypes", method="noisy_means", delta=1e-6, bounds=(0, 1)),
    dict(hypotheses="prototypes", method="noisy_means", delta=0.0, bounds=(0, 1)),
    dict(hypotheses="thresholds", method=Littlestone(domain=np.arange(16) / 16), delta=1e-6),
])
def test_the_planned_charge_is_the_charge(params):
    # PrivateSearchCV refuses a search from these plans before any fit: each strategy's
    # own spent() is the plan, one source of truth
    rng = np.random.default_rng(0)
    X = rng.choice(np.arange(16) / 16, (200, 1))
    y = (X[:, 0] >= 0.3).astype(int)
    model = PrivateProperClassifier(classes=[0, 1], **params)
    plan = model._planned_spend(model.get_params())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert model.fit(X, y).privacy_spent_ == plan


def test_hypotheses_given_as_user_code_are_not_certified():
    # functions evaluated on a block of private rows can compare rows: the errors
    # of hypothesis 0 moved 49 -> 129 under one substitution, yet the release
    # certified "cover built from public bounds only" (found by an audit)
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (300, 2))
    y = (X[:, 0] > 0.5).astype(int)

    def relative(Z):
        return Z[:, 0] >= Z[0, 0]

    def named(Z):  # a named function: joblib can hash it
        return np.ones(len(Z), bool)

    ledger = BudgetAccountant()
    clf = PrivateProperClassifier(hypotheses=FiniteClass(functions=[relative, named],
                                                         n_features=2),
                                  bounds=(0, 1), classes=[0, 1], accountant=ledger).fit(X, y)
    assert not clf.guarantee_.certified and not ledger.ledger[-1].certified
    assert any("hypotheses is user code" in a for a in clf.guarantee_.assumptions_not_certified)
    assert "cover built from public bounds only" not in clf.guarantee_.assumptions_certified
    matrix = PrivateProperClassifier(hypotheses=FiniteClass(matrix=[[1, -1, 1], [-1, 1, 1]]),
                                     bounds=(0, 2), classes=[0, 1]).fit(
        rng.integers(0, 3, (60, 1)).astype(float), rng.integers(0, 2, 60))
    assert matrix.guarantee_.certified  # a matrix lookup is row by row
    assert "class given explicitly (hypotheses=...)" in matrix.guarantee_.assumptions_certified


def test_ledger_and_guarantee_agree_under_add_remove():
    # the ledger said certified while guarantee_ listed the published row count
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (300, 2))
    y = (X[:, 0] > 0.5).astype(int)
    ledger = BudgetAccountant()
    clf = PrivateProperClassifier(bounds=(0, 1), classes=[0, 1], neighbouring="add_remove",
                                  accountant=ledger).fit(X, y)
    assert clf.guarantee_.certified is ledger.ledger[-1].certified is False
    # charged what it keeps under substitution, the relation its published n allows
    assert clf.privacy_spent_.epsilon == 1.0 and ledger.spent.epsilon == 2.0


class _Untouchable:
    """An X that fails the test if the estimator reads it."""

    def __array__(self, *args, **kwargs):
        raise AssertionError("the data was read")

    def __len__(self):
        raise AssertionError("the data was read")


def test_the_ledger_is_checked_with_the_charge_itself_before_any_data():
    # the check asked 2 epsilon, the charge is the calibration's substitution epsilon
    # (zcdp_to_dp(2 rho, delta) for noisy means with delta > 0): a fitting release was
    # refused, and a release that did not fit was refused only after the selection ran
    # on the data (a review)
    from sksmooth.accounting import zcdp_from_dp_budget, zcdp_to_dp

    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (300, 2))
    y = (X[:, 0] > 0.5).astype(int)
    params = dict(method="noisy_means", hypotheses="prototypes", bounds=(0, 1), classes=[0, 1],
                  neighbouring="add_remove")
    charge = zcdp_to_dp(2 * zcdp_from_dp_budget(1.0, 1e-6), 1e-6)
    assert charge < 1.5 < 2.0
    ledger = BudgetAccountant(1.5, 1e-5)
    PrivateProperClassifier(epsilon=1.0, delta=1e-6, accountant=ledger, **params).fit(X, y)
    assert ledger.spent.epsilon == pytest.approx(charge)
    small = zcdp_to_dp(2 * zcdp_from_dp_budget(0.001, 1e-3), 1e-3)
    assert small > 0.0022 > 2 * 0.001
    ledger = BudgetAccountant(0.0022, 0.01)
    with pytest.raises(BudgetError):
        PrivateProperClassifier(epsilon=0.001, delta=1e-3, accountant=ledger,
                                **params).fit(_Untouchable(), y)
    assert len(ledger) == 0


def test_a_class_joblib_cannot_hash_charges_nothing_it_cannot_release():
    # joblib.hash of the parameters ran after the charge and raised on a lambda:
    # the budget was spent and nothing released (found by an audit)
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (100, 2))
    y = (X[:, 0] > 0.5).astype(int)
    ledger = BudgetAccountant()
    hyp = FiniteClass(functions=[lambda Z: Z[:, 0] > 0.5, lambda Z: Z[:, 1] > 0.5],
                      n_features=2)
    clf = PrivateProperClassifier(hypotheses=hyp, bounds=(0, 1), classes=[0, 1],
                                  accountant=ledger).partial_fit(X, y)
    assert len(ledger) == 1 and hasattr(clf, "hypothesis_")
    clf.partial_fit(X, y)  # the same class object: not "changed"
    assert clf.n_releases_ == 2


def test_a_row_off_a_matrix_class_domain_is_mapped_not_refused():
    # the fit raised on a neighbour with one row off the domain while the dataset
    # itself was released certified: the refusal told the two apart (audit)
    H = FiniteClass(matrix=[[1, -1, 1], [-1, 1, 1]])  # domain {0, 1, 2}
    X = np.array([[0.0], [1.0], [2.0], [1.0]])
    y = np.array([0, 1, 1, 0])
    ledger = BudgetAccountant(epsilon=5)
    a = PrivateProperClassifier(hypotheses=H, bounds=(0, 2), classes=[0, 1],
                                accountant=ledger).fit(X, y)
    X[3] = 1.5
    b = PrivateProperClassifier(hypotheses=H, bounds=(0, 2), classes=[0, 1],
                                accountant=ledger).fit(X, y)
    assert a.guarantee_.certified and b.guarantee_.certified and len(ledger) == 2
    assert b.predict(X).shape == (4,)  # the released hypothesis maps it too (review)


class _OwnFiniteClass(FiniteClass):  # a user type: evaluate may read the whole batch
    def evaluate(self, X, chunk_size=None):
        values = super().evaluate(X)
        return np.broadcast_to(values.mean(axis=0) > 0.5, values.shape).copy()


def test_a_user_subclass_of_finite_class_is_user_code():
    # user_code_notes trusted any FiniteClass with a matrix, subclasses included
    X = np.array([[0.0], [1.0]])[np.random.default_rng(0).integers(0, 2, 100)]
    y = X[:, 0].astype(int)
    H = _OwnFiniteClass(matrix=[[1, -1], [-1, 1]], domain=[[0.0], [1.0]])
    clf = PrivateProperClassifier(hypotheses=H, bounds=(0, 1), classes=[0, 1]).fit(X, y)
    assert not clf.guarantee_.certified


def test_intervals_say_their_sampler_is_floating_point():
    # the interval sampler (log-space dynamic programming, Gumbel noise) was certified
    # "sampled exactly" although its law is the float sampler's (found by a review)
    # above MAX_LISTED hypotheses (a grid of 512 cells); the default grid is listed and
    # sampled exactly, so certified
    X, y = load_wine(return_X_y=True)
    acc = BudgetAccountant()
    clf = PrivateProperClassifier(hypotheses="intervals", bounds=(X.min(0), X.max(0)),
                                  classes=[0, 1, 2], accountant=acc,
                                  method=Exponential(gamma=1 / 1024)).fit(X, y)
    assert not clf.guarantee_.certified and not acc.ledger[0].certified
    assert any("interval sampler" in a and "floating-point" in a
               for a in clf.guarantee_.assumptions_not_certified)
    listed = PrivateProperClassifier(hypotheses="intervals", bounds=(X.min(0), X.max(0)),
                                     classes=[0, 1, 2], accountant=acc).fit(X, y)
    assert listed.guarantee_.certified and acc.ledger[1].certified


def test_substitution_is_spelled_as_everywhere_else():
    # the ledger and AdaptiveMarginalSynthesizer say 'substitution'; the old spelling
    # 'substitute' is refused, naming the parameter
    assert PrivateProperClassifier().get_params()["neighbouring"] == "substitution"
    with pytest.raises(ValueError, match="neighbouring"):
        PrivateProperClassifier(bounds=(0, 1), classes=[0, 1], neighbouring="substitute").fit(
            np.zeros((4, 1)), np.array([0, 1, 0, 1]))


@pytest.mark.parametrize("hypotheses, n_classes", [("stumps", 2000), ("stumps", 10**5),
                                                   ("intervals", 40_000)])
def test_a_class_too_large_to_hold_is_refused_before_any_data(hypotheses, n_classes):
    # 2000 labels took the machine's memory, 10^5 raised numpy's MemoryError (a review)
    ledger = BudgetAccountant()
    with pytest.raises(ValueError, match="hypothesis class needs a table of .* use fewer classes"):
        PrivateProperClassifier(bounds=(0, 1), classes=list(range(n_classes)),
                                hypotheses=hypotheses, accountant=ledger).fit(
            np.random.default_rng(0).uniform(0, 1, (40, 2)), np.arange(40))
    assert len(ledger) == 0


@pytest.mark.parametrize("params, match", [
    (dict(hypotheses="no-such-class"), "hypotheses"),
    (dict(method="noisy_means", hypotheses="stumps"), "hypotheses='prototypes'"),
    (dict(method=Littlestone(domain=np.arange(4.0)), hypotheses="thresholds", delta=0.0),
     "delta > 0"),
    (dict(bounds=(1, 0)), "bounds"),
])
def test_a_bad_parameter_is_named_before_the_data_is_read(params, match):
    # these were checked when the class was built, after X: a bad X hid them (a review)
    params = {"bounds": (0, 1), "classes": [0, 1], **params}
    if isinstance(params.get("method"), Littlestone):
        params.pop("bounds")
    with pytest.raises((TypeError, ValueError), match=match):
        PrivateProperClassifier(**params).fit(_Untouchable(), [0, 1])


def _strategy_kind(clf):
    return type(clf._strategy).__name__, getattr(clf._strategy, "n_cells", None)


def test_auto_picks_a_class_that_names_every_label_from_public_inputs():
    # the default on a multiclass target was one multiclass stump (two labels at most:
    # iris .63, digits .19 at epsilon 1); the rule reads classes and n_features only
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(60, 4))
    y = np.minimum((X[:, 0] * 3).astype(int), 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        three = PrivateProperClassifier(bounds=(0, 1), classes=[0, 1, 2]).fit(X, y)
        two = PrivateProperClassifier(bounds=(0, 1), classes=[0, 1]).fit(X, y > 0)
        # the same public inputs give the same class whatever the labels hold
        also_three = PrivateProperClassifier(bounds=(0, 1), classes=[0, 1, 2]).fit(X, y > 0)
    assert _strategy_kind(three) == _strategy_kind(also_three) == ("IntervalStrategy", 64)
    assert three.guarantee_.certified and three._strategy.max_pieces == 3
    assert isinstance(two._strategy, ExponentialStrategy)
    assert isinstance(two._strategy.concepts, StumpConcepts)
    five = PrivateProperClassifier(bounds=(0, 1), classes=list(range(5)), delta=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # little data per prototype
        five.fit(X, np.minimum((X[:, 0] * 5).astype(int), 4))
    assert type(five._strategy).__name__ == "PrototypeStrategy"
    assert five.privacy_spent_ == (1.0, 1e-5)


def test_auto_checks_the_ledger_once_the_features_tell_the_charge():
    # method='auto' with delta > 0 spends delta only if it picks noisy means (k > 2
    # and no listed interval class), which needs n_features: the ledger is checked then
    X = np.random.default_rng(0).uniform(size=(40, 40))
    y = np.arange(40) % 5
    model = PrivateProperClassifier(bounds=(0, 1), classes=list(range(5)), delta=1e-5,
                                    accountant=BudgetAccountant(epsilon=5.0, delta=0.0))
    assert model._planned_spend(model.get_params()) is None
    with pytest.raises(BudgetError):
        model.fit(X, y)
    binary = PrivateProperClassifier(bounds=(0, 1), classes=[0, 1], delta=1e-5)
    assert binary._planned_spend(binary.get_params()) == (1.0, 0.0)


def test_an_explicit_two_label_class_on_more_labels_warns_when_chosen():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(30, 2))
    y = (X[:, 0] > 0.5).astype(int)  # only two of the three public labels occur
    clf = PrivateProperClassifier(hypotheses="stumps", bounds=(0, 1), classes=[0, 1, 2])
    with pytest.warns(UserWarning, match="names at most 2 of the 3 labels of classes") as w:
        clf.fit(X, y)
    assert "method='auto'" in str(w[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PrivateProperClassifier(hypotheses="stumps", bounds=(0, 1), classes=[0, 1]).fit(X, y)
        PrivateProperClassifier(hypotheses="intervals", bounds=(0, 1),
                                classes=[0, 1, 2]).fit(X, y)


def test_the_two_label_warning_names_the_callers_line_through_a_pipeline():
    from sklearn.pipeline import make_pipeline

    from sksmooth.preprocessing import PublicBoundsScaler

    X = np.random.default_rng(0).uniform(size=(30, 2))
    model = make_pipeline(PublicBoundsScaler(bounds=(0, 1)), PrivateProperClassifier(
        hypotheses="stumps", bounds=(0, 1), classes=[0, 1, 2]))
    with pytest.warns(UserWarning, match="names at most 2") as record:
        model.fit(X, (X[:, 0] > 0.5).astype(int))  # it named scikit-learn's pipeline.py
    assert {w.filename for w in record} == {__file__}


def test_a_method_s_parameters_live_on_its_object():
    # 23 parameters, 12 of them read by one method only: at most 15 now (issue 38)
    assert len(PrivateProperClassifier().get_params(deep=False)) <= 15
    model = PrivateProperClassifier(method=NoisyMeans(projection=2, gamma=0.25))
    assert model.get_params()["method__projection"] == 2
    assert clone(model).method.get_params() == model.method.get_params()
    model.set_params(method__projection=1)
    assert model.method.projection == 1 and model.method.gamma == 0.25
    with pytest.raises(TypeError, match="unexpected keyword argument 'gamma'"):
        PrivateProperClassifier(gamma=0.3)  # a method's parameter lives on its object
    X, y = _threshold_data(20)
    with pytest.raises(ValueError, match=r"method=NoisyMeans\(\.\.\.\): projection must be"):
        _public(method=NoisyMeans(projection=-1)).fit(X, y)  # the error names the object


def test_a_private_search_runs_over_epsilon_and_over_the_method():
    from sksmooth.model_selection import PrivateSearchCV

    X, y = load_iris(return_X_y=True)
    bounds = (X.min(0), X.max(0))
    grid = {"epsilon": [0.5, 2.0],
            "method": [NoisyMeans(), Exponential(gamma=1 / 32)]}
    search = PrivateSearchCV(PrivateProperClassifier(bounds=bounds, classes=[0, 1, 2]),
                             grid, epsilon_selection=1.0, cv=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        search.fit(X, y)
    assert search.best_params_["method"].__class__ in (NoisyMeans, Exponential)
    assert search.best_estimator_.score(X, y) > 0.3


@pytest.mark.parametrize("params", [
    dict(hypotheses="stumps"),
    dict(hypotheses="halfspaces", method=Exponential(cover_size=64)),
    dict(hypotheses="intervals"),
    dict(hypotheses="prototypes", delta=1e-5),
    dict(hypotheses="thresholds", method=Littlestone(domain=np.arange(16) / 16), delta=1e-6),
], ids=["stumps", "halfspaces", "intervals", "noisy_means", "littlestone"])
def test_rows_counted_in_blocks_give_the_statistics_of_one_pass(params, monkeypatch):
    # fits read, map and count the rows in blocks (linear time in n: whole-X
    # temporaries fell out of cache); the statistics must not depend on the block size
    import dataclasses

    from sksmooth.proper import _hypothesis

    rng = np.random.default_rng(3)
    n = 403
    X = rng.choice(np.arange(16) / 16, (n, 1)) if "method" in params and \
        isinstance(params["method"], Littlestone) else rng.uniform(-0.1, 1.1, (n, 3))
    X[5, 0] = np.nan
    y = rng.integers(0, 3 if params["hypotheses"] == "intervals" else 2, n)
    classes = [0, 1, 2] if params["hypotheses"] == "intervals" else [0, 1]
    bounds = {} if "method" in params and isinstance(params["method"], Littlestone) \
        else dict(bounds=(0.0, 1.0))
    stats = {}
    for size in (1 << 14, 7):
        monkeypatch.setattr(_hypothesis, "_ROWS_PER_PASS", size)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf = PrivateProperClassifier(classes=classes, random_state=0, **bounds,
                                          **params).fit(X, y)
        stats[size] = dataclasses.astuple(clf._statistics)
    for whole, blocked in zip(stats[1 << 14], stats[7]):
        np.testing.assert_array_equal(whole, blocked)


@pytest.mark.parametrize("y, method, match", [
    (np.arange(30) % 3, "littlestone", "classes_ has 3 labels"),  # the count read from y
    (np.zeros(30, dtype=int), "auto", "only one class"),
    (np.r_[0.5, np.arange(29) % 2], "auto", "continuous"),  # one row's value refuses
])
def test_a_refusal_after_reading_the_label_set_from_y_is_recorded_not_private(y, method,
                                                                              match):
    X = np.random.default_rng(0).uniform(size=(30, 1))
    accountant = BudgetAccountant()
    clf = PrivateProperClassifier(method=method, classes="data", accountant=accountant,
                                  **({"delta": 1e-6} if method == "littlestone"
                                     else {"bounds": (0, 1)}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with pytest.raises(ValueError, match=match):
            clf.fit(X, y)
    assert accountant.spent.n_not_private == 1 and accountant.spent.epsilon == 0

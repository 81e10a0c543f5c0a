"""Online FTPL (PerturbedERMClassifier.partial_fit): the O(1)-per-round past
(an exact oracle's additive statistic, or a shared append-only row buffer),
cached parameter validation, and multiclass online learning."""

import copy
import pickle
import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from sksmooth.perturbed import (
    BoxScaledClassifier,
    DepthTwoTreeERMClassifier,
    FiniteClassERMClassifier,
    MulticlassDepthTwoTreeERMClassifier,
    MulticlassStumpERMClassifier,
    ParityERMClassifier,
    PerturbedERMClassifier,
    StumpERMClassifier,
)
from sksmooth.perturbed._ftpl import PastRows, PastStatistic


class RowStumps(StumpERMClassifier):
    """The stump oracle forced onto the row path (it overrides ``_fit_pm1``)."""

    def _fit_pm1(self, X, y_pm1, weights):
        return super()._fit_pm1(X, y_pm1, weights)


def _threshold_stream(T, d=3, seed=0, noise=0.05):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(T, d))
    y = (X[:, 0] > 0.37).astype(int) ^ (rng.random(T) < noise)
    return X, y


def _play(clf, X, y, batch):
    for start in range(0, len(X), batch):
        clf.partial_fit(X[start:start + batch], y[start:start + batch])
    return clf


# ------------------------------------------------------- the statistic path
class _RowMulticlass(MulticlassStumpERMClassifier):
    def _fit_codes(self, X, codes, weights):
        return super()._fit_codes(X, codes, weights)


@pytest.mark.parametrize("fast_oracle, row_oracle", [
    (StumpERMClassifier(n_thresholds=7), RowStumps(n_thresholds=7)),
    (MulticlassStumpERMClassifier(n_thresholds=7), _RowMulticlass(n_thresholds=7)),
], ids=["binary", "multiclass-oracle"])
def test_statistic_path_plays_the_same_leaders_as_refitting_on_all_rows(fast_oracle,
                                                                        row_oracle):
    """Same seed, same draws: the leader from the running statistic equals
    the leader refitted on all past rows + hallucinated rows, every round."""
    X, y = _threshold_stream(300)
    fast = PerturbedERMClassifier(fast_oracle, bounds=(0, 1), classes=[0, 1], random_state=3)
    slow = PerturbedERMClassifier(row_oracle, bounds=(0, 1), classes=[0, 1], random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for start in range(0, 300, 5):
            fast.partial_fit(X[start:start + 5], y[start:start + 5])
            slow.partial_fit(X[start:start + 5], y[start:start + 5])
            assert (fast.estimator_.feature_, fast.estimator_.threshold_) == (
                slow.estimator_.feature_, slow.estimator_.threshold_)
    assert isinstance(fast._run.past, PastStatistic)
    assert isinstance(slow._run.past, PastRows)
    assert fast.cumulative_loss_ == slow.cumulative_loss_


@pytest.mark.parametrize("make", [
    lambda: (ParityERMClassifier(), None),
    lambda: (FiniteClassERMClassifier(np.array([[-1, 1, 1], [-1, -1, 1], [1, 1, -1],
                                                [1, -1, -1]])), None),
], ids=["parity", "finite-class"])
def test_statistic_path_for_parity_and_finite_class_oracles(make):
    oracle, _ = make()
    rng = np.random.default_rng(0)
    if isinstance(oracle, ParityERMClassifier):
        X = rng.integers(0, 2, size=(200, 3)).astype(float)
        y = (X[:, 0] + X[:, 2]) % 2
    else:
        X = rng.integers(0, 4, size=(200, 1)).astype(float)
        y = (X[:, 0] >= 2).astype(int)
    clf = _play(PerturbedERMClassifier(oracle, classes=[0, 1], random_state=0), X, y, 10)
    assert isinstance(clf._run.past, PastStatistic)
    # the statistic equals the one of all rows at once
    run = clf._run
    whole = oracle._erm_accumulate(oracle._erm_prepare(X), np.where(y == 1, 1.0, -1.0),
                                   np.ones(len(X)))
    assert np.allclose(run.past.statistic, whole)
    assert clf.cumulative_loss_ < 0.3 * len(X)  # chance: 0.5


def test_memory_of_an_exact_oracle_run_does_not_grow_with_the_rows():
    """O(1) state: the pickled estimator after 2000 rows is the size it was
    after 100 (before, the run kept every row)."""
    X, y = _threshold_stream(2000)
    clf = PerturbedERMClassifier(bounds=(0, 1), classes=[0, 1], random_state=0)
    _play(clf, X[:100], y[:100], 10)
    small = len(pickle.dumps(clf))
    _play(clf, X[100:], y[100:], 10)
    assert abs(len(pickle.dumps(clf)) - small) < 1000
    assert clf._run.n == 2000


@pytest.mark.parametrize("oracle_class", [DepthTwoTreeERMClassifier, StumpERMClassifier],
                         ids=["default-trees", "stumps"])
def test_each_round_touches_only_its_rows_and_the_separating_points(monkeypatch,
                                                                     oracle_class):
    """O(1) work per round: the oracle only ever accumulates the round's own
    rows or the m hallucinated ones, never the t past rows (before, every
    round refitted on all of them)."""
    sizes = []
    original = oracle_class._erm_accumulate

    def spy(self, prepared, *args, **kwargs):
        sizes.append(prepared.n_rows)
        return original(self, prepared, *args, **kwargs)

    monkeypatch.setattr(oracle_class, "_erm_accumulate", spy)
    X, y = _threshold_stream(500)
    oracle = None if oracle_class is DepthTwoTreeERMClassifier else StumpERMClassifier(128)
    clf = _play(PerturbedERMClassifier(oracle, bounds=(0, 1), classes=[0, 1],
                                       random_state=0), X, y, 5)
    assert isinstance(clf.estimator_, oracle_class)
    m = clf.n_hallucinated_
    assert set(sizes) <= {0, 5, m}
    assert sizes.count(m) == clf.n_rounds_ + 1  # one perturbation per leader
    assert clf.cumulative_loss_ < 0.15 * len(X)


# ------------------------------------------------------------ row buffer
def test_row_buffer_is_shared_by_copies_but_never_corrupted():
    past = PastRows.empty(1)
    a = past.append(np.array([[1.0]]), np.array([1.0]), None)
    twin = copy.deepcopy(a)
    assert twin is a  # shared, not copied
    b = a.append(np.array([[2.0]]), np.array([-1.0]), None)  # in place
    c = twin.append(np.array([[3.0]]), np.array([1.0]), None)  # diverges: own buffer
    assert b.rows()[0].ravel().tolist() == [1.0, 2.0]
    assert c.rows()[0].ravel().tolist() == [1.0, 3.0]
    assert a.rows()[0].ravel().tolist() == [1.0]
    restored = pickle.loads(pickle.dumps(b))
    assert restored.rows()[0].ravel().tolist() == [1.0, 2.0]


def test_deepcopy_twins_of_a_heuristic_run_continue_independently():
    X, y = _threshold_stream(200)
    clf = PerturbedERMClassifier(DecisionTreeClassifier(max_depth=2, random_state=0),
                                 bounds=(0, 1), classes=[0, 1], random_state=0)
    _play(clf, X[:100], y[:100], 10)
    twin = copy.deepcopy(clf)
    _play(clf, X[100:150], y[100:150], 10)
    _play(twin, X[150:200], y[150:200], 10)
    assert np.array_equal(clf._run.past.rows()[0], X[:150])
    assert np.array_equal(twin._run.past.rows()[0], np.r_[X[:100], X[150:200]])


# ---------------------------------------------------- cached validation
def test_a_parameter_changed_between_rounds_is_validated():
    X, y = _threshold_stream(40)
    clf = _play(PerturbedERMClassifier(bounds=(0, 1), classes=[0, 1]), X[:20], y[:20], 10)
    clf.set_params(refit_every=0)
    with pytest.raises(ValueError, match="refit_every"):
        clf.partial_fit(X[20:30], y[20:30])
    clf.set_params(refit_every=2)
    _play(clf, X[20:], y[20:], 10)
    assert clf.n_rounds_ == 4


def test_a_run_with_a_strided_box_continues_after_pickle_and_deepcopy():
    # bounds given as strided views (columns of one (d, 2) array, as a box read from a
    # table is): the unpickled or deep-copied run held contiguous copies of equal value,
    # and the "changed since the first call" check, which hashed the memory layout,
    # refused its next round
    X, y = _threshold_stream(40)
    box = np.column_stack([np.zeros(3), np.ones(3)])
    clf = _play(PerturbedERMClassifier(bounds=(box[:, 0], box[:, 1]), classes=[0, 1],
                                       random_state=0), X[:20], y[:20], 10)
    for twin in (pickle.loads(pickle.dumps(clf)), copy.deepcopy(clf)):
        _play(twin, X[20:], y[20:], 10)
        assert twin.n_rounds_ == 4


def test_the_run_s_estimator_changed_in_place_by_set_params_is_refused():
    # set_params(estimator__n_thresholds=...) changes the object in place: the cache of
    # checked parameters compared it by identity, so the change was silently ignored
    X, y = _threshold_stream(40)
    clf = _play(PerturbedERMClassifier(estimator=StumpERMClassifier(8), bounds=(0, 1),
                                       classes=[0, 1], random_state=0), X[:20], y[:20], 10)
    clf.set_params(estimator__n_thresholds=16)
    with pytest.raises(ValueError, match="estimator was changed since the first partial_fit"):
        clf.partial_fit(X[20:30], y[20:30])
    clf.set_params(estimator__n_thresholds=8)
    _play(clf, X[20:], y[20:], 10)
    assert clf.n_rounds_ == 4


@pytest.mark.parametrize("name, value", [
    ("online_perturbation", "labels"), ("bounds", (0, 0.01)), ("classes", [0, 1, 2]),
    ("estimator", StumpERMClassifier(8)), ("separating_points", "uniform"),
    ("n_hallucinated", 32), ("noise", "theory"), ("random_state", 5),
])
def test_a_parameter_the_run_was_set_up_with_cannot_change_mid_run(name, value):
    # set_params between rounds crashed with an internal AttributeError
    # (online_perturbation) or was silently ignored (bounds, classes, estimator, ...):
    # the run's oracle, box, separating points and noise rule come from round 1
    X, y = _threshold_stream(40)
    clf = _play(PerturbedERMClassifier(bounds=(0, 1), classes=[0, 1], random_state=0),
                X[:20], y[:20], 10)
    before = pickle.dumps(clf._run)
    clf.set_params(**{name: value})
    with pytest.raises(ValueError, match=f"{name} was changed since the first partial_fit"):
        clf.partial_fit(X[20:30], y[20:30])
    assert pickle.dumps(clf._run) == before and clf.n_rounds_ == 2
    clf.set_params(**{name: PerturbedERMClassifier(bounds=(0, 1), classes=[0, 1],
                                                   random_state=0).get_params()[name]})
    clf.set_params(bounds=(0.0, 1.0), horizon=100, refit_every=2)  # equal value; per-round ones
    _play(clf, X[20:], y[20:], 10)
    assert clf.n_rounds_ == 4


def test_fast_path_refuses_what_validate_data_refuses():
    X, y = _threshold_stream(40)
    clf = _play(PerturbedERMClassifier(bounds=(0, 1), classes=[0, 1]), X[:20], y[:20], 10)
    for Xb, yb in [(X[20:30, :2], y[20:30]), (np.r_[X[20:29], [[np.nan, 0, 0]]], y[20:30]),
                   (X[20:30], y[20:29]), (X[:0], y[:0])]:
        with pytest.raises(ValueError):
            clf.partial_fit(Xb, yb)
    assert clf.n_rounds_ == 2


# ------------------------------------------------------------ multiclass
def _three_class_stream(T, seed=0, noise=0.05):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(T, 3))
    y = np.digitize(X[:, 1], [0.3, 0.7])  # a 3-leaf rule on one feature
    flip = rng.random(T) < noise
    y[flip] = rng.integers(0, 3, size=flip.sum())
    return X, np.array(["low", "mid", "high"])[y]


@pytest.mark.parametrize("perturbation", ["hallucinated", "labels"])
def test_multiclass_ftpl_learns_a_three_class_stream(perturbation):
    """A stump with a label per side cannot fit a 3-interval rule (the best
    in hindsight gets one interval wrong: ~0.3 T mistakes plus noise); exact
    multiclass FTPL (grid trees) must be within 0.05 T of it and far from
    chance (2/3 T)."""
    T = 1500
    X, y = _three_class_stream(T)
    clf = PerturbedERMClassifier(MulticlassDepthTwoTreeERMClassifier(n_thresholds=32),
                                 bounds=(0, 1), classes=["low", "mid", "high"],
                                 online_perturbation=perturbation, random_state=0)
    _play(clf, X, y, 10)
    best = MulticlassStumpERMClassifier(n_thresholds=128, bounds=(0, 1)).fit(X, y)
    best_loss = np.sum(best.predict(X) != y)
    assert clf.cumulative_loss_ <= best_loss + 0.05 * T
    assert clf.cumulative_loss_ < 0.5 * T
    assert set(clf.classes_) == {"low", "mid", "high"}
    assert set(clf.predict(X)) <= set(clf.classes_)
    assert np.isnan(clf.regret_bound_) and "binary" in clf.regret_report_.reason
    if perturbation == "hallucinated":
        assert isinstance(clf._run.past, PastStatistic)
        assert isinstance(clf.estimator_, MulticlassStumpERMClassifier)


def _sector_stream(T, n_classes=6, seed=0):
    """Labels by the angle of ``x`` around the centre of the box ``[0, 10]^2``:
    linearly separable (argmax of ``<w_c, x - centre>``), but no depth-2 tree
    (four leaves) can name more than four of the labels."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 10, size=(T, 2))
    angle = np.arctan2(X[:, 1] - 5, X[:, 0] - 5) + np.pi
    return X, (angle * n_classes / (2 * np.pi)).astype(int) % n_classes


def test_multiclass_online_default_names_every_label():
    """The default online learner on a multiclass target (logistic regression on
    the unit box) names every label; the exact trees it replaced name at most 4."""
    X, y = _sector_stream(600)
    clf = _play(PerturbedERMClassifier(bounds=(0, 10), classes=range(6), random_state=0),
                X, y, 10)
    assert isinstance(clf.estimator_, BoxScaledClassifier)
    assert set(clf.predict(X)) == set(range(6))
    assert clf.score(X, y) > 0.7  # four of six sectors at best: 0.67
    assert clf.cumulative_loss_ < 0.4 * len(y)
    assert clf.guarantee_.claim.startswith("no regret bound")
    assert "LogisticRegression is not an exact 0-1 ERM" in clf.guarantee_.claim
    assert clf._run.n_refits < 40  # the geometric schedule, not a refit per round
    binary = _play(PerturbedERMClassifier(bounds=(0, 10), classes=[0, 1], random_state=0),
                   X, y > 2, 10)
    assert isinstance(binary.estimator_, DepthTwoTreeERMClassifier)


def test_online_default_oracle_shows_no_convergence_warning_but_a_users_does(monkeypatch):
    """The default's refits stop at max_iter by design; sklearn's warning would
    tell the user to raise the max_iter of an estimator they never passed."""
    from sklearn.exceptions import ConvergenceWarning

    from sksmooth.perturbed import _setup
    monkeypatch.setattr(_setup, "ONLINE_MULTICLASS_MAX_ITER", 1)  # every refit stops early
    X, y = _sector_stream(30, n_classes=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        _play(PerturbedERMClassifier(bounds=(0, 10), classes=range(3), random_state=0),
              X, y, 10)
    own = BoxScaledClassifier(LogisticRegression(max_iter=1), bounds=(0, 10))
    with pytest.warns(ConvergenceWarning):
        _play(PerturbedERMClassifier(own, bounds=(0, 10), classes=range(3), random_state=0),
              X, y, 10)


def test_box_scaled_classifier_fits_on_the_unit_cube():
    rng = np.random.default_rng(0)
    lower, upper = np.array([0.0, -50.0]), np.array([10.0, 150.0])
    X = rng.uniform(lower, upper, size=(200, 2))
    y = (X[:, 0] / 10 + (X[:, 1] + 50) / 200 > 1).astype(int)
    scaled = BoxScaledClassifier(LogisticRegression(), bounds=(lower, upper)).fit(X, y)
    direct = LogisticRegression().fit((X - lower) / (upper - lower), y)
    np.testing.assert_allclose(scaled.estimator_.coef_, direct.coef_)
    np.testing.assert_allclose(scaled.predict_proba(X[:5]),
                               direct.predict_proba((X[:5] - lower) / (upper - lower)))


def test_multiclass_ftpl_with_a_heuristic_oracle_and_labels_from_the_first_batch():
    X, y = _three_class_stream(600)
    clf = PerturbedERMClassifier(DecisionTreeClassifier(max_depth=2, random_state=0),
                                 bounds=(0, 1), random_state=0)
    _play(clf, X, y, 20)
    assert clf.classes_.tolist() == ["high", "low", "mid"]
    assert clf.score(X, y) > 0.8


@pytest.mark.parametrize("classes", ["data", None])
def test_a_binary_run_reads_its_labels_from_the_first_batch(classes):
    # classes='data' raised a TypeError (len() of the string 'data') on binary streams
    X, y = _threshold_stream(40)
    clf = PerturbedERMClassifier(StumpERMClassifier(3), bounds=(0, 1), classes=classes,
                                 random_state=0)
    _play(clf, X, y, 20)
    assert clf.classes_.tolist() == [0, 1]


def test_failed_multiclass_round_changes_nothing():
    X, y = _three_class_stream(60)
    clf = PerturbedERMClassifier(bounds=(0, 1), classes=["low", "mid", "high"],
                                 random_state=0)
    _play(clf, X[:30], y[:30], 10)
    before = pickle.dumps(clf)
    with pytest.raises(ValueError, match="outside classes_"):
        clf.partial_fit(X[30:40], np.where(np.arange(10) == 3, "other", y[30:40]))
    assert pickle.dumps(clf) == before
    with pytest.raises(ValueError, match="binary exact oracle"):
        PerturbedERMClassifier(StumpERMClassifier(), bounds=(0, 1),
                               classes=["low", "mid", "high"]).partial_fit(X, y)


class _FailingStatisticOracle(StumpERMClassifier):
    """Fails inside the statistic path's selection while ``armed`` is set."""

    armed = False

    def _fit_statistic(self, statistic, prepared):
        if _FailingStatisticOracle.armed:
            raise ValueError("oracle failure")
        return super()._fit_statistic(statistic, prepared)


def test_oracle_failure_on_the_statistic_path_changes_nothing():
    X, y = _threshold_stream(60)
    clf = PerturbedERMClassifier(_FailingStatisticOracle(n_thresholds=4), bounds=(0, 1),
                                 classes=[0, 1], random_state=0)
    _play(clf, X[:30], y[:30], 10)
    assert isinstance(clf._run.past, PastStatistic)
    before, twin = pickle.dumps(clf), copy.deepcopy(clf)
    _FailingStatisticOracle.armed = True
    try:
        with pytest.raises(ValueError, match="oracle failure"):
            clf.partial_fit(X[30:40], y[30:40])
    finally:
        _FailingStatisticOracle.armed = False
    assert pickle.dumps(clf) == before
    _play(clf, X[30:], y[30:], 10)
    _play(twin, X[30:], y[30:], 10)
    assert clf.cumulative_loss_ == twin.cumulative_loss_
    assert np.array_equal(clf._run.past.statistic, twin._run.past.statistic)


def test_a_one_class_round_with_a_heuristic_oracle_fits():
    # the constant fallback gave the dummy oracle one more label than rows: a
    # single-row first round with online_perturbation='labels' always raised, and
    # a private fit raised only when every label was one class (an uncharged
    # release; found by a new-user review)
    from sklearn.linear_model import LogisticRegression

    from sksmooth.perturbed import PerturbedERMClassifier

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(40, 2))
    y = (X[:, 0] > 0.5).astype(int)
    clf = PerturbedERMClassifier(LogisticRegression(), online_perturbation="labels",
                                 bounds=(0, 1), classes=[0, 1])
    for i in range(5):
        clf.partial_fit(X[i:i + 1], y[i:i + 1])
    assert clf.predict(X).shape == (40,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(30):  # 6 of 40 such fits raised before
            PerturbedERMClassifier(LogisticRegression(), n_hallucinated=2, bounds=(0, 1),
                                   classes=[0, 1], random_state=seed,
                                   allow_non_private=True).fit(X, np.ones(40, int))


# ---------------------------------------------- the guarantee of the run
def _stump_run(**params):
    return PerturbedERMClassifier(StumpERMClassifier(n_thresholds=2), bounds=(0.0, 1.0),
                                  classes=[0, 1], noise="theory", **params)


def test_a_run_once_lazy_is_never_certified_by_thm_1():
    # 399 lazy rounds then one with refit_every=1 certified Thm 1's bound (a review)
    X, y = _threshold_stream(400, d=1)
    clf = _stump_run(horizon=400, refit_every=100)
    _play(clf, X[:399], y[:399], 1)
    assert np.isnan(clf.regret_bound_)
    clf.set_params(refit_every=1)
    _play(clf, X[399:], y[399:], 1)
    assert np.isnan(clf.regret_bound_) and np.isnan(clf.regret_bound())
    assert not clf.guarantee_.certified and "lazy" in clf.regret_report_.reason
    fresh = _play(_stump_run(horizon=400), X, y, 1)  # never lazy: the bound applies
    assert np.isfinite(fresh.regret_bound_) and np.isfinite(fresh.regret_bound())


def test_a_seeded_run_is_not_certified_against_an_adaptive_adversary():
    # whoever knows the seed predicts every perturbation; fit said so, partial_fit did
    # not (a review)
    X, y = _threshold_stream(50, d=1)
    seeded = _play(_stump_run(horizon=50, random_state=0), X, y, 1)
    fresh = _play(_stump_run(horizon=50), X, y, 1)
    assert "random_state is set" in " ".join(seeded.guarantee_.assumptions_not_certified)
    assert not seeded.guarantee_.certified
    assert not [p for p in fresh.guarantee_.assumptions_not_certified if "random_state" in p]


def test_a_round_s_snapshot_shares_what_the_run_fixed_at_its_start():
    # the atomic snapshot deep-copied the separating points and their prepared rows
    # every round: most of a round's time (a review)
    X, y = _threshold_stream(20, d=3)
    clf = _play(_stump_run(), X, y, 5)
    run = clf._run
    twin = copy.deepcopy(run)
    for name in ("Z", "hallucinated_rows", "hallucinated", "calibration", "codec", "oracle"):
        assert getattr(twin, name) is getattr(run, name)
    assert twin.rng is not run.rng and twin.past is not None
    before = run.rng.bit_generator.state
    twin.rng.random()
    assert run.rng.bit_generator.state == before


def test_a_heuristic_oracle_refits_on_a_geometric_schedule():
    # it refitted on every past row each round: O(T^2) rows of oracle work, 19x SGD's
    # time (issue 37); 'auto' refits once the rows grew by 1/8
    from sklearn.linear_model import LogisticRegression

    from sksmooth.perturbed import PerturbedERMClassifier

    fitted_rows = []

    class CountingLR(LogisticRegression):
        def fit(self, X, y, sample_weight=None):
            fitted_rows.append(len(y))
            return super().fit(X, y, sample_weight=sample_weight)

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(400, 2))
    y = (X[:, 0] + X[:, 1] > 1).astype(int)
    clf = PerturbedERMClassifier(CountingLR(), bounds=(0, 1), classes=[0, 1])
    for start in range(0, 400, 4):
        clf.partial_fit(X[start:start + 4], y[start:start + 4])
    m = clf.n_hallucinated_
    assert len(fitted_rows) <= 40  # 101 before (one per round, and the first leader)
    assert sum(fitted_rows) - m * len(fitted_rows) <= 10 * 400  # O(T) rows, 20 000 before
    assert clf.cumulative_loss_ < 0.15 * 400
    assert any(f"refitted {len(fitted_rows) - 1} times in 100 rounds" in note
               for note in clf.guarantee_.notes)


def test_box_scaled_classifier_defaults_to_logistic_regression_and_takes_any_classifier():
    from sklearn.neighbors import KNeighborsClassifier

    X = np.random.default_rng(0).uniform(0, 10, size=(30, 2))
    y = (X[:, 0] > 5).astype(int)
    assert isinstance(BoxScaledClassifier(bounds=(0, 10)).fit(X, y).estimator_,
                      LogisticRegression)  # estimator=None: clone(None) raised
    knn = BoxScaledClassifier(KNeighborsClassifier(3), bounds=(0, 10)).fit(X, y)
    assert knn.score(X, y) > 0.8  # its fit takes no sample_weight, not even None


def test_a_default_box_scaled_oracle_is_named_as_the_model_it_fits():
    # estimator=None fits LogisticRegression(); the refusal and guarantee_ said "NoneType"
    X = np.random.default_rng(0).uniform(0, 10, size=(30, 2))
    y = (X[:, 0] > 5).astype(int)
    clf = PerturbedERMClassifier(BoxScaledClassifier(), bounds=(0, 10), classes=[0, 1])
    with pytest.raises(ValueError, match="^PerturbedERMClassifier.fit: LogisticRegression is"):
        clf.fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = str(clf.set_params(allow_non_private=True).fit(X, y).guarantee_)
    assert "oracle LogisticRegression is a heuristic" in text and "NoneType" not in text

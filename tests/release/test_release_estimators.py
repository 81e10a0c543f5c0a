"""scikit-learn conformance of the release estimators, outputs, bad input, ledger."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from sksmooth.accounting import (
    BudgetAccountant,
    zcdp_exponential,
    zcdp_from_dp_budget,
    zcdp_gaussian,
    zcdp_to_dp,
)
from sksmooth.datasets import load_wine_public
from sksmooth.exceptions import BudgetError, PrivacyLeakWarning, PrivacyWarning
from sksmooth.release import (
    AdaptiveMarginalSynthesizer,
    GaussianPerQuery,
    LaplacePerQuery,
    MWEM,
    ProjectedSmoothMWEM,
    QueryRounds,
    SmoothMWEM,
    SubsampledNetMechanism,
    TableRounds,
    Workload,
)

_SYNTHETIC = (
    "transform returns fresh synthetic rows drawn from the released distribution, "
    "not a row-wise function of its input (privacy design: the input rows are not used)"
)
_NO_SUPERVISED_TRANSFORM = (
    "fit_transform(X, y) raises by design: a supervised Pipeline or ColumnTransformer "
    "would pair synthetic X with the real y (SPEC 7); fit_resample / as_sampler() instead"
)
_EXPECTED_TRANSFORMER = {
    "check_methods_subset_invariance": _SYNTHETIC,
    "check_methods_sample_order_invariance": _SYNTHETIC,
    "check_fit_score_takes_y": _NO_SUPERVISED_TRANSFORM,
    "check_pipeline_consistency": _NO_SUPERVISED_TRANSFORM,
    "check_transformer_general": _NO_SUPERVISED_TRANSFORM,
    "check_transformer_general(readonly_memmap=True)": _NO_SUPERVISED_TRANSFORM,
    "check_transformer_data_not_an_array": _NO_SUPERVISED_TRANSFORM,
    "check_transformer_preserve_dtypes": _NO_SUPERVISED_TRANSFORM,
}


_COMPLEX_IS_A_VALUE = (
    "a complex dtype follows the values (one complex entry in a list or a DataFrame "
    "column): a real-valued entry reads as its real part, any other as missing, "
    "never refused (the refusal would be a release)"
)


def _expected(estimator):
    if isinstance(estimator, (MWEM, SubsampledNetMechanism)):
        return {**_EXPECTED_TRANSFORMER, "check_complex_data": _COMPLEX_IS_A_VALUE}
    return {"check_complex_data": _COMPLEX_IS_A_VALUE}


@parametrize_with_checks(
    [
        # sklearn's checks pass a y of their own (labels one more column): its label set
        # is read with the opt-in classes='data' (not private; public path tested below)
        # one configuration per class; a sampled universe (universe=<int>) is MWEM's
        # code, checked through ProjectedSmoothMWEM below
        MWEM(bounds=(-10, 10), classes="data", random_state=0),
        SmoothMWEM(sigma=0.5, n_bins=8, bounds=(-10, 10), classes="data", random_state=0),
        ProjectedSmoothMWEM(sigma=0.5, universe=300, bounds=(-10, 10),
                            classes="data", rounds=QueryRounds(n_iter=3), random_state=0),
        SubsampledNetMechanism(bounds=(-10, 10), n_universe=50, n_candidates=200,
                               synthetic_size=20, classes="data",
                               random_state=0, queries=Workload(n_queries=50)),
        LaplacePerQuery(bounds=(-10, 10), classes="data", random_state=0),
        GaussianPerQuery(bounds=(-10, 10), classes="data", random_state=0),
        # levels=3: levels are never read from the data; other values map to level 0
        AdaptiveMarginalSynthesizer(epsilon=1.0, levels=3, classes="data", random_state=0),
    ],
    expected_failed_checks=_expected,
)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        check(estimator)


def _binary_data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 4)) < [0.2, 0.5, 0.7, 0.9]).astype(float)
    X[:, 1] = np.where(rng.random(n) < 0.8, X[:, 0], X[:, 1])
    return X


_BIN = dict(levels={0: int, 1: int, 2: int, 3: int}, bounds=(0, 1))


def test_outputs_and_reproducibility():
    X = _binary_data()
    m = MWEM(epsilon=1.0, random_state=3, **_BIN).fit(X)
    assert m.distribution_.shape == (16,)
    assert m.distribution_.sum() == pytest.approx(1.0)
    assert np.all(m.distribution_ >= 0)
    Xs = m.sample(50, random_state=0)
    assert Xs.shape == (50, 4) and set(np.unique(Xs)) <= {0.0, 1.0}
    np.testing.assert_array_equal(Xs, m.sample(50, random_state=0))
    assert m.transform(X[:7]).shape == (7, 4)
    Xu, yu = m.universe_
    assert Xu.shape == (16, 4) and yu is None
    answers = m.answer()
    assert answers.shape == (m.n_queries_,) and m.n_queries_ == 6 * 4 + 4 * 2  # 2- and 1-way
    # any finite query set: a callable, and an object with evaluate()
    a = m.answer(lambda Z: Z[:, :2] == 1)
    np.testing.assert_allclose(a, [Xu[:, 0] @ m.distribution_, Xu[:, 1] @ m.distribution_])
    m2 = MWEM(epsilon=1.0, random_state=3, **_BIN).fit(X)
    np.testing.assert_array_equal(m.distribution_, m2.distribution_)
    assert m.privacy_spent_ == (1.0, 0.0)
    # a seeded release is reproducible, hence not certified
    assert not m.guarantee_.certified
    m3 = MWEM(epsilon=1.0, **_BIN).fit(X)
    assert m3.guarantee_.certified
    assert "substitution" in m3.guarantee_.claim


def test_fit_resample_labels_are_an_attribute():
    X = _binary_data()
    y = np.where(X[:, 0] > 0, "yes", "no")
    m = MWEM(epsilon=2.0, classes=["no", "yes"], random_state=0, **_BIN)
    Xs, ys = m.fit_resample(X, y)
    assert Xs.shape == X.shape and ys.shape == y.shape
    assert set(ys) <= {"no", "yes"}
    assert m.distribution_.shape == (32,)
    # the label is a grid attribute: tables include it
    assert any(4 in t for t in m.workload_.tables)
    with pytest.warns(PrivacyLeakWarning, match="classes"):
        MWEM(epsilon=1.0, random_state=0, classes="data", **_BIN).fit(X, y)


def test_average_and_last_iterates_are_both_reported():
    X = _binary_data()
    m = MWEM(epsilon=1.0, random_state=0, **_BIN, rounds='query').fit(X)
    assert m.output_ == "average"
    np.testing.assert_array_equal(m.distribution_, m.distribution_average_)
    m = MWEM(epsilon=1.0, random_state=0, **_BIN).fit(X)
    assert m.output_ == "last"
    np.testing.assert_array_equal(m.distribution_, m.distribution_last_)


def test_never_reselects_a_measured_candidate():
    X = _binary_data()
    m = MWEM(epsilon=1.0, random_state=0, **_BIN, rounds=TableRounds(n_iter=6)).fit(X)
    assert len(set(m.selected_)) == len(m.selected_) == 6
    m = MWEM(epsilon=1.0, random_state=0, **_BIN, rounds=TableRounds(n_iter=50)).fit(X)
    assert m.n_iter_ == 6 + 4  # capped at the number of tables (2- and 1-way)


def test_accountant_charged_once_and_refuses_over_budget():
    X = _binary_data()
    acc = BudgetAccountant(epsilon=1.5)
    MWEM(epsilon=1.0, accountant=acc, random_state=0, **_BIN).fit(X)
    assert acc.spent.epsilon == pytest.approx(1.0)
    m = MWEM(epsilon=1.0, accountant=acc, random_state=0, **_BIN)
    with pytest.raises(BudgetError):
        m.fit(X)
    assert not hasattr(m, "distribution_")
    assert acc.spent.epsilon == pytest.approx(1.0)
    # clone keeps the same ledger
    SubsampledNetMechanism(epsilon=0.5, accountant=acc, n_universe=20, synthetic_size=5,
                           n_candidates=50, random_state=0, **_BIN).fit(X)
    assert clone(m).accountant is acc
    assert acc.spent.epsilon == pytest.approx(1.5)


def test_verbose_reports_rounds_only_after_the_charge(capsys):
    X = _binary_data()
    acc = BudgetAccountant(epsilon=1.5)
    m = MWEM(epsilon=1.0, accountant=acc, random_state=0, verbose=1,
             **_BIN, rounds=TableRounds(n_iter=5)).fit(X)
    err = capsys.readouterr().err
    assert "[MWEM] charged (1, 0); 5 rounds of selection and measurement" in err
    assert f"{len(m.selected_)}/5" in err
    with pytest.raises(BudgetError):
        clone(m).fit(X)
    assert capsys.readouterr().err == ""  # a refused release prints nothing


def test_sample_universe_halfspaces_and_pickle():
    rng = np.random.default_rng(0)
    X = rng.normal(0.5, 0.1, size=(300, 2))
    y = (X[:, 0] > 0.5).astype(int)
    m = MWEM(epsilon=1.0, universe=500, bounds=(0, 1), classes=[0, 1], random_state=0, queries=Workload(kind="halfspaces", n_queries=60)).fit(X, y)
    assert m.distribution_.shape == (500,)
    Xs, ys = m.sample(10, random_state=1)
    assert Xs.shape == (10, 2) and set(ys) <= {0, 1}
    m2 = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(m2.answer(), m.answer())


@pytest.mark.parametrize("cls", [MWEM, GaussianPerQuery])
def test_a_sampled_universe_beyond_memory_is_refused_before_any_charge(cls):
    # 2**28 sampled points of 3 columns would need ~18 GiB (the fuzz over pairs of
    # extreme values hung on it with max_universe_size raised to the same cap)
    X = np.random.default_rng(0).uniform(size=(30, 2))
    accountant = BudgetAccountant()
    est = cls(universe=2**28, max_universe_size=2**28, bounds=(0, 1), classes=[0, 1],
              accountant=accountant)
    with pytest.raises(ValueError, match=r"universe of 268435456 points of 3 columns needs "
                                         r"about 18 GiB.*universe=int"):
        est.fit(X, np.arange(30) % 2)
    assert accountant.spent.epsilon == 0 and not hasattr(est, "guarantee_")


@pytest.mark.parametrize("measurement, l1", [("table", 2.0), ("query", 1.0)])
def test_pure_dp_rounds_compose_to_epsilon(measurement, l1):
    # basic composition: T x (selection eps + Laplace eps), Laplace eps = (L1/n) / scale,
    # L1 = 2 for a table (one cell -1/n, another +1/n), 1 for a query
    X = _binary_data()
    n = X.shape[0]
    rounds = (TableRounds if measurement == "table" else QueryRounds)(n_iter=5)
    m = MWEM(epsilon=1.5, rounds=rounds, random_state=0,
             **_BIN).fit(X)
    assert m.measurement_ == measurement and m.n_iter_ == 5
    eps_meas = (l1 / n) / m.noise_scale_
    assert 5 * (m.selection_epsilon_ + eps_meas) == pytest.approx(1.5, rel=1e-12)
    assert m.selection_epsilon_ / (m.selection_epsilon_ + eps_meas) == pytest.approx(
        m.selection_fraction_)


def test_delta_uses_gaussian_and_zcdp():
    X = _binary_data()
    m = MWEM(epsilon=1.0, delta=1e-6, random_state=0, **_BIN).fit(X)
    assert m.privacy_spent_ == (1.0, 1e-6)
    assert m.noise_scale_ > 0 and np.isfinite(m.selection_epsilon_)
    # the per-round mechanisms compose (zCDP, additive) back to exactly the budget:
    # T x (exponential eps_sel^2/8 + Gaussian Delta^2/(2 s^2)), table L2 Delta = sqrt(2)/n
    n, T = X.shape[0], m.n_iter_
    assert m.measurement_ == "table"
    rho = T * (zcdp_exponential(m.selection_epsilon_)
               + zcdp_gaussian(np.sqrt(2) / n, m.noise_scale_))
    assert rho == pytest.approx(zcdp_from_dp_budget(1.0, 1e-6), rel=1e-9)
    assert zcdp_to_dp(rho, 1e-6) <= 1.0 + 1e-9
    # single-query measurement: L2 sensitivity 1/n, selection sensitivity 1/n
    q = MWEM(epsilon=1.0, delta=1e-6, random_state=0,
             **_BIN, rounds=QueryRounds(n_iter=7)).fit(X)
    rho = 7 * (zcdp_exponential(q.selection_epsilon_) + zcdp_gaussian(1 / n, q.noise_scale_))
    assert rho == pytest.approx(zcdp_from_dp_budget(1.0, 1e-6), rel=1e-9)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(epsilon=0), "epsilon"),
        (dict(epsilon="a"), "epsilon"),
        (dict(delta=1.0), "delta"),
        (dict(cls=SmoothMWEM, sigma=0.0), "sigma"),
        (dict(cls=ProjectedSmoothMWEM), "sigma"),
        (dict(rounds="cells"), "rounds"),
        (dict(rounds=TableRounds(output="median")), "output"),
        (dict(universe="cube"), "universe"),
        (dict(queries="circles"), "queries"),
        (dict(queries=Workload(kind="circles")), "queries"),
        (dict(rounds=QueryRounds(n_iter=0)), "n_iter"),
        (dict(rounds=TableRounds(learning_rate=-1.0)), "learning_rate"),
        (dict(rounds=QueryRounds(selection_fraction=1.5)), "selection_fraction"),
        (dict(rounds=TableRounds(update="sgd")), "update"),
        (dict(n_bins=16, max_universe_size=10), "max_universe_size"),
        (dict(bounds=(1, 0)), "bounds"),
        (dict(accountant="ledger"), "accountant"),
        (dict(levels={7: int}), "levels"),
        (dict(queries="marginals", universe="sample"), "marginals"),
        (dict(queries=Workload(marginal_width=0)), "marginal_width"),
        (dict(unknown=1), "unknown"),
    ],
)
def test_bad_input_names_the_parameter(params, match):
    X = _binary_data()
    base = dict(bounds=(0, 1), random_state=0)
    base.update(params)
    cls = base.pop("cls", MWEM)
    with pytest.raises((ValueError, TypeError), match=match):
        cls(**base).fit(X)


def test_a_grid_too_large_names_the_n_bins_that_fits():
    # wine's 13 columns and 3 classes: 3^13 * 3 = 4.8e6 points fit 2^24, 4^13 * 3 do not
    X, y, box = load_wine_public(scale=False)
    est = ProjectedSmoothMWEM(sigma=0.1, n_bins=8, bounds=box, classes=[0, 1, 2])
    with pytest.raises(ValueError, match=r"lower n_bins \(now 8\) to at most 3,"):
        est.fit(X, y)
    with pytest.raises(ValueError, match=r"even n_bins=2 gives 1\.07e\+09 points \(30 "):
        MWEM(n_bins=4, bounds=(0, 1), max_universe_size=2**20,
             queries=lambda x: x[:, :1] > 0.5).fit(np.zeros((20, 30)))


def test_bad_data():
    m = MWEM(bounds=(0, 1), random_state=0)
    # bad VALUES are mapped by the public rule, never refused (an error would be a
    # release): NaN -> box centre, unknown label -> first class
    m.fit(np.array([[0.0, np.nan]]))
    MWEM(bounds=(0, 1), classes=[0, 1]).fit(np.zeros((3, 2)), [0, 1, 2])
    # bad STRUCTURE is public and refused
    with pytest.raises(ValueError, match="y"):
        m.fit(np.zeros((3, 2)), np.zeros(4))
    with pytest.raises(ValueError, match="answers only"):
        LaplacePerQuery(bounds=(0, 1)).fit(np.zeros((3, 2))).answer(lambda Z: Z > 0)
    with pytest.raises(ValueError, match="delta"):
        LaplacePerQuery(bounds=(0, 1), delta=0.1).fit(np.zeros((3, 2)))


def test_sigma_warns_that_smoothness_is_assumed():
    X = _binary_data()
    with pytest.warns(PrivacyWarning, match="sigma-smooth"):
        m = SmoothMWEM(epsilon=1.0, sigma=0.5, **_BIN).fit(X)
    # the privacy claim is certified; the accuracy assumption is reported
    assert m.guarantee_.certified
    assert any("sigma=0.5, 0)-smooth" in note for note in m.guarantee_.notes)


@pytest.mark.parametrize("method", ["fit", "fit_transform"])
def test_sigma_warning_names_the_callers_line(method):
    # it named sksmooth/_atomic.py (fit) or scikit-learn's set_output wrapper
    with pytest.warns(PrivacyWarning, match="sigma-smooth") as record:
        getattr(SmoothMWEM(epsilon=1.0, sigma=0.5, **_BIN), method)(_binary_data())
    assert {w.filename for w in record} == {__file__}


@pytest.mark.parametrize("make", [MWEM, LaplacePerQuery, AdaptiveMarginalSynthesizer])
def test_the_seeded_warning_names_the_callers_line(make):
    with pytest.warns(PrivacyLeakWarning, match="random_state is set") as record:
        make(bounds=(0, 1), random_state=0).fit(_binary_data())  # named _streaming.py
    assert {w.filename for w in record} == {__file__}


def test_subsampled_net_enumerates_small_candidate_sets():
    X = _binary_data()
    s = SubsampledNetMechanism(epsilon=1.0, universe="grid", n_universe=4, synthetic_size=3,
                               n_candidates=1000, random_state=0, **_BIN).fit(X)
    assert s.candidates_enumerated_ and s.n_candidates_ == 20  # C(4 + 3 - 1, 3)
    s = SubsampledNetMechanism(epsilon=1.0, n_universe=100, synthetic_size=30,
                               n_candidates=100, **_BIN).fit(X)
    assert not s.candidates_enumerated_
    assert any("sampled data-independently" in note for note in s.guarantee_.notes)
    assert s.guarantee_.certified
    assert s.distribution_.sum() == pytest.approx(1.0)
    assert s.sample(5).shape == (5, 4)


@pytest.mark.parametrize("make", [
    lambda: MWEM(levels={0: int, 1: int}, bounds=(0, 1), random_state=0, rounds=TableRounds(n_iter=2)),
    lambda: SubsampledNetMechanism(synthetic_size=2, n_candidates=10, n_universe=4,
                                   levels={0: int, 1: int}, bounds=(0, 1), random_state=0),
    lambda: LaplacePerQuery(levels={0: int, 1: int}, bounds=(0, 1), random_state=0),
])
def test_clipping_count_is_not_released(make):
    # Neighbours (substitution): D1 replaces one in-bounds row by an out-of-bounds
    # one. The number of clipped rows (0 vs 1) is an exact, noiseless statistic of
    # the private data: no fitted attribute or guarantee note may expose it.
    D0 = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    D1 = D0.copy()
    D1[0] = [-5.0, 1.0]  # clipped to [0, 1], same cell as the row it replaces
    f0, f1 = make().fit(D0), make().fit(D1)
    for attr in vars(f0):
        if attr.endswith("_") and not attr.startswith("_"):
            assert "clip" not in attr, attr
    assert not hasattr(f1, "n_clipped_")
    assert f0.guarantee_ == f1.guarantee_


@pytest.mark.parametrize("make", [
    lambda: MWEM(levels={0: int, 1: int}, bounds=(0, 1), random_state=0, rounds=TableRounds(n_iter=2)),
    lambda: SubsampledNetMechanism(synthetic_size=2, n_candidates=10, n_universe=4,
                                   levels={0: int, 1: int}, bounds=(0, 1), random_state=0),
    lambda: LaplacePerQuery(levels={0: int, 1: int}, bounds=(0, 1), random_state=0),
    lambda: GaussianPerQuery(levels={0: int, 1: int}, bounds=(0, 1), random_state=0),
])
def test_label_set_from_y_is_not_certified(make):
    # classes='data' reads the label set off the private y (PrivacyLeakWarning): the
    # guarantee must not be reported as certified even with public bounds
    X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    y = np.array([0, 1, 1, 0])
    with pytest.warns(PrivacyLeakWarning):
        est = make().set_params(classes="data").fit(X, y)
    assert not est.guarantee_.certified
    assert any("label" in a for a in est.guarantee_.assumptions_not_certified)
    est = make().set_params(classes=[0, 1], random_state=None).fit(X, y)
    assert est.guarantee_.certified


@pytest.mark.parametrize("make", [
    lambda: MWEM(bounds=(-1e308, 1e308)),
    lambda: MWEM(bounds=(-1e308, 1e308), universe="sample"),
    lambda: SubsampledNetMechanism(bounds=(-1e308, 1e308)),
], ids=["grid", "sample", "subsampled_net"])
def test_the_widest_public_bounds_give_finite_spread_rows(make):
    # the universe's bins and draws are computed on halves: the direct width
    # upper - lower overflows (OverflowError from the sampler before)
    X = np.random.default_rng(0).normal(size=(200, 2)) * 1e307
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = make().fit(X).sample(500)
    assert np.all(np.isfinite(rows)) and np.all(np.abs(rows) <= 1e308)
    assert np.all((rows / 1e300).std(axis=0) > 1e6)  # spread (scaled: no overflow)


def test_binned_columns_on_the_widest_bounds_give_finite_spread_rows():
    pd = pytest.importorskip("pandas")
    X = np.random.default_rng(0).normal(size=(200, 2)) * 1e307
    wide = {"a": (-1e308, 1e308), "b": (-1e308, 1e308)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = AdaptiveMarginalSynthesizer(bounds=wide).fit(
            pd.DataFrame(X, columns=["a", "b"])).sample(500).to_numpy()
    # before: the bin width overflowed to inf and every value came out as 1e308
    assert np.all(np.isfinite(rows)) and np.all((rows / 1e300).std(axis=0) > 1e6)


def test_a_seeded_release_transforms_reproducibly_and_a_fresh_one_does_not():
    # transform drew fresh OS entropy even for a seeded release: fit_transform of a
    # seeded estimator (or a seeded Pipeline) changed on every run (a review)
    X = _binary_data()
    a = MWEM(epsilon=1.0, random_state=0, **_BIN).fit_transform(X)
    b = MWEM(epsilon=1.0, random_state=0, **_BIN).fit_transform(X)
    np.testing.assert_array_equal(a, b)
    fresh = MWEM(epsilon=1.0, **_BIN).fit(X)
    assert not np.array_equal(fresh.transform(X), fresh.transform(X))



@pytest.mark.parametrize("queries", ["ranges", "thresholds"])
def test_interval_queries_count_rows_on_the_lower_bound(queries):
    # a row on the box's lower bound (the lowest level of a binary or categorical
    # column, every row clipped up from below) is in the intervals that start there
    X = np.zeros((500, 1))
    est = LaplacePerQuery(epsilon=1e6, bounds=(0, 1), universe="sample", random_state=0, queries=Workload(kind=queries, n_queries=10))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded release: PrivacyLeakWarning
        est.fit(X)
    contains_zero = np.asarray(est.workload_.evaluate(np.zeros((1, 1))), dtype=bool)[0]
    assert contains_zero.sum() >= 3  # the intervals starting at the bound, the whole box too
    np.testing.assert_allclose(est.answers_, contains_zero.astype(float), atol=1e-4)


def _auto_grid(X, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cls = SmoothMWEM if "sigma" in params else MWEM
        return cls(bounds=(0, 1), random_state=0, **params).fit(X)._universe.shape


def test_auto_grid_follows_epsilon_and_the_public_n_only():
    # the grid was 16 bins whatever epsilon and n (4 on a 7-column table: issue 36)
    rng = np.random.default_rng(0)
    X, other = rng.uniform(size=(5000, 2)), rng.beta(5, 1, size=(5000, 2))
    grids = [_auto_grid(X, epsilon=eps) for eps in (0.1, 1.0, 10.0)]
    # the documented rule of n_bins: the 2-way table and two 1-way tables, b^2 + 2 b
    # cells, within n eps 0.7 / (8 sqrt 2) (309 at eps = 1: b = 16)
    assert grids == [(6, 6), (16, 16), (54, 54)]
    assert _auto_grid(other, epsilon=1.0) == grids[1]  # the rows' values play no part
    assert _auto_grid(X[:500], epsilon=1.0)[0] < grids[1][0]


def test_tiny_sigma_grid_is_bounded():
    # sigma=1e-300 asked for ceil(n / sigma) bins, capped only by max_universe_size: a
    # 4096 x 4096 grid whose one measured table ran for minutes (issue 39)
    X = np.random.default_rng(0).uniform(size=(30, 2))
    assert _auto_grid(X, sigma=1e-300) == (256, 256)  # 2^16 cells per measured table


@pytest.mark.parametrize("estimator, labels", [
    # the box read from the rows gives column 0 no integer level: the message shows it
    (MWEM(bounds="data", levels={0: int}), None),
    # 7 labels read from y make the grid 112 points > 100: the message shows the size
    (MWEM(bounds=(0, 1), classes="data", max_universe_size=100, n_bins=4, rounds="query"), 7),
    (LaplacePerQuery(bounds="data", levels={0: int}), None),
])
def test_a_refusal_that_depends_on_what_was_read_from_the_rows_is_recorded_not_private(
        estimator, labels):
    rng = np.random.default_rng(0)
    X = np.c_[rng.uniform(0.2, 0.7, 30), rng.uniform(0, 1, 30)]
    y = None if labels is None else np.arange(30) % labels
    accountant = BudgetAccountant()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with pytest.raises(ValueError, match="integer level|grid universe has 112"):
            estimator.set_params(accountant=accountant).fit(X, y)
    assert accountant.spent.n_not_private == 1 and accountant.spent.epsilon == 0
    # declared (public) inputs: the same refusal reads nothing, so nothing is recorded
    public = clone(estimator).set_params(
        bounds=(0.2, 0.7) if labels is None else (0, 1),
        classes=None if labels is None else list(range(labels)), accountant=accountant)
    with pytest.raises(ValueError, match="integer level|grid universe has 112"):
        public.fit(X, y)
    assert accountant.spent.n_not_private == 1


# The noise each release hands its sampler, spied on a neighbouring pair (one row
# substituted; each sampler's own law is checked in tests/mechanisms): it must cover
# the counts' actual change at no more than the budget charged. A fault in the
# estimator's calibration (2x epsilon, half the noise) fails here in milliseconds;
# the catalog's end-to-end audits (tests/test_audits.py) catch it only with -m slow.
_PAIR = np.zeros((4, 1)), np.array([[0.0], [0.0], [0.0], [1.0]])
_ONE_TABLE = dict(sensitivity="structured", levels=int, bounds=(0, 1),
                  queries=Workload(kind="marginals", marginal_width=1))


def _noise_calls(monkeypatch, make, sampler):
    import sksmooth.release._privacy as privacy_module

    calls, real = [], getattr(privacy_module, sampler)

    def spy(counts, *args):
        calls.append((np.array(counts), *args[:-1]))
        return real(counts, *args)

    monkeypatch.setattr(privacy_module, sampler, spy)
    fitted = [make().fit(X) for X in _PAIR]
    assert len(calls) == 2
    return fitted, calls


def test_laplace_per_query_noise_covers_a_substitution_at_the_charged_epsilon(monkeypatch):
    fitted, ((c0, eps0, l1), (c1, eps1, _)) = _noise_calls(
        monkeypatch, lambda: LaplacePerQuery(epsilon=0.7, random_state=0, **_ONE_TABLE),
        "discrete_laplace_mechanism")
    assert np.abs(c0 - c1).sum() == 2 <= l1  # discrete Laplace of scale l1 / eps
    assert eps0 == eps1 <= 0.7 and all(est.privacy_spent_.epsilon == 0.7 for est in fitted)


def test_gaussian_per_query_noise_covers_a_substitution_at_the_charged_rho(monkeypatch):
    fitted, ((c0, sigma0), (c1, sigma1)) = _noise_calls(
        monkeypatch,
        lambda: GaussianPerQuery(epsilon=0.7, delta=1e-3, random_state=0, **_ONE_TABLE),
        "discrete_gaussian_mechanism")
    # exactly (L2^2 / (2 sigma^2))-zCDP (Canonne, Kamath, Steinke 2020, Thm 4)
    rho = np.square(c0 - c1).sum() / (2 * sigma0**2)
    assert sigma0 == sigma1 and rho <= zcdp_from_dp_budget(0.7, 1e-3) * (1 + 1e-12)
    assert all(tuple(est.privacy_spent_) == (0.7, 1e-3) for est in fitted)


def test_subsampled_net_selection_covers_a_substitution_at_the_charged_epsilon(monkeypatch):
    import sksmooth.release._privacy as privacy_module

    calls, real = [], privacy_module.exact_exponential_mechanism

    def spy(scores, epsilon, sensitivity, rng, **kw):
        calls.append((np.array(scores), epsilon, sensitivity))
        return real(scores, epsilon, sensitivity, rng, **kw)

    monkeypatch.setattr(privacy_module, "exact_exponential_mechanism", spy)
    fitted = [SubsampledNetMechanism(epsilon=0.7, universe="grid", n_universe=40,
                                     synthetic_size=1, random_state=0, levels=int,
                                     bounds=(0, 1), queries=_ONE_TABLE["queries"]).fit(X)
             for X in _PAIR]
    (s0, eps0, sens0), (s1, eps1, sens1) = calls  # the same public candidates (one seed)
    assert s0.shape == s1.shape and sens0 == sens1
    assert 0 < np.abs(s0 - s1).max() <= sens0
    assert eps0 == eps1 <= 0.7 and all(est.privacy_spent_.epsilon == 0.7 for est in fitted)

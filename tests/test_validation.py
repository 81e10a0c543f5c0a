import warnings
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from sksmooth import (
    AdaptiveMarginalSynthesizer,
    BudgetAccountant,
    DefaultsWarning,
    GaussianPerQuery,
    LaplacePerQuery,
    MWEM,
    PerturbedERMClassifier,
    PrivacyLeakWarning,
    PrivacyWarning,
    PrivateProperClassifier,
    SmoothHedgeClassifier,
    SubsampledNetMechanism,
)
from sksmooth.preprocessing import PublicBoundsScaler
from sksmooth.proper import Littlestone
from sksmooth._validation import (
    BinaryLabels,
    bounds_by_column,
    check_bounds,
    check_box_has_width,
    check_delta,
    check_delta_for_n,
    check_epsilon,
    check_generator,
    check_positive_int,
    check_probability,
    check_same_classes,
    check_sigma,
    clip_to_bounds,
)


def test_epsilon_delta_sigma_accept_valid_values():
    assert check_epsilon(0.5) == 0.5
    assert check_epsilon(np.float32(2)) == 2.0
    assert check_epsilon(np.inf, allow_inf=True) == np.inf
    assert check_delta(0) == 0.0
    assert check_delta(1e-5) == 1e-5
    assert check_sigma(1) == 1.0


@pytest.mark.parametrize(
    "func, value, err, match",
    [
        (check_epsilon, 0, ValueError, "epsilon must be > 0"),
        (check_epsilon, -0.1, ValueError, "epsilon"),
        (check_epsilon, np.inf, ValueError, "finite"),
        (check_epsilon, np.nan, TypeError, "epsilon"),
        (check_epsilon, True, TypeError, "epsilon"),
        (check_epsilon, "1", TypeError, "epsilon"),
        (check_delta, 1.0, ValueError, r"delta must lie in \[0, 1\)"),
        (check_delta, -1e-9, ValueError, "delta"),
        (check_delta, None, TypeError, "delta"),
        (check_sigma, 0, ValueError, r"sigma must lie in \(0, 1\]"),
        (check_sigma, 1.5, ValueError, "sigma"),
        # a closed interval's type error names it (it said (0, 1))
        (lambda v: check_probability(v, "p", closed=True), "1", TypeError, r"in \[0, 1\], got"),
        (check_positive_int, 0, ValueError, "n_rounds"),
        (check_positive_int, 2.0, TypeError, "n_rounds"),
    ],
)
def test_bad_scalars_name_the_parameter(func, value, err, match):
    args = (value, "n_rounds") if func is check_positive_int else (value,)
    with pytest.raises(err, match=match):
        func(*args)


def test_delta_at_or_above_one_over_n_warns_and_is_kept():
    with pytest.warns(PrivacyWarning, match=r"delta=0.01 is at or above 1/n = 0.01 for n = 100"):
        assert check_delta_for_n(0.01, 100) == 0.01
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_delta_for_n(0.0099, 100) == 0.0099
        assert check_delta_for_n(0.09, None) == 0.09  # n not public: only delta >= 0.1 warns
        assert check_delta_for_n(0.0, 1) == 0.0


def test_delta_of_a_tenth_or_more_warns_without_n():
    # AdaptiveMarginalSynthesizer (n private) took delta=0.5 silently (newcomer trial)
    with pytest.warns(PrivacyWarning, match=r"delta=0.5 is 0.1 or more: .* whatever the "
                                            r"number of rows"):
        assert check_delta_for_n(0.5, None) == 0.5
    with pytest.warns(PrivacyWarning, match=r"delta=0.2 is 0.1 or more"):
        check_delta_for_n(0.2, 4)  # 0.8 < 1 = n delta: the 1/n rule alone would not warn


def test_delta_a_method_cannot_use_warns_and_spends_zero():
    with pytest.warns(DefaultsWarning, match=r"epsilon_delta=0.5 is not used"):
        assert check_delta_for_n(0.5, 10, name="epsilon_delta", used=False) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_delta_for_n(0, 10, used=False) == 0.0
    with pytest.raises(ValueError, match=r"delta must lie in \[0, 1\)"):
        check_delta_for_n(1.0, 10, used=False)


def test_delta_zero_can_be_forbidden():
    with pytest.raises(ValueError, match=r"\(0, 1\)"):
        check_delta(0.0, allow_zero=False)


def test_bounds_scalar_and_per_feature():
    lower, upper = check_bounds((0, 1), 3)
    np.testing.assert_array_equal(lower, [0, 0, 0])
    np.testing.assert_array_equal(upper, [1, 1, 1])
    lower, upper = check_bounds(([0, -1], [1, 2]), 2)
    np.testing.assert_array_equal(upper, [1, 2])


@pytest.mark.parametrize(
    "bounds, err, match",
    [
        ((1, 0), ValueError, "lower must be <= upper"),
        (([0, 0], [1, 1, 1]), ValueError, "lower has 2 entries and upper 3"),
        (([0, 0, 0], [1, 1, 1]), ValueError, "n_features=2"),
        ((0, np.inf), ValueError, "finite"),
        (5, TypeError, "pair"),
        ((0, 1, 2), TypeError, "pair"),
    ],
)
def test_bad_bounds(bounds, err, match):
    with pytest.raises(err, match=match):
        check_bounds(bounds, 2)


def test_bounds_none_is_refused_naming_the_alternatives_and_the_opt_in():
    X = np.array([[0.0, 5.0], [2.0, -1.0]])
    with pytest.raises(ValueError, match="bounds=None.*published_bounds.*PrivateBounds"
                                         ".*bounds='data'"):
        check_bounds(None, 2, X=X)
    with pytest.warns(PrivacyLeakWarning, match="no differential-privacy guarantee"):
        lower, upper = check_bounds("data", 2, X=X)
    np.testing.assert_array_equal(lower, [0, -1])
    np.testing.assert_array_equal(upper, [2, 5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a caller that claims no privacy reads silently
        np.testing.assert_array_equal(check_bounds(None, 2, X=X, private=False)[0], [0, -1])
    with pytest.raises(ValueError, match="public bounds"), pytest.warns(PrivacyLeakWarning):
        check_bounds("data", 2)


_PRIVATE_RELEASES = [
    (lambda v: PrivateProperClassifier(bounds=v, classes=[0, 1]), "bounds"),
    (lambda v: PerturbedERMClassifier(bounds=v, classes=[0, 1]), "bounds"),
    (lambda v: MWEM(bounds=v, classes=[0, 1]), "bounds"),
    (lambda v: SubsampledNetMechanism(bounds=v, classes=[0, 1], n_universe=20,
                                      synthetic_size=5, n_candidates=5), "bounds"),
    (lambda v: LaplacePerQuery(bounds=v, classes=[0, 1]), "bounds"),
    (lambda v: GaussianPerQuery(bounds=v, classes=[0, 1]), "bounds"),
    (lambda v: PrivateProperClassifier(bounds=(0, 1), classes=v), "classes"),
    (lambda v: PerturbedERMClassifier(bounds=(0, 1), classes=v), "classes"),
    (lambda v: MWEM(bounds=(0, 1), classes=v), "classes"),
    (lambda v: LaplacePerQuery(bounds=(0, 1), classes=v), "classes"),
    (lambda v: AdaptiveMarginalSynthesizer(levels=2, classes=v), "classes"),
]


def _binary_rows():
    X = (np.random.default_rng(0).uniform(size=(30, 2)) > 0.5).astype(int)  # AIM: levels=2
    return X, X[:, 0] ^ (np.arange(30) % 7 == 0)


@pytest.mark.parametrize("make, name", _PRIVATE_RELEASES)
def test_bounds_or_classes_read_from_the_rows_are_recorded_as_not_private(make, name):
    X, y = _binary_rows()
    ledger = BudgetAccountant()
    with pytest.warns(PrivacyLeakWarning, match="no differential-privacy guarantee"):
        fitted = make("data").set_params(accountant=ledger).fit(X, y)
    assert not fitted.guarantee_.certified
    assert fitted.guarantee_.claim.startswith("no differential-privacy guarantee: ")
    # recorded as not private, never in the headline (epsilon, delta)
    assert ledger.spent.n_not_private == 1 and tuple(ledger.spent) == (0.0, 0.0)


@pytest.mark.parametrize("make, name", _PRIVATE_RELEASES)
def test_bounds_or_classes_none_is_refused_at_fit_before_any_charge(make, name):
    X, y = _binary_rows()
    ledger = BudgetAccountant()
    estimator = make(None).set_params(accountant=ledger)
    with pytest.raises(ValueError, match=f"{name}=None.*{name}='data'"):
        estimator.fit(X, y)
    assert ledger.spent.n_not_private == 0 and tuple(ledger.spent) == (0.0, 0.0)
    assert not hasattr(estimator, "guarantee_")


@pytest.mark.parametrize("estimator", [
    MWEM(bounds=None, classes=[0, 1]), MWEM(bounds=(0, 1), classes=None),
    AdaptiveMarginalSynthesizer(levels=2, classes=None)])
def test_a_stream_opened_with_bounds_or_classes_none_is_refused_and_left_unopened(estimator):
    X, y = _binary_rows()
    with pytest.raises(ValueError, match="=None.*='data'"):
        estimator.partial_fit(X, y)
    assert not hasattr(estimator, "_stream") or estimator._stream is None


def test_clip_counts_rows():
    X = np.array([[0.5, 0.5], [1.5, 0.5], [-1.0, 2.0]])
    Xc, n = clip_to_bounds(X, np.zeros(2), np.ones(2))
    assert n == 2
    assert Xc.min() >= 0 and Xc.max() <= 1
    assert X[1, 0] == 1.5  # input not mutated


def test_generator_reproducible_and_validated():
    assert check_generator(3).random() == check_generator(3).random()
    g = np.random.default_rng(0)
    assert check_generator(g) is g
    assert isinstance(check_generator(np.random.RandomState(0)), np.random.Generator)
    with pytest.raises(TypeError, match="random_state"):
        check_generator("seed")
    with pytest.raises(ValueError, match="random_state"):
        check_generator(-1)


def test_binary_labels_round_trip_and_errors():
    y = np.array(["b", "a", "b"])
    classes = BinaryLabels.fit_classes(y)
    np.testing.assert_array_equal(classes, ["a", "b"])
    y_pm = BinaryLabels.encode(y, classes)
    np.testing.assert_array_equal(y_pm, [1, -1, 1])
    np.testing.assert_array_equal(BinaryLabels.decode(y_pm, classes), y)
    with pytest.raises(ValueError, match="outside classes_") as info:
        BinaryLabels.encode(["secret-label"], classes)
    assert "secret-label" not in str(info.value)  # y may be private: not echoed
    with pytest.raises(ValueError, match="binary"):
        BinaryLabels.fit_classes([0, 1, 2])


def test_later_classes_must_match_the_first_call():
    classes_ = np.array([0, 1])
    check_same_classes(None, classes_)
    check_same_classes([1, 0], classes_)  # order does not matter
    with pytest.raises(ValueError, match=r"classes=\[0, 2\] differs from classes_=\[0, 1\]"):
        check_same_classes([0, 2], classes_)


def test_check_binary_target():
    from sksmooth._validation import check_binary_target

    check_binary_target([0, 1, 1])
    check_binary_target(["a", "a"])  # one class is binary-compatible
    with pytest.raises(ValueError, match="Only binary classification"):
        check_binary_target([0, 1, 2])
    with pytest.raises(ValueError, match="Unknown label type"):
        check_binary_target([0.5, 1.7, 2.2])



@pytest.mark.parametrize("estimator, supervised", [
    (PrivateProperClassifier(bounds=(0, 0), classes=[0, 1]), True),
    (PerturbedERMClassifier(bounds=(2.0, 2.0), classes=[0, 1]), True),
    (SmoothHedgeClassifier(bounds=(0, 0), hypotheses="stumps"), True),
    (MWEM(bounds=(1, 1)), False),
], ids=lambda v: type(v).__name__)
def test_public_box_of_zero_width_everywhere_is_refused(estimator, supervised):
    X = np.random.default_rng(0).random((20, 2))
    y = np.arange(20) % 2
    with pytest.raises(ValueError, match=r"bounds has zero width on every feature.*"
                                         r"bounds=\(0\.0, 1\.0\)"):
        estimator.fit(X, y) if supervised else estimator.fit(X)


_BOXED = [
    lambda b: PrivateProperClassifier(bounds=b, classes=[0, 1]),
    lambda b: PerturbedERMClassifier(bounds=b, classes=[0, 1]),
    lambda b: SmoothHedgeClassifier(bounds=b, hypotheses="stumps"),
    lambda b: MWEM(bounds=b),
]


@pytest.mark.parametrize("make", _BOXED, ids=["proper", "perturbed", "hedge", "mwem"])
def test_every_estimator_takes_the_same_bounds(make):
    # a (2, d) array was a pair for two estimators and refused by the other two
    # with "must be a pair (lower, upper), got ndarray of shape (2, 3)" (review)
    X = np.random.default_rng(0).random((40, 3))
    y = np.arange(40) % 2
    for bounds in [(0, 1), [0.0, 1.0], (np.zeros(3), np.ones(3)),
                   np.array([np.zeros(3), np.ones(3)]), np.array([0.0, 1.0]),
                   # other number types stay numbers (refused for a while: a review)
                   (Fraction(0), Decimal(1)), (np.zeros(3, dtype=object), np.ones(3, dtype=object))]:
        est = make(bounds)
        est.fit(X) if isinstance(est, MWEM) else est.fit(X, y)
    for bounds, error in [(np.zeros((3, 3)), TypeError), ((0, 1, 2), TypeError),
                          ("01", TypeError), ((0, np.inf), ValueError),
                          ((np.zeros((2, 2)), 1), ValueError),
                          # read as numbers by numpy, or broadcast quietly (a review)
                          ((True, 2), TypeError), (("0", "1"), TypeError),
                          (([0, 0], [1]), ValueError), ((1, 0), ValueError),
                          ((0, 10**400), ValueError), (([0, True], [1, 2]), TypeError),
                          ((np.array(["2020-01-01"], dtype="datetime64[D]"), 1), TypeError),
                          (([np.array(0), np.array(True)], [1, 2]), TypeError)]:  # numpy's OverflowError named nothing
        est = make(bounds)
        with pytest.raises(error, match=r"bounds.*bounds=\(0\.0, 1\.0\)"):
            est.fit(X) if isinstance(est, MWEM) else est.fit(X, y)
        with pytest.raises(error, match=r"bounds"):  # a public parameter, before the data
            est.fit(X[:, 0]) if isinstance(est, MWEM) else est.fit(X[:, 0], y)


def test_bounds_by_column_reads_every_form():
    assert bounds_by_column(None, 2, None) == [None, None]
    assert bounds_by_column((0, 1), 2, None) == [(0.0, 1.0), (0.0, 1.0)]
    assert bounds_by_column({"b": (2, 3)}, 2, ["a", "b"]) == [None, (2.0, 3.0)]


def test_check_bounds_reads_a_dict_by_name_or_position_and_names_a_missing_column():
    lower, upper = check_bounds({"b": (2, 3), 0: (0, 1)}, 2, columns=["a", "b"])
    np.testing.assert_array_equal(lower, [0.0, 2.0])
    np.testing.assert_array_equal(upper, [1.0, 3.0])
    with pytest.raises(ValueError, match=r"no range for column 'b': add bounds=\{'b': "):
        check_bounds({"a": (0, 1)}, 2, columns=["a", "b"])
    with pytest.raises(ValueError, match=r"no range for column 1"):
        check_bounds({0: (0, 1)}, 2)


def _fitted_outcome(est, X, y):
    """What a fit publishes that depends on the box: the scaled rows, or a seeded
    release's synthetic rows or predictions."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded: not certified
        if isinstance(est, PublicBoundsScaler):
            return est.fit_transform(X)
        if isinstance(est, MWEM):
            return np.asarray(est.fit(X).sample(30, random_state=1), dtype=float)
        return est.fit(X, y).predict(X)


@pytest.mark.parametrize("make", _BOXED + [lambda b: PublicBoundsScaler(bounds=b)],
                         ids=["proper", "perturbed", "hedge", "mwem", "scaler"])
def test_every_estimator_takes_bounds_per_column_with_the_pair_meaning(make):
    # {column: (lower, upper)} worked for the release estimators only (newcomer trial)
    import pandas as pd

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.uniform(20, 60, 40), "score": rng.uniform(0, 1, 40)})
    y = (X["score"] > 0.5).astype(int).to_numpy()

    def outcome(bounds):
        est = make(bounds)
        if "random_state" in est.get_params():
            est.set_params(random_state=0)
        return _fitted_outcome(est, X, y)

    as_pair = outcome(([20, 0], [60, 1]))
    np.testing.assert_array_equal(outcome({"age": (20, 60), "score": (0, 1)}), as_pair)
    np.testing.assert_array_equal(outcome({1: (0, 1), 0: (20, 60)}), as_pair)
    with pytest.raises(ValueError, match=r"bounds: X has no column 'agee'"):
        outcome({"agee": (20, 60), "score": (0, 1)})
    with pytest.raises(ValueError, match=r"bounds\['age'\] must be a pair .*"
                                         r"bounds=\{column: \(lower, upper\)\}"):
        make({"age": (60, 20)}).fit(X, y)
    with pytest.raises(ValueError, match=r"bounds gives no range for column 'score': add "
                                         r"bounds=\{'score': \(lower, upper\)\}"):
        outcome({"age": (20, 60)})


@pytest.mark.parametrize("make", [
    lambda b: PrivateProperClassifier(bounds=b, classes=[0, 1]),
    lambda b: PublicBoundsScaler(bounds=b)])
def test_a_column_without_a_range_names_encoding_as_the_fix_for_categories(make):
    # a newcomer's table with a Categorical column was told only to give it a range
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"age": [30.0, 40.0, 50.0, 60.0],
                      "region": pd.Categorical(["north", "south", "east", "north"])})
    with pytest.raises(ValueError, match=r"no range for column 'region'.*encode it first.*"
                                         r"OneHotEncoder\(categories=\[levels\].*\['region'\]"):
        make({"age": (20, 70)}).fit(X, [0, 1, 0, 1])


def test_box_with_one_flat_feature_is_accepted():
    lower, upper = check_box_has_width(np.array([0.0, 1.0]), np.array([0.0, 2.0]))
    assert upper[1] == 2.0


@pytest.mark.parametrize("make", [
    lambda: PrivateProperClassifier(bounds=(0, 1), classes=[0, 1]),
    lambda: PerturbedERMClassifier(bounds=(0, 1), classes=[0, 1]),
])
def test_partial_fit_classes_disagreeing_with_the_classes_parameter_are_refused(make):
    # the partial_fit labels silently won: every real label mapped to 'a' and the
    # classifier trained on a constant label (found by a new-user review)
    import warnings

    X = np.random.default_rng(0).uniform(size=(20, 2))
    y = (X[:, 0] > 0.5).astype(int)
    with pytest.raises(ValueError, match="differ from the classes parameter"):
        make().partial_fit(X, y, classes=["a", "b"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert list(make().partial_fit(X, y, classes=[1, 0]).classes_) == [0, 1]


@pytest.mark.parametrize("make", [
    lambda: PerturbedERMClassifier(),  # online partial_fit: not private, None reads
    lambda: PrivateProperClassifier(bounds="data", classes=[0, 1]),
    lambda: SmoothHedgeClassifier(hypotheses="stumps"),
])
def test_a_box_read_from_a_single_row_is_refused_with_the_fix(make):
    # bounds=None and a one-row first batch fixed a zero-width box for the whole
    # stream: every later row mapped to one point, chance accuracy, no warning
    # (SmoothHedge with boxes crashed instead; found by a new-user review)
    import warnings

    X = np.array([[0.3, 0.7]])
    with warnings.catch_warnings(), pytest.raises(ValueError, match="box read from the data"):
        warnings.simplefilter("ignore")
        make().partial_fit(X, [1], classes=[0, 1])


@pytest.mark.parametrize("make,call", [
    (lambda: SmoothHedgeClassifier(hypotheses="stumps", bounds=(0, 1)), dict(classes={0, 1})),
    (lambda: SmoothHedgeClassifier(hypotheses="stumps", bounds=(0, 1)), dict(classes=[None, 1])),
    (lambda: SmoothHedgeClassifier(hypotheses="stumps", bounds=(0, 1)), dict(classes=[[0], [1]])),
    (lambda: PerturbedERMClassifier(bounds=(0, 1), classes=[0, np.nan]), None),
])
def test_one_check_of_a_public_label_set_for_every_classifier(make, call):
    # "len() of unsized object", a raw '<' TypeError, a 2-D label set accepted, and
    # NaN predictions from classes=[0, nan] (found by a new-user review)
    import warnings

    X = np.random.default_rng(0).uniform(size=(20, 2))
    y = (X[:, 0] > 0.5).astype(int)
    with warnings.catch_warnings(), pytest.raises((TypeError, ValueError),
                                                  match=r"classes must (be|hold|not)"):
        warnings.simplefilter("ignore")
        make().fit(X, y) if call is None else make().partial_fit(X, y, **call)


def test_integer_classes_that_are_one_float_are_refused():
    from sksmooth._validation import check_public_classes

    # labels are compared as floats: classes=[2**60, 2**60 + 1] was accepted, every row
    # took code 0 and the second class could never be learnt (found by a review)
    with pytest.raises(ValueError, match=r"1152921504606846976 and 1152921504606846977.*"
                                         r"same number as a float"):
        check_public_classes([2**60, 2**60 + 1])
    with pytest.raises(ValueError, match="same number as a float"):
        PrivateProperClassifier(bounds=(0, 1), classes=[2**60, 2**60 + 1]).fit(
            np.linspace(0, 1, 10)[:, None], [2**60] * 10)
    assert list(check_public_classes([2**60, 2**60 + 256])) == [2**60, 2**60 + 256]


@pytest.mark.parametrize("make, name", [
    (lambda: PerturbedERMClassifier(bounds=(0, 1), classes=[0, 1],
                                    separating_points=[[0.0], [10**400]]), "separating_points"),
    (lambda: PrivateProperClassifier(method=Littlestone(domain=[0.0, 10**400]), delta=1e-6,
                                     classes=[0, 1]), "domain"),
])
def test_an_int_beyond_the_float_range_inside_an_array_is_named(make, name):
    # numpy's OverflowError named no parameter (a review)
    X = np.random.default_rng(0).random((20, 1))
    with pytest.raises(ValueError, match=name):
        make().fit(X, np.arange(20) % 2)


_X20 = np.linspace(0.05, 0.95, 20)[:, None]
_Y20 = np.arange(20) % 2
_TABLE20 = np.column_stack([_X20[:, 0], _X20[::-1, 0]])
_LEVELS20 = np.column_stack([_Y20, _Y20[::-1]])


@pytest.mark.parametrize("make, X, y", [
    (lambda d: PerturbedERMClassifier(bounds=(0, 1), classes=[0, 1], delta=d), _X20, _Y20),
    (lambda d: PrivateProperClassifier(method="noisy_means", hypotheses="prototypes",
                                       bounds=(0, 1), classes=[0, 1], delta=d), _X20, _Y20),
    (lambda d: MWEM(bounds=(0, 1), delta=d, n_bins=4), _TABLE20, None),
    (lambda d: GaussianPerQuery(bounds=(0, 1), delta=d, n_bins=4), _TABLE20, None),
    (lambda d: AdaptiveMarginalSynthesizer(levels=2, delta=d, neighbouring="substitution"),
     _LEVELS20, None),
])
def test_every_estimator_warns_of_a_delta_at_or_above_one_over_n(make, X, y):
    with pytest.warns(PrivacyWarning, match=r"delta=0.05 is at or above 1/n = 0.05 for n = 20"):
        make(0.05).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        make(0.04).fit(X, y)


def test_add_remove_keeps_n_private_so_only_a_delta_of_a_tenth_or_more_warns():
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        AdaptiveMarginalSynthesizer(levels=2, delta=0.09).fit(_LEVELS20)
    with pytest.warns(PrivacyWarning, match=r"delta=0.5 is 0.1 or more"):
        AdaptiveMarginalSynthesizer(levels=2, delta=0.5).fit(_LEVELS20)


def test_a_pure_dp_method_says_delta_is_unused_and_spends_zero():
    acc = BudgetAccountant(epsilon=1.0, delta=0.0)  # a delta budget of 0 admits it
    clf = PrivateProperClassifier(bounds=(0, 1), classes=[0, 1], delta=0.5, accountant=acc)
    with pytest.warns(DefaultsWarning, match=r"delta=0.5 is not used: .*pure differential"):
        clf.fit(_X20, _Y20)
    assert acc.spent == (1.0, 0.0) and clf.privacy_spent_ == (1.0, 0.0)
    assert "(1, 0)-differential privacy" in clf.guarantee_.claim

"""scikit-learn estimator checks for PerturbedERMClassifier, the stump and the
depth-2 grid-tree oracles.

No ``poor_score`` tag: the accuracy checks run. The private ``fit`` at the
checks' sizes (n ~ 100) is expected to be near chance -- the certified
perturbation (2 eta G ~ 10^3 rows) dominates the data, as the fit's own
warning says -- so those checks are expected failures *with that reason*,
and ``test_private_fit_is_accurate_where_theory_says_it_must_be`` (in
test_perturbed_erm.py) tests accuracy where Lemma 3's excess-error bound is
small instead.
"""

import warnings

from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

from sksmooth.exceptions import PrivacyLeakWarning, PrivacyWarning
from sksmooth.perturbed import (
    BoxScaledClassifier,
    DepthTwoTreeERMClassifier,
    MulticlassDepthTwoTreeERMClassifier,
    PerturbedERMClassifier,
    StumpERMClassifier,
)

_PRIVATE_ROWS = ("private estimator: rows are mapped into the public box, never refused "
                 "(a data-dependent error is a release); messages never echo data")


def test_declares_poor_score():
    # a private fit at the checks' n ~ 100 is dominated by its certified
    # perturbation: the tag tells check_classifiers_train
    assert PerturbedERMClassifier().__sklearn_tags__().classifier_tags.poor_score


def _expected(estimator):
    if not isinstance(estimator, PerturbedERMClassifier):
        return {}
    return {"check_estimators_nan_inf": _PRIVATE_ROWS, "check_dtype_object": _PRIVATE_ROWS}


@parametrize_with_checks(
    [
        # sklearn's checks bring their own label sets (strings, 3 classes): read with
        # the opt-in classes='data' (not private; the public path is tested elsewhere)
        PerturbedERMClassifier(bounds=(-10.0, 10.0), classes="data", random_state=0),
        PerturbedERMClassifier(LogisticRegression(), online_perturbation="labels",
                               bounds=(-10.0, 10.0), classes="data", random_state=0,
                               allow_non_private=True),
        StumpERMClassifier(),
        DepthTwoTreeERMClassifier(),
        MulticlassDepthTwoTreeERMClassifier(),
        BoxScaledClassifier(LogisticRegression(), bounds=(-10.0, 10.0)),
    ],
    expected_failed_checks=_expected,
)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        # bounds=None / classes=None read from data, seeded noise, small n:
        # expected in these checks
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        warnings.simplefilter("ignore", PrivacyWarning)
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)

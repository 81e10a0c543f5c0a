"""scikit-learn estimator checks for PerturbedERMClassifier and the stump oracle."""

import warnings

from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

from sksmooth.exceptions import PrivacyLeakWarning, PrivacyWarning
from sksmooth.perturbed import PerturbedERMClassifier, StumpERMClassifier

@parametrize_with_checks(
    [
        PerturbedERMClassifier(random_state=0),
        PerturbedERMClassifier(LogisticRegression(), online_perturbation="labels",
                               random_state=0),
        StumpERMClassifier(),
    ],
    # No expected failures: accuracy checks pass thanks to the poor_score tag
    # (private estimators are near chance on the checks' tiny datasets).
    expected_failed_checks=lambda est: {},
)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        # bounds=None / classes=None read from data: expected in these checks
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        warnings.simplefilter("ignore", PrivacyWarning)
        check(estimator)

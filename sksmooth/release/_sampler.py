"""A release estimator as an imbalanced-learn sampler (SPEC §7).

imbalanced-learn's ``Pipeline`` refuses a step that has both ``transform``
and ``fit_resample``; the release estimators have both (``transform`` for
unsupervised preprocessing pipelines). :class:`SyntheticSampler` wraps one
and exposes ``fit_resample`` only: inside ``imblearn.pipeline.Pipeline``
the classifier after it is trained on synthetic ``(X, y)`` released
together, and at ``predict``/``score`` time the sampler is skipped (the
model is applied to the real rows to predict).

Obtain it with ``MWEM(...).as_sampler()`` or
``SyntheticSampler(MWEM(...))``. imbalanced-learn is not needed to
build or use it.
"""

from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted

from .._constraints import InstanceOf, validate_params

__all__ = ["SyntheticSampler"]


class SyntheticSampler(BaseEstimator):
    """Sampler view of a release estimator: ``fit_resample`` only, no ``transform``.

    Parameters
    ----------
    estimator : SmoothMWEM or SubsampledNetMechanism
        The (unfitted) release; cloned at every ``fit_resample``, so each
        call is one new release charged to the estimator's ledger.

    Attributes
    ----------
    estimator_ : fitted release estimator
        Its ``guarantee_`` and ``privacy_spent_`` describe the release.

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.release import MWEM
    >>> X = np.random.default_rng(0).integers(0, 2, size=(200, 3)).astype(float)
    >>> y = X[:, 0].astype(int)
    >>> sampler = MWEM(levels=2, classes=[0, 1]).as_sampler()
    >>> X_syn, y_syn = sampler.fit_resample(X, y)
    >>> X_syn.shape, y_syn.shape
    ((200, 3), (200,))
    """

    _parameter_constraints = {
        "estimator": InstanceOf(BaseEstimator, "a release estimator, e.g. MWEM()"),
    }

    def __init__(self, estimator):
        self.estimator = estimator

    def fit_resample(self, X, y):
        """Release privately on ``(X, y)`` and return synthetic ``(X_syn, y_syn)``."""
        validate_params(self)
        if not hasattr(self.estimator, "fit_resample"):
            raise TypeError("estimator must be a release estimator with fit_resample, e.g. "
                            f"MWEM(); got {type(self.estimator).__name__}.")
        self.estimator_ = clone(self.estimator)
        return self.estimator_.fit_resample(X, y)

    def fit(self, X, y):
        """Release privately on ``(X, y)`` (the synthetic rows are discarded)."""
        self.fit_resample(X, y)
        return self

    def sample(self, n_samples, random_state=None, *, scheme="systematic"):
        """More synthetic rows from the fitted release (post-processing, free);
        ``scheme`` as in the release's ``sample``."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.sample(n_samples, random_state=random_state, scheme=scheme)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        tags.input_tags.allow_nan = True
        return tags

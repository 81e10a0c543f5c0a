"""What :class:`PrivateProperClassifier` releases: the selected hypothesis.

A released hypothesis is a member of the estimator's hypothesis class (it is
*proper*). The cover strategies release a *two-label rule*::

    h(x) = a   if c(x) else   b

for a binary concept ``c`` (a stump, a halfspace, a box, a row of a finite
class) and two labels ``a, b`` of the public label set. Binary classifiers
use ``a = classes_[1]``, ``b = classes_[0]``; multiclass ones any ordered
pair (``a == b`` gives the constants).

Scores (``decision_function``, ``predict_proba``) are functions of the
released rule only: the predicted label scores ``1 + m(x)`` and the others
``-(1 + m(x))``, with ``m(x)`` the rule's own margin (the
feature's distance to a stump's threshold in units of the public box width,
the Euclidean distance to a halfspace's boundary; ``0`` for concepts
without geometry). They rank points by how far they are from the decision
boundary; they are *not calibrated* probabilities. Interval partitions
(:mod:`._intervals`) score the same way; nearest-prototype rules
(:mod:`._prototypes`) score each label by minus the squared distance to its
prototype in box widths (``class_scores`` of the rule).
"""

import re
from dataclasses import dataclass, field

import numpy as np
from scipy.special import softmax

from .._domain import box_distance, domain_row_indices
from .._guarantee import Guarantee, PrivacySpent
from .._untrusted import read_numbers, sanitize_rows
from ..classes import HalfspaceConcepts, StumpConcepts

__all__ = ["ConceptRule", "DomainRule", "TwoLabelRule", "SelectedHypothesis", "ProperRelease"]

_FEATURE = re.compile(r"x\[(\d+)\]")


def name_features(text, feature_names):
    """Replace ``x[i]`` in ``text`` by ``feature_names[i]`` (when given)."""
    if feature_names is None:
        return text
    return _FEATURE.sub(lambda m: str(feature_names[int(m.group(1))]), text)


@dataclass(frozen=True)
class ConceptRule:
    """One concept of a (public) cover, as a one-element finite instance."""

    concept: object  # FiniteConcepts with n_concepts == 1

    def inside(self, X):
        return np.asarray(self.concept.evaluate(X))[:, 0]

    def margin(self, X):
        """Unsigned distance to the boundary in the concept's units (0 if none)."""
        c = self.concept
        if isinstance(c, StumpConcepts):
            f = int(c.feature[0])
            lower, upper = ((0.0, 1.0) if c.bounds is None
                            else (float(np.asarray(end)[f]) for end in c.bounds))
            return box_distance(X[:, f], c.threshold[0], lower, upper)
        if isinstance(c, HalfspaceConcepts):
            norm = float(np.linalg.norm(c.coef[0]))
            if norm == 0.0:
                return np.zeros(X.shape[0])
            return np.abs(X @ c.coef[0] + c.intercept[0]) / norm
        return np.zeros(X.shape[0])

    def describe(self):
        return self.concept.describe(0)


@dataclass(frozen=True)
class DomainRule:
    """A concept given by its values on a finite public domain.

    Points off the domain (and non-finite entries) are mapped to the nearest
    domain point, the same fixed row-wise rule used for training rows.
    """

    domain: np.ndarray
    values: np.ndarray  # bool, one per domain point
    text: str

    def inside(self, X):
        return self.values[nearest_domain_index(self.domain, X)]

    def margin(self, X):
        return np.zeros(X.shape[0])

    def describe(self):
        return self.text


# rows read, mapped and counted at a time by the strategies: the working arrays
# stay in cache, so a fit's time is linear in n (whole-X temporaries of 10^6
# rows were not: noisy means' time exponent from 10^5 to 10^6 rows was 1.1-1.3)
_ROWS_PER_PASS = 1 << 14


def row_blocks(n_rows):
    """Slices covering ``range(n_rows)`` in order, ``_ROWS_PER_PASS`` rows each."""
    return [slice(start, start + _ROWS_PER_PASS) for start in range(0, n_rows, _ROWS_PER_PASS)]


def nearest_domain_index(domain, X, block=1024):
    """Index of the domain point equal to (else nearest to) each row of ``X``."""
    X = sanitize_rows(X, domain.min(axis=0), domain.max(axis=0))
    idx = domain_row_indices(domain, X)
    off = np.flatnonzero(idx < 0)
    for start in range(0, len(off), block):
        rows = off[start:start + block]
        dist = ((X[rows, None, :] - domain[None, :, :]) ** 2).sum(axis=2)
        idx[rows] = np.argmin(dist, axis=1)
    return idx


@dataclass(frozen=True)
class TwoLabelRule:
    """``h(x) = inside if concept(x) else outside`` (label codes)."""

    concept: object  # ConceptRule or DomainRule
    inside: int
    outside: int

    def codes(self, X):
        return np.where(self.concept.inside(X), self.inside, self.outside)

    def margin(self, X):
        return self.concept.margin(X)

    def describe(self, classes):
        a, b = classes[self.inside], classes[self.outside]
        return f"{self.concept.describe()} -> {a} (else {b})"


class SelectedHypothesis:
    """The hypothesis released by :class:`PrivateProperClassifier`.

    A member of the estimator's class; ``predict`` applies it and
    ``description`` reads it.

    Attributes
    ----------
    index : int
        Index of the hypothesis in the (public) hypothesis class.
    description : str
        E.g. ``"mean radius >= 0.42 -> 1 (else 0)"``; uses the feature names
        when the estimator was fitted on a DataFrame.
    classes : ndarray
        The public label set.
    """

    def __init__(self, index, rule, classes, feature_names=None):
        self.index = int(index)
        self._rule = rule
        self.classes = np.asarray(classes)
        self.description = name_features(rule.describe(self.classes), feature_names)

    def predict_codes(self, X):
        """Index in ``classes`` of the label of every row."""
        return self._rule.codes(X)

    def predict(self, X):
        """Labels (from ``classes``) predicted by the hypothesis."""
        return self.classes[self.predict_codes(X)]

    def predict_pm1(self, X):
        """Binary view: ``+1`` where the label is ``classes[1]``, else ``-1``."""
        return np.where(self.predict_codes(X) == 1, 1, -1)

    def class_scores(self, X):
        """Uncalibrated per-class scores, shape ``(n_samples, n_classes)``.

        A rule with its own ``class_scores`` (nearest prototype: minus the
        squared distance to each label's prototype) uses it; otherwise the
        predicted label scores ``1 + m(x)``, every other label
        ``-(1 + m(x))``, with ``m(x) >= 0`` the distance to the decision
        boundary (module docstring). The argmax is the prediction.
        """
        own_scores = getattr(self._rule, "class_scores", None)  # e.g. PrototypeRule
        if own_scores is not None:
            return own_scores(X)
        strength = 1.0 + self._rule.margin(X)
        scores = np.repeat(-strength[:, None], len(self.classes), axis=1)
        scores[np.arange(X.shape[0]), self.predict_codes(X)] = strength
        return scores

    def decision_function(self, X):
        """scikit-learn's layout: ``(n,)`` for two classes (> 0: ``classes[1]``)."""
        scores = self.class_scores(X)
        if len(self.classes) == 2:
            return (scores[:, 1] - scores[:, 0]) / 2.0
        return scores

    def predict_proba(self, X):
        """Softmax of :meth:`class_scores`: uncalibrated, argmax = prediction."""
        return softmax(self.class_scores(X), axis=1)

    def __repr__(self):
        return f"SelectedHypothesis({self.description!r})"

    def __str__(self):
        return self.description


@dataclass(frozen=True)
class ProperRelease:
    """Everything a :class:`PrivateProperClassifier` release makes public.

    Returned by :meth:`PrivateProperClassifier.to_release`; publish this, not
    the estimator (which keeps the private running statistics that
    ``partial_fit`` needs). It holds the released hypothesis, the public
    label set, the guarantee and the privacy spent, and predicts like the
    estimator.
    """

    hypothesis: SelectedHypothesis
    classes_: np.ndarray
    guarantee: Guarantee
    privacy_spent: PrivacySpent
    feature_names_in: np.ndarray = field(default=None)
    bounds: tuple = field(default=None)
    n_features_in: int = field(default=None)

    def _rows(self, X):
        """Query rows read as the estimator reads them: the same column names (in
        order) for a DataFrame, non-numbers as NaN, then mapped into ``bounds``."""
        names = getattr(X, "columns", None)
        if names is not None and self.feature_names_in is not None \
                and [str(c) for c in names] != [str(c) for c in self.feature_names_in]:
            raise ValueError("The feature names should match those that were passed during "
                             f"fit: expected {list(self.feature_names_in)}, got {list(names)}; "
                             "select the columns in that order.")
        X = read_numbers(None, X, dtype=float, ensure_min_samples=0)
        if self.n_features_in is not None and X.shape[1] != self.n_features_in:
            raise ValueError(f"X must have {self.n_features_in} features (as at fit), got "
                             f"{X.shape[1]}.")
        return X if self.bounds is None else sanitize_rows(X, *self.bounds)

    def predict(self, X):
        return self.hypothesis.predict(self._rows(X))

    def decision_function(self, X):
        return self.hypothesis.decision_function(self._rows(X))

    def predict_proba(self, X):
        return self.hypothesis.predict_proba(self._rows(X))

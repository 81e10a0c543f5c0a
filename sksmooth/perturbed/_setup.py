"""What ``fit`` and ``partial_fit`` of PerturbedERMClassifier share: the
oracle, the public box, the separating points, the calibration of ``rho`` and
``G``, the hallucinated examples, and one weighted oracle call.

Everything here uses only public inputs (parameters, the public box, the
public random stream), except :func:`fit_oracle`, which is the one place the
private rows meet the oracle.
"""

import contextlib
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_classifier
from sklearn.dummy import DummyClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted, has_fit_parameter, validate_data

from .._domain import box_coordinates
from .._validation import call_user_function, public_box, reads_data
from ._calibration import finite_class_gaussian_complexity, labelings_gaussian_complexity
from ._protocol import check_erm_oracle, is_erm_oracle
from ._stump_oracle import MulticlassStumpERMClassifier, StumpERMClassifier
from ._tree_oracle import DepthTwoTreeERMClassifier, MulticlassDepthTwoTreeERMClassifier

__all__ = ["BoxScaledClassifier", "Calibration", "make_oracle", "resolve_box", "separating_points",
           "calibrate", "hallucinate", "fit_oracle", "check_weights", "oracle_labels",
           "check_estimator_param", "DEFAULT_N_THRESHOLDS", "default_tree_thresholds"]

# Number of separating points for heuristic oracles when n_hallucinated='auto'.
HEURISTIC_N_POINTS = 16
# Default exact oracle: a coarse grid for the private fit (the noise of
# Lemma 2 grows like 1/rho^2 = n_thresholds + 1 on the Latin design) and a
# finer one online, where the grid's approximation error is paid every round.
DEFAULT_N_THRESHOLDS = {"fit": 8, "online": 128}
# Online binary default: depth-2 grid trees whose ERM scans d^2 n^2 (root,
# child) threshold pairs per side; the grid is the finest power of two with
# d * n_thresholds <= this budget (a cost rule on the public n_features).
TREE_GRID_BUDGET = 128
# Above this many features the trees' O(d^2) work per row and per
# hallucinated point dominates (d = 100: 10^4 cells per point): the online
# default is then the 128-grid stumps (O(d) per row).
TREE_MAX_FEATURES = 32


# Online multiclass default: logistic regression on the rows mapped onto the unit
# cube by the public box, refitted on the geometric schedule (refit_every='auto').
# Measured (benchmarks/bench_ftpl_multiclass_streams.py): 0.46-0.74x the mistakes
# of the best of SGD / Perceptron / PassiveAggressive on digits, wine and
# ImageSegments, where the exact multiclass trees/stumps make 1.0-5.7x.
ONLINE_MULTICLASS_MAX_ITER = 200


class BoxScaledClassifier(ClassifierMixin, BaseEstimator):
    """``estimator`` fitted on the rows mapped onto the unit cube by the public
    box ``bounds`` (``(x - lower) / (upper - lower)``): a fixed public map,
    so a linear model's regularisation weighs every feature on the same scale.
    ``estimator=None`` fits ``LogisticRegression()``, ``bounds=None`` the rows as
    given; ``sample_weight`` is passed on only when given. The online multiclass
    default of :class:`PerturbedERMClassifier` wraps ``LogisticRegression`` in it;
    the fitted model is ``estimator_``."""

    def __init__(self, estimator=None, *, bounds=None):
        self.estimator = estimator
        self.bounds = bounds

    def _model(self):
        """The classifier fitted on the mapped rows (``None``: ``LogisticRegression()``)."""
        return LogisticRegression() if self.estimator is None else self.estimator

    def _unit(self, X):
        if self.bounds is None:
            return np.asarray(X, dtype=float)
        return box_coordinates(X, *self.bounds)

    def fit(self, X, y, sample_weight=None):
        X, y = validate_data(self, X, y, dtype=float)
        weights = {} if sample_weight is None else {"sample_weight": sample_weight}
        self.estimator_ = clone(self._model()).fit(self._unit(X), y, **weights)
        self.classes_ = self.estimator_.classes_
        return self

    def _unit_query(self, X):
        """Query rows on the unit cube; called before ``estimator_`` is read (an
        unfitted model raises NotFittedError, not AttributeError)."""
        check_is_fitted(self, "estimator_")
        return self._unit(validate_data(self, X, dtype=float, reset=False))

    def predict(self, X):
        X = self._unit_query(X)
        return self.estimator_.predict(X)

    def predict_proba(self, X):
        X = self._unit_query(X)
        return self.estimator_.predict_proba(X)

    def decision_function(self, X):
        X = self._unit_query(X)
        return self.estimator_.decision_function(X)


def online_multiclass_default():
    """The online default oracle for more than two classes (public rule)."""
    return BoxScaledClassifier(LogisticRegression(max_iter=ONLINE_MULTICLASS_MAX_ITER))


@contextlib.contextmanager
def default_oracle_warnings(estimator):
    """Silence the online default's ConvergenceWarning: its refits stop at
    ``ONLINE_MULTICLASS_MAX_ITER`` by design (an approximate leader each round),
    and the warning's fix (``max_iter``) names an estimator the user never
    passed. An oracle the user passes (``estimator`` not None) keeps it."""
    if estimator is not None:
        yield
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


def default_tree_thresholds(n_features):
    """Thresholds per feature of the default online tree grid (a power of two,
    ``n_features * n <= 128``, at least 1)."""
    n = max(TREE_GRID_BUDGET // max(int(n_features), 1), 1)
    return 1 << (n.bit_length() - 1)


def check_estimator_param(value, name="estimator"):
    """Constraint-table check: ``None`` or a classifier whose fit takes sample_weight."""
    if value is None:
        return None
    if isinstance(value, type) or not hasattr(value, "get_params") or not hasattr(value, "fit"):
        raise TypeError(
            f"{name} must be None or a scikit-learn classifier instance (e.g. "
            f"StumpERMClassifier() or LogisticRegression()), got {type(value).__name__}."
        )
    cls = type(value).__name__
    if not is_classifier(value):
        raise TypeError(
            f"{name} must be a scikit-learn classifier, got {cls}; pass e.g. "
            f"{name}=StumpERMClassifier() or LogisticRegression()."
        )
    fitted = value._model() if isinstance(value, BoxScaledClassifier) else value
    if not has_fit_parameter(fitted, "sample_weight"):
        raise TypeError(
            f"{name} {type(fitted).__name__} does not accept sample_weight in fit, but "
            "PerturbedERMClassifier realises the Gaussian perturbation as weighted "
            "hallucinated examples. Use a classifier whose fit takes sample_weight "
            "(StumpERMClassifier, LogisticRegression, LinearSVC, ...), or wrap yours so "
            "that it does."
        )
    return check_erm_oracle(value, name)


def make_oracle(estimator, mode, n_classes=2, n_features=1):
    """A fresh clone of the oracle (``mode`` in 'fit', 'online' picks the default:
    stumps for ``fit``; online, depth-2 grid trees for two classes (stumps above
    32 features) and logistic regression on the unit box for more)."""
    if estimator is None:
        if mode == "online" and n_classes > 2:
            return online_multiclass_default()
        if mode == "online" and n_features <= TREE_MAX_FEATURES:
            tree = DepthTwoTreeERMClassifier if n_classes == 2 else \
                MulticlassDepthTwoTreeERMClassifier
            return tree(n_thresholds=default_tree_thresholds(n_features))
        default = StumpERMClassifier if n_classes == 2 else MulticlassStumpERMClassifier
        return default(n_thresholds=DEFAULT_N_THRESHOLDS[mode])
    if mode == "fit" and is_erm_oracle(estimator) and estimator._erm_output_is_private_values:
        raise ValueError(
            f"estimator={type(estimator).__name__}(n_thresholds=None) fits the exact "
            "threshold over the whole line, halfway between two private values: the "
            "released threshold_ would show a private value, whatever the noise. For the "
            f"private fit pass {type(estimator).__name__}(n_thresholds=16) (a grid on the "
            "public bounds, which certifies); partial_fit (online, not private) may keep "
            "the exact threshold.")
    if n_classes > 2 and _is_multiclass_oracle(estimator) is False:
        raise ValueError(
            f"estimator {type(estimator).__name__} is a binary exact oracle, but classes has "
            f"{n_classes} labels; use MulticlassStumpERMClassifier() or a multiclass "
            "scikit-learn classifier (DecisionTreeClassifier, LogisticRegression, ...).")
    return clone(estimator)


def _is_multiclass_oracle(oracle):
    """True or False for an exact oracle (labels as indices or +-1), None otherwise."""
    return oracle._erm_multiclass if is_erm_oracle(oracle) else None


def resolve_box(bounds, oracle, X, n_features, *, quiet=False, columns=None):
    """Return ``((lower, upper) or None, public)`` and set the oracle's grid box
    (``columns``: the fitted DataFrame's labels, naming a dict ``bounds``'s keys)."""
    own_domain = is_erm_oracle(oracle) and oracle._erm_own_domain
    if bounds is None and own_domain:
        return None, True
    # online use (quiet) makes no privacy claim: a box read from the data is fine
    box = public_box(bounds, n_features, X, private=not quiet, columns=columns)
    if (isinstance(oracle, BoxScaledClassifier) or is_erm_oracle(oracle)
            and oracle._erm_uses_bounds) and oracle.get_params().get("bounds") is None:
        oracle.set_params(bounds=box)
    return box, not reads_data(bounds)


# Largest separating design 'auto' picks to certify a class (the n_hallucinated cap).
MAX_CERTIFYING_POINTS = 200_000


def _n_points(n_hallucinated, oracle, exact, n_features, certify):
    if n_hallucinated != "auto":
        return int(n_hallucinated)
    if not exact:
        return HEURISTIC_N_POINTS
    certifying = oracle._erm_certifying_n_points(n_features)
    if certify and certifying is not None and certifying <= MAX_CERTIFYING_POINTS:
        return certifying
    return oracle._erm_default_n_points(n_features)


def separating_points(spec, n_hallucinated, oracle, n_features, box, rng, certify=True):
    """The data-independent separating points ``Z`` (from the public stream ``rng``).

    ``certify``: the run needs a certificate (a private fit, a theory or fixed
    online noise), so 'auto' takes the oracle's certifying design size when
    it has one (depth-2 trees: the orthogonal array) instead of its cheap
    default."""
    exact = is_erm_oracle(oracle)
    m = _n_points(n_hallucinated, oracle, exact, n_features, certify)
    lower, upper = box if box is not None else (np.zeros(n_features), np.ones(n_features))
    if isinstance(spec, str):
        if spec == "auto":  # the design needs a finite class
            spec = ("oracle" if exact and oracle._erm_class_size(n_features) is not None
                    else "uniform")
        if spec == "oracle" and not exact:
            raise ValueError(
                "separating_points='oracle' needs an exact oracle from "
                "sksmooth.perturbed; use 'uniform' or pass points."
            )
        if spec == "oracle":
            Z = oracle._erm_design(m, rng, lower, upper)
        elif exact:
            Z = oracle._erm_sample_domain(m, rng, lower, upper)
        else:
            Z = rng.uniform(lower, upper, size=(m, n_features))
    else:
        Z = call_user_function(spec, "separating_points", m, rng) if callable(spec) else spec
    try:
        Z = np.asarray(Z, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("separating_points must give an array of numbers of shape "
                         f"(m, {n_features}).") from None
    if Z.ndim != 2 or Z.shape[1] != n_features or len(Z) == 0 or not np.all(np.isfinite(Z)):
        raise ValueError(
            f"separating_points must give a finite array of shape (m, {n_features}), "
            f"got shape {Z.shape}."
        )
    if box is not None and np.any((Z < lower) | (Z > upper)):
        raise ValueError("separating_points must lie inside bounds; clip them to the box.")
    return Z


@dataclass(frozen=True)
class Calibration:
    """Separation ``rho``, ``G >= E sup_f w(f)``, ``ln |F|`` and why they hold.

    ``class_log_size``: ``ln |F|`` of the oracle's own finite class when the
    calibration had to fall back to the heuristic one (a finite class the
    points ``Z`` do not separate); the practical online noise scales with it.
    ``not_private``: why the theorem's conditions fail (an exact ERM over a
    finite class, separated on ``Z``), or ``""`` when they hold.
    """

    rho: float
    gaussian_complexity: float
    log_n_functions: float
    certified: tuple
    problems: tuple
    class_log_size: float = None
    not_private: str = ""

    @property
    def practical_log_size(self):
        """``ln |F|`` for the practical noise: the class's own when known."""
        return self.log_n_functions if self.class_log_size is None else self.class_log_size

    @property
    def exact(self):
        return not self.problems


def row_values_stored(oracle):
    """What of the training rows a scikit-learn oracle keeps in its fitted state
    (published in ``estimator_``), or None: split thresholds of trees are midpoints
    of two rows' values, a neighbours model keeps the rows, a kernel SVM its support
    vectors, a Gaussian process or label propagation its training set."""
    from sklearn.ensemble import (  # noqa: PLC0415 (only for heuristic oracles)
        BaseEnsemble, HistGradientBoostingClassifier)
    from sklearn.gaussian_process import GaussianProcessClassifier  # noqa: PLC0415
    from sklearn.neighbors import KNeighborsClassifier, RadiusNeighborsClassifier  # noqa: PLC0415
    from sklearn.semi_supervised import LabelPropagation, LabelSpreading  # noqa: PLC0415
    from sklearn.svm import SVC, NuSVC  # noqa: PLC0415
    from sklearn.tree import BaseDecisionTree  # noqa: PLC0415

    kinds = (((BaseDecisionTree, BaseEnsemble, HistGradientBoostingClassifier),
              "split thresholds halfway between two rows' values, or bin edges from them"),
             ((KNeighborsClassifier, RadiusNeighborsClassifier, GaussianProcessClassifier,
               LabelPropagation, LabelSpreading), "the training rows themselves"),
             ((SVC, NuSVC), "support vectors: training rows"))
    for types, what in kinds:
        if isinstance(oracle, types):
            return what
    return None


def _separation(oracle, Z, n_features, n_classes):
    """``(|F|, rho)``; rho in the metric of the process used (binary or one-hot)."""
    if not _is_multiclass_oracle(oracle):
        size = oracle._erm_class_size(n_features)
        return (size, oracle._erm_separation(Z)) if size is not None else (None, 0.0)
    rho = oracle._erm_separation(Z, n_classes)  # one-hot metric: rho^2 = 2 D / m
    # binary process: rho^2 = 4 D / m
    return (oracle._erm_class_size(n_features, n_classes),
            rho * np.sqrt(2.0) if n_classes == 2 else rho)


def calibrate(oracle, Z, n_features, n_classes=2):
    """``rho``, ``G`` and ``ln |F|`` of the oracle's class on ``Z`` (public inputs only)."""
    m, exact = len(Z), is_erm_oracle(oracle)
    if isinstance(oracle, BoxScaledClassifier):
        oracle = oracle._model()  # the model fitted, on rows mapped by the public box
    name = type(oracle).__name__
    size, rho = _separation(oracle, Z, n_features, n_classes) if exact else (None, 0.0)
    if size is not None:
        rho = 2.0 if not np.isfinite(rho) else rho  # a single function: any rho works
    if size is not None and rho > 0 and oracle._erm_exact_finite_class:
        relation = "<=" if oracle._erm_class_size_is_bound else "="
        separation_kind = " a certified lower bound on" if oracle._erm_separation_is_bound else ""
        certified = (
            f"oracle {name} is an exact weighted 0-1 ERM over a fixed finite class, "
            f"|F| {relation} {size}",
            f"rho = {rho:.4g}:{separation_kind} the minimum pairwise empirical L2 "
            f"distance of F on the m = {m} separating points (Def. 5)",
            "G <= sqrt(2 ln |F|) (each w(f) ~ N(0, 1))",
        )
        return Calibration(rho, finite_class_gaussian_complexity(size), float(np.log(size)),
                           certified, ())
    if not exact:
        reason = (f"{name} is not an exact 0-1 ERM over a finite class (it does not "
                  "implement sksmooth.perturbed.ERMOracle)")
        problem = (
            f"oracle {name} is a heuristic, not an exact 0-1 ERM over a finite class: "
            f"calibrated as if F were all labelings of the m = {m} separating points "
            "(|F| = 2^m, rho = 2/sqrt(m), G = sqrt(2m/pi)), which the oracle need not "
            "respect"
        )
        stored = row_values_stored(oracle)
        if stored is not None:
            reason += f", and estimator_ would publish {stored}"
            problem += (f"; and it stores values of the private rows ({stored}) in "
                        "estimator_, which the release publishes: NOT PRIVATE, whatever "
                        "epsilon is charged")
    elif size is None:
        reason = f"{name} has an infinite class"
        problem = f"{name} has an infinite class (rho = 0); calibrated as a heuristic"
    elif not oracle._erm_exact_finite_class:
        reason = f"{name} does not declare itself an exact ERM over a finite class"
        problem = f"{reason}; calibrated as a heuristic"
    else:
        reason = ("the class is not separated by the separating points (rho = 0; "
                  "separating_points='oracle' or a larger n_hallucinated may separate it"
                  + oracle._erm_separation_hint + ")")
        problem = ("the class is not separated by the separating points (rho = 0: two "
                   "hypotheses agree on all of them, or no separation could be "
                   "certified); calibrated as a heuristic. Use separating_points='oracle' "
                   "or a larger n_hallucinated"
                   + oracle._erm_separation_hint + ".")
    class_log_size = float(np.log(size)) if size is not None else None
    if class_log_size is not None:
        problem += (f" rho and G are then those of all labelings of Z; the practical "
                    f"online noise uses the class's own ln|F| = {class_log_size:.4g}.")
    if n_classes > 2:  # all k-labelings of the m points, one-hot process
        return Calibration(np.sqrt(2.0 / m), np.sqrt(m) * np.sqrt(2 * np.log(n_classes)),
                           m * np.log(n_classes), (), (problem,), class_log_size, reason)
    return Calibration(2.0 / np.sqrt(m), labelings_gaussian_complexity(m), m * np.log(2.0),
                       (), (problem,), class_log_size, reason)


def hallucinate(Z, noise, rng):
    """Hallucinated labels and weights realising ``noise * w(f)`` (module docstring).

    ``xi ~ N(0, I_m)`` from ``rng`` (the privacy-noise stream); label
    ``-sign(xi_j)``, weight ``2 noise |xi_j| / sqrt(m)``.
    """
    xi = rng.standard_normal(len(Z))
    weights = 2.0 * noise * np.abs(xi) / np.sqrt(len(Z))
    labels = np.where(xi > 0, -1.0, 1.0)
    return labels, weights


def oracle_labels(oracle, y_coded, n_classes):
    """Labels in the oracle's coding: a multiclass exact oracle on a binary
    problem takes indices 0/1 instead of -1/+1."""
    if _is_multiclass_oracle(oracle) and n_classes == 2:
        return (np.asarray(y_coded) > 0).astype(float)
    return y_coded


def check_weights(weights):
    if not np.all(np.isfinite(weights) & (weights >= 0)):  # invariant, never user input
        raise RuntimeError("internal error: a non-finite or negative weight was produced.")


def fit_oracle(oracle, X, y_pm1, weights, n_classes=2):
    """One weighted 0-1 ERM call (labels in {-1, +1}, or indices ``0..k-1`` for
    ``k = n_classes > 2``; weights >= 0)."""
    weights = np.asarray(weights, dtype=float)
    check_weights(weights)
    keep = weights > 0
    if not keep.all():
        X, y_pm1, weights = X[keep], y_pm1[keep], weights[keep]
    if is_erm_oracle(oracle):
        return oracle._erm_fit(X, oracle_labels(oracle, y_pm1, n_classes), weights,
                               n_classes=n_classes)
    y_pm1 = y_pm1.astype(int)
    if len(np.unique(y_pm1)) < 2:
        # heuristic oracles refuse one class; the ERM is then that constant
        constant = int(y_pm1[0]) if len(y_pm1) else 1
        other = -constant if n_classes == 2 else (constant + 1) % n_classes
        oracle = DummyClassifier(strategy="constant", constant=constant)
        X = X if len(X) else np.zeros((1, X.shape[1]))
        y_pm1 = y_pm1 if len(y_pm1) else np.array([1])
        weights = weights if len(weights) else np.ones(1)
        # the other label on a copy of the first row, with weight 0
        oracle.fit(np.concatenate([X, X[:1]]), np.r_[y_pm1, other],
                   sample_weight=np.r_[weights, 0.0])
        return oracle
    return oracle.fit(X, y_pm1, sample_weight=weights)

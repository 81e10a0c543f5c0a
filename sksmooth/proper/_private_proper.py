"""PrivateProperClassifier: differentially private *proper* learning.

The fitted model is a member of the hypothesis class (``hypothesis_``).

* ``method='exponential'``: the generic private learner (seeds/001, Lemma 6.3,
  [KLN+08]) over a data-independent cover of the class (SPEC §3.2; the
  smoothed-analysis cover of seeds/000 §4 / App. C.1): exponential mechanism
  with score ``-(#errors)``, sensitivity 1.
* ``method='littlestone'``: PolyPriPropLearn (seeds/001, Alg. 3) for a
  finite class on a finite domain.

References
----------
seeds/001_f5510c59108e6780.txt, §5 (Alg. 1, 2, §5.2), §6.1 (Lemma 6.2,
Lemma 6.3, Alg. 3, Thm 6.4); seeds/000_08e60ac76481cbe2.txt §4.
"""

import math
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._domain import domain_row_indices
from .._guarantee import Guarantee, PrivacySpent
from .._validation import (
    BinaryLabels,
    check_binary_target,
    check_bounds,
    check_delta,
    check_epsilon,
    check_generator,
    check_positive_int,
    check_probability,
    clip_to_bounds,
    resolve_public_classes,
)
from ..exceptions import PrivacyWarning
from .littlestone._ldim import LittlestoneOracle, as_class_matrix
from .littlestone._polypri import (
    poly_pri_prop_learn,
    resolve_parameters,
    theoretical_sample_size,
)

__all__ = ["PrivateProperClassifier", "SelectedHypothesis"]

_ROW_BLOCK = 2048  # rows per block in the generic error-count update


class SelectedHypothesis:
    """The hypothesis released by :class:`PrivateProperClassifier`.

    A member of the class: ``predict`` applies it, ``description`` reads it.

    Attributes
    ----------
    index : int
        Index of the hypothesis in the (public) cover or finite class.
    description : str
        E.g. ``"x[3] >= 0.42 -> 1 (else 0)"``.
    """

    def __init__(self, index, description, classes, concept=None, domain=None, values=None):
        self.index = int(index)
        self.description = description
        self._classes = classes
        self._concept = concept  # single-concept FiniteConcepts ('exponential')
        self._domain = domain  # finite domain and the hypothesis on it ('littlestone')
        self._values = values

    def predict_pm1(self, X):
        """The hypothesis's values in ``{-1, +1}`` on ``X``."""
        if self._concept is not None:
            return np.where(self._concept.evaluate(X)[:, 0], 1, -1)
        rows = PrivateProperClassifier._domain_indices(
            self._domain, np.asarray(X, dtype=np.float64)
        )
        return np.where(self._values[rows], 1, -1)

    def predict(self, X):
        """Labels (from ``classes_``) predicted by the hypothesis."""
        return BinaryLabels.decode(self.predict_pm1(X), self._classes)

    def __repr__(self):
        return f"SelectedHypothesis({self.description!r})"

    def __str__(self):
        return self.description


class PrivateProperClassifier(ClassifierMixin, BaseEstimator):
    """Differentially private proper binary classifier.

    The output is always a hypothesis of the class (``hypothesis_``), selected
    privately from the data.

    Parameters
    ----------
    hypotheses : str, ConceptClass, FiniteConcepts or array-like, default='stumps'
        The class. For ``method='exponential'``: ``'stumps'``,
        ``'thresholds'``, ``'boxes'``, ``'halfspaces'`` (built by
        :mod:`sksmooth.classes` as a data-independent cover of ``bounds``), a
        :class:`sksmooth.classes.ConceptClass`, or a finite instance
        (:class:`sksmooth.classes.FiniteConcepts`: used as is). For
        ``method='littlestone'``: a ``(n_hypotheses, n_domain_points)`` matrix
        of ``{-1, +1}`` over ``domain``, a finite instance (evaluated on
        ``domain``), or ``'thresholds'`` (one-dimensional ``domain``:
        ``h_t(x) = +1`` iff ``x >= t``, one per domain point plus the constant
        ``-1``).
    method : {'exponential', 'littlestone'}, default='exponential'
        ``'exponential'``: the generic learner of seeds/001 Lemma 6.3
        (works on real data; agnostic). ``'littlestone'``: PolyPriPropLearn,
        seeds/001 Alg. 3 (finite class and domain; realizable).
    epsilon : float, default=1.0
        Privacy parameter of *each* release.
    delta : float, default=0.0
        ``'exponential'`` is pure ``epsilon``-DP and ignores ``delta`` (must
        be 0 or is reported as spent anyway: ``0`` recommended).
        ``'littlestone'`` needs ``delta > 0`` (sparse selection, §5.2).
    alpha : float, default=0.1
        Target error (``eta`` in seeds/001); used by the ``'auto'`` rules and
        :func:`theoretical_sample_size`.
    beta : float, default=0.1
        Failure probability of the accuracy guarantee.
    bounds : tuple (lower, upper) or None, default=None
        Public domain box for the cover (``'exponential'``). ``None`` takes it
        from the first batch of data with a :class:`PrivacyLeakWarning`
        (privacy then NOT certified). Data outside are clipped
        (``n_clipped_``).
    classes : array-like of two labels or None, default=None
        The public label set. ``None`` infers it from ``y`` with a
        :class:`PrivacyLeakWarning`: which labels occur is a property of the
        data (a neighbouring dataset may lack one), so the privacy claim then
        treats the label set as public and is not certified.
    cover_size : int or 'auto', default='auto'
        Maximum number of hypotheses in the cover (``'exponential'``);
        ``'auto'`` = 20000. The grid radius requested is ``gamma``.
    gamma : float or 'auto', default='auto'
        Requested cover radius under the uniform measure on ``bounds``;
        ``'auto'`` = 1/128 (64 grid cells per feature for stumps).
    neighbouring : {'substitute', 'add_remove'}, default='substitute'
        Neighbouring relation of the claim for ``'exponential'``.
        ``'substitute'`` calibrates ``exp(epsilon * score / 2)``, which is
        ``epsilon``-DP under both substitution and addition/removal of one
        example. ``'add_remove'`` uses the monotonic calibration
        ``exp(epsilon * score)`` (adding an example can only raise every
        error count, so all scores move in the same direction): twice the
        utility, ``epsilon``-DP under addition/removal only (``2 epsilon``
        under substitution). ``'littlestone'`` supports ``'substitute'`` only.
    domain : array-like of shape (n_domain_points, n_features) or None
        The finite domain (``'littlestone'``). Every row of ``X`` must be a
        domain point.
    n_generic, n_chunks, alpha_delta, k_prime, max_set_size, h_size : 'auto' or number
        Internals of PolyPriPropLearn (see
        :func:`~sksmooth.proper.littlestone._polypri.resolve_parameters`);
        ``'auto'`` rules use public inputs only (``n``, ``epsilon``,
        ``delta``, ``alpha``, ``beta``, the class).
    accountant : BudgetAccountant or None, default=None
        Ledger charged once per release.
    random_state : None, int or Generator, default=None

    Attributes
    ----------
    hypothesis_ : SelectedHypothesis
        The released hypothesis (a member of the class). Accessing it (or
        calling ``predict``) after ``partial_fit`` added data runs a new
        private selection, charged as a new release.
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
    n_samples_seen_ : int
    n_releases_ : int
        Number of private selections run since the last ``fit``.
    privacy_spent_ : PrivacySpent
        Cumulative ``(epsilon, delta)`` over all releases since the last
        ``fit`` (basic composition: every release reads all data seen so far).
    guarantee_ : Guarantee
    bounds_ : tuple of ndarray
        ``'exponential'``: the box of the cover.
    n_clipped_ : int
        Rows clipped to ``bounds_`` (a data-dependent count kept for the
        user's diagnostics; it is not part of the private release).
    cover_size_ : int
        Number of hypotheses in the cover (``'exponential'``) or the class.
    excess_error_bound_ : float
        ``'exponential'``: with probability ``>= 1 - beta`` the selected
        hypothesis's empirical error exceeds the best cover hypothesis's by at
        most this fraction (exponential mechanism utility bound,
        ``c ln(K / beta) / (epsilon n)`` with ``c = 2`` or 1 for
        ``'add_remove'``).
    littlestone_dimension_ : int
        ``'littlestone'``: ``Ldim`` of the class.
    theoretical_sample_size_ : int
        ``'littlestone'``: Thm 6.4's ``n`` (constant ``C = 1``; see
        :func:`theoretical_sample_size`).
    parameters_ : dict
        ``'littlestone'``: the resolved internal parameters.
    soa_values_ : ndarray
        ``'littlestone'``: the SOA hypothesis released by PolyPriLearn
        (private output, on the domain).
    candidate_indices_ : ndarray
        ``'littlestone'``: the Lemma 6.2 set ``H`` (post-processing).
    soa_from_fallback_ : bool
        ``'littlestone'``: whether sparse selection drew a dummy candidate,
        so that ``soa_values_`` is the public fallback ``SOA_F`` (a function
        of the mechanism's output only).

    Notes
    -----
    *What each method assumes.* ``'exponential'`` is agnostic: privacy holds
    for every input; the selected cover hypothesis has empirical error within
    ``excess_error_bound_`` of the best cover element (w.p. ``1 - beta``), and
    the cover is within ``gamma`` of the whole class under the uniform measure
    on ``bounds`` (so within ``gamma / sigma`` for sigma-smooth data, seeds/000
    §4). ``'littlestone'`` targets the realizable case (Thm 6.4): error
    ``<= alpha`` w.p. ``1 - beta`` once ``n >= theoretical_sample_size_``
    (constants unspecified by the paper); privacy holds for every ``n``.

    *Neighbouring relation and n.* Under ``neighbouring='substitute'`` the
    sample size is public. Under ``'add_remove'`` it is not, and
    ``n_samples_seen_`` / ``excess_error_bound_`` (which reveal ``n``) are
    diagnostics for the data owner, not part of the release.

    *Labels.* ``classes_`` comes from the public ``classes`` parameter (or the
    ``classes`` argument of the first ``partial_fit``); inferring it from
    ``y`` is a data-dependent choice and is flagged (see ``classes``).

    *Stored statistics.* To support ``partial_fit`` the estimator keeps exact
    private statistics in private attributes (per-hypothesis error counts, or
    the sample for ``'littlestone'``). Publish ``hypothesis_`` (or
    predictions), not the pickled estimator.

    References
    ----------
    seeds/001_f5510c59108e6780.txt (Ghazi, Golowich, Kumar, Manurangsi),
    Lemma 6.3, Alg. 3, Thm 6.4; seeds/000_08e60ac76481cbe2.txt §4.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sksmooth.proper import PrivateProperClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = PrivateProperClassifier(epsilon=1.0, bounds=(X.min(0), X.max(0)),
    ...                               classes=[0, 1], random_state=0).fit(X, y)
    >>> clf.hypothesis_.index in range(clf.cover_size_)
    True
    """

    def __init__(
        self,
        hypotheses="stumps",
        method="exponential",
        epsilon=1.0,
        delta=0.0,
        alpha=0.1,
        beta=0.1,
        bounds=None,
        classes=None,
        cover_size="auto",
        gamma="auto",
        neighbouring="substitute",
        domain=None,
        n_generic="auto",
        n_chunks="auto",
        alpha_delta="auto",
        k_prime="auto",
        max_set_size="auto",
        h_size="auto",
        accountant=None,
        random_state=None,
    ):
        self.hypotheses = hypotheses
        self.method = method
        self.epsilon = epsilon
        self.delta = delta
        self.alpha = alpha
        self.beta = beta
        self.bounds = bounds
        self.classes = classes
        self.cover_size = cover_size
        self.gamma = gamma
        self.neighbouring = neighbouring
        self.domain = domain
        self.n_generic = n_generic
        self.n_chunks = n_chunks
        self.alpha_delta = alpha_delta
        self.k_prime = k_prime
        self.max_set_size = max_set_size
        self.h_size = h_size
        self.accountant = accountant
        self.random_state = random_state

    # ------------------------------------------------------------------ tags
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.classifier_tags.poor_score = True
        tags.non_deterministic = self.random_state is None
        return tags

    # ------------------------------------------------------------ validation
    def _check_params(self):
        from ..accounting import check_accountant

        if self.method not in ("exponential", "littlestone"):
            raise ValueError(
                f"method must be 'exponential' or 'littlestone', got {self.method!r}."
            )
        params = {
            "epsilon": check_epsilon(self.epsilon),
            "delta": check_delta(self.delta),
            "alpha": check_probability(self.alpha, "alpha"),
            "beta": check_probability(self.beta, "beta"),
        }
        if self.neighbouring not in ("substitute", "add_remove"):
            raise ValueError(
                "neighbouring must be 'substitute' or 'add_remove', got "
                f"{self.neighbouring!r}."
            )
        if self.method == "littlestone":
            if params["delta"] == 0:
                raise ValueError(
                    "method='littlestone' is (epsilon, delta)-DP with delta > 0 "
                    "(sparse selection, seeds/001 §5.2); pass e.g. delta=1e-6."
                )
            if self.neighbouring != "substitute":
                raise ValueError(
                    "method='littlestone' is private under substitution only (its "
                    "disjoint splits need a public n); pass neighbouring='substitute'."
                )
            for name in ("n_generic", "n_chunks", "k_prime", "max_set_size", "h_size"):
                value = getattr(self, name)
                if value != "auto":
                    check_positive_int(value, name, minimum=0 if name == "n_generic" else 1)
            if self.alpha_delta != "auto":
                check_probability(self.alpha_delta, "alpha_delta")
        else:
            if self.cover_size != "auto":
                check_positive_int(self.cover_size, "cover_size", minimum=2)
            if self.gamma != "auto":
                check_probability(self.gamma, "gamma")
        check_accountant(self.accountant)
        check_generator(self.random_state)  # type check only
        return params

    def _check_classes(self, y, classes):
        check_binary_target(y)
        if classes is None:
            classes = self.classes
        labels, inferred = resolve_public_classes(y, classes, stacklevel=5)
        if len(labels) < 2:
            raise ValueError(
                "y contains only one class; this binary classifier needs two. Pass "
                "the public label set with classes=[...]."
            )
        return labels, inferred

    # ---------------------------------------------------------------- fitting
    def fit(self, X, y):
        """Fit on ``(X, y)`` and release a hypothesis (one charged release).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        params = self._check_params()
        if self.accountant is not None:
            self.accountant.check(params["epsilon"], self._release_delta(params))
        state = self._accumulate(X, y, classes=None, reset=True, params=params)
        self._commit(state)
        self._release()
        return self

    def partial_fit(self, X, y, classes=None):
        """Add data to the sufficient statistics; the next release uses all of it.

        No privacy is spent here: the private selection runs (and is charged)
        at the next ``predict`` / ``hypothesis_`` access.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of two labels, optional
            Public label set, required on the first call unless the
            ``classes`` parameter is set.

        Returns
        -------
        self
        """
        # a failed call leaves the estimator (and a Generator random_state)
        # exactly as it was: validate_data(reset=True) sets n_features_in_ and
        # the first call draws the seed before the rest is validated
        snapshot = dict(self.__dict__)
        generator = self.random_state
        if not isinstance(generator, np.random.Generator):
            generator = None
        generator_state = generator.bit_generator.state if generator is not None else None
        try:
            return self._partial_fit(X, y, classes)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(snapshot)
            if generator is not None:
                generator.bit_generator.state = generator_state
            raise

    def _partial_fit(self, X, y, classes):
        params = self._check_params()
        first = not hasattr(self, "_state")
        if not first:
            BinaryLabels.check_same_classes(classes, self.classes_)
        # validate_data(reset=True) sets n_features_in_ (and feature_names_in_)
        # before y is checked: put them back if the first call fails
        saved = {k: self.__dict__[k] for k in ("n_features_in_", "feature_names_in_")
                 if k in self.__dict__}
        try:
            state = self._accumulate(X, y, classes=classes, reset=first, params=params)
        except Exception:
            if first:
                for name in ("n_features_in_", "feature_names_in_"):
                    self.__dict__.pop(name, None)
                self.__dict__.update(saved)
            raise
        self._commit(state)
        return self

    def _seed(self, reset):
        if reset or not hasattr(self, "_seed_int"):
            return int(check_generator(self.random_state).integers(0, 2**63 - 1))
        return self._seed_int

    def _accumulate(self, X, y, classes, reset, params):
        """Validate and compute the new state without mutating ``self``."""
        X, y = validate_data(self, X, y, reset=reset, dtype=np.float64)
        check_classification_targets(y)
        if X.shape[0] == 0:
            raise ValueError("X has 0 samples; pass at least one row.")
        if reset:
            labels, inferred = self._check_classes(y, classes)
        else:
            labels, inferred = self.classes_, self._state["classes_inferred"]
        y_pm1 = BinaryLabels.encode(y, labels)
        seed = self._seed(reset)
        if self.method == "exponential":
            return self._accumulate_exponential(X, y_pm1, labels, inferred, reset, seed, params)
        return self._accumulate_littlestone(X, y_pm1, labels, inferred, reset, seed, params)

    def _commit(self, state):
        reset = state.pop("_reset")
        self._state = state
        self._seed_int = state["seed"]
        self.classes_ = state["classes"]
        self.n_samples_seen_ = state["n"]
        if reset:
            self.n_releases_ = 0
            self.privacy_spent_ = PrivacySpent(0.0, 0.0)
            self._hypothesis = None
            # (epsilon, neighbouring) of every release: the calibration may be
            # changed by set_params between lazy releases
            self._release_log = []
        for name, value in state.get("public", {}).items():
            setattr(self, name, value)
        self._pending = True

    # ------------------------------------------------------ 'exponential' path
    def _build_cover(self, lower, upper, seed):
        """The data-independent cover: depends on public bounds and the seed only."""
        from ..classes import ConceptClass, FiniteConcepts, Thresholds, check_concept_class

        hyp = self.hypotheses
        if not isinstance(hyp, (str, ConceptClass, FiniteConcepts)):
            raise TypeError(
                "hypotheses must be a class name, a sksmooth.classes.ConceptClass or "
                "a FiniteConcepts instance for method='exponential' (a matrix needs "
                f"method='littlestone' or FiniteClass(matrix=...)); got {type(hyp).__name__}."
            )
        hyp = check_concept_class(hyp, "hypotheses")
        if isinstance(hyp, FiniteConcepts):
            return hyp
        if isinstance(hyp, Thresholds) and len(lower) != 1:
            raise ValueError(
                f"hypotheses='thresholds' needs one feature, X has {len(lower)}; use "
                "'stumps'."
            )
        max_size = 20000 if self.cover_size == "auto" else int(self.cover_size)
        gamma = 1.0 / 128 if self.gamma == "auto" else float(self.gamma)
        # a stream of its own: release k draws its noise from [seed, k], and
        # noise shared with the (public) cover would not be independent of it
        cover_rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)))
        kwargs = dict(bounds=(lower, upper), gamma=gamma, max_size=max_size,
                      random_state=cover_rng)
        with warnings.catch_warnings():
            # a radius capped by max_size is reported through guarantee_ notes
            warnings.simplefilter("ignore", UserWarning)
            try:
                return hyp.cover(n_features=len(lower), **kwargs)
            except TypeError:
                return hyp.cover(**kwargs)

    def _accumulate_exponential(self, X, y_pm1, labels, inferred, reset, seed, params):
        if reset:
            lower, upper = check_bounds(self.bounds, X.shape[1], X=X)
            bounds_inferred = self.bounds is None
            cover = self._build_cover(lower, upper, seed)
            if cover.n_features != X.shape[1]:
                raise ValueError(
                    f"hypotheses has n_features={cover.n_features} but X has "
                    f"{X.shape[1]} features."
                )
            errors = np.zeros(cover.n_concepts)
            n_old, clipped_old = 0, 0
        else:
            lower, upper = self.bounds_
            bounds_inferred = self._state["bounds_inferred"]
            cover = self._state["cover"]
            errors = self._state["errors"]
            n_old, clipped_old = self.n_samples_seen_, self.n_clipped_
        X, n_clipped = clip_to_bounds(X, lower, upper)
        errors = errors + _error_counts(cover, X, y_pm1)  # new array: self untouched
        return {
            "_reset": reset,
            "seed": seed,
            "classes": labels,
            "classes_inferred": inferred,
            "bounds_inferred": bounds_inferred,
            "cover": cover,
            "errors": errors,
            "n": n_old + X.shape[0],
            "public": {
                "bounds_": (lower, upper),
                "n_clipped_": clipped_old + n_clipped,
                "cover_size_": cover.n_concepts,
            },
        }

    def _select_exponential(self, rng, params):
        from ..mechanisms import exponential_mechanism

        state = self._state
        monotonic = self.neighbouring == "add_remove"
        index = exponential_mechanism(
            -state["errors"], params["epsilon"], 1.0, rng, monotonic=monotonic
        )
        cover = state["cover"]
        index = int(index)
        desc = f"{cover.describe(index)} -> {self.classes_[1]} (else {self.classes_[0]})"
        return SelectedHypothesis(
            index, desc, self.classes_, concept=cover.subset([index])
        ), {}

    # ------------------------------------------------------ 'littlestone' path
    def _finite_class(self, n_features):
        if self.domain is None:
            raise ValueError(
                "method='littlestone' needs the finite domain: pass domain= (an array "
                "of shape (n_domain_points, n_features))."
            )
        domain = np.asarray(self.domain, dtype=np.float64)
        if domain.ndim == 1:
            domain = domain[:, None]
        if domain.ndim != 2 or domain.shape[0] == 0 or not np.all(np.isfinite(domain)):
            raise ValueError(
                "domain must be a finite 2-D array of shape (n_domain_points, "
                f"n_features) with at least one row, got shape {domain.shape}."
            )
        if domain.shape[1] != n_features:
            raise ValueError(
                f"domain has {domain.shape[1]} features but X has {n_features}."
            )
        if len(np.unique(domain, axis=0)) != len(domain):
            raise ValueError("domain must not contain duplicate points.")
        hyp = self.hypotheses
        if isinstance(hyp, str):
            if hyp != "thresholds":
                raise ValueError(
                    f"hypotheses={hyp!r} is not supported by method='littlestone'; "
                    "pass 'thresholds' (1-D domain), a {-1,+1} matrix of shape "
                    "(n_hypotheses, n_domain_points) or a finite instance."
                )
            if n_features != 1:
                raise ValueError("hypotheses='thresholds' needs a 1-D domain.")
            values = np.sort(domain[:, 0])
            cuts = np.append(values, np.inf)
            matrix = domain[:, 0][None, :] >= cuts[:, None]
            descriptions = [f"x[0] >= {c:.6g}" for c in values] + ["always -1"]
        elif hasattr(hyp, "evaluate") and hasattr(hyp, "n_concepts"):
            matrix = np.asarray(hyp.evaluate(domain)).T.astype(bool)
            descriptions = [hyp.describe(j) for j in range(hyp.n_concepts)]
        else:
            matrix = as_class_matrix(hyp, name="hypotheses")
            if matrix.shape[1] != len(domain):
                raise ValueError(
                    f"hypotheses has {matrix.shape[1]} columns but domain has "
                    f"{len(domain)} points; the matrix must be (n_hypotheses, "
                    "n_domain_points)."
                )
            descriptions = [f"hypothesis #{j}" for j in range(matrix.shape[0])]
        return domain, matrix, descriptions

    @staticmethod
    def _domain_indices(domain, X):
        idx = domain_row_indices(domain, X)
        if np.any(idx < 0):
            # no row index, count or value in the message: X may be private
            raise ValueError(
                "some rows of X are not points of domain; method='littlestone' "
                "needs every row of X to be a domain point."
            )
        return idx

    def _accumulate_littlestone(self, X, y_pm1, labels, inferred, reset, seed, params):
        if reset:
            domain, matrix, descriptions = self._finite_class(X.shape[1])
            oracle = LittlestoneOracle(matrix)
            idx_old = np.empty(0, dtype=np.int64)
            y_old = np.empty(0)
            d = oracle.ldim()
        else:
            st = self._state
            domain, oracle, descriptions, d = st["domain"], st["oracle"], st["descriptions"], st["d"]
            idx_old, y_old = st["x_idx"], st["y"]
        idx = self._domain_indices(domain, X)
        x_idx = np.concatenate([idx_old, idx])
        y_all = np.concatenate([y_old, y_pm1])
        return {
            "_reset": reset,
            "seed": seed,
            "classes": labels,
            "classes_inferred": inferred,
            "bounds_inferred": False,
            "domain": domain,
            "oracle": oracle,
            "descriptions": descriptions,
            "d": d,
            "x_idx": x_idx,
            "y": y_all,
            "n": len(x_idx),
            "public": {
                "littlestone_dimension_": d,
                "cover_size_": oracle.n_hypotheses,
            },
        }

    def _select_littlestone(self, rng, params):
        st = self._state
        oracle, d, n = st["oracle"], st["d"], st["n"]
        resolved = resolve_parameters(
            n, d=d, n_hypotheses=oracle.n_hypotheses, n_points=oracle.n_points,
            epsilon=params["epsilon"], delta=params["delta"], alpha=params["alpha"],
            beta=params["beta"], n_generic=self.n_generic, n_chunks=self.n_chunks,
            alpha_delta=self.alpha_delta, k_prime=self.k_prime,
            max_set_size=self.max_set_size, h_size=self.h_size,
        )
        if resolved["n_generic"] > n:
            raise ValueError(
                f"n_generic={resolved['n_generic']} exceeds the number of samples {n}."
            )
        n_theory = theoretical_sample_size(
            d, d, params["epsilon"], params["delta"], params["alpha"], params["beta"]
        )
        if n < n_theory:
            warnings.warn(
                f"n={n} is below the sample size n={n_theory} of Thm 6.4 (seeds/001, "
                "constant C=1): the accuracy guarantee does not apply (privacy does).",
                PrivacyWarning,
                stacklevel=4,
            )
        perm = rng.permutation(n)  # data-independent split (substitution neighbours)
        index, details = poly_pri_prop_learn(
            oracle, st["x_idx"][perm], st["y"][perm], epsilon=params["epsilon"],
            delta=params["delta"], rng=rng, d=d, **resolved,
        )
        public = {
            "parameters_": resolved,
            "theoretical_sample_size_": n_theory,
            "soa_values_": details["soa_values"],
            "candidate_indices_": details["candidate_indices"],
            "soa_from_fallback_": details["from_fallback"],
        }
        desc = f"{st['descriptions'][index]} -> {self.classes_[1]} (else {self.classes_[0]})"
        hypothesis = SelectedHypothesis(
            index, desc, self.classes_, domain=st["domain"],
            values=oracle.matrix[index].copy(),
        )
        return hypothesis, public

    # ---------------------------------------------------------------- release
    def _release_delta(self, params):
        """'exponential' is pure epsilon-DP; 'littlestone' spends delta."""
        return params["delta"] if self.method == "littlestone" else 0.0

    def _release(self):
        from ..accounting import charge

        params = self._check_params()
        eps = params["epsilon"]
        delta = self._release_delta(params)
        if self.accountant is not None:
            self.accountant.check(eps, delta)
        rng = np.random.default_rng([self._seed_int, self.n_releases_])
        if self.method == "exponential":
            hypothesis, public = self._select_exponential(rng, params)
        else:
            hypothesis, public = self._select_littlestone(rng, params)
        charge(self.accountant, eps, delta, label=type(self).__name__)
        self._release_log = self._release_log + [(eps, self.neighbouring)]
        for name, value in public.items():
            setattr(self, name, value)
        self._hypothesis = hypothesis
        self.n_releases_ += 1
        spent = self.privacy_spent_
        self.privacy_spent_ = PrivacySpent(spent.epsilon + eps, spent.delta + delta)
        if self.method == "exponential":
            c = 1.0 if self.neighbouring == "add_remove" else 2.0
            k = self._state["cover"].n_concepts
            self.excess_error_bound_ = min(
                1.0, c * math.log(k / params["beta"]) / (eps * self.n_samples_seen_)
            )
        self.guarantee_ = self._guarantee(params)
        self._pending = False

    def _guarantee(self, params):
        st = self._state
        spent = self.privacy_spent_
        certified, not_certified, notes = [], [], []
        if self.method == "exponential":
            # a release calibrated for 'add_remove' is only 2 eps-DP under
            # substitution; the claim covers every release since the last fit
            log = self._release_log
            if all(rel == "substitute" for _, rel in log):
                relation = "substitution or addition/removal of one example"
            else:
                eps_sub = sum(e * (2.0 if rel == "add_remove" else 1.0) for e, rel in log)
                relation = (
                    "addition/removal of one example (only "
                    f"{eps_sub:.6g}-differential privacy under substitution)"
                )
            source = ("seeds/001_f5510c59108e6780.txt, Lemma 6.3 (generic learner, "
                      "[KLN+08]); exponential mechanism, score -(#errors), sensitivity 1")
            cover = st["cover"]
            if st["bounds_inferred"]:
                not_certified.append("cover is data independent (bounds taken from data)")
            else:
                certified.append("cover built from public bounds only")
            info = getattr(cover, "gamma", None)
            notes.append(
                f"cover of {cover.n_concepts} hypotheses, radius gamma={info} "
                f"({'certified' if getattr(cover, 'gamma_certified', False) else 'not certified'})"
                " under the uniform measure on bounds_"
            )
            notes.append(
                f"w.p. >= 1 - beta the empirical error is within {self.excess_error_bound_:.4g} "
                "of the best cover hypothesis (agnostic)"
            )
        else:
            relation = "substitution of one example (n public)"
            source = ("seeds/001_f5510c59108e6780.txt, Alg. 3 PolyPriPropLearn, Thm 6.4 "
                      "(PolyPriLearn (eps, delta) + GenericLearner (eps, 0) on disjoint parts)")
            certified.append("splits and internal parameters depend on public inputs only")
            notes.append(
                f"accuracy (realizable, error <= alpha w.p. 1 - beta) needs n >= "
                f"{self.theoretical_sample_size_} (Thm 6.4 with C=1); n={st['n']}"
            )
        if st["classes_inferred"]:
            not_certified.append("label set is public (inferred from y)")
        else:
            certified.append("label set given publicly (classes=)")
        notes.append(
            f"{self.n_releases_} release(s) composed (basic composition: each reads all "
            "data seen so far)"
        )
        claim = f"({spent.epsilon:.6g}, {spent.delta:.3g})-differential privacy under {relation}"
        return Guarantee(
            claim=claim,
            source=source,
            certified=not not_certified,
            assumptions_certified=tuple(certified),
            assumptions_not_certified=tuple(not_certified),
            notes=tuple(notes),
        )

    # -------------------------------------------------------------- predicting
    @property
    def hypothesis_(self):
        """The released hypothesis (runs a charged release if data were added)."""
        check_is_fitted(self, "n_samples_seen_")
        if self._pending:
            self._release()
        return self._hypothesis

    def predict(self, X):
        """Predict with the released hypothesis.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "n_samples_seen_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self.hypothesis_.predict(X)


def _error_counts(cover, X, y_pm1):
    """Number of errors of every cover hypothesis on ``(X, y)`` (vectorised)."""
    y_pos = y_pm1 > 0
    n_pos = int(np.count_nonzero(y_pos))
    names = getattr(cover, "_param_names", ())
    if tuple(names) == ("feature", "threshold", "sign"):
        return _stump_error_counts(cover, X, y_pos, n_pos)
    errors = np.zeros(cover.n_concepts)
    for start in range(0, X.shape[0], _ROW_BLOCK):
        values = cover.evaluate(X[start:start + _ROW_BLOCK])
        yb = y_pos[start:start + _ROW_BLOCK]
        # errors_j = #{c_j = +1, y = -1} + #{c_j = -1, y = +1}
        errors += values[~yb].sum(axis=0) + (np.count_nonzero(yb) - values[yb].sum(axis=0))
    return errors


def _stump_error_counts(cover, X, y_pos, n_pos):
    """Sort/cumsum error counts for ``c_j(x) = (x_f >= t) == (sign > 0)``."""
    n = X.shape[0]
    n_neg = n - n_pos
    errors = np.empty(cover.n_concepts)
    feature, threshold, sign = cover.feature, cover.threshold, cover.sign
    for f in np.unique(feature):
        js = np.flatnonzero(feature == f)
        order = np.argsort(X[:, f], kind="stable")
        xs = X[order, f]
        pos_sorted = y_pos[order]
        cum_pos = np.concatenate([[0], np.cumsum(pos_sorted)])
        k = np.searchsorted(xs, threshold[js], side="left")  # rows >= t are k..n-1
        pos_ge = n_pos - cum_pos[k]
        neg_ge = (n - k) - pos_ge
        errors[js] = np.where(
            sign[js] > 0, neg_ge + (n_pos - pos_ge), pos_ge + (n_neg - neg_ge)
        )
    return errors
